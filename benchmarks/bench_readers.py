"""Speed of the TREC readers.

The columnar reader against the pandas one it replaced and against ir-measures'
reader (the anchor), timed in one run on the same files.

Reads the 37 DL19 passage runs gzipped (as distributed) and decompressed into a temporary
directory, and the DL19 qrels, with

- ``ir_cwla.io.read_trec_run`` / ``read_trec_qrels`` (this tree: Arrow's CSV reader where a
  block's layout allows, every rule checked, duplicates dropped);
- the same functions of the baseline commit (``--baseline``, default a308e0f, the last commit
  before the columnar reader), loaded from ``git show`` into a package of its own;
- ``ir_measures.read_trec_run`` / ``read_trec_qrels`` materialised as lists (no check at all).

Each contender runs once per repeat, in turn; the best of the repeats is kept.

    python benchmarks/bench_readers.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 5]
"""
from __future__ import annotations

import argparse
import gzip
import importlib
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import ir_measures
from common import save  # benchmarks/ is on sys.path when run as a script

import ir_cwla

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"


def baseline_readers(commit: str, into: Path):
    """``ir_cwla.io`` of ``commit`` as the module ``ir_cwla_baseline.io`` (its textstream beside it)."""
    package = into / "ir_cwla_baseline"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module in ("io", "textstream"):
        source = subprocess.run(["git", "show", f"{commit}:ir_cwla/{module}.py"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout
        (package / f"{module}.py").write_text(source.replace("from ir_cwla.textstream", "from ir_cwla_baseline.textstream"))
    sys.path.insert(0, str(into))
    return importlib.import_module("ir_cwla_baseline.io")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeats", type=int, default=5)
    ap.add_argument("--baseline", default="a308e0f", help="commit of the readers compared with (git show)")
    args = ap.parse_args()
    data = Path(args.data)
    qrels_path = data / "qrels.dl19-passage.txt"
    gz_paths = sorted((data / "runs").glob("input.*.gz"))
    if not gz_paths:
        sys.exit(f"no runs under {data}/runs")
    with tempfile.TemporaryDirectory() as tmp:
        old = baseline_readers(args.baseline, Path(tmp))
        plain_paths = []
        for path in gz_paths:
            plain_paths.append(Path(tmp) / path.stem)
            plain_paths[-1].write_bytes(gzip.decompress(path.read_bytes()))
        lines = sum(len(p.read_bytes().splitlines()) for p in plain_paths)

        def runs(read, paths):
            return lambda: [read(str(p)) for p in paths]

        def irm_runs(paths):
            return lambda: [list(ir_measures.read_trec_run(str(p))) for p in paths]

        qrels_times = 20          # the qrels are small: read 20 times per timing
        contenders = {
            ("gzipped runs", "ir_cwla"): runs(ir_cwla.io.read_trec_run, gz_paths),
            ("gzipped runs", "baseline"): runs(old.read_trec_run, gz_paths),
            ("gzipped runs", "ir_measures"): irm_runs(gz_paths),
            ("plain runs", "ir_cwla"): runs(ir_cwla.io.read_trec_run, plain_paths),
            ("plain runs", "baseline"): runs(old.read_trec_run, plain_paths),
            ("plain runs", "ir_measures"): irm_runs(plain_paths),
            ("qrels x20", "ir_cwla"): runs(ir_cwla.io.read_trec_qrels, [qrels_path] * qrels_times),
            ("qrels x20", "baseline"): runs(old.read_trec_qrels, [qrels_path] * qrels_times),
            ("qrels x20", "ir_measures"): lambda: [list(ir_measures.read_trec_qrels(str(qrels_path)))
                                                   for _ in range(qrels_times)],
        }
        best = {key: float("inf") for key in contenders}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for fn in contenders.values():          # warm: imports, caches, Arrow's thread pool
                fn()
            for _ in range(args.repeats):
                for key, fn in contenders.items():
                    t0 = time.perf_counter()
                    fn()
                    best[key] = min(best[key], time.perf_counter() - t0)

    result: dict = {"runs": len(gz_paths), "run_lines": lines, "repeats": args.repeats, "baseline": args.baseline}
    print(f"| input ({len(gz_paths)} DL19 runs, {lines:,} lines) | ir_cwla | baseline ({args.baseline}) | "
          "ir_measures (anchor) | baseline / ir_cwla | ir_cwla / ir_measures |")
    print("|---|---:|---:|---:|---:|---:|")
    for what in ("gzipped runs", "plain runs", "qrels x20"):
        new, base, anchor = (best[(what, who)] for who in ("ir_cwla", "baseline", "ir_measures"))
        slug = what.replace(" ", "_")
        result.update({f"{slug}_ir_cwla_s": new, f"{slug}_baseline_s": base, f"{slug}_ir_measures_s": anchor,
                       f"{slug}_speedup_over_baseline": base / new, f"{slug}_ratio_to_ir_measures": new / anchor})
        print(f"| {what} | {new:.3f} s | {base:.3f} s | {anchor:.3f} s | {base / new:.2f}x | {new / anchor:.2f} |")
    save(result, HERE / "out" / "bench_readers.json")


if __name__ == "__main__":
    main()
