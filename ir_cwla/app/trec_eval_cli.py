"""trec_eval's command line in ``ir-cwla eval``: its options, its ``-m`` rules, its output.

``ir-cwla eval`` reads trec_eval's command lines as trec_eval reads them, so that
``ir-cwla eval -m all_trec -q -c -M100 QRELS RUN --trec-eval 10 --format trec_eval`` prints what
``trec_eval -m all_trec -q -c -M100 QRELS RUN`` prints:

- :func:`measure_words`: trec_eval's ``-m`` takes one word, ir-cwla's several (``-m nDCG@10
  RBP_max@10``): after its first word, ``-m`` takes the words that name measures and are not
  files, so ``-m all_trec QRELS RUN`` leaves the files to be the files;
- :func:`add_options`: trec_eval's other options and its long names (``-c``, which is the
  default, ``-N``, ``--query_eval_wanted``, ...); those ir-cwla cannot honour (``-R prefs``,
  ``-R qrels_jg``, ``-Z``, ``-D``, ``-o``) are refused by :func:`check_options` with one line
  saying why;
- :func:`select_measures`: the measures of the ``-m`` options, trec_eval's names by its rules
  (:func:`ir_cwla.measures._trec_names.select`: each measure once, the first parameters given win,
  nicknames), the others by :func:`ir_cwla.parse_measures`; then ``-l``, ``-N`` and ``-J``;
- :func:`write`: the output in the chosen format, ``trec_eval``'s by
  :func:`ir_cwla.app.trec_eval_format.format_trec_eval` (with its ``runid`` and ``relstring``
  lines); a line a format cannot hold (relstring in CSV) is said once on stderr.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ir_cwla.errors import MeasureError, UsageError

#: trec_eval's long options (trec_eval.c), as aliases of ir-cwla's: (its name, ir-cwla's dest, takes a value).
LONG_OPTIONS = (
    ("--query_eval_wanted", "per_query", False),
    ("--nosummary", "no_summary", False),
    ("--level_for_rel", "level", True),
    ("--Judged_docs_only", "judged_only", False),
    ("--Max_retrieved_per_topic", "depth", True),
)

_MEASURE_FLAGS = ("-m", "--measure")


def _is_file(word: str) -> bool:
    return word == "-" or word.startswith(("irds:", "/dev/")) or os.path.lexists(word)


def _is_measure(word: str) -> bool:
    """True if ``word`` names measures (any grammar of :func:`ir_cwla.parse_measures`)."""
    from ir_cwla.measures import parse_measures

    try:
        parse_measures(word)
    except (MeasureError, ValueError, TypeError, KeyError, AssertionError):
        return False
    return True


def measure_words(argv: Sequence[str]) -> list[str]:
    """``argv`` with each ``-m`` given exactly the words that are its measures (as ``--measure=WORD``).

    trec_eval's ``-m`` takes one word; ir-cwla's takes several. A ``-m`` takes its first word,
    then each next word that names measures and is neither a file nor an option; the first
    that is not ends its list (``-m all_trec QRELS RUN``: the two files are the files; ``-m
    nDCG@10 RBP_max@10``: two measures). ``-mWORD`` and ``--measure=WORD`` are one word, as in
    trec_eval; ``--`` ends the options.
    """
    out: list[str] = []
    words = list(argv)
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            out.extend(words[i:])
            break
        if word in _MEASURE_FLAGS and i + 1 < len(words):
            out.append(f"--measure={words[i + 1]}")
            i += 2
            while i < len(words) and not words[i].startswith("-") and not _is_file(words[i]) \
                    and _is_measure(words[i]):
                out.append(f"--measure={words[i]}")
                i += 1
            continue
        out.append(word)
        i += 1
    return out


def add_options(parser: argparse.ArgumentParser) -> None:
    """trec_eval's options that ``ir-cwla eval``'s own do not already spell (see the module docstring)."""
    parser.add_argument("--trec-eval", dest="trec_eval", type=int, choices=(9, 10), default=None,
                        help="whose semantics trec_eval's measures follow where its versions differ: 9 (the default: "
                             "trec_eval 9.0.8, pytrec_eval, ir_measures) or 10 (trec_eval 10.0: IPrec's recall "
                             "cut-offs rounded, scores compared in float64)")
    parser.add_argument("-c", "--complete_rel_info_wanted", dest="complete", action="store_true",
                        help="average over every qrels topic, 0 where a run has none (trec_eval -c; the default)")
    parser.add_argument("-N", "--Number_docs_in_coll", dest="num_docs", type=int, metavar="NUM",
                        help="documents in the collection, for trec_eval's utility (trec_eval -N; default 0)")
    parser.add_argument("-R", "--Rel_info_format", dest="rel_info_format", metavar="FORMAT",
                        help="trec_eval's format of QRELS: qrels only (prefs, qrels_prefs, qrels_jg are not read)")
    parser.add_argument("-T", "--Results_format", dest="results_format", metavar="FORMAT",
                        help="trec_eval's format of RUN: trec_results only")
    parser.add_argument("-Z", "--Zscore", dest="zscore", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("-D", "--Debug_level", dest="debug", metavar="NUM", help=argparse.SUPPRESS)
    parser.add_argument("-o", "--Output_old_results_format", dest="old_format", action="store_true",
                        help=argparse.SUPPRESS)
    for flag, dest, value in LONG_OPTIONS:
        if value:
            parser.add_argument(flag, dest=dest, type=int, help=argparse.SUPPRESS)
        else:
            parser.add_argument(flag, dest=dest, action="store_true", help=argparse.SUPPRESS)


def check_options(args: argparse.Namespace) -> None:
    """Refuses, one line each, the trec_eval options ir-cwla cannot honour, and -c with -a."""
    if args.complete and args.answered_only:
        raise UsageError("-c (every qrels topic counts) and -a (only the topics a run answers) contradict each other")
    if args.rel_info_format not in (None, "qrels"):
        raise UsageError(f"-R {args.rel_info_format}: ir-cwla eval reads TREC qrels only (-R qrels); trec_eval's "
                         "preference judgments (prefs, qrels_prefs) and judgment groups (qrels_jg) are not read")
    if args.results_format not in (None, "trec_results"):
        raise UsageError(f"-T {args.results_format}: ir-cwla eval reads TREC runs only (-T trec_results)")
    if args.zscore is not None:
        raise UsageError("-Z (trec_eval's z-scores against a file of means and deviations) is not available in "
                         "ir-cwla eval; print the raw scores (-q --format csv) and standardise them")
    if args.debug is not None:
        raise UsageError("-D (trec_eval's debug output) is not available in ir-cwla eval (--traceback shows errors)")
    if args.old_format:
        raise UsageError("-o (trec_eval's old output format, obsolete there too) is not available")


@dataclass(frozen=True)
class Measures:
    """The measures of a command line and how trec_eval prints those it names (:func:`select_measures`)."""

    measures: list[Any]
    selection: Any          # ir_cwla.measures._trec_names.Selection, or None


def _trec_token(token: str) -> bool:
    """True for a word read by trec_eval's rules: a trec_eval name no other grammar reads as one measure."""
    import ir_measures

    from ir_cwla.measures import _trec_names as trec_names
    from ir_cwla.measures._names import parse_short_name

    if not trec_names.is_trec_name(token):
        return False
    try:
        if parse_short_name(token) is not None:
            return False
        parsed = ir_measures.parse_measure(token)
    except (MeasureError, NameError, ValueError, SyntaxError, TypeError):
        return True
    return any(info.required and key not in parsed.params for key, info in parsed.SUPPORTED_PARAMS.items())


