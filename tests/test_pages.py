"""ir_cwla.score_gains: result pages scored through the normal path, to the bit.

The pages of a run are derived here without ir_cwla (tests/reference.py's trec_order over the
run's best-scored lines, each rank's qrels grade or NaN where unjudged), and score_gains of them
must give bit for bit what meta.evaluate gives for the run itself, on the synthetic collection and
on DL19; the measures that read beyond the page agree with the run scored against the qrels of
its ranked documents only (beyond_page='page').
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.errors import ArgumentTypeError, InputError, MeasureError, ParameterError
from ir_cwla.provider import _pages as pages
from tests import reference, synthetic

#: ir-measures measures of the ranking only, and C/W/L/A measures beyond the paper's 39 (cwl_eval's
#: models, the unjudged policies, the expectations over costs, no cutoff)
PAGE_MEASURES = ["P@5", "P@10", "RR", "RR@10", "ERR@10", "Judged@10", "NumRet", "NumRelRet", "Success@3", "SDCG(max_rel=4)@10",
                 "SetP",
                 "CWLA(C='TBG',A='ERG')@10", "CWLA(C='U',A='ERG')@10", "CWLA(C='BPM',A='ERG')@10",
                 "CWLA(C='IFTgoal',A='ERG')@10", "CWLA(C='INSQ',A='ERG')", "CWLA(C='RR',A='ERG')",
                 "CWLA(C='RBP',A='ETC')@10", "CWLA(C='DCG',A='EC')@10", "CWLA(C='AP',A='ERG')",
                 "RBP_ERG[unjudged=max]@10", "RBP_max[condense]@10", "RBP_ERG[residual]@10", "RBP_ERG[pad]",
                 "INST_avg[pad]@10"]
#: measures whose ir-measures provider (msmarco's RR@k, judged, cwl_eval's SDCG, gdeval's ERR) breaks
#: tied scores its own way, not in trec_eval's order as ir_cwla and pytrec_eval do: a page holds the
#: ranking in trec_eval's order, so these agree with the run only where it has no tied scores
TIES_OWN_WAY = {"RR@10", "Judged@10", "SDCG(max_rel=4)@10", "ERR@10"}
#: measures that read R or the ideal ranking: scored as if the page held every judged document
BEYOND_MEASURES = ["AP", "nDCG@10", "R@10", "Rprec", "CWLA(C='AP',A='ERG',tail='pad')", "SetR"]


def pages_of(run: pd.DataFrame, qrels: pd.DataFrame, depth=None) -> pd.DataFrame:
    """The result pages of ``run``: its ranking per qrels topic (trec_eval's order), each rank's grade, NaN if unjudged."""
    grades = {(q, d): g for q, d, g in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False)}
    topics = set(qrels["query_id"])
    best: dict[str, dict[str, float]] = {}
    for q, d, s in run[["query_id", "doc_id", "score"]].itertuples(index=False):
        if q in topics:
            docs = best.setdefault(q, {})
            docs[d] = max(float(s), docs.get(d, -np.inf))
    rows = []
    for q, docs in best.items():
        for i, d in enumerate(reference.trec_order(docs)[:depth], start=1):
            rows.append((q, i, grades.get((q, d), np.nan), d))
    return pd.DataFrame(rows, columns=["qid", "rank", "gain", "doc_id"])


def judged_pages(frame: pd.DataFrame) -> pd.DataFrame:
    """The pages with at least one judged rank (score_gains refuses the others)."""
    judged = frame.groupby("qid")["gain"].transform("count") > 0
    return frame[judged]


def compare(normal: pd.DataFrame, from_pages: pd.DataFrame) -> int:
    """Asserts equal values, to the bit, on every (qid, measure) of ``from_pages``; returns how many."""
    left = normal.set_index(["qid", "measure"])["value"]
    right = from_pages.set_index(["qid", "measure"])["value"]
    assert right.index.is_unique and len(right)
    paired = left.reindex(right.index)
    assert not paired.isna().any(), paired[paired.isna()].index[:5].tolist()
    differ = paired.to_numpy() != right.to_numpy()
    assert not differ.any(), pd.DataFrame({"normal": paired, "pages": right})[differ].head()
    return len(right)


def has_ties(run: pd.DataFrame) -> bool:
    """True if two documents of a topic have scores equal in float32 (trec_eval's comparison)."""
    return bool(run.assign(s=run["score"].astype(np.float32)).duplicated(["query_id", "s"]).any())


def check_run(run: pd.DataFrame, qrels: pd.DataFrame, measures: list, name: str) -> int:
    if has_ties(run):
        measures = [m for m in measures if m not in TIES_OWN_WAY]
    frame = judged_pages(pages_of(run, qrels))
    assert frame["gain"].max() == qrels["relevance"].max()          # x_max is the same on both paths
    normal = meta.evaluate({name: run}, qrels, measures, progress=False, missing_topics="ignore")
    scored = ir_cwla.score_gains(frame[["qid", "rank", "gain"]], measures, name=name)
    assert set(scored["qid"]) == set(frame["qid"])
    n = compare(normal, scored)
    # the measures that read beyond the page: the run against the qrels of its ranked documents
    # (R adds the gains in the order Qrels numbers the documents, by their first line in the whole frame, and
    # floating-point sums depend on it: a page numbers them by rank, so the run's doc_ids are made the topic's own)
    ranked = frame[["qid", "doc_id"]].rename(columns={"qid": "query_id"}).merge(qrels, on=["query_id", "doc_id"])
    own = {"doc_id": lambda f: f["query_id"] + ":" + f["doc_id"]}
    normal = meta.evaluate({name: run.assign(**own)}, ranked.assign(**own), BEYOND_MEASURES, progress=False,
                           missing_topics="ignore")
    scored = ir_cwla.score_gains(frame, BEYOND_MEASURES, name=name, beyond_page="page")
    return n + compare(normal, scored)


def test_pages_of_the_synthetic_runs_score_as_the_runs(synthetic_collection):
    measures = list(ir_cwla.table1()) + PAGE_MEASURES
    qrels = ir_cwla.io.as_qrels_frame(synthetic_collection.qrels)
    done, tied = 0, 0
    for name, run in synthetic_collection.runs.items():
        done += check_run(synthetic.deduplicated(run), qrels, measures, name)
        tied += has_ties(run)
    assert done > 6 * 30 * (len(measures) - len(TIES_OWN_WAY)) and 0 < tied < len(synthetic_collection.runs)


def test_pages_of_dl19_runs_score_as_the_runs(dl19_qrels_path, dl19_run_paths):
    measures = list(ir_cwla.table1()) + PAGE_MEASURES
    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    for path in dl19_run_paths[:3]:
        run = ir_cwla.io.read_trec_run(path)
        assert check_run(run, qrels, measures, path.name) >= 43 * len(measures)


def test_a_cost_column_prices_the_ranks_as_a_cost_file_does(tmp_path, allow_tmp_cost_files):
    frame = pd.DataFrame({"qid": ["1"] * 4 + ["2"] * 3, "rank": [1, 2, 3, 4, 3, 1, 2], "gain": [3, 0, 1, np.nan, 2, 0, 1],
                          "cost": [1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.5]})
    lines = [f"{q}#{r} {c!r}\n" for q, r, c in frame[["qid", "rank", "cost"]].itertuples(index=False)]
    (tmp_path / "costs.txt").write_text("".join(lines))
    costs = f"doc:{tmp_path / 'costs.txt'}"
    measures = ["CWLA(C='TBG',A='ERG')@3", "CWLA(C='P',A='EC')@3", "CWLA(C='RBP',A='ETC')", "CWLA(C='U',A='ERG')@4"]
    with_column = ir_cwla.score_gains(frame, measures)
    # the same pages as a run whose documents are priced by a cost file (doc_id 'qid#rank')
    run = pd.DataFrame({"query_id": frame["qid"], "doc_id": frame["qid"] + "#" + frame["rank"].astype(str),
                        "score": -frame["rank"].astype(float)})
    judged = frame[frame["gain"].notna()]
    qrels = pd.DataFrame({"query_id": judged["qid"], "doc_id": judged["qid"] + "#" + judged["rank"].astype(str),
                          "relevance": judged["gain"].astype(int)})
    priced = [ir_cwla.parse_measure(m.replace(")", f",costs='{costs}')", 1)) for m in measures]
    normal = meta.evaluate({"pages": run}, qrels, priced, progress=False)
    rename = {str(p): m for p, m in zip(priced, measures)}
    compare(normal.assign(measure=normal["measure"].map(rename)), with_column)
    # EC of P@3 on page 1: the mean cost of its first three ranks
    assert with_column.query("qid == '1' and measure == \"CWLA(C='P',A='EC')@3\"")["value"].item() == (1.5 + 2 + 3) / 3
    # a measure that names its own costs keeps them
    own = "CWLA(C='P',A='EC',costs='grade:0:1;1:1;2:1;3:1')@3"
    assert (ir_cwla.score_gains(frame, [own])["value"] == 1.0).all()
    # without the column every rank costs 1
    assert (ir_cwla.score_gains(frame.drop(columns="cost"), ["CWLA(C='P',A='EC')@3"])["value"] == 1.0).all()


def test_the_output_does_not_depend_on_the_row_order():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"qid": np.repeat([str(i) for i in range(30)], 10), "rank": np.tile(np.arange(1, 11), 30),
                          "gain": rng.integers(0, 4, 300)})
    measures = list(ir_cwla.table1())
    first = ir_cwla.score_gains(frame, measures)
    second = ir_cwla.score_gains(frame.sample(frac=1, random_state=1), measures)
    pd.testing.assert_frame_equal(first, second)
    assert list(first.columns) == ["name", "qid", "measure", "value"]
    assert list(dict.fromkeys(first["measure"])) == [str(m) for m in measures]


