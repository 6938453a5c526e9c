"""How much of each run the qrels judge: ``Judged@k`` rows for ``ir-cwla eval --judged K``.

The share of judged documents among the first k ranks of each topic (as ir-measures'
``Judged@k``, but in the ranking every ir_cwla measure reads: trec_eval's order), per topic
and averaged over the topics the run answers. Next to a score it says how much of it rests
on documents nobody judged; the residual of a measure (``CWLA(unjudged='residual')``) says
by how much the score could move.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ir_cwla.app.evaluate import SUMMARY_QID, _natural_key
from ir_cwla.scoring import Qrels, rank_run


def coverage_frame(runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame, depths: Sequence[int],
                   per_query: bool = True, summary: bool = True, ties: str = "float32") -> pd.DataFrame:
    """Rows ``name, qid, measure, value, short`` with measure ``Judged@k`` for every run and depth k.

    Per topic of the qrels the run answers (when ``per_query``) and their mean (qid 'all',
    when ``summary``); runs ranked with scores compared as ``ties`` says. A depth given twice
    is counted once (``--judged 10 --judged 10`` prints one ``Judged@10``, which ``ir-cwla
    meta`` can read back).
    """
    depths = list(dict.fromkeys(int(k) for k in depths))
    prepared = Qrels(qrels)
    rows: list[tuple] = []
    for name, run in runs.items():
        ranked = rank_run(run, prepared, max(depths), name, ties=ties)
        for k in depths:
            share = ranked.judged_share(k)
            if per_query:
                rows.extend((name, str(q), f"Judged@{k}", float(v)) for q, v in zip(ranked.topics, share))
            if summary:
                rows.append((name, SUMMARY_QID, f"Judged@{k}", float(share.mean()) if len(share) else float("nan")))
    frame = pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])
    return frame.assign(short=frame["measure"])


def with_coverage(results: pd.DataFrame, coverage: pd.DataFrame) -> pd.DataFrame:
    """The ``ir-cwla eval`` results with the coverage rows added.

    ``results`` of ``ir-cwla eval`` with the coverage rows after the measures of each query
    (and of the summary), runs and queries kept in their order.
    """
    out = pd.concat([results, coverage], ignore_index=True)
    run_order = {n: i for i, n in enumerate(pd.unique(out["name"]))}
    key = out.assign(_r=out["name"].map(run_order), _s=out["qid"] == SUMMARY_QID, _q=out["qid"].map(_natural_key))
    return out.loc[key.sort_values(["_r", "_s", "_q"], kind="stable").index].reset_index(drop=True)
