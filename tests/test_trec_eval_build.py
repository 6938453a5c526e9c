"""tests/trec_eval_build.py: trec_eval built from its committed source, once, or a reason why not.

The builds themselves are exercised by every test that requests ``trec_eval_build``
(tests/test_trec_eval_measures.py); here, what a machine without the tools, or with a compiler
that fails, is told, and where a build goes.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat

import pytest

from tests import trec_eval_build as build


def test_each_version_has_its_archive_and_a_build_directory_named_by_its_content():
    for version in build.VERSIONS.values():
        archive = build.archive(version)
        assert archive.is_file() and archive.stat().st_size < 150_000, archive
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        assert build.build_dir(version) == build.ROOT / "build" / "tests" / f"trec_eval-{version}-{digest[:12]}"


def test_without_make_or_a_compiler_the_reason_names_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "CACHE", tmp_path / "cache")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(build.Unavailable, match=r"trec_eval 10\.0 cannot be built here: no make and no C compiler "
                                                r"\(cc or gcc\) on PATH"):
        build.trec_eval_binary(10)


@pytest.mark.skipif(os.name != "posix" or not shutil.which("make"), reason="needs make and a POSIX shell")
def test_a_failed_build_says_so_with_the_end_of_its_output_and_leaves_no_directory(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cc = bin_dir / "cc"
    cc.write_text("#!/bin/sh\necho 'cc: error: this compiler always fails' >&2\nexit 1\n")
    cc.chmod(cc.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(build, "CACHE", tmp_path / "cache")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(build.Unavailable) as raised:
        build.trec_eval_binary(9)
    message = str(raised.value)
    assert message.startswith("building trec_eval 9.0.8 from tests/data/trec_eval/trec_eval-9.0.8-src.tar.gz failed")
    assert "failed (" in message and "exit status 2); the last lines of make's output:\n" in message
    assert message.rstrip().splitlines()[-2] == "cc: error: this compiler always fails"
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [f"{build.build_dir('9.0.8').name}.lock"]


def test_the_variables_binary_comes_first_and_nothing_is_built(tmp_path, monkeypatch):
    """``IR_CWLA_TREC_EVAL`` (10.0) and ``IR_CWLA_TREC_EVAL_9`` win over a build; a wrong one is said."""
    monkeypatch.setattr(build, "CACHE", tmp_path / "cache")
    binary = tmp_path / "my-trec_eval"
    binary.write_text("")
    for major, variable in {10: "IR_CWLA_TREC_EVAL", 9: "IR_CWLA_TREC_EVAL_9"}.items():
        monkeypatch.setenv(variable, str(binary))
        assert build.trec_eval(major) == binary
        monkeypatch.setenv(variable, str(tmp_path / "nothing"))
        with pytest.raises(build.Unavailable, match=f"{variable}=.*nothing is not a file"):
            build.trec_eval(major)
    assert not (tmp_path / "cache").exists()
    monkeypatch.delenv("IR_CWLA_TREC_EVAL")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(build.Unavailable, match=r"on PATH \(or set IR_CWLA_TREC_EVAL=/path/to/trec_eval\)"):
        build.trec_eval(10)
