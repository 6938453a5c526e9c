"""``ir-cwla demo``: the offline end-to-end demo on Cranfield (what ``make demo`` runs; the work is :mod:`ir_cwla.app.demo`).

::

    ir-cwla demo [--out REPORT] [--systems smoke|NAME,...] [--trials N] [--test-trials N] [--repeats N]
                 [--warmup N] [--instance TYPE] [--seed S] [--save-runs] [--quiet]
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Optional

from ir_cwla.app.commands import options

NAME = "demo"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``demo`` to ``subparsers`` (of ``ir-cwla``'s parser)."""
    from ir_cwla.app.commands import COMMANDS

    p = subparsers.add_parser(NAME, help=COMMANDS[NAME],
                              description="Index Cranfield with pyterrier-pisa and bm25s, evaluate with "
                                          "pt.Experiment, meta-evaluate, build the Dynascore leaderboard, write an "
                                          "HTML report.")
    p.add_argument("--out", default="report", metavar="REPORT", help="output directory (default report)")
    p.add_argument("--systems", help="comma-separated system names, or 'smoke' for a reduced set (default: all)")
    p.add_argument("--trials", type=int, default=1000, help="random topic splits for consistency (default 1000)")
    p.add_argument("--test-trials", type=int, default=2000, help="permutations of the randomised tests (2000)")
    p.add_argument("--repeats", type=int, default=3, help="timed passes over the topics per system (default 3)")
    p.add_argument("--warmup", type=int, default=10, help="untimed queries before timing (default 10)")
    p.add_argument("--instance", default="m5.large", help="cloud instance that prices the cost (default m5.large)")
    p.add_argument("--seed", type=options.seed, default=0, help="random seed (default 0)")
    p.add_argument("--save-runs", action="store_true", help="also keep the TREC run files in REPORT/runs "
                                                             "(about 9 MB per system)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(plan=plan, execute=execute)
    return p


@dataclass(frozen=True)
class Plan:
    """What ``ir-cwla demo`` runs: the arguments of :func:`ir_cwla.app.demo.run_demo`.

    ``systems`` None: every system of the catalogue (:mod:`ir_cwla.app.systems`); ``progress``:
    progress output on stderr (not ``--quiet``).
    """

    out: str = "report"
    systems: Optional[tuple[str, ...]] = None
    trials: int = 1000
    test_trials: int = 2000
    repeats: int = 3
    warmup: int = 10
    instance: str = "m5.large"
    seed: int = 0
    save_runs: bool = False
    progress: bool = True


def plan(args: argparse.Namespace) -> Plan:
    """The :class:`Plan` of the parsed options; the demo's packages checked first.

    :func:`ir_cwla.app.demo.run_demo` checks every argument (systems, trials, instance, ``--out``)
    before any work.
    """
    from ir_cwla.app import systems as catalogue
    from ir_cwla.errors import UsageError

    try:
        import bm25s  # noqa: F401
        import pyterrier_pisa  # noqa: F401
    except ImportError as ex:
        raise UsageError(f"the demo needs pyterrier-pisa and bm25s ({ex}): pip install 'ir-cwla[systems]'") from None
    names = None
    if args.systems:
        names = tuple(catalogue.SMOKE_SYSTEMS) if args.systems == "smoke" else \
            tuple(n.strip() for n in args.systems.split(",") if n.strip())
    return Plan(out=args.out, systems=names, trials=args.trials, test_trials=args.test_trials, repeats=args.repeats,
                warmup=args.warmup, instance=args.instance, seed=args.seed, save_runs=args.save_runs,
                progress=not args.quiet)


def execute(plan: Plan) -> int:
    """Runs the demo (:func:`ir_cwla.app.demo.run_demo`) and prints its summary."""
    import sys

    from ir_cwla.app.demo import run_demo

    result = run_demo(plan.out, systems=None if plan.systems is None else list(plan.systems), trials=plan.trials,
                      test_trials=plan.test_trials, seed=plan.seed, warmup=plan.warmup, repeats=plan.repeats,
                      instance=plan.instance, save_runs=plan.save_runs, progress=plan.progress)
    for note in result.notes:
        print(f"ir-cwla demo: warning: {note}", file=sys.stderr)
    print(result.summary())
    return 0
