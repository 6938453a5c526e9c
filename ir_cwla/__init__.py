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
