"""Speed of the CWLA measures against the tools people use today, timed in one run.

1. All 39 Table-1 measures for all 37 DL19 passage runs, from the run files (read + rank +
   score), against ir-measures' trec_eval backend (pytrec_eval) for [P@10, nDCG@10, AP,
   RR@10] on the same runs in the same process: both with ir-measures' own TREC reader (what
   a user writes) and with the same pandas reader as ours (the scoring alone).
2. Per run, against cwl_eval's command line on its default 16 metrics (gains x/x_max).

Usage: python benchmarks/bench_cwla.py [--data ../shared/data/trec-dl-2019-passage]
Writes benchmarks/out/bench_cwla.json and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ir_measures
from common import save  # benchmarks/ is on sys.path when run as a script
from ir_measures import AP, RR, P, nDCG

import ir_cwla

HERE = Path(__file__).resolve().parent


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "trec-dl-2019-passage"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cwl-runs", type=int, default=3, help="runs timed with cwl_eval (each takes seconds)")
    args = ap.parse_args()
    data = Path(args.data)
    qrels_path = data / "qrels.dl19-passage.txt"
    run_paths = sorted((data / "runs").glob("input.*.gz"))
    if not run_paths:
        sys.exit(f"no runs under {data}/runs")
    qrels = ir_cwla.io.read_trec_qrels(qrels_path)
    table1 = ir_cwla.table1()
    trec_measures = [P@10, nDCG@10, AP, RR@10]

    def ours_from_files():
        ev = ir_measures.evaluator(table1, ir_cwla.io.read_trec_qrels(qrels_path))
        for path in run_paths:
            ev.calc_aggregate(ir_cwla.io.read_trec_run(path))

    def trec_eval_irm_reader():
        ev = ir_measures.pytrec_eval.evaluator(trec_measures, ir_measures.read_trec_qrels(str(qrels_path)))
        for path in run_paths:
            ev.calc_aggregate(ir_measures.read_trec_run(str(path)))

    def trec_eval_pandas_reader():
        ev = ir_measures.pytrec_eval.evaluator(trec_measures, ir_cwla.io.read_trec_qrels(qrels_path))
        for path in run_paths:
            ev.calc_aggregate(ir_cwla.io.read_trec_run(path))

    ours_from_files()   # warm caches and imports, for every contender alike
    trec_eval_pandas_reader()
    t_ours = best_of(ours_from_files, args.repeats)
    t_te_irm = best_of(trec_eval_irm_reader, args.repeats)
    t_te_pd = best_of(trec_eval_pandas_reader, args.repeats)

    # cwl_eval: its CLI wants gains in [0, 1]: write the qrels as x / x_max
    x_max = qrels["relevance"].max()
    with tempfile.TemporaryDirectory() as tmp:
        gain_file = Path(tmp) / "gains.txt"
        g = qrels.assign(it="0", gain=qrels["relevance"].clip(lower=0) / x_max)
        g[["query_id", "it", "doc_id", "gain"]].to_csv(gain_file, sep=" ", header=False, index=False)
        cwl_bin = Path(sys.executable).with_name("cwl-eval")
        cwl_times = []
        for path in run_paths[: args.cwl_runs]:
            plain = Path(tmp) / path.stem
            plain.write_text(ir_cwla.io._open_text(path).read())
            t0 = time.perf_counter()
            subprocess.run([str(cwl_bin), str(gain_file), str(plain)], check=True, capture_output=True)
            cwl_times.append(time.perf_counter() - t0)
    t_cwl_per_run = sum(cwl_times) / len(cwl_times)
    t_ours_per_run = t_ours / len(run_paths)

    result = {
        "runs": len(run_paths), "topics": int(qrels["query_id"].nunique()),
        "ours_39_measures_s": t_ours,
        "trec_eval_4_measures_irm_reader_s": t_te_irm,
        "trec_eval_4_measures_pandas_reader_s": t_te_pd,
        "ratio_ours_over_trec_eval_irm_reader": t_ours / t_te_irm,
        "ratio_ours_over_trec_eval_pandas_reader": t_ours / t_te_pd,
        "cwl_eval_16_measures_per_run_s": t_cwl_per_run,
        "ours_39_measures_per_run_s": t_ours_per_run,
        "speedup_per_run_vs_cwl_eval": t_cwl_per_run / t_ours_per_run,
    }
    save(result, HERE / "out" / "bench_cwla.json")
    print(f"| what ({len(run_paths)} DL19 runs x {result['topics']} topics) | wall time | ratio |")
    print("|---|---:|---:|")
    print(f"| ir_cwla, 39 Table-1 measures, from the run files | {t_ours:.2f} s | 1 |")
    print(f"| trec_eval (ir-measures), P@10 nDCG@10 AP RR@10, ir-measures reader | {t_te_irm:.2f} s | "
          f"ours / this = {t_ours / t_te_irm:.2f} |")
    print(f"| trec_eval (ir-measures), same 4, pandas reader | {t_te_pd:.2f} s | ours / this = {t_ours / t_te_pd:.2f} |")
    print(f"| cwl_eval CLI, 16 default metrics, per run | {t_cwl_per_run:.2f} s | "
          f"{result['speedup_per_run_vs_cwl_eval']:.0f}x slower than ir_cwla per run ({t_ours_per_run * 1000:.1f} ms) |")


if __name__ == "__main__":
    main()
