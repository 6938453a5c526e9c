"""Benchmark: topic-disjoint agreement on TREC DL 2021 (NIST's 53 topics against GPT-4's 424).

1. ``meta.disjoint_agreement`` of the 63 runs' per-query frames under NIST's and under GPT-4's
   qrels for the 39 Table-1 measures, with 1000 bootstrap resamples of both collections and 1000
   null replicates (tau-b and tau_AP each), in-process and on 2 local processes. The per-query
   frames are scored once before (``meta.evaluate``; its time is printed, not counted). Target
   (issue 32): under 60 s.
2. Anchor, in the same run: ``scipy.stats.kendalltau`` of the same bootstrap means (the
   resampling done with numpy as ours), on ``--anchor-trials`` replicates of every measure, scaled
   to the 2000 replicates (bootstrap and null) of tau; tau_AP has no anchor.

    python benchmarks/bench_disjoint.py [--llm-data ../shared/data/llm-judgments] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
from common import save, timed  # benchmarks/ is on sys.path when run as a script

from ir_cwla import meta, table1
from ir_cwla.errors import UndefinedStatisticWarning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "llm-judgments"


def anchor(a: np.ndarray, b: np.ndarray, trials: int, rng: np.random.Generator) -> None:
    """The anchor: scipy's kendalltau of the means of ``trials`` topic resamples of both cubes, every measure."""
    from scipy import stats

    for m in range(a.shape[0]):
        for _ in range(trials):
            x = a[m][rng.integers(0, a.shape[1], a.shape[1])].mean(axis=0)
            y = b[m][rng.integers(0, b.shape[1], b.shape[1])].mean(axis=0)
            stats.kendalltau(x, y)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llm-data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=3)
    ap.add_argument("--anchor-trials", type=int, default=50)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_disjoint.json"))
    args = ap.parse_args(argv)
    folder = Path(args.llm_data) / "dl21"
    warnings.simplefilter("ignore", UndefinedStatisticWarning)
    clock = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nist = meta.evaluate(folder / "runs", folder / "qrels.nist.txt", table1(), progress=False)
        gpt4 = meta.evaluate(folder / "runs", folder / "qrels.gpt4.txt", table1(), progress=False)
    print(f"scoring 63 runs x 39 measures under both qrels (not counted): {time.perf_counter() - clock:.1f} s")

    def ours(n_jobs=None):
        return meta.disjoint_agreement(nist, gpt4, bootstrap=1000, null_trials=1000, seed=0, n_jobs=n_jobs)

    t_ours, runs_ours, result = timed(ours, args.repeat)
    t_two, runs_two, parallel = timed(lambda: ours(2), args.repeat)
    assert result.agreement.equals(parallel.agreement)
    print(f"disjoint_agreement, 63 runs x 39 measures, 53 vs 424 topics, 1000 + 1000 replicates: median "
          f"{t_ours:.2f} s in-process ({', '.join(f'{t:.2f}' for t in runs_ours)}), {t_two:.2f} s on 2 processes "
          "(the same numbers); target < 60 s")
    a, b = meta.to_cube(nist).values, meta.to_cube(gpt4).values
    rng = np.random.default_rng(0)
    t_anchor = timed(lambda: anchor(a, b, args.anchor_trials, rng), 1)[0] * 2000 / args.anchor_trials
    print(f"anchor (scipy.stats.kendalltau of numpy-resampled means, tau only): ~{t_anchor:.1f} s for 2000 "
          f"replicates x 39 measures (from {args.anchor_trials}) -> {t_anchor / t_ours:.2f}x ours, which also "
          "computes tau_AP")
    return save({"ours_median_s": t_ours, "ours_runs_s": runs_ours, "ours_2_processes_median_s": t_two,
                 "ours_2_processes_runs_s": runs_two, "anchor_tau_only_estimated_s": t_anchor,
                 "anchor_over_ours": t_anchor / t_ours}, args.out)


if __name__ == "__main__":
    main()
