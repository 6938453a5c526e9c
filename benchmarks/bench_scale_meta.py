"""Benchmark: meta-evaluation at scale (issue 14, item 6, the meta-evaluation part).

1. A synthetic per-query frame of 200 systems x 2,000 topics x the 39 Table-1 measures (15.6 M
   rows, the shape of ``pt.Experiment(..., perquery=True)``; see :func:`synthetic_frame`):
   wall time and peak memory of similarity, consistency (1000 splits + 2000-trial Tukey HSD
   per browsing model) and discriminative power (2000-trial Tukey HSD), each in a fresh
   process, from the frame to the tables.
2. ``meta.discriminative_power(trials=10**7)`` on TREC DL 2019 passage (37 runs x 43 topics x
   39 measures, from ``meta.evaluate`` over the run files): peak memory (must stay < 1 GB:
   the trials are counted chunk by chunk, never kept) and wall time.

Peak memory is the resident set's high-water mark (``VmHWM``), reset after the frame is built
(``/proc/self/clear_refs``), so it is the analysis' peak including the frame it reads; the
frame's own resident size is reported apart. Every part runs in its own process.

    python benchmarks/bench_scale_meta.py [--data ../shared/data/trec-dl-2019-passage] [--dl19-trials 10000000]
                                          [--skip-dl19] [--skip-synthetic]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from common import save  # benchmarks/ is on sys.path when run as a script

from ir_cwla import meta, table1

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"
SYSTEMS, TOPICS = 200, 2000
ANALYSES = ("similarity", "consistency", "discriminative_power")


def synthetic_frame(n_systems: int = SYSTEMS, n_topics: int = TOPICS, seed: int = 0) -> pd.DataFrame:
    """A per-query frame with the structure of real ones, under the 39 Table-1 measure names.

    Score of system s on topic t under measure m: ``clip(q_s + d_t + i_ts + e_mts, 0, 1)``
    with system quality q, topic difficulty d, a system-topic interaction i shared by all
    measures (so measures agree, as they do) and measure noise e whose scale grows with the
    measure's index (so they do not agree perfectly); a quarter of the topics are hard
    (many zeros), and measures with a cutoff of 10 take multiples of 0.1 (ties, as P@10 has).
    """
    rng = np.random.default_rng(seed)
    names = [str(m) for m in table1()]
    quality = np.sort(rng.normal(0.35, 0.08, n_systems))
    difficulty = rng.normal(0.0, 0.15, n_topics) - 0.3 * (rng.random(n_topics) < 0.25)
    latent = quality[None, :] + difficulty[:, None] + rng.normal(0, 0.12, (n_topics, n_systems))
    systems = np.array([f"run{s:03d}" for s in range(n_systems)], dtype=object)
    topics = np.array([str(100000 + 37 * t) for t in range(n_topics)], dtype=object)
    columns = {"name": [], "qid": [], "measure": [], "value": []}
    for m, name in enumerate(names):
        score = np.clip(latent + rng.normal(0, 0.02 + 0.004 * m, latent.shape), 0.0, 1.0)
        if name.endswith("@10"):
            score = np.round(score * 10) / 10
        columns["name"].append(np.tile(systems, n_topics))
        columns["qid"].append(np.repeat(topics, n_systems))
        columns["measure"].append(np.full(n_topics * n_systems, name, dtype=object))
        columns["value"].append(score.ravel())
    return pd.DataFrame({k: np.concatenate(v) for k, v in columns.items()})


def dl19_frame(data: Path) -> pd.DataFrame:
    return meta.evaluate(data / "runs", data / "qrels.dl19-passage.txt", table1(), progress=False)


# -- one part, in its own process ---------------------------------------------------------
def _memory_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    """Resets VmHWM to the current resident size (Linux >= 4.0); False where it cannot."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def run_part(part: str, args: argparse.Namespace) -> dict:
    t0 = time.perf_counter()
    frame = dl19_frame(Path(args.data)) if part == "dl19" else synthetic_frame()
    build_s = time.perf_counter() - t0
    frame_rss = _memory_kb("VmRSS")
    reset = _reset_peak()
    caught: list[str] = []
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if part == "similarity":
            meta.similarity(frame, groups=meta.browsing_model).table()
        elif part == "consistency":
            meta.consistency(frame, trials=1000, test_trials=2000, seed=0, groups=meta.browsing_model,
                             progress=False).table()
        elif part == "discriminative_power":
            meta.discriminative_power(frame, trials=2000, seed=0, groups=meta.browsing_model, progress=False).table()
        elif part == "dl19":
            meta.discriminative_power(frame, trials=args.dl19_trials, seed=0, n_jobs=args.n_jobs,
                                      progress=False).table()
        caught = [f"{w.category.__name__}: {w.message}" for w in seen]
    seconds = time.perf_counter() - t0
    peak = _memory_kb("VmHWM")
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss   # the largest worker process, if any
    return {"largest_worker_peak_rss_mb": children / 1024, "part": part, "rows": len(frame), "build_s": build_s, "seconds": seconds, "frame_rss_mb": frame_rss / 1024,
            "peak_rss_mb": peak / 1024, "peak_is_analysis_only": reset, "warnings": caught}


def in_subprocess(part: str, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, __file__, "--part", part, "--data", str(args.data), "--dl19-trials", str(args.dl19_trials)]
    if args.n_jobs is not None:
        cmd += ["--n-jobs", str(args.n_jobs)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=1, help="accepted for run_all.py; every part runs once")
    ap.add_argument("--dl19-trials", type=int, default=10**7)
    ap.add_argument("--n-jobs", type=int, default=None, help="workers for the DL19 part (default in-process)")
    ap.add_argument("--skip-dl19", action="store_true")
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--part", choices=[*ANALYSES, "dl19"], help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_scale_meta.json"))
    args = ap.parse_args(argv)
    if args.part:
        print(json.dumps(run_part(args.part, args)))
        return {}

    result: dict = {"systems": SYSTEMS, "topics": TOPICS, "measures": len(table1())}
    print("| part | wall time | peak RSS (frame alone) |\n|---|---:|---:|")
    parts = ([] if args.skip_synthetic else list(ANALYSES)) + ([] if args.skip_dl19 else ["dl19"])
    for part in parts:
        r = result[part] = in_subprocess(part, args)
        what = (f"DL19 discriminative power, {args.dl19_trials:,} trials" if part == "dl19"
                else f"{part}, {SYSTEMS} x {TOPICS} x {result['measures']} ({r['rows']:,} rows)")
        print(f"| {what} | {r['seconds']:.1f} s | {r['peak_rss_mb']:.0f} MB ({r['frame_rss_mb']:.0f} MB) |")
        for w in r["warnings"]:
            print(f"|  warned: {w} | | |")
    return save(result, args.out)


if __name__ == "__main__":
    main()
