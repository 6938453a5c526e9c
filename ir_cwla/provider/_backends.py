"""What ir-measures' backends can take: trec_eval's limits on grades and relevance levels.

The rule :mod:`ir_cwla.io` applies to every qrels that will meet a measure computed by
trec_eval (pytrec_eval), for frames and columns alike (re-exported by :mod:`ir_cwla.io`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ir_cwla.errors import InputError, MeasureError
from ir_cwla.io._columns import QrelsColumns

if TYPE_CHECKING:
    import pandas as pd

TREC_EVAL_MAX_GRADE = 2 ** 16
"""The largest grade handed to trec_eval (pytrec_eval). trec_eval allocates and scans arrays
as long as the largest grade for every topic: a grade of 16,777,216 took 3.4 s and 155 MB
for 50 topics, one of 10^9 made an evaluation grow to 22 GB. C/W/L/A measures take any
int64 grade."""

TREC_EVAL_MAX_LEVEL = 2 ** 31 - 1
"""The largest relevance level (``rel``) trec_eval (pytrec_eval) takes: a C int."""

def backend_of(measure: Any) -> Optional[str]:
    """The ir-measures provider that computes ``measure``, or None.

    The ir-measures provider that computes ``measure`` in ``ir_measures.DefaultPipeline``
    (the first available one that supports it, as the pipeline chooses), or None.
    """
    import ir_measures

    for provider in ir_measures.DefaultPipeline.providers:
        try:
            if provider.is_available() and provider.supports(measure):
                return provider.NAME
        except Exception:   # a provider that cannot judge the measure does not compute it
            continue
    return None


def check_grades_for_backends(qrels: pd.DataFrame | QrelsColumns, measures: Sequence[Any], source: str = "qrels") -> None:
    """Refuses grades and relevance levels that trec_eval cannot hold.

    Refuses grades above :data:`TREC_EVAL_MAX_GRADE` when a measure computed by trec_eval
    (pytrec_eval) is asked for (``qrels``: a checked frame or columns); C/W/L/A measures and other providers take any int64 grade.
    Also refuses a relevance level ``rel`` beyond trec_eval's C int (its own error is a
    TypeError about its arguments).
    """
    for m in measures:
        rel = getattr(m, "params", {}).get("rel")
        if isinstance(rel, (int, float)) and abs(rel) > TREC_EVAL_MAX_LEVEL and backend_of(m) == "pytrec_eval":
            raise MeasureError(f"{m}: rel={rel} is beyond the relevance levels trec_eval takes (a C int, at most "
                               f"{TREC_EVAL_MAX_LEVEL}); use a smaller level, or a C/W/L/A measure, e.g. "
                               "CWLA(C='P', A='ERG', rel=...)@10 for P@10, which compares int64 grades")
    if not len(qrels):
        return
    top = int(np.max(qrels.relevance if isinstance(qrels, QrelsColumns) else qrels["relevance"].to_numpy()))
    if top <= TREC_EVAL_MAX_GRADE:
        return
    by_trec_eval = [str(m) for m in measures if backend_of(m) == "pytrec_eval"]
    if by_trec_eval:
        raise InputError(f"qrels {source}: grade {top} is above {TREC_EVAL_MAX_GRADE}, the largest grade ir_cwla "
                         f"gives trec_eval, whose time and memory grow with the largest grade; measures computed by "
                         f"trec_eval here: {', '.join(by_trec_eval[:5])}. Rescale the grades, or use C/W/L/A "
                         "measures (e.g. CWLA(C='P', A='ERG', rel=1)@10 for P@10), which take any int64 grade")