def default_measures(fmt: str, default: Sequence[Any]) -> Sequence[Any]:
    """The measures without ``-m``: ``default``, or under ``--format trec_eval`` trec_eval's own (``official``)."""
    return ["official"] if fmt == "trec_eval" else default


def select_measures(texts: Optional[Sequence[str]], default: Sequence[Any], level: Optional[int] = None,
                    num_docs: Optional[int] = None, judged_only: bool = False) -> Measures:
    """The measures of the ``-m`` options (``default`` without any), with ``-l``, ``-N`` and ``-J`` applied.

    The words in trec_eval's names (:func:`_trec_token`) are read together by trec_eval's rules
    (:func:`ir_cwla.measures._trec_names.select`), the others as
    :func:`ir_cwla.app.evaluate.command_line_measures` reads them; each measure once, in the
    order of the words (a nickname's in trec_eval's order). ``--format trec_eval`` prints them in
    trec_eval's order whatever this one.
    """
    from ir_cwla.app.evaluate import command_line_measures, with_judged_only, with_relevance_level
    from ir_cwla.measures import _trec_names as trec_names
    from ir_cwla.measures._names import split_measure_list

    if not texts and all(isinstance(m, str) for m in default):
        texts = list(default)
    tokens = [t for text in (texts or ()) for t in split_measure_list(text)]
    if not tokens:
        measures, selection = list(default), None
    else:
        trec = [t for t in tokens if _trec_token(t)]
        selection = trec_names.select(trec, level or 1) if trec else None
        placed: list[tuple[tuple, Any]] = []
        first: dict[str, int] = {}          # each trec_eval measure at the first word that names it
        for i, token in enumerate(tokens):
            if token in trec:
                for name in trec_names.names_of(token):
                    first.setdefault(name, i)
                continue
            placed.extend(((i, j), m) for j, m in enumerate(command_line_measures([token])))
        for s in (selection.values if selection is not None else ()):
            if s.measure is not None:
                placed.append(((first[trec_names.TREC_MEASURES[s.order[0]].name], s.order), s.measure))
        measures = list(dict.fromkeys(m for _, m in sorted(placed, key=lambda item: item[0])))

    def final(m: Any) -> Any:
        out = with_relevance_level([m], level)[0]
        if num_docs is not None and getattr(out, "NAME", None) == "Utility" and "docs" not in out.params:
            out = out(docs=num_docs)
        return with_judged_only([out], judged_only)[0]

    done = [final(m) for m in measures]
    if selection is not None:
        renamed = {str(m): final(m) for m in selection.measures}
        selection = trec_names.Selection(tuple(
            s if s.measure is None else trec_names.Selected(s.name, renamed[str(s.measure)], s.order, s.long,
                                                            s.per_query, s.summary, s.line, s.length)
            for s in selection.values))
    return Measures(list(dict.fromkeys(done)), selection)


