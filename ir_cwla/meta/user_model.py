"""The user model fitted to the users: each browsing model's parameter chosen by agreement with the ratings.

A browsing model with a parameter (RBP's persistence p, INST's expected goal T, DCG's and P's
cut-off k) is a family of user models; a satisfaction study can say which member agrees best with
its users. :func:`fit_user_model` scores the result pages the users rated (``qid, rank, gain``,
:func:`ir_cwla.score_gains`) under every aggregation of each model at each of a grid of parameter
values, and gives

- the agreement (one correlation ``statistic`` with the ratings, :mod:`ir_cwla.meta.satisfaction`)
  as a function of the parameter, one curve per aggregation, with a pointwise percentile band from
  the bootstrap of the users (or of the rated units, where the ratings name no users): every grid
  point is scored on the same replicates;
- the fitted value: the grid value where the agreement over all users is largest (the smallest such
  value where several tie), and an interval for it by cross-validation over users: the users are
  split into ``folds`` folds at random, ``repeats`` times; on each split the value is fitted on the
  users of all folds but one and the agreement at that value measured on the users of the fold
  left out. The interval is the percentile interval of the ``folds x repeats`` fitted values; the
  held-out agreement (its mean over the folds) says how well the fit carries to users it has not
  seen. Every split, fold and repeat is reported, not one.

Streams: the bootstrap draws as :func:`ir_cwla.meta.user_agreement` does, from
``(USER_MODEL_STREAM, 0, chunk)``; repeat ``r`` permutes the sorted users with
``default_rng(SeedSequence(seed, spawn_key=(USER_MODEL_STREAM, 1, r))).permutation`` and deals
them into the folds in turn (user ``i`` of the permutation to fold ``i mod folds``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import streams
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.measures import CWLA
from ir_cwla.measures._browsing import get_browsing_model
from ir_cwla.measures._table1 import TABLE1_AGGREGATIONS
from ir_cwla.meta import correlation, criteria, ratings
from ir_cwla.meta.satisfaction import bootstrap, percentile_interval

#: The browsing models fitted by default, with their parameter and its grid's bounds: a persistence
#: in (0, 1) on a linear grid, an expected goal T on a geometric grid, a cut-off on the whole numbers.
MODELS: dict[str, tuple[str, str, float, float]] = {
    "RBP": ("p", "linear", 0.05, 0.99),
    "INST": ("T", "geometric", 0.25, 100.0),
    "DCG": ("cutoff", "ranks", 1, 20),
    "P": ("cutoff", "ranks", 1, 20),
}


def grid(model: str, points: int = 20, depth: Optional[int] = None) -> np.ndarray:
    """The parameter values of ``model`` swept (:data:`MODELS`); cut-offs up to ``depth`` (the pages' length)."""
    param, kind, low, high = MODELS[model]
    if kind == "linear":
        return np.round(np.linspace(low, high, points), 6)
    if kind == "geometric":
        return np.round(np.geomspace(low, high, points), 6)
    top = int(high if depth is None else min(high, depth))
    return np.unique(np.round(np.linspace(low, top, min(points, top))).astype(np.int64)).astype(np.float64)


def measure_of(model: str, aggregation: str, value: float, cutoff: int) -> Any:
    """The C/W/L/A measure of ``model`` at parameter ``value`` (cut-off ``cutoff`` unless it is the parameter)."""
    param = MODELS[model][0]
    if param == "cutoff":
        return CWLA(C=model, A=aggregation) @ int(value)
    return CWLA(C=model, A=aggregation, **{param: float(value)}) @ cutoff


@dataclass
class UserModelFit:
    """What :func:`fit_user_model` found.

    ``curves``: ``{model: frame}`` with one row per (aggregation, value): ``agreement``, ``low``,
    ``high``; ``fits``: one row per (model, aggregation) (:meth:`table`); ``folds_table``: every
    split's fitted value and held-out agreement.
    """

    curves: dict[str, pd.DataFrame]
    fits: pd.DataFrame
    folds_table: pd.DataFrame
    parameters: dict[str, str]
    statistic: str
    level: float
    trials: int
    folds: int
    repeats: int
    units: int
    users: int
    log_scale: dict[str, bool]

    def describe(self) -> str:
        """What was fitted, how, in one sentence."""
        return (f"{self.statistic} with the ratings of {self.units} rated queries of {self.users} users; "
                f"{self.level:.0%} bootstrap bands ({self.trials} replicates); fitted values' intervals from "
                f"{self.repeats} x {self.folds}-fold cross-validation over users")

    def table(self) -> pd.DataFrame:
        """One row per (model, aggregation) fitted.

        ``parameter``, ``fitted``, ``agreement`` (at the fitted value, all users) with ``low``/``high``,
        ``edge`` (the fit is an end of the grid: the best value may lie beyond it),
        ``cv_low``/``cv_median``/``cv_high`` (the fitted values of the folds) and ``held_out`` (the
        mean agreement on the users left out).
        """
        out = self.fits.copy()
        out.attrs["note"] = self.describe()
        return out

    def plot(self, **kwargs: Any):
        """Agreement against the parameter, one line per aggregation (:func:`ir_cwla.meta.users_plots.plot_parameter_fit`)."""
        from ir_cwla.meta.users_plots import plot_parameter_fit

        return plot_parameter_fit(self, **kwargs)


def _argmax(values: np.ndarray) -> np.ndarray:
    """Per row, the first column of the largest finite value (-1 where none is finite)."""
    filled = np.where(np.isfinite(values), values, -np.inf)
    out = np.argmax(filled, axis=-1)
    return np.where(np.isfinite(filled).any(axis=-1), out, -1)


def fit_user_model(gains: pd.DataFrame, satisfaction: Any, *, models: Sequence[str] = ("RBP", "INST", "DCG"),
                   aggregations: Sequence[str] = TABLE1_AGGREGATIONS, points: int = 20, cutoff: int = 10,
                   statistic: str = "pearson", trials: int = 2000, level: float = 0.95, folds: int = 5,
                   repeats: int = 10, seed: streams.Seed = 0) -> UserModelFit:
    """Each browsing model's parameter fitted to the users' ratings (see the module docstring).

    Parameters
    ----------
    gains : DataFrame
        The rated result pages (``qid, rank, gain``; :func:`ir_cwla.score_gains`).
    satisfaction : DataFrame or path
        The ratings (``qid, rating``, ideally ``user``: the folds and the bootstrap are over users).
    models, aggregations
        The browsing models of :data:`MODELS` to fit, and the aggregations of each (those that are
        constant under a model, A = ERR with a model that ignores the gains, are left out).
    points : int
        Grid points per model (:func:`grid`; a cut-off's grid stops at the pages' length).
    cutoff : int
        The cut-off of the models whose parameter is not one.
    statistic : {'pearson', 'spearman', 'kendall'}
        The agreement fitted.
    trials, level, folds, repeats, seed
        Bootstrap replicates and band level; cross-validation folds and repeats; the seed.
    """
    from ir_cwla.provider import check_pages, score_gains

    trials = streams.check_trials(trials)
    if statistic not in correlation.STATISTICS:
        raise ParameterError(f"statistic={statistic!r}; choose from {', '.join(correlation.STATISTICS)}")
    unknown = [m for m in models if m not in MODELS]
    if unknown or not models:
        raise ParameterError(f"models: {', '.join(map(repr, unknown)) or 'none given'}; fit any of {', '.join(MODELS)}")
    if not (isinstance(points, int) and points >= 2):
        raise ParameterError(f"points={points!r} must be an int >= 2")
    if not (isinstance(folds, int) and folds >= 2) or not (isinstance(repeats, int) and repeats >= 1):
        raise ParameterError(f"folds={folds!r} must be an int >= 2 and repeats={repeats!r} an int >= 1")
    depth = int(check_pages(gains)["rank"].max())
    plan: list[tuple[str, str, float, Any]] = []
    for model in models:
        constant = not get_browsing_model(model).gain_dependent
        for aggregation in aggregations:
            if aggregation == "ERR" and constant:
                continue
            for value in grid(model, points, depth):
                plan.append((model, aggregation, float(value), measure_of(model, aggregation, value, cutoff)))
    per_query = score_gains(gains, [m for *_, m in plan])
    names = [str(m) for *_, m in plan]
    units = ratings.join(per_query, ratings.read_ratings(satisfaction), names)
    points_est = correlation.clustered(np.ones((1, units.n_clusters)), units.clusters, units.scores, units.ratings,
                                       (statistic,))[statistic][0]
    reps = bootstrap(units.scores, units.ratings, units.clusters, trials, seed, (statistic,),
                     stream=streams.USER_MODEL_STREAM, part=0)[statistic]
    low, high, _ = percentile_interval(reps, level)
    n_users = units.n_clusters
    if n_users < folds:
        raise DataError(f"{n_users} {units.cluster}: {folds}-fold cross-validation needs at least {folds}")
    # the folds: repeat r deals the users, in a random order, into the folds in turn
    membership = []
    for r in range(repeats):
        order = np.random.default_rng(streams.derive(seed, streams.USER_MODEL_STREAM, 1, r)).permutation(n_users)
        fold_of = np.empty(n_users, dtype=np.int64)
        fold_of[order] = np.arange(n_users) % folds
        membership.append(fold_of)
    fold_of_all = np.stack(membership)                                   # (repeats, users)
    train = np.concatenate([(f != k) for f in fold_of_all for k in range(folds)]).reshape(-1, n_users)
    test = ~train
    train_stat = correlation.clustered(train.astype(np.float64), units.clusters, units.scores, units.ratings,
                                       (statistic,))[statistic]
    test_stat = correlation.clustered(test.astype(np.float64), units.clusters, units.scores, units.ratings,
                                      (statistic,))[statistic]
    curves: dict[str, pd.DataFrame] = {}
    fits, fold_rows = [], []
    frame = pd.DataFrame(plan, columns=["model", "aggregation", "value", "measure"])
    frame = frame.assign(agreement=points_est, low=low, high=high, column=np.arange(len(plan)))
    for model in models:
        curves[model] = frame[frame["model"] == model].drop(columns=["measure", "column"]).reset_index(drop=True)
        for aggregation, line in frame[frame["model"] == model].groupby("aggregation", sort=False):
            cols = line["column"].to_numpy()
            values = line["value"].to_numpy()
            best = _argmax(points_est[cols][None, :])[0]
            fitted = _argmax(train_stat[:, cols])
            held = np.where(fitted >= 0, test_stat[np.arange(len(fitted)), cols[np.maximum(fitted, 0)]], np.nan)
            fitted_values = np.where(fitted >= 0, values[np.maximum(fitted, 0)], np.nan)
            q = np.nanquantile(fitted_values, [(1 - level) / 2, 0.5, (1 + level) / 2])
            fits.append({"model": model, "aggregation": aggregation, "parameter": MODELS[model][0],
                         "fitted": values[best] if best >= 0 else np.nan,
                         "agreement": points_est[cols][best] if best >= 0 else np.nan,
                         "low": low[cols][best] if best >= 0 else np.nan, "high": high[cols][best] if best >= 0 else np.nan,
                         "edge": bool(best in (0, len(values) - 1)),
                         "cv_low": q[0], "cv_median": q[1], "cv_high": q[2], "held_out": float(np.nanmean(held)),
                         "measure": names[cols[best]] if best >= 0 else ""})
            for split, (v, h) in enumerate(zip(fitted_values, held)):
                fold_rows.append({"model": model, "aggregation": aggregation, "repeat": split // folds,
                                  "fold": split % folds, "fitted": v, "held_out": h})
    return UserModelFit(curves, pd.DataFrame(fits), pd.DataFrame(fold_rows),
                        {m: MODELS[m][0] for m in models}, statistic, level, trials, folds, repeats,
                        len(units.ratings), n_users, {m: MODELS[m][1] == "geometric" for m in models})


# -- the criterion ------------------------------------------------------------------------------

def _section(result: UserModelFit, summary: pd.DataFrame) -> list:
    return [criteria.Text(f"Each browsing model's parameter fitted to the users: {result.describe()}."),
            criteria.Figure(result.plot, "agreement with the users against each model's parameter, one line per "
                            "aggregation", "user_model_fit.png"),
            criteria.Table(summary, "the fitted parameters", "user_model_fit.csv")]


def _compute(inputs: criteria.Inputs, trials: int, statistic: str, level: float, points: int, folds: int,
             repeats: int) -> UserModelFit:
    return fit_user_model(inputs.gains, inputs.satisfaction, trials=trials, statistic=statistic, level=level,
                          points=points, folds=folds, repeats=repeats, seed=inputs.seed)


def _whole(least: int):
    def check(value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise ParameterError(f"{where}: {value!r} must be a whole number >= {least}")
        return int(value)
    return check


def _options() -> tuple[criteria.Option, ...]:
    from ir_cwla.meta.satisfaction import CRITERION as USERS

    shared = {o.name: o for o in USERS.options}
    return (shared["trials"], shared["statistic"], shared["level"],
            criteria.Option("points", 20, "grid points per browsing model", cli="fit_points",
                            check=_whole(2), metavar="N"),
            criteria.Option("folds", 5, "cross-validation folds over users", cli="fit_folds",
                            check=_whole(2), metavar="K"),
            criteria.Option("repeats", 10, "repeats of the cross-validation", cli="fit_repeats",
                            check=_whole(1), metavar="R"))


CRITERION = criteria.register_criterion(criteria.Criterion(
    "user_model_fit", "the user model fitted to users",
    "Which parameter of each browsing model (RBP's p, INST's T, DCG's cut-off) agrees best with the users?",
    compute=_compute, summary=lambda result, inputs, **options: result.table(), section=_section,
    needs=("satisfaction", "gains"), options=_options(), precision=3, per_measure=False, order=82), replace=True)
