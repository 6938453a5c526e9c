"""Benchmark: 33 LLM judges' label agreement with NIST (the LLMJudge challenge, DL 2023 passages).

1. ``meta.label_agreement(human, {33 label sets}, trials=2000)`` (per topic and overall, 7
   statistics, 2000 topic resamples and 2000 pair resamples per topic) and ``meta.judge_ranking``
   of its result (the joint bootstrap of the ranking statistic, rank intervals, the simultaneous
   test), from the files. Target (issue 32): under 30 s.
2. Anchor, in the same run: scikit-learn's ``cohen_kappa_score`` (3 weightings) and the
   ``krippendorff`` package's ordinal alpha on every (judge, topic) and overall: the point
   estimates alone, and the same on ``--anchor-trials`` bootstrap replicates of every comparison,
   scaled to 2000 trials.

    python benchmarks/bench_judges.py [--llm-data ../shared/data/llm-judgments] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import numpy as np
from bench_labels import anchor  # the same anchor: scikit-learn and krippendorff on every comparison
from common import save, timed  # benchmarks/ is on sys.path when run as a script

from ir_cwla import io, meta
from ir_cwla.errors import InputWarning, UndefinedStatisticWarning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "llm-judgments"
#: Two of the 33 label sets have a grade outside NIST's 0-3 (a 5 and a 10): mapped to 3.
GRADE_MAP = {5: 3, 10: 3}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llm-data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=3)
    ap.add_argument("--anchor-trials", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_judges.json"))
    args = ap.parse_args(argv)
    folder = Path(args.llm_data) / "llmjudge-dl23"
    warnings.simplefilter("ignore", UndefinedStatisticWarning)
    warnings.simplefilter("ignore", InputWarning)

    def ours():
        agreement = meta.label_agreement(folder / "human.txt", meta.read_judges(folder / "labels"), trials=2000,
                                         seed=0, reference_name="NIST", grade_map=GRADE_MAP)
        return meta.judge_ranking(agreement)

    t_ours, runs_ours, ranking = timed(ours, args.repeat)
    print(f"label_agreement + judge_ranking, 33 judges x 4,423 pairs, 2000 resamples: median {t_ours:.2f} s "
          f"({', '.join(f'{t:.2f}' for t in runs_ours)}); target < 30 s")
    human = io.read_trec_qrels(folder / "human.txt")
    pairs = {}
    for name, frame in meta.read_judges(folder / "labels").items():
        shared = human.merge(frame, on=["query_id", "doc_id"])
        shared["relevance_y"] = shared["relevance_y"].clip(upper=3)
        pairs[name] = {q: (part["relevance_x"].to_numpy(), part["relevance_y"].to_numpy())
                       for q, part in shared.groupby("query_id", sort=True)}
    rng = np.random.default_rng(0)
    t_point = timed(lambda: anchor(pairs, 0, rng), 1)[0]
    t_boot = timed(lambda: anchor(pairs, args.anchor_trials, rng), 1)[0] * 2000 / args.anchor_trials
    print(f"anchor (scikit-learn kappa x3 + krippendorff ordinal alpha): point estimates only {t_point:.2f} s "
          f"({t_point / t_ours:.2f}x ours with 2000 resamples); with 2000 resamples ~{t_boot:.0f} s (from "
          f"{args.anchor_trials} resamples) -> {t_boot / t_ours:.0f}x ours")
    print(ranking.table().head(5)[["rank", "alternative", "kappa_quadratic", "rank_low", "rank_high"]].round(3)
          .to_string(index=False))
    return save({"ours_median_s": t_ours, "ours_runs_s": runs_ours, "anchor_point_estimates_s": t_point,
                 "anchor_bootstrap_2000_estimated_s": t_boot, "speedup_vs_anchor_bootstrap": t_boot / t_ours,
                 "point_estimates_over_ours": t_point / t_ours}, args.out)


if __name__ == "__main__":
    main()
