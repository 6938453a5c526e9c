"""Top-weighted agreement between two system rankings: tau_AP and rank-biased overlap (pure numpy).

Kendall's tau (:mod:`ir_cwla.meta.kendall`) weighs a swap at the bottom of a ranking as much
as one at the top. The two statistics here weigh the top more:

**tau_AP** (Yilmaz, Aslam & Robertson 2008, "A new rank correlation coefficient for
information retrieval"). ``reference`` is the ranking taken as truth, ``other`` the one
judged against it. With ``n`` items and no ties, walking down ``other``::

    tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1

where ``C(i)`` is the number of items above rank ``i`` of ``other`` that ``reference`` also
puts above the item at rank ``i``. Equivalently ``tau_AP = sum_pairs w s_ref s_other /
sum_pairs w`` with ``s = +-1`` the order of the pair and ``w = 1 / (i - 1)``, ``i`` the rank
in ``other`` of the lower item of the pair (the weights of all pairs sum to ``n - 1``).

*Ties* (the definition has none). Ties in ``other`` are read as uncertainty: the statistic
is the ratio of the expectations, over uniformly random orderings of each group of tied
items, of ``sum_pairs w s_ref s_other`` and of ``sum_pairs w |s_ref|`` (so a pair that
``other`` ties counts half right and half wrong, and its expected weight is kept). Pairs
that ``reference`` ties carry no truth about their order and are left out of both sums.
When ``reference`` has no ties this is the tau_AP,a of Urbano & Marrero (2017, "The
treatment of ties in AP correlation") exactly; with no ties at all it is Yilmaz et al.'s
tau_AP; identical rankings (ties included) give 1, reversed ones -1. Undefined (NaN) when
``reference`` ties every item. Where there is no truth (two halves of the topics, two
measures), :func:`tau_ap_symmetric` averages both directions.

**RBO** (Webber, Moffat & Zobel 2010, "A similarity measure for indefinite rankings").
With ``S_{:d}`` the items of a ranking down to depth ``d``, ``X_d = |S_{:d} & T_{:d}|``
the overlap and ``A_d`` the agreement at depth ``d``, the value returned is the
extrapolated **RBO_ext** of the paper (its Eq. 32; Eq. 30 for lists of equal length)::

    RBO_ext = (1 - p) / p * sum_{d=1..l} A_d p^d + A_l p^l

with ``p`` the persistence, ``l`` the length of the longer list and ``s`` of the shorter:

- ``d <= s``: ``A_d = 2 X_d / (|S_{:d}| + |L_{:d}|)`` (``X_d / d`` without ties);
- ``s < d <= l``: the shorter list is extrapolated by assuming its items past ``s`` agree
  at the rate ``A_s``: ``A_d = 2 (X_d + (d - s) A_s) / (d + |L_{:d}|)`` (without ties this
  is the paper's ``X_d / d + X_s (d - s) / (s d)``, and ``A_l`` is its
  ``(X_l - X_s) / l + X_s / s``).

*Ties* as the paper's Section 4.3 defines them: tied items all enter the prefix at the
first rank of their group, so a prefix may hold more than ``d`` items, and the agreement is
``2 X_d / (|S_{:d}| + |T_{:d}|)`` (Corsi & Urbano 2024 call this variant RBO^w). For two
full rankings of the same systems (the use here), ``A_n = 1`` and RBO_ext equals the
infinite-depth RBO ``(1 - p) sum_d p^(d-1) A_d`` of the lists extended with their last
agreement.

Two scores closer than :data:`ir_cwla.analysis.frame.TIE_TOLERANCE` (relative to the largest
score of the row, as for Kendall's tau) are tied; tied groups are formed along the sorted
scores, so a chain of near-equal scores is one group.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from ir_cwla._text import shown
from ir_cwla.analysis.frame import TIE_TOLERANCE
from ir_cwla.errors import ArgumentTypeError, DataError, ParameterError
from ir_cwla.meta import kendall

Agreement = Literal["tau", "tau_ap", "rbo"]
#: The statistics an analysis can compare rankings with (Kendall's tau-b is the default).
AGREEMENTS = ("tau", "tau_ap", "rbo")
#: How figures and tables name each statistic.
NAMES = {"tau": "Kendall's tau-b", "tau_ap": "tau_AP", "rbo": "RBO"}
#: Default RBO persistence: the expected depth a user compares is 1 / (1 - p) = 10 systems.
PERSISTENCE = 0.9


def check_agreement(agreement: str, persistence: float) -> tuple[Any, float]:
    """``(agreement, persistence)`` validated, or a clear error naming the parameter."""
    if agreement not in AGREEMENTS:
        raise ParameterError(f"agreement must be one of {AGREEMENTS}, got {agreement!r}")
    return agreement, check_persistence(persistence)


def check_persistence(p: float) -> float:
    """RBO's persistence ``p`` as a float, or a :class:`ParameterError` saying the admissible range.

    The open interval (0, 1), every float in it (the smallest, 5e-324, included).
    """
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or not 0 < p < 1:
        raise ParameterError(f"persistence must lie in the open interval (0, 1) (RBO's p: the chance of going on "
                             f"to the next depth; 0.9 weighs about the top 10), got {shown(p)}")
    return float(p)


# -- tie groups --------------------------------------------------------------------------------
def tie_groups(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tied groups of each row of scores ``x`` (``(B, n)``), best first.

    Returns ``(group, top, size)``, each ``(B, n)`` int64: the group index of every item (0
    for the best group), the rank (1-based) of the first position of its group, and the
    group's size.
    """
    x = np.asarray(x, dtype=np.float64)
    b, n = x.shape
    order = np.argsort(-x, axis=1, kind="stable")
    xs = np.take_along_axis(x, order, axis=1)
    tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(x).max(axis=1, keepdims=True)) if n else np.zeros((b, 1))
    new = np.ones((b, n), dtype=bool)
    new[:, 1:] = (xs[:, :-1] - xs[:, 1:]) > tol
    group_sorted = np.cumsum(new, axis=1) - 1
    start = np.maximum.accumulate(np.where(new, np.arange(n), 0), axis=1)
    # size: last position of the group - first + 1
    last = np.empty((b, n), dtype=np.int64)
    ends = np.ones((b, n), dtype=bool)
    ends[:, :-1] = new[:, 1:]
    last_rev = np.minimum.accumulate(np.where(ends, np.arange(n), n)[:, ::-1], axis=1)[:, ::-1]
    last[:] = last_rev
    group, top, size = (np.empty((b, n), dtype=np.int64) for _ in range(3))
    rows = np.arange(b)[:, None]
    group[rows, order] = group_sorted
    top[rows, order] = start + 1
    size[rows, order] = last - start + 1
    return group, top, size


