"""Latency and throughput measurement: warm-up excluded, percentiles of the recorded times.

Most tests drive a fake clock that the test systems advance by known amounts, so every
recorded time is known exactly; one test uses the real clock and a real sleep.
"""
from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest

from ir_cwla import leaderboard as lb

TOPICS = pd.DataFrame({"qid": [str(i) for i in range(1, 8)], "query": [f"query {i}" for i in range(1, 8)]})


class FakeClock:
    """A nanosecond clock that only moves when a test system says so."""

    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now

    def advance_ms(self, ms: float) -> None:
        self.now += int(round(ms * 1e6))


def slow_first_call(clock: FakeClock, first_ms: float = 5000.0):
    """A PyTerrier transformer that takes ``first_ms`` on its first call and ``qid`` ms after."""
    calls = []

    def retrieve(topics: pd.DataFrame) -> pd.DataFrame:
        calls.append(len(topics))
        clock.advance_ms(first_ms if len(calls) == 1 else sum(int(q) for q in topics["qid"]))
        return topics.assign(docno="d1", score=1.0)

    return pt.apply.generic(retrieve), calls


def test_warmup_calls_are_not_timed():
    clock = FakeClock()
    system, calls = slow_first_call(clock)
    result = lb.measure_latency(system, TOPICS, warmup=3, repeats=2, clock=clock)
    assert result.times_ms.shape == (2, 7)
    assert len(calls) == 3 + 2 * 7 and set(calls) == {1}          # one query per call
    np.testing.assert_allclose(result.times_ms, [list(range(1, 8))] * 2)  # qid i takes i ms
    assert result.summary()["max_ms"] == 7.0


def test_without_warmup_the_slow_first_call_is_recorded():
    clock = FakeClock()
    system, _ = slow_first_call(clock)
    result = lb.measure_latency(system, TOPICS, warmup=0, repeats=1, clock=clock)
    assert result.times_ms[0, 0] == 5000.0
    assert result.summary()["p99_ms"] > 1000


def test_warmup_excluded_with_the_real_clock():
    state = {"calls": 0}

    def retrieve(topics: pd.DataFrame) -> pd.DataFrame:
        state["calls"] += 1
        if state["calls"] == 1:
            time.sleep(1.0)                     # far above any warm call, however busy
        return topics.assign(docno="d1", score=1.0)

    warm = lb.measure_latency(pt.apply.generic(retrieve), TOPICS.head(3), warmup=1, repeats=1)
    assert warm.times_ms.max() < 1000
    state["calls"] = 0
    cold = lb.measure_latency(pt.apply.generic(retrieve), TOPICS.head(3), warmup=0, repeats=1)
    assert cold.times_ms[0, 0] >= 1000


def test_summary_is_that_of_the_recorded_times():
    clock = FakeClock()
    rng = np.random.default_rng(7)
    durations = iter(rng.lognormal(1.0, 1.0, size=1000))

    def retrieve(topics: pd.DataFrame) -> pd.DataFrame:
        clock.advance_ms(next(durations))
        return topics

    result = lb.measure_latency(pt.apply.generic(retrieve), TOPICS, warmup=2, repeats=5, clock=clock)
    recorded = result.per_query()["ms"].to_numpy()
    assert len(recorded) == 35
    summary = result.summary()
    assert summary["mean_ms"] == pytest.approx(recorded.mean())
    assert summary["p50_ms"] == pytest.approx(np.median(recorded))
    assert summary["p95_ms"] == pytest.approx(np.percentile(recorded, 95))
    assert summary["p99_ms"] == pytest.approx(np.percentile(recorded, 99))
    assert summary["n"] == 35


def test_per_query_table_names_query_and_pass():
    clock = FakeClock()
    system, _ = slow_first_call(clock)
    table = lb.measure_latency(system, TOPICS, warmup=1, repeats=2, clock=clock).per_query()
    assert list(table.columns) == ["qid", "pass", "ms"]
    assert table.groupby("qid")["ms"].mean().loc["6"] == 6.0
    assert sorted(table["pass"].unique()) == [0, 1]


def test_latency_summary_kernel():
    summary = lb.latency_summary(np.arange(1, 101, dtype=float))
    assert summary["p50_ms"] == 50.5 and summary["p95_ms"] == pytest.approx(95.05)
    assert summary["p99_ms"] == pytest.approx(99.01) and summary["mean_ms"] == 50.5
    with pytest.raises(ValueError):
        lb.latency_summary([])
    with pytest.raises(ValueError):
        lb.latency_summary([1.0, float("nan")])


def test_throughput_counts_queries_over_wall_time_in_batches():
    clock = FakeClock()
    sizes = []

    def retrieve(topics: pd.DataFrame) -> pd.DataFrame:
        sizes.append(len(topics))
        clock.advance_ms(10 * len(topics))          # 10 ms per query in any batch
        return topics

    result = lb.measure_throughput(pt.apply.generic(retrieve), TOPICS, batch_size=3, repeats=2, warmup=1,
                                   clock=clock)
    assert sizes == [3] + [3, 3, 1] * 2               # warm-up batch, then two passes of 7 queries
    assert result.qps == pytest.approx(100.0)
    assert result.summary()["passes"] == 2
    whole = lb.measure_throughput(pt.apply.generic(retrieve), TOPICS, repeats=1, warmup=0, clock=clock)
    assert whole.batch_size == 7 and sizes[-1] == 7


def test_environment_records_hardware_threads_and_versions():
    env = lb.environment()
    for key in ("cpu_model", "logical_cores", "memory_gib", "threads", "versions", "clock",
                "load_average_1_5_15min"):
        assert key in env
    assert env["clock"]["monotonic"] is True
    assert env["versions"]["numpy"] == np.__version__
    assert env["threads"]["usable_cores"] >= 1
    json.dumps(env)                                   # serialisable as it is


def test_plain_callables_are_accepted():
    clock = FakeClock()

    def retrieve(topics: pd.DataFrame) -> pd.DataFrame:
        clock.advance_ms(2)
        return topics

    assert lb.measure_latency(retrieve, TOPICS, warmup=0, repeats=1, clock=clock).summary()["p50_ms"] == 2.0


@pytest.mark.parametrize("kwargs, error", [
    ({"warmup": -1}, ValueError), ({"repeats": 0}, ValueError),
    ({"topics": TOPICS.drop(columns="qid")}, ValueError), ({"topics": TOPICS.head(0)}, ValueError),
    ({"system": 42}, TypeError),
])
def test_bad_measurement_arguments(kwargs, error):
    args = {"system": lambda df: df, "topics": TOPICS, "warmup": 0, "repeats": 1}
    args.update(kwargs)
    with pytest.raises(error):
        lb.measure_latency(**args)


def test_bad_batch_size():
    with pytest.raises(ValueError):
        lb.measure_throughput(lambda df: df, TOPICS, batch_size=0)


def test_negative_latencies_are_refused():
    with pytest.raises(ValueError, match=r"latency \[0\] is -1.0 ms"):
        lb.latency_summary([-1, 2, 3])
