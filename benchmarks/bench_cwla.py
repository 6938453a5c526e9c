"""Speed of the CWLA measures against the tools people use today, timed in one run.

1. All 39 Table-1 measures for all 37 DL19 passage runs, from the run files (read + rank +
   score), alone and together with their 39 residuals (``unjudged='residual'``), against
   ir-measures' trec_eval backend (pytrec_eval) for [P@10, nDCG@10, AP, RR@10] on the same
   runs in the same process: both with ir-measures' own TREC reader (what a user writes) and
   with the same pandas reader as ours (the scoring alone); then, as a second harness, ours and
   trec_eval (ir-measures' reader) timed alternately, the median of each pair's ratio (--pairs).
2. Per run, against cwl_eval's command line on its default 16 metrics (gains x/x_max).
3. Per run, ``ir-cwla cwl`` against ``cwl-eval``, both command lines on the same gain and run
   files (the run written in trec_eval order), its 16 default metrics with residuals (-r).

Usage: python benchmarks/bench_cwla.py [--data ../shared/data/trec-dl-2019-passage]
Writes benchmarks/out/bench_cwla.json and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import gzip
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


def write_trec_ordered(run, path: Path) -> None:
    """The run re-written in trec_eval order, the ranking cwl_eval reads from line order.

    The run re-written in trec_eval order (score desc in float32, doc_id desc), which is the
    ranking cwl_eval reads from the file's line order.
    """
    import numpy as np

    out = run.assign(score32=run["score"].astype(np.float32))
    out = out.sort_values(["query_id", "score32", "doc_id"], ascending=[True, False, False], kind="stable")
    out = out.assign(rank=out.groupby("query_id").cumcount() + 1, run_id="r")
    out[["query_id", "element_type", "doc_id", "rank", "score", "run_id"]].to_csv(path, sep=" ", header=False,
                                                                                 index=False)


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
    ap.add_argument("--repeat", "--repeats", dest="repeats", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=7,
                    help="rounds timing ours and trec_eval alternately (a second harness: the median of paired ratios)")
    ap.add_argument("--cwl-runs", type=int, default=3, help="runs timed with cwl_eval (each takes seconds)")
    args = ap.parse_args()
    data = Path(args.data)
    qrels_path = data / "qrels.dl19-passage.txt"
    run_paths = sorted((data / "runs").glob("input.*.gz"))
    if not run_paths:
        sys.exit(f"no runs under {data}/runs")
    qrels = ir_cwla.io.read_trec_qrels(qrels_path)
    table1 = ir_cwla.table1()
    with_residuals = list(table1) + [m(unjudged="residual") for m in table1]
    trec_measures = [P@10, nDCG@10, AP, RR@10]

    def ours_from_files(measures=table1):
        ev = ir_measures.evaluator(measures, ir_cwla.io.read_trec_qrels(qrels_path))
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

    ours_from_files(with_residuals)   # warm caches and imports, for every contender alike
    trec_eval_pandas_reader()
    t_ours = best_of(ours_from_files, args.repeats)
    t_ours_res = best_of(lambda: ours_from_files(with_residuals), args.repeats)
    t_te_irm = best_of(trec_eval_irm_reader, args.repeats)
    t_te_pd = best_of(trec_eval_pandas_reader, args.repeats)
    # the second harness: the two alternately, each pair's ratio (the machine's drift shared by both)
    paired = []
    for _ in range(args.pairs):
        a, b = best_of(ours_from_files, 1), best_of(trec_eval_irm_reader, 1)
        paired.append(a / b)
    paired.sort()

    # cwl_eval: its CLI wants gains in [0, 1]: write the qrels as x / x_max
    x_max = qrels["relevance"].max()
    with tempfile.TemporaryDirectory() as tmp:
        gain_file = Path(tmp) / "gains.txt"
        g = qrels.assign(it="0", gain=qrels["relevance"].clip(lower=0) / x_max)
        g[["query_id", "it", "doc_id", "gain"]].to_csv(gain_file, sep=" ", header=False, index=False)
        cwl_bin = Path(sys.executable).with_name("cwl-eval")
        our_bin = Path(sys.executable).with_name("ir-cwla")
        from ir_cwla.app import cwl

        cwl_times, cmd_theirs, cmd_ours, in_process = [], [], [], []
        for path in run_paths[: args.cwl_runs]:
            plain = Path(tmp) / path.stem
            with gzip.open(path, "rt", encoding="utf-8") as f:     # cwl_eval reads plain text only
                plain.write_text(f.read())
            t0 = time.perf_counter()
            subprocess.run([str(cwl_bin), str(gain_file), str(plain)], check=True, capture_output=True, cwd=tmp)
            cwl_times.append(time.perf_counter() - t0)
            # the two commands on the same files, the run in trec_eval order, with residuals
            ordered = Path(tmp) / f"{path.stem}.ordered"
            write_trec_ordered(ir_cwla.io.read_trec_run(path, element_type=True), ordered)
            for exe, times in (([str(cwl_bin)], cmd_theirs), ([str(our_bin), "cwl"], cmd_ours)):
                t0 = time.perf_counter()
                subprocess.run([*exe, str(gain_file), str(ordered), "-r"], check=True, capture_output=True, cwd=tmp)
                times.append(time.perf_counter() - t0)
            in_process.append(best_of(lambda run=str(ordered): cwl.format_table(cwl.evaluate(
                str(gain_file), run, cwl.DEFAULT_METRICS, residuals=True)), args.repeats))
    t_cwl_per_run = sum(cwl_times) / len(cwl_times)
    t_ours_per_run = t_ours / len(run_paths)
    t_cmd_theirs = sum(cmd_theirs) / len(cmd_theirs)
    t_cmd_ours = sum(cmd_ours) / len(cmd_ours)
    t_in_process = sum(in_process) / len(in_process)

    result = {
        "runs": len(run_paths), "topics": int(qrels["query_id"].nunique()),
        "ours_39_measures_s": t_ours,
        "ours_39_measures_and_39_residuals_s": t_ours_res,
        "ratio_ours_with_residuals_over_trec_eval_irm_reader": t_ours_res / t_te_irm,
        "ratio_ours_with_residuals_over_trec_eval_pandas_reader": t_ours_res / t_te_pd,
        "trec_eval_4_measures_irm_reader_s": t_te_irm,
        "trec_eval_4_measures_pandas_reader_s": t_te_pd,
        "ratio_ours_over_trec_eval_irm_reader": t_ours / t_te_irm,
        "ratio_ours_over_trec_eval_pandas_reader": t_ours / t_te_pd,
        "alternating_pairs_ratios_sorted": paired,
        "alternating_pairs_ratio_median": paired[len(paired) // 2] if paired else None,
        "cwl_eval_16_measures_per_run_s": t_cwl_per_run,
        "ours_39_measures_per_run_s": t_ours_per_run,
        "speedup_per_run_vs_cwl_eval": t_cwl_per_run / t_ours_per_run,
        "cwl_eval_command_residuals_per_run_s": t_cmd_theirs,
        "ir_cwla_cwl_command_residuals_per_run_s": t_cmd_ours,
        "speedup_ir_cwla_cwl_vs_cwl_eval": t_cmd_theirs / t_cmd_ours,
        "ir_cwla_cwl_in_process_per_run_s": t_in_process,
    }
    save(result, HERE / "out" / "bench_cwla.json")
    print(f"| what ({len(run_paths)} DL19 runs x {result['topics']} topics) | wall time | ratio |")
    print("|---|---:|---:|")
    print(f"| ir_cwla, 39 Table-1 measures, from the run files | {t_ours:.2f} s | 1 |")
    print(f"| ir_cwla, the 39 and their 39 residuals, from the run files | {t_ours_res:.2f} s | "
          f"this / trec_eval = {t_ours_res / t_te_irm:.2f} (ir-measures' reader), "
          f"{t_ours_res / t_te_pd:.2f} (pandas reader) |")
    print(f"| trec_eval (ir-measures), P@10 nDCG@10 AP RR@10, ir-measures reader | {t_te_irm:.2f} s | "
          f"ours / this = {t_ours / t_te_irm:.2f} |")
    if paired:
        print(f"| the same two alternately, {len(paired)} pairs (a second harness) | | median of ours / trec_eval "
              f"= {paired[len(paired) // 2]:.3f} (spread {paired[0]:.3f}-{paired[-1]:.3f}) |")
    print(f"| trec_eval (ir-measures), same 4, pandas reader | {t_te_pd:.2f} s | ours / this = {t_ours / t_te_pd:.2f} |")
    print(f"| cwl_eval CLI, 16 default metrics, per run | {t_cwl_per_run:.2f} s | "
          f"{result['speedup_per_run_vs_cwl_eval']:.0f}x slower than ir_cwla per run ({t_ours_per_run * 1000:.1f} ms) |")
    print(f"| `cwl-eval GAINS RUN -r` vs `ir-cwla cwl GAINS RUN -r`, per run (commands, start-up included) | "
          f"{t_cmd_theirs:.2f} s vs {t_cmd_ours:.2f} s | ir-cwla cwl {t_cmd_theirs / t_cmd_ours:.1f}x faster "
          f"({t_in_process:.2f} s of it reading, ranking and scoring: {t_cmd_theirs / t_in_process:.0f}x; "
          "the rest is Python start-up and imports) |")


if __name__ == "__main__":
    main()
