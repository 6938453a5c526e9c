"""The Leaderboard: measured from PyTerrier systems, or built from published numbers."""
from __future__ import annotations

import json
import time

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from ir_measures import RR, nDCG
from matplotlib.text import Text

import ir_cwla
from ir_cwla import leaderboard as lb

TOPICS = pd.DataFrame({"qid": ["1", "2", "3", "4"], "query": ["wing flow", "heat transfer", "shock", "mach"]})
QRELS = pd.DataFrame({"qid": ["1", "1", "2", "3", "4", "4"], "docno": ["d1", "d2", "d3", "d4", "d5", "d6"],
                      "label": [2, 1, 2, 1, 2, 2]})
# "good" puts the grade-2 document first for queries 1, 2, 4; "poor" puts it second or misses it
GOOD = pd.DataFrame({"qid": ["1", "1", "2", "3", "4", "4"], "docno": ["d1", "d2", "d3", "d4", "d5", "d9"],
                     "score": [2.0, 1.0, 1.0, 1.0, 2.0, 1.0]})
POOR = pd.DataFrame({"qid": ["1", "1", "2", "2", "3", "4"], "docno": ["d2", "d1", "d8", "d3", "d4", "d9"],
                     "score": [2.0, 1.0, 2.0, 1.0, 1.0, 1.0]})
SLEEP_S = 0.004


def sleeping(system: pt.Transformer, seconds_per_query: float) -> pt.Transformer:
    """``system`` slowed down by ``seconds_per_query`` for every query it is given."""
    def slow(topics: pd.DataFrame) -> pd.DataFrame:
        time.sleep(seconds_per_query * len(topics))
        return system.transform(topics)
    return pt.apply.generic(slow)


@pytest.fixture(scope="module")
def board() -> lb.Leaderboard:
    systems = {"fast-poor": pt.Transformer.from_df(POOR), "slow-good": sleeping(pt.Transformer.from_df(GOOD), SLEEP_S)}
    return lb.Leaderboard.run(systems, TOPICS, QRELS, accuracy=RR(rel=2)@10, instance=lb.instance("m5.xlarge"),
                              warmup=2, repeats=2)


def test_measured_table(board):
    with pytest.warns(lb.RankingWarning, match="with two systems"):
        table = board.table()
    for column in ("RR(rel=2)@10", "latency_mean_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "qps",
                   "instance", "usd_per_hour", "usd_per_1M_q_from_qps", "usd_per_q_from_latency",
                   "dynascore", "rank"):
        assert column in table.columns
    # RR(rel=2)@10 by hand: good = (1 + 1 + 0 + 1) / 4; poor = (1/2 + 1/2 + 0 + 0) / 4
    assert table.loc["slow-good", "RR(rel=2)@10"] == pytest.approx(0.75)
    assert table.loc["fast-poor", "RR(rel=2)@10"] == pytest.approx(0.25)
    slow = table.loc["slow-good"]
    assert slow["latency_p50_ms"] >= SLEEP_S * 1000 and slow["qps"] <= 1 / SLEEP_S   # sleeps are lower bounds
    assert (table["latency_p50_ms"] <= table["latency_p95_ms"]).all()
    assert (table["latency_p95_ms"] <= table["latency_p99_ms"]).all()
    np.testing.assert_allclose(table["usd_per_1M_q_from_qps"], 0.192 / (3600 * table["qps"]) * 1e6)
    np.testing.assert_allclose(table["usd_per_q_from_latency"], 0.192 * table["latency_mean_ms"] / 3.6e6)
    assert set(table["instance"]) == {"m5.xlarge"}
    assert board.columns == {"accuracy": "RR(rel=2)@10", "latency": "latency_p50_ms",
                             "cost": "usd_per_1M_q_from_qps"}


def test_percentiles_are_those_of_the_recorded_times(board):
    times = board.per_query_latency()
    assert len(times) == 2 * 2 * len(TOPICS)                      # systems x passes x topics
    for name, group in times.groupby("name"):
        row = board.results.loc[name]
        assert row["latency_p95_ms"] == pytest.approx(np.percentile(group["ms"], 95))
        assert row["latency_mean_ms"] == pytest.approx(group["ms"].mean())


