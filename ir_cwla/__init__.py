"""ir_cwla: C/W/L/A user-model measures for ir-measures and PyTerrier.

``import ir_cwla`` registers the :class:`CWLA` measure with ``ir_measures`` (so
``ir_measures.parse_measure("CWLA(C='RBP', A='max')@10")`` works) and appends the
``ir_cwla`` provider to ``ir_measures.DefaultPipeline``, which is what
``pt.Experiment`` uses.

Data flows one way through the package, and the tree shows it:

1. the measure engine, in four rooms, each a package whose ``__init__`` is its public facade
   (the modules behind it are private): reading runs and qrels (:mod:`ir_cwla.io`) -> what a
   measure is (:mod:`ir_cwla.measures`: the measure, its browsing models C, aggregations A,
   parameters, vocabulary, names and the paper's 39 measures) -> scoring (:mod:`ir_cwla.scoring`:
   gain matrices, the C/W/L/A kernel, the one scoring API) -> the ir-measures provider
   (:mod:`ir_cwla.provider`, which also scores result pages given as ranked gains,
   :func:`ir_cwla.score_gains`); beneath them the base every module may use (:mod:`ir_cwla.errors`,
   :mod:`ir_cwla.plugins`);
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
import os as _os

try:
    import resource as _resource
except ImportError:          # (not on Windows)
    _resource = None  # type: ignore[assignment]

# Under an address-space limit (``ulimit -v``) OpenBLAS's worker threads cannot map their
# buffers, and a BLAS call then waits for them for ever (issue 33: ``ir-cwla meta --out`` hung at
# the topic set size step). With such a limit and no thread count chosen by the user, BLAS runs
# in the calling thread; a limit that is then too small is a clear out-of-memory error instead.
# (Set before numpy is first imported, which is when OpenBLAS reads it.)
if _resource is not None and _resource.getrlimit(_resource.RLIMIT_AS)[0] != _resource.RLIM_INFINITY:
    for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        _os.environ.setdefault(_threads, "1")

# Importing the engine and ir-measures makes some 10^5 objects and no garbage, which the
# collector would traverse some fifty times (15-25 ms of every command): it is paused meanwhile
# and then left as it was (benchmarks/bench_scale_out.py, start-up)
_COLLECTING = _gc.isenabled()
_gc.disable()
try:
    from ir_cwla import _facade, errors, plugins  # noqa: F401  (ir_cwla.errors)
    from ir_cwla._version import __version__
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
    from ir_cwla.io import register_qrels_check, register_source
    from ir_cwla.measures import (
        AGGREGATIONS,
        BROWSING_MODELS,
        CWLA,
        Aggregation,
        AggregationInput,
        AggregationTail,
        AggregationTailInput,
        BrowsingInput,
        BrowsingModel,
        GainSpec,
        MeasureList,
        Param,
        TailInput,
        TailSums,
        allow_cost_files,
        canonical,
        family,
        is_canonical,
        is_cwla,
        needs_element_types,
        parse_measure,
        parse_measures,
        register_aggregation,
        register_browsing_model,
        short_name,
        table1,
    )
    from ir_cwla.provider import PROVIDER, CwlaEvaluator, CwlaProvider, register

    _facade.install()       # the module paths of before the rooms (ir_cwla.gains, ...): deprecated stand-ins
    register()
    from ir_cwla.provider import _trec_provider

    _trec_provider.register()       # trec_eval's measures ir-measures lacks (ir_cwla.measures._trec_measures)
    # ``irds:`` ids and the raw-Cranfield check of ir_cwla.datasets, imported when first needed
    register_source("irds:", "ir_cwla.datasets.irds:read_source")
    register_qrels_check("ir_cwla.datasets.cranfield:warn_if_raw_grades")
    plugins.load()
finally:
    if _COLLECTING:
        _gc.enable()

_SUBPACKAGES = ("analysis", "meta", "leaderboard", "datasets", "comparison", "app")
_APP_MODULES = ("cli", "demo", "report", "systems")
#: Names of the engine whose modules score data: imported on first use
_LAZY = {"scoring": ("ir_cwla.scoring", None), "Scorer": ("ir_cwla.scoring", "Scorer"),
         "score_gains": ("ir_cwla.provider", "score_gains")}


def __getattr__(name: str):
    # ``ir_cwla.meta``, ``ir_cwla.scoring`` etc. are imported on first use: ``import ir_cwla`` stays
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
    if f"ir_cwla.{name}" in _facade.MOVED:     # a module of before the rooms: its deprecated stand-in
        return importlib.import_module(f"ir_cwla.{name}")
    raise AttributeError(f"module 'ir_cwla' has no attribute {name!r}")


__all__ = [
    "CWLA", "table1", "canonical", "short_name", "is_canonical", "MeasureList", "parse_measure",
    "parse_measures", "family", "is_cwla", "needs_element_types",
    "register_browsing_model", "register_aggregation", "BROWSING_MODELS", "AGGREGATIONS",
    "BrowsingModel", "BrowsingInput", "Aggregation", "AggregationInput", "AggregationTailInput", "AggregationTail", "TailInput", "TailSums", "GainSpec", "Param",
    "Scorer", "score_gains", "CwlaEvaluator", "CwlaProvider", "PROVIDER", "register", "io", "measures", "scoring",
    "provider",
    "meta", "leaderboard", "datasets",
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
