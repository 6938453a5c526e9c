"""examples/leaderboard.py runs as is, offline, on real PyTerrier systems (a quick run)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.offline import run_offline

pytestmark = pytest.mark.slow   # builds and times eight PISA/bm25s systems in a child process

SYSTEMS = ["PISA-BM25", "PISA-DPH", "PISA-QLD-mu1000", "bm25s-lucene", "bm25s-bm25l", "PISA-BM25 top10",
           "PISA-BM25 + bm25s", "PISA-BM25 >> RM3"]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("leaderboard-example")
    out = tmp / "out"
    proc = run_offline(["examples/leaderboard.py", "--quick", "--warmup", "1", "--out", str(out)], tmp, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc.stdout


def test_example_measures_all_eight_systems(example):
    out, stdout = example
    results = pd.read_csv(out / "results.csv", index_col="name")
    assert sorted(results.index) == sorted(SYSTEMS)
    assert results["nDCG@10"].between(0.2, 0.6).all()
    # cutting PISA's ranking at 10 cannot change an @10 measure; RM3 really re-ranks
    assert results.loc["PISA-BM25 top10", "nDCG@10"] == pytest.approx(results.loc["PISA-BM25", "nDCG@10"])
    assert results.loc["PISA-BM25 >> RM3", "nDCG@10"] != pytest.approx(results.loc["PISA-BM25", "nDCG@10"])
    assert (results["instance"] == "m5.large").all()
    times = pd.read_csv(out / "latency_per_query.csv")
    assert len(times) == 8 * 50 and times["ms"].gt(0).all()
    env = json.loads((out / "environment.json").read_text())["environment"]
    assert env["protocol"]["n_topics"] == 50 and env["versions"]["pyterrier-pisa"]
    for figure in ("frontier.png", "weight_map.png"):
        assert (out / figure).stat().st_size > 10_000
    assert "strategy 2" in stdout and "Pareto frontier" in stdout
