"""``ir-cwla measures``: ir_measures' command line, with the C/W/L/A measures registered.

::

    ir-cwla measures QRELS RUN MEASURE... [-p N] [-q] [-n] [-o tsv|jsonl] [--provider P]

Same arguments and same output as ``ir_measures``, byte for byte, read with ir_cwla's readers
(streams, checks, one duplicate policy). It names measures as ir_measures prints them,
``str(measure)`` (``CWLA(C='RBP',A='ERG')@10``), where ``eval`` prints the short name.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Optional

NAME = "measures"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``measures`` to ``subparsers``: ir_measures' options, its providers as choices."""
    import ir_measures

    from ir_cwla.app.commands import COMMANDS

    p = subparsers.add_parser(NAME, help=COMMANDS[NAME],
                              description="ir_measures QRELS RUN MEASURE... with the same arguments and output; "
                                          "QRELS is a file or an ir_datasets id, RUN a file (- for stdin). Measures "
                                          "are named as ir_measures prints them (CWLA(C='RBP',A='ERG')@10), not by "
                                          "the short names of ir-cwla eval (RBP_ERG@10); both read back to the same "
                                          "measure.")
    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("run", metavar="RUN")
    p.add_argument("measures", metavar="MEASURE", nargs="+")
    p.add_argument("--places", "-p", type=int, default=4)
    p.add_argument("--by_query", "--by-query", "-q", dest="by_query", action="store_true")
    p.add_argument("--no_summary", "--no-summary", "-n", dest="no_summary", action="store_true")
    p.add_argument("--output_format", "--output-format", "-o", dest="output_format", choices=("tsv", "jsonl"),
                   default="tsv")
    p.add_argument("--provider", choices=sorted(ir_measures.providers.registry))
    p.set_defaults(plan=plan, execute=execute)
    return p


@dataclass(frozen=True)
class Plan:
    """What ``ir-cwla measures`` reads, computes and writes.

    ``qrels`` (a file, else an ir_datasets id: :func:`ir_cwla.app.evaluate.qrels_spec`) and
    ``run``; ``measures`` computed by ``provider`` (None: ir_measures' default pipeline); printed
    in ``output_format`` with ``places`` decimals, per query if ``by_query`` and the means if
    ``summary``.
    """

    qrels: str
    run: str
    measures: tuple[Any, ...]
    by_query: bool = False
    summary: bool = True
    output_format: str = "tsv"
    places: int = 4
    provider: Optional[str] = None


def plan(args: argparse.Namespace) -> Plan:
    """The :class:`Plan` of the parsed options (``-n`` needs ``-q``, as ir_measures says), checked before any reading."""
    from ir_cwla.app.evaluate import check_stdin_once, command_line_measures, qrels_spec
    from ir_cwla.errors import UsageError

    if args.no_summary and not args.by_query:
        raise UsageError("--no_summary (-n) only supported with --by_query (-q)")
    measures = command_line_measures(args.measures)
    check_stdin_once([args.qrels, args.run])
    return Plan(qrels=qrels_spec(args.qrels), run=args.run, measures=tuple(measures), by_query=args.by_query,
                summary=not args.no_summary, output_format=args.output_format, places=args.places,
                provider=args.provider)


def execute(plan: Plan) -> int:
    """Reads the qrels and the run, checks the run's topics, prints what ir_measures' command prints."""
    import ir_measures
    from ir_measures.__main__ import OUTPUT_FORMATS
    from ir_measures.util import Metric

    from ir_cwla import io
    from ir_cwla.app.evaluate import check_topics, note_conventions, read_qrels_arg, read_run_arg

    measures = list(plan.measures)
    qrels = read_qrels_arg(plan.qrels, measures)
    run = read_run_arg(plan.run, measures=measures)
    check_topics(io.input_name(plan.run), run, qrels)
    calc = ir_measures.providers.registry[plan.provider] if plan.provider else ir_measures
    output = OUTPUT_FORMATS[plan.output_format](argparse.Namespace(places=plan.places, by_query=plan.by_query))
    if plan.by_query:
        aggregators = {m: m.aggregator() for m in measures} if plan.summary else None
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
    note_conventions(plan.qrels)
    return 0
