"""The ``ir-cwla`` command line: ``eval``, ``meta``, ``leaderboard``, ``cwl`` and ``demo``.

::

    ir-cwla eval QRELS RUN... [-m MEASURE...] [-q] [--format trec|csv|json]
    ir-cwla meta QRELS RUNDIR [-m MEASURE...] [--trials N] [--out REPORT]
    ir-cwla leaderboard CSV [--weights accuracy=0.5,latency=0.25,cost=0.25] [--out REPORT]
    ir-cwla cwl GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE] [-n] [-r] [--max_depth N]
    ir-cwla demo [--out REPORT]

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

import pandas as pd

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


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a depth >= 1, got {text!r}")
    return value


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
    if args.judged:
        from ir_cwla.app.coverage import coverage_frame, with_coverage

        results = with_coverage(results, coverage_frame(runs, qrels, args.judged, per_query=args.per_query))
    sys.stdout.write(format_results(results, args.format, args.places))
    note_conventions(args.qrels)
    return 0


# ------------------------------------------------------------------------- meta

def cmd_meta(args: argparse.Namespace) -> int:
    """``ir-cwla meta``: similarity, consistency and discriminative power of measures over runs."""
    import ir_cwla
    from ir_cwla import meta
    from ir_cwla.app import report

    measures = measures_arg(args.measures, ir_cwla.table1())
    if not os.path.isdir(args.rundir):
        raise CliError(f"run directory not found: {args.rundir}")
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
    page = report.HtmlReport("ir_cwla meta-evaluation",
                             f"{per_query['name'].nunique()} runs from {args.rundir}, "
                             f"{per_query['qid'].nunique()} topics, {len(measures)} measures; qrels {args.qrels}.",
                             directory=args.out)
    means = per_query.pivot_table(index="name", columns="measure", values="value", aggfunc="mean", sort=False)
    page.section("Runs")
    page.table(means.rename(columns=meta.label).rename_axis("run"), "mean score of every run (rows) under every "
               "measure (columns)", filename="means.csv")
    report.add_meta_sections(page, sim, cons, disc)
    per_query.to_csv(Path(args.out) / "per_query.csv", index=False)
    path = page.write()
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(cons.table().drop(columns=["better_than"]).to_string(index=False, float_format="%.3f"))
        print()
        print(disc.table().to_string(index=False, float_format="%.4f"))
    print(f"\nreport: {path}")
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
    from ir_cwla import leaderboard as lb
    from ir_cwla.app import report

    if not os.path.exists(args.csv):
        raise CliError(f"CSV file not found: {args.csv}")
    try:
        df = pd.read_csv(args.csv)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as ex:
        raise CliError(f"malformed CSV file {args.csv}: {ex}") from None
    name = args.name or ("name" if "name" in df.columns else df.columns[0])
    if name not in df.columns:
        raise CliError(f"{args.csv}: no column {name!r} (columns: {', '.join(map(str, df.columns))})")
    df[name] = df[name].astype(str)
    board = lb.Leaderboard.from_frame(df, accuracy=args.accuracy, latency=args.latency, cost=args.cost, name=name)
    weights = parse_weights(args.weights)
    shown = ["accuracy", "latency", "cost"]
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        table = board.table(weights)
        print(table[[board.columns[c] for c in shown] + ["dynascore", "rank"]].to_string(float_format="%.4g"))
        budget = {k: v for k, v in (("latency", args.max_latency), ("cost", args.max_cost)) if v is not None}
        if budget:
            print(f"\nwithin budget ({', '.join(f'{k} <= {v:g}' for k, v in budget.items())}), by accuracy:")
            print(board.within_budget(**budget)[shown + ["rank"]].to_string(float_format="%.4g"))
        if args.min_accuracy is not None:
            print(f"\naccuracy >= {args.min_accuracy:g}, cheapest first:")
            print(board.above_accuracy(args.min_accuracy)[shown + ["rank"]].to_string(float_format="%.4g"))
    if args.out:
        page = report.HtmlReport("ir_cwla leaderboard", f"{len(df)} systems from {args.csv}", directory=args.out)
        report.add_leaderboard_sections(page, board, weights)
        print(f"\nreport: {page.write()}")
    return 0


# ------------------------------------------------------------------------- cwl

def cmd_cwl(args: argparse.Namespace) -> int:
    """``ir-cwla cwl``: cwl_eval's command and output (see :mod:`ir_cwla.app.cwl`)."""
    from ir_cwla.app import cwl

    metrics = cwl.read_metrics_file(args.metrics_file) if args.metrics_file else cwl.DEFAULT_METRICS
    table = cwl.evaluate(args.gain_file, args.result_file, metrics, cost_file=args.cost_file,
                         residuals=args.residuals, max_gain=args.max_gain, min_gain=args.min_gain,
                         max_cost=args.max_cost, min_cost=args.min_cost, max_depth=args.max_depth)
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
        raise CliError(f"the demo needs pyterrier-pisa and bm25s ({ex}): pip install 'ir-cwla[systems]'") from None
    from ir_cwla.app.demo import run_demo

    names = None
    if args.systems:
        names = list(catalogue.SMOKE_SYSTEMS) if args.systems == "smoke" else \
            [n.strip() for n in args.systems.split(",") if n.strip()]
        catalogue.system_specs(names)          # unknown names fail here, before any work
    result = run_demo(args.out, systems=names, trials=args.trials, test_trials=args.test_trials,
                      seed=args.seed, warmup=args.warmup, repeats=args.repeats, instance=args.instance,
                      progress=not args.quiet)
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
    p.add_argument("--judged", type=_positive_int, action="append", metavar="K",
                   help="also print Judged@K, the share of judged documents in the top K (repeatable)")
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
    p.add_argument("--accuracy", default="accuracy", help="accuracy column (default 'accuracy')")
    p.add_argument("--latency", default="latency", help="latency column (default 'latency')")
    p.add_argument("--cost", default="cost", help="cost column (default 'cost')")
    p.add_argument("--weights", help="Dynascore weights, e.g. accuracy=0.5,latency=0.25,cost=0.25 (the default)")
    p.add_argument("--max-latency", type=float, help="also rank the systems within this latency budget")
    p.add_argument("--max-cost", type=float, help="also rank the systems within this cost budget")
    p.add_argument("--min-accuracy", type=float, help="also rank the systems above this accuracy by cost")
    p.add_argument("--out", metavar="REPORT", help="write an HTML report with figures to this directory")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("cwl", help="cwl_eval's command: EU, ETU, EC, ETC, ED (and residuals) per topic",
                       description="cwl_eval's arguments, metrics files and output, computed by ir_cwla (rankings "
                                   "in trec_eval order). Gains are real values, costs priced by element type.")
    p.add_argument("gain_file", help="TREC qrels whose fourth column is a gain in [--min_gain, --max_gain]")
    p.add_argument("result_file", help="TREC run: topic element_type doc_id rank score run_id")
    p.add_argument("-c", "--cost_file", help="costs of the element types (lines: element_type cost)")
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
