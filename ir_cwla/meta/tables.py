"""Markdown renderings of the meta-evaluation results, laid out like the paper's tables.

``markdown(df)`` is a dependency-free Markdown table; the ``*_layout`` functions put the
measures of each family (browsing model) side by side, best first, as in Table 3.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ir_cwla.analysis import naming

if TYPE_CHECKING:  # pragma: no cover
    from ir_cwla.meta.consistency import Consistency
    from ir_cwla.meta.discriminative_power import DiscriminativePower
    from ir_cwla.meta.similarity import Similarity


def markdown(df: pd.DataFrame, digits: int = 3, index: bool = False) -> str:
    """A GitHub Markdown table of ``df`` (floats rounded to ``digits``)."""
    if index:
        frame = df.reset_index()
        frame = frame.rename(columns={frame.columns[0]: df.index.name or ""})
    else:
        frame = df

    def cell(v) -> str:
        if isinstance(v, float):
            return "" if v != v else f"{v:.{digits}f}"
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body]) + "\n"


def _short(measure: str, labels: dict[str, str], within: bool) -> str:
    agg = naming.aggregation(measure) if within else None
    name = agg if agg else labels.get(measure, measure)
    return name + ("*" if naming.is_canonical(measure) else "")


def consistency_layout(cons: Consistency, digits: int = 3) -> pd.DataFrame:
    """Table 3: per family, measures by mean tau; ``(k)`` = significantly better than the worst k."""
    beats = cons.outperforms()
    mean = cons.mean_tau
    within = len(cons.groups) > 1
    columns = {}
    for group, members in cons.groups.items():
        ordered = sorted(members, key=lambda m: -mean[m])
        columns[str(group)] = [f"{_short(m, cons.labels, within)} ({len(beats[m])}) {mean[m]:.{digits}f}"
                               for m in ordered]
    return _pad(columns)


def discpower_layout(disc: DiscriminativePower) -> pd.DataFrame:
    """Per family, measures by the number of significant pairs: ``name count (share)``."""
    table = disc.table()
    within = len(disc.groups) > 1
    by_label = {disc.labels.get(m, m): m for m in disc.measures}
    columns = {}
    for group, part in table.groupby("group", sort=False):
        columns[str(group)] = [f"{_short(by_label[r.measure], disc.labels, within)} {r.significant} "
                               f"({100 * r.share:.1f}%)" for r in part.itertuples()]
    return _pad(columns)


def similarity_layout(sim: Similarity, group, digits: int = 2) -> pd.DataFrame:
    """Figure 2 as a table: lower triangle of ``tau (low, high)`` for one family."""
    within = len(sim.groups) > 1
    members = sim.groups[group]
    out = sim.matrix(group, digits=digits)
    names = [_short(m, sim.labels, within) for m in members]
    out.index, out.columns = names, names
    return out


def _pad(columns: dict[str, list[str]]) -> pd.DataFrame:
    depth = max((len(v) for v in columns.values()), default=0)
    return pd.DataFrame({k: v + [""] * (depth - len(v)) for k, v in columns.items()},
                        index=pd.RangeIndex(1, depth + 1, name="rank"))
