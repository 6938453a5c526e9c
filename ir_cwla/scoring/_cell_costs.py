"""What inspecting each ranked document costs: the per-cell costs of a group's matrix.

The measure says where costs come from (:class:`ir_cwla.measures.CostSpec`: unit costs, a cost
per grade, cwl_eval's cost file of element types, a cost per doc_id); :func:`cell_costs` lays them
out as the (topics x ranks) matrix of a :class:`~ir_cwla.scoring.Group`, which the browsing models
that read costs (TBG, U, IFT, BPM, TrAP) and the cost aggregations (EC, ETC) are given. Past the
end of a ranking (padding) every document costs :meth:`CostSpec.pad_cost`.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ir_cwla.errors import CostError
from ir_cwla.io._cost_files import ANY
from ir_cwla.measures._costs import CostSpec
from ir_cwla.scoring._gains import PADDING, UNJUDGED, Group, Rankings


def cell_costs(spec: CostSpec, ranked: Rankings, group: Group, policy: str, top_grade: float) -> Optional[np.ndarray]:
    """The cost of every cell of ``group`` under the unjudged ``policy``, as ``spec`` prices them.

    The cost of every cell of ``group`` (padding past a ranking's end included) under the
    unjudged ``policy`` ('zero' or 'max'; an unjudged document costs what grade 0, or under
    'max' the grade ``top_grade``, costs); None for unit costs (the kernel's default).
    """
    if spec.kind == "unit":
        return None
    pad = spec.pad_cost(policy)
    if spec.kind == "grade":
        grades = np.where(group.judgments == UNJUDGED, top_grade if policy == "max" else 0.0, group.grades)
        cells = group.judgments != PADDING
        out = np.full(grades.shape, pad)
        out[cells] = spec.grade_costs(grades[cells], f"topics {_topics(ranked, group)}")
        return out
    labels = ranked.element_types if spec.kind == "type" else ranked.doc_ids
    if labels is None:
        what = ("element types (a TREC run's second column, a DataFrame's element_type column)"
                if spec.kind == "type" else "doc_ids (rank the run with doc_ids=True)")
        raise CostError(f"costs='{spec.kind}:{spec.path}' prices {what}, but the ranked run has none")
    table = spec.labels()
    default = table.get(ANY, math.nan)
    price = np.array([table.get(str(name), default) for name in labels.names] + [pad], dtype=np.float64)
    codes = ranked.dense(group, labels.codes, -1)            # -1 past a ranking's end: padding
    out = price[codes]
    if np.isnan(out).any():
        r, i = np.argwhere(np.isnan(out))[0]
        what = "element type" if spec.kind == "type" else "document"
        raise CostError(f"cost file {spec.path} prices no {what} {labels.names[codes[r, i]]!r} (topic "
                        f"{ranked.topics[group.rows[r]]!r}, rank {i + 1}); add it, or a line '{ANY} COST' "
                        "for everything the file does not list")
    return out


def _topics(ranked: Rankings, group: Group) -> str:
    names = [repr(t) for t in ranked.topics[group.rows[:3]]]
    return ", ".join(names) + (", ..." if len(group.rows) > 3 else "")
