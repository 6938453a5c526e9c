"""The reports of ``ir-cwla meta --out`` and ``ir-cwla leaderboard --out`` in headless Chromium.

At 1280 and 800 px wide: nothing wider than the window, every figure loaded, the key
columns in view, and the numbers on the page equal to the CSV files written beside it.
(The demo's report is checked the same way in ``tests/test_demo.py``.)
"""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

from ir_cwla.app.cli import main
from ir_cwla.meta.assessors import JUDGED
from tests.browser import check_report, table_by_caption, visible_columns

pytestmark = pytest.mark.slow   # writes reports and drives headless Chromium

META_RUNS = ("bm25base_p", "UNH_bm25", "ICT-BERT2", "idst_bert_p1", "p_bert", "TUW19-p3-f")


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def meta_report(tmp_path_factory, dl19_dir, dl19_qrels_path):
    """``ir-cwla meta`` on six DL19 runs with the 39 Table-1 measures (a 40-column runs table)."""
    tmp = tmp_path_factory.mktemp("meta")
    rundir = tmp / "runs"
    rundir.mkdir()
    for name in META_RUNS:
        shutil.copy(dl19_dir / "runs" / f"input.{name}.gz", rundir / f"input.{name}.gz")
    out = tmp / "report"
    assert main(["meta", str(dl19_qrels_path), str(rundir), "--trials", "30", "--test-trials", "40",
                 "--fraction-trials", "3", "--out", str(out)]) == 0
    return out


def test_meta_report_fits_and_shows_the_csv_numbers(meta_report, browser, artifacts):
    tables = check_report(browser, meta_report / "index.html", "meta", artifacts)
    means = pd.read_csv(meta_report / "means.csv", index_col="run")
    for width, found in tables.items():
        runs = table_by_caption(found, "mean score of every run")
        assert runs["scrolls"]                                   # 40 columns: scrolls in its own box
        assert runs["head"][1:] == list(means.columns)           # the paper's order, as in the CSV
        assert [r[0] for r in runs["rows"]] == list(means.index)
        for row in runs["rows"]:
            assert [float(v) for v in row[1:]] == pytest.approx(means.loc[row[0]].tolist(), abs=5e-5)
        consistency = table_by_caption(found, "consistency")
        csv = pd.read_csv(meta_report / "consistency.csv")
        mean_tau = [r[consistency["head"].index("mean_tau")] for r in consistency["rows"]]
        assert [float(v) for v in mean_tau] == pytest.approx(csv["mean_tau"].tolist(), abs=5e-4)
        assert {len(v.split(".")[1]) for v in mean_tau} == {3}   # one precision per column
        assert visible_columns(consistency, width)[:4] == ["group", "measure", "canonical", "mean_tau"]
        # the two robustness criteria and the run time of every step are in the page too
        for caption, filename, column in (("robustness to incomplete judgments", "incompleteness_robustness.csv",
                                           "tau"),
                                          ("pooling bias", "pooling_bias_robustness.csv", "mean_abs_rank_change")):
            table = table_by_caption(found, caption)
            csv = pd.read_csv(meta_report / filename)
            shown = [float(r[table["head"].index(column)]) for r in table["rows"]]
            assert shown == pytest.approx(csv[column].tolist(), abs=5e-4), caption
        times = table_by_caption(found, "wall time of every step")
        assert [r[0] for r in times["rows"]] == pd.read_csv(meta_report / "timings.csv")["step"].tolist()
        assert len(times["rows"]) == 7


def test_meta_report_starts_with_the_best_measure_of_each_family(meta_report, browser, artifacts):
    """The first section: per family and criterion the best measure, as the criteria's CSV files give it."""
    import numpy as np

    from ir_cwla.analysis import naming
    from ir_cwla.app.report import SUMMARY_TITLE

    tables = check_report(browser, meta_report / "index.html", "meta-summary", artifacts, section=SUMMARY_TITLE)
    sources = (("consistency.csv", "mean_tau", True, "consistency"),
               ("discriminative_power.csv", "significant", True, "discriminative power"),
               ("topic_set_size.csv", "n_t_test", False, "topic set size"),
               ("incompleteness_robustness.csv", "tau", True, "incompleteness"),
               ("pooling_bias_robustness.csv", "mean_abs_rank_change", False, "pooling bias"))
    for found in tables.values():
        summary = table_by_caption(found, "the best measure of each family")
        assert found[0] is summary, "the summary is not the page's first table"
        assert summary["head"] == ["family", *[title for *_, title in sources]]
        assert [r[0] for r in summary["rows"]] == ["P@10", "DCG@10", "RBP@10", "INST@10", "AP@10", "ERR@10"]
        for filename, column, higher, title in sources:
            csv = pd.read_csv(meta_report / filename)
            for row in summary["rows"]:
                part = csv[csv["group"] == row[0]]
                best = part[column].max() if higher else part[column].min()
                want = {naming.aggregation(m) for m in part.loc[np.isclose(part[column], best, rtol=1e-9, atol=0),
                                                                "measure"]}
                cell = row[summary["head"].index(title)]
                assert {n.rstrip("*") for n in cell.rsplit(" (", 1)[0].split(" = ")} == want, (title, row[0], cell)
                assert float(cell.rsplit("(", 1)[1].rstrip(")")) == pytest.approx(best, abs=5e-4)


