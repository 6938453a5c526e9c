"""Agreement between the relevance labels of two qrels (assessor variation).

Given a reference qrels (e.g. NIST's) and one or more alternative qrels of the same topics (a
second assessor, crowd workers, an LLM), :func:`label_agreement` compares the grades the two
give to the (topic, doc_id) pairs **both** judged, per topic and over all topics:

* the confusion matrix of grades (reference grade x other grade);
* exact agreement, the share of shared pairs with the same grade;
* Cohen's kappa (Cohen 1960), unweighted and linearly and quadratically weighted (Cohen 1968);
* Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's alpha-reliability") for
  ordinal data, and for interval and nominal data;

each with a percentile bootstrap interval. Pairs judged by one of the two qrels only are not
compared, and never silently: the table gives, per topic and overall, how many pairs each qrels
judged and how many they share.

Grade categories
    The categories of a comparison are the grades seen on its shared pairs, in either qrels,
    sorted. Per-topic statistics use the same categories as the overall one (so the per-topic
    confusion matrices add up to the overall matrix, and the kappa weights are the same).
    Cohen's weights are distances between category *positions* in that sorted list (as in
    scikit-learn's ``cohen_kappa_score``); alpha's interval metric uses the grade *values*.

Undefined statistics
    A topic whose shared pairs all carry one and the same grade in both qrels has no chance
    agreement to correct for: kappa (``1 - 0/0``) and alpha (no expected disagreement) are
    undefined there and reported as NaN, with one :class:`~ir_cwla.errors.UndefinedStatisticWarning`
    per call counting such topics. Their exact agreement is 1 and is reported. Bootstrap
    replicates on which a statistic is undefined (a resample that holds one category only) are
    left out of its interval; the ``defined`` column of :attr:`LabelAgreement.statistics` says
    how many replicates counted, and the same warning says when some did not.

Bootstrap (reproducible from ``seed``, whatever the row order of the inputs)
    *Overall*: the topics are the clusters. Each replicate draws as many topics as there are,
    uniformly with replacement, from the sorted list of topics with shared pairs, and adds up
    their confusion matrices. *Per topic*: the pairs of the topic are resampled with
    replacement, drawn as one multinomial over the cells of the topic's confusion matrix (in
    distribution the same as drawing its pairs, and depending on the counts only). The
    ``trials`` are split into chunks of :data:`ir_cwla.analysis.streams.CHUNK`; chunk ``c`` draws
    from ``default_rng(SeedSequence(seed, spawn_key=(LABEL_AGREEMENT_STREAM, part, c)))``,
    ``part`` 0 for the topic draws (``Generator.integers(0, T, size=(chunk, T))``) and 1 for
    the per-topic draws (``Generator.multinomial(n_t, counts_t / n_t, size=(chunk, T))``,
    topics in sorted order). Every alternative uses the same streams, so alternatives judged on
    the same topics are resampled alike (common random numbers), and an alternative's result
    does not depend on which others are compared with it. The interval is the percentile
    interval ``((1 - level) / 2, (1 + level) / 2)`` of the replicates (``numpy.quantile``,
    linear interpolation). The overall interval needs at least 2 topics (NaN otherwise).

The numbers come from pure numpy kernels (:func:`confusion_matrices`, :func:`cohen_kappa`,
:func:`coincidence_matrix`, :func:`krippendorff_alpha`, :func:`bootstrap_topics`,
:func:`bootstrap_pairs`); :func:`label_agreement` is the pandas adapter around them.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.analysis import montecarlo, streams
from ir_cwla.errors import (
    ArgumentTypeError,
    DataError,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
)
from ir_cwla.io import STDIN, SUMMARY_QID, as_qrels_frame, input_name, is_named_source
from ir_cwla.meta.grades import GradeMap, check_scales

#: Every statistic, in the order of the columns of :meth:`LabelAgreement.table`.
STATISTICS = ("exact", "kappa", "kappa_linear", "kappa_quadratic", "alpha_ordinal", "alpha_interval",
              "alpha_nominal")
DEFAULT_STATISTICS = STATISTICS
"""What :meth:`LabelAgreement.table` shows by default: every statistic (Krippendorff's alpha for
interval and nominal data included, as :func:`label_agreement` promises; until issue 33 the
table left those two out)."""
KAPPA_WEIGHTS = (None, "linear", "quadratic")
ALPHA_METRICS = ("ordinal", "interval", "nominal")
#: The topic id of the overall rows (as trec_eval's summary rows).
OVERALL = SUMMARY_QID

Qrels = Any
Alternatives = Union[Qrels, Mapping[str, Qrels]]


# ------------------------------------------------------------------------- kernels (numpy in, numpy out)

def confusion_matrices(reference: np.ndarray, other: np.ndarray, groups: np.ndarray, n_groups: int,
                       n_categories: int) -> np.ndarray:
    """Confusion matrices of two codings, one per group.

    Parameters
    ----------
    reference, other
        Int arrays of category codes in ``[0, n_categories)``, one per item.
    groups
        Int array of group codes in ``[0, n_groups)`` (e.g. the topic of each pair).

    Returns
    -------
    int64 array ``(n_groups, K, K)``: ``[g, i, j]`` counts the items of group ``g`` that the
    reference put in category ``i`` and the other in category ``j``.
    """
    k = n_categories
    flat = (np.asarray(groups, dtype=np.int64) * k + np.asarray(reference, dtype=np.int64)) * k \
        + np.asarray(other, dtype=np.int64)
    return np.bincount(flat, minlength=n_groups * k * k).reshape(n_groups, k, k).astype(np.int64)


def kappa_weights(n_categories: int, weights: Optional[str] = None) -> np.ndarray:
    """Disagreement weights ``w_ij`` of Cohen's (weighted) kappa over category positions.

    ``None``: ``w_ij = [i != j]`` (unweighted kappa); ``'linear'``: ``|i - j|``;
    ``'quadratic'``: ``(i - j)^2`` (Cohen 1968; the weights of scikit-learn's
    ``cohen_kappa_score``).
    """
    i = np.arange(n_categories, dtype=np.float64)
    d = np.abs(i[:, None] - i[None, :])
    if weights is None:
        return (d > 0).astype(np.float64)
    if weights == "linear":
        return d
    if weights == "quadratic":
        return d ** 2
    raise ParameterError(f"weights must be one of {KAPPA_WEIGHTS}, got {weights!r}")


def cohen_kappa(confusion: np.ndarray, weights: Optional[str] = None) -> np.ndarray:
    """Cohen's kappa of confusion matrices (any leading shape ``(..., K, K)``).

    ``kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij`` with ``O`` the observed counts,
    ``E_ij = O_i. O_.j / O_..`` the counts expected by chance from the two marginals, and
    ``w`` the disagreement weights of :func:`kappa_weights` (Cohen 1960, 1968). Unweighted,
    this is ``(p_o - p_e) / (1 - p_e)``.

    Returns
    -------
    float array of the leading shape; NaN where ``sum w E = 0`` (both codings put every
    item in one and the same category) or the matrix is empty.
    """
    c = np.asarray(confusion, dtype=np.float64)
    w = kappa_weights(c.shape[-1], weights)
    n = c.sum(axis=(-2, -1))
    rows, cols = c.sum(axis=-1), c.sum(axis=-2)
    observed_d = (w * c).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected_d = ((rows @ w) * cols).sum(axis=-1) / n        # sum_ij w_ij O_i. O_.j / O_..
        out = 1.0 - observed_d / expected_d
    return np.where((n > 0) & (expected_d > 0), out, np.nan)


def exact_agreement(confusion: np.ndarray) -> np.ndarray:
    """Share of items on the diagonal of confusion matrices ``(..., K, K)`` (NaN if empty)."""
    c = np.asarray(confusion, dtype=np.float64)
    n = c.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.trace(c, axis1=-2, axis2=-1) / n
    return np.where(n > 0, out, np.nan)


def coincidence_matrix(confusion: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix of two coders from their confusion matrix ``(..., K, K)``.

    Every unit (pair) coded by both is pairable with ``m_u = 2`` values, and contributes
    ``1 / (m_u - 1) = 1`` to ``o_ck`` and to ``o_kc`` for its values ``c, k``
    (Krippendorff 2011, Section C): ``o = O + O^T``, with ``n.. = 2 x`` the number of units.
    """
    c = np.asarray(confusion, dtype=np.float64)
    return c + np.swapaxes(c, -1, -2)


