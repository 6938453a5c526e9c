"""trec_eval 10.0 and 9.0.8 built from the sources in tests/data/trec_eval, for the tests that run them.

Each version's build inputs (its ``.c`` and ``.h`` files, its Makefile, README, CHANGELOG and,
for 10.0, NIST's LICENSE.md) are committed as ``tests/data/trec_eval/trec_eval-<version>-src.tar.gz``
(the README there says from which tag and by which command). :func:`trec_eval_binary` builds one
with trec_eval's own Makefile and the system's ``make`` and C compiler (``cc``, else ``gcc``) into
``build/tests/trec_eval-<version>-<first 12 hex digits of the archive's sha256>/`` in the clone
(git-ignored), and later runs reuse that directory. The build happens at most once, even with
``pytest -n 2``: a worker builds under an exclusive lock (``fcntl.flock`` on a file beside the
directory) in a temporary directory that is renamed into place when the binary is there, so a
directory of that name always holds a finished build. Make's output goes to ``build.log`` in the
directory, never into the test output.

:func:`trec_eval` takes the binary ``IR_CWLA_TREC_EVAL`` (10.0) or ``IR_CWLA_TREC_EVAL_9``
(9.0.8) names first, where set. Where ``make`` or a compiler is missing, or the build fails,
:class:`Unavailable` says why (for a failure, with the last lines of make's output): the fixture
``trec_eval_build`` of tests/conftest.py skips with that reason.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "tests" / "data" / "trec_eval"
CACHE = ROOT / "build" / "tests"
#: The versions built, by trec_eval major version: the version of their archive's name.
VERSIONS = {10: "10.0", 9: "9.0.8"}
#: The variable that names a binary of each version instead of a build.
VARIABLES = {10: "IR_CWLA_TREC_EVAL", 9: "IR_CWLA_TREC_EVAL_9"}
COMPILERS = ("cc", "gcc")
#: Lines of make's output a failure's reason quotes.
TAIL = 15
#: Seconds a build may take (it takes 3-4 s on two cores).
TIMEOUT = 600


class Unavailable(Exception):
    """trec_eval cannot be built here; the message says what is missing or how the build failed.

    ``reason`` says it in a line; ``detail``, where a build failed, is the end of make's output.
    """

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail

    def says(self, hint: str = "") -> str:
        """The reason, ``hint`` after it, then make's last lines where there are some."""
        text = f"{self.reason}{'; ' + hint if hint else ''}"
        return f"{text}; the last lines of make's output:\n{self.detail}" if self.detail else text

    def __str__(self) -> str:
        return self.says()


def archive(version: str) -> Path:
    return SOURCES / f"trec_eval-{version}-src.tar.gz"


def build_dir(version: str) -> Path:
    """Where the build of ``version`` goes: named by the archive's content, so a new archive builds anew."""
    digest = hashlib.sha256(archive(version).read_bytes()).hexdigest()[:12]
    return CACHE / f"trec_eval-{version}-{digest}"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (a file), held by one process at a time; none where fcntl is missing."""
    try:
        import fcntl
    except ImportError:            # not POSIX: the rename alone keeps a half-built directory out of sight
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def trec_eval(major: int) -> Path:
    """trec_eval ``major`` (10 or 9): the binary its variable names, where set; else :func:`trec_eval_binary`'s.

    Raises :class:`Unavailable` where the variable names no file or the version cannot be built.
    """
    variable = VARIABLES[major]
    named = os.environ.get(variable)
    if named:
        if not Path(named).is_file():
            raise Unavailable(f"{variable}={named} is not a file (unset it to build trec_eval {VERSIONS[major]} "
                              f"from {source_name(VERSIONS[major])})")
        return Path(named)
    try:
        return trec_eval_binary(major)
    except Unavailable as exc:
        raise Unavailable(f"{exc.reason} (or set {variable}=/path/to/trec_eval)", exc.detail) from exc


def trec_eval_binary(major: int) -> Path:
    """The trec_eval binary of version ``major`` (10 or 9) built from its archive; built if it is not yet.

    Raises :class:`Unavailable` where it cannot be built.
    """
    version = VERSIONS[major]
    source = archive(version)
    if not source.is_file():
        raise Unavailable(f"trec_eval {version}'s source {source} is missing")
    target = build_dir(version)
    binary = target / "trec_eval"
    if binary.is_file():
        return binary
    make = shutil.which("make")
    compiler = next((found for name in COMPILERS if (found := shutil.which(name))), None)
    missing = [what for what, found in (("make", make), ("C compiler (cc or gcc)", compiler)) if not found]
    if missing:
        raise Unavailable(f"trec_eval {version} cannot be built here: no {' and no '.join(missing)} on PATH")
    assert make and compiler
    CACHE.mkdir(parents=True, exist_ok=True)
    with _locked(CACHE / f"{target.name}.lock"):
        if binary.is_file():               # another worker built it while this one waited
            return binary
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=CACHE))
        try:
            with tarfile.open(source) as tar:
                # the "data" filter (no absolute paths, links out, devices) where Python has it (3.9.17,
                # 3.10.12, 3.11.4 and later); the archive is the project's own either way
                tar.extractall(work, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
            tree = work / f"trec_eval-{version}"
            _make(version, make, compiler, tree)
            try:
                os.replace(tree, target)
            except OSError:
                if not binary.is_file():      # (without a lock, another process may have renamed its build first)
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return binary


def _make(version: str, make: str, compiler: str, tree: Path) -> None:
    """``make CC=<compiler> trec_eval`` in ``tree``, its output in ``tree/build.log``."""
    # a make above pytest (``make test``) passes its flags and jobserver down: not to this one
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["LC_ALL"] = "C"
    command = [make, f"CC={compiler}", "trec_eval"]
    try:
        done = subprocess.run(command, cwd=tree, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace", timeout=TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"building trec_eval {version} ({' '.join(command)}) took more than {TIMEOUT} s") from exc
    (tree / "build.log").write_text(done.stdout)
    if done.returncode != 0 or not (tree / "trec_eval").is_file():
        tail = "\n".join(done.stdout.rstrip().splitlines()[-TAIL:])
        raise Unavailable(f"building trec_eval {version} from {source_name(version)} failed ({' '.join(command)}: "
                          f"exit status {done.returncode})", tail)


def source_name(version: str) -> str:
    return str(archive(version).relative_to(ROOT))