def test_environment_and_protocol_are_recorded(board, tmp_path):
    env = board.environment
    assert env["protocol"]["warmup"] == 2 and env["protocol"]["repeats"] == 2
    assert env["protocol"]["accuracy"] == ["RR(rel=2)@10"]
    assert env["protocol"]["instances"]["slow-good"]["usd_per_hour"] == 0.192
    assert env["cpu_model"] and env["versions"]["numpy"]
    board.save(tmp_path)
    saved = json.loads((tmp_path / "environment.json").read_text())
    assert saved["measure"] == "RR(rel=2)@10"
    assert len(pd.read_csv(tmp_path / "latency_per_query.csv")) == 16
    assert list(pd.read_csv(tmp_path / "results.csv", index_col=0).index) == list(board.results.index)


def test_dynascore_and_strategies_on_a_measured_board(board):
    """Dynascore and the strategies, checked against the measured numbers themselves.

    Against the measured numbers themselves, so that a busy machine (where the sleeping system
    need not be the slower one: issue 19) cannot make it fail.
    """
    with pytest.warns(lb.RankingWarning, match="with two systems"):
        scores = board.dynascore({"accuracy": 1.0, "latency": 0.0, "cost": 0.0})
    assert scores.index[0] == "slow-good"
    latency = board.results["latency_p50_ms"]
    fastest, slowest = latency.idxmin(), latency.idxmax()
    with pytest.warns(lb.RankingWarning, match="with two systems"):
        scores = board.dynascore({"accuracy": 0.0, "latency": 1.0})
    if latency.nunique() == 2:
        assert scores.index[0] == fastest
        limit = latency[slowest] - 1e-9 * max(1.0, latency[slowest])
        assert list(board.within_budget(latency=limit).index) == [fastest]
    assert list(board.above_accuracy(0.5).index) == ["slow-good"]


def test_any_ir_measures_measure_is_accuracy():
    systems = {"good": pt.Transformer.from_df(GOOD), "poor": pt.Transformer.from_df(POOR)}
    cwla = ir_measures.parse_measure("CWLA(C='RBP', A='ERG')@10")
    for measure in (nDCG@10, "nDCG@10", cwla, ir_cwla.CWLA(C="INST", A="ERG")@10):
        board = lb.Leaderboard.run(systems, TOPICS, QRELS, accuracy=measure, instance="m5.large",
                                   warmup=0, repeats=1)
        parsed = ir_measures.parse_measure(measure)
        expected = pt.Experiment([GOOD, POOR], TOPICS, QRELS, eval_metrics=[parsed], names=["good", "poor"])
        expected = expected.set_index("name")[str(parsed)]
        accuracy = board.metrics()["accuracy"]
        np.testing.assert_allclose(accuracy, expected.loc[board.results.index])
        assert board.measure == str(parsed)
        assert accuracy.loc["good"] > accuracy.loc["poor"]


def test_several_measures_and_switching_roles():
    systems = {"good": pt.Transformer.from_df(GOOD), "poor": pt.Transformer.from_df(POOR)}
    cwla = str(ir_cwla.CWLA(C="RBP", A="ERG")@10)
    both = lb.Leaderboard.run(systems, TOPICS, QRELS, accuracy=[RR(rel=2)@10, cwla], instance="m5.large",
                              warmup=0, repeats=1)
    assert both.measure == "RR(rel=2)@10" and cwla in both.results.columns
    assert both.using(accuracy=ir_cwla.CWLA(C="RBP", A="ERG")@10).measure == cwla
    switched = both.using(accuracy=cwla, latency="p99", cost="latency")
    assert switched.columns == {"accuracy": cwla, "latency": "latency_p99_ms", "cost": "usd_per_q_from_latency"}
    np.testing.assert_allclose(switched.metrics()["accuracy"], both.results[cwla])
    assert "RR(rel=2)@10" in switched.metrics().columns        # the other measure stays as an extra column
    with pytest.raises(ValueError, match="nDCG"):
        both.using(accuracy="nDCG@10")


