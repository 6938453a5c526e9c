"""What ``ir-cwla eval`` and ``ir-cwla measures`` do, as library functions: read, check, score, format.

:func:`evaluate_runs` scores runs into a long frame (``name, qid, measure, value, short``,
plus a summary row with qid ``all`` per run and measure, as trec_eval prints);
:func:`format_results` writes it in trec_eval's layout, CSV, JSON or JSON lines, and
:func:`read_per_query` reads the CSV/JSON/JSONL back for :mod:`ir_cwla.meta`. Run and qrels
arguments are TREC files or streams (``-`` is stdin) or any named source of
:mod:`ir_cwla.io` (``irds:ID``, :mod:`ir_cwla.datasets`).

Nothing scores silently to zero: :func:`check_topics` refuses an empty run and a run that
shares no topic with the qrels, and warns (once, with the count) about a run that misses
some qrels topics. Which topics a mean covers is a choice (``answered_only``): every qrels
topic, 0 where the run has none (ir-measures, and trec_eval with ``-c``; the default), or
only the topics the run answers (trec_eval without ``-c``).
"""
from __future__ import annotations

import io as _io
import json
import math
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ir_cwla._text import csv_safe, csv_unescape, escape_name
from ir_cwla._text import run_name as file_run_name
from ir_cwla.errors import InputError, MeasureError, ParameterError
from ir_cwla.io import RUN_TAG_ATTR, STDIN, is_named_source
from ir_cwla.io import SUMMARY_QID as SUMMARY_QID
from ir_cwla.io import _columns as columns
from ir_cwla.io import natural_key as _natural_key
from ir_cwla.measures import allow_cost_files, is_cwla, needs_element_types, parse_measures, short_name
from ir_cwla.measures._names import named_cost_files

if TYPE_CHECKING:
    import pandas as pd

# pandas, the readers (ir_cwla.io), ir_cwla.meta and ir_cwla.datasets are imported by the functions
# that use them: ``ir-cwla eval --help`` (FORMATS) loads none of them

"""The query id of the mean over topics, as in trec_eval and ir-measures."""

RESULT_COLUMNS = ("name", "qid", "measure", "value", "short")
"""Columns of :func:`evaluate_runs`: ``measure`` is ``str(measure)`` (read back by
:func:`ir_cwla.parse_measure` and :mod:`ir_cwla.meta`), ``short`` its short name for people."""

FORMATS = ("trec", "trec_eval", "csv", "json", "jsonl")


# ------------------------------------------------------------------------- reading arguments

def _missing(spec: str, what: str) -> FileNotFoundError:
    from ir_cwla import datasets

    hint = f" (an ir_datasets id is written {datasets.IRDS_PREFIX}{spec})" if "." not in Path(spec).name else ""
    return FileNotFoundError(f"{what} file not found: {spec}{hint}")


def _absent(spec: str) -> bool:
    """True if ``spec`` names no file (and no dangling link, FIFO, stdin, file descriptor, named source).

    (A file descriptor this process lacks, ``/dev/fd/0`` with stdin closed, is the reader's to explain.)
    """
    return spec != STDIN and not is_named_source(spec) and not os.path.lexists(spec) \
        and not os.path.realpath(spec).startswith(("/proc/self/fd/", f"/proc/{os.getpid()}/fd/"))


def command_line_measures(texts: Sequence[str]) -> list:
    """Measures the user typed on their command line (:func:`ir_cwla.parse_measures`).

    The cost files they name are the user's own to read, so they are allowed
    (:func:`ir_cwla.allow_cost_files`) for the rest of the command.
    """
    allow_cost_files(*named_cost_files(list(texts)))
    return parse_measures(list(texts))


#: The names of standard input (file descriptor 0) as a path.
STDIN_PATHS = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


