"""Benchmark: all-pairs comparison of the 37 DL19 systems under the 39 Table-1 measures, and ranx.

1. ``ir_cwla.compare`` over all 666 pairs x 39 measures with 10,000 permutations: Fisher's
   randomisation test for every pair and Westfall & Young's MaxT step-down adjustment over the
   25,974 hypotheses (``test='randomisation', correction='maxt-stepdown'``), plus the t and
   bootstrap intervals, effect sizes and win/tie/loss counts of every pair.
2. ranx on the same per-query scores: ranx has no MaxT (nor any correction), so it runs what
   ``ranx.compare(stat_test='fisher', n_permutations=10000)`` runs after evaluating, its
   ``compute_statistical_significance``, which tests every *ordered* pair (1,332 per measure,
   numba, JIT-compiled before timing). Its time is linear in the number of measures (each is
   tested on its own), so by default it runs on the first ``--ranx-measures`` measures and the
   39-measure time is scaled from them (``--ranx-measures 39`` runs them all, about 30 min on
   2 cores). Target: at least 20x. The Fisher p-values agree within Monte-Carlo error except where
   a measure's discreteness makes permuted differences equal the observed one in real
   arithmetic: ir_cwla counts those trials (tolerance 1e-12, :mod:`ir_cwla.analysis.tukey`), ranx's
   float comparison drops those that rounding puts below it (on DL19's P_ERG@10, p_bert vs
   p_exp_rm3_bert: every sign flip reaches the observed |difference| of 1/1290, so p = 1; ranx
   gives 0.857): the "largest gap" printed.
3. Peak memory (tracemalloc) of the comparison with 1,000 and 10,000 permutations: flat in
   the number of permutations (they are drawn and counted chunk by chunk).

    python benchmarks/bench_compare.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 1]
"""
from __future__ import annotations

import argparse
import os
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from common import save, timed  # benchmarks/ is on sys.path when run as a script

import ir_cwla
from ir_cwla import meta, table1
from ir_cwla.errors import UndefinedStatisticWarning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"


def ours(per_query, trials: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)    # DL19 has two runs identical on P_ERG
        return ir_cwla.compare(per_query, test="randomisation", correction="maxt-stepdown", trials=trials, seed=0)


def ranx_fisher(per_query, measures, trials: int):
    from ranx.statistical_tests import compute_statistical_significance

    cube = meta.to_cube(per_query).select(measures)
    scores = {s: {m: np.ascontiguousarray(cube.matrix(m)[:, k]) for m in measures} for k, s in enumerate(cube.systems)}
    return compute_statistical_significance(list(cube.systems), scores, "fisher", trials, 0.05, 42)


def peak_memory(fn) -> float:
    """Peak traced allocations (MB) during ``fn()``."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=1)
    ap.add_argument("--trials", type=int, default=10000)
    ap.add_argument("--ranx-measures", type=int, default=3, help="measures ranx runs on (its time is scaled to 39)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_compare.json"))
    args = ap.parse_args(argv)
    data = Path(args.data)

    t0 = time.perf_counter()
    per_query = meta.evaluate(data / "runs", data / "qrels.dl19-passage.txt", table1(), progress=False)
    t_eval = time.perf_counter() - t0
    n_s, n_t, n_m = per_query["name"].nunique(), per_query["qid"].nunique(), per_query["measure"].nunique()
    n_pairs = n_s * (n_s - 1) // 2
    print(f"evaluate: {n_s} systems x {n_t} topics x {n_m} measures in {t_eval:.2f} s")

    t_ours, runs_ours, result = timed(lambda: ours(per_query, args.trials), args.repeat)
    table = result.table()
    print(f"ir_cwla.compare, {n_pairs} pairs x {n_m} measures, Fisher + MaxT step-down, {args.trials:,} permutations "
          f"each: median {t_ours:.1f} s over {args.repeat} run(s) ({', '.join(f'{t:.1f}' for t in runs_ours)}); "
          f"{int(table['significant'].sum()):,} of {len(table):,} hypotheses significant after MaxT "
          f"({int((table['p_value'] < 0.05).sum()):,} before)")

    measures = list(result.measures)[: args.ranx_measures]
    ranx_fisher(per_query, measures[:1], 10)                    # JIT compile outside the timing
    t_ranx, _, ranx_result = timed(lambda: ranx_fisher(per_query, measures, args.trials), 1)
    t_ranx_all = t_ranx * n_m / len(measures)
    first = table[table["measure"] == measures[0]]
    p_ranx = np.array([ranx_result[frozenset((a, b))][measures[0]]["p_value"] for a, b in zip(first["baseline"],
                                                                                               first["system"])])
    agree = float(np.mean((p_ranx < 0.05) == (first["p_value"].to_numpy() < 0.05)))
    gap = float(np.max(np.abs(p_ranx - first["p_value"].to_numpy())))
    print(f"ranx compute_statistical_significance (what ranx.compare runs), Fisher, {args.trials:,} permutations, "
          f"{n_s * (n_s - 1)} ordered pairs: {t_ranx:.1f} s for {len(measures)} measure(s) -> "
          f"{t_ranx_all:.0f} s for {n_m}{' (scaled)' if len(measures) < n_m else ''}; "
          f"ir_cwla is {t_ranx_all / t_ours:.0f}x faster while also adjusting by MaxT; Fisher p-values agree on "
          f"p < 0.05 for {100 * agree:.1f}% of the {len(first)} pairs of {measures[0]} (largest gap {gap:.4f})")

    memory = {}
    for trials in (1000, args.trials):
        memory[trials] = peak_memory(lambda trials=trials: ours(per_query, trials))
    print("peak traced memory of the comparison: " + ", ".join(f"{t:,} permutations {mb:.0f} MB"
                                                                for t, mb in memory.items()))
    result_json = {"evaluate_s": t_eval, "systems": n_s, "topics": n_t, "measures": n_m, "pairs": n_pairs,
                   "trials": args.trials, "ours_median_s": t_ours, "ours_runs_s": runs_ours,
                   "ranx_measures_run": len(measures), "ranx_s_measured": t_ranx, "ranx_s_all_measures": t_ranx_all,
                   "ranx_scaled": len(measures) < n_m, "speedup": t_ranx_all / t_ours,
                   "fisher_significance_agreement_with_ranx": agree, "fisher_largest_p_gap": gap,
                   "peak_memory_mb": {str(k): v for k, v in memory.items()}}
    return save(result_json, args.out)


if __name__ == "__main__":
    main()
