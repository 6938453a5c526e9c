"""The ``ir-cwla`` command line: ``eval``, ``measures``, ``meta``, ``leaderboard``, ``cwl`` and ``demo``.

::

    ir-cwla eval QRELS RUN... [-m MEASURE...] [-q] [-n] [-a] [-M DEPTH] [-l LEVEL] [-J]
                              [--ties float32|float64] [--runid] [--format trec|csv|json|jsonl] [-p PLACES]
    ir-cwla measures QRELS RUN MEASURE... [-p N] [-q] [-n] [-o tsv|jsonl] [--provider P]
    ir-cwla meta (QRELS RUNDIR | PER_QUERY) [-m MEASURE...] [--trials N] [--alt-qrels FILE...] [--out REPORT]
    ir-cwla leaderboard CSV [--weights accuracy=0.5,latency=0.25,cost=0.25] [--per-query FILE] [--out REPORT]
    ir-cwla cwl GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE] [-n] [-r] [--max_depth N]
    ir-cwla demo [--out REPORT] [--systems smoke] [--save-runs]
    ir-cwla --version

QRELS and RUN are TREC files or streams (``-`` is stdin; ``/dev/stdin``, ``<(zcat run.gz)``
and FIFOs work too; plain, gzip, bzip2 or xz), read once by :mod:`ir_cwla.io`, or
ir_datasets ids written ``irds:ID`` (``irds:cranfield`` is bundled and gets the Cranfield
grade conventions of :mod:`ir_cwla.datasets`). Measures are read by
:func:`ir_cwla.parse_measure`: ir-measures syntax (``nDCG@10``, ``AP(rel=2)``,
``CWLA(C='RBP', A='max')@10``), the short names ir_cwla prints (``RBP_max@10``,
``RBP(p=0.9)_max[pad]@10``) and trec_eval names (``ndcg_cut_10``, ``map``); the default is
the six canonical C/W/L/A measures at cutoff 10. ``measures`` is ir_measures' command line
(same arguments, same output, byte for byte) with the C/W/L/A measures registered; so it
names measures as ir_measures prints them, ``str(measure)`` (``CWLA(C='RBP',A='ERG')@10``),
where ``eval`` and every table of ir_cwla print the short name (``RBP_ERG@10``). Both names
read back to the same measure.

This module only parses arguments and prints; the work is done by :mod:`.evaluate`
(reading, checking, scoring and formatting), :mod:`ir_cwla.meta`, :mod:`ir_cwla.leaderboard`,
:mod:`.report` and :mod:`.demo`.

Errors in the input (a missing file, an unknown measure, a malformed line, an empty run)
are reported on one line of stderr with exit status 1 (``--traceback``, anywhere on the
line, shows the traceback instead); usage errors exit with status 2, as argparse does.
Every warning is shown once, on one line of stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

from ir_cwla.app.compare import add_parser as add_compare_parser
from ir_cwla.app.evaluate import (
    FORMATS,
    check_stdin_once,
    check_topics,
    command_line_measures,
    evaluate_columns,
    evaluate_runs,
    format_results,
    format_rows,
    is_stream,
    note_conventions,
    per_query_measures,
    qrels_spec,
    read_clean_files,
    read_per_query,
    read_qrels_arg,
    read_run_arg,
    run_tag_names,
    stream_names,
    unique_run_names,
    with_judged_only,
    with_relevance_level,
)
from ir_cwla.costs import allow_cost_files
from ir_cwla.errors import DataError, InputError, IrCwlaError, UsageError


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (``ir-cwla eval: error: ... (see --help)``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a depth >= 1, got {text!r}")
    return value


def _places(text: str) -> int:
    """``-p``: decimals of the trec format, an int >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of decimal places >= 0, got {text!r}")
    return value