def _harmonic(n: int) -> np.ndarray:
    """``H[m] = sum_{r=1..m} 1/r`` for ``m = 0..n`` (``H[0] = 0``)."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))]) if n > 0 else np.zeros(1)


# -- tau_AP --------------------------------------------------------------------------------------
#: Rows x items up to which tau_AP's pair counts come from (rows, n, n) matrices, a block of rows
#: at a time; larger rankings are counted in O(n log n) time and O(n) memory (:func:`_pair_counts`).
DENSE_PAIRS = 1 << 22


def _dense_counts(g_oth: np.ndarray, g_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(concordant, ordered, within)`` of :func:`_pair_counts` from (B, n, n) matrices."""
    above = g_oth[:, None, :] < g_oth[:, :, None]
    same = g_oth[:, None, :] == g_oth[:, :, None]
    ref_above = g_ref[:, None, :] < g_ref[:, :, None]
    ref_below = g_ref[:, None, :] > g_ref[:, :, None]
    ref_untied = ref_above | ref_below
    concordant = np.count_nonzero(above & ref_above, axis=2) - np.count_nonzero(above & ref_below, axis=2)
    ordered = np.count_nonzero(above & ref_untied, axis=2)
    within = np.count_nonzero(same & ref_untied, axis=2)
    return concordant, ordered, within


