"""Breuer et al.'s reproducibility measures (KTU, RBO, RMSE, nRMSE, ER, DRI) against repro_eval.

repro_eval (irgroup/repro_eval, the authors' code) is the reference: its functions are called on
the same rankings and per-topic scores, on worked examples made here and on real DL19 runs
(two runs of one family standing for an original and its reproduction). Its own example data
(TREC Core 2017 runs) is downloaded by its scripts from a file host and is not available here.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd
import pytest

from ir_cwla.comparison import repro as rep
from ir_cwla.errors import DataError, NotFoundError

repro_eval = pytest.importorskip("repro_eval", reason="repro_eval (pip install repro-eval) is the reference")
from repro_eval.measure.document_order import _KTU, _RBO  # noqa: E402
from repro_eval.measure.effectiveness import RMSE, nRMSE  # noqa: E402
from repro_eval.measure.overall_effects import DRI, ER  # noqa: E402


def nested(per_query: pd.DataFrame, system: str) -> dict:
    """repro_eval's {topic: {measure: value}} of one system of a per-query frame."""
    rows = per_query[per_query["name"] == system]
    out: dict = {}
    for qid, measure, value in zip(rows["qid"], rows["measure"], rows["value"]):
        out.setdefault(str(qid), {})[str(measure)] = float(value)
    return {t: out[t] for t in sorted(out)}


def run_dict(run: pd.DataFrame) -> dict:
    """repro_eval's {topic: OrderedDict(doc: score)} in trec_eval's order (score desc, doc_id desc)."""
    out = {}
    for qid, group in run.groupby("query_id", sort=True):
        ranked = group.sort_values(["score", "doc_id"], ascending=[False, False])
        out[str(qid)] = OrderedDict(zip(ranked["doc_id"].astype(str), ranked["score"].astype(float)))
    return out


# ----------------------------------------------------------------------------- worked examples

def test_worked_rankings_against_repro_eval():
    cases = [(list("abcdef"), list("abcdef")), (list("abcdef"), list("fedcba")), (list("abcdef"), list("bacdfe")),
             (list("abcdef"), list("abxyef")), (list("abcd"), list("wxyz"))]
    for original, reproduced in cases:
        o = {"q": OrderedDict((d, 10.0 - k) for k, d in enumerate(original))}
        r = {"q": OrderedDict((d, 10.0 - k) for k, d in enumerate(reproduced))}
        ref_ktu = dict(_KTU(o, r, trim_thresh=1000))["q"]
        ref_rbo = dict(_RBO(o, r, p=0.95, depth=1000))["q"]
        assert rep.ktu(original, reproduced) == pytest.approx(ref_ktu, abs=1e-14, nan_ok=True), (original, reproduced)
        assert rep.rbo(original, reproduced, 0.95, 1000) == pytest.approx(ref_rbo, rel=1e-12), (original, reproduced)
    assert rep.ktu(list("abc"), list("abc")) == 1.0 and rep.ktu(list("abc"), list("cba")) == -1.0
    assert rep.rbo(list("abc"), list("abc"), 0.9, 3) == pytest.approx(1.0)
    with pytest.raises(DataError, match="same length"):
        rep.ktu(list("abc"), list("ab"))


