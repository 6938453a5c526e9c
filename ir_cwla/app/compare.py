"""``ir-cwla compare``: is system A better than B, by how much, and how sure are we.

::

    ir-cwla compare QRELS RUN RUN... [-m MEASURE...] [--baseline NAME...] [--test T] [--correction C]
                    [--family all|measure] [--alpha A] [--level L] [--trials N] [--resamples R] [--seed S]
                    [--topics strict|intersection] [--format table|csv|markdown|latex] [--out REPORT]
    ir-cwla compare PER_QUERY.csv [...]
    ir-cwla compare QRELS RUN RUN... --reproduced RUN RUN... [--baseline NAME] [--depth K] [--rbo-p P]
    ir-cwla compare PER_QUERY.csv --reproduced PER_QUERY.csv [--baseline NAME]

The runs are scored like ``ir-cwla eval`` (the same readers: files, gzip, ``-`` for stdin,
``irds:`` ids; every qrels topic counts, 0 where a run has none); one argument alone is a
per-query file of ``ir-cwla eval -q --format csv|json|jsonl``. The work is
:func:`ir_cwla.compare`; :func:`add_comparison_section` puts a comparison in an
:class:`ir_cwla.app.report.HtmlReport`. With ``--reproduced`` the runs (or the per-query file)
given there reproduce the originals, in the same order, and the command prints Breuer et al.'s
reproducibility measures (:func:`ir_cwla.comparison.reproducibility`) instead.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Optional

FORMATS = ("table", "csv", "markdown", "latex")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``compare`` sub-command to ``subparsers`` (of ``ir-cwla``'s parser)."""
    from ir_cwla.comparison.api import CORRECTIONS, FAMILIES, tests

    p = subparsers.add_parser(
        "compare", help="compare systems: paired tests, corrected p-values, effect sizes and intervals",
        description="Is system A better than B, by how much, and how sure are we: paired two-sided tests over the "
                    "topics, p-values adjusted over a stated family of hypotheses, mean differences with t and "
                    "bootstrap intervals, Cohen's d_z, Sakai's ES_E2, wins/ties/losses.")
    p.add_argument("inputs", metavar="QRELS RUN... | PER_QUERY", nargs="+",
                   help="TREC qrels and two or more runs (files, - for stdin, irds:ID); or, alone, a per-query file "
                        "of ir-cwla eval -q --format csv")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measure(s) (default: the six canonical C/W/L/A measures @10, or all of a per-query file)")
    p.add_argument("--baseline", dest="baselines", action="extend", nargs="+", metavar="NAME",
                   help="baseline system(s) (default: all pairs)")
    p.add_argument("--test", default="t", help=f"a registered test: {', '.join(tests())} (default t; see the "
                                                "table of tests in docs/compare.md)")
    p.add_argument("--correction", help=f"{', '.join(CORRECTIONS)} (default holm; none for the Tukey tests)")
    p.add_argument("--family", default="all", choices=FAMILIES,
                   help="hypotheses adjusted together: all pairs under all measures, or each measure apart "
                        "(default all)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--level", type=float, default=0.95, help="level of the intervals (default 0.95)")
    p.add_argument("--trials", type=int, default=10000,
                   help="permutations / resamples of the randomised tests and of MaxT (default 10000)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples of the intervals (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--topics", default="strict", choices=("strict", "intersection"),
                   help="systems scored on different topics: an error (strict), or keep the common ones")
    p.add_argument("--max-trials", type=int, metavar="N",
                   help="double --trials while a significance decision could flip within its Monte-Carlo error, "
                        "up to N (the numbers are those of a single run of the final count)")
    p.add_argument("--max-resamples", type=int, metavar="R",
                   help="double --resamples while a bootstrap interval's containing 0 could flip within its "
                        "Monte-Carlo error, up to R")
    p.add_argument("--reproduced", nargs="+", metavar="RUN | PER_QUERY",
                   help="reproductions of the runs (in the same order; or, after a per-query file, the reproduction's "
                        "per-query file): print the reproducibility measures KTU, RBO, RMSE, nRMSE, ER and DRI "
                        "(Breuer et al. 2020) with bootstrap intervals; ER and DRI against --baseline")
    p.add_argument("--depth", type=int, default=1000, help="documents KTU and RBO compare (default 1000)")
    p.add_argument("--rbo-p", type=float, default=0.95, help="RBO's persistence p (default 0.95)")
    p.add_argument("--n-jobs", type=int, help="processes for the randomised parts (default: in-process)")
    p.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    p.add_argument("--out", metavar="REPORT", help="also write an HTML report (tables and a difference figure)")
    p.set_defaults(func=cmd_compare)
    return p