def test_one_instance_per_system_and_other_statistics():
    systems = {"a": pt.Transformer.from_df(GOOD), "b": pt.Transformer.from_df(POOR)}
    board = lb.Leaderboard.run(systems, TOPICS, QRELS, accuracy=RR(rel=2)@10, warmup=0, repeats=1,
                               instance={"a": "g4dn.xlarge", "b": lb.Instance("laptop", usd_per_hour=0.01)},
                               latency_stat="p95", cost_basis="latency")
    assert list(board.results["instance"]) == ["g4dn.xlarge", "laptop"]
    assert list(board.results["usd_per_hour"]) == [0.526, 0.01]
    assert board.columns["latency"] == "latency_p95_ms" and board.columns["cost"] == "usd_per_q_from_latency"
    np.testing.assert_allclose(board.metrics()["cost"], board.results["usd_per_q_from_latency"])


@pytest.mark.parametrize("kwargs, error, message", [
    ({"systems": {"only": pt.Transformer.from_df(GOOD)}}, ValueError, "at least 2"),
    ({"instance": 0.192}, TypeError, "Instance"),
    ({"instance": "no-such-instance"}, KeyError, "no-such-instance"),
    ({"instance": {"a": "m5.large"}}, ValueError, "no instance"),
    ({"latency_stat": "p90"}, ValueError, "latency_stat"),
    ({"cost_basis": "memory"}, ValueError, "cost_basis"),
    ({"accuracy": []}, ValueError, "at least one"),
    ({"accuracy": [RR @ 10, 3]}, TypeError, "ir-measures"),
])
def test_bad_run_arguments(kwargs, error, message):
    args = {"systems": {"a": pt.Transformer.from_df(GOOD), "b": pt.Transformer.from_df(POOR)},
            "topics": TOPICS, "qrels": QRELS, "accuracy": RR @ 10, "instance": "m5.large",
            "warmup": 0, "repeats": 1}
    args.update(kwargs)
    with pytest.raises(error, match=message):
        lb.Leaderboard.run(**args)


# --------------------------------------------------------------------------- precomputed numbers

PUBLISHED = pd.DataFrame({
    "system": ["BM25", "SPLADE", "ColBERTv2", "DPR"],
    "MRR@10": [0.187, 0.368, 0.397, 0.311],
    "latency_ms": [4.0, 70.0, 60.0, 45.0],
    "usd": [0.5, 30.0, 40.0, 9.0],
    "memory_gb": [1.0, 8.0, 25.0, 60.0],
})


def published_board() -> lb.Leaderboard:
    return lb.Leaderboard.from_frame(PUBLISHED, accuracy="MRR@10", latency="latency_ms", cost="usd", name="system")


def test_board_from_published_numbers():
    board = published_board()
    expected = lb.dynascore(PUBLISHED.set_index("system").rename(
        columns={"MRR@10": "accuracy", "latency_ms": "latency", "usd": "cost"}))
    scores = board.dynascore()
    assert list(scores.index) == list(expected.index)
    np.testing.assert_allclose(scores["dynascore"], expected["dynascore"])
    table = board.table()
    assert list(table.columns[:4]) == ["MRR@10", "latency_ms", "usd", "memory_gb"]
    assert list(table["rank"]) == [1, 2, 3, 4]
    assert board.measure == "MRR@10"


def test_extra_columns_can_be_weighted_with_their_direction():
    weights = {"accuracy": 0.5, "memory_gb": 0.5}
    frame = PUBLISHED.set_index("system").rename(columns={"MRR@10": "accuracy"})
    scores = published_board().dynascore(weights)
    # memory_gb defaults to direction -1 (a name starting with "memory")
    expected = lb.dynascore(frame, weights, directions={"memory_gb": -1})
    np.testing.assert_allclose(scores["dynascore"], expected["dynascore"])
    assert scores.loc["DPR", "rank"] == 3                        # 60 GB costs DPR a place
    flipped = lb.Leaderboard.from_frame(PUBLISHED, accuracy="MRR@10", latency="latency_ms", cost="usd",
                                        name="system", directions={"memory_gb": 1})
    assert flipped.dynascore(weights).loc["DPR", "rank"] == 2


