"""Scale: time and peak memory of whole command lines on large runs, side by side in one run.

Two synthetic collections, written once to ``benchmarks/out/scale/`` (TREC files):

1. ``wide``: 5,000 topics x 1,000 documents (5,000,000 lines), ~60 graded judgments per topic;
2. ``skewed``: 100 topics, one with 1,000,000 documents and 99 with 1,000 (1,099,000 lines).

Each tool runs in its own process (so its peak resident memory is its own), reading the files:

- ``ir-cwla eval`` with the 39 Table-1 measures (``wide``), and with RBP, INST and AP under
  ``tail='pad'`` without a cutoff (``skewed``: every topic's whole ranking is looked at);
- pytrec_eval through ir-measures' command line: P@10, nDCG@10, AP, RR@10 (``wide``), AP
  (``skewed``);
- ranx: precision@10, ndcg@10, map, mrr@10 (``wide``), map (``skewed``); run twice, the
  second time warm (numba's compiled functions cached).

Usage: python benchmarks/bench_scale_engine.py [--repeats 1] [--baseline ../old-checkout]
Writes benchmarks/out/bench_scale_engine.json and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
from common import save  # benchmarks/ is on sys.path when run as a script

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "scale"

MEASURE = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
elapsed = time.perf_counter() - t
if proc.returncode:
    sys.exit(proc.stderr[-2000:])
print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""

RANX = r"""
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(qrels, run, sys.argv[3].split(",")))
"""


def write_collection(name: str, sizes: np.ndarray, judged: int, seed: int) -> tuple[Path, Path]:
    """A synthetic run of ``sizes[t]`` documents per topic, with its qrels.

    A run with ``sizes[t]`` documents for topic t, and qrels judging ``judged`` of each topic's
    first documents (grades 0-3) plus 5 documents no run retrieved.
    """
    run_path, qrels_path = OUT / f"{name}.run", OUT / f"{name}.qrels"
    if run_path.exists() and qrels_path.exists():
        return run_path, qrels_path
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    topics = np.repeat(np.arange(len(sizes)), sizes)
    rank = np.arange(len(topics)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    doc = rng.integers(0, 10**8, len(topics))
    frame = pd.DataFrame({"q": topics, "q0": "Q0", "doc": [f"D{d}" for d in doc], "rank": rank + 1,
                          "score": np.round(-rank + rng.normal(0, 3, len(rank)), 3), "tag": "synthetic"})
    frame = frame.drop_duplicates(["q", "doc"])
    frame.to_csv(run_path, sep=" ", header=False, index=False)
    pool = frame.groupby("q").head(judged)
    extra = pd.DataFrame({"q": np.repeat(np.arange(len(sizes)), 5), "doc": [f"U{i}" for i in range(5 * len(sizes))]})
    qrels = pd.concat([pool[["q", "doc"]], extra])
    qrels.insert(1, "it", 0)
    qrels["grade"] = rng.choice([0, 0, 0, 1, 1, 2, 3], len(qrels))
    qrels.to_csv(qrels_path, sep=" ", header=False, index=False)
    return run_path, qrels_path


def measure(cmd: list[str], cwd: Optional[str] = None) -> tuple[float, float]:
    """(seconds, peak resident MB) of a command run in a fresh child process (in ``cwd``)."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, cwd=cwd)
    if out.returncode:
        raise SystemExit(f"{cmd[:3]} failed: {out.stderr}")
    seconds, kb = out.stdout.split()
    return float(seconds), int(kb) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", "--repeats", dest="repeats", type=int, default=1, help="runs of each command (the fastest is kept)")
    ap.add_argument("--baseline", metavar="DIR",
                    help="a checkout of an earlier ir_cwla (e.g. `git worktree add --detach ../old 1dfafe1`): its "
                         "`python -m ir_cwla eval` runs the same commands, for a before/after in one run")
    args = ap.parse_args()
    import ir_cwla

    cli = [sys.executable, "-m", "ir_cwla", "eval"]
    wide = write_collection("wide", np.full(5000, 1000), judged=60, seed=1)
    skewed = write_collection("skewed", np.r_[1_000_000, np.full(99, 1000)], judged=60, seed=2)
    table1 = [ir_cwla.short_name(m) for m in ir_cwla.table1()]
    # the full form, which every version of ir-cwla reads (the short names are newer than some)
    pad = [str(ir_cwla.CWLA(C=c, A="ERG", tail="pad")) for c in ("RBP", "INST", "AP")]
    irm = [sys.executable, "-m", "ir_measures"]
    cases = {
        ("wide", "ir-cwla eval, 39 Table-1 measures @10"): cli + [str(wide[1]), str(wide[0]), "-m", *table1],
        ("wide", "pytrec_eval (ir_measures CLI): P@10 nDCG@10 AP RR@10"):
            irm + [str(wide[1]), str(wide[0]), "P@10 nDCG@10 AP RR@10"],
        ("wide", "ranx (warm): precision@10 ndcg@10 map mrr@10"):
            [sys.executable, "-c", RANX, str(wide[1]), str(wide[0]), "precision@10,ndcg@10,map,mrr@10"],
        ("skewed", "ir-cwla eval, RBP INST AP ERG under 'pad', no cutoff"): cli + [str(skewed[1]), str(skewed[0]), "-m", *pad],
        ("skewed", "pytrec_eval (ir_measures CLI): AP"): irm + [str(skewed[1]), str(skewed[0]), "AP"],
        ("skewed", "ranx (warm): map"): [sys.executable, "-c", RANX, str(skewed[1]), str(skewed[0]), "map"],
    }
    cwd: dict[tuple[str, str], Optional[str]] = {key: None for key in cases}
    if args.baseline:
        for (collection, label), cmd in list(cases.items()):
            if label.startswith("ir-cwla"):
                key = (collection, f"{label} -- baseline {Path(args.baseline).name}")
                cases[key], cwd[key] = cmd, str(Path(args.baseline).resolve())
    results = {}
    for (collection, label), cmd in cases.items():
        if "ranx" in label:
            measure(cmd)                      # compile and cache numba's functions
        best = min((measure(cmd, cwd[(collection, label)]) for _ in range(args.repeats)), key=lambda x: x[0])
        results[f"{collection}: {label}"] = {"seconds": best[0], "peak_mb": best[1]}
        print(f"{collection:7s} {label:58s} {best[0]:7.2f} s {best[1]:8.0f} MB", flush=True)
    print("\n| collection | tool | time (s) | peak memory (MB) |\n|---|---|---:|---:|")
    for key, r in results.items():
        collection, label = key.split(": ", 1)
        print(f"| {collection} | {label} | {r['seconds']:.2f} | {r['peak_mb']:.0f} |")
    save({"results": results, "lines": {"wide": 5_000_000, "skewed": 1_099_000}},
         HERE / "out" / "bench_scale_engine.json")


if __name__ == "__main__":
    main()
