"""Executors chosen by get_executor, local processes, grids and sweeps (fast, synthetic data)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA, meta
from ir_cwla.meta import tables


def toy(seed=0, n_runs=5, n_topics=8):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(40)]
    qrels = pd.DataFrame([(f"q{t}", d, int(rng.integers(0, 4))) for t in range(n_topics) for d in docs[:20]],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for s in range(n_runs):
        rows = [(f"q{t}", d, float(rng.random() + 0.1 * s * (int(d[1:]) < 20)))
                for t in range(n_topics) for d in rng.choice(docs, 15, replace=False)]
        runs[f"sys{s}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


def test_get_executor():
    assert isinstance(meta.get_executor(), meta.InProcess)
    assert isinstance(meta.get_executor(n_jobs=1), meta.InProcess)
    procs = meta.get_executor(n_jobs=2)
    assert isinstance(procs, meta.LocalProcesses) and procs.parallelism == 2
    with pytest.raises(ValueError, match="at most one"):
        meta.get_executor(meta.InProcess(), n_jobs=2)
    with pytest.raises(TypeError, match="unsupported executor"):
        meta.get_executor("not an executor")
    with pytest.raises(ValueError, match="n_jobs"):
        meta.LocalProcesses(0)


def test_grid_skips_constant_combinations():
    measures = meta.grid(CWLA, C=["P", "ERR"], A=["ERG", "ERR"], cutoff=10)
    assert [str(m) for m in measures] == ["CWLA(C='P',A='ERG')@10", "CWLA(C='ERR',A='ERG')@10",
                                          "CWLA(C='ERR',A='ERR')@10"]
    with pytest.raises(ValueError, match="same score"):
        meta.grid(CWLA, C="P", A="ERR", cutoff=10, skip_invalid=False)
    assert len(meta.grid(CWLA, C="RBP", A="ERG", p=np.array([0.5, 0.7]), cutoff=5)) == 2


def test_sweep_in_process_and_on_local_processes_agree():
    qrels, runs = toy()
    measures = meta.grid(CWLA, C="RBP", A=["ERG", "max", "fin"], p=[0.5, 0.8], cutoff=10)
    analyses = {"similarity": {}, "consistency": {"trials": 60, "test_trials": 100},
                "discriminative_power": {"trials": 150}}
    local = meta.sweep(runs, qrels, measures, analyses, groups=meta.browsing_model, progress=False)
    procs = meta.sweep(runs, qrels, measures, analyses, groups=meta.browsing_model, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(local.table(), procs.table(), check_exact=True)
    pd.testing.assert_frame_equal(local.per_query["collection"],
                                  meta.evaluate(runs, qrels, measures, progress=False), check_exact=True)
    table = local.table()
    assert len(table) == 6 and set(table["group"]) == {"RBP(p=0.5)@10", "RBP@10"}
    assert (table["significant"] <= 10).all() and table["mean_tau"].between(-1, 1).all()
    assert set(local.similarity) == {"collection"}


def test_sweep_over_two_collections_and_bad_analyses():
    (q1, r1), (q2, r2) = toy(1), toy(2)
    measures = [CWLA(C="P", A="ERG") @ 5, CWLA(C="DCG", A="max") @ 5]
    result = meta.sweep({"one": r1, "two": r2}, {"one": q1, "two": q2}, measures, ["discriminative_power"],
                        progress=False)
    assert list(result.per_query) == ["one", "two"]
    assert set(result.table()["collection"]) == {"one", "two"} and not result.consistency
    with pytest.raises(ValueError, match="unknown criteria"):
        meta.sweep(r1, q1, measures, ["speed"], progress=False)
    with pytest.raises(ValueError, match=r"criterion 'consistency' has no option \['splits'\]"):
        meta.sweep(r1, q1, measures, {"consistency": {"splits": 5}}, progress=False)
    # the old argument order and keyword still work, with a deprecation warning
    with pytest.warns(ir_cwla.IrCwlaDeprecationWarning, match="takes the runs first"):
        old = meta.sweep(q1, r1, measures, ["discriminative_power"], progress=False)
    with pytest.warns(ir_cwla.IrCwlaDeprecationWarning, match=r"now sweep\(criteria="):
        meta.sweep(r1, q1, measures, analyses=["discriminative_power"], progress=False)
    pd.testing.assert_frame_equal(old.table(), meta.sweep(r1, q1, measures, ["discriminative_power"],
                                                          progress=False).table())


def test_markdown_tables():
    df = pd.DataFrame({"a": [1.23456, float("nan")], "b": ["x|y", "z"]})
    assert tables.markdown(df, digits=2) == "| a | b |\n|---|---|\n| 1.23 | x\\|y |\n|  | z |\n"
    qrels, runs = toy()
    per_query = meta.evaluate(runs, qrels, meta.grid(CWLA, C=["P", "RBP"], A=["ERG", "max"], cutoff=5),
                              progress=False)
    cons = meta.consistency(per_query, trials=30, test_trials=50, groups=meta.browsing_model, progress=False)
    layout = tables.consistency_layout(cons)
    assert list(layout.columns) == ["P@5", "RBP@5"] and layout.shape == (2, 2)
    assert layout.iat[0, 0].split()[0] in ("ERG*", "max")


def test_every_table_names_measures_by_the_label_that_reads_back():
    """Every meta table names measures by the label that reads back (issue 19).

    Issue 19: the ``measure`` column of every table of ir_cwla.meta (similarity, consistency,
    discriminative power, topic set size, incompleteness, pool depths, pooling bias, their robustness
    rankings, the ASL curves and Sweep.table) holds the short name, which ir_cwla.parse_measure reads
    back to the very measure; standard measures keep their ir-measures name and are families of their
    own, with their cutoff (AP and AP@10 are two).
    """
    from ir_measures import AP, nDCG

    qrels, runs = toy(3, n_runs=5)
    measures = [CWLA(C="RBP", A="ERG") @ 10, CWLA(C="RBP", A="max") @ 10, CWLA(C="INST", A="PE", beta=0.3) @ 10,
                nDCG @ 10, AP, AP @ 10]
    labels = {ir_cwla.short_name(m): m for m in measures}
    assert set(labels) == {"RBP_ERG@10", "RBP_max@10", "INST_PE(beta=0.3)@10", "nDCG@10", "AP", "AP@10"}
    criteria = {"similarity": {}, "consistency": {"trials": 20, "test_trials": 30},
                "discriminative_power": {"trials": 30}, "topic_set_size": {},
                "incompleteness": {"fractions": [0.5], "trials": 2, "depths": [5], "test_trials": 30},
                "pooling_bias": {"depths": [5], "test_trials": 30}}
    result = meta.sweep(runs, qrels, measures, criteria, groups=meta.browsing_model, progress=False)
    inc, pool = result.incompleteness["collection"], result.pooling_bias["collection"]
    disc = result.discriminative_power["collection"]
    tables_ = {"sweep": result.table(), "inc.table": inc.table(), "inc.depth_table": inc.depth_table(),
               "inc.robustness": inc.robustness(test_trials=30), "inc.depth": inc.robustness(kind="depth"),
               "pool.table": pool.table(), "pool.robustness": pool.robustness(test_trials=30),
               "cons.table": result.consistency["collection"].table(), "disc.table": disc.table(),
               "tss.table": result.topic_set_size["collection"].table(),
               **{f"summary.{k}": v["collection"] for k, v in result.summaries.items() if k != "similarity"}}
    for name, table in tables_.items():
        assert "label" not in table.columns, name
        assert set(table["measure"]) == set(labels), name
    sim = result.similarity["collection"].table(within_groups=False)
    assert set(sim["measure_a"]) | set(sim["measure_b"]) == set(labels)
    assert set(disc.asl().columns) == set(labels)
    for label, m in labels.items():
        assert ir_cwla.parse_measure(label) == m
    assert set(tables_["sweep"]["group"]) == {"RBP@10", "INST@10", "nDCG@10", "AP", "AP@10"}
    assert disc.p_values("AP@10").equals(disc.p_values(str(AP @ 10)))