@pytest.mark.parametrize("frame, message", [
    (PUBLISHED.head(1), "at least 2"),
    (PUBLISHED.assign(usd=[0.5, np.nan, 1.0, 2.0]), "usd|cost"),
    (PUBLISHED.drop(columns="usd"), "usd"),
    (pd.concat([PUBLISHED, PUBLISHED.head(1)]), "unique"),
])
def test_bad_published_tables(frame, message):
    with pytest.raises(ValueError, match=message):
        lb.Leaderboard.from_frame(frame, accuracy="MRR@10", latency="latency_ms", cost="usd", name="system")


def test_dynascore_weights_must_name_known_metrics():
    with pytest.raises(ValueError, match="fairness"):
        published_board().dynascore({"accuracy": 0.5, "fairness": 0.5})
    with pytest.raises(ValueError, match="non-negative"):
        published_board().dynascore({"accuracy": 0.5, "cost": -0.5})


# --------------------------------------------------------------------------- figures

def test_frontier_figure():
    ax = published_board().plot_frontier()
    labels = {t.get_text() for t in ax.texts}
    assert labels == set(PUBLISHED["system"])
    frontier = ax.collections[1].get_offsets()
    assert len(frontier) == 3                     # BM25, DPR, ColBERTv2; SPLADE is dominated
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "MRR@10"


def test_weight_map_figure_shows_the_winners():
    board = published_board()
    winners = board.winner_map(step=0.05)
    ax = board.plot_weight_map(step=0.05)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(legend) == sorted(winners["winner"].unique())
    mesh = ax.collections[0].get_array().reshape(21, 21)
    top = legend[int(mesh[20, 0])]                # accuracy weight 1, latency weight 0
    assert top == "ColBERTv2" == winners.query("accuracy == 1")["winner"].item()
    corner = legend[int(mesh[0, 20])]             # latency weight 1
    assert corner == "BM25"
    assert np.ma.is_masked(mesh[20, 20])          # outside the simplex


def test_timed_passes_are_interleaved_across_systems():
    calls = []

    def logged(name: str, run: pd.DataFrame) -> pt.Transformer:
        inner = pt.Transformer.from_df(run)

        def call(topics: pd.DataFrame) -> pd.DataFrame:
            calls.append((name, len(topics)))
            return inner.transform(topics)
        return pt.apply.generic(call)

    lb.Leaderboard.run({"a": logged("a", GOOD), "b": logged("b", POOR)}, TOPICS, QRELS, accuracy=RR @ 10,
                       instance="m5.large", warmup=1, repeats=2)
    batches = [name for name, size in calls if size == len(TOPICS)]
    # accuracy runs, then per round: throughput pass of a, of b (untimed warm-up batch before it in round 2)
    assert batches == ["a", "b", "a", "b", "a", "a", "b", "b"]
    singles = [name for name, size in calls if size == 1]
    assert singles == ["a"] * 5 + ["b"] * 5 + ["a"] * 5 + ["b"] * 5     # 1 warm-up + 4 timed, per pass


def test_joining_measurements_of_different_topics_is_refused():
    a = lb.measure_latency(lambda df: df, TOPICS, warmup=0, repeats=1)
    b = lb.measure_latency(lambda df: df, TOPICS.head(2), warmup=0, repeats=1)
    assert lb.LatencyResult.concat([a, a]).times_ms.shape == (2, 4)
    with pytest.raises(ValueError):
        lb.LatencyResult.concat([a, b])
    t = lb.measure_throughput(lambda df: df, TOPICS, repeats=1, warmup=0)
    u = lb.measure_throughput(lambda df: df, TOPICS, batch_size=2, repeats=1, warmup=0)
    with pytest.raises(ValueError):
        lb.ThroughputResult.concat([t, u])


