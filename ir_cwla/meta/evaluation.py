"""Per-query scores of many runs, without PyTerrier systems: the input of every analysis.

``evaluate(runs, qrels, measures)`` returns the same long frame as
``pt.Experiment(systems, topics, qrels, measures, perquery=True)``: columns ``name`` (str),
``qid`` (str), ``measure`` (str: ``str(measure)``, or the string the measure was given as)
and ``value`` (float64), sorted by name and qid. It evaluates with one
``ir_measures.evaluator(measures, qrels)`` for all runs, so CWLA and standard ir-measures
measures mix freely; like ir-measures, a run that returns nothing for a judged topic gets
the measure's default value (0) for it. Runs and qrels are read and checked by
:mod:`ir_cwla.io` before any backend sees them (one duplicate policy for every measure),
and grades that trec_eval cannot take are refused up front
(:func:`ir_cwla.io.check_grades_for_backends`).

Nothing scores silently to zero (:func:`ir_cwla.io.topic_coverage`, the rule of ``ir-cwla
eval``): an empty run, or one that shares no topic with the qrels (e.g. topic ids written
``001`` against the qrels' ``1``), is an :class:`~ir_cwla.errors.InputError` naming the run,
and a run that misses some qrels topics gets one :class:`~ir_cwla.errors.MissingTopicsWarning`
with the count (``missing_topics='ignore'`` leaves it out).
"""
from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

import pandas as pd

from ir_cwla import io
from ir_cwla._text import run_name as run_name
from ir_cwla.analysis.executors import get_executor, item_blocks
from ir_cwla.analysis.frame import long_frame
from ir_cwla.errors import (
    ArgumentTypeError,
    InputError,
    InputWarning,
    IrCwlaDeprecationWarning,
    MissingTopicsWarning,
    ParameterError,
)
from ir_cwla.io import Shards
from ir_cwla.io._columns import compacted
from ir_cwla.io._frames import release_freed_memory
from ir_cwla.measures import is_cwla, needs_element_types
from ir_cwla.measures._names import named_measures
from ir_cwla.meta import sharded
from ir_cwla.provider import _per_topic as per_topic
from ir_cwla.provider import _trec_provider as trec_provider
from ir_cwla.provider import check_grades_for_backends
from ir_cwla.scoring import Scorer, trec_eval_semantics
from ir_cwla.scoring._gains import run_columns

Runs = Union[Mapping[str, Any], Sequence[Union[str, os.PathLike]], str, os.PathLike]
def run_files(folder: Path) -> list[Path]:
    """The run files of a directory, sorted by name.

    Hidden entries (dot-files) and sub-directories are skipped with one warning that names
    them; a broken symbolic link or an entry that is not a regular file (a FIFO, a socket, a
    device) is an error, so that no system silently vanishes from an analysis.
    """
    files, skipped = [], []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            skipped.append(entry.name)
            continue
        try:
            mode = entry.stat().st_mode
        except OSError as ex:
            what = "a broken symbolic link" if entry.is_symlink() else f"unreadable ({ex.strerror})"
            raise InputError(f"runs: {entry} is {what}; fix or remove it") from None
        if stat.S_ISDIR(mode):
            skipped.append(entry.name + "/")
        elif stat.S_ISREG(mode):
            files.append(entry)
        else:
            raise InputError(f"runs: {entry} is not a regular file (a FIFO, socket or device); "
                             "pass run files, or a dict {name: path}")
    if skipped:
        warnings.warn(f"runs: skipped {len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'} of {folder} "
                      f"(hidden or directories): {', '.join(skipped[:5])}{' ...' if len(skipped) > 5 else ''}",
                      InputWarning, stacklevel=3)
    return files