def reads_stdin(spec: str) -> bool:
    """True if reading ``spec`` reads standard input.

    ``-``; a name of file descriptor 0 (:data:`STDIN_PATHS`, ``/proc/PID/fd/0`` of this
    process), or a symbolic link to one; or a path to what standard input is when that is a
    pipe, a socket or a terminal (the same file, which can be read once; a regular file given
    as standard input can be read again by its name).
    """
    if spec == STDIN:
        return True
    names = {*STDIN_PATHS, f"/proc/{os.getpid()}/fd/0"}
    path = spec
    for _ in range(40):                 # a chain of links to /dev/stdin (without following /dev/stdin's own)
        if os.path.normpath(os.path.abspath(path)) in names:
            return True
        try:
            path = os.path.join(os.path.dirname(path), os.readlink(path))
        except (OSError, ValueError):
            break
    try:
        own, given = os.fstat(0), os.stat(spec)
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(own.st_mode) and os.path.samestat(own, given)


def check_stdin_once(specs: Sequence[str]) -> None:
    """Standard input can be read once: at most one argument may read it (:func:`reads_stdin`)."""
    stdin = [s for s in specs if reads_stdin(s)]
    if len(stdin) > 1:
        raise ParameterError(f"standard input can be read only once, but {len(stdin)} arguments read it "
                         f"({', '.join(stdin)})")


def read_qrels_arg(spec: str, measures: Optional[Sequence[Any]] = None) -> pd.DataFrame:
    """Qrels named on the command line.

    A TREC qrels file or stream (``-``), or a named source (``irds:ID``);
    checked for the ``measures`` they will be used with.
    """
    from ir_cwla import io
    from ir_cwla.provider import check_grades_for_backends

    if _absent(spec):
        raise _missing(spec, "qrels")
    qrels = io.as_qrels_frame(spec, io.input_name(spec), measures=measures)
    if measures is not None:
        check_grades_for_backends(qrels, measures, io.input_name(spec))
    return qrels


def read_run_arg(spec: str, name: Optional[str] = None, measures: Sequence[Any] = ()) -> pd.DataFrame:
    """A run named on the command line.

    A TREC run file or stream (``-``), or a named source (``irds:ID``); with its
    element types when one of ``measures`` prices them.
    """
    from ir_cwla import io

    if _absent(spec):
        raise _missing(spec, "run")
    return io.as_run_frame(spec, name=name or io.input_name(spec), element_type=needs_element_types(measures))


def note_conventions(qrels_spec: str) -> None:
    """Tells on stderr which grade conventions the qrels were read with (Cranfield's).

    Only a named source (``irds:ID``) is read with conventions of its own; a file's grades are
    its own, so for a file nothing is imported (:mod:`ir_cwla.datasets` needs pandas).
    """
    if not is_named_source(qrels_spec):
        return
    from ir_cwla import datasets

    note = datasets.conventions_note(qrels_spec)
    if note:
        print(f"ir-cwla: note: {note}", file=sys.stderr)


def qrels_spec(spec: str) -> str:
    """A qrels argument as ir_measures' command line reads it.

    A file if there is one, else an ir_datasets id (``irds:`` may be left out).
    """
    from ir_cwla import datasets

    if _absent(spec) and datasets.dataset_id(spec) is None:
        return datasets.IRDS_PREFIX + spec
    return spec


def run_name(spec: str) -> str:
    """The name of a run in tables.

    ``stdin`` for ``-``, a named source (``irds:ID``) as is, a file as
    :func:`ir_cwla.meta.run_name` names it (control characters escaped).
    """
    if spec == STDIN:
        return "stdin"
    return escape_name(spec) if is_named_source(spec) else file_run_name(spec)


def unique_run_names(specs: Sequence[str]) -> list[str]:
    """:func:`run_name` of each spec, falling back to the spec itself where two names collide.

    The same spec given twice is an error (it would be scored once, under one name).
    """
    seen = set()
    for spec in specs:
        if spec in seen:
            raise ParameterError(f"run {spec} is given twice")
        seen.add(spec)
    names = [run_name(s) for s in specs]
    return [n if names.count(n) == 1 else escape_name(s) for n, s in zip(names, specs)]