@dataclass(frozen=True)
class Lines:
    """trec_eval's lines that are not measures: each run's ``runid`` and its ``relstring`` per topic (or None)."""

    runids: Mapping[str, Optional[str]]
    relstrings: Optional[Mapping[str, Mapping[str, str]]] = None


def lines(plan: Any, qrels: Any, runs: Mapping[str, Any]) -> Lines:
    """The runs' ``runid`` (their run tag) and, when ``--format trec_eval -q`` prints it, their ``relstring``."""
    from ir_cwla.io import RUN_TAG_ATTR, QrelsColumns, RunColumns, qrels_dict, run_dict

    if plan.format != "trec_eval":
        return Lines({})
    runids = {name: getattr(run, "attrs", {}).get(RUN_TAG_ATTR) for name, run in runs.items()}
    selection = plan.chosen.selection if plan.chosen is not None else None
    length = next((s.length for s in selection.lines if s.line == "relstring"), None) if selection else None
    if length is None or not plan.per_query:
        return Lines(runids)
    from ir_cwla.provider._trec_provider import relstrings

    given_qrels = qrels_dict(qrels) if isinstance(qrels, QrelsColumns) else qrels
    return Lines(runids, {name: relstrings(given_qrels, run_dict(run) if isinstance(run, RunColumns) else run, length,
                                           plan.ties) for name, run in runs.items()})


def format_trec_eval_rows(plan: Any, rows: Sequence[tuple[str, str, str, float, str]], found: Optional[Lines]) -> str:
    """``--format trec_eval``: the rows as trec_eval prints them (:func:`ir_cwla.app.trec_eval_format.format_trec_eval`)."""
    from ir_cwla.app.trec_eval_format import format_trec_eval

    found = found or Lines({})
    return format_trec_eval(rows, list(plan.measures), plan.chosen.selection if plan.chosen else None,
                            plan.level or 1, found.runids, found.relstrings, plan.per_query, plan.summary)


def note_lines_left_out(plan: Any, prog: str = "ir-cwla eval") -> None:
    """Says once on stderr that a format other than trec_eval's leaves relstring out."""
    selection = plan.chosen.selection if plan.chosen is not None else None
    if selection is not None and any(s.line == "relstring" for s in selection.lines):
        print(f"{prog}: note: relstring (trec_eval's string of the first relevance values) is printed by --format "
              "trec_eval only", file=sys.stderr)
