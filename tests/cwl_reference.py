"""cwl_eval's own Python API, driven the way the semantics require (tests only).

cwl_eval takes a run's line order as the ranking: every ranking is built here in trec_eval
order (score desc in float32, doc_id desc), with gains already mapped to [0, 1] (x / x_max),
as ``cwla-semantics.md`` prescribes for comparisons. Returns, per (metric name, topic), the
five quantities cwl_eval reports (EU, ETU, EC, ETC, EI) and, with ``residuals``, their
residuals.
"""
from __future__ import annotations

import logging

import pandas as pd

from tests.test_equivalences import trec_sorted

QUANTITIES = ("EU", "ETU", "EC", "ETC", "EI")


def cwl_eval_rows(qrels: pd.DataFrame, run: pd.DataFrame, metrics: dict, cost_dict=None, max_n: int = 1000,
                  residuals: bool = False, max_gain: float = 1.0, max_cost: float = 1.0,
                  min_cost: float = 1.0) -> dict:
    """{(name, topic): (EU, ETU, EC, ETC, EI[, residuals])} from cwl_eval's classes.

    ``metrics`` maps a name to a factory of cwl_eval metric objects; ``run`` may have an
    ``element_type`` column (else every element has type 'Q0'), priced by ``cost_dict``.
    """
    from cwl.ruler.ranking import RankingMaker
    from ir_measures.providers.cwl_eval import IrmQrelHandler

    logging.getLogger("cwl").disabled = True
    x_max = float(qrels["relevance"].max())
    handler = IrmQrelHandler(None, 0, x_max)
    for q, d, g in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        handler.put_value(q, d, max(float(g), 0.0))
    judged_topics = set(qrels["query_id"])
    ordered = trec_sorted(run)
    if "element_type" not in ordered.columns:
        ordered = ordered.assign(element_type="Q0")
    out = {}
    for q, block in ordered.groupby("query_id", sort=False):
        if q not in judged_topics:
            continue
        maker = RankingMaker(q, handler, cost_dict=cost_dict, max_gain=max_gain, max_cost=max_cost,
                             min_cost=min_cost, max_n=max_n)
        for d, t in zip(block["doc_id"], block["element_type"]):
            maker.add(d, t)
        ranking = maker.get_ranking()
        for name, factory in metrics.items():
            metric = factory()
            metric.residuals = residuals
            metric.measure(ranking)
            row = tuple(metric.get_scores())
            if residuals:
                row += (metric.residual_expected_utility, metric.residual_expected_total_utility,
                        metric.residual_expected_cost, metric.residual_expected_total_cost,
                        metric.residual_expected_items)
            out[(name, q)] = row
    return out
