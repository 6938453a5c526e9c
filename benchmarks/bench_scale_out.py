"""Scale-out: a run of 10^7 lines scored shard by shard, in-process and on Dask, and start-up (issue 23).

1. **Sharded scoring.** A synthetic run of 10,000 topics x 1,000 documents (10^7 lines, ~60 graded
   judgments per topic and 5 unretrieved ones: 650,000 qrels lines) is written into a temporary
   directory as 40 plain TREC files of 250 topics each (a directory of run files partitioned by
   topic, :func:`ir_cwla.io.shards`), and scored with the 39 Table-1 measures (``ir_cwla.table1()``):

   - in-process, the run read whole (one frame holds the collection);
   - in-process, shard by shard (``meta.evaluate(shards)``);
   - on a 2-worker ``LocalCluster`` (one thread per worker process);
   - on a scheduler and 2 worker processes started as ``dask scheduler`` / ``dask worker`` commands;
   - the anchor: pytrec_eval through ir-measures (P@10, nDCG@10, AP, RR@10), in-process, the run
     read by ir-measures' reader from the same files.

   Each case runs in a fresh process; its wall time from the files to the per-topic frame, the
   peak resident memory of that process and (Dask) of each worker (``getrusage``, read in the
   workers), and the per-topic values are compared bit for bit across the four ir_cwla cases.
2. **Start-up**, whole commands, each run ``--repeat`` times in turn (median wall and CPU time):
   ``ir-cwla --version``, ``ir-cwla eval --help``, and ``ir-cwla eval QRELS RUN -m nDCG@10`` against
   ``ir_measures QRELS RUN nDCG@10`` on one DL19 run (bm25base_p), with ``python -c pass`` and
   ``python -c 'import pandas'`` (what the eval command does without, on clean files:
   ``ir_cwla/io/_trec_text.py``) for scale, and ``ir-cwla eval`` with a C/W/L/A measure and with its
   default six. Bytecode cached, as a pip install leaves it (``PYTHONDONTWRITEBYTECODE`` is
   dropped and each command runs once before timing); the commands run in turn, ``--repeat`` rounds.

    python benchmarks/bench_scale_out.py [--data ../shared/data/trec-dl-2019-passage] [--repeat 10]
                                         [--collection DIR] [--skip-scale] [--skip-startup]

Writes benchmarks/out/bench_scale_out.json and prints Markdown tables.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from common import save  # benchmarks/ is on sys.path when run as a script

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"
TOPICS, DEPTH, FILES, JUDGED = 10_000, 1_000, 40, 60
SHARD_BYTES = 16 << 20          # about 40 shards of the ~0.5 GB run: 20 tasks per worker
ANCHOR = ["P@10", "nDCG@10", "AP", "RR@10"]
BIN = Path(sys.executable).parent


# -- the collection ------------------------------------------------------------------------
def write_collection(folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """``folder/run/part-NN.trec`` (topics in consecutive blocks) and ``folder/qrels.txt``."""
    run_dir, qrels_path = folder / "run", folder / "qrels.txt"
    if (folder / "done").exists():
        return run_dir, qrels_path
    run_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    pools = []
    for part, topics in enumerate(np.array_split(np.arange(TOPICS), FILES)):
        q = np.repeat(topics, DEPTH)
        rank = np.tile(np.arange(DEPTH), len(topics))
        doc = rng.choice(10**8, size=len(q), replace=True)
        frame = pd.DataFrame({"q": (q + 100_000).astype(str), "q0": "Q0", "doc": np.char.add("D", doc.astype(str)),
                              "rank": rank + 1, "score": np.round(-rank + rng.normal(0, 3, len(q)), 3),
                              "tag": "synthetic"}).drop_duplicates(["q", "doc"])
        frame.to_csv(run_dir / f"part-{part:02d}.trec", sep=" ", header=False, index=False)
        pools.append(frame.groupby("q", sort=False).head(JUDGED)[["q", "doc"]])
    pool = pd.concat(pools, ignore_index=True)
    extra = pd.DataFrame({"q": np.repeat((np.arange(TOPICS) + 100_000).astype(str), 5),
                          "doc": [f"U{i}" for i in range(5 * TOPICS)]})
    qrels = pd.concat([pool, extra], ignore_index=True)
    qrels.insert(1, "it", 0)
    qrels["grade"] = rng.choice([0, 0, 0, 1, 1, 2, 3], len(qrels))
    qrels.to_csv(qrels_path, sep=" ", header=False, index=False)
    (folder / "done").touch()
    return run_dir, qrels_path


# -- one case, in its own process ----------------------------------------------------------
def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _worker_peak_mb() -> float:
    import resource as r
    return r.getrusage(r.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    import resource as r
    usage = r.getrusage(r.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_case(case: str, run_dir: Path, qrels_path: Path, out: Path, scheduler_file: str = "") -> dict:
    import warnings

    import ir_cwla
    from ir_cwla import meta

    warnings.simplefilter("ignore")
    measures = ir_cwla.table1()
    result: dict = {"case": case}
    t0, cpu0 = time.perf_counter(), _cpu_s()
    if case == "anchor":
        import itertools

        import ir_measures

        qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
        run = itertools.chain.from_iterable(ir_measures.read_trec_run(str(p)) for p in sorted(run_dir.iterdir()))
        values = list(ir_measures.iter_calc([ir_measures.parse_measure(m) for m in ANCHOR], qrels, run))
        result.update(seconds=time.perf_counter() - t0, cpu_s=_cpu_s() - cpu0, rows=len(values), peak_mb=_peak_mb())
        return result
    stored = ir_cwla.io.shards(run_dir, shard_bytes=SHARD_BYTES, name="synthetic")
    result["shards"] = len(stored)
    if case == "whole":
        frame = pd.concat([ir_cwla.io.read_trec_run(p) for p in sorted(run_dir.iterdir())], ignore_index=True)
        result["frame_mb"] = float(frame.memory_usage(deep=True).sum() / 2**20)
        per_query = meta.evaluate({"synthetic": frame}, qrels_path, measures, progress=False)
    elif case == "shards":
        per_query = meta.evaluate({"synthetic": stored}, qrels_path, measures, progress=False)
    else:
        import distributed

        if case == "localcluster":
            started = time.perf_counter()
            cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                               dashboard_address="127.0.0.1:0", silence_logs=50, memory_limit=0)
            client = distributed.Client(cluster, set_as_default=False)
        else:
            started = time.perf_counter()
            client = distributed.Client(scheduler_file=scheduler_file, set_as_default=False)
            client.wait_for_workers(2, timeout=120)
        result["cluster_start_s"] = time.perf_counter() - started
        result["worker_idle_mb"] = sorted(client.run(_worker_peak_mb).values())
        busy = client.run(_cpu_s)
        t0, cpu0 = time.perf_counter(), _cpu_s()
        per_query = meta.evaluate({"synthetic": stored}, qrels_path, measures, executor=client, progress=False)
        result["worker_peak_mb"] = sorted(client.run(_worker_peak_mb).values())
        result["worker_cpu_s"] = sorted(v - busy[k] for k, v in client.run(_cpu_s).items())
        client.close()
        if case == "localcluster":
            cluster.close()
    result.update(seconds=time.perf_counter() - t0, cpu_s=_cpu_s() - cpu0, rows=len(per_query), peak_mb=_peak_mb())
    per_query.to_parquet(out / f"{case}.parquet")
    return result


def in_subprocess(case: str, run_dir: Path, qrels_path: Path, out: Path, scheduler_file: str = "") -> dict:
    cmd = [sys.executable, __file__, "--case", case, "--collection", str(run_dir.parent), "--scratch", str(out),
           "--scheduler-file", scheduler_file]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def dask_commands(folder: Path) -> tuple[list[subprocess.Popen], str]:
    """``dask scheduler`` and two ``dask worker`` processes (one thread each), on the loopback."""
    scheduler_file = str(folder / "scheduler.json")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--dashboard-address", "127.0.0.1:0", "--scheduler-file", scheduler_file], **quiet)]
    deadline = time.monotonic() + 60
    while not os.path.exists(scheduler_file) and time.monotonic() < deadline:
        time.sleep(0.1)
    for _ in range(2):
        procs.append(subprocess.Popen([str(BIN / "dask"), "worker", "--scheduler-file", scheduler_file, "--nthreads",
                                       "1", "--nworkers", "1", "--memory-limit", "0", "--host", "127.0.0.1"], **quiet))
    return procs, scheduler_file


def scale(args: argparse.Namespace) -> dict:
    folder = Path(args.collection) if args.collection else Path(tempfile.mkdtemp(prefix="ir_cwla_scale_out_"))
    t0 = time.perf_counter()
    run_dir, qrels_path = write_collection(folder)
    out: dict = {"collection": {"lines": TOPICS * DEPTH, "topics": TOPICS, "files": FILES,
                                "run_bytes": sum(p.stat().st_size for p in run_dir.iterdir()),
                                "qrels_lines": sum(1 for _ in open(qrels_path)), "written_s": time.perf_counter() - t0}}
    scratch = Path(tempfile.mkdtemp(prefix="ir_cwla_scale_out_frames_"))
    try:
        for case in ("whole", "shards", "localcluster"):
            out[case] = in_subprocess(case, run_dir, qrels_path, scratch)
            print(f"{case}: {out[case]}", flush=True)
        procs, scheduler_file = dask_commands(scratch)
        try:
            out["scheduler"] = in_subprocess("scheduler", run_dir, qrels_path, scratch, scheduler_file)
            print(f"scheduler: {out['scheduler']}", flush=True)
        finally:
            for p in procs[::-1]:
                p.terminate()
            for p in procs:
                p.wait(timeout=60)
        out["anchor"] = in_subprocess("anchor", run_dir, qrels_path, scratch)
        print(f"anchor: {out['anchor']}", flush=True)
        reference = pd.read_parquet(scratch / "whole.parquet")
        out["bit_identical"] = {case: bool(reference.equals(pd.read_parquet(scratch / f"{case}.parquet")))
                                for case in ("shards", "localcluster", "scheduler")}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if not args.collection:
            shutil.rmtree(folder, ignore_errors=True)
    return out


# -- start-up ------------------------------------------------------------------------------
def timed_commands(commands: dict[str, list[str]], repeat: int) -> dict:
    """Median wall and CPU (user + system of the child) seconds of each command, run in turn."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}   # as installed: bytecode cached
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for cmd in commands.values():            # warm up: bytecode written, files in the page cache
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    for _ in range(repeat):
        for key, cmd in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times[key].append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return {k: {"wall_s": statistics.median(w for w, _ in v), "cpu_s": statistics.median(c for _, c in v)}
            for k, v in times.items()}