def _numbers(kind: type, text: str) -> list:
    try:
        values = [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one number")
    return values


def _floats(text: str) -> list[float]:
    return _numbers(float, text)


def _ints(text: str) -> list[int]:
    return _numbers(int, text)


def measures_arg(texts: Optional[Sequence[str]], default: Sequence) -> list:
    """Measures from ``-m`` arguments, or ``default`` if there are none.

    The arguments are read by :func:`ir_cwla.parse_measures`, the cost files they name allowed
    (:func:`ir_cwla.app.evaluate.command_line_measures`).
    """
    return command_line_measures(list(texts)) if texts else list(default)


def cmd_eval(args: argparse.Namespace) -> int:
    """``ir-cwla eval``: scores runs like trec_eval, with any ir-measures or C/W/L/A measure."""
    import ir_cwla

    if args.no_summary and not args.per_query:
        raise UsageError("-n/--no-summary needs -q/--per-query (without -q there is only the summary)")
    measures = with_judged_only(with_relevance_level(measures_arg(args.measures, ir_cwla.canonical()), args.level),
                                args.judged_only)
    check_stdin_once([args.qrels, *args.runs])
    names = unique_run_names(args.runs)
    if _without_pandas(args, names, measures):
        return 0
    qrels = read_qrels_arg(args.qrels, measures)
    if args.scheduler is not None or args.n_jobs is not None:
        return _eval_in_shards(args, names, qrels, measures)
    runs = [read_run_arg(spec, measures=measures) for spec in args.runs]
    names = run_tag_names(args.runs, runs) if args.runid else stream_names(args.runs, runs, names)
    if args.depth is not None:
        from ir_cwla import io

        runs = [io.top_ranked(run, args.depth, args.ties) for run in runs]
    for name, run in zip(names, runs):
        check_topics(name, run, qrels, args.answered_only)
    results = evaluate_runs(dict(zip(names, runs)), qrels, measures, per_query=args.per_query,
                            summary=not args.no_summary, answered_only=args.answered_only,
                            progress=len(runs) > 1 and sys.stderr.isatty(), ties=args.ties)
    if args.judged:
        from ir_cwla.app.coverage import coverage_frame, with_coverage

        coverage = coverage_frame(dict(zip(names, runs)), qrels, args.judged, per_query=args.per_query,
                                  summary=not args.no_summary, ties=args.ties)
        results = with_coverage(results, coverage)
    sys.stdout.write(format_results(results, args.format, args.places))
    note_conventions(args.qrels)
    return 0


def _without_pandas(args: argparse.Namespace, names: list[str], measures: list) -> bool:
    """``ir-cwla eval`` on clean files, read and scored without pandas (the time of ``ir_measures``' command).

    True once the output is written; False where the general path is needed: a stream, a named
    source, a file any rule of :mod:`ir_cwla.io` has something to say about
    (:func:`ir_cwla.app.evaluate.read_clean_files`), ``--format csv``, ``-M``, ``--judged``,
    ``--scheduler`` or ``--n-jobs``. The output is the general path's, byte for byte.
    """
    if args.format == "csv" or args.depth is not None or args.judged or args.scheduler is not None \
            or args.n_jobs is not None or any(is_stream(spec) for spec in [args.qrels, *args.runs]):
        return False
    read = read_clean_files(args.qrels, args.runs, measures)
    if read is None:
        return False
    qrels, runs = read
    names = run_tag_names(args.runs, runs) if args.runid else names
    for name, run in zip(names, runs):
        check_topics(name, run, qrels, args.answered_only)
    rows = evaluate_columns(dict(zip(names, runs)), qrels, measures, per_query=args.per_query,
                            summary=not args.no_summary, answered_only=args.answered_only, ties=args.ties)
    sys.stdout.write(format_rows(rows, args.format, args.places))
    return True


def _eval_in_shards(args: argparse.Namespace, names: list[str], qrels: Any, measures: list) -> int:
    """``ir-cwla eval --scheduler ADDR`` / ``--n-jobs N``: the runs scored shard by shard on the workers.

    Each RUN (a file, a directory of run files by topic, a Hive-partitioned Parquet dataset) is
    read shard by shard on the workers (:func:`ir_cwla.sharding.shards`), never whole; the output
    is that of the runs scored whole.
    """
    from ir_cwla import sharding
    from ir_cwla.meta.executors import get_executor

    for flag, value in (("-M/--depth", args.depth), ("--judged", args.judged), ("--runid", args.runid)):
        if value:
            raise UsageError(f"{flag} is not available with --scheduler/--n-jobs (each run is read shard by shard)")
    for spec in args.runs:
        if is_stream(spec) or not os.path.exists(spec):
            raise UsageError(f"--scheduler/--n-jobs read runs from files or directories the workers can read: {spec}")
    runs = {name: sharding.shards(spec, name=name) for name, spec in zip(names, args.runs)}
    executor = get_executor(n_jobs=args.n_jobs, scheduler=args.scheduler)
    results = evaluate_runs(runs, qrels, measures, per_query=args.per_query, summary=not args.no_summary,
                            answered_only=args.answered_only, progress=sys.stderr.isatty(), executor=executor,
                            ties=args.ties)
    sys.stdout.write(format_results(results, args.format, args.places))
    note_conventions(args.qrels)
    return 0


def cmd_measures(args: argparse.Namespace) -> int:
    """``ir-cwla measures``: ir_measures' command line, with the C/W/L/A measures registered.

    Same arguments and same output as ir_measures, read with ir_cwla's readers (streams, checks,
    one duplicate policy).
    """
    import ir_measures
    from ir_measures.__main__ import OUTPUT_FORMATS
    from ir_measures.util import Metric

    from ir_cwla import io

    if args.no_summary and not args.by_query:
        raise UsageError("--no_summary (-n) only supported with --by_query (-q)")
    measures = command_line_measures(args.measures)
    check_stdin_once([args.qrels, args.run])
    spec = qrels_spec(args.qrels)
    qrels = read_qrels_arg(spec, measures)
    run = read_run_arg(args.run, measures=measures)
    check_topics(io.input_name(args.run), run, qrels)
    calc = ir_measures.providers.registry[args.provider] if args.provider else ir_measures
    output = OUTPUT_FORMATS[args.output_format](args)
    if args.by_query:
        aggregators = None if args.no_summary else {m: m.aggregator() for m in measures}
        for result in calc.iter_calc(measures, qrels, run):
            output(result)
            if aggregators:
                aggregators[result.measure].add(result.value)
        if aggregators:
            for m in measures:
                output(Metric(query_id=io.SUMMARY_QID, measure=m, value=aggregators[m].result()))
    else:
        results = calc.calc_aggregate(measures, qrels, run)
        for m in measures:
            output(Metric(query_id=io.SUMMARY_QID, measure=m, value=results[m]))
    note_conventions(spec)
    return 0


# ------------------------------------------------------------------------- meta

def criteria_arg(text: Optional[str], available: Sequence[str]) -> Optional[list[str]]:
    """``--criteria`` as a list of names, each checked before any work.

    Each name must be a known criterion, and the inputs it needs must be ``available``.

    Parameters
    ----------
    text
        The ``--criteria`` argument: names separated by commas.
    available
        The inputs there are (names of :data:`ir_cwla.meta.criteria.NEEDS`).

    Returns
    -------
    list of str or None
        The criteria asked for; None (no ``--criteria``): every criterion the inputs allow.
    """
    from ir_cwla.meta import criteria

    if text is None:
        return None
    asked = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in asked if c not in criteria.CRITERIA]
    if unknown or not asked:
        raise UsageError(f"--criteria: unknown {', '.join(map(repr, unknown)) or 'empty list'}; "
                         f"choose from {', '.join(criteria.CRITERIA)}")
    from ir_cwla.app.judge_inputs import HOW

    for name in asked:
        missing = [n for n in criteria.CRITERIA[name].needs or ("per_query",) if n not in available]
        if missing:
            raise UsageError(f"--criteria {name} needs {' and '.join(missing)}: "
                             f"{HOW.get(missing[0], 'give QRELS and run files, or a per-query file')}")
    return asked


