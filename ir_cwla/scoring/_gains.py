"""From a run and qrels to the gains every measure reads, in a ragged layout.

The semantics (``docs/semantics.md``, sections 3-5):

- documents of a topic are ranked by score descending, ties broken by doc_id descending
  (trec_eval's order; like trec_eval, which stores scores as single-precision floats,
  scores are compared in float32, so scores equal to 7 significant digits are ties); a
  doc_id repeated within a topic keeps its best-scored occurrence
  (:func:`ir_cwla.io.drop_duplicate_docs`, the one rule, with a warning naming the run);
- unjudged documents and negative grades have grade 0;
- a grade x becomes the gain the measure's :class:`~ir_cwla.measures.GainSpec` gives it
  (``'lin'``, ``'exp'`` or ``'bin'``), x_max by default the largest grade in the qrels.

Layout. A ranked run (:class:`Rankings`) keeps, for each topic, the documents it looks at
as one flat array with per-topic offsets: memory is proportional to the lines of the run
(after any cutoff), never to topics x the longest ranking. The kernel works on dense
matrices, so :meth:`Rankings.groups` cuts the topics into a few groups of similar length,
each a dense (topics x width) matrix padded by at most a quarter (plus a small constant)
of its cells. Every cell also carries the id of the judgment it was graded by (-1 for an
unjudged document), so that a run ranked once can be re-graded under a subset of the
qrels (:meth:`Rankings.regrade`) without ranking it again.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, Optional

import numpy as np

from ir_cwla.errors import DataError, MeasureError, ParameterError
from ir_cwla.io import _hashing as hashing
from ir_cwla.io._columns import QrelsColumns, RunColumns
from ir_cwla.io._ordering import check_ties, compared_scores, trec_order
from ir_cwla.measures._gains import GainSpec

if TYPE_CHECKING:
    import pandas as pd
# no pandas: ids are numbered by ir_cwla.io._hashing, so that a run read as columns (ir_cwla.io._trec_text)
# is scored without it; ir_cwla.io is imported where a frame is to be checked (rank_run)

#: Cell of a group matrix past the end of a topic's ranking (no document there).
PADDING = -2
#: Cell holding a document that no judgment of the qrels grades.
UNJUDGED = -1

#: Grouping of rankings by length: a group's dense matrix may have at most this share of
#: padding on top of its real cells, plus :data:`GROUP_SLACK` cells (so that short rankings
#: are not split into many tiny groups).
GROUP_PADDING = 0.25
GROUP_SLACK = 4096

#: Up to this many rows, a group's matrix is filled a row at a time (no index arrays of the
#: matrix's size); beyond, in one vectorised step.
SCATTER_ROWS = 4096

#: Rows of a run whose judgments :func:`rank_run` looks up at once.
LOOKUP_BLOCK = 1 << 17


def _qrels_ids(qrels: pd.DataFrame | QrelsColumns) -> tuple[np.ndarray, np.ndarray]:
    """The topic ids and doc ids of qrels (a frame or columns) as object arrays of str."""
    if isinstance(qrels, QrelsColumns):
        return qrels.query_id, qrels.doc_id
    return qrels["query_id"].astype(str).to_numpy(), qrels["doc_id"].astype(str).to_numpy()


class Grading(NamedTuple):
    """Another assessor's grades over a :class:`Qrels` numbering (:meth:`Qrels.grades_from`)."""

    grades: np.ndarray
    mask: np.ndarray
    sum_order: np.ndarray