def is_stream(spec: str) -> bool:
    """True for an argument that names a stream rather than a file.

    ``-``, ``/dev/stdin``, ``/dev/fd/N`` (a process substitution),
    ``/proc/self/fd/N``, or a FIFO.
    """
    if spec == STDIN or spec == "/dev/stdin" or spec.startswith(("/dev/fd/", "/proc/self/fd/")):
        return True
    try:
        return stat.S_ISFIFO(os.stat(spec).st_mode)
    except (OSError, ValueError):
        return False


def stream_names(specs: Sequence[str], runs: Sequence[pd.DataFrame], names: Sequence[str]) -> list[str]:
    """Runs read from streams named by their run tags.

    ``names`` with each run read from a stream (:func:`is_stream`) named by its run tag,
    which is all a stream has to name it (``stdin`` or the path where it has none). Streams
    with a tag taken already are numbered in the order given: ``bm25``, ``bm25-2``, ``bm25-3``
    (never named by the file descriptor of a ``<(...)``, which changes from run to run).
    """
    out = list(names)
    streams = [i for i, spec in enumerate(specs) if is_stream(spec) and runs[i].attrs.get(RUN_TAG_ATTR)]
    taken = {n for i, n in enumerate(out) if i not in streams}
    for i in streams:
        tag = escape_name(runs[i].attrs[RUN_TAG_ATTR])
        name, k = tag, 1
        while name in taken:
            k += 1
            name = f"{tag}-{k}"
        out[i] = name
        taken.add(name)
    return out


def run_tag_names(specs: Sequence[str], runs: Sequence[pd.DataFrame]) -> list[str]:
    """Each run named by its run tag (the sixth field of its first line, as trec_eval names runs).

    An error for a run without one (not a TREC file) or two runs with the same tag.
    """
    names = []
    for spec, run in zip(specs, runs):
        tag = run.attrs.get(RUN_TAG_ATTR)
        if not tag:
            raise ParameterError(f"run {spec} has no run tag (it is not a TREC run file); name runs by file instead")
        if escape_name(tag) in names:          # as printed: tags that print alike are one name
            raise ParameterError(f"two runs have the run tag {escape_name(tag)!r} (the second is {spec}); "
                             "name runs by file instead")
        names.append(escape_name(tag))
    return names


#: ir-measures measures whose form without ``rel`` is not "relevant at level 1": NumRet (every
#: document retrieved) and RBP (graded, trec_eval's ``rbp``); ``-l`` leaves them as they are.
_WITHOUT_LEVEL = frozenset({"NumRet", "RBP"})


def with_relevance_level(measures: Sequence[Any], level: Optional[int]) -> list[Any]:
    """trec_eval's ``-l LEVEL``: binary measures count grades >= LEVEL as relevant.

    Sets ``rel=LEVEL`` on every measure that takes a ``rel`` parameter and does not set it
    (``P@10`` -> ``P(rel=2)@10``, ``NumRel`` -> ``NumRel(rel=2)``), and on C/W/L/A measures with
    binary gains at the default ``rel=1``; graded measures (nDCG, RBP without ``rel``, C/W/L/A
    with lin/exp gains) are unchanged, and so is ``NumRet``, which counts every document
    retrieved (trec_eval's ``num_ret``, which ``-l`` leaves alone; its ``num_rel_ret`` is
    ``NumRet(rel=LEVEL)``, as :func:`ir_cwla.measures._trec_names.select` reads it).
    """
    if level is None:
        return list(measures)
    if level < 1:
        raise ParameterError(f"relevance level must be >= 1, got {level}")
    out = []
    for m in measures:
        if getattr(m, "NAME", None) in _WITHOUT_LEVEL:
            out.append(m)
            continue
        if "rel" in getattr(m, "SUPPORTED_PARAMS", {}) and "rel" not in m.params:
            if not (is_cwla(m) and m.gain_spec().kind != "bin"):
                m = m(rel=level)
        elif is_cwla(m) and m.params.get("rel") == 1.0:
            m = m(rel=float(level))
        out.append(m)
    return out