def run_files_arg(specs: Sequence[str]) -> Any:
    """RUNDIR, run files or quoted globs (``'runs/*.gz'``) as what :func:`ir_cwla.meta.evaluate` takes."""
    import glob

    if len(specs) == 1 and os.path.isdir(specs[0]):
        return specs[0]
    files: list[str] = []
    for spec in specs:
        if os.path.lexists(spec) or not any(ch in spec for ch in "*?["):
            if not os.path.lexists(spec):
                raise UsageError(f"run file or directory not found: {spec}")
            if os.path.isdir(spec):
                raise UsageError(f"{spec} is a directory: give one directory of runs, or run files")
            files.append(spec)
        else:
            found = sorted(glob.glob(spec))
            if not found:
                raise UsageError(f"no run file matches {spec}")
            files.extend(found)
    return list(dict.fromkeys(files))


def alt_qrels_arg(specs: Optional[Sequence[str]]) -> dict[str, str]:
    """``--alt-qrels`` as ``{name: qrels}``, from ``FILE``, ``NAME=FILE`` or ``irds:ID`` arguments.

    A ``FILE`` is named by the file's name without its extensions (``group1-assessor-a.txt`` ->
    ``group1-assessor-a``).
    """
    out: dict[str, str] = {}
    for spec in specs or ():
        name, path = None, spec
        if "=" in spec and not os.path.lexists(spec) and not spec.startswith("irds:"):
            name, path = spec.split("=", 1)
            if not name or not path:
                raise UsageError(f"--alt-qrels {spec!r}: write NAME=FILE or FILE")
        if name is None:
            name = Path(path).name if not path.startswith("irds:") else path
            for ext in (".gz", ".bz2", ".xz", ".zst", ".txt", ".qrels", ".tsv"):
                if name.endswith(ext) and len(name) > len(ext):
                    name = name[: -len(ext)]
        if name in out:
            raise UsageError(f"--alt-qrels: two qrels are named {name!r} ({out[name]} and {path}); name them: "
                             "NAME=FILE")
        out[name] = path
    return out


