"""Benchmark: the user criteria on the image-search study (1,119 rated queries of 36 users).

1. ``score_gains`` of the 1,119 result pages under the paper's 39 measures, then
   ``meta.user_agreement`` (Pearson, Spearman, Kendall tau-b, 2,000 cluster-bootstrap replicates over
   the users, the comparisons of measures within each browsing model) and ``meta.fit_user_model``
   (RBP's p, INST's T, DCG's cut-off on a 20-point grid under 7 aggregations, 2,000 replicates for the
   bands, 10 x 5-fold cross-validation over users). Target: under 20 s together.
2. Anchor, in the same run: scipy.stats' own bootstrap (``scipy.stats.bootstrap``, paired, percentile
   intervals, 2,000 resamples of the queries, no clusters: scipy has none) of ``pearsonr``,
   ``spearmanr`` and ``kendalltau`` for ``--anchor-measures`` of the 39 measures, scaled to 39.

    python benchmarks/bench_users.py [--data ../shared/data/user-satisfaction/image-search] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
from common import save, timed  # benchmarks/ is on sys.path when run as a script

import ir_cwla
from ir_cwla import meta
from ir_cwla.datasets.image_search import read_image_search

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "user-satisfaction" \
    / "image-search"


def criterion(pages, ratings, trials: int, points: int) -> tuple[float, float, float]:
    """Seconds of (scoring the pages, user_agreement, fit_user_model)."""
    t0 = time.perf_counter()
    per_query = ir_cwla.score_gains(pages, ir_cwla.table1())
    t1 = time.perf_counter()
    meta.user_agreement(per_query, ratings, trials=trials, seed=0, groups=meta.browsing_model)
    t2 = time.perf_counter()
    meta.fit_user_model(pages, ratings, points=points, trials=trials, seed=0)
    return t1 - t0, t2 - t1, time.perf_counter() - t2


def anchor(pages, ratings, trials: int, measures: int) -> float:
    """Seconds of scipy.stats.bootstrap of the three correlations for ``measures`` measures."""
    from scipy import stats

    per_query = ir_cwla.score_gains(pages, ir_cwla.table1()[:measures])
    wide = per_query.pivot(index="qid", columns="measure", values="value").loc[ratings["qid"]]
    y = ratings["rating"].to_numpy(dtype=float)
    t0 = time.perf_counter()
    for m in wide.columns:
        x = wide[m].to_numpy()
        for statistic in (lambda a, b: stats.pearsonr(a, b)[0], lambda a, b: stats.spearmanr(a, b)[0],
                          lambda a, b: stats.kendalltau(a, b)[0]):
            stats.bootstrap((x, y), statistic, paired=True, vectorized=False, n_resamples=trials,
                            method="percentile", random_state=np.random.default_rng(0))
    return time.perf_counter() - t0


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=3)
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--anchor-measures", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_users.json"))
    args = ap.parse_args(argv)
    pages, ratings = read_image_search(args.data)
    warnings.simplefilter("ignore")
    criterion(pages, ratings, 20, 4)                       # imports (scipy.stats, matplotlib's not) and caches
    median_total, runs, parts = timed(lambda: criterion(pages, ratings, args.trials, args.points), args.repeat)
    t_scoring, t_agreement, t_fit = parts
    print(f"score_gains 1,119 pages x 39 measures, user_agreement ({args.trials} replicates) and fit_user_model "
          f"({args.points}-point grids): median {median_total:.2f} s over {args.repeat} runs "
          f"({', '.join(f'{t:.2f}' for t in runs)}); last run: scoring {t_scoring:.2f} s, agreement "
          f"{t_agreement:.2f} s, fit {t_fit:.2f} s")
    t_anchor = anchor(pages, ratings, args.trials, args.anchor_measures)
    scaled = t_anchor * 39 / args.anchor_measures
    print(f"anchor: scipy.stats.bootstrap of pearsonr, spearmanr, kendalltau ({args.trials} resamples) for "
          f"{args.anchor_measures} measures {t_anchor:.2f} s, scaled to 39: {scaled:.1f} s; user_agreement "
          f"{t_agreement:.2f} s, {scaled / t_agreement:.1f}x faster (and it also draws the clusters, compares "
          f"the measures and gives every interval)")
    return save({"trials": args.trials, "points": args.points, "median_total_s": median_total,
                 "runs_s": runs, "last_run_s": {"scoring": t_scoring, "agreement": t_agreement, "fit": t_fit},
                 "anchor_s": t_anchor, "anchor_measures": args.anchor_measures,
                 "anchor_scaled_to_39_s": scaled, "ratio_anchor_over_agreement": scaled / t_agreement}, args.out)


if __name__ == "__main__":
    main()