def startup(args: argparse.Namespace) -> dict:
    data = Path(args.data)
    qrels, run = str(data / "qrels.dl19-passage.txt"), str(data / "runs" / "input.bm25base_p.gz")
    cli = [str(BIN / "ir-cwla")]
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import pandas'": [sys.executable, "-c", "import pandas"],
        "ir-cwla --version": cli + ["--version"],
        "ir-cwla eval --help": cli + ["eval", "--help"],
        "ir-cwla eval QRELS RUN -m nDCG@10": cli + ["eval", qrels, run, "-m", "nDCG@10"],
        "ir-cwla eval QRELS RUN -m RBP_max@10": cli + ["eval", qrels, run, "-m", "RBP_max@10"],
        "ir-cwla eval QRELS RUN (its default: the six canonical measures)": cli + ["eval", qrels, run],
        "ir_measures QRELS RUN nDCG@10": [str(BIN / "ir_measures"), qrels, run, "nDCG@10"],
    }
    out = timed_commands(commands, args.repeat)
    out["loop"] = run_loop(data, max(1, args.repeat // 4))
    return out


def run_loop(data: Path, rounds: int) -> dict:
    """``for run in runs/*; do TOOL QRELS $run nDCG@10; done`` over the 37 DL19 runs, both tools in turn.

    The median over ``rounds`` of each tool's total time for the 37 commands (the runs alternate
    between the tools, so that load and the page cache treat both alike).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    qrels = str(data / "qrels.dl19-passage.txt")
    runs = sorted(str(p) for p in (data / "runs").iterdir())
    tools = {"ir-cwla eval QRELS RUN -m nDCG@10": lambda r: [str(BIN / "ir-cwla"), "eval", qrels, r, "-m", "nDCG@10"],
             "ir_measures QRELS RUN nDCG@10": lambda r: [str(BIN / "ir_measures"), qrels, r, "nDCG@10"]}
    totals: dict[str, list[float]] = {k: [] for k in tools}
    for _ in range(rounds):
        spent = dict.fromkeys(tools, 0.0)
        for run in runs:
            for key, command in tools.items():
                t0 = time.perf_counter()
                subprocess.run(command(run), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
                spent[key] += time.perf_counter() - t0
        for key in tools:
            totals[key].append(spent[key])
    return {"runs": len(runs), "rounds": rounds, **{k: statistics.median(v) for k, v in totals.items()}}


def main() -> None:
    global TOPICS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=10, help="runs of each start-up command")
    ap.add_argument("--collection", help="keep (and reuse) the synthetic collection in this directory")
    ap.add_argument("--topics", type=int, default=10_000, help="topics of the synthetic run (default 10,000)")
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--skip-startup", action="store_true")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--scratch", help=argparse.SUPPRESS)
    ap.add_argument("--scheduler-file", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        folder = Path(args.collection)
        print(json.dumps(run_case(args.case, folder / "run", folder / "qrels.txt", Path(args.scratch),
                                  args.scheduler_file)))
        return
    TOPICS = args.topics
    result: dict = {"load_average_1min_at_start": os.getloadavg()[0]}
    if not args.skip_startup:
        result["startup"] = s = startup(args)
        anchor = s["ir_measures QRELS RUN nDCG@10"]
        print(f"\n| command (whole, median of {args.repeat}) | wall | CPU | ratio to ir_measures (wall, CPU) |")
        print("|---|---:|---:|---:|")
        for key, r in s.items():
            if key == "loop":
                continue
            print(f"| `{key}` | {r['wall_s']:.3f} s | {r['cpu_s']:.3f} s | "
                  f"{r['wall_s'] / anchor['wall_s']:.2f}, {r['cpu_s'] / anchor['cpu_s']:.2f} |")
        loop = s["loop"]
        ours, theirs = loop["ir-cwla eval QRELS RUN -m nDCG@10"], loop["ir_measures QRELS RUN nDCG@10"]
        print(f"\nA loop of one command per run over the {loop['runs']} DL19 runs (median of {loop['rounds']} "
              f"rounds): ir-cwla eval {ours:.2f} s, ir_measures {theirs:.2f} s, ratio {ours / theirs:.2f}")
    if not args.skip_scale:
        result["scale"] = r = scale(args)
        c = r["collection"]
        whole, anchor = r["whole"], r["anchor"]
        print(f"\n{c['lines']:,} lines ({c['run_bytes'] / 2**20:.0f} MB on disk, {c['files']} files), "
              f"{c['qrels_lines']:,} qrels lines; {r['shards']['shards']} shards; 39 Table-1 measures; "
              f"the whole run's frame holds {whole['frame_mb']:.0f} MB")
        print("\n| case | wall | ratio to pytrec_eval (4 measures) | CPU: process (each worker) | peak memory: process "
              "| each worker |")
        print("|---|---:|---:|---:|---:|---:|")
        labels = {"whole": "in-process, the run read whole", "shards": "in-process, shard by shard",
                  "localcluster": "LocalCluster, 2 workers", "scheduler": "`dask scheduler` + 2 `dask worker`",
                  "anchor": "pytrec_eval through ir-measures (P@10 nDCG@10 AP RR@10), in-process"}
        for case, label in labels.items():
            x = r[case]
            workers = ", ".join(f"{m:.0f}" for m in x.get("worker_peak_mb", [])) or "-"
            cpu = f"{x['cpu_s']:.1f} s" + (f" ({', '.join(f'{c:.1f}' for c in x['worker_cpu_s'])} s)"
                                           if "worker_cpu_s" in x else "")
            print(f"| {label} | {x['seconds']:.1f} s | {x['seconds'] / anchor['seconds']:.2f} | {cpu} | "
                  f"{x['peak_mb']:.0f} MB | {workers} MB |")
        print(f"\nper-topic values bit-identical to the run read whole: {r['bit_identical']}")
        for case in ("localcluster", "scheduler"):
            peak = max(r[case]["worker_peak_mb"])
            print(f"{case}: largest worker peak {peak:.0f} MB = {peak / whole['peak_mb']:.2f} of the in-process peak "
                  f"with the run whole, {peak / whole['frame_mb']:.2f} of the whole run's frame "
                  f"(idle workers {', '.join(f'{m:.0f}' for m in r[case]['worker_idle_mb'])} MB)")
    save(result, HERE / "out" / "bench_scale_out.json")


if __name__ == "__main__":
    main()
