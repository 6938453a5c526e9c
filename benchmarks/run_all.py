"""Runs every benchmark in this folder, one after the other, and prints their tables.

    python benchmarks/run_all.py [--repeat N] [--data DIR]

``--repeat`` and ``--data`` (the DL19 passage directory) go to every script that takes them;
the scale benchmarks build their own synthetic collections and take no ``--data``.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# script -> does it read the DL19 passage data (and so take --data)?
SCRIPTS = {"bench_readers.py": True, "bench_reading_memory.py": False, "bench_cwla.py": True, "bench_cwl_command.py": True, "bench_meta.py": True,
           "bench_sweep.py": True, "bench_extended_protocol.py": True, "bench_scale_engine.py": False,
           "bench_scale_meta.py": True, "bench_compare.py": True, "bench_labels.py": True,
           "bench_assessors.py": True, "bench_scale_out.py": True,
           # these read ../shared/data/llm-judgments (IR_CWLA_SHARED_DATA), not DL19: no --data
           "bench_judges.py": False, "bench_disjoint.py": False, "bench_users.py": False}

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--repeat", type=int, help="runs of each timing (default: each script's own)")
ap.add_argument("--data", help="the TREC DL 2019 passage directory (default: ../shared/data/trec-dl-2019-passage)")
args = ap.parse_args()
for script, reads_data in SCRIPTS.items():
    extra = (["--repeat", str(args.repeat)] if args.repeat else []) + (["--data", args.data] if args.data and reads_data else [])
    print(f"\n## {script}\n", flush=True)
    subprocess.run([sys.executable, str(HERE / script), *extra], check=True)
