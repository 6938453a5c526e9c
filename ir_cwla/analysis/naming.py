"""Display labels and families for the measure names found in a per-query frame.

The frame's ``measure`` column holds ``str(measure)`` (e.g. ``CWLA(C='RBP',A='max')@10``);
tables and figures show the short names of :func:`ir_cwla.short_name` (``RBP_max@10``), and
the paper compares aggregations *within* a browsing model, which :func:`browsing_model`
gives as the family of a measure.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Optional, Union

from ir_cwla.errors import DataError
from ir_cwla.measures import AGGREGATIONS, BROWSING_MODELS, family, is_cwla, parse_measure, short_name
from ir_cwla.measures import _registry as registry
from ir_cwla.measures import is_canonical as canonical
from ir_cwla.measures._names import SYNTAX_HELP
from ir_cwla.measures._table1 import TABLE1_AGGREGATIONS, TABLE1_MODELS

Labels = Union[None, Callable[[str], str], Mapping[str, str]]


@lru_cache(maxsize=4096)
def parse(name: str) -> Optional[Any]:
    """The measure behind ``name`` (:func:`ir_cwla.parse_measure`), or None if it names none.

    Cached; the cache is cleared whenever a browsing model or an aggregation is registered
    (a name that named nothing before may name a measure now).
    """
    try:
        return parse_measure(name)
    except (ValueError, TypeError):
        return None


@registry.on_change
def _forget_parsed_names() -> None:
    parse.cache_clear()


def label(name: str) -> str:
    """Short display name: ``RBP_max@10`` for CWLA measures, the name itself otherwise."""
    measure = parse(name)
    return short_name(measure) if is_cwla(measure) else name


def browsing_model(name: str) -> str:
    """The family of a measure for within-family comparisons (the paper's Table 3, Figures 2 and 4).

    :func:`ir_cwla.family` of the measure ``name`` names: for CWLA measures their browsing
    model with its parameters, gain, tail and cutoff (``RBP@10``, ``INST(T=3)@10``), so the
    aggregations of one model form a family; other ir-measures measures: the measure with its
    parameters and cutoff (``nDCG@10``; ``AP`` and ``AP@10`` are two families). A name that is no measure at all is an error (a typo would otherwise form a
    family of its own).
    """
    measure = parse(name)
    if measure is None:
        raise DataError(f"groups=meta.browsing_model: {name!r} is not a measure name "
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


def _rank(name: str, first: Sequence[str], registered: Mapping[str, Any]) -> int:
    """Position in ``first`` (the paper's order), then in registration order after them."""
    if name in first:
        return first.index(name)
    rest = [k for k in registered if k not in first]
    return len(first) + (rest.index(name) if name in rest else len(rest))


def _values(measure: Any, keys: Iterable[str]) -> tuple:
    return tuple(float(measure[k]) for k in keys if k != "cutoff")


def order_key(name: str) -> tuple:
    """Where a measure goes in every table, figure and random stream: the one measure order.

    C/W/L/A measures first, by browsing model in the paper's order (P, DCG, RBP, INST, AP,
    ERR, then registered models in registration order), then by the model's parameters,
    cutoff and options (each family together), then by aggregation in Table 1's order (ERG,
    ETG, avg, max, fin, PE, ERR, then registered ones); then other ir-measures measures by
    name; then names that are no measure. Depends on the names only, never on row order.
    """
    measure = parse(name)
    if is_cwla(measure):
        model, agg = measure.browsing_model, measure.aggregation
        cutoff = measure.params.get("cutoff")
        return (0, _rank(model.name, TABLE1_MODELS, BROWSING_MODELS), _values(measure, model.params),
                math.inf if cutoff is None else cutoff, family(measure),
                _rank(agg.name, TABLE1_AGGREGATIONS, AGGREGATIONS), _values(measure, agg.params), name)
    if measure is not None:
        return (1, 0, (), 0, measure.NAME, 0, (), name)
    return (2, 0, (), 0, "", 0, (), name)


def measure_order(names: Iterable[str]) -> list[str]:
    """``names`` (without repeats) sorted by :func:`order_key`."""
    return sorted(dict.fromkeys(names), key=order_key)


def resolve_labels(measures: list[str], labels: Labels = None) -> dict[str, str]:
    """Display label of every measure; ``labels`` overrides (a mapping or a function)."""
    if labels is None:
        return {m: label(m) for m in measures}
    if isinstance(labels, Mapping):
        return {m: str(labels.get(m, label(m))) for m in measures}
    return {m: str(labels(m)) for m in measures}
