"""Benchmark: the paper's meta-evaluation protocol on TREC DL 2019 passage, and ranx.

1. Protocol, from the per-query frame to the tables: 39 Table-1 measures x 37 systems x 43
   topics; similarity, consistency (1000 splits + 2000-trial Tukey HSD), discriminative
   power (2000-trial randomised Tukey HSD). Target: < 10 s wall time on 2 cores.
2. Discriminative power of one measure over all 666 system pairs, 2000 permutations:
   ``meta.discriminative_power`` (Tukey HSD and per-pair randomisation test) vs ranx's
   per-pair ``fisher_randomization_test`` (numba, JIT compiled before timing). Target: >= 20x.

    python benchmarks/bench_meta.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from common import save, timed  # benchmarks/ is on sys.path when run as a script

from ir_cwla import meta, table1

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"



def protocol(per_query):
    sim = meta.similarity(per_query, groups=meta.browsing_model)
    cons = meta.consistency(per_query, trials=1000, test_trials=2000, seed=0, groups=meta.browsing_model,
                            progress=False)
    disc = meta.discriminative_power(per_query, trials=2000, alpha=0.05, seed=0, groups=meta.browsing_model,
                                     progress=False)
    return sim.table(), cons.table(), disc.table(), disc.asl()


def ranx_all_pairs(matrix: np.ndarray, trials: int) -> np.ndarray:
    from ranx.statistical_tests import fisher_randomization_test

    a, b = np.triu_indices(matrix.shape[1], 1)
    return np.array([fisher_randomization_test(matrix[:, i], matrix[:, j], trials, 0.05, 42)[0]
                     for i, j in zip(a, b)])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_meta.json"))
    args = ap.parse_args(argv)
    data = Path(args.data)

    t0 = time.perf_counter()
    per_query = meta.evaluate(data / "runs", data / "qrels.dl19-passage.txt", table1(), progress=False)
    t_eval = time.perf_counter() - t0
    shape = (per_query["name"].nunique(), per_query["qid"].nunique(), per_query["measure"].nunique())
    print(f"evaluate: {shape[0]} systems x {shape[1]} topics x {shape[2]} measures in {t_eval:.2f} s")

    t_protocol, all_protocol, _ = timed(lambda: protocol(per_query), args.repeat)
    parts = {}
    for name, fn in {
        "similarity": lambda: meta.similarity(per_query, groups=meta.browsing_model).table(),
        "consistency": lambda: meta.consistency(per_query, trials=1000, test_trials=2000, seed=0,
                                                groups=meta.browsing_model, progress=False).table(),
        "discriminative_power": lambda: meta.discriminative_power(per_query, trials=2000, seed=0,
                                                                  groups=meta.browsing_model, progress=False).table(),
    }.items():
        parts[name] = timed(fn, args.repeat)[0]
    print(f"protocol (frame -> tables): median {t_protocol:.2f} s over {args.repeat} runs "
          f"({', '.join(f'{t:.2f}' for t in all_protocol)}); "
          + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items()))

    measure = str(table1()[0])                                 # P_ERG@10
    one = per_query[per_query["measure"] == measure]
    matrix = meta.to_cube(one).matrix(measure)
    ranx_all_pairs(matrix[:, :2], 10)                          # JIT compile outside the timing
    t_tukey = timed(lambda: meta.discriminative_power(one, trials=2000, seed=0, progress=False), args.repeat)[0]
    t_rand = timed(lambda: meta.discriminative_power(one, trials=2000, seed=0, test="randomisation",
                                                     progress=False), args.repeat)[0]
    t_ranx, _, p_ranx = timed(lambda: ranx_all_pairs(matrix, 2000), args.repeat)
    p_ours = meta.paired_randomisation_test(matrix, trials=2000, seed=0)[np.triu_indices(matrix.shape[1], 1)]
    agree = float(np.mean((p_ranx < 0.05) == (p_ours < 0.05)))
    print(f"one measure, 666 pairs, 2000 permutations: Tukey HSD {t_tukey * 1000:.1f} ms, "
          f"per-pair randomisation {t_rand * 1000:.1f} ms, ranx Fisher {t_ranx * 1000:.1f} ms -> "
          f"{t_ranx / t_tukey:.0f}x (Tukey), {t_ranx / t_rand:.0f}x (randomisation); "
          f"randomisation vs ranx agree on p < 0.05 for {100 * agree:.1f}% of pairs")

    result = {"evaluate_s": t_eval, "protocol_median_s": t_protocol,
              "protocol_runs_s": all_protocol, "parts_median_s": parts, "one_measure_tukey_s": t_tukey,
              "one_measure_randomisation_s": t_rand, "ranx_fisher_s": t_ranx,
              "speedup_tukey": t_ranx / t_tukey, "speedup_randomisation": t_ranx / t_rand,
              "significance_agreement_with_ranx": agree}
    return save(result, args.out)


if __name__ == "__main__":
    main()
