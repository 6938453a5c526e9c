"""``ir-cwla cwl`` against ``cwl-eval`` as whole commands, on one DL19 run, timed in one run.

The run is re-written in float64 score order (each topic's lines sorted by score, a stable
sort), with element types a/b/c for the cost file; the gains are grade / 3. Two workloads,
each command started afresh every time (Python start-up and imports included, as a user runs
it): cwl_eval's 16 default metrics with residuals (``GAINS RUN -r``), and the zoo of every
metric class with a cost file (``-m ZOO -c COSTS -r``). The two outputs are checked to be
byte-identical before anything is timed. Also: ``ir_cwla.app.cwl.evaluate`` + ``format_table``
in this process (the work without start-up), and the start-up of ``ir-cwla --version``.

Usage: python benchmarks/bench_cwl_command.py [--data ../shared/data/trec-dl-2019-passage]
       [--run bm25base_p] [--repeat 3]
Writes benchmarks/out/bench_cwl_command.json and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from common import save, timed  # benchmarks/ is on sys.path when run as a script

import ir_cwla
from ir_cwla.app import cwl

HERE = Path(__file__).resolve().parent
ZOO = """PrecisionCWLMetric(20)
RBPCWLMetric(0.9)
NDCGCWLMetric(10)
RRCWLMetric()
APCWLMetric()
TrAPCWLMetric()
INSTCWLMetric(1)
INSQCWLMetric(2.25)
BPMCWLMetric(1,1000)
BPMDCWLMetric(1.2,10,1.0,1.0)
UMeasureCWLMetric(1000)
TBGCWLMetric(22)
IFTGoalCWLMetric(2.0, 0.9, 10)
IFTRateCWLMetric(0.2, 0.9, 10)
IFTGoalRateCWLMetric(2.0,0.9,10, 0.2, 0.9, 10)
NERReq8CWLMetric(10)
NERReq9CWLMetric(10)
NERReq10CWLMetric(0.9)
NERReq11CWLMetric(2.0)
NPVCWLMetric(0.1)
SETCWLMetric(0.5, 10)
"""


def write_inputs(data: Path, run: str, tmp: Path) -> tuple[Path, Path, Path, Path]:
    qrels = ir_cwla.io.read_trec_qrels(data / "qrels.dl19-passage.txt")
    gains = tmp / "gains.txt"
    g = qrels.assign(it="0", gain=qrels["relevance"].clip(lower=0) / qrels["relevance"].max())
    g[["query_id", "it", "doc_id", "gain"]].to_csv(gains, sep=" ", header=False, index=False)
    frame = ir_cwla.io.read_trec_run(data / "runs" / f"input.{run}.gz")
    order = np.lexsort((-frame["score"].to_numpy(), pd.factorize(frame["query_id"])[0]))
    frame = frame.iloc[order].reset_index(drop=True)
    frame = frame.assign(element_type=np.array(list("abc"))[frame["doc_id"].astype(np.int64) % 3],
                         rank=frame.groupby("query_id", sort=False).cumcount() + 1, run="r",
                         score=[repr(float(s)) for s in frame["score"]])
    run_file = tmp / "run.txt"
    frame[["query_id", "element_type", "doc_id", "rank", "score", "run"]].to_csv(run_file, sep=" ", header=False,
                                                                                index=False)
    (tmp / "zoo.txt").write_text(ZOO)
    (tmp / "costs.txt").write_text("a 1.0\nb 2.5\n")
    return gains, run_file, tmp / "zoo.txt", tmp / "costs.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "trec-dl-2019-passage"))
    ap.add_argument("--run", default="bm25base_p", help="the DL19 run (default bm25base_p)")
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=3)
    args = ap.parse_args()
    theirs_bin = [str(Path(sys.executable).with_name("cwl-eval"))]
    ours_bin = [str(Path(sys.executable).with_name("ir-cwla")), "cwl"]
    result: dict = {"run": args.run, "repeat": args.repeat}
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        gains, run_file, zoo, costs = write_inputs(Path(args.data), args.run, tmp)
        workloads = {"default metrics, -r": [gains, run_file, "-r"],
                     "zoo (21 classes), cost file, -r": [gains, run_file, "-m", zoo, "-c", costs, "-r"]}

        def command(exe: list, argv: list) -> bytes:
            return subprocess.run([*exe, *map(str, argv)], check=True, capture_output=True, cwd=tmp).stdout

        for name, argv in workloads.items():
            if command(theirs_bin, argv) != command(ours_bin, argv):
                sys.exit(f"{name}: ir-cwla cwl's output differs from cwl-eval's")
            t_theirs, _, _ = timed(lambda argv=argv: command(theirs_bin, argv), args.repeat)
            t_ours, _, _ = timed(lambda argv=argv: command(ours_bin, argv), args.repeat)
            metrics = cwl.DEFAULT_METRICS if "-m" not in argv else cwl.read_metrics_file(zoo)
            cost = costs if "-c" in argv else None

            def in_process(metrics=metrics, cost=cost) -> str:
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return cwl.format_table(cwl.evaluate(gains, run_file, metrics, cost_file=cost, residuals=True))

            in_process()
            t_work, _, _ = timed(in_process, args.repeat)
            rows.append((name, t_theirs, t_ours, t_work))
            key = name.split(",")[0].split(" ")[0]
            result[f"{key}_cwl_eval_command_s"] = t_theirs
            result[f"{key}_ir_cwla_cwl_command_s"] = t_ours
            result[f"{key}_ratio_cwl_eval_over_ir_cwla_cwl"] = t_theirs / t_ours
            result[f"{key}_ir_cwla_cwl_in_process_s"] = t_work
        t_start, _, _ = timed(lambda: subprocess.run([ours_bin[0], "--version"], check=True, capture_output=True),
                              args.repeat)
        result["ir_cwla_version_startup_s"] = t_start
    save(result, HERE / "out" / "bench_cwl_command.json")
    print(f"| DL19 run {args.run} (43 topics, float64 score order), median of {args.repeat} | `cwl-eval` | "
          "`ir-cwla cwl` | ratio | `ir-cwla cwl` in process |")
    print("|---|---:|---:|---:|---:|")
    for name, t_theirs, t_ours, t_work in rows:
        print(f"| {name} (outputs byte-identical) | {t_theirs:.2f} s | {t_ours:.2f} s | "
              f"{t_theirs / t_ours:.1f}x | {t_work:.2f} s ({t_theirs / t_work:.0f}x) |")
    print(f"| start-up alone: `ir-cwla --version` | | {t_start:.2f} s | | |")


if __name__ == "__main__":
    main()