class Qrels:
    """Qrels prepared once for many runs: topic index, judged-document lookup, grades.

    Judgments are numbered 0..J-1 (one per judged (topic, document) pair); ``mask`` (over
    those ids) marks the judgments in force, so that :meth:`subset` gives qrels that share
    the numbering and a ranked run can be re-graded under them. :meth:`regraded` gives qrels
    that share the numbering with other grades: those of another assessor of the same pairs
    (:meth:`grades_from` reads them from that assessor's qrels).
    """

    def __init__(self, qrels: pd.DataFrame | QrelsColumns):
        qids, docs = _qrels_ids(qrels)
        raw = np.asarray(qrels.relevance) if isinstance(qrels, QrelsColumns) else qrels["relevance"].to_numpy()
        grades = raw.astype(np.float64)
        self.topics = np.array(sorted(set(qids.tolist())), dtype=object)
        self.topic_index = hashing.StringIndex(self.topics)
        t = self.topic_index.get_indexer(qids)
        doc_codes, doc_names = hashing.factorize(docs)
        self.doc_index = hashing.StringIndex(doc_names)
        d = doc_codes
        key = t.astype(np.int64) * len(self.doc_index) + d
        order = np.argsort(key, kind="stable")
        key, grades_sorted = key[order], np.maximum(grades[order], 0.0)
        # a (topic, doc) pair judged twice keeps its last line, as trec_eval does
        last = np.r_[key[1:] != key[:-1], True]
        self._keys = key[last]
        self.grades = grades_sorted[last]                    # grade of each judgment id (>= 0)
        # the same grades as integers, when they are (binary gains compare them exactly)
        self.int_grades: Optional[np.ndarray] = \
            np.maximum(raw[order][last].astype(np.int64), 0) if raw.dtype.kind in "iu" else None
        self.judgment_topic = (self._keys // max(len(self.doc_index), 1)).astype(np.int64)
        self.mask: Optional[np.ndarray] = None               # None: every judgment in force
        #: judgment ids in the order R (:meth:`total_gain`) adds their gains; None: id order
        self.sum_order: Optional[np.ndarray] = None
        self._gain_totals: dict[GainSpec, np.ndarray] = {}

    @cached_property
    def x_max(self) -> float:
        """The largest grade in force (0 if none is positive)."""
        g = self.grades if self.mask is None else self.grades[self.mask]
        return max(float(g.max()), 0.0) if len(g) else 0.0

    def subset(self, mask: np.ndarray) -> Qrels:
        """The same qrels with only the judgments where ``mask`` (over judgment ids) is True."""
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != self.grades.shape:
            raise ParameterError(f"mask has shape {mask.shape}, the qrels have {len(self.grades)} judgments")
        out = self._copy()
        out.mask = mask if self.mask is None else (mask & self.mask)
        return out

    def regraded(self, grades: np.ndarray, mask: Optional[np.ndarray] = None,
                 sum_order: Optional[np.ndarray] = None) -> Qrels:
        """The same judgments, numbered as here, with other grades.

        Judgment ``j`` has grade ``grades[j]`` (a negative grade counts as 0, as when qrels
        are read) and is in force where ``mask`` is True (None: the judgments in force here; a
        mask is combined with this qrels' own, as :meth:`subset` does). ``sum_order``: the
        judgment ids in the order R per topic (:meth:`total_gain`) adds their gains (None: id
        order).

        This is how several assessors of the same (topic, doc_id) pairs share one numbering:
        build the qrels from the union of the pairs of all of them, and each assessor's qrels is
        ``union.regraded(*union.grades_from(its_frame))``. A run ranked once against the union
        (:func:`rank_run`) is graded by any of them with :meth:`Rankings.regrade`, and scores
        bit for bit as if it had been ranked and scored with that assessor's qrels alone: x_max,
        R and the judged documents come from the grades in force, and R adds the gains in the
        order :class:`Qrels` built from that frame would (floating-point sums depend on it).
        """
        grades = np.asarray(grades, dtype=np.float64)
        if grades.shape != self.grades.shape:
            raise ParameterError(f"grades has shape {grades.shape}, the qrels have {len(self.grades)} judgments")
        if np.isnan(grades).any():
            raise ParameterError("grades: NaN is no grade (mask out the judgments an assessor did not make)")
        out = self.subset(mask) if mask is not None else self._copy()
        out.grades = np.maximum(grades, 0.0)
        # binary gains compare integer grades as integers (:attr:`int_grades`): the new grades'
        # own, where they are whole numbers a float holds exactly
        whole = bool(np.all(np.floor(out.grades) == out.grades)) and bool(np.all(out.grades <= 2.0 ** 53))
        out.int_grades = out.grades.astype(np.int64) if whole else None
        if sum_order is not None:
            sum_order = np.asarray(sum_order, dtype=np.int64)
            if sum_order.ndim != 1 or ((sum_order < 0) | (sum_order >= len(self.grades))).any():
                raise ParameterError(f"sum_order must be judgment ids in [0, {len(self.grades)})")
        out.sum_order = sum_order
        return out

    def _copy(self) -> Qrels:
        """A shallow copy without the caches that depend on the grades in force."""
        out = object.__new__(Qrels)
        out.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("x_max", "_gain_totals")})
        out._gain_totals = {}
        return out

    def grades_from(self, qrels: pd.DataFrame | QrelsColumns) -> Grading:
        """Another qrels frame's grades, mask and summation order over this qrels' numbering.

        The grades, mask and summation order (over this qrels' numbering) of another qrels frame
        (``query_id, doc_id, relevance``, each pair once, as :func:`ir_cwla.io.as_qrels_frame`
        returns) whose pairs are all judged here, for :meth:`regraded`: ``grades[j]`` is its grade
        of judgment ``j`` (0 where it has none), ``mask[j]`` whether it judged it, and
        ``sum_order`` its judgments in the order a :class:`Qrels` built from the frame numbers
        them (by topic, then by each doc_id's first line in the frame).
        """
        qids, docs = _qrels_ids(qrels)
        topic_idx = self.topic_index.get_indexer(qids)
        ids = np.where(topic_idx >= 0, self.judgment_ids(np.maximum(topic_idx, 0), docs), UNJUDGED)
        if (ids < 0).any():
            row = int(np.argmax(ids < 0))
            raise DataError(f"qrels judge ({qids[row]!r}, {docs[row]!r}) and {int((ids < 0).sum()) - 1} other pair(s) "
                            "these qrels do not number: build them from the union of the pairs of every qrels to be "
                            "compared")
        if len(np.unique(ids)) != len(ids):
            raise DataError("qrels judge a (topic, doc_id) pair twice: read them with ir_cwla.io.as_qrels_frame, "
                            "which keeps each pair's last line")
        grades = np.zeros(len(self.grades), dtype=np.float64)
        mask = np.zeros(len(self.grades), dtype=bool)
        grades[ids] = np.asarray(qrels.relevance if isinstance(qrels, QrelsColumns) else qrels["relevance"],
                                 dtype=np.float64)
        mask[ids] = True
        first_line = hashing.factorize(docs)[0]         # Qrels numbers doc_ids by their first line
        return Grading(grades, mask, ids[np.lexsort((first_line, topic_idx))])

    def check_max_rel(self, max_rel: float) -> None:
        """Refuses a ``max_rel`` below the largest grade in the qrels."""
        if self.x_max > max_rel:
            raise MeasureError(f"max_rel={max_rel:g} is below the largest grade in the qrels ({self.x_max:g}); "
                             "raise max_rel or leave it unset to use the qrels' maximum")

    def gains(self, spec: GainSpec) -> np.ndarray:
        """The gain of each judgment (binary gains from the integer grades, when they are)."""
        if spec.kind == "bin" and self.int_grades is not None:
            return spec.binary(self.int_grades)
        return spec.apply(self.grades, self.x_max)

    def total_gain(self, spec: GainSpec) -> np.ndarray:
        """R per topic: the total gain of the topic's judged documents (used by AP under 'pad')."""
        if spec not in self._gain_totals:
            g = self.gains(spec)
            if self.mask is not None:
                g = np.where(self.mask, g, 0.0)
            topic = self.judgment_topic
            if self.sum_order is not None:          # the order of the qrels these grades came from
                topic, g = topic[self.sum_order], g[self.sum_order]
            self._gain_totals[spec] = np.bincount(topic, weights=g, minlength=len(self.topics))
        return self._gain_totals[spec]

    def relevant_count(self, spec: GainSpec) -> np.ndarray:
        """Per topic, the number of judged documents with a gain > 0 (read by TrAP under 'pad')."""
        g = self.gains(spec) > 0
        if self.mask is not None:
            g &= self.mask
        return np.bincount(self.judgment_topic, weights=g.astype(np.float64), minlength=len(self.topics))

    def judgment_ids(self, topic_idx: np.ndarray, doc_ids: np.ndarray) -> np.ndarray:
        """The judgment id of each (topic, doc) pair, :data:`UNJUDGED` where there is none in force."""
        if not len(self._keys):
            return np.full(len(topic_idx), UNJUDGED, dtype=np.int64)
        d = self.doc_index.get_indexer(doc_ids)
        key = topic_idx.astype(np.int64) * len(self.doc_index) + d
        pos = np.minimum(np.searchsorted(self._keys, key), len(self._keys) - 1)
        hit = (d >= 0) & (self._keys[pos] == key)
        if self.mask is not None:
            hit &= self.mask[pos]
        return np.where(hit, pos, UNJUDGED)

    def int_grades_of(self, judgments: np.ndarray) -> np.ndarray:
        """:meth:`grades_of` as exact integers (needs integer grades, :attr:`int_grades`)."""
        assert self.int_grades is not None
        if not len(self.int_grades):
            return np.zeros(judgments.shape, dtype=np.int64)
        return np.where(judgments >= 0, self.int_grades[np.maximum(judgments, 0)], 0)

    def grades_of(self, judgments: np.ndarray) -> np.ndarray:
        """Grades (>= 0) of judgment ids; 0 for unjudged cells and padding (any negative id)."""
        if not len(self.grades):
            return np.zeros(judgments.shape, dtype=np.float64)
        return np.where(judgments >= 0, self.grades[np.maximum(judgments, 0)], 0.0)