def _dominated(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The count of items dominated in both ``a`` and ``b`` for every item of every row.

    ``#{j : a_j < a_i and b_j < b_i}`` for every item i of every row of the (B, n) int arrays
    ``a`` and ``b`` (values in ``0..n-1``), in O(B n log n log(B n)) time and O(B n) memory.

    In the order (a ascending, b descending) an item j before i with b_j < b_i has a_j < a_i (an
    equal a would put the larger b first), so the count is that of smaller b's before each item:
    merge-sort counting, one vectorised pass per level (each right half of a block counts the
    left half's b's below its own with a sorted search), every row at once.
    """
    rows, n = a.shape
    order = np.lexsort((-b, a), axis=1)
    bs = np.take_along_axis(b, order, axis=1).astype(np.int64)
    counts = np.zeros((rows, n), dtype=np.int64)
    pos = np.arange(n, dtype=np.int64)
    row = np.arange(rows, dtype=np.int64)[:, None]
    half = 1
    while half < n:
        block = pos // (2 * half)
        left = (pos // half) % 2 == 0
        n_blocks = -(-n // (2 * half))
        group = row * n_blocks + block[None, :]                     # (rows, n)
        assert (rows * n_blocks + 1) * (n + 1) < 2 ** 62
        keys = group * (n + 1) + bs
        lk = np.sort(keys[:, left].ravel())
        qk = keys[:, ~left].ravel()
        qg = (group[:, ~left] * (n + 1)).ravel()
        found = np.searchsorted(lk, qk, side="left") - np.searchsorted(lk, qg, side="left")
        counts[:, ~left] += found.reshape(rows, -1)
        half *= 2
    out = np.empty_like(counts)
    np.put_along_axis(out, order, counts, axis=1)
    return out


def _pair_counts(g_oth: np.ndarray, g_ref: np.ndarray, top: np.ndarray, size: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pair counts of every item of each row against the other items.

    Per item i of each row, counted over the other items j (groups: 0 is the best):

    - ``concordant``: j above i in both rankings, minus j above i in ``other`` and below in ``reference``;
    - ``ordered``: j above i in ``other``, not tied with i in ``reference``;
    - ``within``: j tied with i in ``other``, not in ``reference``.

    From (B, n, n) matrices for small inputs (:data:`DENSE_PAIRS`), else from sorted counts: with
    A_i = #{j above i in other} = top_i - 1, D_i = #{j above in both} (:func:`_dominated`),
    E_i = #{j above i in other, tied in reference} and F_i = #{j tied with i in both, i included},
    concordant = 2 D - A + E, ordered = A - E and within = size - F (integers: both ways agree exactly).
    """
    rows, n = g_oth.shape
    if rows * n * n <= DENSE_PAIRS:
        return _dense_counts(g_oth, g_ref)
    if n * n <= DENSE_PAIRS:
        step = max(1, DENSE_PAIRS // (n * n))
        parts = [_dense_counts(g_oth[i:i + step], g_ref[i:i + step]) for i in range(0, rows, step)]
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))   # type: ignore[return-value]
    above = top - 1
    dominated = _dominated(g_oth, g_ref)
    # E and F: items sorted by (reference group, other group); runs of equal keys
    order = np.lexsort((g_oth, g_ref), axis=1)
    ref_s = np.take_along_axis(g_ref, order, axis=1)
    oth_s = np.take_along_axis(g_oth, order, axis=1)
    pos = np.broadcast_to(np.arange(n), (rows, n))
    new_ref = np.ones((rows, n), dtype=bool)
    new_ref[:, 1:] = ref_s[:, 1:] != ref_s[:, :-1]
    new_pair = new_ref.copy()
    new_pair[:, 1:] |= oth_s[:, 1:] != oth_s[:, :-1]
    ref_start = np.maximum.accumulate(np.where(new_ref, pos, 0), axis=1)
    pair_start = np.maximum.accumulate(np.where(new_pair, pos, 0), axis=1)
    ends = np.ones((rows, n), dtype=bool)
    ends[:, :-1] = new_pair[:, 1:]
    pair_end = np.minimum.accumulate(np.where(ends, pos, n)[:, ::-1], axis=1)[:, ::-1]
    e_sorted, f_sorted = pair_start - ref_start, pair_end - pair_start + 1
    e, f = np.empty((rows, n), dtype=np.int64), np.empty((rows, n), dtype=np.int64)
    np.put_along_axis(e, order, e_sorted, axis=1)
    np.put_along_axis(f, order, f_sorted, axis=1)
    return 2 * dominated - above + e, above - e, size - f


