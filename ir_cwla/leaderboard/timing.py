"""Query latency and throughput of a PyTerrier system, and the environment they were measured in.

Latency (:func:`measure_latency`) follows the protocol of Santhanam et al. (2023), Sec. 3:
``warmup`` single-query calls first, not timed; then ``repeats`` passes over the topics,
one query (one-row DataFrame) per call, each call timed on its own with a monotonic clock
(:func:`time.perf_counter_ns`). The summary statistics (:func:`latency_summary`) are those
of all recorded per-query times pooled over the passes; percentiles use numpy's default
linear interpolation.

Throughput (:func:`measure_throughput`) is measured separately: the whole topic set is
sent in batches of ``batch_size`` queries (default: all of them in one call, the usual way
a PyTerrier pipeline runs), and QPS is the number of queries over the median wall time of
``repeats`` timed passes.

Every result carries :func:`environment`: CPU model, cores, memory, load average, OS,
thread settings and library versions, so that a number never travels without the machine
(and how busy it was) it was taken on.
"""
from __future__ import annotations

import dataclasses
import datetime
import os
import platform
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.errors import ArgumentTypeError, DataError, MeasurementError, ParameterError

Clock = Callable[[], int]
#: Environment variables that set the number of threads of common numerical runtimes.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS", "RAYON_NUM_THREADS",
                    "TOKENIZERS_PARALLELISM", "CUDA_VISIBLE_DEVICES")
#: Distributions whose versions are recorded when installed.
VERSIONED_PACKAGES = ("ir-cwla", "python-terrier", "pyterrier", "ir-measures", "ir-datasets", "numpy",
                      "pandas", "scipy", "pyterrier-pisa", "bm25s", "torch", "transformers",
                      "sentence-transformers", "faiss-cpu", "onnxruntime")


# --------------------------------------------------------------------------- environment

def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> Optional[float]:
    try:
        import psutil  # optional
        return round(psutil.virtual_memory().total / 2**30, 2)
    except ImportError:
        pass
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 2)
    except (ValueError, OSError, AttributeError):
        return None


def _physical_cores() -> Optional[int]:
    try:
        import psutil  # optional
        return psutil.cpu_count(logical=False)
    except ImportError:
        return None


def thread_settings() -> dict[str, Any]:
    """Thread-related settings of this process: cores it may use, thread variables, runtimes."""
    settings: dict[str, Any] = {"usable_cores": len(os.sched_getaffinity(0))
                                if hasattr(os, "sched_getaffinity") else os.cpu_count()}
    settings.update({var: os.environ[var] for var in THREAD_VARIABLES if var in os.environ})
    torch = sys.modules.get("torch")  # only if the systems already imported it
    if torch is not None:
        settings["torch_num_threads"] = torch.get_num_threads()
        settings["torch_num_interop_threads"] = torch.get_num_interop_threads()
    try:
        from threadpoolctl import threadpool_info  # optional
        settings["threadpools"] = [{k: p.get(k) for k in ("user_api", "internal_api", "num_threads")}
                                   for p in threadpool_info()]
    except ImportError:
        pass
    return settings


def versions(packages: Sequence[str] = VERSIONED_PACKAGES) -> dict[str, str]:
    """Installed versions of ``packages`` (those not installed are left out)."""
    found = {"python": platform.python_version()}
    for name in packages:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def environment() -> dict[str, Any]:
    """The machine and software a measurement was taken on (a JSON-serialisable dict)."""
    clock = time.get_clock_info("perf_counter")
    return {
        "timestamp_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "physical_cores": _physical_cores(),
        "memory_gib": _memory_gib(),
        "load_average_1_5_15min": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "os": platform.platform(),
        "hostname": platform.node(),
        "clock": {"name": "perf_counter_ns", "monotonic": clock.monotonic, "resolution_s": clock.resolution},
        "threads": thread_settings(),
        "versions": versions(),
    }


# --------------------------------------------------------------------------- kernels

def latency_summary(times_ms: np.ndarray) -> dict[str, float]:
    """Mean, median, p95, p99, min, max and count of per-query times (ms): finite, non-negative."""
    t = np.asarray(times_ms, dtype=np.float64).ravel()
    if t.size == 0:
        raise DataError("no latencies recorded")
    bad = ~np.isfinite(t) | (t < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"latency [{i}] is {shown(t[i])} ms; latencies must be non-negative and finite")
    p50, p95, p99 = np.percentile(t, [50, 95, 99])
    return {"mean_ms": float(t.mean()), "p50_ms": float(p50), "p95_ms": float(p95), "p99_ms": float(p99),
            "min_ms": float(t.min()), "max_ms": float(t.max()), "n": int(t.size)}


# --------------------------------------------------------------------------- measurement

def _runner(system: Any) -> Callable[[pd.DataFrame], Any]:
    transform = getattr(system, "transform", None)
    if callable(transform):
        return transform
    if callable(system):
        return system
    raise ArgumentTypeError(f"a system must be a PyTerrier transformer or a callable on a DataFrame, "
                    f"got {type(system).__name__}")


def _check_topics(topics: pd.DataFrame) -> None:
    if not isinstance(topics, pd.DataFrame):
        raise ArgumentTypeError(f"topics must be a DataFrame, got {type(topics).__name__}")
    if "qid" not in topics.columns:
        raise DataError(f"topics need a 'qid' column (PyTerrier convention), got {list(topics.columns)}")
    if len(topics) == 0:
        raise DataError("no topics to run")