@dataclass(frozen=True)
class Group:
    """Some topics of a ranked run as a dense matrix, the unit the kernel works on.

    ``rows`` are positions in :attr:`Rankings.topics`; ``judgments[r, i]`` is the judgment id
    of the document at rank i+1 (:data:`UNJUDGED`, or :data:`PADDING` past the end of the
    ranking); ``kept`` the number of ranks of each row that hold a document; ``qrels`` grade
    the judgments (:attr:`grades`, computed when asked for, so a group holds one matrix).
    """

    rows: np.ndarray
    judgments: np.ndarray
    kept: np.ndarray
    qrels: Qrels

    @property
    def width(self) -> int:
        """The number of ranks of the matrix."""
        return self.judgments.shape[1]

    @property
    def grades(self) -> np.ndarray:
        """The grade of every cell (0 for unjudged documents and padding)."""
        return self.qrels.grades_of(self.judgments)

    def gains(self, spec: GainSpec, x_max: float, unjudged: str = "zero") -> np.ndarray:
        """The gain of every cell.

        0 past a ranking's end (padding is no document); an unjudged document's gain
        is 0, or the largest gain under ``unjudged='max'``.
        """
        if spec.kind == "bin" and self.qrels.int_grades is not None:
            gains = spec.binary(self.qrels.int_grades_of(self.judgments))
        else:
            gains = spec.apply(self.grades, x_max)
        if unjudged == "max":
            gains = np.where(self.judgments == UNJUDGED, spec.largest(x_max), gains)
        return gains