def with_judged_only(measures: Sequence[Any], judged_only: bool = True) -> list[Any]:
    """trec_eval's ``-J``, as the measures name it.

    ``-J`` removes every document without a grade >= 0 from each ranking before any measure
    looks at it (:func:`judged_rows`, trec_eval's rule: a negative grade is "in the pool, not
    judged"), so every measure is computed over the judged documents, as trec_eval computes
    it; the measures that can say so in their name do:

    - C/W/L/A measures: ``unjudged='condense'`` (Sakai's condensed lists; a cutoff k then
      counts the first k judged documents), for those with the default ``unjudged='zero'``;
    - ir-measures measures with a ``judged_only`` parameter (P, AP, nDCG, RR, R, ...):
      ``judged_only=True``;
    - the others (Bpref, infAP, NumRet, NumRel, SetR, Judged@k, ...) keep their names.

    A C/W/L/A measure whose unjudged policy is set otherwise (``max``, ``residual``) is a
    :class:`ParameterError`: it asks for what unjudged documents are worth, which ``-J``
    removes.
    """
    if not judged_only:
        return list(measures)
    out, refused = [], []
    for m in measures:
        if is_cwla(m):
            if m["unjudged"] in ("zero", "condense"):
                out.append(m(unjudged="condense"))
                continue
            refused.append(f"{short_name(m)} (its unjudged={m['unjudged']!r})")
        elif "judged_only" in getattr(m, "SUPPORTED_PARAMS", {}):
            out.append(m(judged_only=True))
        else:
            out.append(m)
    if refused:
        raise ParameterError(f"-J (judged documents only) cannot apply to {', '.join(refused)}; drop -J or the "
                             "measure")
    return out


def judged_rows(run: Any, qrels: Any) -> np.ndarray:
    """trec_eval's ``-J``: which rows of ``run`` (a frame or columns) the qrels grade >= 0 (a bool mask).

    The one rule of ``-J`` for every kind of measure: a document the qrels do not list, or
    list with a negative grade (trec_eval's "in the pool but not judged"), is unjudged.
    """
    def cols(x: Any, names: tuple[str, str, str]) -> list[np.ndarray]:
        if isinstance(x, (columns.RunColumns, columns.QrelsColumns)):
            return [np.asarray(getattr(x, n)) for n in names]
        return [x[n].to_numpy() for n in names]

    qt, qd, grade = cols(qrels, ("query_id", "doc_id", "relevance"))
    rt, rd, _ = cols(run, ("query_id", "doc_id", "doc_id"))
    judged = {(t, d) for t, d, g in zip(qt.tolist(), qd.tolist(), grade.tolist()) if g >= 0}
    return np.fromiter(((t, d) in judged for t, d in zip(rt.tolist(), rd.tolist())), dtype=bool, count=len(rt))


def keep_judged(run: Any, qrels: Any) -> Any:
    """The run (frame or columns) without the documents :func:`judged_rows` calls unjudged (trec_eval's ``-J``)."""
    mask = judged_rows(run, qrels)
    if isinstance(run, columns.RunColumns):
        et = run.element_type[mask] if run.element_type is not None else None
        return columns.RunColumns(run.query_id[mask], run.doc_id[mask], run.score[mask], et, dict(run.attrs))
    out = run[mask].reset_index(drop=True)
    out.attrs = dict(run.attrs)
    return out


