"""The HTML report: self-contained (no network, no script) and every name escaped."""
from __future__ import annotations

import base64
import gzip
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ir_cwla.app import report
from ir_cwla.errors import OutputError
from tests.html_checks import external_references, parse_tags

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HOSTILE = ['<script>alert("run")</script>', "<img src=x onerror=alert(1)>", "a&b \"quoted\" 'single'"]


@pytest.fixture
def dl19_means(dl19_run_paths) -> pd.DataFrame:
    """A real table: the number of lines of three DL19 runs, named by hostile names."""
    rows = {name: {"lines": sum(1 for _ in gzip.open(path, "rt")), "score": 0.5 + k / 10}
            for k, (name, path) in enumerate(zip(HOSTILE, dl19_run_paths[:3]))}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("<th>system</th>")


def test_every_name_is_escaped(dl19_means):
    page = report.HtmlReport("<title>demo", "sub <b>title</b>")
    page.section("<h2>section</h2>").text(HOSTILE[0]).bullets(HOSTILE).code(HOSTILE[1])
    page.table(dl19_means, caption="<caption>", highlight={HOSTILE[0]})
    page.warnings(HOSTILE[:1], title="<b>care</b>")
    html = page.render()
    assert "<script" not in html and "<img" not in html and "<b>" not in html and "<th>system" not in html
    assert {tag for tag, _ in parse_tags(html)} <= {"html", "head", "meta", "title", "style", "body", "h1", "p",
                                                    "h2", "nav", "ul", "li", "a", "pre", "table", "div", "strong",
                                                    "thead", "tbody", "tr", "th", "td"}
    assert html.count("&lt;script&gt;alert(&quot;run&quot;)&lt;/script&gt;") == 4   # text, bullet, row, warning
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "a&amp;b &quot;quoted&quot; &#x27;single&#x27;" in html
    assert "&lt;title&gt;demo" in html and "&lt;th&gt;system&lt;/th&gt;" in html
    assert html.count('class="best"') == 1
    assert not external_references(html)