@dataclass(frozen=True)
class CellLabels:
    """A string label for every cell of a ragged layout, as codes into ``names``.

    The labels are e.g. doc_ids or element types.
    """

    codes: np.ndarray      # (cells,) int64
    names: np.ndarray      # object array of the distinct labels

    def take(self, selection: np.ndarray) -> CellLabels:
        """The labels of the cells ``selection``, with the same ``names``."""
        return CellLabels(self.codes[selection], self.names)


@dataclass
class Rankings:
    """A ranked run in a ragged layout: one row per qrels topic present in the run.

    Row t holds the first ``kept[t]`` ranks of topic ``topics[t]`` (its whole ranking, or
    the ranks up to the deepest cutoff asked for) in ``judgments[offsets[t]:offsets[t+1]]``;
    ``lengths[t]`` is the length of the whole ranking. ``doc_ids`` and ``element_types``
    (kept only when asked for) label each cell with its document and its element type (the
    run's second column), which cost files price.
    """

    topics: np.ndarray
    topic_rows: np.ndarray      # index of each row's topic in Qrels.topics
    lengths: np.ndarray         # (n,) int64, whole rankings
    offsets: np.ndarray         # (n + 1,) int64 into judgments
    judgments: np.ndarray       # (cells,) int64 judgment ids (UNJUDGED for unjudged documents)
    qrels: Qrels
    doc_ids: Optional[CellLabels] = None
    element_types: Optional[CellLabels] = None

    @property
    def kept(self) -> np.ndarray:
        """The number of ranks kept of every row."""
        return np.diff(self.offsets)

    def regrade(self, qrels: Qrels) -> Rankings:
        """The same rankings graded by other qrels of the same judgment numbering.

        The same rankings graded by ``qrels``, a :meth:`Qrels.subset` or :meth:`Qrels.regraded`
        of the qrels they were ranked with (the same judgment numbering): judgments not in force
        there become unjudged, the others take its grades. No re-ranking.
        """
        judgments = self.judgments
        if qrels.mask is not None and len(judgments):
            judgments = np.where((judgments >= 0) & qrels.mask[np.maximum(judgments, 0)], judgments, UNJUDGED)
        return Rankings(self.topics, self.topic_rows, self.lengths, self.offsets, judgments, qrels,
                        self.doc_ids, self.element_types)

    def select(self, rows: np.ndarray) -> Rankings:
        """The rows ``rows`` (positions, in that order) as a ranked run, every cell label kept."""
        rows = np.asarray(rows, dtype=np.int64)
        kept = self.kept[rows]
        starts = self.offsets[rows]
        cells = np.repeat(starts - np.r_[0, np.cumsum(kept)[:-1]], kept) + np.arange(int(kept.sum()))
        return Rankings(self.topics[rows], self.topic_rows[rows], self.lengths[rows],
                        np.r_[0, np.cumsum(kept)].astype(np.int64), self.judgments[cells], self.qrels,
                        None if self.doc_ids is None else self.doc_ids.take(cells),
                        None if self.element_types is None else self.element_types.take(cells))

    @staticmethod
    def concat(rankings: Sequence[Rankings], qrels: Qrels) -> Rankings:
        """The rows of several runs ranked with ``qrels`` as one ranked run.

        The rows of several runs ranked with ``qrels`` (or with qrels sharing its judgment
        ids), one after the other, as one ranked run, every cell label kept (labels only if
        every run has them).
        """
        kept = np.concatenate([r.kept for r in rankings]) if rankings else np.zeros(0, dtype=np.int64)

        def labels(which: str) -> Optional[CellLabels]:
            parts = [getattr(r, which) for r in rankings]
            if not parts or any(p is None for p in parts):
                return None
            names, inverse = np.unique(np.concatenate([p.names for p in parts]).astype(object), return_inverse=True)
            bases = np.cumsum([0] + [len(p.names) for p in parts[:-1]])
            return CellLabels(np.concatenate([inverse[b + p.codes] for b, p in zip(bases, parts)]).astype(np.int64),
                              names)

        return Rankings(np.concatenate([r.topics for r in rankings]), np.concatenate([r.topic_rows for r in rankings]),
                        np.concatenate([r.lengths for r in rankings]), np.r_[0, np.cumsum(kept)].astype(np.int64),
                        np.concatenate([r.judgments for r in rankings]), qrels, labels("doc_ids"),
                        labels("element_types"))

    def _row_of_cells(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.topic_rows)), self.kept)

    def unjudged_counts(self) -> np.ndarray:
        """The number of unjudged documents among each row's kept ranks."""
        row = self._row_of_cells()
        return np.bincount(row[self.judgments == UNJUDGED], minlength=len(self.topic_rows)).astype(np.int64)

    def judged_share(self, k: Optional[int] = None) -> np.ndarray:
        """Per row, the share of judged documents among its first min(k, length) ranks.

        Per row, the share of judged documents among its first min(k, length) ranks (k None:
        the whole ranking), as ir-measures' ``Judged@k`` but in trec_eval's order; 0 for an
        empty ranking. Needs rows ranked at least that deep.
        """
        depth = self.lengths if k is None else np.minimum(self.lengths, k)
        if (self.kept < depth).any():
            t = int(np.argmax(self.kept < depth))
            raise DataError(f"topic {self.topics[t]!r} was ranked only to depth {int(self.kept[t])}, "
                             f"the judged share needs {int(depth[t])}")
        rank = np.arange(len(self.judgments)) - np.repeat(self.offsets[:-1], self.kept)
        row = self._row_of_cells()
        counted = (self.judgments >= 0) & (rank < depth[row])
        judged = np.bincount(row[counted], minlength=len(self.topic_rows))
        return np.where(depth > 0, judged / np.maximum(depth, 1), 0.0)

    def condensed(self) -> Rankings:
        """Sakai's condensed lists: every unjudged document removed, the judged ones in their order.

        A row that was cut (kept < lengths) stays marked as cut: its ``lengths`` counts the ranks never
        looked at as if they were judged, so that kept < lengths still says that the row may be incomplete.
        """
        judged = self.judgments >= 0
        counts = np.bincount(self._row_of_cells()[judged], minlength=len(self.topic_rows)).astype(np.int64)
        lengths = counts + (self.lengths - self.kept)
        offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
        labels = [None if x is None else x.take(judged) for x in (self.doc_ids, self.element_types)]
        return Rankings(self.topics, self.topic_rows, lengths, offsets, self.judgments[judged], self.qrels, *labels)

    def groups(self, width: Optional[int] = None, pad_to: Optional[int] = None,
               widths: Optional[np.ndarray] = None) -> list[Group]:
        """The rows as dense groups, each row cut to ``width`` ranks (None: all it keeps).

        Rows are grouped by length (longest first) so that each group's matrix is at most
        :data:`GROUP_PADDING` padding plus :data:`GROUP_SLACK` cells; a group is as wide as
        its longest row, so no matrix is wider than the longest ranking, whatever the cutoff
        (``pad_to`` widens every group to that many ranks instead, for models that cannot sum
        a cutoff deeper than the matrix in closed form); see :func:`group_rows`.

        ``widths`` (one per row, at least its cut length) groups the rows by the width given
        instead: the rows of a shard of a run are scored in the matrices the whole run would
        put them in (:func:`group_widths` of the whole run), which a row's value depends on in
        its last bits (numpy sums a row pairwise, in blocks that depend on the row's length).
        """
        kept = self.kept
        if width is not None:
            kept = np.minimum(kept, width)
        if widths is None:
            parts = [(rows, max(int(kept[rows].max()), pad_to or 0)) for rows in group_rows(kept)]
        else:
            widths = np.asarray(widths, dtype=np.int64)
            if widths.shape != kept.shape or (widths < kept).any():
                raise ParameterError(f"widths must give each of the {len(kept)} rows a width of at least its "
                                     "length (group_widths of the whole run)")
            parts = [(np.flatnonzero(widths == w), int(w)) for w in np.unique(widths)[::-1]]
        return [self._dense(rows, w, kept[rows]) for rows, w in parts]

    def _dense(self, rows: np.ndarray, width: int, kept: np.ndarray) -> Group:
        judgments = self._scatter(self.judgments, rows, width, kept, PADDING)
        return Group(rows, judgments, kept.astype(np.int64), self.qrels)

    def _scatter(self, values: np.ndarray, rows: np.ndarray, width: int, kept: np.ndarray, fill) -> np.ndarray:
        """A per-cell array as the (rows x width) matrix of the first ``kept`` ranks of ``rows``."""
        out = np.full((len(rows), width), fill, dtype=values.dtype)
        if not width:
            return out
        starts = self.offsets[rows]
        if len(rows) <= SCATTER_ROWS:      # a copy per row: no index arrays as large as the matrix
            for i, (start, k) in enumerate(zip(starts.tolist(), kept.tolist())):
                out[i, :k] = values[start:start + k]
            return out
        r = np.repeat(np.arange(len(rows)), kept)
        rank = np.arange(int(kept.sum())) - np.repeat(np.cumsum(kept) - kept, kept)
        out[r, rank] = values[np.repeat(starts, kept) + rank]
        return out

    def dense(self, group: Group, values: np.ndarray, fill) -> np.ndarray:
        """A per-cell array laid out as ``group``'s matrix.

        A per-cell array (e.g. the codes of :attr:`element_types`) laid out as ``group``'s
        matrix, ``fill`` past each ranking's end.
        """
        return self._scatter(np.asarray(values), group.rows, group.width, group.kept, fill)


