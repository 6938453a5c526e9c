"""What the benchmarks share: timing a call repeatedly and saving the figures with the load."""
from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any, Callable


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, list[float], Any]:
    """(median, every time, last result) of ``repeat`` calls of ``fn``, on a monotonic clock."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result


def save(result: dict, out: str | os.PathLike) -> dict:
    """Adds the machine's load (other work skews timings), prints it and writes ``out`` as JSON."""
    result["cpus"] = os.cpu_count()
    result["load_average_1min_at_end"] = os.getloadavg()[0]
    print(f"load average (1 min) at the end: {result['load_average_1min_at_end']:.2f} on {os.cpu_count()} CPUs")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(result, indent=2))
    return result
