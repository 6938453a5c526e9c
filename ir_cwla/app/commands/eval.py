"""``ir-cwla eval``: scores runs like trec_eval, with any ir-measures or C/W/L/A measure.

::

    ir-cwla eval QRELS RUN... [-m MEASURE...] [-q] [-n] [-a | -c] [-M DEPTH] [-l LEVEL] [-J] [-N NUM]
                              [--judged K] [--trec-eval 9|10] [--ties float32|float64] [--runid]
                              [--format trec|trec_eval|csv|json|jsonl] [-p PLACES] [--scheduler ADDR | --n-jobs N]

trec_eval's command lines are read as trec_eval reads them (:mod:`ir_cwla.app.trec_eval_cli`:
its ``-m`` rules and names, its options, what is refused); ``--format trec_eval`` prints its
output (:mod:`ir_cwla.app.trec_eval_format`).

:func:`plan` turns the options into a :class:`Plan`, every option checked before anything is
read; :func:`execute` carries it out in three steps: read (:func:`read`), score
(:func:`score`), write (:func:`write`). Which reader reads the files is decided in the reading
step, by asking the readers: the runs go to the workers shard by shard when the plan scores on
workers (:func:`ir_cwla.sharding.shards`); otherwise the files are read as columns, without
pandas, when :func:`ir_cwla.app.evaluate.read_clean_files` takes every one of them (the clean
files of :mod:`ir_cwla.trec_text`), and as frames by :mod:`ir_cwla.io` when it does not or when
a step works on frames (``-M``: :func:`ir_cwla.io.top_ranked`; ``--judged``:
:func:`ir_cwla.app.coverage.coverage_frame`). Whatever read them, the output is the same, byte
for byte.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ir_cwla.app import trec_eval_cli
from ir_cwla.app.commands.options import places, positive_int

NAME = "eval"

EPILOG = """\
inputs: QRELS and RUN are paths, - (stdin), /dev/stdin, <(zcat run.gz) or FIFOs,
  plain, gzip, bzip2 or xz, each read once; or ir_datasets ids written irds:ID.