def alpha_deltas(n_c: np.ndarray, metric: str, values: np.ndarray) -> np.ndarray:
    """Squared differences ``delta^2_ck`` of Krippendorff's metrics (shape ``(..., K, K)``).

    ``nominal``: ``[c != k]``; ``interval``: ``(v_c - v_k)^2`` of the category values;
    ``ordinal``: ``(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2`` with ``n_g`` the marginal counts
    of the coincidence matrix (Krippendorff 2011, Section E), written here as
    ``(N_k - N_c + (n_c - n_k) / 2)^2`` with ``N`` the cumulative counts (symmetric in c, k).
    """
    n_c = np.asarray(n_c, dtype=np.float64)
    k = n_c.shape[-1]
    if metric == "nominal":
        return np.broadcast_to(1.0 - np.eye(k), n_c.shape[:-1] + (k, k))
    if metric == "interval":
        v = np.asarray(values, dtype=np.float64)
        return np.broadcast_to((v[:, None] - v[None, :]) ** 2, n_c.shape[:-1] + (k, k))
    if metric == "ordinal":
        cum = np.cumsum(n_c, axis=-1)
        return (cum[..., None, :] - cum[..., :, None] + (n_c[..., :, None] - n_c[..., None, :]) / 2) ** 2
    raise ParameterError(f"metric must be one of {ALPHA_METRICS}, got {metric!r}")