@dataclasses.dataclass
class LatencyResult:
    """Per-query wall times of ``repeats`` passes: ``times_ms[pass, query]``."""

    qids: list[str]
    times_ms: np.ndarray
    warmup: int
    environment: dict[str, Any]

    def summary(self) -> dict[str, float]:
        """Statistics of all recorded times (see :func:`latency_summary`)."""
        return latency_summary(self.times_ms)

    @classmethod
    def concat(cls, parts: Sequence[LatencyResult]) -> LatencyResult:
        """Passes measured separately (e.g. interleaved with other systems) as one result."""
        if not parts or any(p.qids != parts[0].qids for p in parts):
            raise DataError("can only join measurements of the same topics")
        return cls(qids=parts[0].qids, times_ms=np.vstack([p.times_ms for p in parts]),
                   warmup=parts[0].warmup, environment=parts[0].environment)

    def per_query(self) -> pd.DataFrame:
        """Long table ``qid, pass, ms``: one row per timed call."""
        repeats, n = self.times_ms.shape
        return pd.DataFrame({"qid": np.tile(np.asarray(self.qids, dtype=object), repeats),
                             "pass": np.repeat(np.arange(repeats), n),
                             "ms": self.times_ms.ravel()})


@dataclasses.dataclass
class ThroughputResult:
    """Wall time of each timed pass over all topics, sent in batches of ``batch_size``."""

    n_queries: int
    batch_size: int
    seconds: np.ndarray
    environment: dict[str, Any]

    @property
    def qps(self) -> float:
        """Queries per second over the median pass."""
        return float(self.n_queries / np.median(self.seconds))

    @classmethod
    def concat(cls, parts: Sequence[ThroughputResult]) -> ThroughputResult:
        """Passes measured separately (e.g. interleaved with other systems) as one result."""
        if not parts or any((p.n_queries, p.batch_size) != (parts[0].n_queries, parts[0].batch_size)
                            for p in parts):
            raise DataError("can only join measurements of the same topics and batch size")
        return cls(n_queries=parts[0].n_queries, batch_size=parts[0].batch_size,
                   seconds=np.concatenate([p.seconds for p in parts]), environment=parts[0].environment)

    def summary(self) -> dict[str, float]:
        """QPS over the median pass, the slowest and fastest pass's QPS, the batch size and the passes."""
        per_pass = self.n_queries / self.seconds
        return {"qps": self.qps, "qps_min": float(per_pass.min()), "qps_max": float(per_pass.max()),
                "batch_size": self.batch_size, "passes": int(len(self.seconds))}


def measure_latency(system: Any, topics: pd.DataFrame, warmup: int = 10, repeats: int = 3,
                    clock: Clock = time.perf_counter_ns) -> LatencyResult:
    """Times ``system`` one query at a time.

    Parameters
    ----------
    system
        A PyTerrier transformer (its ``transform`` is called) or any callable that takes a
        DataFrame of queries.
    topics : pandas.DataFrame
        PyTerrier topics (``qid, query``); each row is sent on its own.
    warmup : int
        Number of single-query calls made before timing starts (cycling through the topics);
        they are not recorded.
    repeats : int
        Timed passes over all topics.
    clock
        A monotonic clock in nanoseconds (swap it only in tests).
    """
    _check_topics(topics)
    if warmup < 0 or repeats < 1:
        raise ParameterError(f"need warmup >= 0 and repeats >= 1, got warmup={warmup}, repeats={repeats}")
    run = _runner(system)
    single = [topics.iloc[[i]] for i in range(len(topics))]   # sliced before any timing
    for i in range(warmup):
        run(single[i % len(single)])
    times = np.empty((repeats, len(single)), dtype=np.float64)
    for r in range(repeats):
        for i, query in enumerate(single):
            start = clock()
            run(query)
            times[r, i] = (clock() - start) / 1e6
    return LatencyResult(qids=topics["qid"].astype(str).tolist(), times_ms=times, warmup=warmup,
                         environment=environment())


def measure_throughput(system: Any, topics: pd.DataFrame, batch_size: Optional[int] = None,
                       repeats: int = 3, warmup: int = 1, clock: Clock = time.perf_counter_ns
                       ) -> ThroughputResult:
    """Queries per second of ``system`` over the whole topic set, sent in batches.

    Parameters
    ----------
    batch_size : int, optional
        Queries per call; ``None`` sends all topics in one call.
    repeats : int
        Timed passes over all topics; QPS uses the median pass.
    warmup : int
        Untimed batches sent before the first timed pass.
    """
    _check_topics(topics)
    if repeats < 1 or warmup < 0:
        raise ParameterError(f"need repeats >= 1 and warmup >= 0, got repeats={repeats}, warmup={warmup}")
    n = len(topics)
    size = n if batch_size is None else int(batch_size)
    if size < 1:
        raise ParameterError(f"batch_size must be positive, got {batch_size}")
    run = _runner(system)
    batches = [topics.iloc[i:i + size] for i in range(0, n, size)]
    for i in range(warmup):
        run(batches[i % len(batches)])
    seconds = np.empty(repeats, dtype=np.float64)
    for r in range(repeats):
        start = clock()
        for batch in batches:
            run(batch)
        seconds[r] = (clock() - start) / 1e9
    if np.any(seconds <= 0):
        raise MeasurementError("a timed pass took no measurable time; use more topics or a finer clock")
    return ThroughputResult(n_queries=n, batch_size=size, seconds=seconds, environment=environment())