averaging in force: {averaging}.
measures: ir-measures syntax (nDCG@10, AP(rel=2), CWLA(C='RBP', A='max', p=0.9)@10),
  the short names ir-cwla prints (RBP_max@10, INST_PE(beta=0.3)@10, RBP(p=0.9)_max@10,
  AP_ERG[pad]) or trec_eval names (ndcg_cut_10, map, P.5,10); lists split on spaces
  and commas.
{registered}
"""
AVERAGING = ("every qrels topic counts, 0 where a run has none\n  (the default, as ir_measures and trec_eval -c; "
             "-a averages over the topics a run answers)")

Row = tuple[str, str, str, float, str]
"""One line of the output: ``(name, qid, measure, value, short)`` (:data:`ir_cwla.app.evaluate.RESULT_COLUMNS`)."""


def registered_text(width: int = 86) -> str:
    """The browsing models and aggregations registered now, for ``--help``.

    Each is listed with its parameters and their defaults (``RBP(p=0.8)``), built from the
    registries (plugins included).
    """
    import textwrap

    from ir_cwla.measures import AGGREGATIONS, BROWSING_MODELS
    from ir_cwla.measures._names import format_number

    def entry(name: str, params: Any) -> str:
        shown = ",".join(f"{k}={format_number(v.default)}" for k, v in params.items())
        return f"{name}({shown})" if shown else name

    lines = []
    for title, table in (("browsing models (C)", BROWSING_MODELS), ("aggregations (A)", AGGREGATIONS)):
        text = f"{title}: " + ", ".join(entry(name, e.params) for name, e in table.items()) + "."
        lines.extend(textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False))
    return "\n".join(lines)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``eval`` to ``subparsers`` (of ``ir-cwla``'s parser), with the registered models and aggregations in its epilog."""
    from ir_cwla.app.commands import COMMANDS
    from ir_cwla.app.evaluate import FORMATS

    p = subparsers.add_parser(NAME, help=COMMANDS[NAME],
                              description="Score TREC runs against qrels, like trec_eval -q / ir_measures.",
                              epilog=EPILOG.format(averaging=AVERAGING, registered=registered_text()),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels (file, - for stdin, /dev/stdin, ...) or irds:ID")
    p.add_argument("runs", metavar="RUN", nargs="+", help="TREC run(s) (file, - for stdin, ...) or irds:ID")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measure(s), repeatable, space- or comma-separated "
                        "(default: the six canonical C/W/L/A measures @10)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print the score of every query")
    p.add_argument("-n", "--no-summary", action="store_true",
                   help="with -q: leave out the summary rows (qid 'all')")
    p.add_argument("-a", "--answered-only", action="store_true",
                   help="average over the topics each run answers (trec_eval without -c); default: every qrels "
                        "topic counts, 0 where the run has none (ir_measures, trec_eval -c)")
    p.add_argument("-M", "--depth", type=positive_int, metavar="DEPTH",
                   help="score only the first DEPTH documents of every ranking (trec_eval -M)")
    p.add_argument("-l", "--level", type=int, metavar="LEVEL",
                   help="binary measures count grades >= LEVEL as relevant (trec_eval -l; default 1)")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="judged documents only (trec_eval -J): every document without a grade >= 0 is removed "
                        "from every ranking first (after -M), for every measure; C/W/L/A measures are named "
                        "unjudged='condense', ir-measures measures judged_only=True where they can be")
    p.add_argument("--ties", choices=("float32", "float64"), default=None,
                   help="precision scores are compared in when ranking: float32 (trec_eval up to 9.0.8, "
                        "pytrec_eval, ir_measures: scores equal to ~7 digits tie) or float64 (trec_eval 10), for "
                        "every measure; default: that of --trec-eval (float32 for 9)")
    p.add_argument("--runid", action="store_true",
                   help="name runs by their run tag (sixth field of the first line), as trec_eval does")
    p.add_argument("--format", choices=FORMATS, default="trec",
                   help="output format (default trec); trec_eval: trec_eval's names, order and number formats "
                        "(byte for byte trec_eval 10's with --trec-eval 10); csv/json/jsonl carry str(measure) in "
                        "'measure' and a 'short' name, and read back into ir-cwla meta")
    p.add_argument("--judged", type=positive_int, action="append", metavar="K",
                   help="also print Judged@K, the share of judged documents in the top K (repeatable)")
    p.add_argument("-p", "--places", type=places, default=4, help="decimals in the trec format (default 4)")
    trec_eval_cli.add_options(p)
    p.add_argument("--scheduler", metavar="ADDR",
                   help="score on the Dask cluster at ADDR (tcp://host:8786), each run read shard by shard by the "
                        "workers: a file, a directory of run files by topic or a Parquet dataset by topic")
    p.add_argument("--n-jobs", type=positive_int, metavar="N",
                   help="score on N local processes, each run read shard by shard (as --scheduler)")
    p.set_defaults(plan=plan, execute=execute)
    return p


@dataclass(frozen=True)
class Plan:
    """What ``ir-cwla eval`` reads, computes and writes; every field checked by :func:`plan`.

    Read: ``qrels`` and ``runs`` (the arguments as given), named ``names`` (by file;
    :func:`read` renames streams and, with ``runid``, every run by its run tag). Computed:
    ``measures`` (``-l`` and ``-J`` applied; ``chosen`` also says how trec_eval prints them), over
    the first ``depth`` documents of every ranking (None: all) and, with ``judged_only``, their
    documents graded >= 0, scores compared as ``ties`` says, trec_eval's measures as
    ``trec_eval`` (9 or 10) computes them, means over every qrels topic or the ``answered_only``
    ones, ``Judged@k`` for each k of ``judged``, in-process or on the workers of ``n_jobs`` /
    ``scheduler``. Written: to stdout in ``format`` (``places`` decimals in the trec layout), the
    rows of every topic if ``per_query`` and the means if ``summary``; progress bars on stderr if
    ``progress``.
    """

    qrels: str
    runs: tuple[str, ...]
    names: tuple[str, ...]
    measures: tuple[Any, ...]
    per_query: bool = False
    summary: bool = True
    answered_only: bool = False
    depth: Optional[int] = None
    judged: tuple[int, ...] = ()
    judged_only: bool = False
    ties: str = "float32"
    trec_eval: int = 9
    level: Optional[int] = None
    chosen: Any = None              # ir_cwla.app.trec_eval_cli.Measures
    runid: bool = False
    format: str = "trec"
    places: int = 4
    n_jobs: Optional[int] = None
    scheduler: Optional[str] = None
    progress: bool = False

    @property
    def on_workers(self) -> bool:
        """True if the runs are scored on workers (``--scheduler``, ``--n-jobs``), read shard by shard."""
        return self.scheduler is not None or self.n_jobs is not None

    @property
    def needs_frames(self) -> bool:
        """True if a step works on frames (``-M``, ``--judged``), so the files are read as frames."""
        return self.depth is not None or bool(self.judged)