def check_topics(name: str, run: pd.DataFrame, qrels: pd.DataFrame, answered_only: bool = False,
                 means: bool = True) -> None:
    """No silent zero (:func:`ir_cwla.io.topic_coverage`, the rule :func:`ir_cwla.meta.evaluate` applies too).

    An empty run, or one that shares no topic with the qrels, is an error; one that misses some
    qrels topics gets one :class:`MissingTopicsWarning` with the count, which says how the means
    of ``ir-cwla eval`` treat them (``means=False``: no means are printed, e.g. ``ir-cwla
    compare``, which compares the per-topic scores: those topics score 0).
    """
    if not means:
        how = "score 0 on every measure"
    else:
        how = ("are left out of the means (averaging over answered topics)" if answered_only else
               "count as 0 in the means (--answered-only averages over the answered topics)")
    columns.check_topics(name, run, qrels, how, stacklevel=2)


# ------------------------------------------------------------------------- evaluation

def evaluate_runs(runs: Mapping[str, Any], qrels: pd.DataFrame, measures: Sequence[Any],
                  per_query: bool = True, summary: bool = True, answered_only: bool = False,
                  progress: bool = False, executor: Any = None, ties: Optional[str] = None,
                  trec_eval: Optional[int] = None) -> pd.DataFrame:
    """Scores every run (:func:`ir_cwla.meta.evaluate`): a long frame ``name, qid, measure, value, short``.

    Rows per query (when ``per_query``) and, when ``summary``, for each run and measure a
    row with qid ``'all'``: the measure's own aggregate (the mean, as trec_eval and
    ``ir_measures.calc_aggregate``). ``answered_only=False`` (the default) scores every qrels
    topic, 0 where the run has none (ir-measures; trec_eval ``-c``); ``True`` keeps only the
    topics the run answers (trec_eval without ``-c``). Runs keep their order, topics are in
    natural order; ``measure`` is ``str(measure)``, ``short`` :func:`ir_cwla.short_name`.
    The commands check each run's topics first (:func:`check_topics`, whose warning says how
    these means count the missing ones), so :func:`ir_cwla.meta.evaluate` does not warn again.
    ``ties``: the precision scores are compared in (``--ties``), ``trec_eval``: the version whose
    semantics trec_eval's measures follow (``--trec-eval``; both as :func:`ir_cwla.meta.evaluate`).

    A run may be stored in shards (:class:`ir_cwla.sharding.Shards`), read shard by shard on
    ``executor`` (:func:`ir_cwla.meta.get_executor`; default in-process); its topics are then
    checked (:func:`check_topics`) once it has been read.
    """
    import pandas as pd

    from ir_cwla.analysis.executors import get_executor
    from ir_cwla.io import Shards
    from ir_cwla.meta.evaluation import evaluate_collections

    seen: dict[tuple, set] = {}
    try:
        scores = evaluate_collections({None: (dict(runs), qrels)}, list(measures), get_executor(executor), progress,
                                      missing_topics="ignore", ties=ties, answered=seen, trec_eval=trec_eval)[None]
    except (AssertionError, NotImplementedError) as ex:
        raise MeasureError(f"cannot evaluate {', '.join(map(short_name, measures))}: {ex}") from None
    topics_of = {name: (sorted(seen.get((None, name), ())) if isinstance(run, Shards) else pd.unique(run["query_id"]))
                 for name, run in runs.items()}
    for name, run in runs.items():
        if isinstance(run, Shards):
            check_topics(name, pd.DataFrame({"query_id": topics_of[name]}, dtype=object), qrels, answered_only,
                         summary)
    answered = {name: set(map(str, topics_of[name])) for name in runs} if answered_only else None
    return results_frame(result_rows(list(scores[["name", "qid", "measure", "value"]].itertuples(index=False, name=None)),
                                     list(runs), list(measures), per_query, summary, answered))


def results_frame(rows: Sequence[tuple[str, str, str, float, str]]) -> pd.DataFrame:
    """The rows of :func:`result_rows` as the frame of :func:`evaluate_runs` (columns :data:`RESULT_COLUMNS`)."""
    import pandas as pd

    return pd.DataFrame(list(rows), columns=list(RESULT_COLUMNS)).astype({"value": "float64"})


