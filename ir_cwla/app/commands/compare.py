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
:func:`ir_cwla.compare`; :func:`ir_cwla.app.report.add_comparison_section` puts a comparison in
the HTML report. Its options name the tests and corrections of :mod:`ir_cwla.comparison`,
imported only when ``compare`` runs (or ``--help`` lists every command). With ``--reproduced``
the runs (or the per-query file) given there reproduce the originals, in the same order, and the
command prints Breuer et al.'s reproducibility measures (:func:`ir_cwla.comparison.reproducibility`)
instead.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Literal, Optional

from ir_cwla.app.commands import eval as eval_command
from ir_cwla.app.commands import options
from ir_cwla.app.commands.options import check_report, measures_arg

NAME = "compare"

FORMATS = ("table", "csv", "markdown", "latex")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``compare`` to ``subparsers``: its options name the tests and corrections of :mod:`ir_cwla.comparison`."""
    from ir_cwla.app.commands import COMMANDS
    from ir_cwla.comparison.api import CORRECTIONS, FAMILIES, tests

    p = subparsers.add_parser(
        NAME, help=COMMANDS[NAME],
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
    p.add_argument("--seed", type=options.seed, default=0, help="random seed (default 0)")
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
    p.set_defaults(plan=plan, execute=execute)
    return p


@dataclass(frozen=True)
class Plan:
    """What ``ir-cwla compare`` reads, computes and writes.

    Read: the ``per_query`` file (the measures of ``measures``, None: all of them), or the runs
    of ``scores``, the plan of ``ir-cwla eval -q -n`` that scores them (the same readers, the
    same checks, the same values). Computed: :func:`ir_cwla.compare` with the rest of the fields
    as its arguments. Written: stdout in ``format``, a report in ``out`` if given.

    With ``reproduced`` (a plan of the same shape: its ``per_query`` file or its ``scores``), the
    reproducibility measures of :func:`ir_cwla.comparison.reproducibility` instead: ``runs`` pairs
    each original run's name with its file and its reproduction's file (KTU and RBO compare the
    rankings), ``depth`` and ``rbo_p`` are theirs.
    """

    per_query: Optional[str] = None
    measures: Optional[tuple[Any, ...]] = None
    scores: Optional[eval_command.Plan] = None
    baselines: Optional[tuple[str, ...]] = None
    test: str = "t"
    correction: Optional[str] = None
    family: str = "all"
    alpha: float = 0.05
    level: float = 0.95
    trials: int = 10000
    resamples: int = 2000
    seed: int = 0
    topics: Literal["strict", "intersection"] = "strict"
    n_jobs: Optional[int] = None
    max_trials: Optional[int] = None
    max_resamples: Optional[int] = None
    format: str = "table"
    out: Optional[str] = None
    reproduced: Optional[Plan] = None
    runs: Optional[tuple[dict[str, str], dict[str, str]]] = None
    depth: int = 1000
    rbo_p: float = 0.95

    @property
    def inputs(self) -> list[str]:
        """The files read (the report directory may not hold one)."""
        if self.scores is None:
            return [self.per_query] if self.per_query is not None else []
        return [self.scores.qrels, *self.scores.runs]


def plan(args: argparse.Namespace) -> Plan:
    """The :class:`Plan` of the parsed options: ``--out``, the number of runs, the measures, stdin checked."""
    import sys

    import ir_cwla
    from ir_cwla.app.evaluate import check_stdin_once, unique_run_names
    from ir_cwla.errors import UsageError

    check_report(args.out, args.inputs)
    from ir_cwla.analysis import streams

    for flag, value in (("--trials", args.trials), ("--resamples", args.resamples), ("--max-trials", args.max_trials),
                        ("--max-resamples", args.max_resamples)):
        if value is not None:           # (before any work: scoring the runs can take long)
            streams.check_trials(value, flag)
    common = dict(baselines=tuple(args.baselines) if args.baselines else None, test=args.test,
                  correction=args.correction, family=args.family, alpha=args.alpha, level=args.level,
                  trials=args.trials, resamples=args.resamples, seed=args.seed, topics=args.topics,
                  n_jobs=args.n_jobs, max_trials=args.max_trials, max_resamples=args.max_resamples,
                  format=args.format, out=args.out)
    if args.reproduced:
        if args.format not in ("table", "csv"):
            raise UsageError(f"--reproduced prints a table or csv, not --format {args.format}")
        if args.baselines is not None and len(args.baselines) > 1:
            raise UsageError("--reproduced takes one --baseline (the baseline of ER and DRI)")
        common.update(depth=args.depth, rbo_p=args.rbo_p)
    if len(args.inputs) == 1:
        measures = tuple(measures_arg(args.measures, [])) if args.measures else None
        reproduced = None
        if args.reproduced:
            if len(args.reproduced) != 1:
                raise UsageError("after a per-query file, --reproduced takes the reproduction's per-query file")
            reproduced = Plan(per_query=args.reproduced[0], measures=measures)
        return Plan(per_query=args.inputs[0], measures=measures, reproduced=reproduced, **common)
    qrels, runs = args.inputs[0], args.inputs[1:]
    if len(runs) < 2 and not args.reproduced:
        raise UsageError("compare needs at least two runs (or one per-query file alone)")
    measures = tuple(measures_arg(args.measures, ir_cwla.canonical()))
    check_stdin_once([*args.inputs, *(args.reproduced or [])])
    names = tuple(unique_run_names(runs))
    scores = eval_command.Plan(qrels=qrels, runs=tuple(runs), names=names, measures=measures,
                               per_query=True, summary=False, progress=sys.stderr.isatty())
    if not args.reproduced:
        return Plan(measures=measures, scores=scores, **common)
    if len(args.reproduced) != len(runs):
        raise UsageError(f"--reproduced takes one reproduction per run: {len(runs)} runs, "
                         f"{len(args.reproduced)} reproductions")
    # a reproduction goes by its original's name
    again = eval_command.Plan(qrels=qrels, runs=tuple(args.reproduced), names=names, measures=measures,
                              per_query=True, summary=False, progress=sys.stderr.isatty())
    return Plan(measures=measures, scores=scores, reproduced=Plan(measures=measures, scores=again),
                runs=(dict(zip(names, runs)), dict(zip(names, args.reproduced))), **common)


def read(plan: Plan) -> Any:
    """The per-query frame of the plan's inputs: the per-query file, or the runs scored as ``ir-cwla eval`` scores them."""
    from ir_cwla.app.evaluate import per_query_measures, read_per_query, results_frame

    if plan.scores is None:
        assert plan.per_query is not None
        frame, _ = per_query_measures(read_per_query(plan.per_query), list(plan.measures or []))
        return frame
    rows = eval_command.score(plan.scores, *eval_command.read(plan.scores))
    return results_frame(rows)[["name", "qid", "measure", "value"]]