def krippendorff_alpha(coincidence: np.ndarray, metric: str = "ordinal",
                       values: Optional[np.ndarray] = None) -> np.ndarray:
    """Krippendorff's alpha from coincidence matrices ``(..., K, K)``.

    ``alpha = 1 - (n.. - 1) sum_ck o_ck delta^2_ck / sum_ck n_c n_k delta^2_ck``
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability", Section E), with
    ``n_c`` the row sums of ``o``, ``n..`` their total (the pairable values) and ``delta^2``
    the metric's squared difference (:func:`alpha_deltas`).

    Parameters
    ----------
    coincidence
        Coincidence matrices (:func:`coincidence_matrix`), categories sorted.
    metric
        ``'ordinal'``, ``'interval'`` or ``'nominal'``.
    values
        The category values of the interval metric (default ``0, 1, ..., K-1``).

    Returns
    -------
    float array of the leading shape; NaN where there is no expected disagreement (all
    values in one category) or fewer than 2 pairable values.
    """
    o = np.asarray(coincidence, dtype=np.float64)
    k = o.shape[-1]
    v = np.arange(k, dtype=np.float64) if values is None else np.asarray(values, dtype=np.float64)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    delta = alpha_deltas(n_c, metric, v)
    observed = (o * delta).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - (n - 1.0) * observed / expected
    return np.where((n > 1) & (expected > 0), out, np.nan)


