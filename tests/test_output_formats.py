"""Every change of an output's format has a line in docs/changelog.md (issue 33).

The columns of every CSV file that ``ir-cwla meta --out`` and ``ir-cwla leaderboard --out`` write
(on the synthetic collection, every criterion) are pinned in ``tests/golden/output_formats.json``,
each with the text of the changelog line that documents its present columns. A change of columns
fails here until the file is updated, and the file's ``changelog`` text for it must be a line of
the changelog: so a format change without a changelog line is caught. ``means.csv`` has a column
per measure: only its first column is pinned.

To update after a deliberate change: write the changelog line, then
``python -m tests.test_output_formats`` prints the columns found now (paste them, with the new
line's text as ``changelog`` of the files it documents).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import synthetic

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "output_formats.json"
CHANGELOG = ROOT / "docs" / "changelog.md"
#: Files whose columns follow the measures: only their first column is pinned.
PER_MEASURE = {"meta/means.csv", "meta-users/means.csv"}

LEADERBOARD_CSV = "name,nDCG@10,latency_ms,usd_per_1M\na,0.3,1.0,0.01\nb,0.4,2.0,0.02\nc,0.35,1.5,0.03\n"


def current_formats(workdir: Path) -> dict[str, list[str]]:
    """``{command/file.csv: columns}`` of what the two commands write now, on small inputs."""
    files = synthetic.make_collection(synthetic.SEED).write(workdir / "collection")
    from tests.test_meta_users import study  # a user study's pages and ratings (ir-cwla meta --gains)

    pages, ratings = study()
    pages.to_csv(workdir / "pages.csv", index=False)
    ratings.to_csv(workdir / "ratings.csv", index=False)
    runs = [str(p) for p in list(files.runs.values())[:4]]
    commands = {
        "meta": ["meta", str(files.qrels), *runs, "-m", "nDCG@10", "RBP_ERG@10", "RBP_max@10",
                 "--alt-qrels", f"b={files.qrels}", "--trials", "20", "--test-trials", "20", "--fraction-trials", "2",
                 "--alt-splits", "20", "--alt-bootstrap", "20", "--out", str(workdir / "meta")],
        "meta-users": ["meta", "--gains", str(workdir / "pages.csv"), "--satisfaction", str(workdir / "ratings.csv"),
                       "-m", "RBP_ERG@10", "RBP_max@10", "P_ERG@10", "--user-trials", "20", "--fit-points", "3",
                       "--fit-repeats", "1", "--user-test", "williams", "--out", str(workdir / "meta-users")],
        "leaderboard": ["leaderboard", str(workdir / "board.csv"), "--accuracy", "nDCG@10", "--latency",
                        "latency_ms", "--cost", "usd_per_1M", "--max-latency", "1.6", "--min-accuracy", "0.3",
                        "--out", str(workdir / "leaderboard")],
    }
    (workdir / "board.csv").write_text(LEADERBOARD_CSV)
    found: dict[str, list[str]] = {}
    for name, argv in commands.items():
        done = subprocess.run([sys.executable, "-m", "ir_cwla", *argv], capture_output=True, text=True, cwd=workdir)
        assert done.returncode == 0, done.stderr[-3000:]
        for path in sorted((workdir / name).glob("*.csv")):
            key = f"{name}/{path.name}"
            columns = path.read_text(encoding="utf-8").split("\n", 1)[0].split(",")
            found[key] = columns[:1] if key in PER_MEASURE else columns
    return found


def changes(found: dict[str, list[str]], golden: dict[str, dict]) -> dict[str, dict]:
    """The outputs whose columns differ from the pinned ones (or that are new, or gone)."""
    pinned = {k: v["columns"] for k, v in golden.items()}
    return {k: {"pinned": pinned.get(k), "now": found.get(k)} for k in sorted(set(found) | set(pinned))
            if found.get(k) != pinned.get(k)}


@pytest.fixture(scope="module")
def golden() -> dict[str, dict]:
    return json.loads(GOLDEN.read_text())


@pytest.fixture(scope="module")
def found(tmp_path_factory) -> dict[str, list[str]]:
    return current_formats(tmp_path_factory.mktemp("formats"))


def test_every_pinned_format_names_a_line_of_the_changelog(golden):
    changelog = CHANGELOG.read_text()
    missing = {k: v["changelog"] for k, v in golden.items() if v["changelog"] not in changelog}
    assert not missing, f"pinned output formats whose changelog line is not in docs/changelog.md: {missing}"


def test_no_output_format_changes_without_a_changelog_line(golden, found):
    changed = changes(found, golden)
    assert not changed, (
        "the format of these outputs changed: add a line to docs/changelog.md saying how, then update "
        f"tests/golden/output_formats.json (columns, and the new line's text as 'changelog'): {changed}")


def test_the_guard_catches_the_rename_issue_33_found_unrecorded(golden, found):
    """Pinned as before issue 19 (``label`` beside ``measure``), today's columns are a change."""
    before = json.loads(json.dumps(golden))
    entry = before["meta/incompleteness_robustness.csv"]
    entry["columns"] = [*entry["columns"][:3], "label", *entry["columns"][3:]]
    assert list(changes(found, before)) == ["meta/incompleteness_robustness.csv"]
    del before["meta/timings.csv"]                     # a file nobody pinned is a change too
    assert "meta/timings.csv" in changes(found, before)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(current_formats(Path(tmp)), indent=1))