@pytest.fixture(scope="module")
def assessor_report(tmp_path_factory, dl19_dir, dl19_qrels_path):
    """``ir-cwla meta --alt-qrels`` on six DL19 runs, two group files of the re-annotation."""
    tmp = tmp_path_factory.mktemp("assessors")
    runs = [dl19_dir / "runs" / f"input.{name}.gz" for name in META_RUNS]
    alt = dl19_dir / "reannotation"
    out = tmp / "report"
    assert main(["meta", str(dl19_qrels_path), *map(str, runs), "--criteria", "assessor_variation,consistency",
                 "--alt-qrels", str(alt / "group1-assessor-a.txt"), f"g1b={alt / 'group1-assessor-b.txt'}",
                 "--trials", "30", "--test-trials", "40", "--alt-splits", "20", "--alt-bootstrap", "100",
                 "--out", str(out)]) == 0
    return out


def test_assessor_report_shows_the_criterion_and_its_csv_numbers(assessor_report, browser, artifacts):
    tables = check_report(browser, assessor_report / "index.html", "assessors", artifacts,
                          section="Meta-evaluation 2: robustness to a change of assessor")
    page = (assessor_report / "index.html").read_text()
    assert "judged=&#x27;shared&#x27;" in page and "group1-assessor-a, g1b" in page
    summary = pd.read_csv(assessor_report / "assessors_robustness.csv")
    detail = pd.read_csv(assessor_report / "assessors.csv")
    assert list(dict.fromkeys(detail["alternative"])) == ["group1-assessor-a", "g1b"]
    for width, found in tables.items():
        table = table_by_caption(found, "robustness to a change of assessor")
        assert [r[table["head"].index("measure")] for r in table["rows"]] == summary["measure"].tolist()
        shown = [float(r[table["head"].index("tau")]) for r in table["rows"]]
        assert shown == pytest.approx(summary["tau"].tolist(), abs=5e-4)
        assert {r[table["head"].index("judged")] for r in table["rows"]} == {JUDGED[0]}
        assert visible_columns(table, width)[:4] == ["group", "rank", "measure", "tau"]   # measures by label
        per = table_by_caption(found, "agreement with the reference, per alternative")
        for column in ("tau", "tau_ap", "rbo", "pearson", "spearman"):
            shown = [float(r[per["head"].index(column)]) for r in per["rows"]]
            assert shown == pytest.approx(detail[column].tolist(), abs=5e-4), column
        coverage = table_by_caption(found, "topics and judged pairs compared")
        assert [r[coverage["head"].index("topics")] for r in coverage["rows"]] == ["13", "13"]


@pytest.fixture
def board_csv(tmp_path):
    """Names a spreadsheet or matplotlib would misread, a constant column, realistic numbers."""
    table = pd.DataFrame({
        "name": ["BM25", "=HYPERLINK(\"http://x\")", "$\\frac{1}{$", "<script>alert(1)</script>", "-SPLADE",
                 "@ColBERTv2 with a rather long system name, 12 layers"],
        "accuracy": [0.187, 0.344, 0.383, 0.397, 0.368, 0.401],
        "latency": [4.0, 38.0, 220.0, 96.0, 70.0, 140.0],
        "cost": [0.05, 0.9, 2.4, 1.6, 1.1, 2.0],
        "memory_gib": [1.0] * 6,
    })
    path = tmp_path / "board.csv"
    table.to_csv(path, index=False)
    return path, table


