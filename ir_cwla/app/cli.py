"""The ``ir-cwla`` command line: ``eval``, ``meta``, ``leaderboard`` and ``demo``.

::

    ir-cwla eval QRELS RUN... [-m MEASURE...] [-q] [--format trec|csv|json]
    ir-cwla meta QRELS RUNDIR [-m MEASURE...] [--trials N] [--out REPORT]
    ir-cwla leaderboard CSV [--weights accuracy=0.5,latency=0.25,cost=0.25] [--out REPORT]
    ir-cwla demo [--out REPORT] [--systems smoke] [--save-runs]

QRELS and RUN are TREC files (plain or gzipped) or ir_datasets ids written ``irds:ID``
(``irds:cranfield`` is bundled and gets the Cranfield grade conventions of
:mod:`ir_cwla.datasets`). Measures are read by :func:`ir_cwla.parse_measure`: ir-measures
syntax (``nDCG@10``, ``AP(rel=2)``, ``CWLA(C='RBP', A='max')@10``), the short names ir_cwla
prints (``RBP_max@10``, ``RBP(p=0.9)_max[pad]@10``) and trec_eval names (``ndcg_cut_10``);
the default is the six canonical C/W/L/A measures at cutoff 10.

This module only parses arguments and prints; the work is done by :mod:`.evaluate`
(scoring and formatting), :mod:`ir_cwla.meta`, :mod:`ir_cwla.leaderboard`, :mod:`.report`
and :mod:`.demo`.

Errors in the input (a missing file, an unknown measure, a malformed line) are reported on
one line of stderr with exit status 1; usage errors exit with status 2, as argparse does.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from ir_cwla.app.evaluate import (
    evaluate_runs,
    format_results,
    note_conventions,
    read_qrels_arg,
    read_run_arg,
    unique_run_names,
)
from ir_cwla.names import parse_measures


class CliError(Exception):
    """An error the command line reports on one line (no traceback), exit status 1."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (``ir-cwla eval: error: ... (see --help)``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def measures_arg(texts: Optional[Sequence[str]], default: Sequence) -> list:
    """Measures from ``-m`` arguments (:func:`ir_cwla.parse_measures`); ``default`` if none."""
    return parse_measures(list(texts)) if texts else list(default)


def cmd_eval(args: argparse.Namespace) -> int:
    """``ir-cwla eval``: scores runs like trec_eval, with any ir-measures or C/W/L/A measure."""
    import ir_cwla

    measures = measures_arg(args.measures, ir_cwla.canonical())
    qrels = read_qrels_arg(args.qrels)
    runs = {name: read_run_arg(spec) for name, spec in zip(unique_run_names(args.runs), args.runs)}
    results = evaluate_runs(runs, qrels, measures, per_query=args.per_query,
                            progress=len(runs) > 1 and sys.stderr.isatty())
    sys.stdout.write(format_results(results, args.format, args.places))
    note_conventions(args.qrels)
    return 0


# ------------------------------------------------------------------------- meta

def cmd_meta(args: argparse.Namespace) -> int:
    """``ir-cwla meta``: similarity, consistency and discriminative power of measures over runs."""
    import ir_cwla
    from ir_cwla import meta
    from ir_cwla.app import report
    from ir_cwla.meta.frame import check_alpha
    from ir_cwla.meta.streams import check_trials
    from ir_cwla.text import csv_safe

    measures = measures_arg(args.measures, ir_cwla.table1())
    check_trials(args.trials, "--trials")                  # every argument before any work
    check_trials(args.test_trials, "--test-trials")
    check_alpha(args.alpha)
    if not os.path.isdir(args.rundir):
        raise CliError(f"run directory not found: {args.rundir}")
    report.check_output(args.out, inputs=[args.rundir, args.qrels])
    qrels = read_qrels_arg(args.qrels)
    progress = sys.stderr.isatty()
    per_query = meta.evaluate(args.rundir, qrels, measures, progress=progress)
    all_cwla = all(ir_cwla.is_cwla(m) for m in measures)
    groups = meta.browsing_model if all_cwla else None
    sim = meta.similarity(per_query, groups=groups)
    cons = meta.consistency(per_query, trials=args.trials, test_trials=args.test_trials, alpha=args.alpha,
                            seed=args.seed, groups=groups, progress=progress)
    disc = meta.discriminative_power(per_query, trials=args.test_trials, alpha=args.alpha, seed=args.seed,
                                     groups=groups, progress=progress)
    with report.staged(args.out, inputs=[args.rundir, args.qrels]) as directory:
        page = report.HtmlReport("ir_cwla meta-evaluation",
                                 f"{per_query['name'].nunique()} runs from {args.rundir}, "
                                 f"{per_query['qid'].nunique()} topics, {len(measures)} measures; qrels {args.qrels}.",
                                 directory=directory)
        means = sim.means.rename(columns=sim.labels).rename_axis("run")
        page.section("Runs")
        page.table(means, "mean score of every run (rows) under every measure (columns)", filename="means.csv")
        report.add_meta_sections(page, sim, cons, disc)
        csv_safe(per_query).to_csv(directory / "per_query.csv", index=False)
        page.write()
    print(report.text_table(cons.table().drop(columns=["better_than"]), precision=3, index=False))
    print()
    print(report.text_table(disc.table(), precision=4, index=False))
    print(f"\nreport: {Path(args.out) / 'index.html'}")
    note_conventions(args.qrels)
    return 0


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
            raise CliError(f"bad weight {part!r}: write NAME=NUMBER, e.g. accuracy=0.5,latency=0.25,cost=0.25")
    if not weights:
        raise CliError("--weights is empty")
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
            raise CliError(f"{flag} must be a finite number, got {value}")
    if args.out:
        report.check_output(args.out, inputs=[args.csv])
    board = lb.Leaderboard.read_csv(args.csv, accuracy=args.accuracy, latency=args.latency, cost=args.cost,
                                    name=args.name)
    budget = {k: v for k, v in (("latency", args.max_latency), ("cost", args.max_cost)) if v is not None}
    with warnings.catch_warnings(record=True) as caught:   # tables, figures and page before any output
        warnings.simplefilter("always", lb.RankingWarning)
        tables = report.leaderboard_tables(board, weights, budget, args.min_accuracy)
        if args.out:
            with report.staged(args.out, inputs=[args.csv]) as directory:
                page = report.HtmlReport("ir_cwla leaderboard", f"{len(board.results)} systems from {args.csv}",
                                         directory=directory)
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


