"""Display labels and families for the measure names found in a per-query frame.

The frame's ``measure`` column holds ``str(measure)`` (e.g. ``CWLA(C='RBP',A='max')@10``);
tables and figures show the short names of :func:`ir_cwla.short_name` (``RBP_max@10``), and
the paper compares aggregations *within* a browsing model, which :func:`browsing_model`
gives as the family of a measure.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, Optional, Union

import ir_measures

Labels = Union[None, Callable[[str], str], Mapping[str, str]]


@lru_cache(maxsize=4096)
def parse(name: str) -> Optional[Any]:
    """The ir-measures Measure behind ``name``, or None if it does not parse."""
    try:
        return ir_measures.parse_measure(name)
    except Exception:  # noqa: BLE001 - any unparsable name is simply not a known measure
        return None


def _is_cwla(measure: Any) -> bool:
    return getattr(measure, "NAME", None) == "CWLA"


def label(name: str) -> str:
    """Short display name: ``RBP_max@10`` for CWLA measures, the name itself otherwise."""
    measure = parse(name)
    if _is_cwla(measure):
        from ir_cwla.measure import short_name

        return short_name(measure)
    return name


def browsing_model(name: str) -> str:
    """The family of a measure for within-family comparisons (the paper's Table 3, Figures 2 and 4).

    CWLA measures: their browsing model with its parameters and cutoff (``RBP@10``,
    ``INST(T=3)@10``), so the aggregations of one model form a family. Other ir-measures
    measures: their measure name (``nDCG``); unparsable names: the part before ``@``.
    """
    measure = parse(name)
    if _is_cwla(measure):
        short = label(name)
        model = short.split("_", 1)[0]
        cutoff = measure.params.get("cutoff")
        return model + (f"@{cutoff}" if cutoff is not None else "")
    if measure is not None:
        return measure.NAME
    return name.split("@", 1)[0]


def aggregation(name: str) -> Optional[str]:
    """The aggregation of a CWLA measure (``'max'``), None for other measures."""
    measure = parse(name)
    return measure["A"] if _is_cwla(measure) else None


def is_canonical(name: str) -> bool:
    """True for the canonical cells of the paper's Table 1 (marked * in its tables)."""
    measure = parse(name)
    if not _is_cwla(measure):
        return False
    from ir_cwla.measure import is_canonical as canonical

    return canonical(measure)


def resolve_labels(measures: list[str], labels: Labels = None) -> dict[str, str]:
    """Display label of every measure; ``labels`` overrides (a mapping or a function)."""
    if labels is None:
        return {m: label(m) for m in measures}
    if isinstance(labels, Mapping):
        return {m: str(labels.get(m, label(m))) for m in measures}
    return {m: str(labels(m)) for m in measures}