def cmd_meta(args: argparse.Namespace) -> int:
    """``ir-cwla meta``: the meta-evaluation criteria of measures over runs, in one report."""
    import pandas as pd

    import ir_cwla
    from ir_cwla import meta
    from ir_cwla.app import judge_inputs, report
    from ir_cwla.meta import criteria
    from ir_cwla.meta.frame import check_alpha
    from ir_cwla.text import csv_safe

    have_runs = bool(args.runs)
    alt_specs = judge_inputs.alt_qrels_specs(args.alt_qrels)
    labels_only = bool(alt_specs) and not have_runs          # QRELS and --alt-qrels: the labels alone
    available = judge_inputs.available(args, have_runs, alt_specs)
    judge_inputs.check_paths(args)
    names = criteria_arg(args.criteria, available)          # every argument before any work
    options = {key: getattr(args, key) for key in criteria.command_line_options()}
    chosen = [n for n in criteria.resolve(names, available) if not labels_only or criteria.CRITERIA[n].needs]
    for name in chosen:
        criteria.options_of(name, options)
    check_alpha(args.alpha)
    run_spec = run_files_arg(args.runs) if have_runs else None
    inputs_files = [args.qrels] + ([run_spec] if isinstance(run_spec, str) else list(run_spec or [])) + \
        [p for p in alt_specs.values() if not p.startswith("irds:")]
    report.check_output(args.out, inputs=inputs_files)
    progress = sys.stderr.isatty()

    def step(text: str) -> None:          # one line per step on stderr, terminal or not (bars: terminal only)
        print(f"ir-cwla meta: {text}", file=sys.stderr, flush=True)

    timings: dict[str, float] = {}
    clock = time.perf_counter()
    runs: Optional[dict[str, Any]] = None
    alternatives: Optional[dict[str, Any]] = None
    qrels: Any = None
    if labels_only:            # QRELS and other assessors' qrels: their labels compared, no run scored
        step(f"reading the qrels {args.qrels} and {len(alt_specs)} other assessors' qrels")
        try:
            qrels = read_qrels_arg(args.qrels, [])
        except InputError as ex:
            raise UsageError(f"--alt-qrels without RUNS compares the labels of QRELS with the other assessors': "
                             f"{ex} (a per-query file cannot be scored again with other assessors' qrels: give QRELS "
                             "and RUNS)") from None
        alternatives = judge_inputs.read_alternatives(alt_specs, args, lambda path: read_qrels_arg(path, []))
        per_query = pd.DataFrame(columns=["name", "qid", "measure", "value"])
        measures: list[Any] = []
        source = f"qrels {args.qrels}; other assessors' qrels {', '.join(alt_specs)}."
    elif not have_runs:        # one argument: a per-query file of `ir-cwla eval -q --format csv`, or trec_eval -q files
        if os.path.isdir(args.qrels):       # trec_eval's measure names (IPrec@0.1, ...): selected by name
            step(f"reading the per-topic score files (trec_eval -q) of {args.qrels}")
            per_query, measures = judge_inputs.score_files_measures(
                meta.read_score_files(args.qrels), [str(m) for m in measures_arg(args.measures, [])], step)
        else:
            step(f"reading the per-query file {args.qrels}")
            per_query, measures = per_query_measures(read_per_query(args.qrels), measures_arg(args.measures, []))
        source = f"{args.qrels}."
    else:
        assert run_spec is not None
        measures = measures_arg(args.measures, ir_cwla.table1())
        mapping = meta.evaluation.as_run_mapping(run_spec)
        step(f"reading the qrels {args.qrels} and {len(mapping)} run files")
        qrels = read_qrels_arg(args.qrels, measures)
        alternatives = judge_inputs.read_alternatives(alt_specs, args, lambda path: read_qrels_arg(path, measures)) \
            or None
        runs = {name: read_run_arg(path, name, measures) for name, path in mapping.items()}
        # every run's topics checked by meta.evaluate (the rule of eval: no silent zero)
        step(f"evaluating {len(runs)} runs x {qrels['query_id'].nunique()} qrels topics x {len(measures)} measures")
        per_query = meta.evaluate(runs, qrels, measures, progress=progress)
        shown = run_spec if isinstance(run_spec, str) else f"{len(runs)} run files"
        source = f"{shown}; qrels {args.qrels}" + (f"; other assessors' qrels {', '.join(alt_specs)}" if alt_specs
                                                   else "") + "."
    timings["evaluation"] = time.perf_counter() - clock
    groups = groups_arg(args.groups, measures)
    inputs = criteria.Inputs(per_query, measures, runs, qrels, alternatives, groups=groups, seed=args.seed,
                             alpha=args.alpha, progress=progress,
                             alternative_scores=judge_inputs.read_alternative_scores(
                                 args, list(pd.unique(per_query["measure"])) or None),
                             run_models=judge_inputs.read_run_models(args))
    suits = {n: criteria.CRITERIA[n].applies for n in chosen}
    unsuited = [n for n, applies in suits.items() if applies is not None and not applies(inputs)]
    if unsuited and names is not None:
        raise UsageError(f"--criteria {unsuited[0]}: the inputs do not suit it "
                         f"({criteria.CRITERIA[unsuited[0]].question})")
    chosen = [n for n in chosen if n not in unsuited]
    done = criteria.run(chosen, inputs, options, log=step)
    timings.update(done.seconds)
    step(f"writing the report to {args.out}")
    means = per_query.pivot_table(index="name", columns="measure", values="value", aggfunc="mean")
    means = means[meta.naming.measure_order(means.columns)].rename(columns=meta.label).rename_axis("run")
    with report.staged(args.out, inputs=inputs_files) as directory:
        page = report.HtmlReport("ir_cwla meta-evaluation",
                                 f"{per_query['name'].nunique()} runs, {per_query['qid'].nunique()} topics, "
                                 f"{len(measures)} measures, from {source}", directory=directory)
        if len(per_query):
            page.section("Runs")
            page.table(means, "mean score of every run (rows) under every measure (columns)", filename="means.csv")
        report.add_meta_sections(page, done)
        report.add_timings(page, timings)
        csv_safe(per_query).to_csv(directory / "per_query.csv", index=False)
        page.write()
    for name, table in done.summaries.items():
        criterion = criteria.CRITERIA[name]
        print(f"{criterion.title}:")
        note = table.attrs.get("note", "")
        if len(table):
            print(report.text_table(table, precision=criterion.precision, index=False))
        elif not note:
            note = "nothing to show (no row)"
        if note:
            print(f"  {note}")
        print()
    print(report.text_table(report.timings_table(timings), precision=2, index=False))
    print(f"\nreport: {Path(args.out) / 'index.html'}")
    if have_runs:
        note_conventions(args.qrels)
    return 0


def groups_arg(text: str, measures: Sequence[Any]) -> Any:
    """``--groups``: 'model', 'all' or 'auto', as the families of measures compared.

    'model': the aggregations of each browsing model compared with each other, as the paper does
    (other measures each a family of their own); 'all': one family; 'auto': 'model' when every
    measure is C/W/L/A, else 'all'.
    """
    import ir_cwla
    from ir_cwla import meta

    if text == "auto":
        text = "model" if all(ir_cwla.is_cwla(m) for m in measures) else "all"
    return meta.browsing_model if text == "model" else None


# ------------------------------------------------------------------------- leaderboard