def result_rows(scores: Sequence[tuple[str, str, str, float]], runs: Sequence[str], measures: Sequence[Any],
                per_query: bool = True, summary: bool = True,
                answered: Optional[Mapping[str, set]] = None) -> list[tuple[str, str, str, float, str]]:
    """The rows of :func:`evaluate_runs` from per-topic scores, without pandas.

    ``scores``: ``(name, qid, measure, value)`` sorted by name, qid and measure as
    :func:`ir_cwla.meta.evaluate` returns them (``measure`` is ``str(measure)``); ``answered``:
    the topics each run answers, to keep only those (``answered_only``), or None. The summary of
    a run and measure is the measure's aggregate of its values in that order (the mean, summed
    in the order of the qids as text, so that the means are bit for bit those of the frames).
    Rows come out in the order of ``runs``, topics in natural order, summaries last, measures in
    the order of ``measures``; each ends with the measure's short name.
    """
    by_str = {str(m): m for m in measures}
    if answered is not None:
        scores = [row for row in scores if row[1] in answered[row[0]]]
    values: dict[tuple[str, str], list[float]] = {}
    for name, _, key, value in scores:
        values.setdefault((name, key), []).append(value)
    rows = list(scores) if per_query else []
    if summary:
        rows += [(name, SUMMARY_QID, key, _aggregate(m, values.get((name, key), ()))) for name in runs
                 for key, m in by_str.items()]
    run_rank = {name: i for i, name in enumerate(runs)}
    measure_rank = {key: i for i, key in enumerate(by_str)}
    rows.sort(key=lambda r: (run_rank[r[0]], r[1] == SUMMARY_QID, _natural_key(r[1]), measure_rank[r[2]]))
    short = {key: short_name(m) for key, m in by_str.items()}
    return [(name, qid, key, float(value), short[key]) for name, qid, key, value in rows]


def _aggregate(measure: Any, values: Any) -> float:
    agg = measure.aggregator()
    for v in values:
        agg.add(v)
    return float(agg.result())




def read_clean_files(qrels_spec: str, run_specs: Sequence[str], measures: Sequence[Any]
                     ) -> Optional[tuple[columns.QrelsColumns, list[columns.RunColumns]]]:
    """The qrels and runs as columns, read without pandas, if every file is clean; else None.

    Clean: what :mod:`ir_cwla.trec_text` takes (regular TREC files no rule of :mod:`ir_cwla.io`
    has anything to say about), with no qrels check registered but those that only grades
    below 0 trigger (:data:`ir_cwla.sources.NEGATIVE_GRADE_CHECKS`; clean qrels have none).
    The grades are checked for the measures' backends as :func:`read_qrels_arg` checks them.
    """
    from ir_cwla.io import _sources as sources
    from ir_cwla.io import _trec_text as trec_text
    from ir_cwla.provider import _backends as backends

    if any(key not in sources.NEGATIVE_GRADE_CHECKS for key in sources.QRELS_CHECKS):
        return None
    qrels = trec_text.read_qrels(qrels_spec)
    if qrels is None:
        return None
    backends.check_grades_for_backends(qrels, measures, qrels.attrs[columns.SOURCE_ATTR])
    runs = []
    for spec in run_specs:
        run = trec_text.read_run(spec, element_type=needs_element_types(measures))
        if run is None:
            return None
        runs.append(run)
    return qrels, runs