def _label_boxes(ax):
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    # the text's own box (an Annotation's extent also spans its leader line)
    return [(t.get_text(), Text.get_window_extent(t, renderer)) for t in ax.texts]


def test_frontier_labels_never_overlap_and_names_stay_text():
    """Frontier labels never overlap, and names stay text.

    Fifteen systems a few hundredths of a millisecond apart, two of them on top of each other,
    names that matplotlib would read as math: every label legible and none on another.
    """
    rng = np.random.default_rng(1)
    names = ["PISA-BM25", "PISA-DPH", "PISA-QLD-mu1000", "PISA-PL2-c1", "bm25s-lucene", "bm25s-robertson",
             "bm25s-bm25+", "bm25s-bm25l", "bm25s-atire", "PISA-BM25-k1.2", "PISA-TF-IDF", "$\\frac{1}{$", "=cmd()",
             "$x$ and $y$", "PISA-QLD-mu2000"]
    df = pd.DataFrame({"accuracy": 0.35 + rng.normal(0, 0.01, 15), "latency": 0.38 + rng.random(15) * 0.37,
                       "cost": rng.random(15)}, index=names)
    df.loc["bm25s-bm25+"] = df.loc["bm25s-robertson"] + 1e-5
    ax = lb.Leaderboard(df).plot_frontier()
    assert ax.get_xscale() == "linear"                               # 0.38-0.75 ms: no log axis
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert all("10^" not in t and "times" not in t for t in ticks)
    boxes = _label_boxes(ax)
    assert sorted(t for t, _ in boxes) == sorted(names)             # all labelled, as given (no mathtext)
    assert all(not t.get_parse_math() for t in ax.texts)
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), (a, b)
    frame = ax.get_window_extent()
    assert all(frame.x0 <= box.x0 and box.x1 <= frame.x1 for _, box in boxes)
    points = ax.transData.transform(df[["latency", "accuracy"]].to_numpy())
    for name, box in boxes:
        inside = (points[:, 0] > box.x0) & (points[:, 0] < box.x1) & (points[:, 1] > box.y0) & (points[:, 1] < box.y1)
        assert not inside.any(), name
    _assert_labels_nearest_their_points(ax, df)


def _assert_labels_nearest_their_points(ax, frame):
    """No label is read as another point's.

    Nearer its own point than any other, or, with a leader line to its point, at
    least 8 points from any other point.
    """
    boxes = _label_boxes(ax)
    leader = {t.get_text(): t.arrow_patch is not None for t in ax.texts}
    points = ax.transData.transform(frame[["latency", "accuracy"]].to_numpy())
    names = list(frame.index)
    clear = 8 * ax.figure.dpi / 72
    for name, box in boxes:
        gap = np.hypot(np.maximum(np.maximum(box.x0 - points[:, 0], points[:, 0] - box.x1), 0),
                       np.maximum(np.maximum(box.y0 - points[:, 1], points[:, 1] - box.y1), 0))
        own = names.index(name)
        other = np.delete(gap, own).min()
        if leader[name]:
            assert other >= clear - 1.5 or gap[own] <= other + 1.5, name   # 1.5 px: the text box's padding
        else:
            assert gap[own] <= other + 1.5, name
    return boxes