def plan(args: argparse.Namespace) -> Plan:
    """The :class:`Plan` of the parsed options, every one checked before any file is read.

    Raises
    ------
    ir_cwla.errors.UsageError
        ``-n`` without ``-q``; ``-c`` with ``-a``; trec_eval's options ir-cwla cannot honour (``-R
        prefs``, ``-Z``, ...: :func:`ir_cwla.app.trec_eval_cli.check_options`); ``-M``, ``-J``,
        ``--judged``, ``--runid`` or ``--format trec_eval`` with ``--scheduler`` / ``--n-jobs``, or a
        run the workers cannot read (a stream, a path that does not exist).
    ir_cwla.errors.ParameterError
        A measure ``-l`` or ``-J`` cannot apply to, ``--trec-eval 10`` with ``--ties float32``, two
        arguments reading stdin, a run given twice.
    """
    import os

    import ir_cwla
    from ir_cwla.app.evaluate import check_stdin_once, is_stream, unique_run_names
    from ir_cwla.errors import UsageError
    from ir_cwla.scoring import trec_eval_semantics

    trec_eval_cli.check_options(args)
    if args.no_summary and not args.per_query:
        raise UsageError("-n/--no-summary needs -q/--per-query (without -q there is only the summary)")
    version, ties = trec_eval_semantics(args.trec_eval, args.ties)
    chosen = trec_eval_cli.select_measures(args.measures, trec_eval_cli.default_measures(args.format,
                                                                                         ir_cwla.canonical()),
                                           args.level, args.num_docs, args.judged_only)
    check_stdin_once([args.qrels, *args.runs])
    names = unique_run_names(args.runs)
    on_workers = args.scheduler is not None or args.n_jobs is not None
    if on_workers:
        for flag, value in (("-M/--depth", args.depth), ("--judged", args.judged), ("--runid", args.runid),
                            ("-J/--judged-only", args.judged_only),
                            ("--format trec_eval", args.format == "trec_eval")):
            if value:
                raise UsageError(f"{flag} is not available with --scheduler/--n-jobs (each run is read shard by "
                                 "shard)")
        for spec in args.runs:
            if is_stream(spec) or not os.path.exists(spec):
                raise UsageError(f"--scheduler/--n-jobs read runs from files or directories the workers can read: "
                                 f"{spec}")
    # --judged K adds Judged@K, ir-measures' measure: one row where -m names it too (the same value)
    asked = {str(m) for m in chosen.measures}
    judged = tuple(k for k in dict.fromkeys(args.judged or ()) if f"Judged@{k}" not in asked)
    return Plan(qrels=args.qrels, runs=tuple(args.runs), names=tuple(names), measures=tuple(chosen.measures),
                per_query=args.per_query, summary=not args.no_summary, answered_only=args.answered_only,
                depth=args.depth, judged=judged, judged_only=args.judged_only, ties=ties,
                trec_eval=version, level=args.level, chosen=chosen, runid=args.runid,
                format=args.format, places=args.places, n_jobs=args.n_jobs, scheduler=args.scheduler,
                progress=(len(args.runs) > 1 or on_workers) and sys.stderr.isatty())


def execute(plan: Plan) -> int:
    """Carries out ``plan``: reads the files, scores the runs, writes the output; returns the exit status 0."""
    from ir_cwla.app.evaluate import note_conventions

    qrels, runs = read(plan)
    rows = score(plan, qrels, runs)
    sys.stdout.write(write(plan, rows, trec_eval_cli.lines(plan, qrels, runs)))
    note_conventions(plan.qrels)
    return 0