def evaluate_columns(runs: Mapping[str, columns.RunColumns], qrels: columns.QrelsColumns, measures: Sequence[Any],
                     per_query: bool = True, summary: bool = True, answered_only: bool = False,
                     ties: Optional[str] = None, trec_eval: Optional[int] = None
                     ) -> list[tuple[str, str, str, float, str]]:
    """:func:`evaluate_runs` of runs and qrels read as columns (:func:`read_clean_files`), without pandas.

    The rows of :func:`result_rows`: the values :func:`ir_cwla.meta.evaluate` gives the same
    files, by the same unit of work (:func:`ir_cwla.per_topic.run_values`), bit for bit.
    """
    from ir_cwla.provider import _per_topic as per_topic
    from ir_cwla.provider import _trec_provider as trec_provider
    from ir_cwla.scoring import Qrels, Scorer, trec_eval_semantics

    version, ties = trec_eval_semantics(trec_eval, ties)
    names = {m: str(m) for m in measures}
    cwla = [m for m in measures if is_cwla(m)]
    others = [m for m in measures if not is_cwla(m)]
    try:
        scorer = Scorer(cwla, Qrels(qrels), ties=ties) if cwla else None
        evaluator = trec_provider.evaluator(others, columns.qrels_dict(qrels), version) if others else None
        scores: list[tuple[str, str, str, float]] = []
        for name, run in runs.items():
            qids, keys, values = per_topic.run_values(run, name, scorer, evaluator, names, ties)
            scores += zip([name] * len(qids), qids, keys, values)
    except (AssertionError, NotImplementedError) as ex:
        raise MeasureError(f"cannot evaluate {', '.join(map(short_name, measures))}: {ex}") from None
    rank = {key: i for i, key in enumerate(names.values())}
    scores.sort(key=lambda r: (r[0], r[1], rank[r[2]]))         # as ir_cwla.meta.evaluate's frame
    answered = {name: set(run.query_id.tolist()) for name, run in runs.items()} if answered_only else None
    return result_rows(scores, list(runs), list(measures), per_query, summary, answered)


# ------------------------------------------------------------------------- output and input of results

def format_results(results: pd.DataFrame, fmt: str = "trec", places: int = 4) -> str:
    """The text of ``ir-cwla eval``'s output.

    ``trec``: trec_eval's layout, ``measure<TAB>qid<TAB>value`` with the short name of the
    measure padded to 22 characters and ``places`` decimals, each run introduced by a
    ``runid all NAME`` line. ``csv``: the columns of :data:`RESULT_COLUMNS` (text that a
    spreadsheet would run as a formula, ``=cmd``, gets a leading ``'``,
    :func:`ir_cwla.text.csv_safe`, as in every CSV ir_cwla writes); ``json``: a
    list of such records; ``jsonl``: one record per line. These keep every digit (``repr``
    of the float), ``measure`` is ``str(measure)``, and read back with :func:`read_per_query`.
    """
    if fmt == "csv":        # text a spreadsheet would run as a formula gets a leading ' (read back by read_per_query)
        return csv_safe(results[list(RESULT_COLUMNS)]).to_csv(index=False)
    return format_rows(list(results[list(RESULT_COLUMNS)].itertuples(index=False, name=None)), fmt, places)


def format_rows(rows: Sequence[tuple[str, str, str, float, str]], fmt: str = "trec", places: int = 4) -> str:
    """:func:`format_results` of the rows of :func:`result_rows` in the formats that need no pandas (all but ``csv``)."""
    if fmt in ("json", "jsonl"):
        records = [{"name": n, "qid": q, "measure": m, "value": (v if math.isfinite(v) else None), "short": s}
                   for n, q, m, v, s in rows]
        if fmt == "jsonl":
            return "".join(json.dumps(r) + "\n" for r in records)
        return json.dumps(records, indent=1) + "\n"
    if fmt != "trec":
        raise ParameterError(f"unknown output format {fmt!r} ({', '.join(FORMATS)})")
    lines = []
    last = None
    for name, q, _, v, m in rows:
        if name != last:
            lines.append(f"{'runid':<22}\t{SUMMARY_QID}\t{name}")
            last = name
        lines.append(f"{m:<22}\t{q}\t{v:.{places}f}")
    return "\n".join(lines) + "\n" if lines else ""


