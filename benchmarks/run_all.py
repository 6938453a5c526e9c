"""Runs every benchmark in this folder, one after the other, and prints their tables."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

for script in ("bench_cwla.py", "bench_meta.py", "bench_sweep.py", "bench_extended_protocol.py", "bench_scale_engine.py",
               "bench_scale_meta.py"):
    print(f"\n## {script}\n", flush=True)
    subprocess.run([sys.executable, str(HERE / script), *sys.argv[1:]], check=True)
