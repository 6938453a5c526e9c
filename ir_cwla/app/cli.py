"""The ``ir-cwla`` command line: one sub-command per module of :mod:`ir_cwla.app.commands`.

::

    ir-cwla eval QRELS RUN... [-m MEASURE...] [-q] [-n] [-a] [-M DEPTH] [-l LEVEL] [-J]
                              [--ties float32|float64] [--runid] [--format trec|csv|json|jsonl] [-p PLACES]
    ir-cwla measures QRELS RUN MEASURE... [-p N] [-q] [-n] [-o tsv|jsonl] [--provider P]
    ir-cwla meta (QRELS RUNDIR | PER_QUERY) [-m MEASURE...] [--trials N] [--alt-qrels FILE...] [--out REPORT]
    ir-cwla compare (QRELS RUN RUN... | PER_QUERY) [-m MEASURE...] [--test T] [--correction C] [--out REPORT]
    ir-cwla leaderboard CSV [--weights accuracy=0.5,latency=0.25,cost=0.25] [--per-query FILE] [--out REPORT]
    ir-cwla cwl GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE] [-n] [-r] [--max_depth N]
    ir-cwla demo [--out REPORT] [--systems smoke] [--save-runs]
    ir-cwla --version

QRELS and RUN are TREC files or streams (``-`` is stdin; ``/dev/stdin``, ``<(zcat run.gz)``
and FIFOs work too; plain, gzip, bzip2 or xz), read once by :mod:`ir_cwla.io`, or
ir_datasets ids written ``irds:ID`` (``irds:cranfield`` is bundled and gets the Cranfield
grade conventions of :mod:`ir_cwla.datasets`). Measures are read by
:func:`ir_cwla.parse_measure`: ir-measures syntax (``nDCG@10``, ``AP(rel=2)``,
``CWLA(C='RBP', A='max')@10``), the short names ir_cwla prints (``RBP_max@10``,
``RBP(p=0.9)_max[pad]@10``) and trec_eval names (``ndcg_cut_10``, ``map``); the default is
the six canonical C/W/L/A measures at cutoff 10. ``measures`` is ir_measures' command line
(same arguments, same output, byte for byte) with the C/W/L/A measures registered; so it
names measures as ir_measures prints them, ``str(measure)`` (``CWLA(C='RBP',A='ERG')@10``),
where ``eval`` and every table of ir_cwla print the short name (``RBP_ERG@10``). Both names
read back to the same measure.

This module builds the parser (:func:`build_parser`) and runs a command (:func:`main`): each
command's module (:mod:`ir_cwla.app.commands`) turns the parsed options into a plan, checked
before any work, and executes it.

Errors in the input (a missing file, an unknown measure, a malformed line, an empty run)
are reported on one line of stderr with exit status 1 (``--traceback``, anywhere on the
line, shows the traceback instead); usage errors exit with status 2, as argparse does.
Every warning is shown once, on one line of stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Optional

from ir_cwla.app.commands import add_parsers
from ir_cwla.app.commands.options import Parser
from ir_cwla.errors import IrCwlaError
from ir_cwla.measures import allow_cost_files


def version_text() -> str:
    """``ir-cwla --version``: the version, and the plugins loaded (``ir_cwla.plugins``)."""
    from ir_cwla import __version__, plugins

    loaded = plugins.load()
    return f"ir-cwla {__version__}" + (f" (plugins: {', '.join(map(str, loaded))})" if loaded else "")


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The ``ir-cwla`` argument parser (one sub-command per module of :mod:`ir_cwla.app.commands`).

    Parameters
    ----------
    command : str, optional
        The sub-command about to run (``''``: none, e.g. ``--version``): it alone is built in
        full, the others by name and help (:func:`ir_cwla.app.commands.add_parsers`), so that
        ``ir-cwla eval`` (and its ``--help``) imports no other command's module, nor
        :mod:`ir_cwla.meta` and :mod:`ir_cwla.comparison`, whose options ``meta`` and ``compare``
        are built from. None (the default, and ``ir-cwla --help``): every sub-command in full.
    """
    parser = Parser(prog="ir-cwla", description="C/W/L/A measures, meta-evaluation and efficiency-aware "
                                                "leaderboards for ir-measures and PyTerrier.")
    parser.add_argument("--traceback", action="store_true",
                        help="show the full traceback of an error (accepted anywhere on the line)")
    parser.add_argument("--no-plugins", action="store_true",
                        help="start without plugins (before the command; the environment variable "
                             "IR_CWLA_NO_PLUGINS=1 does the same, for programs too)")
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    add_parsers(sub, command)
    return parser