def read_inputs(args: argparse.Namespace) -> Any:
    """The per-query frame of the command's inputs (a per-query file, or qrels and runs scored)."""
    import ir_cwla
    from ir_cwla.app.evaluate import (
        check_stdin_once,
        check_topics,
        command_line_measures,
        evaluate_runs,
        per_query_measures,
        read_per_query,
        read_qrels_arg,
        read_run_arg,
        stream_names,
        unique_run_names,
    )
    from ir_cwla.errors import UsageError

    def measures_arg(texts: Any, default: Any) -> list:   # as cli.measures_arg (cli imports this module)
        return command_line_measures(list(texts)) if texts else list(default)

    if len(args.inputs) == 1:
        frame, _ = per_query_measures(read_per_query(args.inputs[0]), measures_arg(args.measures, []))
        return frame
    qrels_spec, runs_spec = args.inputs[0], args.inputs[1:]
    if len(runs_spec) < 2:
        raise UsageError("compare needs at least two runs (or one per-query file alone)")
    measures = measures_arg(args.measures, ir_cwla.canonical())
    check_stdin_once(args.inputs)
    names = unique_run_names(runs_spec)
    qrels = read_qrels_arg(qrels_spec, measures)
    runs = [read_run_arg(spec, measures=measures) for spec in runs_spec]
    names = stream_names(runs_spec, runs, names)
    for name, run in zip(names, runs):
        check_topics(name, run, qrels)
    frame = evaluate_runs(dict(zip(names, runs)), qrels, measures, per_query=True, summary=False,
                          progress=len(runs) > 1 and sys.stderr.isatty())
    return frame[["name", "qid", "measure", "value"]]


def cmd_compare(args: argparse.Namespace) -> int:
    """``ir-cwla compare``: prints the comparison (and writes an HTML report with ``--out``)."""
    from ir_cwla.app import report
    from ir_cwla.comparison import compare

    if args.reproduced:
        return cmd_reproducibility(args)
    if args.out is not None:
        report.check_output(args.out, inputs=args.inputs)
    per_query = read_inputs(args)
    comparison = compare(per_query, baseline=args.baselines, test=args.test, correction=args.correction,
                         family=args.family, alpha=args.alpha, level=args.level, trials=args.trials,
                         resamples=args.resamples, seed=args.seed, topics=args.topics, n_jobs=args.n_jobs,
                         max_trials=args.max_trials, max_resamples=args.max_resamples, progress=sys.stderr.isatty())
    note = comparison.describe_monte_carlo()
    if note:
        print(f"ir-cwla compare: {note} Pass --max-trials / --max-resamples to add trials until they cannot "
              "(the rows' significance_could_flip and interval_could_flip say which).", file=sys.stderr)
    if args.format == "csv":
        from ir_cwla.text import csv_safe

        sys.stdout.write(csv_safe(comparison.table()).to_csv(index=False))
    elif args.format == "markdown":
        sys.stdout.write(comparison.to_markdown())
    elif args.format == "latex":
        sys.stdout.write(comparison.to_latex())
    else:
        table = comparison.table()
        print(report.text_table(comparison.marked_means(), precision=4))
        print()
        print(report.text_table(table, precision=4, index=False))
        print()
        print(comparison.caption(bold=False))
    if args.out is not None:
        with report.staged(args.out, inputs=args.inputs) as directory:
            page = report.HtmlReport("ir_cwla comparison", f"{len(comparison.systems)} systems, "
                                     f"{comparison.n_topics} topics, {len(comparison.measures)} measures",
                                     directory=directory)
            add_comparison_section(page, comparison)
            page.write()
        print(f"report: {Path(args.out) / 'index.html'}", file=sys.stderr)
    return 0


