"""The code blocks of the documentation: found, classified, run in page order, outputs compared.

A page (``docs/*.md``, the README) is read as the site shows it (generated parts expanded, see
``docs/_tools/reference.py``) and every fenced block is one of:

- a **Python** block (```` ```python ````): run, in page order, in one interpreter per page
  whose namespace the page's blocks share (like a notebook);
- a **shell** block (```` ```bash ````, ``sh``): run by ``bash`` with ``set -e -o pipefail``
  in the page's working directory, the environment's ``ir-cwla`` and ``python`` on the PATH;
  stdout and stderr are read together, as a terminal shows them;
- an **output** block (```` ```text title="output" ````) right after a Python or shell block:
  what that block prints must match it (see :func:`matches`);
- a block **not run**, which says so on the line before it, with a reason:
  ``<!-- test: norun (a setup.cfg snippet) -->``; anything else is an error.

Page markers, anywhere in a page: ``<!-- test: slow -->`` (the page's test is marked slow) and
``<!-- test: needs shared-data -->`` (the page runs in a directory holding the real TREC DL 2019
passage files, linked from the fixtures of tests/conftest.py: ``qrels.dl19-passage.txt``,
``topics.dl19-passage.txt``, ``runs/`` and every ``input.RUN.gz``, and the image-search user study as
``image-search/`` where it is beside them; skipped where they are absent).
Every page runs in a fresh temporary directory in which ``examples/`` of the repository is
linked, so ``python examples/...`` works as written.

Run as a script (``python tests/docs_blocks.py BLOCKS.json RESULTS.json``), this module is the
child interpreter that runs one page's blocks.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from typing import Optional

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})(?P<info>[^`]*)$")
MARKER = re.compile(r"^\s*<!-- test: (?P<what>norun|slow|needs shared-data)(?P<rest>.*?)-->\s*$")
RUN_LANGUAGES = {"python": "python", "py": "python", "bash": "shell", "sh": "shell", "shell": "shell"}


@dataclass
class Block:
    page: str
    line: int                 # 1-based line of the opening fence
    language: str
    title: Optional[str]
    code: str
    marker: Optional[str] = None      # the reason of a ``norun`` marker
    kind: str = ""                    # python, shell, output, norun
    output: Optional[Block] = None    # the output block that follows a runnable one

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass
class Page:
    name: str
    text: str
    blocks: list[Block] = field(default_factory=list)
    slow: bool = False
    shared_data: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def runnable(self) -> list[Block]:
        return [b for b in self.blocks if b.kind in ("python", "shell")]

    @property
    def not_run(self) -> list[Block]:
        return [b for b in self.blocks if b.kind == "norun"]


def _title(info: str) -> Optional[str]:
    found = re.search(r'title="([^"]*)"', info)
    return found.group(1) if found else None


def parse(name: str, text: str) -> Page:
    """The blocks of a page, classified; ``page.problems`` lists every block that is none of the kinds."""
    page = Page(name, text)
    lines = text.split("\n")
    page.slow = any((m := MARKER.match(line)) and m.group("what") == "slow" for line in lines)
    page.shared_data = any((m := MARKER.match(line)) and m.group("what") == "needs shared-data" for line in lines)
    i = 0
    previous: Optional[Block] = None
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, ticks, info = opening.group("indent"), opening.group("ticks"), opening.group("info").strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(ticks) and lines[j].strip().strip(ticks[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        if j == len(lines):
            page.problems.append(f"{name}:{i + 1}: a code block is never closed")
            break
        language = info.split()[0] if info else ""
        block = Block(name, i + 1, language, _title(info), "\n".join(body) + "\n")
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = MARKER.match(lines[k]) if k >= 0 else None
        if marker and marker.group("what") == "norun":
            block.kind, block.marker = "norun", marker.group("rest").strip()
            if not block.marker:
                page.problems.append(f"{block.where}: a norun marker must say why: <!-- test: norun (reason) -->")
        elif block.title == "output":
            block.kind = "output"
            if previous is None or previous.kind not in ("python", "shell") or previous.output is not None:
                page.problems.append(f"{block.where}: an output block must follow a Python or shell block")
            else:
                previous.output = block
        elif language in RUN_LANGUAGES:
            block.kind = RUN_LANGUAGES[language]
        else:
            page.problems.append(f"{block.where}: a ```{language or '(no language)'} block is neither Python, shell, "
                                 "output (title=\"output\") nor marked <!-- test: norun (reason) -->")
            block.kind = "unknown"
        page.blocks.append(block)
        previous = block
        i = j + 1
    return page


# -- comparing outputs ---------------------------------------------------------------------------

def normalise(text: str) -> str:
    """Trailing spaces of every line and leading/trailing blank lines dropped, tabs kept."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def pattern(expected: str) -> re.Pattern:
    """The regular expression of an output block.

    ``...`` alone on a line stands for any number of lines (none included), ``...`` within a line
    for any text on that line; the rest is literal.
    """
    parts = []
    for line in normalise(expected).split("\n"):
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts) + r"\Z")


def matches(expected: str, actual: str) -> bool:
    """True if the output ``actual`` is what the output block ``expected`` shows."""
    return pattern(expected).match(normalise(actual) + "\n") is not None


# -- the child interpreter -----------------------------------------------------------------------

def _run_child(blocks_path: str, results_path: str) -> int:
    import contextlib
    import io
    import subprocess
    import traceback
    import warnings

    blocks = json.loads(open(blocks_path).read())
    namespace: dict = {"__name__": "__main__"}
    # warnings as a terminal user of a script sees them, without the path of the line that warned
    warnings.formatwarning = lambda message, category, *args, **kwargs: f"{category.__name__}: {message}\n"
    results = []
    for i, block in enumerate(blocks):
        buffer = io.StringIO()
        try:
            if block["kind"] == "python":
                code = compile(block["code"], f"<{block['where']}>", "exec")
                with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                    exec(code, namespace)
                results.append({"output": buffer.getvalue(), "error": None})
            else:
                done = subprocess.run(["bash", "-c", "set -e -o pipefail\n" + block["code"]], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
                error = None if done.returncode == 0 else f"exit status {done.returncode}"
                results.append({"output": done.stdout, "error": error})
        except BaseException:       # noqa: B036 (a block's SystemExit is a failure too)
            results.append({"output": buffer.getvalue(), "error": traceback.format_exc()})
        if results[-1]["error"] is not None:
            break
        print(f"block {i + 1}/{len(blocks)} done", file=sys.__stderr__, flush=True)
    with open(results_path, "w") as out:
        json.dump(results, out)
    return 0


if __name__ == "__main__":
    sys.exit(_run_child(sys.argv[1], sys.argv[2]))
