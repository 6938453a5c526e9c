"""``ir-cwla cwl``: cwl_eval's command and output, byte for byte (the work is :mod:`ir_cwla.app.cwl`).

::

    ir-cwla cwl GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE] [-b BIB_FILE] [-n] [-r]
                [--max_gain G] [--min_gain G] [--max_cost C] [--min_cost C] [--max_depth N] [--order file|trec]
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Optional

NAME = "cwl"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``cwl`` to ``subparsers``: cwl_eval's options."""
    from ir_cwla.app.commands import COMMANDS

    p = subparsers.add_parser(NAME, help=COMMANDS[NAME],
                              description="cwl_eval's arguments, metrics files and output (byte for byte, see "
                                          "ir_cwla.app.cwl): rankings in the result file's line order, as cwl_eval, "
                                          "unless --order trec. Gains are real values, costs priced by element type. "
                                          "Every file may be a path, '-', a pipe or a FIFO, plain or compressed.")
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
    p.set_defaults(plan=plan, execute=execute)
    return p


@dataclass(frozen=True)
class Plan:
    """What ``ir-cwla cwl`` reads, computes and writes.

    Read: ``gain_file``, ``result_file`` and ``cost_file`` (None: every element costs 1).
    Computed: ``metrics`` (read from the metrics file, else cwl_eval's defaults) with the bounds
    of gains and costs, over the first ``max_depth`` lines of each topic in ``order``, and the
    ``residuals``. Written: cwl_eval's table on stdout (with ``colnames``), the BibTeX to ``bib_file``.
    """

    gain_file: str
    result_file: str
    metrics: tuple[Any, ...]
    cost_file: Optional[str] = None
    bib_file: Optional[str] = None
    colnames: bool = False
    residuals: bool = False
    max_gain: float = 1.0
    min_gain: float = 0.0
    max_cost: float = 1.0
    min_cost: float = 1.0
    max_depth: int = 1000
    order: str = "file"


def plan(args: argparse.Namespace) -> Plan:
    """The :class:`Plan` of the parsed options: stdin read at most once, the metrics file read and checked."""
    from ir_cwla.app import cwl
    from ir_cwla.app.evaluate import check_stdin_once

    check_stdin_once([s for s in (args.gain_file, args.result_file, args.cost_file, args.metrics_file) if s])
    cwl.check_limits(args.max_gain, args.min_gain, args.max_cost, args.min_cost, args.max_depth)
    if args.bib_file is not None:   # (before the table is printed)
        check_bib_file(args.bib_file)
    metrics = cwl.read_metrics_file(args.metrics_file) if args.metrics_file else cwl.DEFAULT_METRICS
    return Plan(gain_file=args.gain_file, result_file=args.result_file, metrics=tuple(metrics),
                cost_file=args.cost_file, bib_file=args.bib_file, colnames=args.colnames, residuals=args.residuals,
                max_gain=args.max_gain, min_gain=args.min_gain, max_cost=args.max_cost, min_cost=args.min_cost,
                max_depth=args.max_depth, order=args.order)


def check_bib_file(path: str) -> None:
    """``-b FILE`` checked before any work: a file (new or not) in a directory that exists."""
    import os

    from ir_cwla.errors import OutputError

    if os.path.isdir(path):
        raise OutputError(f"-b {path} is a directory; give the file to write the BibTeX to")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise OutputError(f"-b {path}: there is no directory {folder}")
    if (os.path.exists(path) and not os.access(path, os.W_OK)) or not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"-b {path}: cannot write there")


def execute(plan: Plan) -> int:
    """Prints cwl_eval's table of the plan (and writes the BibTeX)."""
    import sys

    from ir_cwla.app import cwl

    table = cwl.evaluate_table(plan.gain_file, plan.result_file, list(plan.metrics), cost_file=plan.cost_file,
                               residuals=plan.residuals, max_gain=plan.max_gain, min_gain=plan.min_gain,
                               max_cost=plan.max_cost, min_cost=plan.min_cost, max_depth=plan.max_depth,
                               order=plan.order)
    sys.stdout.write(cwl.format_table(table, colnames=plan.colnames))
    if plan.bib_file:
        cwl.write_bibtex(list(plan.metrics), plan.bib_file)
    return 0
