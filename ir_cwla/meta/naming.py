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

from ir_cwla.names import SYNTAX_HELP, family, is_cwla, parse_measure, short_name
from ir_cwla.table1 import is_canonical as canonical

Labels = Union[None, Callable[[str], str], Mapping[str, str]]


@lru_cache(maxsize=4096)
def parse(name: str) -> Optional[Any]:
    """The measure behind ``name`` (:func:`ir_cwla.parse_measure`), or None if it names none."""
    try:
        return parse_measure(name)
    except (ValueError, TypeError):
        return None


def label(name: str) -> str:
    """Short display name: ``RBP_max@10`` for CWLA measures, the name itself otherwise."""
    measure = parse(name)
    return short_name(measure) if is_cwla(measure) else name


def browsing_model(name: str) -> str:
    """The family of a measure for within-family comparisons (the paper's Table 3, Figures 2 and 4).

    :func:`ir_cwla.family` of the measure ``name`` names: for CWLA measures their browsing
    model with its parameters, gain, tail and cutoff (``RBP@10``, ``INST(T=3)@10``), so the
    aggregations of one model form a family; other ir-measures measures: their measure name
    (``nDCG``). A name that is no measure at all is an error (a typo would otherwise form a
    family of its own).
    """
    measure = parse(name)
    if measure is None:
        raise ValueError(f"groups=meta.browsing_model: {name!r} is not a measure name "
                         f"({SYNTAX_HELP}); pass groups as a mapping or a function instead")
    return family(measure)


def aggregation(name: str) -> Optional[str]:
    """The aggregation of a CWLA measure (``'max'``), None for other measures."""
    measure = parse(name)
    return measure["A"] if is_cwla(measure) else None


def is_canonical(name: str) -> bool:
    """True for the canonical cells of the paper's Table 1 (marked * in its tables)."""
    measure = parse(name)
    return is_cwla(measure) and canonical(measure)


def resolve_labels(measures: list[str], labels: Labels = None) -> dict[str, str]:
    """Display label of every measure; ``labels`` overrides (a mapping or a function)."""
    if labels is None:
        return {m: label(m) for m in measures}
    if isinstance(labels, Mapping):
        return {m: str(labels.get(m, label(m))) for m in measures}
    return {m: str(labels(m)) for m in measures}
