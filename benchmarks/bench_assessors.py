"""Benchmark: the assessor-variation criterion on TREC DL 2019 passage with its 8 re-annotations.

1. The whole criterion (``meta.assessor_variation`` with the criterion's defaults: 2000-trial
   Tukey HSD, 200 topic halves and 500 topic resamples under each qrels): the 39 Table-1
   measures, the 37 runs and the 8 group files of ``reannotation/`` against NIST's qrels,
   ``judged='shared'``; from frames read before (in-process, and on 2 local processes) and from
   the files (reading the 37 runs included). Target: < 10 s on 2 cores.
2. Anchor, in the same run: scoring the same 16 qrels (NIST cut to each file's pairs, and each
   file) from scratch, every run again for each, with ``meta.evaluate`` (ir_cwla's scorer) and
   with ir-measures' ``calc_aggregate`` through the ir_cwla provider: the scoring alone, none of
   the statistics.

    python benchmarks/bench_assessors.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import warnings
from pathlib import Path

import ir_measures
from common import save, timed  # benchmarks/ is on sys.path when run as a script

from ir_cwla import io, meta, table1
from ir_cwla.errors import UndefinedStatisticWarning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"


def criterion(runs, nist, files, **kwargs):
    return meta.assessor_variation(runs, nist, files, table1(), groups=meta.browsing_model, reference_name="NIST",
                                   progress=False, **kwargs)


def scored_from_scratch(runs, nist, frames, how: str) -> None:
    """Every run scored with NIST cut to each file's pairs and with each file, from scratch."""
    measures = table1()
    for frame in frames.values():
        both = nist.merge(frame[["query_id", "doc_id"]], on=["query_id", "doc_id"])
        for qrels in (both, frame):
            if how == "evaluate":
                meta.evaluate(runs, qrels, measures, progress=False)
            else:
                for run in runs.values():
                    ir_measures.calc_aggregate(measures, qrels, run)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_assessors.json"))
    args = ap.parse_args(argv)
    data = Path(args.data)
    warnings.simplefilter("ignore", UndefinedStatisticWarning)
    nist_path = data / "qrels.dl19-passage.txt"
    paths = {f"g{g}{x}": data / "reannotation" / f"group{g}-assessor-{x}.txt" for g in range(1, 5) for x in "ab"}
    run_paths = {meta.run_name(p): p for p in sorted((data / "runs").glob("input.*.gz"))}
    nist = io.read_trec_qrels(nist_path)
    frames = {k: io.read_trec_qrels(p) for k, p in paths.items()}
    runs = {k: io.read_trec_run(p) for k, p in run_paths.items()}
    print(f"{len(table1())} measures, {len(runs)} runs, {len(frames)} alternative qrels "
          f"({', '.join(f'{k}: {f.query_id.nunique()} topics' for k, f in frames.items())})")

    t_one, runs_one, result = timed(lambda: criterion(runs, nist, frames), args.repeat)
    t_two, runs_two, _ = timed(lambda: criterion(runs, nist, frames, n_jobs=2), args.repeat)
    t_files, runs_files, _ = timed(lambda: criterion(run_paths, nist_path, paths, n_jobs=2), args.repeat)
    print(f"assessor_variation, whole criterion (2000 Tukey trials, 200 splits, 500 resamples): median "
          f"{t_one:.2f} s in-process ({', '.join(f'{t:.2f}' for t in runs_one)}), {t_two:.2f} s on 2 processes "
          f"({', '.join(f'{t:.2f}' for t in runs_two)}), {t_files:.2f} s on 2 processes from the files "
          f"(reading {len(runs)} runs included)")

    t_eval = timed(lambda: scored_from_scratch(runs, nist, frames, "evaluate"), 1)[0]
    t_irm = timed(lambda: scored_from_scratch(runs, nist, frames, "ir_measures"), 1)[0]
    print(f"anchor, scoring the 16 qrels from scratch (no statistics): meta.evaluate {t_eval:.2f} s "
          f"({t_eval / t_one:.1f}x our whole criterion in-process), ir_measures.calc_aggregate {t_irm:.2f} s "
          f"({t_irm / t_one:.1f}x)")
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"uptime: {uptime}")
    top = result.robustness().groupby("group").head(1)
    print(top[["group", "measure", "tau", "tau_low", "tau_high", "outperforms"]].round(3).to_string(index=False))
    return save({"criterion_in_process_median_s": t_one, "criterion_in_process_runs_s": runs_one,
                 "criterion_2_processes_median_s": t_two, "criterion_2_processes_runs_s": runs_two,
                 "criterion_from_files_2_processes_median_s": t_files, "criterion_from_files_runs_s": runs_files,
                 "anchor_evaluate_from_scratch_s": t_eval, "anchor_ir_measures_from_scratch_s": t_irm,
                 "uptime": uptime}, args.out)


if __name__ == "__main__":
    main()
