"""``ir-cwla leaderboard``: Dynascore ranking (and budgets) from a CSV of measured numbers.

::

    ir-cwla leaderboard CSV [--weights accuracy=0.5,latency=0.25,cost=0.25] [--max-latency L] [--max-cost C]
                        [--min-accuracy A] [--per-query FILE] [--level L] [--resamples R] [--seed S] [--out REPORT]
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Optional

from ir_cwla.app.commands import options
from ir_cwla.app.commands.options import check_report

NAME = "leaderboard"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``leaderboard`` to ``subparsers`` (of ``ir-cwla``'s parser)."""
    from ir_cwla.app.commands import COMMANDS

    p = subparsers.add_parser(NAME, help=COMMANDS[NAME],
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
    p.add_argument("--seed", type=options.seed, help="random seed of the rank intervals (default 0)")
    p.add_argument("--out", metavar="REPORT", help="write an HTML report with figures to this directory")
    p.set_defaults(plan=plan, execute=execute)
    return p


def parse_weights(text: Optional[str]) -> Optional[dict[str, float]]:
    """``'accuracy=0.5,latency=0.25,cost=0.25'`` -> a dict (None for None)."""
    from ir_cwla.errors import UsageError

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


@dataclass(frozen=True)
class Plan:
    """What ``ir-cwla leaderboard`` reads, computes and writes.

    Read: the ``csv`` of systems (its columns ``name``, ``accuracy``, ``latency``, ``cost``; None:
    found by :meth:`ir_cwla.leaderboard.Leaderboard.read_csv`) and the ``per_query`` scores of
    the accuracy measure. Computed: the Dynascore ranking with ``weights`` (None: the default),
    rankings within each ``budget`` and above ``min_accuracy``, bootstrap intervals of the ranks
    at ``level`` with ``resamples`` and ``seed`` (``uncertainty``: the options that set them, as
    given). Written: the tables on stdout, a report in ``out`` if given.
    """

    csv: str
    per_query: Optional[str] = None
    name: Optional[str] = None
    accuracy: Optional[str] = None
    latency: Optional[str] = None
    cost: Optional[str] = None
    weights: Optional[dict[str, float]] = None
    budget: dict[str, float] = field(default_factory=dict)
    min_accuracy: Optional[float] = None
    level: float = 0.95
    resamples: int = 2000
    seed: int = 0
    uncertainty: tuple[str, ...] = ()
    out: Optional[str] = None

    @property
    def inputs(self) -> list[str]:
        """The files read (the report directory may not hold one)."""
        return [self.csv] + ([self.per_query] if self.per_query else [])


def plan(args: argparse.Namespace) -> Plan:
    """The :class:`Plan` of the parsed options, each checked before any reading (weights, budgets, levels, ``--out``)."""
    import math

    from ir_cwla.app.evaluate import check_stdin_once
    from ir_cwla.errors import UsageError

    weights = parse_weights(args.weights)
    for flag, value in (("--max-latency", args.max_latency), ("--max-cost", args.max_cost),
                        ("--min-accuracy", args.min_accuracy)):
        if value is not None and not math.isfinite(value):
            raise UsageError(f"{flag} must be a finite number, got {value}")
    if args.resamples is not None and (isinstance(args.resamples, bool) or args.resamples < 1):
        raise UsageError(f"--resamples must be a positive number of bootstrap resamples, got {args.resamples}")
    if args.level is not None and not 0 < args.level < 1:
        raise UsageError(f"--level must lie in (0, 1), got {args.level}")
    done = Plan(csv=args.csv, per_query=args.per_query, name=args.name, accuracy=args.accuracy,
                latency=args.latency, cost=args.cost, weights=weights,
                budget={k: v for k, v in (("latency", args.max_latency), ("cost", args.max_cost)) if v is not None},
                min_accuracy=args.min_accuracy, level=0.95 if args.level is None else float(args.level),
                resamples=2000 if args.resamples is None else int(args.resamples),
                seed=0 if args.seed is None else int(args.seed),
                uncertainty=tuple(k for k, v in (("--seed", args.seed), ("--resamples", args.resamples),
                                                 ("--level", args.level)) if v is not None),
                out=args.out)
    check_report(done.out, done.inputs)
    if done.per_query:
        check_stdin_once(done.inputs)
    return done


def execute(plan: Plan) -> int:
    """Reads the systems (and their per-topic scores), prints the rankings, writes the report."""
    import sys
    import warnings
    from pathlib import Path

    from ir_cwla import leaderboard as lb
    from ir_cwla.app import report
    from ir_cwla.app.evaluate import read_per_query
    from ir_cwla.errors import DataError, UsageError

    per_query = read_per_query(plan.per_query) if plan.per_query else None
    board = lb.Leaderboard.read_csv(plan.csv, accuracy=plan.accuracy, latency=plan.latency, cost=plan.cost,
                                    name=plan.name)
    if per_query is not None:
        try:
            board = board.with_per_query(per_query)
        except DataError as ex:
            raise DataError(f"--per-query {plan.per_query} does not fit {plan.csv}: {ex}") from None
    if plan.uncertainty and board.accuracy_per_query() is None:     # (the CSV's folder may hold the scores)
        raise UsageError(f"{', '.join(plan.uncertainty)} {'sets' if len(plan.uncertainty) == 1 else 'set'} the "
                         f"bootstrap intervals of the ranks, which need the per-topic accuracy scores: give them "
                         f"with --per-query FILE (ir-cwla eval -q --format csv)")
    with warnings.catch_warnings(record=True) as caught:   # tables, figures and page before any output
        warnings.simplefilter("always", lb.RankingWarning)
        tables = report.leaderboard_tables(board, plan.weights, plan.budget, plan.min_accuracy, level=plan.level,
                                           resamples=plan.resamples, seed=plan.seed)
        if plan.out:
            with report.staged(plan.out, inputs=plan.inputs) as directory:
                source = f"{len(board.results)} systems from {plan.csv}" + \
                    (f", per-topic scores from {plan.per_query}" if plan.per_query else "")
                page = report.HtmlReport("ir_cwla leaderboard", source, directory=directory)
                report.add_leaderboard_sections(page, board, plan.weights, tables=tables)
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
    if plan.out:
        print(f"\nreport: {Path(plan.out) / 'index.html'}")
    return 0
