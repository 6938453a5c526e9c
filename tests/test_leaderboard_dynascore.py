"""Dynascore: Dynaboard's published numbers, invariances, and refusals of bad input."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from ir_cwla import leaderboard as lb

# Ma et al. (2021), Dynaboard, Table 1 (NLI): Perf, Throughput, Memory, Fairness, Robustness.
NLI = pd.DataFrame.from_dict({
    "DeBERTa": (69.54, 7.41, 5.71, 91.97, 75.70),
    "RoBERTa": (69.07, 9.23, 4.82, 90.94, 74.82),
    "ALBERT": (67.29, 9.60, 2.18, 89.94, 74.12),
    "T5": (67.16, 7.10, 10.62, 91.89, 73.47),
    "BERT": (64.82, 9.39, 4.13, 92.11, 66.38),
    "Majority Baseline": (32.41, 77.33, 1.15, 100.00, 100.00),
    "FastText": (31.29, 73.94, 2.20, 83.23, 69.14),
}, orient="index", columns=["perf", "throughput", "memory", "fairness", "robustness"])
NLI_WEIGHTS = {"perf": 4, "throughput": 1, "memory": 1, "fairness": 1, "robustness": 1}
NLI_DYNASCORES = {"DeBERTa": 38.612, "RoBERTa": 38.393, "ALBERT": 37.503, "T5": 37.318, "BERT": 36.143,
                  "Majority Baseline": 22.528, "FastText": 20.895}
NLI_AMRS = {"throughput": 4.9021, "memory": 12.0171, "fairness": 5.5107, "robustness": 6.4811}


def nli_dynascore(df: pd.DataFrame = NLI, **kwargs) -> pd.DataFrame:
    return lb.dynascore(df, NLI_WEIGHTS, directions={"memory": -1}, offsets={"memory": 16}, perf="perf",
                        **kwargs)


def test_reproduces_dynaboard_nli_table():
    result = nli_dynascore()
    assert list(result.index) == list(NLI_DYNASCORES)          # Dynaboard's ranking
    np.testing.assert_allclose(result["dynascore"], list(NLI_DYNASCORES.values()), atol=5e-4)
    for metric, expected in NLI_AMRS.items():
        assert result.attrs["amrs"][metric] == pytest.approx(expected, abs=5e-5)
    assert result.attrs["weights"]["perf"] == pytest.approx(0.5)
    assert list(result["rank"]) == list(range(1, 8))


def test_amrs_matches_table_and_ignores_direction_and_offset():
    rates = lb.amrs(NLI, perf="perf")
    assert rates["perf"] == pytest.approx(1.0)
    for metric, expected in NLI_AMRS.items():
        assert rates[metric] == pytest.approx(expected, abs=5e-5)


def test_row_order_of_input_does_not_matter():
    shuffled = NLI.sample(frac=1.0, random_state=3)
    pd.testing.assert_frame_equal(nli_dynascore(shuffled), nli_dynascore())


def test_kernel_agrees_with_adapter():
    cols = list(NLI_WEIGHTS)
    scores, rates = lb.dynascore_kernel(NLI[cols].to_numpy(), np.array([4, 1, 1, 1, 1.0]),
                                        np.array([1, 1, -1, 1, 1.0]), np.array([0, 0, 16, 0, 0.0]))
    np.testing.assert_allclose(scores, nli_dynascore().loc[NLI.index, "dynascore"])
    np.testing.assert_allclose(rates[1:], list(NLI_AMRS.values()), atol=5e-5)


def test_default_weights_and_directions_for_an_ir_board():
    df = pd.DataFrame({"accuracy": [0.30, 0.35, 0.40], "latency": [5.0, 50.0, 400.0],
                       "cost": [0.1, 1.0, 9.0]}, index=["bm25", "splade", "colbert"])
    with pytest.warns(lb.RankingWarning, match="equal Dynascores .* rank 2: 'bm25', 'colbert'"):
        result = lb.dynascore(df)
    assert result.attrs["weights"] == pytest.approx({"accuracy": 0.5, "cost": 0.25, "latency": 0.25})
    # by hand: AMRS_latency = mean(45/0.05, 350/0.05) = 3950; AMRS_cost = mean(0.9/0.05, 8/0.05) = 89
    expected = 0.5 * df["accuracy"] - 0.25 * df["latency"] / 3950 - 0.25 * df["cost"] / 89
    np.testing.assert_allclose(result.loc[df.index, "dynascore"], expected)
    assert result.index[0] == "splade"   # the middle system: 0.169 against 0.149 for both others


def test_changing_units_does_not_change_scores():
    df = pd.DataFrame({"accuracy": [0.2, 0.3, 0.5, 0.45], "latency": [3.0, 9.0, 80.0, 20.0],
                       "cost": [1.0, 2.0, 7.0, 3.0]}, index=list("abcd"))
    seconds = df.assign(latency=df["latency"] / 1000, cost=df["cost"] * 1e6)
    np.testing.assert_allclose(lb.dynascore(df)["dynascore"], lb.dynascore(seconds)["dynascore"])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(2, 8))
def test_offsets_never_change_the_ranking(data, n):
    finite = {"allow_nan": False, "allow_infinity": False}
    acc = data.draw(st.lists(st.floats(0.0, 1.0, **finite), min_size=n, max_size=n))
    if max(acc) - min(acc) <= 1e-3:        # need two systems that differ in accuracy
        acc[0], acc[-1] = 0.0, 1.0
    df = pd.DataFrame({
        "accuracy": acc,
        "latency": data.draw(st.lists(st.floats(0.1, 1e4, **finite), min_size=n, max_size=n)),
        "cost": data.draw(st.lists(st.floats(1e-3, 1e3, **finite), min_size=n, max_size=n)),
    }, index=[f"s{i}" for i in range(n)])
    offsets = data.draw(st.fixed_dictionaries({m: st.floats(-1e3, 1e3, **finite)
                                               for m in ("accuracy", "latency", "cost")}))
    weights = data.draw(st.fixed_dictionaries({m: st.floats(0.01, 1.0, **finite)
                                               for m in ("accuracy", "latency", "cost")}))
    with warnings.catch_warnings():     # ties, two systems, equal accuracies: warnings this test need not check
        warnings.simplefilter("ignore", lb.RankingWarning)
        try:
            plain = lb.dynascore(df, weights)["dynascore"]
        except ValueError:                 # a metric that differs only within accuracy ties:
            event("refused: metric varies only within accuracy ties")
            with pytest.raises(ValueError):  # refused with or without offsets
                lb.dynascore(df, weights, offsets=offsets)
            return
        shifted = lb.dynascore(df, weights, offsets=offsets)["dynascore"].loc[plain.index]
    assert np.all(np.isfinite(shifted))
    shift = (shifted - plain).to_numpy()
    np.testing.assert_allclose(shift, shift[0], rtol=1e-9, atol=1e-9 * (1 + np.abs(plain).max()))
    # every pair the plain scores separate keeps its order (near-ties may swap by rounding)
    s, t = plain.to_numpy(), shifted.to_numpy()
    gap = 1e-7 * (1 + np.abs(s).max() + np.abs(t).max())
    i, j = np.triu_indices(n, 1)
    clear = np.abs(s[i] - s[j]) > gap
    assert np.all(np.sign(s[i] - s[j])[clear] == np.sign(t[i] - t[j])[clear])


# --------------------------------------------------------------------------- constant metrics

def board(**columns) -> pd.DataFrame:
    base = {"accuracy": [0.2, 0.3, 0.4], "latency": [1.0, 4.0, 9.0], "cost": [2.0, 3.0, 5.0]}
    base.update(columns)
    return pd.DataFrame(base, index=["a", "b", "c"])


def test_constant_metric_is_dropped_with_a_warning():
    df = board(cost=[0.5, 0.5, 0.5])
    with pytest.warns(lb.ConstantMetricWarning, match="cost"):
        result = lb.dynascore(df)
    assert np.all(np.isfinite(result["dynascore"]))
    assert "cost" not in result.attrs["weights"]
    expected = lb.dynascore(df, {"accuracy": 0.5, "latency": 0.25})
    np.testing.assert_allclose(result["dynascore"], expected["dynascore"])


def test_constant_metric_can_be_refused():
    with pytest.raises(ValueError, match="same value for every system"):
        lb.dynascore(board(cost=[0.5, 0.5, 0.5]), on_constant="raise")


def test_metric_varying_only_between_accuracy_ties_is_refused():
    df = pd.DataFrame({"accuracy": [0.2, 0.2, 0.4], "latency": [1.0, 2.0, 2.0], "cost": [1.0, 2.0, 3.0]},
                      index=list("abc"))
    with pytest.raises(ValueError, match="equal accuracy"):
        lb.dynascore(df)


def test_constant_accuracy_is_refused():
    with pytest.raises(ValueError, match="accuracy is the same"):
        lb.dynascore(board(accuracy=[0.3, 0.3, 0.3]))


def test_accuracy_differences_below_cutoff_are_skipped():
    # b-a differs by 1e-6 < 1e-4 * 0.4: only the pair (b, c) defines AMRS
    df = board(accuracy=[0.3, 0.300001, 0.4], latency=[1.0, 500.0, 10.0])
    assert lb.amrs(df)["latency"] == pytest.approx(490 / (0.4 - 0.300001))


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("df, kwargs, message", [
    (board().iloc[:1], {}, "at least 2"),
    (board(), {"weights": {"accuracy": 1, "memory": 1}}, "memory"),
    (board(), {"weights": {"accuracy": 1, "latency": -0.5}}, "non-negative"),
    (board(), {"weights": {"accuracy": 0, "latency": 0}}, "positive"),
    (board(), {"weights": {"accuracy": 1, "latency": float("nan")}}, "finite"),
    (board(latency=[1.0, float("nan"), 3.0]), {}, "latency of system 'b'"),
    (board(cost=[1.0, float("inf"), 3.0]), {}, "cost of system 'b'"),
    (board(), {"perf": "ndcg"}, "ndcg"),
    (board(), {"directions": {"latency": 0}}, "direction"),
    (board(), {"directions": {"memory": -1}}, "memory"),
    (board(), {"offsets": {"latency": float("nan")}}, "offset"),
    (board(), {"on_constant": "ignore"}, "on_constant"),
])
def test_bad_input_is_a_clear_error(df, kwargs, message):
    with pytest.raises(ValueError, match=message):
        lb.dynascore(df, **kwargs)


def test_non_frame_input_is_refused():
    with pytest.raises(TypeError):
        lb.dynascore({"accuracy": [1, 2]})


# --------------------------------------------------------------------------- weight map

def test_weight_simplex_covers_the_simplex():
    grid = lb.weight_simplex(3, 0.1)
    assert grid.shape == (66, 3)                 # C(10 + 2, 2)
    np.testing.assert_allclose(grid.sum(axis=1), 1.0)
    assert grid.min() >= 0
    with pytest.raises(ValueError):
        lb.weight_simplex(3, 0.3)


def test_winner_map_agrees_with_dynascore_at_every_weighting():
    df = pd.DataFrame({"accuracy": [0.30, 0.36, 0.39, 0.40], "latency": [4.0, 30.0, 120.0, 900.0],
                       "cost": [0.2, 0.5, 3.0, 1.5]}, index=["bm25", "splade", "colbert", "mono"])
    winners = lb.winner_map(df, step=0.1)
    assert len(winners) == 66
    for _, row in winners.iterrows():
        weights = {m: row[m] for m in ("accuracy", "latency", "cost")}
        if sum(weights.values()) == 0:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            best = lb.dynascore(df, weights)
        assert best["dynascore"].iloc[0] == pytest.approx(row["dynascore"])
        assert best.loc[row["winner"], "dynascore"] == pytest.approx(best["dynascore"].iloc[0])
    # accuracy alone: the most accurate system; latency alone: the fastest
    assert winners.query("accuracy == 1")["winner"].item() == "mono"
    assert winners.query("latency == 1")["winner"].item() == "bm25"


def test_winner_map_refuses_a_constant_metric():
    with pytest.raises(ValueError, match="winner map"):
        lb.winner_map(board(cost=[1.0, 1.0, 1.0]))


# --------------------------------------------------------------------------- ties and data-free rankings

TWO = pd.DataFrame({"accuracy": [0.187, 0.368], "latency": [4.0, 70.0], "cost": [0.5, 30.0]},
                   index=["BM25", "SPLADE"])


def test_two_systems_tie_under_the_default_weights_whatever_the_numbers():
    for scale in (1.0, 1e-3, 1e6):                       # dAcc x (0.5 - 0.25 - 0.25) = 0 for any values
        df = TWO.assign(latency=TWO["latency"] * scale)
        with pytest.warns(lb.RankingWarning, match="tie: with two systems") as record:
            result = lb.dynascore(df)
        assert list(result["rank"]) == [1, 1] and list(result.index) == ["BM25", "SPLADE"]   # by name
        assert result.attrs["notes"] == [str(record[0].message)]
    with pytest.warns(lb.RankingWarning, match="depends only on the weights"):
        result = lb.dynascore(TWO, {"accuracy": 0.6, "latency": 0.2, "cost": 0.2})
    assert list(result.index) == ["SPLADE", "BM25"] and list(result["rank"]) == [1, 2]


def test_ties_share_a_rank_whatever_the_row_order():
    df = pd.DataFrame({"accuracy": [0.2, 0.3, 0.45, 0.3], "latency": [1.0, 7.0, 30.0, 7.0], "cost": [1.0, 2.0, 3.0, 2.0]},
                      index=["a", "twin-b", "c", "twin-a"])
    expected = None
    for seed in range(4):
        with pytest.warns(lb.RankingWarning, match=r"equal Dynascores .* share a rank: rank \d+: 'twin-a', 'twin-b'$"):
            result = lb.dynascore(df.sample(frac=1.0, random_state=seed))
        ranks = result["rank"].to_dict()
        assert ranks["twin-a"] == ranks["twin-b"] and list(result.index).index("twin-a") + 1 == \
            list(result.index).index("twin-b")
        expected = expected if expected is not None else result
        pd.testing.assert_frame_equal(result, expected)


def test_accuracy_ties_pair_by_name_and_warn():
    # b1 and b2 have equal accuracy: the AMRS pairs a-b1 and b2-c (name order), whatever the row order
    df = pd.DataFrame({"accuracy": [0.2, 0.3, 0.3, 0.4], "latency": [1.0, 5.0, 2.0, 9.0], "cost": [1.0, 2.0, 3.0, 4.0]},
                      index=["a", "b2", "b1", "c"])
    with pytest.warns(lb.RankingWarning, match="'b1', 'b2'"):
        rates = lb.dynascore(df).attrs["amrs"]
    assert rates["latency"] == pytest.approx(((2 - 1) / 0.1 + (9 - 5) / 0.1) / 2)
    with pytest.warns(lb.RankingWarning):
        assert lb.dynascore(df.iloc[::-1]).attrs["amrs"] == rates


def test_huge_weights_are_scaled_not_overflowed():
    df = board()
    with pytest.warns(lb.RankingWarning, match="equal Dynascores .* rank 2: 'a', 'c'"):
        huge = lb.dynascore(df, {"accuracy": 1e308, "latency": 5e307, "cost": 5e307})
    with pytest.warns(lb.RankingWarning, match="equal Dynascores .* rank 2: 'a', 'c'"):
        default = lb.dynascore(df)
    pd.testing.assert_frame_equal(huge.drop(columns="dynascore"), default.drop(columns="dynascore"))
    np.testing.assert_allclose(huge["dynascore"], default["dynascore"])
    kernel, _ = lb.dynascore_kernel(df.to_numpy(), np.array([1e308, 1e308, 1e308]), np.array([1, -1, -1.0]),
                                    np.zeros(3))
    assert np.all(np.isfinite(kernel))


@pytest.mark.parametrize("df, kwargs, message", [
    (board(latency=[1.0, -2.0, 3.0]), {}, "latency of system 'b' is -2"),
    (board(cost=[1.0, 2.0, -0.5]), {}, "cost of system 'c' is -0.5"),
    (board().set_axis(["a", "a", "c"]), {}, r"system names must be unique: \['a'\]"),
    (board(accuracy=[1e308, 0.3, 0.4], latency=[1.0, 2.0, 4.0], cost=[1.0, 3.0, 2.0]), {}, "overflows"),
    (board(), {"weights": {"accuracy": True}}, "finite and non-negative numbers"),
])
def test_bad_measurements_are_refused_naming_the_system(df, kwargs, message):
    with pytest.raises(ValueError, match=message):
        lb.dynascore(df, **kwargs)


@pytest.mark.parametrize("step, message", [(0, "step must be a number in"), (-0.1, "step must be"),
                                           (float("nan"), "step must be"), (1e-4, "use step >= 0.000708"),
                                           (0.3, "divide 1 evenly")])
def test_winner_map_steps_are_checked_before_any_work(step, message):
    with pytest.raises(ValueError, match=message):
        lb.winner_map(board(), step=step)


def test_winner_map_marks_ties():
    winners = lb.winner_map(TWO, step=0.05)
    tied = winners[winners["tie"]]
    assert len(tied) and (tied["accuracy"] == 0.5).all()     # the line w_acc = w_latency + w_cost
    assert set(tied["winner"]) == {"BM25"}                    # the first by name
    assert not winners.loc[winners["accuracy"] != 0.5, "tie"].any()