def group_rows(kept: np.ndarray) -> list[np.ndarray]:
    """The groups of :meth:`Rankings.groups`.

    Rows (positions, each group's sorted) taken longest first, a group closed when its (rows x
    longest) matrix would exceed its cells by more than :data:`GROUP_PADDING` plus
    :data:`GROUP_SLACK`. Pure: it depends on the lengths only.
    """
    kept = np.asarray(kept, dtype=np.int64)
    order = np.argsort(-kept, kind="stable")
    out = []
    start = 0
    n = len(order)
    while start < n:
        w = int(kept[order[start]])
        stop, cells = start, 0
        while stop < n:
            k = int(kept[order[stop]])
            if stop > start and (stop - start + 1) * w > (1 + GROUP_PADDING) * (cells + k) + GROUP_SLACK:
                break
            cells += k
            stop += 1
        out.append(np.sort(order[start:stop]))
        start = stop
    return out


def group_widths(kept: np.ndarray, pad_to: Optional[int] = None) -> np.ndarray:
    """The width of the matrix :meth:`Rankings.groups` scores each row in.

    The width of the matrix :meth:`Rankings.groups` scores each row in (rows of ``kept`` ranks,
    in the order of the run's rows: its topics in qrels order), ``pad_to`` at least.
    """
    widths = np.zeros(len(kept), dtype=np.int64)
    for rows in group_rows(kept):
        widths[rows] = max(int(np.max(np.asarray(kept)[rows])), pad_to or 0)
    return widths