def test_measures_reading_beyond_the_page_are_refused_by_default():
    frame = pd.DataFrame({"qid": ["1", "1"], "rank": [1, 2], "gain": [1, 0]})
    for measure in ("AP", "nDCG@10", "R@5", "CWLA(C='AP',A='ERG',tail='pad')", "SetP(relative=True)"):
        with pytest.raises(MeasureError, match="beyond the result page"):
            ir_cwla.score_gains(frame, [measure])
        assert pages.reads_beyond_page(ir_cwla.parse_measure(measure))
    for measure in ("P@2", "RR", "CWLA(C='AP',A='ERG')", "RBP_ERG[pad]", "ERR@10"):
        assert not pages.reads_beyond_page(ir_cwla.parse_measure(measure))
    with pytest.raises(ParameterError, match="beyond_page"):
        ir_cwla.score_gains(frame, ["P@2"], beyond_page="yes")


@pytest.mark.parametrize("change, message", [
    (lambda f: f.drop(columns="gain"), "no column 'gain'"),
    (lambda f: f.iloc[:0], "no rows"),
    (lambda f: f.assign(gain=["1", "x", "0", "2"]), r"row 2 \(qid '1'\): gain 'x' is not a number"),
    (lambda f: f.assign(gain=[1, 1.5, 0, 2]), "gain 1.5 is not an integer"),
    (lambda f: f.assign(gain=[1, np.inf, 0, 2]), "gain inf is not finite"),
    (lambda f: f.assign(rank=[1, 0, 1, 2]), r"row 2 \(qid '1'\): rank 0 is not a whole number >= 1"),
    (lambda f: f.assign(rank=[1, 2.5, 1, 2]), "rank 2.5 is not a whole number"),
    (lambda f: f.assign(rank=[1, 3, 1, 2]), r"qid '1'\): rank 2 is missing"),
    (lambda f: f.assign(rank=[1, 1, 1, 2]), r"row 2 \(qid '1'\): rank 1 is given twice"),
    (lambda f: f.assign(qid=["1", None, "2", "2"]), "row 2: the qid is empty"),
    (lambda f: f.assign(gain=[np.nan, np.nan, 0, 2]), "page '1' has no judged rank"),
    (lambda f: f.assign(cost=[1, None, 1, 1]), r"row 2 \(qid '1'\): no cost"),
    (lambda f: f.assign(cost=[1, 2, -1, 1]), "a cost must be a finite number > 0"),
])
def test_bad_pages_are_refused_naming_the_row(change, message):
    frame = pd.DataFrame({"qid": ["1", "1", "2", "2"], "rank": [1, 2, 1, 2], "gain": [1, 0, 0, 2]})
    with pytest.raises(InputError, match=message):
        ir_cwla.score_gains(change(frame), ["CWLA(C='P',A='EC')@2"])


def test_a_frame_is_required():
    with pytest.raises(ArgumentTypeError, match="expected a DataFrame"):
        ir_cwla.score_gains([("1", 1, 1)], ["P@1"])
