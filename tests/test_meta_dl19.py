"""The paper's protocol on TREC DL 2019 passage (37 runs x 43 topics x 39 Table-1 measures)."""
from __future__ import annotations

import numpy as np
import pytest

from ir_cwla import meta, short_name, table1


@pytest.fixture(scope="module")
def per_query(dl19_qrels_path, dl19_run_paths):
    return meta.evaluate(dl19_run_paths, dl19_qrels_path, table1(), progress=False)


def name_of(label: str) -> str:
    return next(str(m) for m in table1() if short_name(m) == label)


def test_evaluate_gives_the_full_frame(per_query):
    assert per_query.shape == (37 * 43 * 39, 4)
    assert per_query["name"].nunique() == 37 and per_query["qid"].nunique() == 43
    assert per_query["value"].notna().all()


def test_similarity_self_and_same_ranking_measures(per_query):
    sim = meta.similarity(per_query, groups=meta.browsing_model)
    assert (np.diag(sim.tau.to_numpy()) == 1).all()
    assert sim.tau.at[name_of("P_ERG@10"), name_of("P_avg@10")] == 1.0
    assert sim.tau.at[name_of("RBP_ERG@10"), name_of("RBP_ETG@10")] == 1.0
    assert sim.tau.at[name_of("AP_ERG@10"), name_of("AP_ERR@10")] < 0.9
    assert list(sim.groups) == ["P@10", "DCG@10", "RBP@10", "INST@10", "AP@10", "ERR@10"]


def test_consistency_is_stable_across_seeds(per_query):
    runs = [meta.consistency(per_query, trials=1000, test_trials=200, seed=s, progress=False) for s in (0, 1)]
    diff = (runs[0].mean_tau - runs[1].mean_tau).abs()
    assert diff.max() < 0.01
    assert not runs[0].taus.equals(runs[1].taus)           # really different splits


def test_discriminative_power_is_stable_across_seeds(per_query):
    tables = [meta.discriminative_power(per_query, trials=2000, seed=s, progress=False).table().set_index("measure")
              for s in (0, 1)]
    diff = (tables[0]["significant"] - tables[1]["significant"].reindex(tables[0].index)).abs()
    assert diff.max() <= 0.03 * 666
    assert tables[0]["pairs"].eq(666).all()
