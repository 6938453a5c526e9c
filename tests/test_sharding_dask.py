"""Sharded scoring on the executors.

A 2-worker Dask LocalCluster and local processes give the per-topic values of the whole run scored
in one process, bit for bit, also when a worker is killed mid-run; on the synthetic collection, a
larger synthetic one and DL19 (37 runs, and the nine runs of the golden file under its 154
measures); ``ir-cwla eval --scheduler`` / ``--n-jobs``.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.io import _sharding as sharding
from tests import shards as layouts
from tests import synthetic
from tests.test_sharding import MEASURES

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow   # a 2-worker LocalCluster, local processes, hundreds of shards


def quietly(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def stored(runs: dict, folder, layout: str = "byte_ranges", per_run: int = 6) -> dict:
    out = {}
    for name, run in runs.items():
        path = layouts.write(run, folder / name, layout, parts=per_run)
        out[name] = sharding.shards(path, shard_bytes=sharding.shards(path).size // per_run + 1, name=name)
    return out


def test_synthetic_on_dask_and_processes_is_identical(synthetic_collection, dask_client, tmp_path):
    runs, qrels = synthetic_collection.runs, synthetic_collection.qrels
    whole = quietly(meta.evaluate, runs, qrels, MEASURES, progress=False)
    for layout in ("byte_ranges", "files"):
        sharded = stored(runs, tmp_path / layout, layout)
        remote = quietly(meta.evaluate, sharded, qrels, MEASURES, executor=dask_client, progress=False)
        pd.testing.assert_frame_equal(whole, remote, check_exact=True)
        local = quietly(meta.evaluate, sharded, qrels, MEASURES, n_jobs=2, progress=False)
        pd.testing.assert_frame_equal(whole, local, check_exact=True)


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """A synthetic collection of 600 topics, one deep run stored as 60 byte ranges."""
    collection = synthetic.make_collection(seed=7, n_topics=600, max_depth=400, doc_universe=60_000)
    run = collection.runs["deep"]
    folder = tmp_path_factory.mktemp("large")
    path = layouts.write(run, folder, "byte_ranges")
    return collection.qrels, run, sharding.shards(path, shard_bytes=path.stat().st_size // 60 + 1, name="deep")


def test_a_worker_killed_mid_run_does_not_change_the_result(large, dask_client):
    qrels, run, shards = large
    assert len(shards) >= 50
    expected = quietly(meta.evaluate, {"deep": run}, qrels, MEASURES, progress=False)
    pids = dask_client.run(os.getpid)                                      # {worker address: pid}
    outcome, killed = {}, []

    def score():
        outcome["frame"] = quietly(meta.evaluate, {"deep": shards}, qrels, MEASURES, executor=dask_client, progress=False)

    worker = threading.Thread(target=score)
    worker.start()
    deadline = time.monotonic() + 60
    while not killed and worker.is_alive() and time.monotonic() < deadline:
        busy = [addr for addr, keys in dask_client.processing().items() if keys and addr in pids]
        if busy:
            os.kill(pids[busy[0]], signal.SIGKILL)                   # dies while reading or scoring a shard
            killed.append(busy[0])
        time.sleep(0.005)
    worker.join(timeout=600)
    assert killed, "no task was seen running, so no worker was killed"
    assert "frame" in outcome
    pd.testing.assert_frame_equal(expected, outcome["frame"], check_exact=True)
    dask_client.wait_for_workers(2, timeout=120)                          # the nanny restarts it


@pytest.mark.realdata
def test_dl19_sharded_in_process_and_on_dask_is_identical(dl19_qrels_path, dl19_run_paths, dask_client, tmp_path):
    # ten of the 37 runs (every fourth, by name: the others add time, not cases; the golden test
    # below and tests/test_sharding.py cover more), their duplicates kept
    paths = sorted(dl19_run_paths)[::4]
    runs = {meta.run_name(p): ir_cwla.io.read_trec_run(p, check=False) for p in paths}
    measures = list(ir_cwla.table1()) + ["nDCG@10", "AP"]
    whole = quietly(meta.evaluate, paths, dl19_qrels_path, measures, progress=False)
    sharded = stored(runs, tmp_path, per_run=5)
    assert len(whole) == 10 * 43 * 41
    pd.testing.assert_frame_equal(whole, quietly(meta.evaluate, sharded, dl19_qrels_path, measures, progress=False),
                                  check_exact=True)
    pd.testing.assert_frame_equal(whole, quietly(meta.evaluate, sharded, dl19_qrels_path, measures, executor=dask_client,
                                                 progress=False), check_exact=True)


@pytest.mark.realdata
def test_dl19_golden_measures_one_topic_per_shard(dl19_qrels_path, dl19_dir, dask_client, tmp_path):
    """The golden measures with each topic a shard of its own.

    Three of the nine runs of the golden file (every third: 129 shards on the cluster) and its 154
    measures, each topic a shard of its own (the widths of the whole run matter most there): the
    values of each run scored whole.
    """
    from tests.golden.measures import GOLDEN_MEASURES, GOLDEN_RUNS

    names = GOLDEN_RUNS[::3]
    paths = [dl19_dir / "runs" / f"input.{name}.gz" for name in names]
    runs = {name: ir_cwla.io.read_trec_run(p, check=False) for name, p in zip(names, paths)}
    whole = quietly(meta.evaluate, dict(zip(names, paths)), dl19_qrels_path, GOLDEN_MEASURES, progress=False)
    sharded = {}
    for name, run in runs.items():
        folder = layouts.write(run, tmp_path / name, "files", parts=10**6)
        sharded[name] = sharding.shards(folder, shard_bytes=1, name=name)
    remote = quietly(meta.evaluate, sharded, dl19_qrels_path, GOLDEN_MEASURES, executor=dask_client, progress=False)
    pd.testing.assert_frame_equal(whole, remote, check_exact=True)


def test_cli_scheduler_and_n_jobs_print_what_the_whole_file_prints(synthetic_files, dask_client, tmp_path):
    source = synthetic_files.runs["deep"]
    run = ir_cwla.io.read_trec_run(source, check=False)
    folder = layouts.write(run, tmp_path, "files", parts=8)
    measures = ["-m", "nDCG@10", "RBP_max@10", "AP_ERG[pad]", "INST_avg[pad]", "P@10"]

    def eval_(target, *extra):
        out = subprocess.run([sys.executable, "-m", "ir_cwla", "eval", str(synthetic_files.qrels), str(target), "-q",
                              *measures, *extra], capture_output=True, text=True, check=True)
        return out.stdout.splitlines()[1:]                # the runid line names the run

    expected = eval_(source)
    assert eval_(folder, "--scheduler", dask_client.scheduler.address) == expected
    assert eval_(folder, "--n-jobs", "2") == expected
    assert eval_(folder, "--n-jobs", "2", "-a") == eval_(source, "-a")
