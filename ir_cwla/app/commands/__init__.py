"""The ``ir-cwla`` commands, one module each (ir_datasets' layout).

Every module is the whole of one command, in the same shape:

* ``add_parser(subparsers, full=True)`` registers its sub-command and options (``full=False``:
  its name and help alone, for the commands whose options come from a room of the package,
  ``meta`` and ``compare``, when another command runs);
* ``Plan``, a frozen dataclass: what the command reads, what it computes, where it writes;
* ``plan(args)`` builds the plan from the parsed options and checks every one of them before
  any work starts (a bad option is an error before any file is read);
* ``execute(plan)`` does the work and returns the exit status.

:func:`ir_cwla.app.cli.main` parses, then runs ``execute(plan(args))``. A module imports at the
top only what its parser needs (nothing heavy, no room of the package: ``ir-cwla eval --help``
stays light); the work imports what it uses when it runs. :mod:`.options` holds what more
than one command shares.
"""
from __future__ import annotations

from ir_cwla.app.commands import compare, cwl, demo, leaderboard, measures, meta
from ir_cwla.app.commands import eval as eval_command

#: Every command, in the order ``ir-cwla --help`` lists them.
COMMANDS = {module.NAME: module for module in (eval_command, measures, meta, leaderboard, cwl, demo, compare)}