def read(plan: Plan) -> tuple[Any, dict[str, Any]]:
    """The qrels and the runs by name, each read by the reader that takes it.

    On workers, each run is a :class:`ir_cwla.sharding.Shards` the workers read; else the qrels
    and runs as columns if :func:`ir_cwla.app.evaluate.read_clean_files` takes every file and no
    step needs frames (:attr:`Plan.needs_frames`), else as frames (:mod:`ir_cwla.io`). Runs read
    from streams are named by their run tag (:func:`ir_cwla.app.evaluate.stream_names`), every
    run with ``--runid`` (:func:`ir_cwla.app.evaluate.run_tag_names`).
    """
    from ir_cwla.app.evaluate import (
        read_clean_files,
        read_qrels_arg,
        read_run_arg,
        run_tag_names,
        stream_names,
    )

    measures = list(plan.measures)
    if plan.on_workers:
        from ir_cwla.io import _sharding as sharding

        qrels = read_qrels_arg(plan.qrels, measures)
        return qrels, {name: sharding.shards(spec, name=name) for name, spec in zip(plan.names, plan.runs)}
    clean = None if plan.needs_frames else read_clean_files(plan.qrels, plan.runs, measures)
    if clean is not None:
        qrels, runs = clean
    else:
        qrels = read_qrels_arg(plan.qrels, measures)
        runs = [read_run_arg(spec, measures=measures) for spec in plan.runs]
    names = run_tag_names(plan.runs, runs) if plan.runid else stream_names(plan.runs, runs, plan.names)
    return qrels, dict(zip(names, runs))


def score(plan: Plan, qrels: Any, runs: Mapping[str, Any]) -> list[Row]:
    """The output's rows: every run's topics checked (no silent zero), then scored as the plan says.

    Columns are scored without pandas (:func:`ir_cwla.app.evaluate.evaluate_columns`), frames
    and shards by :func:`ir_cwla.app.evaluate.evaluate_runs` (the topics of shards checked once
    they are read), the same values bit for bit; ``-M`` keeps the first ``depth`` documents of
    each ranking first (:func:`ir_cwla.io.top_ranked`), then ``-J`` the documents graded >= 0
    (:func:`ir_cwla.app.evaluate.keep_judged`); ``--judged`` adds the coverage rows.
    """
    from ir_cwla.app.evaluate import (
        RESULT_COLUMNS,
        check_topics,
        evaluate_columns,
        evaluate_runs,
        keep_judged,
    )
    from ir_cwla.io import RunColumns

    measures = list(plan.measures)
    if plan.depth is not None:
        from ir_cwla import io

        runs = {name: io.top_ranked(run, plan.depth, plan.ties) for name, run in runs.items()}
    if not plan.on_workers:
        for name, run in runs.items():
            check_topics(name, run, qrels, plan.answered_only, means=plan.summary)
    if plan.judged_only:            # trec_eval's -J, after -M: every measure sees the judged documents only
        runs = {name: keep_judged(run, qrels) for name, run in runs.items()}
    if all(isinstance(run, RunColumns) for run in runs.values()):
        return evaluate_columns(runs, qrels, measures, per_query=plan.per_query, summary=plan.summary,
                                answered_only=plan.answered_only, ties=plan.ties, trec_eval=plan.trec_eval)
    executor = None
    if plan.on_workers:
        from ir_cwla.analysis.executors import get_executor

        executor = get_executor(n_jobs=plan.n_jobs, scheduler=plan.scheduler)
    results = evaluate_runs(runs, qrels, measures, per_query=plan.per_query, summary=plan.summary,
                            answered_only=plan.answered_only, progress=plan.progress, executor=executor,
                            ties=plan.ties, trec_eval=plan.trec_eval)
    if plan.judged:
        from ir_cwla.app.coverage import coverage_frame, with_coverage

        results = with_coverage(results, coverage_frame(runs, qrels, plan.judged, per_query=plan.per_query,
                                                        summary=plan.summary, ties=plan.ties))
    return list(results[list(RESULT_COLUMNS)].itertuples(index=False, name=None))


def write(plan: Plan, rows: list[Row], lines: Optional[trec_eval_cli.Lines] = None) -> str:
    """The output's text in the plan's format.

    trec_eval's (:func:`ir_cwla.app.trec_eval_format.format_trec_eval`, with its ``runid`` and
    ``relstring`` ``lines``), the trec layout or JSON (:func:`ir_cwla.app.evaluate.format_rows`),
    CSV by pandas. A line of trec_eval's a format cannot hold (relstring) is said on stderr.
    """
    from ir_cwla.app.evaluate import format_results, format_rows, results_frame

    if plan.format == "trec_eval":
        return trec_eval_cli.format_trec_eval_rows(plan, rows, lines)
    trec_eval_cli.note_lines_left_out(plan)
    if plan.format == "csv":
        return format_results(results_frame(rows), "csv")
    return format_rows(rows, plan.format, plan.places)
