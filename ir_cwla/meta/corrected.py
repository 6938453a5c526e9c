"""Systems' scores from cheap labels, corrected by a few human ones (prediction-powered inference).

Human relevance labels on part of the topics, cheap labels (an LLM's, a crowd's) on all of them:
:func:`corrected_scores` gives each system's mean score with a confidence interval that uses
the human-labelled part to correct the cheap labels' bias. It is prediction-powered inference
(PPI; Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023, "Prediction-powered inference",
*Science* 382) for a mean, applied to the per-topic scores of an IR measure as Oosterhuis,
Jagerman, Qin, Wang & Bendersky (2024, "Reliable confidence intervals for information retrieval
evaluation using generative A.I.", KDD) do: the unit is a topic, ``Y_t`` a system's score on
topic ``t`` under the human labels, ``f_t`` its score under the cheap labels. With ``L`` the ``n``
labelled topics and ``U`` the other ``N`` topics (the cheap labels only)::

    theta_PP = mean_{t in U} f_t + mean_{t in L} (Y_t - f_t)          (imputed mean + rectifier)
    se       = sqrt( var_U(f) / N + var_L(Y - f) / n )                (variances with ddof = 0)
    interval = theta_PP -+ z_{1 - alpha/2} se

(the variances divide by ``N`` and ``n``, as the paper's estimator and its reference code
``ppi_py.ppi_mean_ci`` with ``lam=1`` do). ``power_tuning=True`` weighs the cheap labels by
PPI++'s ``lambda`` (Angelopoulos, Duchi & Zrnic 2023; :func:`power_tuned_lambda`), estimated per
system and measure: ``mean_U(lambda f) + mean_L(Y - lambda f)`` (``lambda = 0`` is the classical
estimate), which helps where the cheap labels are noisy. Beside it, the table gives the **classical** interval
from the labelled topics alone (``mean_L Y -+ z sd_L(Y) / sqrt(n)``, ddof = 0 likewise) and the
**cheap** mean over every topic (no interval: its bias is what PPI corrects). The labelled topics
must be a uniform random sample of the topics for the guarantee to hold.

**Validation** (:func:`validate_corrected`). Where both labels exist for every topic, each of
``repetitions`` repetitions hides the human scores of a random share of the topics (``n =
round((1 - share) T)`` topics keep them, at least 2, at most ``T - 1``), estimates every
system's score, and checks whether each interval covers the full human score (the mean over all
``T`` topics). Reported per share and measure: the coverage of the PPI and the classical
intervals over the (repetition, system) cells with its binomial standard error, their mean
widths, and the mean absolute error of the PPI estimate, the classical estimate and the cheap
mean. Repetition ``r`` of chunk ``c`` draws ``streams.permutations(rng, (chunk,), T)`` from
``default_rng(SeedSequence(seed, spawn_key=(CORRECTED_STREAM, share_index, c)))``; the first
``n`` topics of the permutation are the labelled ones.

**Labels as units** (:func:`label_units`). The same estimator applies to means of the labels
themselves (the share of relevant pairs, the mean grade), the unit being a judged pair: e.g.
TREC DL 2023's NIST and GPT-4 grades of the same 22,327 pairs, where no run file is at hand.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming, streams
from ir_cwla.analysis.frame import Groups, check_alpha, long_frame, resolve_groups, to_cube
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.io import as_qrels_frame
from ir_cwla.meta import twosets


# -- kernels (numpy in, numpy out) ------------------------------------------------------------------
def power_tuned_lambda(y_labelled: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray) -> np.ndarray:
    """PPI++'s weight of the cheap labels, per estimand: ``lambda = cov_L(Y, f) / ((1 + n / N) var(f))``, in [0, 1].

    ``cov_L`` over the ``n`` labelled units (dividing by ``n``), ``var`` over all ``n + N`` units
    (dividing by ``n + N - 1``), clipped to [0, 1] (Angelopoulos, Duchi & Zrnic 2023, "PPI++:
    efficient prediction-powered inference"; ``ppi_py.ppi_mean_ci(lam=None)`` for a mean).
    """
    n, big_n = y_labelled.shape[-2], f_unlabelled.shape[-2]
    cov = ((y_labelled - y_labelled.mean(axis=-2, keepdims=True))
           * (f_labelled - f_labelled.mean(axis=-2, keepdims=True))).mean(axis=-2)
    var = np.concatenate([f_labelled, f_unlabelled], axis=-2).var(axis=-2, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(var > 0, cov / ((1 + n / big_n) * np.where(var > 0, var, 1.0)), 0.0)
    return np.clip(lam, 0.0, 1.0)


def ppi_mean(y_labelled: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray, level: float,
             lam: Any = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """PPI estimate of a mean, its standard error and interval: ``(estimate, se, low, high)``.

    Units along axis ``-2`` (``(..., n, E)`` labelled, ``(..., N, E)`` unlabelled), estimands along
    the last axis; the formulas of the module docstring, the cheap labels weighted by ``lam`` (1:
    PPI; an array of the estimands' shape: PPI++, :func:`power_tuned_lambda`).
    """
    z = NormalDist().inv_cdf((1 + level) / 2)
    lam = np.asarray(lam, dtype=np.float64)
    weight = lam[..., None, :] if lam.ndim else lam
    rectifier = y_labelled - weight * f_labelled
    imputed = weight * f_unlabelled
    estimate = imputed.mean(axis=-2) + rectifier.mean(axis=-2)
    se = np.sqrt(imputed.var(axis=-2) / imputed.shape[-2] + rectifier.var(axis=-2) / rectifier.shape[-2])
    return estimate, se, estimate - z * se, estimate + z * se


def classical_mean(y_labelled: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The labelled units' mean, its standard error (ddof = 0) and normal interval: ``(mean, se, low, high)``."""
    z = NormalDist().inv_cdf((1 + level) / 2)
    mean = y_labelled.mean(axis=-2)
    se = y_labelled.std(axis=-2) / np.sqrt(y_labelled.shape[-2])
    return mean, se, mean - z * se, mean + z * se


def split_units(order: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``n`` positions of each permutation row (labelled) and the rest (unlabelled)."""
    return order[:, :n], order[:, n:]


# -- the result -----------------------------------------------------------------------------------
@dataclass
class CorrectedScores:
    """Each system's corrected score with its PPI interval, beside the classical and the cheap ones.

    ``scores``: one row per (measure, system): ``labelled`` and ``unlabelled`` topic counts,
    ``human`` (the mean over the labelled topics), ``cheap`` (the cheap labels' mean over every
    topic), ``corrected`` with ``se``, ``low``, ``high`` (PPI), ``classical_se``, ``classical_low``,
    ``classical_high``, ``width_ratio`` (PPI width / classical width) and ``lambda`` (the cheap
    labels' weight: 1, or PPI++'s with ``power_tuning``).
    """

    scores: pd.DataFrame
    measures: list[str]
    systems: list[str]
    labelled: list[str]
    unlabelled: list[str]
    alpha: float
    groups: dict[Hashable, list[str]]
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def level(self) -> float:
        """Level of the intervals: ``1 - alpha``."""
        return 1.0 - self.alpha

    def table(self) -> pd.DataFrame:
        """One row per (measure, system), measures by their labels, in the canonical order."""
        out = self.scores.copy()
        family = {m: g for g, members in self.groups.items() for m in members}
        out.insert(0, "group", out["measure"].map(family))
        return out.assign(measure=out["measure"].map(lambda m: self.labels.get(m, m)))

    def ranking(self, measure: Optional[str] = None) -> pd.DataFrame:
        """The systems of one measure by corrected score, best first (default: the first measure)."""
        chosen = self.measures[0] if measure is None else measure
        by_label = {self.labels.get(m, m): m for m in self.measures}
        key = chosen if chosen in self.measures else by_label.get(chosen)
        if key is None:
            raise ParameterError(f"no measure {chosen!r}; the measures are {list(by_label)}")
        part = self.scores[self.scores["measure"] == key]
        return part.sort_values(["corrected", "system"], ascending=[False, True]).reset_index(drop=True)


@dataclass
class CorrectedValidation:
    """Coverage of the PPI and classical intervals when human labels are hidden (module docstring).

    ``coverage``: one row per (share hidden, measure); ``cells``: per share, the ``(repetitions,
    M, S)`` arrays ``covered_ppi``, ``covered_classical``, ``width_ppi``, ``width_classical``,
    ``error_ppi``, ``error_classical``, ``error_cheap``.
    """

    coverage: pd.DataFrame
    cells: dict[float, dict[str, np.ndarray]]
    measures: list[str]
    shares: list[float]
    repetitions: int
    seed: Any
    alpha: float
    labels: dict[str, str] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """One row per (share hidden, measure), measures by their labels."""
        return self.coverage.assign(measure=self.coverage["measure"].map(lambda m: self.labels.get(m, m)))

    def plot(self, **kwargs: Any):
        """Coverage and width of the PPI and classical intervals against the share of labels hidden."""
        from ir_cwla.meta.judges_plots import plot_corrected_validation

        return plot_corrected_validation(self, **kwargs)


# -- the analyses -------------------------------------------------------------------------------------
def _cubes(human: pd.DataFrame, cheap: pd.DataFrame, measures: Optional[Sequence[Any]]):
    """Cubes of the same systems and measures (human's topics may be fewer than cheap's)."""
    found = [str(m) for m in pd.unique(human["measure"])]
    wanted = twosets.resolve_measures(measures, found) if measures is not None else found
    for what, frame in (("human", human), ("cheap", cheap)):
        held = {str(m) for m in pd.unique(frame["measure"])}
        missing = [m for m in wanted if m not in held]
        if missing:
            raise DataError(f"the {what} scores have no {missing[:5]} (pass measures= to choose the measures both hold)")
    cube_h = to_cube(human[human["measure"].astype(str).isin(wanted)])
    cube_c = to_cube(cheap[cheap["measure"].astype(str).isin(wanted)])
    if cube_h.systems != cube_c.systems:
        differ = sorted(set(cube_h.systems) ^ set(cube_c.systems))
        raise DataError(f"the human and the cheap scores are of different systems (differ in {differ[:5]})")
    return cube_h, cube_c


def corrected_scores(human: pd.DataFrame, cheap: pd.DataFrame, *, labelled: Optional[Sequence[str]] = None,
                     measures: Optional[Sequence[Any]] = None, alpha: float = 0.05, power_tuning: bool = False,
                     groups: Groups = None, labels: naming.Labels = None) -> CorrectedScores:
    """Every system's score from cheap labels, corrected by the human-labelled topics (PPI).

    Parameters
    ----------
    human : per-query frame (``name, qid, measure, value``) of the systems under the human labels,
        on the labelled topics (or more: ``labelled`` picks them).
    cheap : per-query frame of the same systems under the cheap labels, on every topic (the
        labelled ones included: the rectifier compares the two there).
    labelled : the topics whose human scores are used (default: every topic of ``human``); the
        other topics of ``cheap`` are the unlabelled ones.
    measures : the measures (default: those of ``human``).
    alpha : the intervals have level ``1 - alpha``.
    power_tuning : weigh the cheap labels by PPI++'s ``lambda`` (column ``lambda``; default 1: PPI).
    groups, labels : families and display names of the measures.

    Returns
    -------
    :class:`CorrectedScores` (the module docstring gives the estimator).

    Raises
    ------
    DataError: labelled topics the cheap scores lack, fewer than 2 labelled or no unlabelled topic,
    frames of other systems or measures.
    """
    alpha = check_alpha(alpha)
    level = 1.0 - alpha
    cube_h, cube_c = _cubes(human, cheap, measures)
    chosen = sorted({str(t) for t in labelled}) if labelled is not None else list(cube_h.topics)
    absent_h = [t for t in chosen if t not in cube_h.topics]
    absent_c = [t for t in chosen if t not in cube_c.topics]
    if absent_h or absent_c:
        raise DataError(f"labelled topics without human scores {absent_h[:5]} or without cheap scores "
                        f"{absent_c[:5]}: the rectifier needs both on every labelled topic")
    unlabelled = [t for t in cube_c.topics if t not in set(chosen)]
    if len(chosen) < 2:
        raise DataError(f"{len(chosen)} labelled topic(s): the rectifier's variance needs at least 2")
    if not unlabelled:
        raise DataError("every topic of the cheap scores is labelled: there is nothing to correct (the human mean "
                        "is the score)")
    index_h = [cube_h.topics.index(t) for t in chosen]
    index_cl = [cube_c.topics.index(t) for t in chosen]
    index_cu = [cube_c.topics.index(t) for t in unlabelled]
    y, f_l, f_u = cube_h.values[:, index_h], cube_c.values[:, index_cl], cube_c.values[:, index_cu]   # (M, T, S)
    lam = power_tuned_lambda(y, f_l, f_u) if power_tuning else np.ones(y.shape[::2])
    estimate, se, low, high = ppi_mean(y, f_l, f_u, level, lam)
    mean, c_se, c_low, c_high = classical_mean(y, level)
    measures_ = list(cube_h.measures)
    systems = list(cube_h.systems)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (high - low) / (c_high - c_low)
    scores = pd.DataFrame({
        "measure": np.repeat(measures_, len(systems)), "system": np.tile(systems, len(measures_)),
        "labelled": len(chosen), "unlabelled": len(unlabelled), "human": mean.ravel(),
        "cheap": cube_c.values.mean(axis=1).ravel(), "corrected": estimate.ravel(), "se": se.ravel(),
        "low": low.ravel(), "high": high.ravel(), "classical_se": c_se.ravel(), "classical_low": c_low.ravel(),
        "classical_high": c_high.ravel(), "width_ratio": ratio.ravel(), "lambda": lam.ravel()})
    return CorrectedScores(scores=scores, measures=measures_, systems=systems, labelled=chosen, unlabelled=unlabelled,
                           alpha=alpha, groups=resolve_groups(measures_, groups),
                           labels=naming.resolve_labels(measures_, labels))


def check_shares(shares: Any) -> list[float]:
    """Shares of the human labels hidden, each in (0, 1)."""
    values = [shares] if isinstance(shares, (int, float)) else list(shares)
    if not values:
        raise ParameterError("shares: give at least one share of the human labels to hide, in (0, 1)")
    for s in values:
        if isinstance(s, bool) or not isinstance(s, (int, float, np.floating)) or not 0 < s < 1:
            raise ParameterError(f"shares must lie in (0, 1) (the share of the human labels hidden), got {s!r}")
    return [float(s) for s in values]


def validate_corrected(human: pd.DataFrame, cheap: pd.DataFrame, *, shares: Any = (0.5, 0.7, 0.9),
                       repetitions: int = 200, measures: Optional[Sequence[Any]] = None, seed: streams.Seed = 0,
                       alpha: float = 0.05, power_tuning: bool = False,
                       labels: naming.Labels = None) -> CorrectedValidation:
    """Coverage of the corrected scores' intervals when a random share of the human labels is hidden.

    ``human`` and ``cheap``: per-query frames of the same systems on the same topics (both labels
    for every topic); ``shares``: the shares of topics whose human scores are hidden;
    ``repetitions``: random hidings per share; ``power_tuning``: PPI++ (as :func:`corrected_scores`).
    The module docstring gives the protocol and the random streams.
    """
    shares_ = check_shares(shares)
    repetitions = streams.check_trials(repetitions, "repetitions")
    alpha = check_alpha(alpha)
    level = 1.0 - alpha
    root = streams.as_seed_sequence(seed)
    cube_h, cube_c = _cubes(human, cheap, measures)
    if cube_h.topics != cube_c.topics:
        raise DataError(f"validation needs both labels on every topic: the human scores have {len(cube_h.topics)} "
                        f"topics, the cheap ones {len(cube_c.topics)} (differ in "
                        f"{sorted(set(cube_h.topics) ^ set(cube_c.topics))[:5]})")
    n_t = len(cube_h.topics)
    if n_t < 3:
        raise DataError(f"validation needs at least 3 topics (2 labelled, 1 hidden), got {n_t}")
    truth = cube_h.values.mean(axis=1)                                               # (M, S)
    measures_ = list(cube_h.measures)
    rows, cells = [], {}
    cells_shape = truth.shape
    h = np.moveaxis(cube_h.values, 1, 0).reshape(n_t, -1)                            # (T, M * S)
    c = np.moveaxis(cube_c.values, 1, 0).reshape(n_t, -1)
    for i, share in enumerate(shares_):
        n = min(n_t - 1, max(2, int(round((1 - share) * n_t))))
        parts: dict[str, list[np.ndarray]] = {k: [] for k in ("covered_ppi", "covered_classical", "width_ppi",
                                                              "width_classical", "error_ppi", "error_classical",
                                                              "error_cheap")}
        for chunk, size in enumerate(streams.chunk_sizes(repetitions)):
            rng = np.random.default_rng(streams.derive(root, streams.CORRECTED_STREAM, i, chunk))
            order = streams.permutations(rng, (size,), n_t)
            lab, unl = split_units(order, n)
            y, f_l, f_u = h[lab], c[lab], c[unl]                                     # (size, n | N, M * S)
            lam = power_tuned_lambda(y, f_l, f_u) if power_tuning else 1.0
            est, _, low, high = (x.reshape(size, *cells_shape) for x in ppi_mean(y, f_l, f_u, level, lam))
            mean, _, c_low, c_high = (x.reshape(size, *cells_shape) for x in classical_mean(y, level))
            parts["covered_ppi"].append((low <= truth) & (truth <= high))
            parts["covered_classical"].append((c_low <= truth) & (truth <= c_high))
            parts["width_ppi"].append(high - low)
            parts["width_classical"].append(c_high - c_low)
            parts["error_ppi"].append(np.abs(est - truth))
            parts["error_classical"].append(np.abs(mean - truth))
            parts["error_cheap"].append(np.broadcast_to(np.abs(cube_c.values.mean(axis=1) - truth), est.shape))
        done = {k: np.concatenate(v) for k, v in parts.items()}
        cells[share] = done
        cover_p = done["covered_ppi"].mean(axis=(0, 2))
        cover_c = done["covered_classical"].mean(axis=(0, 2))
        count = repetitions * truth.shape[1]
        rows.append(pd.DataFrame({
            "share_hidden": share, "labelled": n, "unlabelled": n_t - n, "measure": measures_,
            "coverage_ppi": cover_p, "coverage_ppi_se": np.sqrt(cover_p * (1 - cover_p) / count),
            "coverage_classical": cover_c, "coverage_classical_se": np.sqrt(cover_c * (1 - cover_c) / count),
            "width_ppi": done["width_ppi"].mean(axis=(0, 2)), "width_classical": done["width_classical"].mean(axis=(0, 2)),
            "error_ppi": done["error_ppi"].mean(axis=(0, 2)), "error_classical": done["error_classical"].mean(axis=(0, 2)),
            "error_cheap": done["error_cheap"].mean(axis=(0, 2)), "repetitions": repetitions,
            "systems": truth.shape[1]}))
    return CorrectedValidation(coverage=pd.concat(rows, ignore_index=True), cells=cells, measures=measures_,
                               shares=shares_, repetitions=repetitions, seed=seed, alpha=alpha,
                               labels=naming.resolve_labels(measures_, labels))


def label_units(human: Any, cheap: Any, thresholds: Sequence[int] = (1, 2, 3)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two qrels of the same pairs as per-query frames whose units are the pairs (module docstring).

    Each judged (topic, doc_id) pair both qrels judge is one unit (``qid`` ``topic/doc_id``); the
    "systems" are the statistics: ``grade>=r`` (1 if the pair's grade is at least ``r``) for each
    threshold, and ``mean grade``; one measure, ``relevance``. Pairs only one qrels judged are an
    error (the estimator needs both labels wherever the human one exists).
    """
    ref = as_qrels_frame(human, name="human")
    other = as_qrels_frame(cheap, name="cheap")
    shared = ref.merge(other, on=["query_id", "doc_id"], how="outer", suffixes=("_h", "_c"), indicator=True)
    lonely = shared[shared["_merge"] != "both"]
    if len(lonely):
        first = lonely.iloc[0]
        raise DataError(f"{len(lonely)} pair(s) are judged by one qrels only, e.g. topic {first['query_id']} doc "
                        f"{first['doc_id']}: label units need both labels of every pair")
    unit = (shared["query_id"].astype(str) + "/" + shared["doc_id"].astype(str)).tolist()
    frames = []
    for suffix in ("_h", "_c"):
        grades = shared["relevance" + suffix].to_numpy(np.float64)
        names, qids, values = [], [], []
        for r in thresholds:
            names += [f"grade>={r}"] * len(unit)
            qids += unit
            values += (grades >= r).astype(np.float64).tolist()
        names += ["mean grade"] * len(unit)
        qids += unit
        values += grades.tolist()
        frames.append(long_frame(names, qids, ["relevance"] * len(names), values))
    return frames[0], frames[1]
