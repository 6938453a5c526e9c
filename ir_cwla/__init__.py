"""ir_cwla: C/W/L/A user-model measures for ir-measures and PyTerrier.

``import ir_cwla`` registers the :class:`CWLA` measure with ``ir_measures`` (so
``ir_measures.parse_measure("CWLA(C='RBP', A='max')@10")`` works) and appends the
``ir_cwla`` provider to ``ir_measures.DefaultPipeline``, which is what
``pt.Experiment`` uses.

Data flows one way through the package:
runs + qrels (:mod:`ir_cwla.io`) -> gain matrix (:mod:`ir_cwla.gains`) ->
browsing models C, V, L (:mod:`ir_cwla.browsing`) -> aggregations A
(:mod:`ir_cwla.aggregation`) -> per-topic scores (:mod:`ir_cwla.kernel`) ->
ir-measures provider (:mod:`ir_cwla.provider`) -> meta-evaluation
(:mod:`ir_cwla.meta`) and efficiency-aware leaderboards (:mod:`ir_cwla.leaderboard`).
"""
__version__ = "0.1.0"

from ir_cwla import io
from ir_cwla.aggregation import AGGREGATIONS, Aggregation, AggregationInput, register_aggregation
from ir_cwla.browsing import BROWSING_MODELS, BrowsingModel, TailInput, TailSums, register_browsing_model
from ir_cwla.gains import GainSpec
from ir_cwla.measure import CWLA, MeasureList, canonical, is_canonical, short_name, table1
from ir_cwla.provider import PROVIDER, CwlaEvaluator, CwlaProvider, register

register()

_SUBPACKAGES = ("meta", "leaderboard", "datasets", "systems", "report", "demo", "cli")


def __getattr__(name: str):
    # ``ir_cwla.meta`` etc. are imported on first use: ``import ir_cwla`` stays light
    # (no matplotlib, no PISA) for users who only want the measures
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module(f"ir_cwla.{name}")
    raise AttributeError(f"module 'ir_cwla' has no attribute {name!r}")


__all__ = [
    "CWLA", "table1", "canonical", "short_name", "is_canonical", "MeasureList",
    "register_browsing_model", "register_aggregation", "BROWSING_MODELS", "AGGREGATIONS",
    "BrowsingModel", "Aggregation", "AggregationInput", "TailInput", "TailSums", "GainSpec",
    "CwlaEvaluator", "CwlaProvider", "PROVIDER", "register", "io", "meta", "leaderboard", "datasets",
]