def as_run_mapping(runs: Runs) -> dict[str, Any]:
    """``{name: run}`` from a mapping, a list of run files, or a directory of run files (:func:`run_files`).

    Names are strings; an empty (or blank) name is an :class:`InputError`.
    """
    if isinstance(runs, (str, os.PathLike)):
        folder = Path(runs)
        if not folder.is_dir():
            raise InputError(f"runs: {folder} is not a directory (pass a directory, a list of files or a dict)")
        files = run_files(folder)
        if not files:
            raise InputError(f"runs: no run files in {folder}")
        runs = files
    if isinstance(runs, Shards):
        runs = [runs]  # type: ignore[list-item]
    if isinstance(runs, Mapping):
        out = {str(k): v for k, v in runs.items()}
    elif isinstance(runs, Sequence) and all(isinstance(r, (str, os.PathLike, Shards)) for r in runs):
        out = {}
        for path in runs:
            if isinstance(path, Shards):         # a run stored in shards (ir_cwla.sharding.shards)
                name = path.name or run_name(path.source)
                if name in out:
                    raise InputError(f"runs: two runs are named {name!r}; pass a dict {{name: shards}} instead")
                out[name] = path
                continue
            name = run_name(path)
            if name in out:
                raise InputError(f"runs: two files give the system name {name!r}: {out[name]} and {path}; "
                                 "pass a dict {name: path} instead")
            out[name] = path
    else:
        raise ArgumentTypeError("runs must be a dict {name: run}, a list of run files or a directory of run files, "
                        f"got {type(runs).__name__}")
    if not out:
        raise InputError("runs: no runs given")
    blank = [k for k in out if not k.strip()]
    if blank:
        raise InputError(f"runs: a system name is empty ({blank[0]!r}); name every run (an empty name cannot "
                         "survive a CSV file: pandas reads it back as NaN)")
    return out


