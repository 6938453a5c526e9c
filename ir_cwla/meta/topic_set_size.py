"""Topic set size design (Sakai 2016; Sakai 2018, Ch. 6).

Topic set size design (Sakai 2016, "Topic set size design", Information Retrieval Journal
19(3):256-283; Sakai 2018, *Laboratory Experiments in IR*, Ch. 6): how many topics a test
collection needs to meet a statistical requirement, from the variance of a measure.

The variance is the within-system variance ``sigma^2``, estimated as Sakai does by the
residual variance ``V_E`` of the two-way ANOVA without replication of a past topics x systems
score matrix (:func:`ir_cwla.analysis.anova.residual_variance`). For paired data the variance
of a score difference is taken as ``sigma_t^2 = 2 sigma^2`` (Sakai 2016, Sec. 3.1: the
covariance is ignored, which errs on the safe side).

1. **Paired t-test** (Sakai's ``samplesizeTTEST2``; Nagata 2003): the smallest ``n`` for which
   the two-sided paired t-test at level ``alpha`` detects a difference ``minD``
   (``minDt = minD / sigma_t``) with probability at least ``1 - beta``. Start from

       n0 = ((z_{alpha/2} + z_beta) / minDt)^2 + z_{alpha/2}^2 / 2

   and search ``n`` around it with the power of the t-test, either exactly (noncentral t,
   ``method='exact'``, the default: ``P(|t'(n-1, sqrt(n) minDt)| >= t_{alpha/2, n-1})``) or
   with Nagata's normal approximation of the noncentral t that Sakai's Excel tool uses
   (``method='sakai'``): with ``w = t_{alpha/2, n-1}``, ``phi = n - 1``, ``lambda = sqrt(n) minDt``,

       power = Phi((-w (1 - 1/(4 phi)) - lambda) / sqrt(1 + w^2/(2 phi)))
               + 1 - Phi((w (1 - 1/(4 phi)) - lambda) / sqrt(1 + w^2/(2 phi))).

2. **One-way ANOVA over m systems** (``samplesizeANOVA2``): the smallest ``n`` for which the
   one-way ANOVA at level ``alpha`` detects, with probability ``1 - beta``, any ``m`` system means
   whose largest and smallest differ by ``minD`` (the least favourable configuration, with the
   other means half-way: noncentrality ``lambda = n minD^2 / (2 sigma^2)``). The power is that
   of the noncentral F with ``phi_A = m - 1`` and ``phi_E = m (n - 1)`` degrees of freedom,
   exactly (``'exact'``) or by the normal approximation of Sakai's tool (``'sakai'``):
   ``c_A = (phi_A + 2 lambda)/(phi_A + lambda)``, ``phi_A* = (phi_A + lambda)^2/(phi_A + 2 lambda)``,
   ``u = (sqrt(w/phi_E) sqrt(2 phi_E - 1) - sqrt(c_A/phi_A) sqrt(2 phi_A* - 1)) /
   sqrt(c_A/phi_A + w/phi_E)`` with ``w = F_{alpha}(phi_A, phi_E)``, power ``1 - Phi(u)``.
   The search starts from ``n0 = lambda0 / (minD^2 / (2 sigma^2))`` with Nagata's
   ``lambda0 = x1 + x2 sqrt(m - 1)`` (:data:`NAGATA_LAMBDA`, Sakai 2018, Table 6.4).

3. **Confidence interval width** (``samplesizeCI2``): the smallest ``n`` for which the expected
   width of the ``1 - alpha`` t interval of a paired mean difference is at most ``delta``:

       2 t_{alpha/2, n-1} E[s] / sqrt(n) <= delta,   E[s] = sigma_t sqrt(2/(n-1)) Gamma(n/2) / Gamma((n-1)/2),

   starting from ``n0 = 4 z_{alpha/2}^2 sigma_t^2 / delta^2``.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.analysis import naming
from ir_cwla.analysis.anova import residual_variance
from ir_cwla.analysis.frame import Groups, TopicPolicy, check_alpha, resolve_groups, to_cube
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.meta import criteria

Method = Literal["exact", "sakai"]
METHODS = ("exact", "sakai")
#: Nagata's constants ``(x1, x2)`` of ``lambda ~ x1 + x2 sqrt(phi_A)`` by ``(alpha, beta)`` (Sakai 2018, Table 6.4).
NAGATA_LAMBDA: dict[tuple[float, float], tuple[float, float]] = {
    (0.01, 0.1): (10.439, 5.213), (0.01, 0.2): (7.736, 4.551), (0.01, 0.3): (6.030, 4.077),
    (0.01, 0.4): (4.733, 3.675), (0.01, 0.5): (3.653, 3.302),
    (0.05, 0.1): (7.049, 4.244), (0.05, 0.2): (4.860, 3.584), (0.05, 0.3): (3.522, 3.112),
    (0.05, 0.4): (2.543, 2.712), (0.05, 0.5): (1.765, 2.341),
}
#: Designs never go beyond this many topics (a bound for the searches).
MAX_TOPICS = 10_000_000


def _check(alpha: float, beta: Optional[float], method: str, positive: dict[str, float]) -> None:
    check_alpha(alpha)
    if beta is not None and (isinstance(beta, bool) or not isinstance(beta, (int, float, np.floating))
                             or not 0 < beta < 1):
        raise ParameterError(f"beta (1 - power) must lie in (0, 1), got {beta!r}")
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    for name, value in positive.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not value > 0 \
                or not math.isfinite(value):
            raise ParameterError(f"{name} must be a positive number, got {shown(value)}")


def _smallest(ok, start: float, what: str, low: int = 2) -> int:
    """The smallest ``n >= low`` with ``ok(n)`` (``ok`` monotone in ``n``), searched from ``start``.

    Doubling steps away from it, then bisection. Beyond :data:`MAX_TOPICS` (a start estimate
    above it, even infinite, or a search past it) a :class:`DataError` saying so, ``what`` naming
    the design.
    """
    if not start <= MAX_TOPICS:                 # (NaN and infinity too: minD tiny, beta close to 0)
        raise DataError(f"{what}: more than {MAX_TOPICS:,} topics would be needed "
                        "(ir_cwla.meta.topic_set_size.MAX_TOPICS)")
    n = max(low, math.ceil(start))
    if ok(n):
        hi, step = n, 1
        while hi - step >= low and ok(hi - step):
            hi, step = hi - step, step * 2
        lo = max(low - 1, hi - step)             # not ok (or below low)
    else:
        lo, step = n, 1
        while not ok(lo + step):
            lo, step = lo + step, step * 2
            if lo > MAX_TOPICS:
                raise DataError(f"{what}: more than {MAX_TOPICS:,} topics would be needed "
                                "(ir_cwla.meta.topic_set_size.MAX_TOPICS)")
        hi = lo + step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def t_test_power(n: int, min_dt: float, alpha: float, method: Method = "exact") -> float:
    """Power of the two-sided paired t-test with ``n`` topics for effect size ``minDt``."""
    from scipy import stats

    phi = n - 1
    w = float(stats.t.ppf(1.0 - alpha / 2.0, phi))
    lam = math.sqrt(n) * min_dt
    if method == "exact":
        return float(stats.nct.sf(w, phi, lam) + stats.nct.cdf(-w, phi, lam))
    norm = math.sqrt(1.0 + w * w / (2.0 * phi))
    corr = 1.0 - 1.0 / (4.0 * phi)
    return float(stats.norm.cdf((-w * corr - lam) / norm) + 1.0 - stats.norm.cdf((w * corr - lam) / norm))


def topics_for_t_test(sigma2: float, min_d: float, alpha: float = 0.05, beta: float = 0.20, *,
                      method: Method = "exact", paired_variance: bool = True) -> int:
    """Topics needed by a paired t-test (module docstring, 1).

    Parameters
    ----------
    sigma2 : within-system variance ``sigma^2`` (``V_E``); with ``paired_variance=False`` it is
        taken as the variance of the differences ``sigma_t^2`` itself.
    min_d : minimum detectable difference ``minD`` in the measure's units.
    alpha, beta : significance level and Type II error rate (power ``1 - beta``).
    method : ``'exact'`` (noncentral t) or ``'sakai'`` (Nagata's approximation, Sakai's Excel tool).
    """
    _check(alpha, beta, method, {"sigma2": sigma2, "min_d": min_d})
    from scipy import stats

    sigma_t = math.sqrt(2.0 * sigma2 if paired_variance else sigma2)
    min_dt = min_d / sigma_t
    z_a, z_b = stats.norm.ppf(1.0 - alpha / 2.0), stats.norm.ppf(1.0 - beta)
    ratio, z_a = float((z_a + z_b) / min_dt), float(z_a)
    start = ratio * ratio + z_a * z_a / 2.0       # (a product: infinity where ** would overflow)
    return _smallest(lambda n: t_test_power(n, min_dt, alpha, method) >= 1.0 - beta, start,
                     f"a paired t-test detecting minD = {min_d:g} at alpha = {alpha:g} with power 1 - {beta:g}")


def anova_power(n: int, m: int, min_d: float, sigma2: float, alpha: float, method: Method = "exact") -> float:
    """Power of the one-way ANOVA over ``m`` systems with ``n`` topics each (module docstring, 2)."""
    from scipy import stats

    phi_a, phi_e = m - 1, m * (n - 1)
    lam = n * min_d ** 2 / (2.0 * sigma2)
    w = float(stats.f.ppf(1.0 - alpha, phi_a, phi_e))
    if method == "exact":
        return float(stats.ncf.sf(w, phi_a, phi_e, lam))
    c_a = (phi_a + 2.0 * lam) / (phi_a + lam)
    phi_star = (phi_a + lam) ** 2 / (phi_a + 2.0 * lam)
    u = (math.sqrt(w / phi_e) * math.sqrt(2.0 * phi_e - 1.0) - math.sqrt(c_a / phi_a) * math.sqrt(2.0 * phi_star - 1.0)) \
        / math.sqrt(c_a / phi_a + w / phi_e)
    return float(1.0 - stats.norm.cdf(u))


def topics_for_anova(sigma2: float, min_d: float, m: int, alpha: float = 0.05, beta: float = 0.20, *,
                     method: Method = "exact") -> int:
    """Topics needed by a one-way ANOVA over ``m`` systems to detect a range ``minD`` (module docstring, 2)."""
    _check(alpha, beta, method, {"sigma2": sigma2, "min_d": min_d})
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
        raise ParameterError(f"m (systems) must be an int >= 2, got {m!r}")
    delta = min_d ** 2 / (2.0 * sigma2)
    constants = NAGATA_LAMBDA.get((round(alpha, 6), round(beta, 6)))
    if constants is None:               # a rough start outside Table 6.4; the search corrects it
        from scipy import stats
        lam0 = (stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(1 - beta)) ** 2 + 2.0 * math.sqrt(m - 1)
    else:
        lam0 = constants[0] + constants[1] * math.sqrt(m - 1)
    start = float(lam0) / delta if delta > 0 else math.inf
    return _smallest(lambda n: anova_power(n, int(m), min_d, sigma2, alpha, method) >= 1.0 - beta, start,
                     f"a one-way ANOVA detecting minD = {min_d:g} at alpha = {alpha:g} with power 1 - {beta:g}")


def ci_half_width(n: int, sigma2: float, alpha: float, paired_variance: bool = True) -> float:
    """Expected half width ``t_{alpha/2, n-1} E[s] / sqrt(n)`` of the t interval of a mean difference."""
    from scipy import special, stats

    sigma_t = math.sqrt(2.0 * sigma2 if paired_variance else sigma2)
    e_s = sigma_t * math.sqrt(2.0 / (n - 1)) * math.exp(special.gammaln(n / 2.0) - special.gammaln((n - 1) / 2.0))
    return float(stats.t.ppf(1.0 - alpha / 2.0, n - 1) * e_s / math.sqrt(n))


def topics_for_ci(sigma2: float, width: float, alpha: float = 0.05, *, paired_variance: bool = True) -> int:
    """Topics needed for the expected width of the ``1 - alpha`` interval to be at most ``width``."""
    _check(alpha, None, "exact", {"sigma2": sigma2, "width": width})
    from scipy import stats

    sigma_t2 = 2.0 * sigma2 if paired_variance else sigma2
    start = 4.0 * float(stats.norm.ppf(1.0 - alpha / 2.0)) ** 2 * sigma_t2 / width ** 2 if width ** 2 > 0 else math.inf
    return _smallest(lambda n: 2.0 * ci_half_width(n, sigma2, alpha, paired_variance) <= width, start,
                     f"an interval of expected width {width:g} at level {1 - alpha:g}")


def topic_set_sizes(per_query: pd.DataFrame, min_d: float = 0.10, *, m: Optional[int] = None,
                    width: Optional[float] = None, alpha: float = 0.05, beta: float = 0.20,
                    method: Method = "exact", measures: Optional[Sequence[str]] = None,
                    topics: TopicPolicy = "strict") -> pd.DataFrame:
    """Topic set size design for every measure of a per-query frame: which needs the fewest topics.

    For each measure, ``sigma^2 = V_E`` of its topics x systems matrix (two-way ANOVA without
    replication), then the topics a paired t-test (``n_t_test``), a one-way ANOVA over ``m``
    systems (``n_anova``; default ``m`` = the systems of the frame) and an interval of expected
    width ``width`` (``n_ci``; default ``width = minD``) need, at the same ``alpha``, ``beta``
    and ``minD`` for every measure (Sakai 2016 compares measures this way).

    Returns one row per measure, sorted by ``n_t_test`` then measure (the measure needing the
    fewest topics first): ``measure, sigma2, df, n_t_test, n_anova, n_ci``; ``attrs`` holds the
    requirements.
    """
    cube = to_cube(per_query, topics)
    if measures is not None:
        missing = [str(x) for x in measures if str(x) not in cube.measures]
        if missing:
            raise ParameterError(f"measures {missing} are not in the frame")
        cube = cube.select([str(x) for x in measures])
    m = len(cube.systems) if m is None else m
    width = min_d if width is None else width
    rows = []
    for k, name in enumerate(cube.measures):
        v_e, df = residual_variance(cube.values[k])
        if v_e <= 0:
            raise DataError(f"measure {name!r} has no residual variance (V_E = 0): no design can be made from it")
        rows.append({"measure": name, "sigma2": v_e, "df": df,
                     "n_t_test": topics_for_t_test(v_e, min_d, alpha, beta, method=method),
                     "n_anova": topics_for_anova(v_e, min_d, m, alpha, beta, method=method),
                     "n_ci": topics_for_ci(v_e, width, alpha)})
    out = pd.DataFrame(rows).sort_values(["n_t_test", "measure"], kind="stable").reset_index(drop=True)
    out.attrs.update({"min_d": min_d, "m": m, "width": width, "alpha": alpha, "beta": beta, "method": method,
                      "n_topics": len(cube.topics), "n_systems": len(cube.systems)})
    return out


# -- the criterion ------------------------------------------------------------------------------

@dataclass
class TopicSetSize:
    """The topic set size design of every measure (:func:`topic_set_sizes`), by family."""

    sizes: pd.DataFrame                     # topic_set_sizes(...): one row per measure
    groups: dict[Hashable, list[str]]
    labels: dict[str, str]

    def table(self) -> pd.DataFrame:
        """One row per measure: the topics each statistical requirement needs.

        One row per measure, the measures of each family by the topics a paired t-test needs
        (fewest first): ``group, measure`` (its label), ``sigma2, df, n_t_test, n_anova, n_ci``.
        """
        by_name = self.sizes.set_index("measure")
        parts = []
        for group, members in self.groups.items():
            ordered = sorted(members, key=lambda m: (by_name.at[m, "n_t_test"], naming.order_key(m)))
            part = by_name.loc[ordered].reset_index()
            part["measure"] = [self.labels.get(m, m) for m in ordered]
            part.insert(0, "group", group)
            parts.append(part)
        out = pd.concat(parts, ignore_index=True)
        out.attrs.update(self.sizes.attrs)
        return out

    def plot(self, **kwargs: Any) -> Any:
        """Bars of the topics each measure needs (paired t-test), one panel per family."""
        from ir_cwla.meta.plots import plot_topic_set_sizes

        return plot_topic_set_sizes(self, **kwargs)


def topic_set_size(per_query: pd.DataFrame, min_d: float = 0.10, *, beta: float = 0.20, alpha: float = 0.05,
                   groups: Groups = None, labels: naming.Labels = None, topics: TopicPolicy = "strict",
                   method: Method = "exact") -> TopicSetSize:
    """:func:`topic_set_sizes` of every measure of a per-query frame, by family.

    Which measure of each family needs the fewest topics to detect a difference of ``min_d``
    (paired t-test, power ``1 - beta`` at level ``alpha``), as Sakai (2016) compares measures.
    """
    sizes = topic_set_sizes(per_query, min_d, alpha=alpha, beta=beta, method=method, topics=topics)
    measures = naming.measure_order(sizes["measure"])
    return TopicSetSize(sizes, resolve_groups(measures, groups), naming.resolve_labels(measures, labels))


def _section(result: TopicSetSize, summary: pd.DataFrame) -> list:
    a = result.sizes.attrs
    return [criteria.Text(f"Topic set size design (Sakai 2016): from each measure's residual variance V_E (two-way "
                          f"ANOVA without replication over these {a['n_topics']} topics and {a['n_systems']} "
                          f"systems), the topics a paired t-test needs to detect a difference of {a['min_d']:g} "
                          f"with power {1 - a['beta']:g} at alpha = {a['alpha']:g}; also a one-way ANOVA over "
                          f"{a['m']} systems and a {1 - a['alpha']:.0%} interval of width {a['width']:g}. Fewer "
                          "topics: a more efficient measure (the same difference is relative to each measure's "
                          "own scale)."),
            criteria.Figure(result.plot, "topics a paired t-test needs, per measure", "topic_set_size.png"),
            criteria.Table(summary, "topics needed per measure (fewest first within each family)",
                           "topic_set_size.csv")]


def _check_positive(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < math.inf):
        raise ParameterError(f"{what} must be a finite number > 0, got {shown(value)}")
    return float(value)


def _check_beta(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < 1):
        raise ParameterError(f"{what} must lie in (0, 1), got {shown(value)}")
    return float(value)


CRITERION = criteria.register_criterion(criteria.Criterion(
    "topic_set_size", "topic set size",
    "How many topics does a measure need to detect a given difference between two systems (Sakai 2016)?",
    compute=lambda inputs, min_d, beta: topic_set_size(inputs.per_query, min_d, beta=beta, alpha=inputs.alpha,
                                                       groups=inputs.groups),
    summary=lambda result, inputs, **options: result.table(), section=_section, precision=4, best=("n_t_test", False), order=35,
    options=(criteria.Option("min_d", 0.10, "topic set size: the smallest difference to detect", cli="min_diff",
                             check=_check_positive),
             criteria.Option("beta", 0.20, "topic set size: 1 - the power of the test", check=_check_beta))),
    replace=True)