@contextlib.contextmanager
def _warnings_on_stderr(prog: str) -> Iterator[None]:
    """Shows every warning once, on one line of stderr (``ir-cwla eval: warning: ...``)."""
    seen: set[tuple[type, str]] = set()

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
        text = " ".join(str(message).split())
        if (category, text) not in seen:
            seen.add((category, text))
            print(f"{prog}: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always", UserWarning)      # repeats are dropped by ``show``
        warnings.showwarning = show
        yield


def run() -> int:
    """The ``ir-cwla`` command (its console script and ``python -m ir_cwla``): :func:`main` in a process of its own.

    What the imports made lives as long as the process, so it is frozen out of the garbage
    collector's passes first (``gc.freeze``): they no longer traverse it during the command nor
    at exit, where the last pass took 30 ms of every command. (Not in :func:`main`, which a
    program may call many times in one process.)
    """
    import gc

    gc.freeze()
    return main()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``ir-cwla`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    The command's module makes the plan of the parsed options (every option checked) and
    executes it (:mod:`ir_cwla.app.commands`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    traceback = "--traceback" in argv
    argv = [a for a in argv if a != "--traceback"]
    command = _command(argv)
    if command == "eval":           # trec_eval's -m takes one word, ours several: the files stay files
        from ir_cwla.app import trec_eval_cli

        argv = trec_eval_cli.measure_words(argv)
    _plugin_warnings(f"ir-cwla {command}" if command else "ir-cwla", argv)
    parser = build_parser(command)
    args = parser.parse_args(argv)
    prog = f"ir-cwla {args.command}"
    try:
        with _warnings_on_stderr(prog), allow_cost_files():   # what a command allows ends with it
            return args.execute(args.plan(args))
    except KeyboardInterrupt:
        print("ir-cwla: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:           # `ir-cwla eval ... | head`: the reader has gone, say nothing
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as ex:   # one line, never a traceback (unless asked for)
        if traceback:
            raise
        print(f"{prog}: error: {_one_line(ex)}", file=sys.stderr)
        return 1


def _plugin_warnings(prog: str, argv: Sequence[str]) -> None:
    """Shows the warnings of loading the plugins (:data:`ir_cwla.plugins.PENDING`), each on one line.

    And says so if ``--no-plugins`` comes too late: the plugins were loaded when this process
    imported ir_cwla (a program that calls :func:`main`).
    """
    from ir_cwla import plugins

    pending, plugins.PENDING[:] = list(plugins.PENDING), []
    if plugins.NO_PLUGINS_OPTION in plugins.global_options(argv) and plugins.LOADED:
        pending.append(f"{plugins.NO_PLUGINS_OPTION} comes too late for this process, which loaded the plugins "
                           f"{', '.join(map(str, plugins.LOADED))} when it imported ir_cwla; set "
                           f"{plugins.DISABLE_ENV}=1 before it starts")
    for text in pending:
        print(f"{prog}: warning: {' '.join(text.split())}", file=sys.stderr)


def _command(argv: Sequence[str]) -> Optional[str]:
    """The sub-command ``argv`` runs: its first word that is not an option.

    The top level has only options without values. ``''`` if there is no sub-command
    (``--version``), None for ``--help`` without one (which lists every sub-command).
    """
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None if ("-h" in argv or "--help" in argv) else ""


def _one_line(ex: BaseException) -> str:
    if isinstance(ex, MemoryError) or (isinstance(ex, ImportError) and "failed to map segment" in str(ex)):
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        where = "" if limit == resource.RLIM_INFINITY else f" (its address space is limited to {limit // 2**20:,} MiB: ulimit -v)"
        detail = f"; {type(ex).__name__}: {ex}" if str(ex) else ""
        return " ".join(f"out of memory: the process could not get the memory it needed{where}{detail}".split())
    if isinstance(ex, (IrCwlaError, ValueError, OSError, KeyError)):
        text = ex.args[0] if isinstance(ex, KeyError) and ex.args else str(ex)
        if isinstance(ex, OSError) and ex.filename and ex.strerror:
            text = f"{ex.strerror}: {ex.filename}"
    else:
        text = f"{type(ex).__name__}: {ex} (rerun with --traceback for details)"
    return " ".join(str(text).split()) or type(ex).__name__