def scores_frame(values: dict[str, np.ndarray], measure: str = "AP") -> pd.DataFrame:
    rows = [(name, f"q{t}", measure, float(v)) for name, column in values.items() for t, v in enumerate(column)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def test_worked_scores_against_repro_eval_and_the_perfect_reproduction():
    rng = np.random.default_rng(1)
    b_o, a_o = rng.uniform(0.1, 0.5, 20), rng.uniform(0.3, 0.7, 20)
    b_r, a_r = np.clip(b_o + rng.normal(0, 0.05, 20), 0, 1), np.clip(a_o + rng.normal(0, 0.08, 20), 0, 1)
    original = scores_frame({"bm25": b_o, "neural": a_o})
    reproduced = scores_frame({"bm25": b_r, "neural": a_r})
    result = rep.reproducibility(original, reproduced, baseline="bm25", resamples=500, seed=3)
    table = result.table().set_index(["statistic", "system"])
    o_b, o_a, r_b, r_a = (nested(f, s) for f, s in ((original, "bm25"), (original, "neural"),
                                                    (reproduced, "bm25"), (reproduced, "neural")))
    assert table.loc[("RMSE", "bm25"), "value"] == pytest.approx(RMSE(o_b, r_b)["AP"], rel=1e-12)
    assert table.loc[("RMSE", "neural"), "value"] == pytest.approx(RMSE(o_a, r_a)["AP"], rel=1e-12)
    assert table.loc[("nRMSE", "neural"), "value"] == pytest.approx(nRMSE(o_a, r_a)["AP"], rel=1e-12)
    assert table.loc[("ER", "neural"), "value"] == pytest.approx(ER(o_a, o_b, r_a, r_b)["AP"], rel=1e-12)
    assert table.loc[("DRI", "neural"), "value"] == pytest.approx(DRI(o_a, o_b, r_a, r_b)["AP"], rel=1e-12)
    for statistic in ("RMSE", "ER", "DRI"):
        row = table.loc[(statistic, "neural")]
        assert row["low"] <= row["value"] <= row["high"] and row["low_mc_sd"] > 0
    # a reproduction that is the original: every statistic perfect, every interval a point
    same = rep.reproducibility(original, original, baseline="bm25", resamples=200).table()
    np.testing.assert_allclose(same["value"], same["perfect"], atol=1e-15)
    np.testing.assert_allclose(same["low"], same["perfect"], atol=1e-12)


def test_the_bootstrap_is_its_definition():
    rng = np.random.default_rng(2)
    original = scores_frame({"a": rng.uniform(0, 1, 15)})
    reproduced = scores_frame({"a": rng.uniform(0, 1, 15)})
    result = rep.reproducibility(original, reproduced, resamples=400, seed=5, level=0.9)
    row = result.table().set_index("statistic").loc["RMSE"]
    from ir_cwla.analysis import streams

    draws = np.concatenate([streams.chunk_rng(5, streams.REPRODUCIBILITY_STREAM, c).integers(0, 15, size=(n, 15))
                            for c, n in enumerate(streams.chunk_sizes(400))])
    x, y = (f.sort_values("qid")["value"].to_numpy() for f in (original, reproduced))     # topics by id, as the cube
    samples = np.sqrt(((x[draws] - y[draws]) ** 2).mean(axis=1))
    lo, hi = np.quantile(samples, [0.05, 0.95])
    assert (row["low"], row["high"]) == pytest.approx((lo, hi), abs=1e-14)


def test_bad_input():
    a = scores_frame({"a": np.linspace(0, 1, 5)})
    with pytest.raises(DataError, match="no system alike"):
        rep.reproducibility(a, scores_frame({"b": np.linspace(0, 1, 5)}))
    with pytest.raises(NotFoundError, match="baseline 'zz'"):
        rep.reproducibility(a, a, baseline="zz")
    short = a[a["qid"] != "q3"]
    with pytest.raises(DataError, match="different topics.*topics='intersection'"):
        rep.reproducibility(a, short)
    assert rep.reproducibility(a, short, topics="intersection", resamples=50).n_topics == 4


# ----------------------------------------------------------------------------- DL19

@pytest.mark.slow
def test_dl19_runs_against_repro_eval(dl19_dir):
    """bm25base_p / bm25base_rm3_p as the original baseline / advanced runs, bm25tuned_* as their reproduction."""
    import ir_measures

    from ir_cwla import io, meta

    runs_dir = dl19_dir / "runs"
    original = {"bm25": runs_dir / "input.bm25base_p.gz", "rm3": runs_dir / "input.bm25base_rm3_p.gz"}
    reproduced = {"bm25": runs_dir / "input.bm25tuned_p.gz", "rm3": runs_dir / "input.bm25tuned_rm3_p.gz"}
    qrels = dl19_dir / "qrels.dl19-passage.txt"
    measures = [ir_measures.nDCG @ 10, ir_measures.AP(rel=2)]
    pq_o = meta.evaluate(original, qrels, measures, progress=False)
    pq_r = meta.evaluate(reproduced, qrels, measures, progress=False)
    result = rep.reproducibility(pq_o, pq_r, baseline="bm25", runs=(original, reproduced), resamples=1000, seed=0)
    table = result.table()
    runs_o = {k: run_dict(io.read_trec_run(p)) for k, p in original.items()}
    runs_r = {k: run_dict(io.read_trec_run(p)) for k, p in reproduced.items()}
    topics = sorted(set(pq_o["qid"]))
    for system in ("bm25", "rm3"):
        o = {t: runs_o[system][t] for t in topics}
        r = {t: runs_r[system][t] for t in topics}
        ktu_ref = np.mean([v for _, v in _KTU(o, r, trim_thresh=1000)])
        rbo_ref = np.mean([v for _, v in _RBO(o, r, p=0.95, depth=1000)])
        row = table[(table["system"] == system)].set_index("statistic")
        assert row.loc["KTU", "value"] == pytest.approx(ktu_ref, abs=1e-12)
        assert row.loc["RBO", "value"] == pytest.approx(rbo_ref, rel=1e-12)
        assert row.loc["KTU", "low"] < row.loc["KTU", "value"] < row.loc["KTU", "high"]
    o_b, o_a, r_b, r_a = nested(pq_o, "bm25"), nested(pq_o, "rm3"), nested(pq_r, "bm25"), nested(pq_r, "rm3")
    for measure in ("nDCG@10", "AP(rel=2)"):
        rows = table[table["measure"] == measure].set_index(["statistic", "system"])
        assert rows.loc[("RMSE", "rm3"), "value"] == pytest.approx(RMSE(o_a, r_a)[measure], rel=1e-12)
        assert rows.loc[("ER", "rm3"), "value"] == pytest.approx(ER(o_a, o_b, r_a, r_b)[measure], rel=1e-12)
        assert rows.loc[("DRI", "rm3"), "value"] == pytest.approx(DRI(o_a, o_b, r_a, r_b)[measure], rel=1e-12)