def tau_ap_rows(reference: np.ndarray, other: np.ndarray) -> np.ndarray:
    """tau_AP of ``other`` against ``reference`` for every row (``(B, n)`` each): ``(B,)``.

    See the module docstring for the definition and the treatment of ties; NaN where the
    reference ties every item. Memory is O(B n) (the pair counts are sorted counts for large
    rankings, :func:`_pair_counts`), so rankings of hundreds of thousands of items are cheap.
    """
    reference, other = _pair_of_rows(reference, other)
    b, n = reference.shape
    if n < 2:
        return np.full(b, np.nan)
    g_ref = tie_groups(reference)[0]
    g_oth, top, size = tie_groups(other)
    harmonic = _harmonic(n)
    # item i below other items in `other`: its expected 1 / (rank - 1) over its group's random
    # orderings, (H(top + size - 2) - H(top - 2)) / size; (the top group is above nothing)
    below_any = top >= 2
    across = np.where(below_any, (harmonic[np.maximum(top + size - 2, 0)] - harmonic[np.maximum(top - 2, 0)])
                      / size, 0.0)
    # a pair inside one group of `other` (size t from rank p): E[1 / (max rank - 1)] over the
    # group's orderings = 2 / (t (t - 1)) * sum_{k=1..t-1} k / (p + k - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = np.where(size > 1, 2.0 / (size * (size - 1)) * (
            (size - 1) - (top - 1) * (harmonic[np.maximum(top + size - 2, 0)] - harmonic[np.maximum(top - 1, 0)])), 0.0)
    concordant, ordered, within = _pair_counts(g_oth, g_ref, top, size)   # each pair of `within` counted from both ends
    # row sums by numpy's own reduction (not BLAS), so a row's value never depends on the batch
    num = (across * concordant).sum(axis=1)
    den = (across * ordered).sum(axis=1) + 0.5 * (inside * within).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def tau_ap_symmetric_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The mean of tau_AP in both directions, for rankings of which neither is the truth."""
    return 0.5 * (tau_ap_rows(x, y) + tau_ap_rows(y, x))


def tau_ap(reference: Any, other: Any) -> float:
    """tau_AP (Yilmaz, Aslam & Robertson 2008) of ``other`` against ``reference``.

    Parameters
    ----------
    reference, other
        Scores of the same systems (higher is better), as two arrays of equal
        length or two ``pandas.Series`` / mappings ``{system: score}`` over the same systems.
        ``reference`` is the ranking taken as truth.

    Returns
    -------
    float
        tau_AP, NaN when ``reference`` ties all systems (fewer than 2 systems: a DataError).

    Notes
    -----
    Ties: a tie in ``other`` counts as the expectation over the orderings of the tied
    systems, a pair tied in ``reference`` is left out (see :mod:`ir_cwla.meta.agreement`).
    """
    x, y = _aligned(reference, other, "tau_ap")
    if len(x) < 2:
        raise DataError(f"tau_ap: needs rankings of at least 2 systems, got {len(x)}")
    return float(tau_ap_rows(x[None, :], y[None, :])[0])


# -- RBO -----------------------------------------------------------------------------------------
def rbo_rows(x: np.ndarray, y: np.ndarray, p: float = PERSISTENCE) -> np.ndarray:
    """RBO_ext between the rankings of the same ``n`` systems by the rows of ``x`` and ``y``.

    Both rankings hold every system, so the lists have equal length and ``A_n = 1``;
    ties as in the paper's Section 4.3 (see the module docstring). ``(B,)``.
    """
    p = check_persistence(p)
    x, y = _pair_of_rows(x, y)
    b, n = x.shape
    if n == 0:
        raise DataError("rbo: the rankings are empty; RBO compares two non-empty rankings")
    top_x = tie_groups(x)[1]
    top_y = tie_groups(y)[1]
    offsets = (np.arange(b) * (n + 1))[:, None]

    def prefix_counts(depth: np.ndarray) -> np.ndarray:
        """``#{items with depth <= d}`` for d = 1..n, per row."""
        counts = np.bincount((offsets + depth).ravel(), minlength=b * (n + 1)).reshape(b, n + 1)
        return np.cumsum(counts, axis=1)[:, 1:]

    overlap = prefix_counts(np.maximum(top_x, top_y))
    agreement = 2.0 * overlap / (prefix_counts(top_x) + prefix_counts(top_y))
    return _rbo_ext_sum(agreement, p)


