"""ir_cwla: C/W/L/A user-model measures for ir-measures and PyTerrier.

``import ir_cwla`` registers the :class:`CWLA` measure with ``ir_measures`` (so
``ir_measures.parse_measure("CWLA(C='RBP', A='max')@10")`` works) and appends the
``ir_cwla`` provider to ``ir_measures.DefaultPipeline``, which is what
``pt.Experiment`` uses.

Data flows one way through the package, and the tree shows it:

1. the measure engine, at the top level: runs + qrels (:mod:`ir_cwla.io`, each input read
   once by :mod:`ir_cwla.textstream`) -> gain matrix (:mod:`ir_cwla.gains`; document costs
   :mod:`ir_cwla.costs`) -> browsing models C, V, L (:mod:`ir_cwla.browsing`, cwl_eval's
   others in :mod:`ir_cwla.cwl_models`) ->
   aggregations A (:mod:`ir_cwla.aggregation`) -> per-topic scores (:mod:`ir_cwla.kernel`);
   the measure (:mod:`ir_cwla.measure`), its names (:mod:`ir_cwla.names`), the
   ir-measures provider (:mod:`ir_cwla.provider`) and the paper's 39 measures
   (:mod:`ir_cwla.table1`);
2. on top of the engine: meta-evaluation (:mod:`ir_cwla.meta`), efficiency-aware
   leaderboards (:mod:`ir_cwla.leaderboard`) and datasets (:mod:`ir_cwla.datasets`:
   ``irds:`` ids, the bundled Cranfield); above them, comparisons of systems
   (:mod:`ir_cwla.comparison`: ``ir_cwla.compare(per_query, baseline=...)``, tests, corrections,
   effect sizes, rank uncertainty, topic set size design);
3. the application (:mod:`ir_cwla.app`): command line (with cwl_eval's command,
   :mod:`ir_cwla.app.cwl`), HTML report, demo.

The exact semantics of every measure are in ``docs/semantics.md``.
"""
import gc as _gc

# Importing the engine and ir-measures makes some 10^5 objects and no garbage, which the
# collector would traverse some fifty times (15-25 ms of every command): it is paused meanwhile
# and then left as it was (benchmarks/bench_scale_out.py, start-up)
_COLLECTING = _gc.isenabled()
_gc.disable()
try:
    from ir_cwla import errors, plugins, sources  # noqa: F401  (ir_cwla.errors)
    from ir_cwla._version import __version__
    from ir_cwla.aggregation import AGGREGATIONS, Aggregation, AggregationInput, register_aggregation
    from ir_cwla.browsing import BROWSING_MODELS, BrowsingModel, TailInput, TailSums, register_browsing_model
    from ir_cwla.costs import allow_cost_files
    from ir_cwla.errors import (  # every error and warning class
        ArgumentTypeError,
        ConstantMetricWarning,
        CostError,
        DataError,
        DownloadError,
        DuplicateWarning,
        InputError,
        InputWarning,
        IrCwlaDeprecationWarning,
        IrCwlaError,
        IrCwlaWarning,
        KernelError,
        LineOrderWarning,
        LongRunWarning,
        MeasureError,
        MeasurementError,
        MeasureSyntaxError,
        MissingDependencyError,
        MissingFileError,
        MissingTopicsWarning,
        NotFoundError,
        OutputError,
        OutputWarning,
        ParameterError,
        PluginWarning,
        RankingWarning,
        RawCranfieldWarning,
        RegistrationError,
        ScoreOverflowWarning,
        UndefinedStatisticWarning,
        UsageError,
    )
    from ir_cwla.gains import GainSpec
    from ir_cwla.measure import CWLA, needs_element_types
    from ir_cwla.names import family, is_cwla, parse_measure, parse_measures, short_name
    from ir_cwla.params import Param
    from ir_cwla.provider import PROVIDER, CwlaEvaluator, CwlaProvider, register
    from ir_cwla.table1 import MeasureList, canonical, is_canonical, table1

    register()
    # ``irds:`` ids and the raw-Cranfield check of ir_cwla.datasets, imported when first needed
    sources.register_source("irds:", "ir_cwla.datasets.irds:read_source")
    sources.register_qrels_check("ir_cwla.datasets.cranfield:warn_if_raw_grades")
    plugins.load()
finally:
    if _COLLECTING:
        _gc.enable()

_SUBPACKAGES = ("analysis", "meta", "leaderboard", "datasets", "comparison", "app")
_APP_MODULES = ("cli", "demo", "report", "systems")
#: Names of the engine whose modules read data (pandas, pyarrow): imported on first use
_LAZY = {"io": ("ir_cwla.io", None), "Scorer": ("ir_cwla.scoring", "Scorer")}


def __getattr__(name: str):
    # ``ir_cwla.meta``, ``ir_cwla.io`` etc. are imported on first use: ``import ir_cwla`` stays
    # light (no pandas, scipy, matplotlib or PISA; tests/test_startup.py pins what it loads) for
    # users who only want the measures; ``ir_cwla.systems`` etc. still name the application
    # modules that moved to ``ir_cwla.app``
    import importlib

    if name in _LAZY:
        module, attr = _LAZY[name]
        loaded = importlib.import_module(module)
        return loaded if attr is None else getattr(loaded, attr)
    if name in _SUBPACKAGES:
        return importlib.import_module(f"ir_cwla.{name}")
    if name in ("compare", "reproducibility"):          # the functions of the comparison room
        return getattr(importlib.import_module("ir_cwla.comparison"), name)
    if name in _APP_MODULES:
        return importlib.import_module(f"ir_cwla.app.{name}")
    raise AttributeError(f"module 'ir_cwla' has no attribute {name!r}")


__all__ = [
    "CWLA", "table1", "canonical", "short_name", "is_canonical", "MeasureList", "parse_measure",
    "parse_measures", "family", "is_cwla", "needs_element_types",
    "register_browsing_model", "register_aggregation", "BROWSING_MODELS", "AGGREGATIONS",
    "BrowsingModel", "Aggregation", "AggregationInput", "TailInput", "TailSums", "GainSpec", "Param",
    "Scorer", "CwlaEvaluator", "CwlaProvider", "PROVIDER", "register", "io", "meta", "leaderboard", "datasets",
    "analysis", "comparison", "compare", "reproducibility", "app", "allow_cost_files",
    "__version__",
    # ir_cwla.errors
    "IrCwlaError", "InputError", "CostError", "MeasureError", "MeasureSyntaxError", "RegistrationError",
    "KernelError", "ParameterError", "DataError", "OutputError", "ArgumentTypeError", "NotFoundError",
    "MissingFileError", "DownloadError", "MeasurementError", "MissingDependencyError", "UsageError",
    "IrCwlaWarning", "InputWarning", "DuplicateWarning", "ScoreOverflowWarning", "LineOrderWarning",
    "RawCranfieldWarning", "MissingTopicsWarning", "UndefinedStatisticWarning", "LongRunWarning",
    "RankingWarning", "ConstantMetricWarning", "PluginWarning", "IrCwlaDeprecationWarning", "OutputWarning", "errors",
]
