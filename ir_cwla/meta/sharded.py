"""Scoring runs stored in shards of whole topics (:mod:`ir_cwla.sharding`), on any executor.

:func:`ir_cwla.meta.evaluate` hands each shard of a sharded run to a task of its own: the task
reads the shard (and nothing else of the run), ranks it against the qrels, which every worker
holds (they are sent once per worker, as for every run), and returns the per-topic values of its
topics. Nothing holds the whole run, and the values are those of scoring the run whole, bit for
bit:

- every measure scores each topic on its own, with the qrels' x_max and R of the whole qrels;
- a topic's value may still depend in its last bits on the width of the matrix it is scored in
  (numpy sums the ranks of a row pairwise, in blocks that depend on the row's length), and the
  width is that of the group of topics of similar length the whole run puts it in
  (:func:`ir_cwla.gains.group_widths`). So each task reports, with its values, the ranks each of
  its topics holds in each layout (:meth:`ir_cwla.scoring.Scorer.layouts`); the coordinator
  computes the widths the whole run gives and scores again, with those widths, the shards whose
  own widths differ. Runs whose topics all reach the deepest cutoff (or that are all as long)
  never need it; a ragged run may need a second pass over some shards;
- a topic found in two shards is an error (its duplicates could not be found, and its ranking
  would be split).

Qrels topics that no shard answers get the measure's default (0), as for a run scored whole.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Optional

import numpy as np
import pandas as pd

from ir_cwla.errors import InputError
from ir_cwla.io import _sharding as sharding
from ir_cwla.measures import needs_element_types
from ir_cwla.scoring import group_widths


class ShardTask(NamedTuple):
    """One shard of one run under a block of measures.

    ``widths`` (None: the shard's own) are the widths the whole run gives each of the shard's topics,
    per layout: ``{layout: (topics, widths)}``.
    """

    collection: Any
    name: str
    shard: sharding.Shard
    block: tuple[int, ...]
    widths: Optional[dict[tuple, tuple[np.ndarray, np.ndarray]]] = None


class ShardResult(NamedTuple):
    """What a :class:`ShardTask` returns.

    The topics it ranked (qrels topics of the shard, in qrels order), the ranks each holds per
    layout and the widths they were scored at, the C/W/L/A values ``{measure name: values}`` over
    those topics, the other measures' ``(qids, names, values)``, and the shard's lines and
    distinct topics (qrels topics or not).
    """

    task: ShardTask
    topics: np.ndarray
    layouts: dict[tuple, tuple[np.ndarray, Optional[int]]]
    used: dict[tuple, np.ndarray]
    values: dict[str, np.ndarray]
    others: tuple[list, list, list]
    lines: int
    run_topics: np.ndarray


def evaluate_shard(contexts: Mapping[Any, Any], task: ShardTask) -> ShardResult:
    """Reads, ranks and scores one shard (the unit of work of a sharded run)."""
    ctx = contexts[task.collection]
    measures = [ctx.measures[i] for i in task.block]
    names = {ctx.measures[i]: ctx.names[i] for i in task.block}
    frame = sharding.read_shard(task.shard, task.name, element_type=needs_element_types(measures))
    run_topics = np.asarray(pd.unique(frame["query_id"]), dtype=object)
    scorer, others = ctx.scorers(task.block)
    topics = np.zeros(0, dtype=object)
    layouts: dict[tuple, tuple[np.ndarray, Optional[int]]] = {}
    used: dict[tuple, np.ndarray] = {}
    values: dict[str, np.ndarray] = {}
    if scorer is not None:
        ranked = scorer.rank(frame, task.name)
        topics = np.asarray(ranked.topics, dtype=object)
        layouts = scorer.layouts(ranked)
        if task.widths is None:
            used = {key: group_widths(kept, pad) for key, (kept, pad) in layouts.items()}
        else:
            used = {key: _aligned(topics, *task.widths[key], task) for key in layouts}
        values = {names[m]: v for m, v in scorer.score(ranked, widths=used).items()}
    qids: list = []
    shown: list = []
    other_values: list = []
    if others is not None:
        mine = set(run_topics.tolist())
        calc = getattr(others, "_iter_calc", None) or others.iter_calc    # no defaults for other shards' topics
        for metric in calc(ctx.backend_run(frame)):
            if metric.query_id in mine:
                qids.append(metric.query_id)
                shown.append(names[metric.measure])
                other_values.append(float(metric.value))
    return ShardResult(task, topics, layouts, used, values, (qids, shown, other_values), len(frame), run_topics)


def _aligned(topics: np.ndarray, given: np.ndarray, widths: np.ndarray, task: ShardTask) -> np.ndarray:
    at = pd.Index(given).get_indexer(topics)
    if (at < 0).any():
        raise InputError(f"run {task.name}: {task.shard} holds topic {topics[np.argmax(at < 0)]!r}, which it did not "
                         "hold when it was first read: the run changed while it was scored")
    return np.asarray(widths)[at]


def tasks(collection: Any, name: str, run: sharding.Shards, blocks: Sequence[tuple[int, ...]]) -> list[ShardTask]:
    """One task per shard of ``run`` and block of measures."""
    return [ShardTask(collection, name, shard, block) for shard in run for block in blocks]


def rescoring(results: Sequence[ShardResult]) -> list[ShardTask]:
    """The tasks to run again for one run under one block of measures, and the results kept.

    Of the results of one run under one block of measures: the tasks to run again with the widths
    the whole run gives (those whose shard was scored at other widths); a topic in two shards is an
    :class:`InputError`.
    """
    first = results[0].task
    where: dict[str, int] = {}
    for i, r in enumerate(results):
        for topic in r.run_topics.tolist():
            if topic in where:
                raise InputError(f"run {first.name}: topic {topic!r} is in two shards, {results[where[topic]].task.shard} "
                                 f"and {r.task.shard}; each topic's lines must lie in one shard (write the run "
                                 "partitioned or sorted by topic)")
            where[topic] = i
    if not results[0].layouts:
        return []
    topics = np.concatenate([r.topics for r in results])
    order = np.argsort(topics.astype(str), kind="stable")           # the run's rows: topics in qrels order
    bounds = np.cumsum([0] + [len(r.topics) for r in results])
    whole: dict[tuple, np.ndarray] = {}
    for key, (_, pad) in results[0].layouts.items():
        kept = np.concatenate([r.layouts[key][0] for r in results])
        whole[key] = np.empty(len(kept), dtype=np.int64)
        whole[key][order] = group_widths(kept[order], pad)
    out = []
    for i, r in enumerate(results):
        mine = {key: widths[bounds[i]:bounds[i + 1]] for key, widths in whole.items()}
        if any(not np.array_equal(mine[key], r.used[key]) for key in mine):
            out.append(r.task._replace(widths={key: (r.topics, w) for key, w in mine.items()}))
    return out


def assemble(results: Sequence[ShardResult], ctx: Any) -> tuple[list, list, list]:
    """The values of one run under one block of measures, assembled from its shards.

    The ``(qids, measure names, values)`` of one run under one block of measures from the results
    of its shards (each the last scored), every qrels topic no shard answers at the measure's default.
    """
    block = results[0].task.block
    qrels_topics = ctx.qrels_topics()
    qids: list = []
    measures: list = []
    values: list = []
    answered = np.concatenate([r.topics for r in results]).tolist()
    missing = sorted(set(qrels_topics) - set(answered))
    for i in block:
        m, name = ctx.measures[i], ctx.names[i]
        if name not in results[0].values:
            continue
        qids.extend(answered + missing)
        measures.extend([name] * (len(answered) + len(missing)))
        values.extend(np.concatenate([r.values[name] for r in results]).tolist() + [float(m.DEFAULT)] * len(missing))
    seen: set = set()
    for r in results:
        q, n, v = r.others
        qids.extend(q)
        measures.extend(n)
        values.extend(v)
        seen.update(zip(n, q))
    for i in block:
        m, name = ctx.measures[i], ctx.names[i]
        if name in results[0].values:
            continue
        absent = [t for t in qrels_topics if (name, t) not in seen]
        qids.extend(absent)
        measures.extend([name] * len(absent))
        values.extend([float(m.DEFAULT)] * len(absent))
    return qids, measures, values