# ------------------------------------------------------------------------- demo

def cmd_demo(args: argparse.Namespace) -> int:
    """``ir-cwla demo``: the offline end-to-end demo on Cranfield (see :mod:`ir_cwla.app.demo`)."""
    from ir_cwla.app import systems as catalogue

    try:
        import bm25s  # noqa: F401
        import pyterrier_pisa  # noqa: F401
    except ImportError as ex:
        raise CliError(f"the demo needs pyterrier-pisa and bm25s ({ex}): pip install 'ir-cwla[systems]'") from None
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

def build_parser() -> argparse.ArgumentParser:
    """The ``ir-cwla`` argument parser (one sub-command per verb)."""
    parser = _Parser(prog="ir-cwla", description="C/W/L/A measures, meta-evaluation and efficiency-aware "
                                                 "leaderboards for ir-measures and PyTerrier.")
    parser.add_argument("--traceback", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("eval", help="score runs against qrels (like trec_eval / ir_measures)",
                       description="Score TREC runs against qrels, like trec_eval -q / ir_measures.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or irds:ID")
    p.add_argument("runs", metavar="RUN", nargs="+", help="TREC run file(s) or irds:ID")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measure(s) in ir-measures syntax, repeatable or space-separated "
                        "(default: the six canonical C/W/L/A measures @10)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print the score of every query")
    p.add_argument("--format", choices=("trec", "csv", "json"), default="trec", help="output format (default trec)")
    p.add_argument("-p", "--places", type=int, default=4, help="decimals in the trec format (default 4)")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("meta", help="meta-evaluate measures: similarity, consistency, discriminative power",
                       description="The three analyses of Chen & Sakai over a directory of TREC runs; writes "
                                   "tables, figures and an HTML report.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or irds:ID")
    p.add_argument("rundir", metavar="RUNDIR", help="directory of TREC run files (one system each)")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measures to compare (default: the 39 Table-1 C/W/L/A measures @10)")
    p.add_argument("--trials", type=int, default=1000, help="random topic splits for consistency (default 1000)")
    p.add_argument("--test-trials", type=int, default=2000,
                   help="permutations of the randomised Tukey HSD tests (default 2000)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", default="meta-report", metavar="REPORT", help="output directory (default meta-report)")
    p.set_defaults(func=cmd_meta)

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
    p.add_argument("--out", metavar="REPORT", help="write an HTML report with figures to this directory")
    p.set_defaults(func=cmd_leaderboard)

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
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``ir-cwla`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("ir-cwla: interrupted", file=sys.stderr)
        return 130
    except Exception as ex:   # one line, never a traceback (unless asked for)
        if args.traceback:
            raise
        print(f"ir-cwla {args.command}: error: {_one_line(ex)}", file=sys.stderr)
        return 1


def _one_line(ex: BaseException) -> str:
    if isinstance(ex, (CliError, ValueError, OSError, KeyError)):
        text = ex.args[0] if isinstance(ex, KeyError) and ex.args else str(ex)
        if isinstance(ex, OSError) and ex.filename and ex.strerror:
            text = f"{ex.strerror}: {ex.filename}"
    else:
        text = f"{type(ex).__name__}: {ex} (rerun with --traceback for details)"
    return " ".join(str(text).split()) or type(ex).__name__