def cmd_reproducibility(args: argparse.Namespace) -> int:
    """``ir-cwla compare ... --reproduced ...``: Breuer et al.'s reproducibility measures with bootstrap intervals."""
    from ir_cwla.app import report
    from ir_cwla.comparison import reproducibility
    from ir_cwla.errors import UsageError

    if args.format not in ("table", "csv"):
        raise UsageError(f"--reproduced prints a table or csv, not --format {args.format}")
    if args.baselines is not None and len(args.baselines) > 1:
        raise UsageError("--reproduced takes one --baseline (the baseline of ER and DRI)")
    original = read_inputs(args)
    runs = None
    if len(args.inputs) == 1:
        if len(args.reproduced) != 1:
            raise UsageError("after a per-query file, --reproduced takes the reproduction's per-query file")
        reproduced = read_inputs(argparse.Namespace(**{**vars(args), "inputs": args.reproduced}))
    else:
        from ir_cwla.app.evaluate import unique_run_names

        originals = args.inputs[1:]
        if len(args.reproduced) != len(originals):
            raise UsageError(f"--reproduced takes one reproduction per run: {len(originals)} runs, "
                             f"{len(args.reproduced)} reproductions")
        names = unique_run_names(originals)                   # a reproduction goes by its original's name
        reproduced = read_inputs(argparse.Namespace(**{**vars(args), "inputs": [args.inputs[0], *args.reproduced]}))
        renamed = dict(zip(unique_run_names(args.reproduced), names))
        reproduced = reproduced.assign(name=reproduced["name"].map(lambda n: renamed.get(n, n)))
        runs = (dict(zip(names, originals)), dict(zip(names, args.reproduced)))
    result = reproducibility(original, reproduced, baseline=args.baselines[0] if args.baselines else None,
                             runs=runs, depth=args.depth, rbo_p=args.rbo_p, level=args.level,
                             resamples=args.resamples, seed=args.seed, topics=args.topics)
    if args.format == "csv":
        from ir_cwla.text import csv_safe

        sys.stdout.write(csv_safe(result.table()).to_csv(index=False))
    else:
        print(report.text_table(result.table(), precision=4, index=False))
        print()
        print(result.caption())
    return 0


def add_comparison_section(page: Any, comparison: Any, title: str = "Comparison of systems",
                           intro: Optional[str] = None) -> Any:
    """Renders a :class:`ir_cwla.comparison.Comparison` into an :class:`ir_cwla.app.report.HtmlReport`.

    The section shows the means with significance marks, the caption (test, correction, family),
    every pair's row, and the per-topic differences of the most significant pair of the first
    measure.

    Parameters
    ----------
    page
        The :class:`ir_cwla.app.report.HtmlReport` to add the section to.
    comparison
        The :class:`ir_cwla.comparison.Comparison` to render.
    title
        The section's heading.
    intro
        A note under the heading (what is compared and why).
    """
    from ir_cwla.analysis import naming

    page.section(title)
    if intro:
        page.text(intro, note=True)
    page.text(comparison.caption(bold=False))
    page.table(comparison.marked_means(), "mean scores with significance marks", filename="comparison_means.csv")
    rows = comparison.table()
    page.table(rows, f"every pair: differences (system - baseline) with {comparison.level:g} intervals, effect sizes, "
               "p-values", index=False, filename="comparison.csv")
    if len(rows):
        best = comparison.most_significant()
        fig = comparison.plot_differences(best["baseline"], best["system"], best["measure"])
        page.figure(fig, f"per-topic differences {best['system']} - {best['baseline']} under "
                         f"{naming.label(best['measure'])}, sorted (the most significant pair of this measure)",
                    filename="comparison_differences.png")
    return page
