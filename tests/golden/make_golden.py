"""Writes ``dl19_scores.npz``: per-topic scores of the golden measures on nine DL19 runs.

The file pins the engine's numbers bit for bit (``tests/test_golden.py``); regenerate it only
after a deliberate change of numbers, and say so in the commit message:

    python -m tests.golden.make_golden /path/to/shared/data/trec-dl-2019-passage
"""
from __future__ import annotations

import platform
import sys
from pathlib import Path

import numpy as np

import ir_cwla
from tests.golden.measures import GOLDEN_MEASURES, GOLDEN_RUNS

OUT = Path(__file__).with_name("dl19_scores.npz")


def main(dl19: str) -> None:
    root = Path(dl19)
    qrels = ir_cwla.io.read_trec_qrels(root / "qrels.dl19-passage.txt")
    ev = ir_cwla.CwlaEvaluator(GOLDEN_MEASURES, qrels)
    arrays = {}
    for run in GOLDEN_RUNS:
        topics, scores = ev.score(ir_cwla.io.read_trec_run(root / "runs" / f"input.{run}.gz"), run)
        order = np.argsort(topics)
        arrays[f"{run}/topics"] = np.asarray(topics[order], dtype=str)
        arrays[f"{run}/scores"] = np.stack([scores[m][order] for m in GOLDEN_MEASURES])
    arrays["measures"] = np.array([str(m) for m in GOLDEN_MEASURES])
    arrays["machine"] = np.array(f"{platform.machine()} numpy {np.__version__}")
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
