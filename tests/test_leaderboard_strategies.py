"""The paper's three ranking strategies and the Pareto frontier."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_cwla import leaderboard as lb

# accuracy (MRR@10), latency (ms), cost ($ per 1M queries): made-up but shaped like Table 4
BOARD = pd.DataFrame({
    "accuracy": [0.187, 0.330, 0.368, 0.394, 0.397],
    "latency": [4.0, 45.0, 70.0, 180.0, 60.0],
    "cost": [0.5, 8.0, 30.0, 90.0, 40.0],
}, index=["BM25", "DPR", "SPLADE", "ColBERTv2-GPU", "ColBERTv2-CPU"])


def test_budget_then_accuracy():
    ranked = lb.rank_within_budget(BOARD, {"latency": 60})
    assert list(ranked.index) == ["ColBERTv2-CPU", "DPR", "BM25"]     # SPLADE (70 ms) is out
    assert list(ranked["rank"]) == [1, 2, 3]
    both = lb.rank_within_budget(BOARD, {"latency": 100, "cost": 35})
    assert list(both.index) == ["SPLADE", "DPR", "BM25"]


def test_accuracy_threshold_then_cost_or_latency():
    cheap = lb.rank_above_accuracy(BOARD, 0.36, by="cost")
    assert list(cheap.index) == ["SPLADE", "ColBERTv2-CPU", "ColBERTv2-GPU"]
    fast = lb.rank_above_accuracy(BOARD, 0.36, by="latency")
    assert list(fast.index) == ["ColBERTv2-CPU", "SPLADE", "ColBERTv2-GPU"]


def test_no_eligible_system_gives_an_empty_ranking():
    assert lb.rank_within_budget(BOARD, {"latency": 1}).empty
    assert lb.rank_above_accuracy(BOARD, 0.9).empty


def test_dynascore_after_thresholds_uses_only_eligible_systems():
    ranked = lb.rank_by_dynascore(BOARD, minimum={"accuracy": 0.3})
    assert "BM25" not in ranked.index and len(ranked) == 4
    np.testing.assert_allclose(ranked["dynascore"], lb.dynascore(BOARD.drop(index="BM25"))["dynascore"])
    with pytest.raises(ValueError, match="at least 2"):
        lb.rank_by_dynascore(BOARD, minimum={"accuracy": 0.395})


@pytest.mark.parametrize("call", [
    lambda: lb.rank_within_budget(BOARD, {}),
    lambda: lb.rank_within_budget(BOARD, {"memory": 3}),
    lambda: lb.rank_within_budget(BOARD, {"latency": float("nan")}),
    lambda: lb.rank_above_accuracy(BOARD, 0.3, by="qps"),
    lambda: lb.rank_within_budget(BOARD.assign(latency=[1.0, np.nan, 2.0, 3.0, 4.0]), {"latency": 5}),
])
def test_bad_strategy_input(call):
    with pytest.raises(ValueError):
        call()


def test_pareto_frontier():
    front = lb.pareto_frontier(BOARD)
    # ColBERTv2-GPU is slower than ColBERTv2-CPU and less accurate; SPLADE too
    assert list(front.index) == ["BM25", "DPR", "ColBERTv2-CPU"]
    assert list(lb.pareto_frontier(BOARD, x="cost").index) == ["BM25", "DPR", "SPLADE", "ColBERTv2-CPU"]


def brute_force_pareto(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = len(x)
    return np.array([not any(x[j] <= x[i] and y[j] >= y[i] and (x[j] < x[i] or y[j] > y[i])
                             for j in range(n)) for i in range(n)])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=12))
def test_pareto_mask_matches_brute_force(points):
    x, y = (np.array(v, dtype=float) for v in zip(*points))
    np.testing.assert_array_equal(lb.pareto_mask(x, y), brute_force_pareto(x, y))