def _strings(column: pd.Series) -> np.ndarray:
    # a string column as its Python strings (no copy where pandas holds them so: object, or the
    # 'python' storage of its str dtype); astype(str) would build an Arrow array where pyarrow
    # is installed, then Python strings again
    if column.dtype == object or getattr(column.dtype, "name", "") == "str" or \
            type(column.dtype).__name__ == "StringDtype":
        return column.to_numpy(dtype=object)
    return column.astype(str).to_numpy(dtype=object)


def run_columns(run: pd.DataFrame | RunColumns, name: str = "run") -> RunColumns:
    """A run as checked columns: as it is if it is columns, else the frame checked (:mod:`ir_cwla.io`) and taken apart."""
    if isinstance(run, RunColumns):
        return run
    from ir_cwla import io

    if not io.is_checked_run(run):
        # the rules of ir_cwla.io: finite scores, valid topic ids, each (topic, doc_id) once
        run = io.as_run_frame(run, name, element_type=io.ELEMENT_TYPE in run.columns)
    return checked_columns(run)


def checked_columns(run: pd.DataFrame) -> RunColumns:
    """A frame :func:`ir_cwla.io.as_run_frame` just returned, taken apart (not checked again)."""
    from ir_cwla import io

    return RunColumns(_strings(run["query_id"]), _strings(run["doc_id"]), run["score"].to_numpy(dtype=np.float64),
                      _strings(run[io.ELEMENT_TYPE]) if io.ELEMENT_TYPE in run.columns else None, dict(run.attrs))


