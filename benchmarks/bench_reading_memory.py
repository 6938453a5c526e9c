"""Peak memory and time of reading a skewed run, as whole processes (issue 28).

A generated run of about 1.1 million lines: one topic of 1,000,000 documents among 100 topics
(the other 99 with 1,011 each; about 37 MB), and qrels judging 500 documents of each topic
(grades 0-3, a few not retrieved). Each contender is one fresh Python process measured by
``/usr/bin/time -v`` (its maximum resident set size and wall clock time, start-up included):

- ``io.read_trec_run`` alone (every rule checked, duplicates looked for);
- ``meta.evaluate`` with RBP_ERG (``CWLA(C='RBP', A='ERG')``, every rank) on the run and qrels;
- pytrec_eval's ``map`` on the same files (``parse_qrel``, ``parse_run``, ``RelevanceEvaluator``):
  the anchor.

The contenders run in turn, the order rotated each round; the median and the spread of the
rounds are kept. Targets: peak memory at most the anchor's, time at most 1.2 times its.

    python benchmarks/bench_reading_memory.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from common import save  # benchmarks/ is on sys.path when run as a script

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

TOPICS = 100
BIG = 1_000_000
SMALL = 1_011
JUDGED = 500


def write_files(into: Path, seed: int = 28) -> tuple[Path, Path, int]:
    """The skewed run and its qrels, deterministic; returns their paths and the run's line count."""
    rng = np.random.default_rng(seed)
    run, qrels = into / "skewed.run", into / "skewed.qrels"
    lines = 0
    with open(run, "w") as r, open(qrels, "w") as q:
        for topic in range(1, TOPICS + 1):
            n = BIG if topic == 1 else SMALL
            scores = np.sort(rng.normal(10.0, 3.0, n))[::-1]
            docs = rng.permutation(10 * n)[:n]
            r.write("".join(f"{topic} Q0 d{d} {i + 1} {s:.6f} bench\n" for i, (d, s) in enumerate(zip(docs.tolist(),
                                                                                                      scores.tolist()))))
            lines += n
            judged = np.r_[docs[rng.choice(n, JUDGED - 20, replace=False)], 10 * n + np.arange(20)]
            grades = rng.choice(4, JUDGED, p=[0.6, 0.2, 0.15, 0.05])
            q.write("".join(f"{topic} 0 d{d} {g}\n" for d, g in zip(judged.tolist(), grades.tolist())))
    return run, qrels, lines


CONTENDERS = {
    "io.read_trec_run": "from ir_cwla import io; io.read_trec_run({run!r})",
    "meta.evaluate RBP_ERG": ("from ir_cwla import CWLA, meta; meta.evaluate({{'run': {run!r}}}, {qrels!r}, "
                              "[CWLA(C='RBP', A='ERG')], progress=False)"),
    "pytrec_eval map": ("import pytrec_eval; q = pytrec_eval.parse_qrel(open({qrels!r})); "
                        "r = pytrec_eval.parse_run(open({run!r})); "
                        "pytrec_eval.RelevanceEvaluator(q, {{'map'}}).evaluate(r)"),
}
ANCHOR = "pytrec_eval map"


def measured(code: str) -> tuple[float, float]:
    """(wall seconds, peak resident megabytes) of ``python -c code`` by /usr/bin/time -v."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(f"failed: {code}\n{done.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    hours, minutes, seconds = int(wall.group(1) or 0), int(wall.group(2)), float(wall.group(3))
    return hours * 3600 + minutes * 60 + seconds, rss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", "--repeats", dest="repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run, qrels, lines = write_files(Path(tmp))
        size = run.stat().st_size
        print(f"run: {lines:,} lines, {size / 1e6:.1f} MB; qrels: {TOPICS * JUDGED:,} lines")
        names = list(CONTENDERS)
        rounds: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
        for r in range(args.repeats):
            for name in names[r % len(names):] + names[:r % len(names)]:
                rounds[name].append(measured(CONTENDERS[name].format(run=str(run), qrels=str(qrels))))
    anchor_wall = statistics.median(w for w, _ in rounds[ANCHOR])
    anchor_rss = statistics.median(m for _, m in rounds[ANCHOR])
    result: dict = {"lines": lines, "bytes": size, "repeats": args.repeats, "contenders": {}}
    print("| contender | wall (median) | spread | peak RSS (median) | spread | wall / anchor | RSS / anchor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in names:
        walls, rss = [w for w, _ in rounds[name]], [m for _, m in rounds[name]]
        wall, mem = statistics.median(walls), statistics.median(rss)
        result["contenders"][name] = {"wall_s": walls, "max_rss_mb": rss, "median_wall_s": wall, "median_rss_mb": mem}
        print(f"| {name} | {wall:.2f} s | {min(walls):.2f}-{max(walls):.2f} | {mem:,.0f} MB | {min(rss):,.0f}-"
              f"{max(rss):,.0f} | {wall / anchor_wall:.2f} | {mem / anchor_rss:.2f} |")
    save(result, HERE / "out" / "bench_reading_memory.json")


if __name__ == "__main__":
    main()