def _rbo_ext_sum(agreement: np.ndarray, p: float) -> np.ndarray:
    """RBO_ext from the agreements A_1..A_l (last axis).

    (1 - p) sum_d A_d p^(d-1) + A_l p^l, the paper's (1 - p) / p sum_d A_d p^d written
    without dividing by p, so that every p in (0, 1), however small, gives a value in [0, 1]
    (p = 5e-324 made (1 - p) / p infinite; the sum is clipped to [0, 1], which its rounding
    may leave by one unit in the last place).
    """
    length = agreement.shape[-1]
    with np.errstate(under="ignore"):
        powers = p ** np.arange(length + 1, dtype=np.float64)          # p^0 .. p^l
    value = (1 - p) * (agreement * powers[:-1]).sum(axis=-1) + agreement[..., -1] * powers[-1]
    return np.clip(value, 0.0, 1.0)         # a value of 1 may round to 1 + 2^-52


def rbo(first: Any, second: Any, p: float = PERSISTENCE) -> float:
    """Rank-biased overlap, RBO_ext (Webber, Moffat & Zobel 2010), of two rankings.

    Parameters
    ----------
    first, second
        Each a ranking in one of three forms:

        - a sequence of items, best first, in which a ``set``/``frozenset`` is a group of tied
          items (``['a', {'b', 'c'}, 'd']``);
        - a ``pandas.Series`` or mapping ``{item: score}`` (higher ranks first, equal scores
          tie);
        - a numpy array of scores, item ``i`` being position ``i`` (both arrays then score
          the same items and must have equal length).

        The two rankings may hold different items and have different lengths.
    p
        Persistence in (0, 1): the probability that the user comparing the lists goes on to
        the next depth (0.9 weighs about the top 10).

    Returns
    -------
    float
        RBO_ext, the paper's extrapolated point estimate (Eq. 32; ties as in its Section
        4.3), in [0, 1]. RBO is symmetric: which ranking comes first does not matter.

    Raises
    ------
    DataError: an empty ranking. ParameterError: ``p`` outside the open interval (0, 1).
    """
    p = check_persistence(p)
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        x, y = _aligned(first, second, "rbo")
        if not len(x):
            raise DataError("rbo: the rankings are empty; RBO compares two non-empty rankings")
        return float(rbo_rows(x[None, :], y[None, :], p)[0])
    return rbo_ext(_tops(first, "first"), _tops(second, "second"), p)


def rbo_ext(first: Mapping[Hashable, int], second: Mapping[Hashable, int], p: float) -> float:
    """RBO_ext of two rankings given as ``{item: first rank of its tie group}`` (1-based)."""
    if not first or not second:
        raise DataError("rbo: a ranking is empty; RBO compares two non-empty rankings")
    short, long_ = (first, second) if len(first) <= len(second) else (second, first)
    s, length = len(short), len(long_)

    def prefix_sizes(tops: Mapping[Hashable, int]) -> np.ndarray:
        counts = np.bincount(np.fromiter(tops.values(), dtype=np.int64), minlength=length + 1)[: length + 1]
        return np.cumsum(counts)[1:]                       # |prefix| at d = 1..l

    common = [max(short[i], long_[i]) for i in short.keys() & long_.keys()]
    overlap = np.cumsum(np.bincount(np.asarray(common, dtype=np.int64), minlength=length + 1)[: length + 1])[1:]
    size_short, size_long = prefix_sizes(short), prefix_sizes(long_)
    depth = np.arange(1, length + 1)
    agreement = np.empty(length)
    agreement[:s] = 2.0 * overlap[:s] / (size_short[:s] + size_long[:s])
    a_s = agreement[s - 1]
    extra = depth[s:]
    agreement[s:] = 2.0 * (overlap[s:] + (extra - s) * a_s) / (extra + size_long[s:])
    return float(_rbo_ext_sum(agreement, p))


