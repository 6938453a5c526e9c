"""Comparing systems: is system A better than B, by how much, and how sure are we (issue 20).

``ir_cwla.compare(per_query, baseline=...)`` -- this package is callable, and calling it is
:func:`ir_cwla.comparison.api.compare` -- tests every pair of systems over the topics of a
per-query frame (``pt.Experiment(perquery=True)``, :func:`ir_cwla.meta.evaluate`,
``ir-cwla eval -q --format csv``), adjusts the p-values over the family of hypotheses, and
puts the effect sizes and intervals next to them::

    import ir_cwla
    cmp = ir_cwla.compare(per_query, baseline="BM25", test="t", correction="holm")
    cmp.table()                  # one row per (measure, baseline, system)
    print(cmp.to_latex())        # systems x measures, daggers, caption with test, correction, family
    cmp.plot_differences("BM25", "monoT5", "nDCG@10")

The statistical tests are declared once in :mod:`ir_cwla.analysis.significance` (the registry
``TESTS``, ``register_test``; their kernels in :mod:`ir_cwla.analysis`). One module per concept
here: :mod:`.multiplicity` (Bonferroni, Holm, BH, BY, Westfall & Young's MaxT), :mod:`.effects`
(intervals, d_z, ES_E2), :mod:`.ranks` (bootstrap rank intervals, separable ranks, Dynascore
ranks), :mod:`.repro` (Breuer et al.'s reproducibility measures: KTU, RBO, RMSE, ER, DRI, with
bootstrap intervals; ``ir_cwla.comparison.reproducibility``), :mod:`.result` (the
:class:`Comparison` and its tables), :mod:`.plots`, and :mod:`.api` (the pandas adapter); Sakai's
topic set size design comes from :mod:`ir_cwla.meta.topic_set_size`. This room sits above
:mod:`ir_cwla.meta` and :mod:`ir_cwla.leaderboard`.
"""
from __future__ import annotations

from typing import Any

from ir_cwla.analysis.anova import residual_variance, tukey_hsd
from ir_cwla.analysis.significance import TESTS, StatisticalTest, register_test
from ir_cwla.comparison.api import CORRECTIONS, FAMILIES, compare, tests
from ir_cwla.comparison.multiplicity import adjust, maxt
from ir_cwla.comparison.ranks import RankUncertainty, dynascore_rank_uncertainty, rank_uncertainty
from ir_cwla.comparison.repro import Reproducibility, reproducibility
from ir_cwla.comparison.result import Comparison
from ir_cwla.meta.topic_set_size import (
    topic_set_sizes,
    topics_for_anova,
    topics_for_ci,
    topics_for_t_test,
)

__all__ = [
    "compare", "Comparison", "TESTS", "tests", "StatisticalTest", "register_test", "CORRECTIONS", "FAMILIES", "adjust",
    "maxt", "residual_variance", "tukey_hsd", "reproducibility", "Reproducibility", "rank_uncertainty", "dynascore_rank_uncertainty", "RankUncertainty", "topic_set_sizes",
    "topics_for_t_test", "topics_for_anova", "topics_for_ci",
]


def __getattr__(name: str) -> Any:
    """``comparison.paired``: moved to :mod:`ir_cwla.analysis.paired` (issue 29); its old path warns."""
    from ir_cwla import _facade
    return _facade.old_submodule(__name__, name)
