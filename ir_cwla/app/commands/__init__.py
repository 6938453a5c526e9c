"""The ``ir-cwla`` commands, one module each (ir_datasets' layout).

Every module is the whole of one command, in the same shape:

* ``add_parser(subparsers)`` registers its sub-command and every option;
* ``Plan``, a frozen dataclass: what the command reads, what it computes, where it writes;
* ``plan(args)`` builds the plan from the parsed options and checks every one of them before
  any work starts (a bad option is an error before any file is read);
* ``execute(plan)`` does the work and returns the exit status.

:func:`ir_cwla.app.cli.main` parses, then runs ``execute(plan(args))``. Only the module of the
command that runs is imported (:func:`add_parsers`; every one for ``ir-cwla --help``); each
imports at the top only what its parser needs, and its work imports what it uses when it runs.
:mod:`.options` holds what more than one command shares.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Optional

#: Every command and what it does (its line in ``ir-cwla --help``), in the order listed there.
COMMANDS = {
    "eval": "score runs against qrels (like trec_eval / ir_measures)",
    "measures": "ir_measures' command line, with the C/W/L/A measures",
    "meta": "meta-evaluate measures",
    "leaderboard": "rank systems from a CSV of accuracy, latency and cost",
    "cwl": "cwl_eval's command: EU, ETU, EC, ETC, ED (and residuals) per topic",
    "demo": "the offline end-to-end demo on Cranfield (what `make demo` runs)",
    "compare": "compare systems: paired tests, corrected p-values, effect sizes and intervals",
}


def command_module(name: str) -> ModuleType:
    """The module of command ``name`` (``'eval'`` -> :mod:`ir_cwla.app.commands.eval`)."""
    from ir_cwla.errors import NotFoundError

    if name not in COMMANDS:
        raise NotFoundError(f"no ir-cwla command {name!r} ({', '.join(COMMANDS)})")
    return importlib.import_module(f"{__name__}.{name}")


def add_parsers(subparsers: Any, command: Optional[str] = None) -> None:
    """Adds every command to ``subparsers``: ``command`` in full, the others by name and help alone.

    ``command`` None: every one in full (``ir-cwla --help``, the command-line reference). A
    command that does not run needs no options, so its module (and what its options are built
    from: the criteria of :mod:`ir_cwla.meta`, the tests of :mod:`ir_cwla.comparison`) is not
    imported.
    """
    for name, summary in COMMANDS.items():
        if command is None or command == name:
            command_module(name).add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