def _tops(ranking: Any, what: str) -> dict[Hashable, int]:
    """``{item: first rank of its tie group}`` of a ranking (see :func:`rbo`)."""
    if isinstance(ranking, Mapping) or hasattr(ranking, "to_dict") and hasattr(ranking, "index"):
        items = list(ranking.keys())
        scores = np.asarray([ranking[i] for i in items], dtype=np.float64)
        if not np.isfinite(scores).all():
            raise DataError(f"rbo: {what} ranking has NaN or infinite scores")
        if len(set(items)) != len(items):
            raise DataError(f"rbo: {what} ranking scores an item twice")
        if not items:
            return {}
        top = tie_groups(scores[None, :])[1][0]
        return {item: int(t) for item, t in zip(items, top)}
    if isinstance(ranking, (str, bytes)) or not isinstance(ranking, Sequence):
        raise ArgumentTypeError(f"rbo: {what} ranking must be a sequence of items (sets for ties), a mapping "
                        f"{{item: score}} or a numpy array of scores, got {type(ranking).__name__}")
    out: dict[Hashable, int] = {}
    rank = 1
    for entry in ranking:
        group = list(entry) if isinstance(entry, (set, frozenset)) else [entry]
        if not group:
            raise DataError(f"rbo: {what} ranking has an empty tie group")
        for item in group:
            if isinstance(item, (float, np.floating)):
                raise ArgumentTypeError(f"rbo: {what} ranking holds the float {item!r}: pass scores as a numpy array or a "
                                "mapping {item: score}; a sequence lists items best first")
            if item in out:
                raise DataError(f"rbo: item {item!r} appears twice in the {what} ranking")
            out[item] = rank
        rank += len(group)
    return out


# -- shared ----------------------------------------------------------------------------------------
def _pair_of_rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise DataError(f"expected two (rows, systems) arrays of one shape, got {x.shape} and {y.shape}")
    return x, y


def _aligned(reference: Any, other: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Two score vectors over the same systems.

    Arrays of equal length, or Series/mappings with the same keys (aligned by
    key).
    """
    if hasattr(reference, "keys") and hasattr(other, "keys"):
        keys_a, keys_b = list(reference.keys()), list(other.keys())
        if set(keys_a) != set(keys_b) or len(keys_a) != len(keys_b):
            missing = sorted(map(str, set(keys_a) ^ set(keys_b)))[:5]
            raise DataError(f"{what}: the two score vectors must cover the same systems (differ in {missing})")
        x = np.asarray([reference[k] for k in keys_a], dtype=np.float64)
        y = np.asarray([other[k] for k in keys_a], dtype=np.float64)
    else:
        x, y = np.asarray(reference, dtype=np.float64), np.asarray(other, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise DataError(f"{what}: expected two score vectors of equal length, got shapes {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise DataError(f"{what}: scores must be finite (found NaN or infinity)")
    return x, y


# -- dispatch for the analyses --------------------------------------------------------------------
def rows(agreement: str, reference: np.ndarray, other: np.ndarray, persistence: float = PERSISTENCE,
         symmetric: bool = False) -> np.ndarray:
    """The agreement statistic between the rankings of each row of ``reference`` and ``other``.

    ``'tau'``: Kendall's tau-b; ``'tau_ap'``: tau_AP with ``reference`` as the truth, or the
    mean of both directions if ``symmetric``; ``'rbo'``: RBO_ext with ``persistence``.
    """
    if agreement == "tau":
        return kendall.tau_b_rows(reference, other)
    if agreement == "tau_ap":
        return (tau_ap_symmetric_rows if symmetric else tau_ap_rows)(reference, other)
    if agreement == "rbo":
        return rbo_rows(reference, other, persistence)
    raise ParameterError(f"agreement must be one of {AGREEMENTS}, got {agreement!r}")


def matrix(agreement: str, scores: np.ndarray, persistence: float = PERSISTENCE) -> np.ndarray:
    """The statistic between the rankings by every two columns of ``scores`` (systems x measures).

    ``(M, M)``, symmetric (tau_AP averaged over both directions).
    """
    if agreement == "tau":
        return kendall.tau_b_matrix(scores)
    scores = np.asarray(scores, dtype=np.float64)
    m = scores.shape[1]
    a, b = np.triu_indices(m, k=1)
    cols = scores.T
    values = rows(agreement, cols[a], cols[b], persistence, symmetric=True)
    out = np.empty((m, m))
    out[a, b] = out[b, a] = values
    diag = rows(agreement, cols, cols, persistence, symmetric=True)
    out[np.arange(m), np.arange(m)] = diag
    return out
