"""Executors: Dask and local processes give bit-identical results.

Executors: a local Dask cluster and local processes give bit-identical results, also when a
worker dies mid-run. DL19 passage, 37 runs x 43 topics x 39 Table-1 measures.
"""
from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest

from ir_cwla import meta, table1

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow   # starts a 2-worker LocalCluster and kills a worker: ~10 s


@pytest.fixture(scope="module")
def dl19(dl19_qrels_path, dl19_run_paths, dask_client):
    local = meta.evaluate(dl19_run_paths, dl19_qrels_path, table1(), progress=False)
    remote = meta.evaluate(dl19_run_paths, dl19_qrels_path, table1(), executor=dask_client, progress=False)
    return local, remote


def where_it_ran(shared, task):
    return os.getpid(), id(shared), task


def test_shared_data_is_shipped_once_per_worker(dask_client):
    results = meta.Dask(dask_client).map(where_it_ran, np.arange(100_000.0), list(range(24)), progress=False)
    assert [r[2] for r in results] == list(range(24))                 # results in task order
    copies = {}
    for pid, obj, _ in results:
        copies.setdefault(pid, set()).add(obj)
    assert len(copies) == 2                                           # both workers took tasks
    assert all(len(ids) == 1 for ids in copies.values())              # one copy per worker, not per task


def touch_and_return(folder, task):
    open(os.path.join(folder, f"{task:04d}"), "w").close()
    return task


def test_stream_keeps_at_most_the_window_in_flight(dask_client, tmp_path):
    """The consumer of a stream (the Monte-Carlo tests summing counts) holds a bounded number of results."""
    results = meta.Dask(dask_client).stream(touch_and_return, str(tmp_path), list(range(30)), window=3)
    got = [next(results), next(results)]
    time.sleep(1.0)                                                   # workers would run ahead here if they could
    assert 2 <= len(os.listdir(tmp_path)) <= 2 + 3
    got += list(results)
    assert sorted(got) == [(i, i) for i in range(30)] and len(os.listdir(tmp_path)) == 30


def test_evaluate_on_dask_is_identical(dl19):
    local, remote = dl19
    assert local.shape == (37 * 43 * 39, 4)
    pd.testing.assert_frame_equal(local, remote, check_exact=True)


def test_consistency_on_dask_is_identical(dl19, dask_client):
    frame = dl19[0]
    kwargs = dict(trials=300, test_trials=500, seed=11, groups=meta.browsing_model, progress=False)
    local = meta.consistency(frame, **kwargs)
    remote = meta.consistency(frame, executor=dask_client, **kwargs)
    pd.testing.assert_frame_equal(local.taus, remote.taus, check_exact=True)
    for group in local.p_values:
        pd.testing.assert_frame_equal(local.p_values[group], remote.p_values[group], check_exact=True)
    by_address = meta.consistency(frame, scheduler=dask_client.scheduler.address, **kwargs)
    pd.testing.assert_frame_equal(local.taus, by_address.taus, check_exact=True)


def test_discriminative_power_on_dask_and_processes_is_identical(dl19, dask_client):
    frame = dl19[0]
    local = meta.discriminative_power(frame, trials=1000, seed=3, progress=False)
    remote = meta.discriminative_power(frame, trials=1000, seed=3, executor=dask_client, progress=False)
    procs = meta.discriminative_power(frame, trials=1000, seed=3, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(local.pairs, remote.pairs, check_exact=True)
    pd.testing.assert_frame_equal(local.pairs, procs.pairs, check_exact=True)
    rand_local = meta.discriminative_power(frame, trials=400, seed=3, test="randomisation", progress=False)
    rand_remote = meta.discriminative_power(frame, trials=400, seed=3, test="randomisation", executor=dask_client,
                                            progress=False)
    pd.testing.assert_frame_equal(rand_local.pairs, rand_remote.pairs, check_exact=True)


def test_a_worker_killed_mid_run_does_not_change_the_result(dl19, dask_client):
    frame = dl19[0]
    expected = meta.discriminative_power(frame, trials=6000, seed=5, progress=False)
    pids = dask_client.run(os.getpid)                                      # {worker address: pid}
    outcome, killed = {}, []

    def run():
        outcome["disc"] = meta.discriminative_power(frame, trials=6000, seed=5, executor=dask_client, progress=False)

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.monotonic() + 30
    while not killed and worker.is_alive() and time.monotonic() < deadline:
        busy = [addr for addr, keys in dask_client.processing().items() if keys and addr in pids]
        if busy:
            os.kill(pids[busy[0]], signal.SIGKILL)                   # dies while running a task
            killed.append(busy[0])
        time.sleep(0.005)
    worker.join(timeout=1200)
    assert killed, "no task was seen running, so no worker was killed"
    assert "disc" in outcome
    pd.testing.assert_frame_equal(expected.pairs, outcome["disc"].pairs, check_exact=True)
    dask_client.wait_for_workers(2, timeout=600)                          # the nanny restarts it


def test_sweep_on_dask_matches_in_process(dl19, dask_client, dl19_qrels_path, dl19_run_paths):
    from ir_cwla import CWLA

    measures = meta.grid(CWLA, C="RBP", A=["ERG", "max", "ERR"], p=[0.5, 0.9], cutoff=10)
    assert len(measures) == 4                                         # RBP with A='ERR' is skipped
    analyses = {"consistency": {"trials": 100, "test_trials": 200}, "discriminative_power": {"trials": 400}}
    runs = dl19_run_paths[:8]
    local = meta.sweep(runs, dl19_qrels_path, measures, analyses, groups=meta.browsing_model, progress=False)
    remote = meta.sweep({"a": runs, "b": runs}, {"a": dl19_qrels_path, "b": dl19_qrels_path}, measures, analyses,
                        groups=meta.browsing_model, executor=dask_client, progress=False)
    table = local.table()
    assert list(table["group"].unique()) == ["RBP(p=0.5)@10", "RBP(p=0.9)@10"]
    for key in ("a", "b"):
        pd.testing.assert_frame_equal(remote.per_query[key], local.per_query["collection"], check_exact=True)
        pd.testing.assert_frame_equal(remote.table().query("collection == @key").drop(columns="collection")
                                      .reset_index(drop=True), table.drop(columns="collection"), check_exact=True)


@pytest.mark.slow
def test_scattered_data_lost_with_its_workers_is_scattered_again():
    """Every worker holding ``shared`` dies mid-map: it is scattered again, and every task still returns once."""
    distributed = pytest.importorskip("distributed")
    from ir_cwla.analysis.executors import Dask

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        out: dict = {}
        killed = []
        for index, result in Dask(client).stream(lambda shared, task: (time.sleep(0.1), shared[task])[1],
                                                 list(range(100, 130)), list(range(30))):
            assert index not in out
            out[index] = result
            if not killed:
                holders = {w for key, where in client.who_has().items() if key.startswith("list-") for w in where}
                for worker in holders:                      # no copy of shared survives
                    os.kill(pids[worker], signal.SIGKILL)
                killed.extend(holders)
        assert killed and out == {i: 100 + i for i in range(30)}
