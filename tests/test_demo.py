"""Smoke test of ``ir-cwla demo`` (what ``make demo`` runs) with a reduced system set.

It runs ``python -m ir_cwla demo --save-runs`` offline (fresh ir_datasets cache, sockets
disabled, see ``tests/offline.py``) on the five systems of ``SMOKE_SYSTEMS`` with few
trials, then checks the report (also in headless Chromium, with ``ir-cwla leaderboard`` run
on the demo's own results) and re-computes the scores of the saved runs independently: the
raw Cranfield judgments, remapped here, scored with ir-measures and by hand.
"""
from __future__ import annotations

from pathlib import Path

import ir_measures
import pandas as pd
import pytest

from ir_cwla.app.systems import SMOKE_SYSTEMS
from tests.browser import check_report, table_by_caption, visible_columns
from tests.html_checks import external_references, parse_tags
from tests.offline import run_offline

pytestmark = pytest.mark.slow   # the demo indexes, retrieves and times five systems: ~20 s


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, object]:
    tmp = tmp_path_factory.mktemp("demo")
    out = tmp / "report"
    proc = run_offline(["-m", "ir_cwla", "demo", "--out", str(out), "--systems", "smoke", "--trials", "50",
                        "--test-trials", "100", "--repeats", "1", "--warmup", "2", "--save-runs"], tmp, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


@pytest.fixture(scope="module")
def qrels(cranfield_dir) -> pd.DataFrame:
    rows = [line.split() for line in (cranfield_dir / "cranqrel").read_text().splitlines() if line.strip()]
    return pd.DataFrame([(q, d, {"-1": 0, "1": 4, "2": 3, "3": 2, "4": 1}[g]) for q, d, g in rows],
                        columns=["query_id", "doc_id", "relevance"])


def test_summary_and_progress(demo):
    out, proc = demo
    lines = proc.stdout.splitlines()
    assert lines[0] == "Cranfield: 1,400 documents, 225 queries, 1,837 judgments; 5 systems; 44 measures"
    assert any(line.startswith("  Dynascore winner:") and line.split()[2] in SMOKE_SYSTEMS for line in lines)
    assert lines[-1] == f"report: {out / 'index.html'}"
    steps = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    assert [s.split("]")[0] for s in steps] == [f"[{k}/7" for k in range(1, 8)]
    # the meta step names the criteria it runs, and as many as it then runs (issue 33)
    meta_step = next(s for s in steps if "meta-evaluation" in s)
    named = meta_step.split(" criteria: ")[1].split(", ")
    count = int(meta_step.split(" criteria: ")[0].rsplit(" ", 1)[1])
    ran = [line for line in proc.stderr.splitlines() if line.strip().startswith("criterion ")]
    assert count == len(named) == len(ran) and len(ran) >= 6, (meta_step, ran)
    assert "Create index" not in proc.stderr                    # PISA's own output is silenced
    assert (out.parent / "irds" / "cranfield" / "cran.tar.gz").exists()   # the private cache was used
    assert "\r" not in proc.stderr and "it/s" not in proc.stderr and "system/s" not in proc.stderr  # no bars in logs


def test_report_is_self_contained(demo):
    out, _ = demo
    page = (out / "index.html").read_text(encoding="utf-8")
    assert not external_references(page)
    tags = parse_tags(page)
    assert "script" not in {t for t, _ in tags}
    assert sum(t == "img" for t, _ in tags) == 11
    for heading in ("Effectiveness", "Comparison of systems", "Meta-evaluation 1: system ranking similarity", "Meta-evaluation 2: "
                    "system ranking consistency", "Meta-evaluation 3: discriminative power",
                    "Meta-evaluation 4: topic set size", "Meta-evaluation 5: robustness to incomplete judgments",
                    "Meta-evaluation 6: pooling bias (leave one run out)", "Efficiency-aware leaderboard"):
        assert f">{heading}</h2>" in page
    assert "remapped 1-&gt;4, 2-&gt;3, 3-&gt;2, 4-&gt;1" in page
    board = pd.read_csv(out / "leaderboard" / "results.csv", index_col=0)
    assert sorted(board.index) == sorted(SMOKE_SYSTEMS)
    assert (board["latency_p50_ms"] > 0).all() and (board["qps"] > 0).all()


def test_scores_match_an_independent_evaluation_of_the_saved_runs(demo, qrels):
    out, _ = demo
    per_query = pd.read_csv(out / "per_query.csv.gz", dtype={"qid": str})
    assert per_query.groupby("name").size().to_dict() == {name: 225 * 44 for name in SMOKE_SYSTEMS}
    grade = {(q, d): r for q, d, r in qrels.itertuples(index=False)}
    for name in SMOKE_SYSTEMS:
        run = pd.read_csv(out / "runs" / f"{name}.run", sep=" ", header=None, dtype={0: str, 2: str},
                          names=["query_id", "q0", "doc_id", "rank", "score", "run"])
        mine = per_query[per_query.name == name].set_index(["qid", "measure"])["value"]
        for m in ir_measures.iter_calc([ir_measures.nDCG @ 10, ir_measures.AP], qrels, run):
            assert mine[(m.query_id, str(m.measure))] == pytest.approx(m.value, abs=1e-9)
        # P_ERG@10 by hand: linear gains x / 4 over the top 10 (score desc, doc_id desc)
        ranked = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
        for qid, top in ranked.groupby("query_id"):
            by_hand = sum(grade.get((qid, d), 0) for d in top.doc_id[:10]) / 4 / 10
            assert mine[(qid, "CWLA(C='P',A='ERG')@10")] == pytest.approx(by_hand, abs=1e-12)


def test_pyterrier_example_runs_as_is_offline(demo, tmp_path):
    """examples/pyterrier_experiment.py agrees with the demo on the systems they share."""
    out, _ = demo
    proc = run_offline(["examples/pyterrier_experiment.py"], tmp_path, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {line.split()[0]: line.split() for line in proc.stdout.split("\n\n")[0].splitlines()[1:]}
    assert sorted(rows) == sorted(["PISA-BM25", "PISA-DPH", "PISA-QLD-mu1000", "bm25s-bm25l"])
    per_query = pd.read_csv(out / "per_query.csv.gz", dtype={"qid": str})
    ndcg = per_query[per_query.measure == "nDCG@10"].groupby("name").value.mean()
    for name, fields in rows.items():
        assert float(fields[1]) == pytest.approx(ndcg[name], abs=5e-5)   # printed with 4 decimals
    assert "Holm-corrected p-values" in proc.stdout


def test_comparison_section_is_the_stated_design(demo):
    """Every system against the first under nDCG@10 and the six canonical measures, as stated.

    Student's t, Holm over all 4 x 7 hypotheses: the p-values are scipy's paired t-test on the
    saved per-query scores, adjusted by Holm's step-down written out here.
    """
    import numpy as np
    from scipy import stats

    import ir_cwla

    out, _ = demo
    table = pd.read_csv(out / "comparison.csv")
    per_query = pd.read_csv(out / "per_query.csv.gz", dtype={"qid": str})
    baseline = pd.read_csv(out / "systems.csv")["system"].iloc[0]          # the first system of the demo
    measures = ["nDCG@10", *(str(m) for m in ir_cwla.canonical())]
    assert set(table["baseline"]) == {baseline}
    assert sorted(table["system"].unique()) == sorted(set(SMOKE_SYSTEMS) - {baseline})
    assert len(table) == (len(SMOKE_SYSTEMS) - 1) * len(measures) == 28
    wide = per_query.pivot_table(index="qid", columns=["measure", "name"], values="value")
    raw = {}
    for measure in measures:
        for system in set(SMOKE_SYSTEMS) - {baseline}:
            raw[(measure, system)] = stats.ttest_rel(wide[(measure, system)], wide[(measure, baseline)]).pvalue
    keys = sorted(raw, key=raw.get)
    holm, running = {}, 0.0
    for k, key in enumerate(keys):
        running = max(running, min(1.0, (len(keys) - k) * raw[key]))
        holm[key] = running
    from ir_cwla.analysis import naming

    for row in table.itertuples():
        key = next(m for m in measures if naming.label(m) == naming.label(row.measure))
        assert row.p_value == pytest.approx(raw[(key, row.system)], rel=1e-9, abs=1e-15)
        assert row.p_adjusted == pytest.approx(holm[(key, row.system)], rel=1e-9, abs=1e-15)
    assert np.isfinite(table["ci_low"]).all()


def test_demo_leaderboard_rank_intervals_are_the_bootstrap_of_its_per_query_scores(demo):
    from ir_cwla.comparison import dynascore_rank_uncertainty

    out, _ = demo
    board = pd.read_csv(out / "leaderboard.csv", index_col="system")
    assert list(board.columns[:5]) == ["nDCG@10", "dynascore", "rank", "rank_low", "rank_high"]
    per_query = pd.read_csv(out / "leaderboard" / "per_query.csv", dtype={"name": str, "qid": str})
    assert sorted(per_query["name"].unique()) == sorted(SMOKE_SYSTEMS) and set(per_query["measure"]) == {"nDCG@10"}
    metrics = board.rename(columns={"nDCG@10": "accuracy", "latency_p50_ms": "latency",
                                    "usd_per_1M_q_from_qps": "cost"})[["accuracy", "latency", "cost"]]
    direct = dynascore_rank_uncertainty(metrics, per_query, "nDCG@10", seed=0, resamples=2000).systems
    direct = direct.set_index("system").loc[board.index]
    assert board["rank_low"].tolist() == direct["rank_low"].tolist()
    assert board["rank_high"].tolist() == direct["rank_high"].tolist()
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "2,000 resamples of the 225 topics (drawn with replacement, seed 0)" in page
    assert "adjacent pairs of the Dynascore (nDCG@10) ranking are separable at level 0.95" in page


def test_demo_report_in_a_browser(demo, browser, artifacts):
    out, _ = demo
    tables = check_report(browser, out / "index.html", "demo", artifacts, section="Efficiency-aware leaderboard")
    csv = pd.read_csv(out / "leaderboard.csv", index_col="system")
    headline = pd.read_csv(out / "means_headline.csv", index_col="system")
    for width, found in tables.items():
        board = table_by_caption(found, "leaderboard")
        assert visible_columns(board, width)[:4] == ["system", "nDCG@10", "dynascore", "rank"]
        assert [r[0] for r in board["rows"]] == list(csv.index)
        for row, (_, expected) in zip(board["rows"], csv.iterrows()):
            assert float(row[1]) == pytest.approx(expected["nDCG@10"], abs=5e-5)
            assert float(row[2]) == pytest.approx(expected["dynascore"], abs=5e-5)
            assert int(row[3]) == expected["rank"]
        means = table_by_caption(found, "mean scores (best")
        for row in means["rows"]:
            assert [float(v) for v in row[1:]] == pytest.approx(headline.loc[row[0]].tolist(), abs=5e-5)
        compared = table_by_caption(found, "every pair: differences")
        pairs = pd.read_csv(out / "comparison.csv")
        k = compared["head"].index("p_adjusted")
        assert [float(r[k]) for r in compared["rows"]] == pytest.approx(pairs["p_adjusted"].tolist(), abs=5e-5)
        for column in ("rank_low", "rank_high"):
            k = board["head"].index(column)
            assert [int(r[k]) for r in board["rows"]] == csv[column].tolist()


def test_leaderboard_reads_the_demos_results_without_flags(demo, tmp_path, browser, artifacts):
    out, _ = demo
    report = tmp_path / "board"
    proc = run_offline(["-m", "ir_cwla", "leaderboard", str(out / "leaderboard" / "results.csv"), "--out",
                        str(report)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.splitlines()[0].split()
    # the per-topic scores board.save() wrote beside results.csv come with it: the rank intervals too
    assert header == ["system", "nDCG@10", "dynascore", "rank", "rank_low", "rank_high", "latency_p50_ms",
                      "usd_per_1M_q_from_qps"]
    demo_board = pd.read_csv(out / "leaderboard.csv", index_col="system")
    ranked = [line.split()[0] for line in proc.stdout.splitlines()[1:1 + len(SMOKE_SYSTEMS)]]
    assert ranked == list(demo_board.index)                   # the same ranking as the demo's page
    tables = check_report(browser, report / "index.html", "leaderboard-demo", artifacts)
    written = pd.read_csv(report / "leaderboard.csv", index_col="system")
    board = table_by_caption(tables[800], "leaderboard")
    assert [r[0] for r in board["rows"]] == list(written.index) == ranked
    assert [float(r[2]) for r in board["rows"]] == pytest.approx(written["dynascore"].tolist(), abs=5e-5)
    for column in ("rank_low", "rank_high"):           # the same intervals as the demo's (same seed, resamples)
        assert written[column].tolist() == demo_board.loc[written.index, column].tolist()
        assert [int(r[board["head"].index(column)]) for r in board["rows"]] == written[column].tolist()


def test_demo_writes_runs_only_when_asked_and_replaces_its_report(tmp_path):
    from ir_cwla.app import report

    out = tmp_path / "report"
    with report.staged(out) as earlier:                       # an earlier report, replaced at the end
        (earlier / "stale.csv").write_text("x")
    (out / "mine.txt").write_text("not the report's")         # kept (issue 19: never delete what it did not write)
    proc = run_offline(["-m", "ir_cwla", "demo", "--out", str(out), "--systems", "PISA-BM25,bm25s-lucene",
                        "--trials", "10", "--test-trials", "10", "--repeats", "1", "--warmup", "0", "--quiet"],
                       tmp_path, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stderr.splitlines()                           # --quiet: no steps, only the warnings
    assert lines and all(line.startswith("ir-cwla demo: warning: ") for line in lines), proc.stderr
    assert any("with two systems" in line for line in lines)
    assert not (out / "runs").exists() and not (out / "stale.csv").exists()
    assert (out / "mine.txt").read_text() == "not the report's"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report")] == []   # no leftovers
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "--save-runs" in page and "ir-cwla leaderboard " in page and "with two systems" in page


@pytest.mark.parametrize("argv, message", [
    (["--trials", "0"], "trials must be >= 1"),
    (["--test-trials", "-3"], "test_trials must be >= 1"),
    (["--repeats", "0"], "repeats must be an int >= 1"),
    (["--instance", "m5.nope"], "instance 'm5.nope' is not in the price table"),
    (["--systems", "PISA-BM25,nope"], "nope"),
])
def test_bad_demo_arguments_fail_before_any_work(capsys, monkeypatch, tmp_path, argv, message):
    from ir_cwla import datasets
    from ir_cwla.app.cli import main

    def no_data(*args, **kwargs):
        raise AssertionError("the demo read Cranfield before checking its arguments")

    monkeypatch.setattr(datasets, "cranfield_topics", no_data)
    out = tmp_path / "report"
    assert main(["demo", "--out", str(out), *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "[1/7]" not in err, err
    assert not out.exists() and list(tmp_path.iterdir()) == []