def test_leaderboard_report_fits_escapes_and_shows_the_csv_numbers(capsys, tmp_path, board_csv, browser, artifacts):
    path, table = board_csv
    out = tmp_path / "board"
    code, stdout, err = _run(capsys, "leaderboard", path, "--max-latency", "100", "--min-accuracy", "0.35",
                             "--out", out)
    assert code == 0, err
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    csv = pd.read_csv(out / "leaderboard.csv", index_col="system")
    assert {"'=HYPERLINK(\"http://x\")", "'-SPLADE", "'@ColBERTv2 with a rather long system name, 12 layers",
            "BM25", "$\\frac{1}{$"} <= set(csv.index)
    assert csv["accuracy"].dtype == float                     # numbers stay numbers
    tables = check_report(browser, out / "index.html", "leaderboard", artifacts)
    for width, found in tables.items():
        board = table_by_caption(found, "leaderboard")
        assert visible_columns(board, width)[:4] == ["system", "accuracy", "dynascore", "rank"]
        shown = [r[0] for r in board["rows"]]
        assert [s.lstrip("'") for s in csv.index] == shown        # the page shows the names as they are
        for row, (_, expected) in zip(board["rows"], csv.iterrows()):
            assert float(row[1]) == pytest.approx(expected["accuracy"], abs=5e-5)
            assert float(row[2]) == pytest.approx(expected["dynascore"], abs=5e-5)
            assert int(row[3]) == expected["rank"]
        within = table_by_caption(found, "within budget")
        assert [r[0] for r in within["rows"]] == ["<script>alert(1)</script>", "-SPLADE", "=HYPERLINK(\"http://x\")",
                                                  "BM25"]          # latency <= 100, by accuracy
        table_by_caption(found, "accuracy >= 0.35")
    assert "memory_gib" not in stdout                          # an unweighted constant column is no warning


def test_two_system_tie_is_shown_as_a_tie_in_the_terminal_and_the_page(capsys, tmp_path, browser, artifacts):
    """The README's own two-system example under the default weights: dAcc x (0.5 - 0.25 - 0.25) = 0."""
    path = tmp_path / "two.csv"
    pd.DataFrame({"name": ["BM25", "SPLADE"], "accuracy": [0.187, 0.368], "latency": [4.0, 70.0],
                  "cost": [0.5, 30.0]}).to_csv(path, index=False)
    out = tmp_path / "two"
    code, stdout, err = _run(capsys, "leaderboard", path, "--out", out)
    assert code == 0, err
    assert "warning: systems 'BM25' and 'SPLADE' tie" in err and "whatever the measurements" in err
    ranks = [line.split()[3] for line in stdout.splitlines()[1:3]]
    assert ranks == ["1", "1"]
    tables = check_report(browser, out / "index.html", "leaderboard-tie", artifacts)
    board = table_by_caption(tables[800], "leaderboard")
    assert [r[3] for r in board["rows"]] == ["1", "1"]
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'class="warning"' in html and "whatever the measurements" in html
    assert html.count('<tr class="best">') == 2


@pytest.fixture(scope="module")
def users_report(tmp_path_factory):
    """``ir-cwla meta --gains --satisfaction`` on a synthetic user study (12 users, 120 rated pages)."""
    from tests.test_meta_users import study

    tmp = tmp_path_factory.mktemp("users")
    pages, ratings = study()
    pages.to_csv(tmp / "pages.csv", index=False)
    ratings.to_csv(tmp / "ratings.csv", index=False)
    out = tmp / "report"
    assert main(["meta", "--gains", str(tmp / "pages.csv"), "--satisfaction", str(tmp / "ratings.csv"),
                 "--user-trials", "200", "--fit-points", "6", "--fit-repeats", "2", "--out", str(out)]) == 0
    return out


def test_users_report_shows_its_figures_and_the_csv_numbers(users_report, browser, artifacts):
    assert {"user_agreement.png", "user_model_fit.png", "user_agreement.csv", "preference_agreement.csv",
            "user_model_fit.csv"} <= {p.name for p in users_report.iterdir()}
    tables = check_report(browser, users_report / "index.html", "users", artifacts,
                          section="Meta-evaluation 1: agreement with users' satisfaction")
    csv = pd.read_csv(users_report / "user_agreement.csv")
    prefs = pd.read_csv(users_report / "preference_agreement.csv")
    for found in tables.values():
        table = table_by_caption(found, "correlation with the users' ratings")
        assert table["head"][:4] == ["measure", "group", "pearson", "pearson_low"]
        assert [r[0] for r in table["rows"]] == csv["measure"].tolist()
        for column in ("pearson", "kendall_high"):
            shown = [float(r[table["head"].index(column)]) for r in table["rows"]]
            assert shown == pytest.approx(csv[column].tolist(), abs=5e-4), column
        shown = table_by_caption(found, "agreement with the users' preferences")
        assert [float(r[shown["head"].index("agreement")]) for r in shown["rows"]] == \
            pytest.approx(prefs["agreement"].tolist(), abs=5e-4)
        table_by_caption(found, "the fitted parameters")