def statistics_of(confusion: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Every statistic of :data:`STATISTICS` of confusion matrices ``(..., K, K)``: shape ``(..., 7)``."""
    o = coincidence_matrix(confusion)
    return np.stack([exact_agreement(confusion)]
                    + [cohen_kappa(confusion, w) for w in KAPPA_WEIGHTS]
                    + [krippendorff_alpha(o, m, values) for m in ALPHA_METRICS], axis=-1)


def bootstrap_topics(confusions: np.ndarray, values: np.ndarray, trials: int,
                     seed: streams.Seed) -> np.ndarray:
    """Cluster bootstrap over topics: the statistics of ``trials`` resamples, shape ``(trials, 7)``.

    Each replicate draws ``T`` topics uniformly with replacement (the recipe of the module
    docstring, ``part`` 0) and computes :func:`statistics_of` on the sum of their confusion
    matrices ``confusions`` (``(T, K, K)``, topics in sorted order).
    """
    t, k, _ = confusions.shape
    flat = confusions.reshape(t, k * k).astype(np.float64)
    out = []
    for c, size in enumerate(streams.chunk_sizes(trials)):
        rng = np.random.default_rng(streams.derive(seed, streams.LABEL_AGREEMENT_STREAM, 0, c))
        draws = rng.integers(0, t, size=(size, t))
        counts = np.bincount((draws + t * np.arange(size)[:, None]).ravel(), minlength=size * t).reshape(size, t)
        out.append(statistics_of((counts @ flat).reshape(size, k, k), values))
    return np.concatenate(out)


def bootstrap_pairs(confusions: np.ndarray, values: np.ndarray, trials: int, seed: streams.Seed) -> np.ndarray:
    """Per-topic bootstrap over pairs: the statistics of ``trials`` resamples, shape ``(trials, T, 7)``.

    Topic ``t``'s replicate is a multinomial draw of ``n_t`` pairs over the cells of its
    confusion matrix with probabilities ``counts / n_t`` (the recipe of the module docstring,
    ``part`` 1); every topic must have at least one pair.
    """
    t, k, _ = confusions.shape
    flat = confusions.reshape(t, k * k)
    n = flat.sum(axis=1)
    p = flat / n[:, None]
    out = []
    for c, size in enumerate(streams.chunk_sizes(trials)):
        rng = np.random.default_rng(streams.derive(seed, streams.LABEL_AGREEMENT_STREAM, 1, c))
        draws = rng.multinomial(n, p, size=(size, t))
        out.append(statistics_of(draws.reshape(size, t, k, k), values))
    return np.concatenate(out)


def percentile_interval(replicates: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval over axis 0, leaving out NaN replicates: ``(low, high, defined)``."""
    defined = np.isfinite(replicates).sum(axis=0)
    q = [(1 - level) / 2, (1 + level) / 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)       # all-NaN columns give NaN, as wanted
        low, high = np.nanquantile(replicates, q, axis=0)
    return low, high, defined


# ------------------------------------------------------------------------- the result

@dataclass
class LabelAgreement:
    """Agreement between a reference qrels and one or more alternatives, per topic and overall.

    ``statistics``: long frame ``alternative, query_id, statistic, value, ci_low, ci_high,
    defined`` (``query_id`` :data:`OVERALL` = ``'all'`` for the overall rows; ``defined``: the
    bootstrap replicates on which the statistic was defined); ``coverage``: frame
    ``alternative, query_id, judged_reference, judged_other, judged_both`` for every topic either
    qrels judged, and the overall row; ``confusions``: per alternative, the ``(T, K, K)``
    counts of its ``topics`` (sorted) over its ``categories``.
    """

    statistics: pd.DataFrame
    coverage: pd.DataFrame
    confusions: dict[str, np.ndarray]
    topics: dict[str, list[str]]
    categories: dict[str, tuple[int, ...]]
    reference: str
    alternatives: list[str]
    level: float
    trials: int
    seed: Any

    def table(self, statistics: Union[str, Sequence[str]] = DEFAULT_STATISTICS,
              per_topic: bool = False) -> pd.DataFrame:
        """One row per alternative (and per topic with ``per_topic``).

        The pairs judged by each qrels and by both, then each statistic with its
        interval (``kappa, kappa_low, kappa_high``, ...).

        ``statistics``: names of :data:`STATISTICS` or ``'all'`` (the default: every one,
        :data:`DEFAULT_STATISTICS`). Per-topic rows cover every
        topic either qrels judged; topics with no shared pair have NaN statistics.
        """
        names = list(STATISTICS) if statistics == "all" else \
            [statistics] if isinstance(statistics, str) else list(statistics)
        unknown = [s for s in names if s not in STATISTICS]
        if unknown:
            raise ParameterError(f"unknown statistics {unknown}; choose from {STATISTICS} or 'all'")
        cov = self.coverage if per_topic else self.coverage[self.coverage["query_id"] == OVERALL]
        out = cov.reset_index(drop=True)
        stats = self.statistics.set_index(["alternative", "query_id", "statistic"])
        for s in names:
            part = stats.xs(s, level="statistic")
            key = pd.MultiIndex.from_arrays([out["alternative"], out["query_id"]])
            found = part.reindex(key)
            out[s] = found["value"].to_numpy()
            out[f"{s}_low"] = found["ci_low"].to_numpy()
            out[f"{s}_high"] = found["ci_high"].to_numpy()
        return out

    def _alternative(self, alternative: Optional[str]) -> str:
        if alternative is None:
            if len(self.alternatives) > 1:
                raise ParameterError(f"name the alternative: one of {self.alternatives}")
            return self.alternatives[0]
        if alternative not in self.alternatives:
            raise NotFoundError(f"no alternative {alternative!r}; the alternatives are {self.alternatives}")
        return alternative

    def confusion(self, topic: Optional[str] = None, alternative: Optional[str] = None,
                  normalise: Optional[str] = None) -> pd.DataFrame:
        """The confusion matrix of grades (rows: reference grade, columns: the alternative's).

        ``topic``: a topic id, or None for all topics; ``alternative``: which one (needed when
        there are several); ``normalise``: None (counts), ``'row'`` (share of each reference
        grade), ``'all'`` (share of all shared pairs).
        """
        name = self._alternative(alternative)
        counts = self.confusions[name]
        if topic is None or topic == OVERALL:
            matrix = counts.sum(axis=0)
        else:
            topic = str(topic)
            if topic not in self.topics[name]:
                raise NotFoundError(f"topic {topic!r} has no pair judged by both {self.reference} and {name}")
            matrix = counts[self.topics[name].index(topic)]
        values: np.ndarray = matrix
        if normalise == "row":
            with np.errstate(divide="ignore", invalid="ignore"):
                values = matrix / matrix.sum(axis=1, keepdims=True)
        elif normalise == "all":
            values = matrix / matrix.sum()
        elif normalise is not None:
            raise ParameterError(f"normalise must be None, 'row' or 'all', got {normalise!r}")
        grades = list(self.categories[name])
        return pd.DataFrame(values, index=pd.Index(grades, name=self.reference),
                            columns=pd.Index(grades, name=name))

    def plot(self, statistic: str = "kappa", **kwargs):
        """Per-alternative figures of the assessor labels.

        Per alternative: the confusion heat map against the reference, and the per-topic
        ``statistic`` with its interval beside the overall one. Returns the Figure.
        """
        from ir_cwla.meta.labels_plots import plot_label_agreement

        return plot_label_agreement(self, statistic=statistic, **kwargs)


# ------------------------------------------------------------------------- the adapter

def _is_dict_qrels(obj: Any) -> bool:
    """A ``{qid: {doc_id: grade}}`` qrels (as ir-measures takes), as opposed to a mapping of qrels."""
    return isinstance(obj, Mapping) and len(obj) > 0 and all(
        isinstance(v, Mapping) and not any(isinstance(g, (Mapping, pd.DataFrame)) for g in v.values())
        for v in obj.values())


def qrels_name(qrels: Any, default: str) -> str:
    """How results name a qrels input: a file's name, an ``irds:`` id as given, else ``default``."""
    if isinstance(qrels, os.PathLike):
        return Path(qrels).name
    if isinstance(qrels, str):
        return input_name(qrels) if is_named_source(qrels) or qrels == STDIN else Path(qrels).name
    return default


def as_qrels_mapping(qrels: Any, what: str) -> dict[str, pd.DataFrame]:
    """Several qrels (a mapping name -> qrels, or a list or tuple of qrels) as checked frames by name."""
    if isinstance(qrels, Mapping) and not _is_dict_qrels(qrels):
        items = [(str(k), v) for k, v in qrels.items()]
    elif isinstance(qrels, (list, tuple)):
        items = [(qrels_name(q, f"qrels{i}"), q) for i, q in enumerate(qrels)]
        names = [n for n, _ in items]          # two files of the same name: told apart by position
        items = [(f"{n}#{i}" if names.count(n) > 1 else n, q) for i, (n, q) in enumerate(items)]
    else:
        raise ArgumentTypeError(f"{what} must be a list or a mapping name -> qrels, got {type(qrels).__name__}")
    return {n: as_qrels_frame(q, name=n) for n, q in items}


def _counts(frame: pd.DataFrame) -> pd.Series:
    return frame.groupby("query_id", sort=False).size()


def no_overlap_hint(ref: pd.DataFrame, other: pd.DataFrame, ref_name: str, name: str) -> str:
    """What two qrels that share no pair have in common, and how ids of two schemes are mapped."""
    def examples(values: Any) -> str:
        return ", ".join(repr(str(v)) for v in sorted(pd.unique(values).astype(str))[:3])

    topics = set(ref["query_id"].astype(str)) & set(other["query_id"].astype(str))
    docs = set(ref["doc_id"].astype(str)) & set(other["doc_id"].astype(str))
    if not topics or not docs:
        what, column = ("topic", "query_id") if not topics else ("doc", "doc_id")
        return (f"no {what} id in common: {ref_name}'s look like {examples(ref[column])}, {name}'s like "
                f"{examples(other[column])}; ids of two schemes are mapped by meta.map_ids with id map files, as "
                "the LLMJudge files' qid_to_qidx.txt and docid_to_docidx.txt")
    return f"{len(topics)} topic(s) and {len(docs)} doc id(s) in common, but never as the same pair"


def _compare(ref: pd.DataFrame, other: pd.DataFrame, ref_name: str, name: str
             ) -> tuple[pd.DataFrame, np.ndarray, list[str], tuple[int, ...]]:
    """Coverage rows, per-topic confusion counts, topics and categories of one comparison."""
    shared = ref.merge(other, on=["query_id", "doc_id"], how="inner", suffixes=("_ref", "_other"))
    n = len(shared)
    if n == 0:
        raise DataError(f"qrels {ref_name} and {name} share no judged (topic, doc_id) pair: there is nothing to "
                        f"compare ({no_overlap_hint(ref, other, ref_name, name)})")
    if n < 2:
        raise DataError(f"qrels {ref_name} and {name} share a single judged pair: agreement needs at least 2 "
                        "(and kappa at least 2 grades)")
    topic_codes, topics = pd.factorize(shared["query_id"].astype(str), sort=True)
    a = shared["relevance_ref"].to_numpy(np.int64)
    b = shared["relevance_other"].to_numpy(np.int64)
    categories = np.union1d(a, b)
    conf = confusion_matrices(np.searchsorted(categories, a), np.searchsorted(categories, b), topic_codes,
                              len(topics), len(categories))
    judged_ref, judged_other = _counts(ref), _counts(other)
    shared_counts = pd.Series(conf.sum(axis=(1, 2)), index=list(topics))
    all_topics = sorted(set(judged_ref.index.astype(str)) | set(judged_other.index.astype(str)))
    judged_ref.index = judged_ref.index.astype(str)
    judged_other.index = judged_other.index.astype(str)
    cov = pd.DataFrame({
        "alternative": name,
        "query_id": [OVERALL] + all_topics,
        "judged_reference": [len(ref)] + judged_ref.reindex(all_topics, fill_value=0).tolist(),
        "judged_other": [len(other)] + judged_other.reindex(all_topics, fill_value=0).tolist(),
        "judged_both": [n] + shared_counts.reindex(all_topics, fill_value=0).tolist()})
    cov = cov.astype({c: np.int64 for c in ("judged_reference", "judged_other", "judged_both")})
    return cov, conf, [str(t) for t in topics], tuple(int(c) for c in categories)


def label_agreement(reference: Qrels, other: Alternatives, *, level: float = 0.95, trials: int = 1000,
                    seed: streams.Seed = 0, reference_name: Optional[str] = None,
                    name: Optional[str] = None, grade_map: GradeMap = None) -> LabelAgreement:
    """Agreement of the grades of ``other`` (one qrels, or several) with those of ``reference``.

    Parameters
    ----------
    reference
        Qrels (a TREC file, ``-``, a DataFrame, a dict, an ``irds:`` id: anything
        :func:`ir_cwla.io.as_qrels_frame` reads), e.g. NIST's.
    other
        Qrels of the same kind, or a mapping name -> qrels to compare several alternatives
        (each with the reference, on the pairs the two share).
    level
        Level of the percentile bootstrap intervals, in (0, 1).
    trials
        Bootstrap replicates (>= 1).
    seed
        Int or ``SeedSequence``; the intervals are exactly reproducible from it, whatever the
        row order of the inputs (the module docstring gives the recipe).
    reference_name, name
        Names of the reference and of a single ``other`` in the result
        (default: the file name, or ``'reference'`` / ``'other'``).
    grade_map
        Grades of the alternatives mapped before they are compared (``{5: 3}``, or
        ``{name: {5: 3}}`` per alternative); a grade outside the reference's scale that is not
        mapped is an error, a narrower scale a warning (:mod:`ir_cwla.meta.grades`).

    Returns
    -------
    :class:`LabelAgreement`: per alternative and per topic (and overall, ``query_id='all'``)
    exact agreement, Cohen's kappa unweighted, linearly and quadratically weighted, and
    Krippendorff's alpha for ordinal, interval and nominal data (:data:`STATISTICS`), with
    intervals, and the pairs judged by each qrels and shared.

    Raises
    ------
    InputError: a qrels that cannot be read (e.g. a grade that is not an integer).
    DataError: a reference and an alternative that share fewer than 2 judged pairs (the message
    says whether their topic or doc ids have anything in common), a grade outside the reference's
    scale (its file, line, topic and doc named).
    ParameterError: ``level`` outside (0, 1), ``trials`` < 1, a bad seed.
    """
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
        raise ParameterError(f"level must lie in (0, 1), got {shown(level)}")
    trials = streams.check_trials(trials)
    root = streams.as_seed_sequence(seed)
    ref_name = reference_name or qrels_name(reference, "reference")
    ref = as_qrels_frame(reference, name=ref_name)
    if isinstance(other, Mapping) and not _is_dict_qrels(other):
        if name is not None:
            raise ParameterError("name names a single alternative; with a mapping, its keys are the names")
        if len(other) == 0:
            raise ParameterError("other is an empty mapping: give at least one alternative qrels")
        alternatives = as_qrels_mapping(other, "other")
        sources = {str(k): v for k, v in other.items()}
    else:
        label = name or qrels_name(other, "other")
        alternatives = {label: as_qrels_frame(other, name=label)}
        sources = {label: other}
    alternatives = check_scales(ref, alternatives, grade_map, sources, ref_name)

    stat_rows, coverage = [], []
    confusions, topics, categories = {}, {}, {}
    single, partial, lone = 0, 0, []
    for alt, frame in alternatives.items():
        cov, conf, alt_topics, cats = _compare(ref, frame, ref_name, alt)
        values = np.asarray(cats, dtype=np.float64)
        per_topic = statistics_of(conf, values)                      # (T, 7)
        overall = statistics_of(conf.sum(axis=0), values)            # (7,)
        # the resamples are kept, (trials, T, 7) floats and their concatenation: refused up front if too many
        montecarlo.check_result_memory("label_agreement", trials, 2 * 8 * len(STATISTICS) * len(conf),
                                       f"bootstrap statistics ({len(conf)} topics)")
        pair_reps = bootstrap_pairs(conf, values, trials, root)      # (trials, T, 7)
        p_low, p_high, p_defined = percentile_interval(pair_reps, level)
        if len(alt_topics) >= 2:
            topic_reps = bootstrap_topics(conf, values, trials, root)
            o_low, o_high, o_defined = percentile_interval(topic_reps, level)
        else:
            lone.append(alt)
            o_low = o_high = np.full(len(STATISTICS), np.nan)
            o_defined = np.zeros(len(STATISTICS), dtype=np.int64)
        # a point estimate that is undefined has no interval either
        p_low, p_high = np.where(np.isfinite(per_topic), p_low, np.nan), np.where(np.isfinite(per_topic), p_high, np.nan)
        o_low, o_high = np.where(np.isfinite(overall), o_low, np.nan), np.where(np.isfinite(overall), o_high, np.nan)
        single += int((~np.isfinite(per_topic[:, 1])).sum()) + int(not np.isfinite(overall[1]))
        partial += int((np.isfinite(per_topic) & (p_defined < trials)).any(axis=1).sum()) + \
            int((np.isfinite(overall) & (o_defined < trials) & (len(alt_topics) >= 2)).any())
        names = np.array(STATISTICS, dtype=object)
        ids = [OVERALL] + alt_topics
        stat_rows.append(pd.DataFrame({
            "alternative": alt,
            "query_id": np.repeat(np.array(ids, dtype=object), len(STATISTICS)),
            "statistic": np.tile(names, len(ids)),
            "value": np.concatenate([overall, per_topic.ravel()]),
            "ci_low": np.concatenate([o_low, p_low.ravel()]),
            "ci_high": np.concatenate([o_high, p_high.ravel()]),
            "defined": np.concatenate([o_defined, p_defined.ravel()]).astype(np.int64)}))
        coverage.append(cov)
        confusions[alt], topics[alt], categories[alt] = conf, alt_topics, cats

    notes = []
    if single:
        notes.append(f"{single} (alternative, topic) comparison(s) have a single grade on all their shared pairs in "
                     "both qrels: kappa and alpha are undefined (NaN) there, exact agreement is 1")
    if partial:
        notes.append(f"{partial} comparison(s) had bootstrap replicates with a single grade, left out of their "
                     "intervals (column 'defined' of .statistics counts the replicates used)")
    if lone:
        notes.append(f"alternative(s) {lone} share pairs with {ref_name} on one topic only: the overall interval, "
                     "which resamples topics, is NaN (see the topic's own interval)")
    if notes:
        warnings.warn("; ".join(notes), UndefinedStatisticWarning, stacklevel=2)
    return LabelAgreement(statistics=pd.concat(stat_rows, ignore_index=True),
                          coverage=pd.concat(coverage, ignore_index=True), confusions=confusions, topics=topics,
                          categories=categories, reference=ref_name, alternatives=list(alternatives), level=float(level),
                          trials=trials, seed=seed)