def as_measures(measures: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """Measures as ir-measures objects, with the names the frame will carry (:func:`ir_cwla.names.named_measures`)."""
    return named_measures(measures)


class EvaluationContext:
    """Qrels and measures shipped once to each worker; scorers are built there on first use."""

    def __init__(self, qrels: pd.DataFrame, measures: list[Any], names: list[str], ties: str = "float32",
                 trec_eval: int = 9):
        self.qrels = qrels
        self.measures = measures
        self.names = names
        self.ties = ties
        self.trec_eval = trec_eval
        self.topics = set(pd.unique(qrels["query_id"]).astype(str).tolist())
        self._scorers: dict[tuple[int, ...], tuple[Optional[Scorer], Any]] = {}

    def scorers(self, block: tuple[int, ...]) -> tuple[Optional[Scorer], Any]:
        """The scorers of the measures at positions ``block``.

        For the measures at positions ``block``: the :class:`ir_cwla.scoring.Scorer` of the
        C/W/L/A ones and the ir-measures evaluator of the others, with the semantics of trec_eval
        ``trec_eval`` (:func:`ir_cwla.provider._trec_provider.evaluator`; None where there are none; cached).
        """
        if block not in self._scorers:
            cwla = [self.measures[i] for i in block if is_cwla(self.measures[i])]
            others = [self.measures[i] for i in block if not is_cwla(self.measures[i])]
            self._scorers[block] = (Scorer(cwla, self.qrels, ties=self.ties) if cwla else None,
                                    trec_provider.evaluator(others, self.qrels, self.trec_eval) if others else None)
        return self._scorers[block]

    def backend_run(self, frame: pd.DataFrame) -> dict[str, dict[str, float]]:
        """A checked run as ir-measures' backends read it (``{query_id: {doc_id: score}}``).

        Those backends compare scores in float32: under ``ties='float64'`` they are given the
        ranks of the float64 order as scores (:func:`ir_cwla.io.rank_scores`), which they rank
        alike.
        """
        return per_topic.backend_run(run_columns(frame), self.ties)

    def qrels_topics(self) -> list[str]:
        """The qrels' topic ids, sorted."""
        if getattr(self, "_topics", None) is None:
            self._topics = sorted(set(self.qrels["query_id"].astype(str).tolist()))
        return self._topics

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_scorers": {}, "_topics": None}


def evaluate_run(contexts: Mapping[Any, EvaluationContext], task: tuple[Any, str, Any, tuple[int, ...]]):
    """Scores one run under a block of measures: the unit of work of :func:`evaluate`.

    C/W/L/A measures are scored by :class:`ir_cwla.scoring.Scorer` (every qrels topic, the
    measure's default, 0, where the run has none, as the ir-measures provider does), the others
    by ir-measures. Returns ``(collection, name, qids, measure names, values, note)``, ``note``
    the warning about the qrels topics the run misses (:func:`ir_cwla.io.topic_coverage`, which
    refuses a run that shares none) or None.
    """
    if isinstance(task, sharded.ShardTask):
        return sharded.evaluate_shard(contexts, task)
    collection, name, run, block = task
    given_frame = isinstance(run, pd.DataFrame)       # (its str objects live on in the caller's frame)
    ctx = contexts[collection]
    names = {ctx.measures[i]: ctx.names[i] for i in block}
    frame = io.as_run_frame(run, name=name, element_type=needs_element_types(ctx.measures[i] for i in block))
    note = io.topic_coverage(name, frame, ctx.topics)
    scorer, others = ctx.scorers(block)
    run = run_columns(frame, name)
    del frame
    if scorer is not None and others is None:
        # C/W/L/A measures only: a run read here is ranked with its doc ids compact (the str objects of
        # the frame read, most of its memory, freed here; ir-measures would read them as str), and its
        # columns are let go once it is ranked, so that they are not held beside the scoring's matrices
        if not given_frame:
            run = compacted(run)
        release_freed_memory()      # what reading and checking the run let go, before ranking it
        ranked = scorer.rank(run, name)
        del run
        release_freed_memory()
        qids, measures, values = per_topic.ranked_values(ranked, scorer, names)
    else:
        release_freed_memory()
        qids, measures, values = per_topic.run_values(run, name, scorer, others, names, ctx.ties)
    return collection, name, qids, measures, values, note


def read_qrels(qrels: Any, measures: Sequence[Any]) -> pd.DataFrame:
    """The qrels as a checked frame for these (parsed) measures.

    Read and checked by :func:`io.as_qrels_frame`, grades within what the measures'
    backends accept (:func:`io.check_grades_for_backends`); messages name the file, or
    the qrels' type.
    """
    source = io.input_name(qrels) if isinstance(qrels, (str, os.PathLike)) else f"<{type(qrels).__name__}>"
    frame = io.as_qrels_frame(qrels, source, measures=measures)
    check_grades_for_backends(frame, measures, source)
    return frame


MISSING_TOPICS = ("warn", "ignore")


def evaluate_collections(collections: Mapping[Any, tuple[Runs, Any]], measures: Sequence[Any], executor: Any = None,
                         progress: bool = True, missing_topics: str = "warn", ties: Optional[str] = None, *,
                         answered: Optional[dict[tuple, set]] = None, run: Any = None,
                         trec_eval: Optional[int] = None) -> dict[Any, pd.DataFrame]:
    """Per-query frames of several collections in one pass of tasks.

    Per-query frames of several collections ``{key: (runs, qrels)}`` in one pass of tasks on
    ``executor`` (anything :func:`get_executor` takes; ``run=`` is its old name, deprecated);
    ``missing_topics``, ``ties`` and ``trec_eval`` as in :func:`evaluate`. Runs stored in shards
    (:class:`ir_cwla.sharding.Shards`) are read a shard per task; their topics are checked once
    all their shards are read. ``answered``, if given, receives the topics of each sharded run:
    ``{(key, name): topics}``.
    """
    if run is not None:
        warnings.warn("evaluate_collections(run=...) is now evaluate_collections(executor=...): 'run' means a "
                      "TREC run everywhere else", IrCwlaDeprecationWarning, stacklevel=2)
        executor = run
    version, ties = trec_eval_semantics(trec_eval, ties)
    if missing_topics not in MISSING_TOPICS:
        raise ParameterError(f"missing_topics must be one of {MISSING_TOPICS}, got {missing_topics!r}")
    workers = get_executor(executor)
    parsed, names = as_measures(measures)
    contexts: dict[Any, EvaluationContext] = {}
    tasks: list[Any] = []
    for key, (runs, qrels) in collections.items():
        named = as_run_mapping(runs)
        qrels_frame = read_qrels(qrels, parsed)
        contexts[key] = EvaluationContext(qrels_frame, parsed, names, ties, version)
        units = sum(len(r) if isinstance(r, Shards) else 1 for r in named.values())
        blocks = item_blocks(len(parsed), units, workers.parallelism)
        for name, r in named.items():      # a run stored in shards: a task per shard (ir_cwla.meta.sharded)
            tasks += sharded.tasks(key, name, r, blocks) if isinstance(r, Shards) else \
                [(key, name, r, block) for block in blocks]
    results = workers.map(evaluate_run, contexts, tasks, desc="evaluate", progress=progress)
    columns: dict[Any, tuple[list, list, list, list]] = {key: ([], [], [], []) for key in collections}
    notes: dict[tuple[Any, str], str] = {}
    parts: dict[tuple, list] = {}
    for result in results:
        if isinstance(result, sharded.ShardResult):
            parts.setdefault((result.task.collection, result.task.name, result.task.block), []).append(result)
            continue
        key, name, qids, ms, values, note = result
        if note is not None:
            notes.setdefault((key, name), note)
        _extend(columns[key], name, qids, ms, values)
    if parts:
        # a shard scored at other widths than the whole run gives its topics is scored again with those
        redo = [task for results_of_run in parts.values() for task in sharded.rescoring(results_of_run)]
        if redo:
            again = {(t.collection, t.name, t.block, t.shard.index): r
                     for t, r in zip(redo, workers.map(evaluate_run, contexts, redo, desc="evaluate", progress=progress))}
            parts = {k: [again.get((r.task.collection, r.task.name, r.task.block, r.task.shard.index), r) for r in rs]
                     for k, rs in parts.items()}
        topics_of: dict[tuple, set] = {}
        for (key, name, _), results_of_run in parts.items():
            topics_of.setdefault((key, name), set()).update(t for r in results_of_run for t in r.run_topics.tolist())
            _extend(columns[key], name, *sharded.assemble(results_of_run, contexts[key]))
        for (key, name), topics in topics_of.items():
            if answered is not None:
                answered.setdefault((key, name), set()).update(topics)
            # the rule of whole runs (io.topic_coverage), once every shard is read
            note = io.topic_coverage(name, sorted(topics), contexts[key].topics)
            if note is not None:
                notes.setdefault((key, name), note)
    if missing_topics == "warn":
        for note in notes.values():          # once per run, in the order of the runs
            warnings.warn(note, MissingTopicsWarning, stacklevel=3)
    return {key: long_frame(*cols, order=names) for key, cols in columns.items()}


def _extend(cols: tuple[list, list, list, list], name: str, qids: list, measures: list, values: list) -> None:
    cols[0].extend([name] * len(qids))
    cols[1].extend(qids)
    cols[2].extend(measures)
    cols[3].extend(values)


def evaluate(runs: Runs, qrels: Any, measures: Sequence[Any], *, executor: Any = None,
             n_jobs: Optional[int] = None, scheduler: Optional[str] = None, progress: bool = True,
             missing_topics: str = "warn", ties: Optional[str] = None, trec_eval: Optional[int] = None
             ) -> pd.DataFrame:
    """Per-query scores of every run under every measure (``name, qid, measure, value``).

    Parameters
    ----------
    runs
        ``{name: run}`` (a run is a TREC file path, a DataFrame with ``query_id, doc_id,
        score`` or PyTerrier's ``qid, docno, score``, or anything ir-measures accepts), a list
        of TREC run files (named by :func:`run_name`), or a directory of run files.
    qrels
        A TREC qrels file, a DataFrame (``query_id, doc_id, relevance`` or PyTerrier's
        ``qid, docno, label``) or anything ir-measures accepts.
    measures
        ir-measures Measure objects (e.g. ``ir_cwla.table1()``) or their names.
    executor, n_jobs, scheduler
        Where the (run, block of measures) tasks run (default
        in-process; see :func:`ir_cwla.meta.get_executor`); run files must be readable there.
    progress
        Show a tqdm progress bar.
    missing_topics
        ``'warn'`` (default): one :class:`~ir_cwla.errors.MissingTopicsWarning` per
        run that misses some qrels topics (they score the measure's default, 0, as in
        ir-measures and ``pt.Experiment``); ``'ignore'``: no warning. Whatever its value, an
        empty run and a run that shares no topic with the qrels are an
        :class:`~ir_cwla.errors.InputError` naming the run (:func:`ir_cwla.io.topic_coverage`).
    ties
        The precision scores are compared in when runs are ranked: ``'float32'`` as trec_eval
        up to 9.0.8, pytrec_eval and ir-measures; ``'float64'`` as trec_eval 10.0 (for every
        measure: the ir-measures ones are given the ranks of the float64 order as scores,
        :func:`ir_cwla.io.rank_scores`). Default: that of ``trec_eval``.
    trec_eval
        Whose semantics trec_eval's measures follow where its versions differ: 9 (the default:
        trec_eval 9.0.8, as pytrec_eval and ir-measures compute them) or 10 (trec_eval 10.0:
        IPrec's recall cut-offs rounded, scores compared in float64); see
        :func:`ir_cwla.scoring.trec_eval_semantics` and docs/semantics.md. Either way a qrels
        topic the run does not answer counts 1 in ``NumQ`` and its relevant documents in
        ``NumRel`` (trec_eval's ``-c``), and 0 elsewhere.
    """
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    return evaluate_collections({None: (runs, qrels)}, measures, workers, progress, missing_topics, ties,
                                trec_eval=trec_eval)[None]