def test_a_label_is_never_nearer_another_point():
    """The demo's fifteen Cranfield systems (nDCG@10, median ms): a crowd of nine PISA systems within 0.1 ms.

    A label placed beside a neighbour's point would name the wrong system, so such places are refused (the
    system is left unlabelled and the legend says how many are); labels in the outer ring of places get a
    leader line.
    """
    frame = pd.DataFrame({
        "accuracy": [0.347705, 0.370946, 0.362043, 0.367345, 0.368583, 0.353909, 0.365309, 0.368583, 0.351271,
                     0.372043, 0.351120, 0.372043, 0.372076, 0.367195, 0.376647],
        "latency": [0.438824, 0.478455, 0.480319, 0.482334, 0.495069, 0.496467, 0.496690, 0.516146, 0.521655,
                    0.982925, 0.993678, 0.997616, 1.000035, 1.000480, 1.013855]},
        index=["PISA-BM25-nostem", "PISA-BM25-k2-b0.9", "PISA-BM25", "PISA-BM25-k1.2-b0.75", "PISA-DPH",
               "PISA-QLD-mu1000", "PISA-QLD-mu100", "PISA-PL2-c1", "PISA-PL2-c7", "bm25s-atire", "bm25s-lucene-nostem",
               "bm25s-bm25+", "bm25s-lucene", "bm25s-robertson", "bm25s-bm25l"])
    ax = lb.plots.plot_frontier(frame)
    boxes = _assert_labels_nearest_their_points(ax, frame)
    missing = len(frame) - len(boxes)
    assert len(boxes) >= 12
    assert ax.get_legend().get_title().get_text() == (f"{missing} of 15 systems unlabelled" if missing else "")
    import matplotlib.pyplot as plt

    plt.close("all")


def test_frontier_of_many_systems_labels_the_frontier_only():
    rng = np.random.default_rng(0)
    n = 5000
    df = pd.DataFrame({"accuracy": rng.random(n), "latency": 10 ** rng.uniform(-1, 3, n), "cost": rng.random(n)},
                      index=[f"sys-{i}" for i in range(n)])
    ax = lb.Leaderboard(df).plot_frontier()
    frontier = set(lb.pareto_frontier(df).index)
    labelled = {t.get_text() for t in ax.texts}
    assert labelled and labelled <= frontier and len(labelled) <= lb.plots.MAX_LABELS
    assert ax.get_legend().get_title().get_text() == f"{n - len(labelled)} of {n} systems unlabelled"
    assert ax.get_xscale() == "log" and {t.get_text() for t in ax.get_xticklabels()} >= {"0.1", "1", "10", "100"}


def test_weight_map_shows_ties():
    df = pd.DataFrame({"accuracy": [0.187, 0.368], "latency": [4.0, 70.0], "cost": [0.5, 30.0]}, index=["$a$", "b"])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lb.RankingWarning)
        ax = lb.Leaderboard(df).plot_weight_map(step=0.05)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["\\$a\\$", "b", "tie (x)"]
    ties = ax.collections[1].get_offsets()
    assert len(ties) and np.allclose(ties[:, 1], 0.5)               # the line w_accuracy = 0.5


def test_saved_board_reads_back_without_naming_columns(board, tmp_path):
    board.save(str(tmp_path))
    again = lb.Leaderboard.read_csv(tmp_path / "results.csv")
    assert again.columns == board.columns
    pd.testing.assert_frame_equal(again.metrics(), board.metrics(), check_names=False)
    (tmp_path / "environment.json").unlink()                     # the project's column names still work
    assert lb.Leaderboard.read_csv(tmp_path / "results.csv").columns == board.columns
    with pytest.raises(ValueError, match="no column 'p99' for latency"):
        lb.Leaderboard.read_csv(tmp_path / "results.csv", latency="p99")
    (tmp_path / "bad.csv").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="bad.csv"):
        lb.Leaderboard.read_csv(tmp_path / "bad.csv")


def test_a_point_hemmed_in_by_the_frontier_line_is_still_labelled():
    """The demo's smoke board on one run.

    bm25s-lucene sits just right of the frontier's last step, at the right edge; its label
    may cross the line (on a white ground) but not vanish.
    """
    df = pd.DataFrame({"accuracy": [0.3620, 0.3686, 0.3721, 0.3766, 0.3539], "latency": [0.552, 0.588, 0.904, 0.885, 0.577],
                       "cost": [0.0142, 0.0128, 0.0110, 0.0068, 0.0132]},
                      index=["PISA-BM25", "PISA-DPH", "bm25s-lucene", "bm25s-bm25l", "PISA-QLD-mu1000"])
    ax = lb.Leaderboard(df).plot_frontier()
    assert sorted(t.get_text() for t in ax.texts) == sorted(df.index)
    assert ax.get_legend().get_title().get_text() == ""
    boxes = _label_boxes(ax)
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), (a, b)