def read_per_query(path: str) -> pd.DataFrame:
    """A per-query file of ``ir-cwla eval`` as the frame of :mod:`ir_cwla.meta`.

    A per-query file written by ``ir-cwla eval -q --format csv|json|jsonl`` (or any CSV /
    JSON / JSONL with the columns ``name, qid, measure, value``) as the frame of
    :mod:`ir_cwla.meta` (as :func:`ir_cwla.meta.evaluate` returns it: ``name`` and ``qid`` as
    strings, sorted by name and qid, measures in the file's order), summary rows (qid ``all``) dropped.
    The format is recognised from the first character (``[`` JSON, ``{`` JSON lines, else CSV).
    """
    import pandas as pd

    from ir_cwla import io
    from ir_cwla.analysis.frame import long_frame

    with io.open_input(path, "per-query") as (stream, name, _):
        data = stream.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as ex:
        line = data.count(b"\n", 0, ex.start) + 1
        raise InputError(f"per-query file {name}:{line}: not UTF-8 (byte {data[ex.start]:#x}); write it with "
                         "ir-cwla eval -q --format csv, or convert it to UTF-8") from None
    head = text.lstrip()[:1]
    try:
        if head == "[":
            frame = pd.DataFrame(json.loads(text))
        elif head == "{":
            frame = pd.DataFrame([json.loads(line) for line in text.splitlines() if line.strip()])
        else:
            frame = pd.read_csv(_io.StringIO(text), dtype={"name": str, "qid": str, "measure": str},
                                keep_default_na=False, na_values={"value": ["", "nan", "NaN"]})
    except (ValueError, pd.errors.ParserError) as ex:
        raise InputError(f"per-query file {name} cannot be read as CSV, JSON or JSON lines: {ex}") from None
    missing = [c for c in ("name", "qid", "measure", "value") if c not in frame.columns]
    if missing:
        raise InputError(f"per-query file {name} lacks columns {missing} (found {list(frame.columns)}); "
                         "write it with ir-cwla eval -q --format csv")
    frame = frame.astype({"name": str, "qid": str, "measure": str})
    if head not in ("[", "{"):                  # the CSV of format_results escapes formula-like text
        frame = frame.assign(**{c: frame[c].map(csv_unescape) for c in ("name", "qid", "measure")})
    frame = frame[frame["qid"] != SUMMARY_QID]
    if len(frame) == 0:
        raise InputError(f"per-query file {name} holds no per-topic rows (write it with ir-cwla eval -q)")
    try:
        values = pd.to_numeric(frame["value"]).astype("float64")
    except (ValueError, TypeError) as ex:
        raise InputError(f"per-query file {name}: column 'value' is not numeric ({ex})") from None
    return long_frame(frame["name"].tolist(), frame["qid"].tolist(), frame["measure"].tolist(), values.tolist())


def per_query_measures(frame: pd.DataFrame, wanted: Optional[Sequence[Any]] = None) -> tuple[pd.DataFrame, list[Any]]:
    """The measures named in a per-query frame, and the frame restricted to ``wanted``.

    The measures named in a per-query frame (:func:`ir_cwla.parse_measure` of each name) and
    the frame restricted to ``wanted`` (all if None); an unknown name or a wanted measure
    absent from the frame is an error.
    """
    import pandas as pd

    from ir_cwla.measures import parse_measure

    names = list(pd.unique(frame["measure"]))
    parsed = {}
    for name in names:
        try:
            parsed[name] = parse_measure(name)
        except ValueError as ex:
            raise InputError(f"per-query file: {ex}") from None
    if not wanted:
        return frame, list(parsed.values())
    keep = [n for n, m in parsed.items() if m in list(wanted)]
    absent = [short_name(m) for m in wanted if m not in parsed.values()]
    if absent:
        raise InputError(f"per-query file has no scores for {', '.join(absent)} (it has {', '.join(names[:6])}"
                         f"{', ...' if len(names) > 6 else ''})")
    return frame[frame["measure"].isin(keep)].reset_index(drop=True), [parsed[n] for n in keep]