def parse_weights(text: Optional[str]) -> Optional[dict[str, float]]:
    """``'accuracy=0.5,latency=0.25,cost=0.25'`` -> a dict (None for None)."""
    if text is None:
        return None
    weights = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        try:
            weights[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not key.strip():
            raise UsageError(f"bad weight {part!r}: write NAME=NUMBER, e.g. accuracy=0.5,latency=0.25,cost=0.25")
    if not weights:
        raise UsageError("--weights is empty")
    return weights


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """``ir-cwla leaderboard``: Dynascore ranking (and budgets) from a CSV of measured numbers."""
    import math
    import warnings

    from ir_cwla import leaderboard as lb
    from ir_cwla.app import report

    weights = parse_weights(args.weights)                  # every argument before any work
    for flag, value in (("--max-latency", args.max_latency), ("--max-cost", args.max_cost),
                        ("--min-accuracy", args.min_accuracy)):
        if value is not None and not math.isfinite(value):
            raise UsageError(f"{flag} must be a finite number, got {value}")
    if args.resamples is not None and (isinstance(args.resamples, bool) or args.resamples < 1):
        raise UsageError(f"--resamples must be a positive number of bootstrap resamples, got {args.resamples}")
    if args.level is not None and not 0 < args.level < 1:
        raise UsageError(f"--level must lie in (0, 1), got {args.level}")
    inputs = [args.csv] + ([args.per_query] if args.per_query else [])
    if args.out:
        report.check_output(args.out, inputs=inputs)
    per_query = None
    if args.per_query:
        check_stdin_once(inputs)
        per_query = read_per_query(args.per_query)
    board = lb.Leaderboard.read_csv(args.csv, accuracy=args.accuracy, latency=args.latency, cost=args.cost,
                                    name=args.name)
    if per_query is not None:
        try:
            board = board.with_per_query(per_query)
        except DataError as ex:
            raise DataError(f"--per-query {args.per_query} does not fit {args.csv}: {ex}") from None
    uncertain = {k: v for k, v in (("--seed", args.seed), ("--resamples", args.resamples), ("--level", args.level))
                 if v is not None}
    if uncertain and board.accuracy_per_query() is None:
        raise UsageError(f"{', '.join(uncertain)} {'sets' if len(uncertain) == 1 else 'set'} the bootstrap intervals of the ranks, which need the per-topic "
                         f"accuracy scores: give them with --per-query FILE (ir-cwla eval -q --format csv)")
    level = 0.95 if args.level is None else float(args.level)
    resamples = 2000 if args.resamples is None else int(args.resamples)
    seed = 0 if args.seed is None else int(args.seed)
    budget = {k: v for k, v in (("latency", args.max_latency), ("cost", args.max_cost)) if v is not None}
    with warnings.catch_warnings(record=True) as caught:   # tables, figures and page before any output
        warnings.simplefilter("always", lb.RankingWarning)
        tables = report.leaderboard_tables(board, weights, budget, args.min_accuracy, level=level,
                                           resamples=resamples, seed=seed)
        if args.out:
            with report.staged(args.out, inputs=inputs) as directory:
                source = f"{len(board.results)} systems from {args.csv}" + \
                    (f", per-topic scores from {args.per_query}" if args.per_query else "")
                page = report.HtmlReport("ir_cwla leaderboard", source, directory=directory)
                report.add_leaderboard_sections(page, board, weights, tables=tables)
                page.write()
    for w in caught:
        if not issubclass(w.category, lb.RankingWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    notes = list(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, lb.RankingWarning)))
    print(tables[0].text())
    for table in tables[1:]:
        print(f"\n{table.caption}:\n{table.text()}")
    for note in notes:
        print(f"ir-cwla leaderboard: warning: {note}", file=sys.stderr)
    if args.out:
        print(f"\nreport: {Path(args.out) / 'index.html'}")
    return 0


# ------------------------------------------------------------------------- cwl

def cmd_cwl(args: argparse.Namespace) -> int:
    """``ir-cwla cwl``: cwl_eval's command and output (see :mod:`ir_cwla.app.cwl`)."""
    from ir_cwla.app import cwl

    check_stdin_once([s for s in (args.gain_file, args.result_file, args.cost_file, args.metrics_file) if s])
    metrics = cwl.read_metrics_file(args.metrics_file) if args.metrics_file else cwl.DEFAULT_METRICS
    table = cwl.evaluate_table(args.gain_file, args.result_file, metrics, cost_file=args.cost_file,
                               residuals=args.residuals, max_gain=args.max_gain, min_gain=args.min_gain,
                               max_cost=args.max_cost, min_cost=args.min_cost, max_depth=args.max_depth,
                               order=args.order)
    sys.stdout.write(cwl.format_table(table, colnames=args.colnames))
    if args.bib_file:
        cwl.write_bibtex(metrics, args.bib_file)
    return 0


# ------------------------------------------------------------------------- demo

def cmd_demo(args: argparse.Namespace) -> int:
    """``ir-cwla demo``: the offline end-to-end demo on Cranfield (see :mod:`ir_cwla.app.demo`)."""
    from ir_cwla.app import systems as catalogue

    try:
        import bm25s  # noqa: F401
        import pyterrier_pisa  # noqa: F401
    except ImportError as ex:
        raise UsageError(f"the demo needs pyterrier-pisa and bm25s ({ex}): pip install 'ir-cwla[systems]'") from None
    from ir_cwla.app.demo import run_demo

    names = None
    if args.systems:
        names = list(catalogue.SMOKE_SYSTEMS) if args.systems == "smoke" else \
            [n.strip() for n in args.systems.split(",") if n.strip()]
    # run_demo checks every argument (systems, trials, instance, --out) before any work
    result = run_demo(args.out, systems=names, trials=args.trials, test_trials=args.test_trials,
                      seed=args.seed, warmup=args.warmup, repeats=args.repeats, instance=args.instance,
                      save_runs=args.save_runs, progress=not args.quiet)
    for note in result.notes:
        print(f"ir-cwla demo: warning: {note}", file=sys.stderr)
    print(result.summary())
    return 0


