"""Two collections of the same systems: their score cubes aligned, and topic resamples of both.

:func:`ir_cwla.meta.disjoint_agreement` and :func:`ir_cwla.meta.judge_bias` compare how two
collections rank the same systems: two per-query frames (``name, qid, measure, value``, as
PyTerrier or :func:`ir_cwla.meta.evaluate` give them, or as :func:`ir_cwla.meta.read_score_files`
reads them) scored by two assessors, on the same topics or on disjoint ones. :func:`align` turns
them into two :class:`~ir_cwla.analysis.frame.ScoreCube` of the same systems and measures and says how
their topics relate:

- ``'same'``: the same topics (two assessors of one pool): a topic resample draws one set of
  topic positions for both (paired);
- ``'disjoint'``: no topic in common (the SynDL design: NIST's topics against an LLM's
  others): each collection's topics are resampled on their own;
- topics that overlap only in part are refused (a :class:`~ir_cwla.errors.DataError` naming the
  shared topics): drop them from one side, or pass the shared part alone.

Systems must be the same on both sides and measures are those both frames hold (or
``measures=``); anything else is an error that names what differs, never a silent
intersection.

**Resamples** (:func:`resample_means`). Replicate ``b`` draws ``T_a`` topic positions of the first
collection uniformly with replacement (``Generator.integers(0, T_a, size=(chunk, T_a))``) and,
for disjoint collections, then ``T_b`` of the second from the same generator; the systems' means
over the drawn topics are sums in the order drawn (numpy's reduction, no BLAS), so a replicate's
value never depends on the other replicates of its chunk.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming
from ir_cwla.analysis.frame import ScoreCube, to_cube
from ir_cwla.errors import DataError

#: How the topics of two collections relate (see the module docstring).
RELATIONS = ("same", "disjoint")


@dataclass(frozen=True)
class TwoCollections:
    """Two cubes of the same systems and measures (``a.values[m, t, s]``), and how their topics relate."""

    a: ScoreCube
    b: ScoreCube
    relation: str
    names: tuple[str, str]

    @property
    def measures(self) -> tuple[str, ...]:
        """The measures both hold, in the cube order."""
        return self.a.measures

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems, sorted."""
        return self.a.systems


def _examples(items: Sequence[Any], n: int = 5) -> str:
    items = list(items)
    return ", ".join(map(str, items[:n])) + (f", ... ({len(items)} in all)" if len(items) > n else "")


def resolve_measures(wanted: Sequence[Any], found: Sequence[str]) -> list[str]:
    """The frame's names of ``wanted`` measures: a name as in the frame, a label (``P_ERG@10``) or a measure object."""
    by_label: dict[str, str] = {}
    for name in found:
        by_label.setdefault(naming.label(name), name)
    out = []
    for m in wanted:
        text = str(m)
        out.append(text if text in found else by_label.get(text, text))
    return out


def align(per_query_a: pd.DataFrame, per_query_b: pd.DataFrame, measures: Optional[Sequence[Any]] = None,
          names: tuple[str, str] = ("a", "b"), allow: Sequence[str] = RELATIONS) -> TwoCollections:
    """The two frames as cubes of the same systems and measures (see the module docstring).

    ``measures``: the measures to compare (names as in the frames, or measures whose ``str`` is);
    default: those of the first frame, which the second must hold too. ``allow``: the topic
    relations the analysis takes (:data:`RELATIONS`).
    """
    found_a = [str(m) for m in pd.unique(per_query_a["measure"])] if "measure" in per_query_a else []
    found_b = [str(m) for m in pd.unique(per_query_b["measure"])] if "measure" in per_query_b else []
    wanted = resolve_measures(measures, found_a) if measures is not None else found_a
    for name, found in zip(names, (found_a, found_b)):
        missing = [m for m in wanted if m not in found]
        if missing and found:
            raise DataError(f"{name} has no scores for {_examples(missing)} (it has {_examples(found)}); pass "
                            "measures= to compare the measures both hold")
    cube_a = to_cube(per_query_a[per_query_a["measure"].astype(str).isin(wanted)])
    cube_b = to_cube(per_query_b[per_query_b["measure"].astype(str).isin(wanted)])
    if cube_a.systems != cube_b.systems:
        only_a = sorted(set(cube_a.systems) - set(cube_b.systems))
        only_b = sorted(set(cube_b.systems) - set(cube_a.systems))
        parts = [f"only {names[0]} has {_examples(only_a)}" if only_a else "",
                 f"only {names[1]} has {_examples(only_b)}" if only_b else ""]
        raise DataError(f"{names[0]} and {names[1]} score different systems: " + "; ".join(p for p in parts if p)
                        + ". Rankings are compared over the same systems: select them in both frames")
    shared = sorted(set(cube_a.topics) & set(cube_b.topics))
    if set(cube_a.topics) == set(cube_b.topics):
        relation = "same"
    elif not shared:
        relation = "disjoint"
    else:
        raise DataError(f"{names[0]} ({len(cube_a.topics)} topics) and {names[1]} ({len(cube_b.topics)} topics) share "
                        f"{len(shared)} topics ({_examples(shared)}) but not all: pass disjoint topic sets (drop the "
                        "shared topics from one) or the same topics")
    if relation not in allow:
        raise DataError(f"{names[0]} and {names[1]} have {'the same' if relation == 'same' else 'disjoint'} topics; "
                        f"this analysis compares collections with {' or '.join(allow)} topics")
    return TwoCollections(cube_a.select(cube_a.measures), cube_b.select(cube_a.measures), relation, names)


def draws_of(rng: np.random.Generator, size: int, n_a: int, n_b: int, relation: str
             ) -> tuple[np.ndarray, np.ndarray]:
    """The topic positions of ``size`` replicates of both collections (the module docstring's recipe)."""
    draws_a = rng.integers(0, n_a, size=(size, n_a))
    draws_b = draws_a if relation == "same" else rng.integers(0, n_b, size=(size, n_b))
    return draws_a, draws_b


def resample_means(matrix: np.ndarray, draws: np.ndarray, work: Optional[np.ndarray] = None) -> np.ndarray:
    """The systems' mean scores over each row of topic positions ``draws``: ``(B, S)``.

    ``matrix``: ``(T, S)`` scores of one measure; ``draws``: ``(B, k)`` positions in ``0..T-1``;
    ``work``: an optional ``(B, k, S)`` buffer. Each mean is numpy's sum over the drawn topics, in
    the order drawn, divided by ``k`` (no BLAS: the value of a row never depends on the others).
    """
    b, k = draws.shape
    gathered = work if work is not None else np.empty((b, k, matrix.shape[1]))
    np.take(matrix, draws, axis=0, out=gathered, mode="clip")
    out = np.add.reduce(gathered, axis=1)
    out /= k
    return out
