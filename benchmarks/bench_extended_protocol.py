"""Benchmark: the extended meta-evaluation protocol on TREC DL 2019 passage, five criteria.

From the run files to the five tables: 39 Table-1 measures x 37 systems x 43 topics;
similarity; consistency (1000 splits + 2000-trial Tukey HSD); discriminative power
(2000-trial randomised Tukey HSD); incompleteness (10 fractions x 20 trials, stratified, plus
5 pool depths); pooling bias (leave one run out at depth 10). Target: < 30 s wall time on 2
cores, reading the run files included.

    python benchmarks/bench_extended_protocol.py [--data ../shared/data/trec-dl-2019-passage]
        [--repeat 1] [--n-jobs 1]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from common import save  # benchmarks/ is on sys.path when run as a script

from ir_cwla import io, meta, table1

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"


def protocol(data: Path, n_jobs: int) -> dict[str, float]:
    """Runs the five criteria once; returns the wall time of every step."""
    jobs = None if n_jobs == 1 else n_jobs
    times: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        times[name] = now - clock
        clock = now

    measures = table1()
    runs = {meta.run_name(p): io.read_trec_run(p) for p in sorted((data / "runs").iterdir()) if p.is_file()}
    qrels = io.read_trec_qrels(data / "qrels.dl19-passage.txt")
    lap("read runs and qrels")
    per_query = meta.evaluate(runs, qrels, measures, progress=False)
    lap("evaluate (per-query frame)")
    meta.similarity(per_query, groups=meta.browsing_model).table()
    lap("similarity")
    meta.consistency(per_query, trials=1000, test_trials=2000, seed=0, groups=meta.browsing_model,
                     n_jobs=jobs, progress=False).table()
    lap("consistency (1000 splits, 2000-trial Tukey HSD)")
    meta.discriminative_power(per_query, trials=2000, seed=0, groups=meta.browsing_model, n_jobs=jobs,
                              progress=False).table()
    lap("discriminative power (2000 trials)")
    incomplete = meta.incompleteness(runs, qrels, measures, trials=20, seed=0, groups=meta.browsing_model,
                                     n_jobs=jobs, progress=False)
    incomplete.table(), incomplete.depth_table()
    lap("incompleteness (10 fractions x 20 trials + 5 pool depths)")
    meta.pooling_bias(runs, qrels, measures, depths=[10], groups=meta.browsing_model, n_jobs=jobs,
                      progress=False).table()
    lap("pooling bias (leave one run out, depth 10)")
    times["total"] = sum(times.values())
    return times


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=1)
    ap.add_argument("--n-jobs", type=int, default=1, help="local processes for the randomised steps (1: in-process, the fastest at this size)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_extended_protocol.json"))
    args = ap.parse_args(argv)
    runs = [protocol(Path(args.data), args.n_jobs) for _ in range(args.repeat)]
    best = min(runs, key=lambda t: t["total"])
    for step, seconds in best.items():
        print(f"{step:60s} {seconds:6.2f} s")
    totals = ", ".join(f"{r['total']:.2f}" for r in runs)
    print(f"whole protocol: {totals} s over {args.repeat} run(s) (target < 30 s)")
    return save({"n_jobs": args.n_jobs, "runs": runs, "best_total_s": best["total"]}, args.out)


if __name__ == "__main__":
    main()