# ------------------------------------------------------------------------- entry point

EVAL_EPILOG = """\
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


def registered_text(width: int = 86) -> str:
    """The browsing models and aggregations registered now, for ``--help``.

    Each is listed with its parameters and their defaults (``RBP(p=0.8)``), built from the
    registries (plugins included).
    """
    import textwrap

    from ir_cwla.aggregation import AGGREGATIONS
    from ir_cwla.browsing import BROWSING_MODELS
    from ir_cwla.names import format_number

    def entry(name: str, params: Any) -> str:
        shown = ",".join(f"{k}={format_number(v.default)}" for k, v in params.items())
        return f"{name}({shown})" if shown else name

    lines = []
    for title, table in (("browsing models (C)", BROWSING_MODELS), ("aggregations (A)", AGGREGATIONS)):
        text = f"{title}: " + ", ".join(entry(name, e.params) for name, e in table.items()) + "."
        lines.extend(textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False))
    return "\n".join(lines)


def version_text() -> str:
    """``ir-cwla --version``: the version, and the plugins loaded (``ir_cwla.plugins``)."""
    from ir_cwla import __version__, plugins

    loaded = plugins.load()
    return f"ir-cwla {__version__}" + (f" (plugins: {', '.join(map(str, loaded))})" if loaded else "")


def _criteria_names() -> list[str]:
    from ir_cwla.meta.criteria import CRITERIA

    return list(CRITERIA)


def _criteria_titles() -> list[str]:
    from ir_cwla.meta.criteria import CRITERIA

    return [c.title for c in CRITERIA.values()]


def _add_criteria_options(p: argparse.ArgumentParser) -> None:
    """The options of every registered criterion (:func:`ir_cwla.meta.criteria.command_line_options`)."""
    from ir_cwla.meta.criteria import CRITERIA, command_line_options

    for key, option in command_line_options().items():
        users = [c.name for c in CRITERIA.values() if any(o.key == key for o in c.options)]
        default = option.default
        shown = ",".join(map(str, default)) if isinstance(default, (tuple, list)) else default
        p.add_argument(option.flag, dest=key, type=option.reader(), default=default, metavar=option.metavar,
                       help=f"{'/'.join(users)}: {option.help} (default {shown})")


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The ``ir-cwla`` argument parser (one sub-command per verb).

    Parameters
    ----------
    command : str, optional
        The sub-command about to run (``''``: none, e.g. ``--version``); ``meta`` and ``compare``,
        whose options are built from :mod:`ir_cwla.meta` and :mod:`ir_cwla.comparison`, are then
        built in full only if they are the one, so that ``ir-cwla eval`` (and ``--help``) never
        imports them. None (the default, and ``ir-cwla --help``): every sub-command in full.
    """
    parser = _Parser(prog="ir-cwla", description="C/W/L/A measures, meta-evaluation and efficiency-aware "
                                                 "leaderboards for ir-measures and PyTerrier.")
    parser.add_argument("--traceback", action="store_true",
                        help="show the full traceback of an error (accepted anywhere on the line)")
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("eval", help="score runs against qrels (like trec_eval / ir_measures)",
                       description="Score TREC runs against qrels, like trec_eval -q / ir_measures.",
                       epilog=EVAL_EPILOG.format(averaging=AVERAGING, registered=registered_text()),
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
    p.add_argument("-M", "--depth", type=_positive_int, metavar="DEPTH",
                   help="score only the first DEPTH documents of every ranking (trec_eval -M)")
    p.add_argument("-l", "--level", type=int, metavar="LEVEL",
                   help="binary measures count grades >= LEVEL as relevant (trec_eval -l; default 1)")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="judged documents only (trec_eval -J): the unjudged are removed from every ranking "
                        "first (after -M); C/W/L/A measures get unjudged='condense', ir-measures measures "
                        "judged_only=True; a measure with neither is an error")
    p.add_argument("--ties", choices=("float32", "float64"), default="float32",
                   help="precision scores are compared in when ranking: float32 (default; trec_eval up to "
                        "9.0.8, pytrec_eval, ir_measures: scores equal to ~7 digits tie) or float64 "
                        "(trec_eval 10), for every measure")
    p.add_argument("--runid", action="store_true",
                   help="name runs by their run tag (sixth field of the first line), as trec_eval does")
    p.add_argument("--format", choices=FORMATS, default="trec",
                   help="output format (default trec); csv/json/jsonl carry str(measure) in 'measure' "
                        "and a 'short' name, and read back into ir-cwla meta")
    p.add_argument("--judged", type=_positive_int, action="append", metavar="K",
                   help="also print Judged@K, the share of judged documents in the top K (repeatable)")
    p.add_argument("-p", "--places", type=_places, default=4, help="decimals in the trec format (default 4)")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="score on the Dask cluster at ADDR (tcp://host:8786), each run read shard by shard by the "
                        "workers: a file, a directory of run files by topic or a Parquet dataset by topic")
    p.add_argument("--n-jobs", type=_positive_int, metavar="N",
                   help="score on N local processes, each run read shard by shard (as --scheduler)")
    p.set_defaults(func=cmd_eval)

    import ir_measures

    p = sub.add_parser("measures", help="ir_measures' command line, with the C/W/L/A measures",
                       description="ir_measures QRELS RUN MEASURE... with the same arguments and output; "
                                   "QRELS is a file or an ir_datasets id, RUN a file (- for stdin). Measures are "
                                   "named as ir_measures prints them (CWLA(C='RBP',A='ERG')@10), not by the short "
                                   "names of ir-cwla eval (RBP_ERG@10); both read back to the same measure.")
    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("run", metavar="RUN")
    p.add_argument("measures", metavar="MEASURE", nargs="+")
    p.add_argument("--places", "-p", type=int, default=4)
    p.add_argument("--by_query", "--by-query", "-q", dest="by_query", action="store_true")
    p.add_argument("--no_summary", "--no-summary", "-n", dest="no_summary", action="store_true")
    p.add_argument("--output_format", "--output-format", "-o", dest="output_format", choices=("tsv", "jsonl"),
                   default="tsv")
    p.add_argument("--provider", choices=sorted(ir_measures.providers.registry))
    p.set_defaults(func=cmd_measures)

    if command in (None, "meta"):
        _add_meta_parser(sub)
    else:       # its options come from the criteria of ir_cwla.meta: built only to run it
        sub.add_parser("meta", help="meta-evaluate measures")

    p = sub.add_parser("leaderboard", help="rank systems from a CSV of accuracy, latency and cost",
                       description="Efficiency-aware leaderboard (Dynascore) from precomputed numbers.")
    p.add_argument("csv", metavar="CSV", help="one row per system: a name column and numeric columns")
    p.add_argument("--name", help="column of the system names (default: 'name', else the first column)")
    p.add_argument("--accuracy", help="accuracy column (default: from environment.json beside the CSV, as "
                                      "`ir-cwla demo` writes it; else 'accuracy'; else the first other numeric column)")
    p.add_argument("--latency", help="latency column (default: from environment.json; else 'latency'; "
                                     "else 'latency_p50_ms')")
    p.add_argument("--cost", help="cost column (default: from environment.json; else 'cost'; "
                                  "else 'usd_per_1M_q_from_qps')")
    p.add_argument("--weights", help="Dynascore weights, e.g. accuracy=0.5,latency=0.25,cost=0.25 (the default)")
    p.add_argument("--max-latency", type=float, help="also rank the systems within this latency budget")
    p.add_argument("--max-cost", type=float, help="also rank the systems within this cost budget")
    p.add_argument("--min-accuracy", type=float, help="also rank the systems above this accuracy by cost")
    p.add_argument("--per-query", metavar="FILE",
                   help="per-topic scores of the accuracy measure (ir-cwla eval -q --format csv: name,qid,measure,"
                        "value); adds rank_low, rank_high (bootstrap interval over topics of each Dynascore rank) "
                        "and which adjacent ranks are separable. Default: the per_query.csv that board.save() (and "
                        "the demo) wrote beside the CSV, if any")
    p.add_argument("--level", type=float, help="level of the rank intervals (default 0.95)")
    p.add_argument("--resamples", type=int, help="bootstrap resamples of the topics for the rank intervals "
                                                 "(default 2000)")
    p.add_argument("--seed", type=int, help="random seed of the rank intervals (default 0)")
    p.add_argument("--out", metavar="REPORT", help="write an HTML report with figures to this directory")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("cwl", help="cwl_eval's command: EU, ETU, EC, ETC, ED (and residuals) per topic",
                       description="cwl_eval's arguments, metrics files and output (byte for byte, see "
                                   "ir_cwla.app.cwl): rankings in the result file's line order, as cwl_eval, unless "
                                   "--order trec. Gains are real values, costs priced by element type. Every file "
                                   "may be a path, '-', a pipe or a FIFO, plain or compressed.")
    p.add_argument("gain_file", help="TREC qrels whose fourth column is a gain in [--min_gain, --max_gain]")
    p.add_argument("result_file", help="TREC run: topic element_type doc_id rank score run_id")
    p.add_argument("-c", "--cost_file", help="costs of the element types (lines: element_type cost; a line "
                                             "'* COST' prices the types it does not list and missing documents)")
    p.add_argument("-m", "--metrics_file", help="cwl_eval metrics, one ClassName(args) per line "
                                                "(default: cwl_eval's 16 default metrics)")
    p.add_argument("-b", "--bib_file", help="write the BibTeX of the metrics used to this file")
    p.add_argument("-n", "--colnames", action="store_true", help="print the column names")
    p.add_argument("-r", "--residuals", action="store_true", help="also print the residuals (best - worst case)")
    p.add_argument("--max_gain", type=float, default=1.0, help="largest gain; an unjudged document's in the best "
                                                               "case (default 1.0)")
    p.add_argument("--min_gain", type=float, default=0.0, help="smallest gain of the gain file (default 0.0)")
    p.add_argument("--max_cost", type=float, default=1.0, help="cost of an unpriced element in the worst case "
                                                               "(default 1.0)")
    p.add_argument("--min_cost", type=float, default=1.0, help="cost of an unpriced element in the best case "
                                                               "(default 1.0)")
    p.add_argument("--max_depth", type=int, default=1000, help="depth of every ranking (default 1000)")
    p.add_argument("--order", choices=("file", "trec"), default="file",
                   help="the ranking: 'file' (default), each topic's lines in the order they come, as cwl_eval; "
                        "'trec', by score as trec_eval (score desc compared in float32, ties by doc_id desc)")
    p.set_defaults(func=cmd_cwl)

    p = sub.add_parser("demo", help="the offline end-to-end demo on Cranfield (what `make demo` runs)",
                       description="Index Cranfield with pyterrier-pisa and bm25s, evaluate with pt.Experiment, "
                                   "meta-evaluate, build the Dynascore leaderboard, write an HTML report.")
    p.add_argument("--out", default="report", metavar="REPORT", help="output directory (default report)")
    p.add_argument("--systems", help="comma-separated system names, or 'smoke' for a reduced set (default: all)")
    p.add_argument("--trials", type=int, default=1000, help="random topic splits for consistency (default 1000)")
    p.add_argument("--test-trials", type=int, default=2000, help="permutations of the randomised tests (2000)")
    p.add_argument("--repeats", type=int, default=3, help="timed passes over the topics per system (default 3)")
    p.add_argument("--warmup", type=int, default=10, help="untimed queries before timing (default 10)")
    p.add_argument("--instance", default="m5.large", help="cloud instance that prices the cost (default m5.large)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--save-runs", action="store_true", help="also keep the TREC run files in REPORT/runs "
                                                             "(about 9 MB per system)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_demo)
    if command in (None, "compare"):
        add_compare_parser(sub)
    else:       # its options come from ir_cwla.comparison: built only to run it
        sub.add_parser("compare", help="compare systems")
    return parser


def _add_meta_parser(sub: Any) -> None:
    """The ``meta`` sub-command: its options are those of the registered criteria."""
    p = sub.add_parser("meta", help="meta-evaluate measures: " + ", ".join(_criteria_titles()),
                       description="Meta-evaluation criteria of measures over TREC runs (a directory, run files "
                                   "or globs): " + "; ".join(_criteria_titles()) + ". Writes tables, figures, "
                                   "their run times and an HTML report.")
    p.add_argument("qrels", metavar="QRELS|PER_QUERY",
                   help="TREC qrels file or irds:ID; or, alone, a per-query file of ir-cwla eval -q --format csv or a "
                        "directory of per-topic score files (trec_eval -q, one per run)")
    p.add_argument("runs", metavar="RUNS", nargs="*",
                   help="a directory of TREC run files (one system each), or run files, or quoted globs")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measures to compare (default: the 39 Table-1 C/W/L/A measures @10)")
    p.add_argument("--criteria", metavar="LIST",
                   help="comma-separated subset of " + ", ".join(_criteria_names()) + " (default: every one the "
                        "inputs allow; those that re-score the runs need QRELS and RUNS)")
    p.add_argument("--groups", choices=("auto", "model", "all"), default="auto",
                   help="families compared within: 'model' (the aggregations of each browsing model), 'all' (one "
                        "family), 'auto' (model if every measure is C/W/L/A, else all; the default)")
    p.add_argument("--alt-qrels", dest="alt_qrels", nargs="+", action="extend", metavar="FILE",
                   help="qrels of other assessors of the same topics (FILE, NAME=FILE, irds:ID or a directory of "
                        "files, one judge each; named by the file name): adds label_agreement and, with RUNS, "
                        "assessor_variation; QRELS and --alt-qrels alone compare the labels only")
    from ir_cwla.app.judge_inputs import add_arguments

    add_arguments(p)
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    _add_criteria_options(p)
    p.add_argument("--out", default="meta-report", metavar="REPORT", help="output directory (default meta-report)")
    p.set_defaults(func=cmd_meta)


@contextlib.contextmanager
def _warnings_on_stderr(prog: str) -> Iterator[None]:
    """Shows every warning once, on one line of stderr (``ir-cwla eval: warning: ...``)."""
    seen: set[tuple[type, str]] = set()

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
        text = " ".join(str(message).split())
        if (category, text) not in seen:
            seen.add((category, text))
            print(f"{prog}: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always", UserWarning)      # repeats are dropped by ``show``
        warnings.showwarning = show
        yield


def run() -> int:
    """The ``ir-cwla`` command (its console script and ``python -m ir_cwla``): :func:`main` in a process of its own.

    What the imports made lives as long as the process, so it is frozen out of the garbage
    collector's passes first (``gc.freeze``): they no longer traverse it during the command nor
    at exit, where the last pass took 30 ms of every command. (Not in :func:`main`, which a
    program may call many times in one process.)
    """
    import gc

    gc.freeze()
    return main()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``ir-cwla`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    traceback = "--traceback" in argv
    argv = [a for a in argv if a != "--traceback"]
    parser = build_parser(_command(argv))
    args = parser.parse_args(argv)
    prog = f"ir-cwla {args.command}"
    try:
        with _warnings_on_stderr(prog), allow_cost_files():   # what a command allows ends with it
            return args.func(args)
    except KeyboardInterrupt:
        print("ir-cwla: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:           # `ir-cwla eval ... | head`: the reader has gone, say nothing
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as ex:   # one line, never a traceback (unless asked for)
        if traceback:
            raise
        print(f"{prog}: error: {_one_line(ex)}", file=sys.stderr)
        return 1


def _command(argv: Sequence[str]) -> Optional[str]:
    """The sub-command ``argv`` runs: its first word that is not an option.

    The top level has only options without values. ``''`` if there is no sub-command
    (``--version``), None for ``--help`` without one (which lists every sub-command).
    """
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None if ("-h" in argv or "--help" in argv) else ""


def _one_line(ex: BaseException) -> str:
    if isinstance(ex, (IrCwlaError, ValueError, OSError, KeyError)):
        text = ex.args[0] if isinstance(ex, KeyError) and ex.args else str(ex)
        if isinstance(ex, OSError) and ex.filename and ex.strerror:
            text = f"{ex.strerror}: {ex.filename}"
    else:
        text = f"{type(ex).__name__}: {ex} (rerun with --traceback for details)"
    return " ".join(str(text).split()) or type(ex).__name__