def test_rankings_keep_the_users_column_names():
    """Rankings keep the user's column names (issue 19).

    Issue 19: .dynascore(), .within_budget(), .above_accuracy() and .pareto() name the columns as
    the user did (MRR@10, latency_ms, usd), not accuracy/latency/cost; weights, budgets and `by` may
    name roles or those columns alike, with the same numbers as the alias view (metrics()).
    """
    df = pd.DataFrame({"system": ["a", "b", "c", "d"], "MRR@10": [0.30, 0.35, 0.40, 0.20],
                       "latency_ms": [10.0, 20.0, 40.0, 5.0], "usd": [1.0, 2.0, 3.0, 0.5]})
    board = lb.Leaderboard.from_frame(df, accuracy="MRR@10", latency="latency_ms", cost="usd", name="system")
    mine = ["MRR@10", "latency_ms", "usd"]
    by_role = board.dynascore({"accuracy": 0.5, "latency": 0.3, "cost": 0.2})
    by_column = board.dynascore({"MRR@10": 0.5, "latency_ms": 0.3, "usd": 0.2})
    pd.testing.assert_frame_equal(by_role, by_column)
    assert list(by_role.columns) == mine + ["dynascore", "rank"]
    assert set(by_role.attrs["weights"]) == set(mine) and set(by_role.attrs["amrs"]) == set(mine)
    reference = lb.dynascore(board.metrics(), {"accuracy": 0.5, "latency": 0.3, "cost": 0.2})   # the alias view
    np.testing.assert_array_equal(by_role["dynascore"].to_numpy(), reference["dynascore"].to_numpy())
    budget = board.within_budget(latency=25)
    assert list(budget.columns) == mine + ["rank"] and list(budget.index) == ["b", "a", "d"]
    assert list(board.above_accuracy(0.3, by="usd").columns) == mine + ["rank"]
    assert list(board.above_accuracy(0.3, by="usd").index) == list(board.above_accuracy(0.3, by="cost").index)
    assert list(board.pareto().columns) == mine and list(board.pareto(x="usd").index) == list(board.pareto(x="cost").index)
    assert board.within_budget(latency=1).empty and list(board.within_budget(latency=1).columns) == mine + ["rank"]


def test_the_readme_dynascore_line_on_the_readme_frame():
    """README (leaderboard section).

    The frame of `from_frame(df, accuracy='MRR@10', latency='latency_ms', cost='usd', name='system')`.
    `lb.dynascore(df, weights, directions={'latency': -1, 'cost': -1}, perf='accuracy')` cannot work
    on it (no column accuracy, latency or cost) and says what to do; the line that does names the
    frame's columns, and agrees with the board.
    """
    df = pd.DataFrame({"system": ["a", "b", "c"], "MRR@10": [0.30, 0.35, 0.40], "latency_ms": [10.0, 20.0, 40.0],
                       "usd": [1.0, 2.0, 3.0]})
    weights = {"accuracy": 0.5, "latency": 0.25, "cost": 0.25}
    with pytest.raises(ValueError, match="accuracy column 'accuracy' not in the table .*name the accuracy column "
                                         "with perf="):
        lb.dynascore(df, weights, directions={"latency": -1, "cost": -1}, perf="accuracy")
    with pytest.warns(lb.RankingWarning):
        right = lb.dynascore(df.set_index("system"), {"MRR@10": 0.5, "latency_ms": 0.25, "usd": 0.25},
                             directions={"latency_ms": -1, "usd": -1}, perf="MRR@10")
        board = lb.Leaderboard.from_frame(df, accuracy="MRR@10", latency="latency_ms", cost="usd", name="system")
        pd.testing.assert_frame_equal(right, board.dynascore(weights), check_names=False)
