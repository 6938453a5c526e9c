"""From PyTerrier's per-query frame to a dense measures x topics x systems score cube.

The long frame is what ``pt.Experiment(..., perquery=True)`` returns and what
:func:`ir_cwla.meta.evaluate` produces: one row per system, topic and measure, with the
columns ``name`` (system), ``qid``, ``measure`` (``str(measure)``) and ``value``. Every
analysis first turns it into a :class:`ScoreCube` here, which is also where bad input is
caught: missing columns, NaN values, duplicate rows, and systems scored on different topics.

Summary rows (qid ``all``, the mean that ``ir-cwla eval -q``, trec_eval and ir-measures
print after the topics) are never read as a topic: :func:`to_cube` drops them, so the
per-query CSV/JSON of ``ir-cwla eval`` can be analysed as it is. No topic can be called
``all``: :mod:`ir_cwla.io` refuses such topic ids.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming
from ir_cwla.errors import ArgumentTypeError, DataError, ParameterError
from ir_cwla.io import SUMMARY_QID

COLUMNS = ("name", "qid", "measure", "value")

#: Two scores equal up to this relative difference are a tie (Kendall's tau, the Tukey HSD
#: test): measures that agree in real arithmetic but differ by floating-point rounding
#: must not rank systems differently.
TIE_TOLERANCE = 1e-12



def centred(values: np.ndarray, blocks: bool = True) -> np.ndarray:
    """Scores less, per topic (``blocks``) or per matrix, their smallest: the shift-invariant scores.

    ``values`` is a topics x systems matrix ``(T, S)`` or a stack ``(M, T, S)``. Every statistic
    of ir_cwla that does not change when a constant is added to every score (the paired tests,
    the randomised and the two-way Tukey HSD tests, MaxT, ANOVA's residual variance, the effect
    sizes, the bootstrap of differences and of ranks) is computed from these: the smallest score
    is one of the scores, so for scores ``x + c`` that are exact in floating point it is
    ``min(x) + c`` exactly, and ``(x + c) - (min(x) + c)`` is exact (Sterbenz's lemma for
    ``c`` at least the scores' spread), i.e. the centred scores, and every number computed from
    them, are the same to the bit for every ``c``. Per topic (``blocks=True``) is the centring of
    tests that compare systems within a topic; per matrix that of the one-way test, which
    compares the systems' scores over all topics.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return x.copy()
    axes = (-1,) if blocks else (-2, -1)
    return x - x.min(axis=axes, keepdims=True)


TopicPolicy = Literal["strict", "intersection"]
Groups = Union[None, Callable[[str], Hashable], Mapping[str, Hashable]]


@dataclass(frozen=True)
class ScoreCube:
    """Scores of ``systems`` on ``topics`` for ``measures``: ``values[m, t, s]``.

    Systems and topics are sorted and measures are in the measure order of
    :func:`ir_cwla.analysis.naming.order_key` (the paper's), so nothing computed from a cube, random
    streams included, depends on the row order of the frame it came from.
    """

    values: np.ndarray
    measures: tuple[str, ...]
    topics: tuple[str, ...]
    systems: tuple[str, ...]

    def matrix(self, measure: str) -> np.ndarray:
        """The topics x systems matrix of one measure."""
        return self.values[self.measures.index(measure)]

    def means(self) -> pd.DataFrame:
        """Mean score per system (rows) and measure (columns)."""
        return pd.DataFrame(self.values.mean(axis=1).T, index=pd.Index(self.systems, name="name"),
                            columns=pd.Index(self.measures, name="measure"))

    def select(self, measures: Sequence[str]) -> ScoreCube:
        """The cube restricted to ``measures``, in that order."""
        idx = [self.measures.index(m) for m in measures]
        return ScoreCube(self.values[idx], tuple(measures), self.topics, self.systems)


def _examples(items: Sequence, n: int = 5, sep: str = ", ") -> str:
    items = list(items)
    shown = sep.join(map(str, items[:n]))
    return shown + (f", ... ({len(items)} in all)" if len(items) > n else "")


def _codes(per_query: pd.DataFrame, column: str, sort: bool) -> tuple[np.ndarray, np.ndarray]:
    """Codes and labels of a column, its values compared as strings (``1`` and ``'1'`` are one label).

    The column is factorised before its distinct values are turned into ``str``, so that
    millions of rows never become millions of Python strings. A missing value is an error.
    """
    codes, uniques = pd.factorize(per_query[column])
    missing = codes < 0
    if missing.any():
        raise DataError(f"per-query frame has {int(missing.sum())} rows without a {column!r}, e.g. row "
                         f"{per_query.index[int(np.flatnonzero(missing)[0])]!r}")
    label_codes, labels = pd.factorize(np.asarray(pd.Index(uniques).astype(str), dtype=object), sort=sort)
    return label_codes[codes], np.asarray(labels, dtype=object)


def _labels(per_query: pd.DataFrame, column: str) -> np.ndarray:
    """The sorted distinct values of a column as strings (``1`` and ``'1'`` are one label).

    A missing value is an error naming its row.
    """
    missing = per_query[column].isna().to_numpy()
    if missing.any():
        raise DataError(f"per-query frame has {int(missing.sum())} rows without a {column!r}, e.g. row "
                         f"{per_query.index[int(np.flatnonzero(missing)[0])]!r}")
    uniques = pd.unique(per_query[column])
    return np.asarray(sorted(set(pd.Index(uniques).astype(str).tolist())), dtype=object)


def _label_codes(column: pd.Series, rows: np.ndarray, labels: pd.Index) -> np.ndarray:
    """The position in ``labels`` of the value (as a string) of each of ``rows``."""
    codes, uniques = pd.factorize(column.take(rows))
    return labels.get_indexer(pd.Index(uniques).astype(str))[codes].astype(np.int64)


def to_cube(per_query: pd.DataFrame, topics: TopicPolicy = "strict", *, min_systems: int = 2,
            min_topics: int = 2, min_measures: int = 1) -> ScoreCube:
    """Validates a per-query frame (``name, qid, measure, value``) and pivots it to a cube.

    topics: ``'strict'`` (default) requires every system to be scored on the same topics for
        every measure and otherwise names the topics that differ; ``'intersection'`` keeps
        the topics that every system has for every measure.
    Summary rows (qid ``'all'``) are dropped first; other columns (``short``) are ignored.
    Raises ``ValueError`` for missing columns, NaN/infinite values, an empty or missing system
    name, duplicate rows, a
    system without scores for a measure, differing topic sets (``'strict'``), or fewer
    systems, topics or measures than required.
    """
    if not isinstance(per_query, pd.DataFrame):
        raise ArgumentTypeError(f"expected a per-query DataFrame with columns {list(COLUMNS)}, "
                        f"got {type(per_query).__name__}")
    missing = [c for c in COLUMNS if c not in per_query.columns]
    if missing:
        raise DataError(f"per-query frame lacks columns {missing} (found {list(per_query.columns)}); "
                         "expected pt.Experiment(..., perquery=True)'s name, qid, measure, value")
    if topics not in ("strict", "intersection"):
        raise ParameterError(f"topics must be 'strict' or 'intersection', got {topics!r}")
    if len(per_query) == 0:
        raise DataError("per-query frame is empty")
    # (the distinct qids first: turning every qid of 10^7 rows into a Python string took 1 GB)
    summary = None
    if any(str(q) == SUMMARY_QID for q in pd.unique(per_query["qid"])):
        summary = (per_query["qid"].astype(str) == SUMMARY_QID).to_numpy()
    if summary is not None:
        if summary.all():
            raise DataError(f"per-query frame holds only summary rows (qid {SUMMARY_QID!r}): analyses need the "
                             "score of every topic (ir-cwla eval -q)")
        per_query = per_query[~summary]

    # one measure at a time (issue 23): the only arrays as long as the frame are the measure codes
    # (int8/int16) and, for a non-numeric column, its values; everything else is one measure's rows,
    # and the cube (the values themselves), so a frame of 10^7+ rows costs little beyond itself
    systems, all_topics = _labels(per_query, "name"), _labels(per_query, "qid")
    blank = [str(n) for n in systems if not str(n).strip()]
    if blank:
        raise DataError(f"per-query frame has an empty system name ({blank[0]!r}); name every system (an empty "
                        "name does not survive a CSV file, which pandas reads back as NaN)")
    m_codes, found = _codes(per_query, "measure", sort=False)
    m_codes = m_codes.astype(np.min_scalar_type(max(len(found) - 1, 0)))
    column = per_query["value"]
    if column.dtype.kind in "fiub":
        numbers = column.to_numpy()
    else:
        try:
            numbers = pd.to_numeric(column).to_numpy(dtype=np.float64)
        except (ValueError, TypeError) as ex:
            raise DataError(f"per-query frame: values are not numeric ({ex})") from ex

    measures = np.array(naming.measure_order(found.tolist()), dtype=object)
    slot = pd.Index(measures).get_indexer(found)              # each found measure's place in the cube
    n_m, n_t, n_s = len(measures), len(all_topics), len(systems)
    system_index, topic_index = pd.Index(systems), pd.Index(all_topics)
    cube = np.full((n_m, n_t, n_s), np.nan)
    present = np.zeros((n_m, n_t, n_s), dtype=bool)
    bad_rows: list[np.ndarray] = []
    duplicated, example = 0, ("", "", "")
    for code in np.argsort(slot, kind="stable"):              # measures in cube order
        m = slot[code]
        rows = np.flatnonzero(m_codes == code)
        s_codes = _label_codes(per_query["name"], rows, system_index)
        t_codes = _label_codes(per_query["qid"], rows, topic_index)
        values = numbers[rows].astype(np.float64, copy=False)
        finite = np.isfinite(values)
        if not finite.all():
            bad_rows.append(rows[~finite])
        flat = t_codes * n_s + s_codes
        counts = np.bincount(flat, minlength=n_t * n_s)
        if (counts > 1).any():
            duplicated += int((counts > 1).sum())
            if duplicated == int((counts > 1).sum()):       # the first measure with duplicates
                first = int(np.argmax(counts > 1))
                example = (systems[first % n_s], all_topics[first // n_s], measures[m])
        cube[m].reshape(-1)[flat] = values
        present[m].reshape(-1)[flat] = True
    if bad_rows:
        where = np.sort(np.concatenate(bad_rows))
        shown = [f"({per_query['name'].iloc[i]}, {per_query['qid'].iloc[i]}, {per_query['measure'].iloc[i]})"
                 for i in where[:3]]
        raise DataError(f"per-query frame has {len(where)} NaN/infinite values, e.g. (name, qid, measure) = "
                         f"{', '.join(shown)}. pt.Experiment gives NaN to topics without qrels: drop those "
                         "rows (per_query.dropna()) and pass topics='intersection' if systems then differ.")
    if duplicated:
        raise DataError(f"per-query frame has {duplicated} duplicated (name, qid, measure) rows, "
                         f"e.g. ({example[0]}, {example[1]}, {example[2]})")

    for m in range(n_m):
        lacking = [systems[s] for s in np.flatnonzero(~present[m].any(axis=0))]
        if lacking:
            raise DataError(f"systems {_examples(lacking)} have no scores for measure {measures[m]!r}")

    complete = present.all(axis=(0, 2))        # topics every system has for every measure
    if not complete.all():
        if topics == "strict":
            details = []
            for s in range(n_s):
                gaps = np.flatnonzero(~present[:, :, s].all(axis=0))
                if len(gaps):
                    details.append(f"{systems[s]} lacks {_examples([all_topics[t] for t in gaps])}")
            raise DataError("systems are scored on different topic sets: " + _examples(details, 4, "; ")
                             + f". Pass topics='intersection' to keep the {int(complete.sum())} topics "
                             "every system has.")
        cube = cube[:, complete]
        all_topics = all_topics[complete]

    result = ScoreCube(cube, tuple(measures), tuple(all_topics), tuple(systems))
    check_sizes(result, min_systems=min_systems, min_topics=min_topics, min_measures=min_measures)
    return result


def check_sizes(cube: ScoreCube, min_systems: int = 2, min_topics: int = 2, min_measures: int = 1) -> None:
    """Refuses a cube with fewer systems, topics or measures than the analysis needs."""
    n_m, n_t, n_s = cube.values.shape
    if n_s < min_systems:
        raise DataError(f"need at least {min_systems} systems, got {n_s}: {list(cube.systems)}")
    if n_t < min_topics:
        raise DataError(f"need at least {min_topics} topics (scored for every system), got {n_t}")
    if n_m < min_measures:
        raise DataError(f"need at least {min_measures} measures, got {n_m}: {list(cube.measures)}")


def check_alpha(alpha: float) -> float:
    """``alpha`` as a float in (0, 1), or a clear error."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0 < alpha < 1:
        raise ParameterError(f"alpha must lie in (0, 1), got {alpha!r}")
    return float(alpha)


def resolve_groups(measures: Sequence[str], groups: Groups) -> dict[Hashable, list[str]]:
    """Families of measures compared with each other, in the order of ``measures``.

    Families of measures compared with each other, in the order of ``measures`` (the
    cube's measure order, so families come in the paper's order).

    ``groups`` is ``None`` (one family of all measures), a mapping measure -> family, or a
    function measure name -> family (e.g. :func:`ir_cwla.meta.browsing_model`).
    """
    out: dict[Hashable, list[str]] = {}
    for m in measures:
        if groups is None:
            key: Hashable = "all"
        elif isinstance(groups, Mapping):
            if m not in groups:
                raise DataError(f"groups mapping has no family for measure {m!r}")
            key = groups[m]
        elif callable(groups):
            key = groups(m)
        else:
            raise ArgumentTypeError(f"groups must be None, a mapping or a function, got {type(groups).__name__}")
        out.setdefault(key, []).append(m)
    return out


def long_frame(rows_name: Sequence[str], rows_qid: Sequence[str], rows_measure: Sequence[str],
               rows_value: Sequence[float], order: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """A per-query frame like ``pt.Experiment(perquery=True)``'s, sorted by name, qid, measure.

    ``order`` fixes the order of measures within a (name, qid) (default: first appearance).
    """
    df = pd.DataFrame({"name": pd.Series(rows_name, dtype=str), "qid": pd.Series(rows_qid, dtype=str),
                       "measure": pd.Series(rows_measure, dtype=str),
                       "value": pd.Series(rows_value, dtype=np.float64)})
    rank = {m: i for i, m in enumerate(order if order is not None else pd.unique(df["measure"]))}
    df["_m"] = df["measure"].map(rank)
    df = df.sort_values(["name", "qid", "_m"], kind="stable").drop(columns="_m")
    return df.reset_index(drop=True)