def test_figures_are_embedded_as_png_and_saved(tmp_path):
    fig, ax = plt.subplots()
    ax.plot(np.arange(5), np.arange(5) ** 2, label="<script>")
    ax.legend()
    page = report.HtmlReport("figures", directory=tmp_path)
    page.figure(ax, caption="squares <i>", filename="squares.png")
    html = page.render()
    data = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html).group(1)
    png = base64.b64decode(data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert (tmp_path / "squares.png").read_bytes() == png
    assert 'alt="squares &lt;i&gt;"' in html
    assert not plt.fignum_exists(fig.number)                   # closed after embedding
    path = page.write()
    assert path == tmp_path / "index.html"
    assert 'alt="squares &lt;i&gt;"' in path.read_text(encoding="utf-8")


def test_tables_format_numbers_and_save_csv(tmp_path, dl19_means):
    page = report.HtmlReport("tables", directory=tmp_path)
    frame = dl19_means.assign(tiny=[1e-7, np.nan, 2.5e8], tau=[0.81234, 0.000254, -0.5])
    page.table(frame, precision=3, filename="t.csv")
    html = page.render()
    rows = re.findall(r"<tr>(.*?)</tr>", html.split("<tbody>")[1])
    cells = [re.findall(r'<td class="num">([^<]*)</td>', row) for row in rows]
    assert [c[0] for c in cells] == [str(v) for v in dl19_means["lines"]]      # integers stay integers
    assert [c[1] for c in cells] == ["0.500", "0.600", "0.700"]
    assert [c[2] for c in cells] == ["1.00e-07", "", "2.50e+08"]               # one format per column
    assert [c[3] for c in cells] == ["0.812", "0.000", "-0.500"]               # never 0.000254 among 3 decimals
    assert '<div class="scroll"><table>' in html and '<th class="num">tau</th>' in html
    saved = pd.read_csv(tmp_path / "t.csv", index_col=0)
    assert saved.index.tolist() == HOSTILE and saved["lines"].tolist() == dl19_means["lines"].tolist()
    assert saved["tau"].tolist() == [0.81234, 0.000254, -0.5]                 # full precision in the CSV


def test_precision_per_column_and_text_tables():
    frame = pd.DataFrame({"acc": [0.31234, 0.4], "ms": [1.5, 12.25], "n": [3, 40], "name": ["a", "b"]},
                         index=pd.Index(["x", "long name"], name="system"))
    text = report.text_table(frame, precision={"acc": 4, "ms": 1})
    assert text.splitlines() == ["system        acc    ms   n  name",
                                 "x          0.3123   1.5   3  a",
                                 "long name  0.4000  12.2  40  b"]
    html = report.table_html(frame, precision={"acc": 4, "ms": 1})
    assert ">0.3123<" in html and ">12.2<" in html and ">40<" in html


def test_csv_cells_a_spreadsheet_would_run_are_neutralised(tmp_path):
    frame = pd.DataFrame({"run": ["=1+1", "+cmd", "-BM25", "@SUM(A1)", "\tx", "-0.5", "+3e5", "BM25"],
                          "score": [-1.0, 2.0, -3.0, 4.0, 5.0, 6.0, 7.0, 8.0]}).set_index("run")
    frame["=note"] = ["=A1"] * 8
    page = report.HtmlReport("csv", directory=tmp_path)
    page.table(frame, filename="t.csv")
    saved = pd.read_csv(tmp_path / "t.csv", index_col=0, keep_default_na=False)
    assert saved.index.tolist() == ["'=1+1", "'+cmd", "'-BM25", "'@SUM(A1)", "'\tx", "-0.5", "+3e5", "BM25"]
    assert saved["score"].tolist() == frame["score"].tolist()                 # numbers stay numbers
    assert list(saved.columns) == ["score", "'=note"] and set(saved["'=note"]) == {"'=A1"}
    assert "<td>=1+1</td>" in page.render()                                   # the page shows the name as it is


def test_reports_are_written_whole_or_not_at_all(tmp_path):
    out = tmp_path / "report"
    with pytest.raises(RuntimeError, match="halfway"):
        with report.staged(out) as directory:
            page = report.HtmlReport("x", directory=directory)
            page.table(pd.DataFrame({"a": [1.0]}), filename="a.csv")
            raise RuntimeError("halfway")
    assert list(tmp_path.iterdir()) == []                                      # nothing left behind
    for text in ("first", "second"):
        with report.staged(out) as directory:
            page = report.HtmlReport(text, directory=directory)
            page.table(pd.DataFrame({text: [1.0]}), filename=f"{text}.csv")
            page.write()
    assert sorted(p.name for p in out.iterdir()) == [report.MARKER, "index.html", "second.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]            # replaced, no leftovers
    assert "<h1>second</h1>" in (out / "index.html").read_text()


def test_output_directories_are_checked_before_any_work(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="is a file"):
        report.check_output(tmp_path / "file")
    with pytest.raises(ValueError, match="holds other files"):
        report.check_output(tmp_path / "mine")
    with pytest.raises(ValueError, match="contains the input"):
        report.check_output(tmp_path, inputs=[tmp_path / "file"])
    assert report.check_output(tmp_path / "empty") == tmp_path / "empty"
    monkeypatch.chdir(tmp_path / "empty")
    with pytest.raises(ValueError, match="current directory"):
        report.check_output(".")
    assert report.check_output(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"


def test_write_needs_a_path_or_directory():
    with pytest.raises(ValueError, match="give a path"):
        report.HtmlReport("x").write()


def test_scores_of_different_rank_never_print_alike():
    assert report.score_decimals([0.17761, 0.174012, 0.173961, 0.1718], [1, 2, 3, 4]) == 5
    assert report.score_decimals([0.5, 0.25], [1, 2]) == 4
    assert report.score_decimals([0.5, 0.5], [1, 1]) == 4                    # a tie may print alike
    assert report.score_decimals([0.5, 0.5 + 1e-13], [1, 2]) == 8            # at most 8 decimals


def _write_report(out, files: dict) -> None:
    with report.staged(out) as directory:
        for name, text in files.items():
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_text(text)


def test_rewriting_a_report_keeps_what_it_did_not_write(tmp_path):
    """Rewriting a report keeps what it did not write (issue 19).

    Issue 19: `examples/meta_evaluation.py --out report/meta-dl19`, then `make demo` (which rewrites
    report/): the report's own files are replaced, its old files that it no longer writes go, and what
    it did not write -- another report inside it, a user's file, a file in one of its directories --
    stays as it was.
    """
    out = tmp_path / "report"
    _write_report(out, {"index.html": "one", "old.csv": "x", "leaderboard/results.csv": "1"})
    assert report.report_files(out) == ["index.html", "leaderboard/", "leaderboard/results.csv", "old.csv"]
    _write_report(out / "meta-dl19", {"index.html": "meta"})            # another report, inside it
    (out / "notes.txt").write_text("mine")
    (out / "leaderboard" / "mine.csv").write_text("mine too")
    (out / "mydir").mkdir()
    (out / "mydir" / "a.txt").write_text("a")
    _write_report(out, {"index.html": "two", "leaderboard/results.csv": "2"})
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == sorted([
        report.MARKER, "index.html", "leaderboard", "leaderboard/results.csv", "leaderboard/mine.csv",
        "notes.txt", "mydir", "mydir/a.txt", "meta-dl19", f"meta-dl19/{report.MARKER}", "meta-dl19/index.html"])
    assert (out / "index.html").read_text() == "two" and (out / "leaderboard" / "results.csv").read_text() == "2"
    assert (out / "notes.txt").read_text() == "mine" and (out / "meta-dl19" / "index.html").read_text() == "meta"
    assert report.report_files(out) == ["index.html", "leaderboard/", "leaderboard/results.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]            # no leftovers
    _write_report(out, {"index.html": "three"})              # kept things stay kept, rewrite after rewrite
    assert (out / "notes.txt").exists() and (out / "meta-dl19" / "index.html").exists()
    assert (out / "leaderboard" / "mine.csv").exists() and not (out / "leaderboard" / "results.csv").exists()


def test_a_kept_file_in_the_way_of_the_new_report_leaves_everything_as_it_was(tmp_path):
    out = tmp_path / "report"
    _write_report(out, {"index.html": "one"})
    (out / "table.csv").write_text("the user's")                 # not the report's, named like a new file
    with pytest.raises(OutputError, match="table.csv was not written by this report"):
        _write_report(out, {"index.html": "two", "table.csv": "the report's"})
    assert (out / "index.html").read_text() == "one" and (out / "table.csv").read_text() == "the user's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_a_report_of_an_older_version_loses_only_what_the_new_one_rewrites(tmp_path):
    """An older marker lists nothing.

    The files the new report writes again are replaced; the rest (which may be
    the user's) is kept.
    """
    out = tmp_path / "report"
    out.mkdir()
    (out / report.MARKER).write_text("written by ir_cwla; this directory is replaced when the report is rewritten\n")
    (out / "index.html").write_text("old")
    (out / "meta-dl19").mkdir()
    (out / "meta-dl19" / "README.md").write_text("an example's output")
    _write_report(out, {"index.html": "new"})
    assert (out / "index.html").read_text() == "new"
    assert (out / "meta-dl19" / "README.md").read_text() == "an example's output"


def test_the_demo_summary_lines_up(tmp_path):
    """The demo summary lines up (issue 19).

    Issue 19: every value of the demo's summary starts in one column (``best by nDCG@10:`` was one
    space off).
    """
    import warnings

    from ir_cwla import leaderboard as lb
    from ir_cwla import meta
    from ir_cwla.app.demo import DemoResult
    from tests.test_meta_figures import synthetic_frame

    frame = synthetic_frame(systems=5, topics=8)
    t1 = frame[frame["measure"].str.contains("'RBP'")]
    inputs = meta.Inputs(t1, groups=meta.browsing_model, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = meta.criteria.run(["consistency", "discriminative_power"], inputs, {"trials": 5, "test_trials": 5})
    means = frame.pivot_table(index="name", columns="measure", values="value").rename(columns=meta.label)
    means["nDCG@10"] = means.iloc[:, 0]
    board = lb.Leaderboard.from_frame(pd.DataFrame({"name": ["a", "b", "c"], "accuracy": [0.1, 0.2, 0.3],
                                                    "latency": [1.0, 2.0, 4.0], "cost": [3.0, 2.0, 1.0]}), name="name")
    result = DemoResult(tmp_path / "index.html", pd.DataFrame({"name": ["a", "b", "c"]}), frame, means, run, board,
                        {"accuracy": 0.5, "latency": 0.25, "cost": 0.25}, {"total": 1.0},
                        {"documents": 1400, "topics": 225, "judgments": 1837})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lines = result.summary().splitlines()
    labelled = lines[1:6]
    assert [line.split(":")[0].strip() for line in labelled] == ["best by nDCG@10", "most consistent",
                                                                 "most discriminative", "fastest system",
                                                                 "Dynascore winner"]
    starts = {len(line) - len(line.split(":", 1)[1].lstrip()) for line in labelled}
    assert len(starts) == 1, lines


def test_a_report_file_changed_since_is_the_users(tmp_path):
    """`board.save('report/leaderboard')` over the demo's own leaderboard/ files.

    Changed since the report wrote them (size or time), they are not the report's any
    more: never deleted.
    """
    out = tmp_path / "report"
    _write_report(out, {"index.html": "one", "leaderboard/results.csv": "the demo's"})
    (out / "leaderboard" / "results.csv").write_text("the user's board, longer")
    with pytest.raises(OutputError, match="results.csv was changed after this report wrote it"):
        _write_report(out, {"index.html": "two", "leaderboard/results.csv": "the demo's again"})
    assert (out / "leaderboard" / "results.csv").read_text() == "the user's board, longer"
    assert (out / "index.html").read_text() == "one"
    _write_report(out, {"index.html": "three"})
    assert (out / "leaderboard" / "results.csv").read_text() == "the user's board, longer"
    assert (out / "index.html").read_text() == "three"


def test_dollars_print_as_money_in_every_table_of_a_leaderboard():
    """Dollars with cents (``210.00``, not ``210.0000``), more decimals only for amounts below a dime.

    The same precision on the terminal and on the page (issue 33; the rule: ``money_decimals``).
    """
    import pandas as pd

    from ir_cwla import leaderboard as lb
    from ir_cwla.app.report import leaderboard_tables, money_decimals

    frame = pd.DataFrame({"name": ["a", "b", "c"], "acc": [0.3, 0.4, 0.5], "latency_ms": [1.0, 2.0, 3.0],
                          "usd_per_1M": [210.0, 105.5, 420.0]})
    board = lb.Leaderboard.from_frame(frame, accuracy="acc", latency="latency_ms", cost="usd_per_1M", name="name")
    tables = leaderboard_tables(board, budget={"latency": 2.5})
    for table in tables:
        text = table.text()
        assert "210.00" in text and "210.000" not in text, text
        assert table.precision["usd_per_1M"] == 2
        assert "210.00<" in report.table_html(table.frame, precision=table.precision)
    assert [money_decimals(v) for v in ([210.0], [0.5, 210.0], [0.05], [0.011, 0.003], [1e-9], [])] == [2, 2, 3, 4, 6, 2]
    assert f"{0.003:.{money_decimals([0.003, 0.049])}f}" == "0.0030"          # two significant digits, never "0.00"
