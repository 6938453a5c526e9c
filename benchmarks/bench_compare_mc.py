"""Benchmark: adding trials while a decision could flip (max_trials), against ranx and a single run.

On TREC DL 2019 passage (37 runs, 43 topics, nDCG@10), every system against ``bm25base_p``:

1. ``ir_cwla.compare(test='randomisation', trials=1000, max_trials=64000)``: the randomisation
   test continued (doubling) while a significance decision could flip within 3 Monte-Carlo sd's,
   and the bootstrap intervals likewise up to ``max_resamples``.
2. the same comparison run once with the final counts it reached (the numbers are the same:
   the extra trials continue the streams), whose time the adaptive run should stay within 2x of
   (the doubling re-counts nothing: it only adds the new trials);
3. ranx's ``fisher_randomization_test`` (numba, JIT-compiled before timing) on the same 36 pairs
   with the final number of trials: the ratio ranx / ir_cwla-adaptive.

    python benchmarks/bench_compare_mc.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import numpy as np
from common import save, timed  # benchmarks/ is on sys.path when run as a script

import ir_cwla
from ir_cwla import meta
from ir_cwla.errors import UndefinedStatisticWarning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"
BASELINE = "bm25base_p"


def main(argv=None) -> dict:
    import ir_measures

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_compare_mc.json"))
    args = ap.parse_args(argv)
    data = Path(args.data)
    per_query = meta.evaluate(data / "runs", data / "qrels.dl19-passage.txt", [ir_measures.nDCG @ 10], progress=False)
    warnings.simplefilter("ignore", UndefinedStatisticWarning)

    def adaptive():
        return ir_cwla.compare(per_query, baseline=BASELINE, test="randomisation", correction="holm", trials=1000,
                               max_trials=64000, resamples=1000, max_resamples=16000, seed=0)

    t_adaptive, times_adaptive, grown = timed(adaptive, args.repeat)

    def single():
        return ir_cwla.compare(per_query, baseline=BASELINE, test="randomisation", correction="holm",
                               trials=grown.trials, resamples=grown.resamples, seed=0)

    t_single, times_single, once = timed(single, args.repeat)
    same = grown.table().equals(once.table())

    from ranx.statistical_tests import fisher_randomization_test

    cube = meta.to_cube(per_query)
    x = cube.values[0]
    b = cube.systems.index(BASELINE)
    others = [j for j in range(len(cube.systems)) if j != b]
    fisher_randomization_test(x[:, b], x[:, others[0]], 100, 0.05, 42)          # JIT-compile first

    def ranx_pairs():
        return [fisher_randomization_test(x[:, b], x[:, j], grown.trials, 0.05, 42)[0] for j in others]

    t_ranx, times_ranx, _ = timed(ranx_pairs, args.repeat)
    flips = int(grown.table()["significance_could_flip"].sum())
    print(f"adaptive: {grown.trials:,} trials, {grown.resamples:,} resamples reached, {flips} decisions still "
          f"could flip; {t_adaptive:.2f} s (median of {args.repeat})")
    print(f"single run of the final counts: {t_single:.2f} s; adaptive / single = {t_adaptive / t_single:.2f}; "
          f"the same numbers: {same}")
    print(f"ranx fisher_randomization_test, 36 pairs x {grown.trials:,} trials: {t_ranx:.2f} s; "
          f"ranx / ir_cwla adaptive = {t_ranx / t_adaptive:.2f}")
    return save({"trials": grown.trials, "resamples": grown.resamples, "still_could_flip": flips,
                 "adaptive_seconds": times_adaptive, "single_seconds": times_single, "ranx_seconds": times_ranx,
                 "adaptive_over_single": t_adaptive / t_single, "ranx_over_adaptive": t_ranx / t_adaptive,
                 "same_numbers": bool(same), "p_value_mc_sd_max": float(np.max(grown.table()["p_value_mc_sd"]))},
                args.out)


if __name__ == "__main__":
    main()
