"""Instances, the bundled price table, and the two cost estimates."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_cwla import leaderboard as lb


def test_bundled_table_has_dates_sources_and_positive_prices():
    table = lb.price_table()
    for column in ("instance", "usd_per_hour", "date", "source", "region", "vcpus", "memory_gib"):
        assert column in table.columns
    assert (table["usd_per_hour"] > 0).all()
    assert table["date"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert table["source"].str.startswith("https://").all()
    assert not table["instance"].duplicated().any()


def test_lookup_from_the_bundled_table():
    m5 = lb.instance("m5.xlarge")
    assert m5.usd_per_hour == 0.192 and m5.vcpus == 4 and m5.memory_gib == 16
    assert m5.price_date and m5.source and m5.provider == "aws"
    gpu = lb.instance("g4dn.xlarge")
    assert gpu.gpus == 1


def test_unknown_instance_suggests_names_and_the_override():
    with pytest.raises(KeyError, match=r"m5\.xlarge.*usd_per_hour"):
        lb.instance("m5.xlarg")


def test_prices_can_be_overridden(tmp_path):
    mine = pd.DataFrame({"instance": ["lab-box"], "usd_per_hour": [0.05], "date": ["2026-01-01"],
                         "source": ["invoice 42"]})
    assert lb.instance("lab-box", prices=mine).usd_per_hour == 0.05
    mine.to_csv(tmp_path / "prices.csv", index=False)
    assert lb.instance("lab-box", prices=tmp_path / "prices.csv").source == "invoice 42"
    assert lb.Instance("m5.xlarge", usd_per_hour=0.25).usd_per_hour == 0.25


@pytest.mark.parametrize("price", [0, -0.1, float("nan"), float("inf"), "0.2", None, True])
def test_non_positive_or_non_numeric_prices_are_refused(price):
    with pytest.raises(ValueError, match="positive"):
        lb.Instance("x", usd_per_hour=price)


def test_bad_price_table_is_refused():
    with pytest.raises(ValueError, match="positive"):
        lb.instance("a", prices=pd.DataFrame({"instance": ["a"], "usd_per_hour": [-1.0], "date": ["d"],
                                              "source": ["s"]}))
    with pytest.raises(ValueError, match="date"):
        lb.instance("a", prices=pd.DataFrame({"instance": ["a"], "usd_per_hour": [1.0]}))


def test_cost_formulas():
    # 0.192 $/h at 100 QPS: 360,000 queries per hour -> $0.5333 per million
    assert lb.usd_per_million_queries(100.0, 0.192) == pytest.approx(0.192 / 360_000 * 1e6)
    # one query of 36 ms on a 1 $/h instance costs $1e-5
    assert lb.usd_per_query(36.0, 1.0) == pytest.approx(1e-5)
    np.testing.assert_allclose(lb.usd_per_million_queries(np.array([1.0, 2.0]), 3.6), [1000.0, 500.0])
    with pytest.raises(ValueError):
        lb.usd_per_million_queries(0.0, 1.0)
    with pytest.raises(ValueError):
        lb.usd_per_query(-1.0, 1.0)


@pytest.mark.parametrize("call, message", [
    (lambda: lb.usd_per_query(3.0, -0.1), "usd_per_hour is -0.1"),
    (lambda: lb.usd_per_query([1.0, float("inf")], 1.0), r"latency_ms\[1\] is inf"),
    (lambda: lb.usd_per_million_queries(100.0, float("nan")), "usd_per_hour is nan"),
    (lambda: lb.usd_per_million_queries([5.0, -2.0], 1.0), r"throughput \(qps\)\[1\] is -2.0"),
])
def test_negative_or_non_finite_costs_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
