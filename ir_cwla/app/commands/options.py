"""What the ``ir-cwla`` commands share: the parser class, option types, measure arguments, report checks.

Each command module (:mod:`ir_cwla.app.commands`) declares its own options; the readers of
values that more than one command takes live here once. Nothing here imports pandas or a room
of the package: the parser of every command is built from these at start-up
(``ir-cwla eval --help``), and the work they name is imported by the function that does it.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Optional


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (``ir-cwla eval: error: ... (see ir-cwla eval --help)``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Exits with status 2 and the message on one line of stderr."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """An option's depth, count or number of processes: an int >= 1 (``-M``, ``--judged``, ``--n-jobs``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a depth >= 1, got {text!r}")
    return value


def places(text: str) -> int:
    """``-p``: decimals of the trec format, an int >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of decimal places >= 0, got {text!r}")
    return value


def seed(text: str) -> int:
    """``--seed``: a seed of :mod:`ir_cwla.analysis.streams` (an int >= 0), checked before any work."""
    from ir_cwla.analysis import streams
    from ir_cwla.errors import ParameterError

    try:
        value = int(text)
        streams.as_seed_sequence(value)
        return value
    except (ValueError, ParameterError):
        raise argparse.ArgumentTypeError(f"expected a seed, an int >= 0, got {text!r}") from None


def measures_arg(texts: Optional[Sequence[str]], default: Sequence[Any]) -> list[Any]:
    """Measures from ``-m`` arguments, or ``default`` if there are none.

    The arguments are read by :func:`ir_cwla.parse_measures`, the cost files they name allowed
    (:func:`ir_cwla.app.evaluate.command_line_measures`).
    """
    from ir_cwla.app.evaluate import command_line_measures

    return command_line_measures(list(texts)) if texts else list(default)


def check_report(out: Optional[str], inputs: Sequence[str]) -> Optional[str]:
    """``--out REPORT`` checked before any work (:func:`ir_cwla.app.report.check_output`); None stays None."""
    if out is None:
        return None
    from ir_cwla.app import report

    report.check_output(out, inputs=inputs)
    return out
