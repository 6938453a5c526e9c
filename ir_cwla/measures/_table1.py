"""The measures of the paper's Table 1 (Chen & Sakai, "A Meta-Evaluation of C/W/L/A Metrics").

Six browsing models (P@10, DCG@10, RBP(p=0.8), INST(T=2.25), AP, ERR) crossed with seven
aggregations (ERG, ETG, avg, max, fin, PE(beta=0.5), ERR), minus the three constant cells
(P, DCG, RBP with A = ERR): 39 measures, six of them canonical (marked * in the paper).
"""
from __future__ import annotations

from typing import Any, Optional

from ir_cwla.measures._measure import CWLA, is_cwla
from ir_cwla.measures._names import short_name

TABLE1_MODELS = ("P", "DCG", "RBP", "INST", "AP", "ERR")
TABLE1_AGGREGATIONS = ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR")
CANONICAL = {"P": "ERG", "DCG": "ERG", "RBP": "ERG", "INST": "ERG", "AP": "ERG", "ERR": "ERR"}


class MeasureList(list):
    """A list of measures (usable as ``eval_metrics``) that also knows which are canonical."""

    def frame(self):
        """One row per measure: short name, browsing model, aggregation, canonical, measure."""
        import pandas as pd

        return pd.DataFrame([{"short_name": short_name(m), "C": m["C"], "A": m["A"],
                              "canonical": is_canonical(m), "measure": m} for m in self])

    @property
    def canonical(self) -> list:
        """The six canonical measures among these."""
        return [m for m in self if is_canonical(m)]


def is_canonical(measure: Any) -> bool:
    """True for the six canonical cells of the paper's Table 1 (marked with an asterisk)."""
    return is_cwla(measure) and CANONICAL.get(measure["C"]) == measure["A"]


def table1(cutoff: Optional[int] = 10) -> MeasureList:
    """The 39 measures of the paper's Table 1 (Chen & Sakai).

    Models P, DCG, RBP(p=0.8), INST(T=2.25), AP, ERR crossed with ERG, ETG, avg, max,
    fin, PE(beta=0.5), ERR, minus the three constant cells (P, DCG, RBP with A = ERR);
    cutoff 10 as in the paper.
    """
    out = MeasureList()
    for c in TABLE1_MODELS:
        for a in TABLE1_AGGREGATIONS:
            if a == "ERR" and c in ("P", "DCG", "RBP"):
                continue
            m = CWLA(C=c, A=a)
            out.append(m @ cutoff if cutoff is not None else m)
    return out


def canonical(cutoff: Optional[int] = 10) -> MeasureList:
    """The six canonical measures: P_ERG, DCG_ERG, RBP_ERG, INST_ERG, AP_ERG, ERR_ERR."""
    return MeasureList(table1(cutoff).canonical)
