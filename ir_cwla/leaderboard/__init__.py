"""Efficiency-aware leaderboards: accuracy, latency, throughput, dollar cost and Dynascore.

After Santhanam et al. (2023), "Moving Beyond Downstream Task Accuracy for Information
Retrieval Benchmarking", and Ma et al. (2021), "Dynaboard". One module per concept:

* :mod:`.timing` -- per-query latency and batch throughput, with the hardware and versions;
* :mod:`.cost` -- cloud instances, the bundled price table, USD per query / per 1M queries;
* :mod:`.dynascore` -- AMRS and Dynascore (numpy kernels + DataFrame adapters);
* :mod:`.strategies` -- budget, accuracy-threshold and Dynascore rankings; Pareto frontier;
* :mod:`.board` -- the :class:`Leaderboard` tying them together;
* :mod:`.plots` -- accuracy/latency frontier and the winner map over the weight simplex.

Usage::

    from ir_cwla import leaderboard as lb
    board = lb.Leaderboard.run({'BM25': bm25, 'BM25>>mono': bm25 >> mono}, topics, qrels,
                               accuracy=RR(rel=2)@10, instance=lb.instance('m5.xlarge'))
    board.table()                       # accuracy, latency, QPS, cost, Dynascore
    board.plot_weight_map()             # Santhanam et al. (2023), Fig. 2(a)
"""
from .board import Leaderboard
from .cost import Instance, instance, price_table, usd_per_million_queries, usd_per_query
from .dynascore import (
    DEFAULT_DIRECTIONS,
    DEFAULT_WEIGHTS,
    ConstantMetricWarning,
    RankingWarning,
    amrs,
    amrs_kernel,
    dynascore,
    dynascore_kernel,
    weight_simplex,
    winner_map,
)
from .plots import plot_frontier, plot_weight_map
from .strategies import (
    eligible,
    pareto_frontier,
    pareto_mask,
    rank_above_accuracy,
    rank_by_dynascore,
    rank_within_budget,
)
from .timing import (
    LatencyResult,
    ThroughputResult,
    environment,
    latency_summary,
    measure_latency,
    measure_throughput,
)

__all__ = [
    "Leaderboard", "Instance", "instance", "price_table", "usd_per_million_queries", "usd_per_query",
    "DEFAULT_DIRECTIONS", "DEFAULT_WEIGHTS", "ConstantMetricWarning", "RankingWarning", "amrs", "amrs_kernel", "dynascore",
    "dynascore_kernel", "weight_simplex", "winner_map", "plot_frontier", "plot_weight_map", "eligible",
    "pareto_frontier", "pareto_mask", "rank_above_accuracy", "rank_by_dynascore", "rank_within_budget",
    "LatencyResult", "ThroughputResult", "environment", "latency_summary", "measure_latency",
    "measure_throughput",
]