def execute(plan: Plan) -> int:
    """Prints the comparison (and writes an HTML report with ``--out``)."""
    import sys
    from pathlib import Path

    from ir_cwla.app import report
    from ir_cwla.comparison import compare

    if plan.reproduced is not None:
        return execute_reproducibility(plan)
    comparison = compare(read(plan), baseline=list(plan.baselines) if plan.baselines else None, test=plan.test,
                         correction=plan.correction, family=plan.family, alpha=plan.alpha, level=plan.level,
                         trials=plan.trials, resamples=plan.resamples, seed=plan.seed, topics=plan.topics,
                         n_jobs=plan.n_jobs, max_trials=plan.max_trials, max_resamples=plan.max_resamples,
                         progress=sys.stderr.isatty())
    note = comparison.describe_monte_carlo()
    if note:
        print(f"ir-cwla compare: {note} Pass --max-trials / --max-resamples to add trials until they cannot "
              "(the rows' significance_could_flip and interval_could_flip say which).", file=sys.stderr)
    if plan.format == "csv":
        from ir_cwla._text import csv_safe

        sys.stdout.write(csv_safe(comparison.table()).to_csv(index=False))
    elif plan.format == "markdown":
        sys.stdout.write(comparison.to_markdown())
    elif plan.format == "latex":
        sys.stdout.write(comparison.to_latex())
    else:
        table = comparison.table()
        print(report.text_table(comparison.marked_means(), precision=4))
        print()
        print(report.text_table(table, precision=4, index=False))
        print()
        print(comparison.caption(bold=False))
    if plan.out is not None:
        with report.staged(plan.out, inputs=plan.inputs) as directory:
            page = report.HtmlReport("ir_cwla comparison", f"{len(comparison.systems)} systems, "
                                     f"{comparison.n_topics} topics, {len(comparison.measures)} measures",
                                     directory=directory)
            report.add_comparison_section(page, comparison)
            page.write()
        print(f"report: {Path(plan.out) / 'index.html'}", file=sys.stderr)
    return 0


def execute_reproducibility(plan: Plan) -> int:
    """Prints Breuer et al.'s reproducibility measures with bootstrap intervals (``--reproduced``)."""
    import sys

    from ir_cwla.app import report
    from ir_cwla.comparison import reproducibility

    assert plan.reproduced is not None
    result = reproducibility(read(plan), read(plan.reproduced), baseline=plan.baselines[0] if plan.baselines else None,
                             runs=plan.runs, depth=plan.depth, rbo_p=plan.rbo_p, level=plan.level,
                             resamples=plan.resamples, seed=plan.seed, topics=plan.topics)
    if plan.format == "csv":
        from ir_cwla._text import csv_safe

        sys.stdout.write(csv_safe(result.table()).to_csv(index=False))
    else:
        print(report.text_table(result.table(), precision=4, index=False))
        print()
        print(result.caption())
    return 0
