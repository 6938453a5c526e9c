"""Benchmark: label agreement of NIST's DL19 passage qrels with the 8 re-annotation files.

1. ``meta.label_agreement(nist, {8 files}, trials=1000)``: per topic and overall, 7 statistics
   with bootstrap intervals (1000 topic resamples and 1000 pair resamples per topic), from the
   files (read included) and from frames read before. Target: well under 1-2 s.
2. Anchor, in the same run: the point estimates alone (no bootstrap) of kappa (3 weightings,
   scikit-learn's ``cohen_kappa_score``) and ordinal alpha (the ``krippendorff`` package) per
   topic and overall, and the same computed on ``--anchor-trials`` bootstrap replicates of
   every comparison, scaled to 1000 trials.

    python benchmarks/bench_labels.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import numpy as np
from common import save, timed  # benchmarks/ is on sys.path when run as a script

from ir_cwla import io, meta
from ir_cwla.errors import UndefinedStatisticWarning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "judged_both" / "data")) / "trec-dl-2019-passage"


def anchor(pairs: dict, replicates: int, rng: np.random.Generator) -> None:
    """The anchor: scikit-learn + krippendorff on every (alternative, topic) and overall.

    scikit-learn + krippendorff on every (alternative, topic) and overall, ``replicates`` times
    (0: the point estimates only; else pair resamples per topic and topic resamples overall).
    """
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    def stats(a, b):
        if len(np.union1d(a, b)) < 2:
            return
        for w in (None, "linear", "quadratic"):
            cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights=w)
        krippendorff.alpha(np.array([a, b], dtype=float), level_of_measurement="ordinal")

    for by_topic in pairs.values():
        topics = list(by_topic)
        for _ in range(max(1, replicates)):
            for a, b in by_topic.values():
                i = rng.integers(0, len(a), len(a)) if replicates else slice(None)
                stats(a[i], b[i])
            drawn = rng.integers(0, len(topics), len(topics)) if replicates else range(len(topics))
            stats(np.concatenate([by_topic[topics[t]][0] for t in drawn]),
                  np.concatenate([by_topic[topics[t]][1] for t in drawn]))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=5)
    ap.add_argument("--anchor-trials", type=int, default=20)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_labels.json"))
    args = ap.parse_args(argv)
    data = Path(args.data)
    nist_path = data / "qrels.dl19-passage.txt"
    paths = {f"group{g}-{x}": data / "reannotation" / f"group{g}-assessor-{x}.txt" for g in range(1, 5) for x in "ab"}
    warnings.simplefilter("ignore", UndefinedStatisticWarning)

    t_files, runs_files, result = timed(lambda: meta.label_agreement(nist_path, paths, trials=1000, seed=0),
                                        args.repeat)
    nist = io.read_trec_qrels(nist_path)
    frames = {k: io.read_trec_qrels(p) for k, p in paths.items()}
    t_frames, runs_frames, _ = timed(lambda: meta.label_agreement(nist, frames, trials=1000, seed=0), args.repeat)
    print(f"label_agreement, NIST vs 8 files, 1000 trials: median {t_files:.3f} s from the files "
          f"({', '.join(f'{t:.3f}' for t in runs_files)}), {t_frames:.3f} s from frames")

    pairs = {}
    for name, frame in frames.items():
        shared = nist.merge(frame, on=["query_id", "doc_id"])
        pairs[name] = {q: (part["relevance_x"].to_numpy(), part["relevance_y"].to_numpy())
                       for q, part in shared.groupby("query_id", sort=True)}
    rng = np.random.default_rng(0)
    t_point = timed(lambda: anchor(pairs, 0, rng), args.repeat)[0]
    t_boot = timed(lambda: anchor(pairs, args.anchor_trials, rng), 1)[0] * 1000 / args.anchor_trials
    print(f"anchor (scikit-learn kappa x3 + krippendorff ordinal alpha): point estimates only {t_point:.3f} s "
          f"({t_point / t_frames:.2f}x ours with 1000 trials); with 1000 bootstrap trials ~{t_boot:.0f} s "
          f"(from {args.anchor_trials} trials) -> {t_boot / t_frames:.0f}x")
    overall = result.table()
    print(overall[["alternative", "judged_both", "exact", "kappa", "kappa_quadratic", "alpha_ordinal"]]
          .round(3).to_string(index=False))
    return save({"label_agreement_files_median_s": t_files, "label_agreement_files_runs_s": runs_files,
                 "label_agreement_frames_median_s": t_frames, "label_agreement_frames_runs_s": runs_frames,
                 "anchor_point_estimates_s": t_point, "anchor_bootstrap_1000_estimated_s": t_boot,
                 "speedup_vs_anchor_bootstrap": t_boot / t_frames}, args.out)


if __name__ == "__main__":
    main()
