"""Benchmark: a parameter sweep over DL19 passage, in-process vs a local Dask cluster.

About 100 CWLA measures (RBP with p = 0.50, 0.55, ..., 0.95 and INST with T = 1..5, each
with every valid aggregation, cutoff 10) over the 37 runs x 43 topics: evaluation, then
similarity, consistency (1000 splits, 2000-trial Tukey HSD per browsing model) and
discriminative power (2000-trial Tukey HSD), with ``meta.sweep``. Timed in-process, on
``n_jobs=2`` local processes and on a 2-worker ``LocalCluster`` (warm: started and imported
before timing; its start-up is reported apart). Every executor must give the same table,
bit for bit.

    python benchmarks/bench_sweep.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 2]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from common import save, timed  # benchmarks/ is on sys.path when run as a script

from ir_cwla import CWLA, meta

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"
AGGREGATIONS = ["ERG", "ETG", "avg", "max", "fin", "PE", "ERR"]
ANALYSES = {"similarity": {}, "consistency": {"trials": 1000, "test_trials": 2000},
            "discriminative_power": {"trials": 2000}}


def sweep_measures() -> list:
    p_values = [round(float(p), 2) for p in np.arange(0.5, 0.951, 0.05)]
    return (meta.grid(CWLA, C="RBP", A=AGGREGATIONS, p=p_values, cutoff=10)          # A='ERR' skipped
            + meta.grid(CWLA, C="INST", A=AGGREGATIONS, T=[1.0, 2.0, 3.0, 4.0, 5.0], cutoff=10))


def run_sweep(data: Path, measures: list, **executor) -> pd.DataFrame:
    result = meta.sweep(data / "runs", data / "qrels.dl19-passage.txt", measures, ANALYSES,
                        groups=meta.browsing_model, seed=0, progress=False, **executor)
    return result.table()



def on_cluster(data: Path, measures: list, repeat: int) -> tuple[float, list, float, object]:
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address="127.0.0.1:0", silence_logs=50)
    client = Client(cluster, set_as_default=False)
    client.run(lambda: __import__("ir_cwla.meta"))
    startup = time.perf_counter() - t0
    try:
        run_sweep(data, measures[:6], executor=client)                        # warm the workers
        median, times, table = timed(lambda: run_sweep(data, measures, executor=client), repeat)
    finally:
        client.close()
        cluster.close()
    return median, times, startup, table


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_sweep.json"))
    args = ap.parse_args(argv)
    data = Path(args.data)
    measures = sweep_measures()
    print(f"{len(measures)} measures, analyses {list(ANALYSES)}")

    run_sweep(data, measures[:6])                                             # warm imports and caches
    t_local, all_local, reference = timed(lambda: run_sweep(data, measures), args.repeat)
    print(f"in-process:             {t_local:6.2f} s  ({', '.join(f'{t:.2f}' for t in all_local)})")
    t_procs, all_procs, table = timed(lambda: run_sweep(data, measures, n_jobs=2), args.repeat)
    pd.testing.assert_frame_equal(reference, table, check_exact=True)
    print(f"n_jobs=2 processes:     {t_procs:6.2f} s  ({', '.join(f'{t:.2f}' for t in all_procs)}) "
          f"speed-up {t_local / t_procs:.2f}x")
    result = {"measures": len(measures), "in_process_s": t_local,
              "in_process_runs_s": all_local, "processes_s": t_procs, "processes_runs_s": all_procs}
    t_dask, all_dask, startup, table = on_cluster(data, measures, args.repeat)
    pd.testing.assert_frame_equal(reference, table, check_exact=True)
    print(f"LocalCluster 2 workers: {t_dask:6.2f} s  ({', '.join(f'{t:.2f}' for t in all_dask)}) "
          f"speed-up {t_local / t_dask:.2f}x; cluster start-up {startup:.2f} s")
    result.update({"dask_s": t_dask, "dask_runs_s": all_dask, "dask_startup_s": startup,
                   "dask_speedup": t_local / t_dask, "processes_speedup": t_local / t_procs})
    print("all executors gave identical tables")
    return save(result, args.out)


if __name__ == "__main__":
    main()