def rank_run(run: pd.DataFrame | RunColumns, qrels: Qrels, max_depth: Optional[int] = None,
             name: str = "run", doc_ids: bool = False, ties: str = "float32") -> Rankings:
    """Ranks a run (``query_id, doc_id, score``) in trec_eval order and looks up its judgments.

    ``run``: a frame (checked by :mod:`ir_cwla.io` unless it is a checked frame already) or
    :class:`~ir_cwla.io.RunColumns`. Topics absent from the qrels are ignored. ``max_depth``
    keeps only the first ranks (None keeps whole rankings). The cells keep their element type if
    the run has an ``element_type`` column, and their doc_id if ``doc_ids``. ``ties``: the
    precision scores are compared in, ``'float32'`` (trec_eval up to 9.0.8, ir-measures; the
    default) or ``'float64'`` (trec_eval 10), :func:`ir_cwla.io.compared_scores`. Columns may hold
    their doc ids compact (:attr:`~ir_cwla.io.RunColumns.doc_keys`): they are ordered, looked up and
    labelled as their str (:mod:`ir_cwla.io._hashing`).
    """
    check_ties(ties)
    cols = run_columns(run, name)
    t = qrels.topic_index.get_indexer(cols.query_id)
    keep = t >= 0
    docs, scores, element_types = cols.doc_keys, cols.score, cols.element_type
    if not keep.all():
        t, docs, scores = t[keep], docs[keep], scores[keep]
        element_types = None if element_types is None else element_types[keep]
    if len(t) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Rankings(np.array([], dtype=object), empty, empty, np.zeros(1, dtype=np.int64), empty, qrels)
    order = trec_order(t, compared_scores(scores, ties, name), docs)
    # trec_order puts the topics in ascending order: each topic's rows are its count of them, so the
    # ranked topic column is built from the counts once the run's own is let go (not beside it)
    per_topic = np.bincount(t, minlength=len(qrels.topics))
    del t
    topic_rows = np.flatnonzero(per_topic)
    counts = per_topic[topic_rows]
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    t = np.repeat(topic_rows, counts)
    kept = counts if max_depth is None else np.minimum(counts, max_depth)
    if max_depth is not None and (kept < counts).any():
        rank = np.arange(len(t)) - np.repeat(starts, counts)
        sel = rank < max_depth
        t, order = t[sel], order[sel]
    # only for the ranks looked at, a block of rows at a time (the lookup's temporaries stay small)
    judgments = np.empty(len(order), dtype=np.int64)
    for a in range(0, len(order), LOOKUP_BLOCK):
        b = a + LOOKUP_BLOCK
        judgments[a:b] = qrels.judgment_ids(t[a:b], docs[order[a:b]])
    offsets = np.r_[0, np.cumsum(kept)].astype(np.int64)
    labels = types = None
    if doc_ids:
        codes, names = hashing.factorize(docs[order])
        labels = CellLabels(codes, names)
    if element_types is not None:
        codes, names = hashing.factorize(element_types)
        types = CellLabels(codes[order], names)
    return Rankings(qrels.topics[topic_rows], topic_rows, counts.astype(np.int64), offsets,
                    judgments, qrels, labels, types)
