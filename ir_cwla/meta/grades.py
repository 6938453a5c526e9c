"""Grade scales of qrels compared with a reference: said, and mapped only when asked.

Assessors do not always grade on the same scale: NIST grades DL passages 0-3, an LLM judge may
answer 0-2, or slip a ``5`` or a ``10`` among its 0-3 grades (two of the LLMJudge challenge's
label sets do). Agreement statistics compare grades as they are (kappa's weights are distances
between category positions, alpha's interval metric between values), so a grade outside the
reference's scale would silently become a category of its own. :func:`check_scales` applies the
rule every comparison of qrels here follows:

- a grade outside the reference's range ``[min, max]`` is a :class:`~ir_cwla.errors.DataError`
  naming the qrels (its file and line when it is a file), the (topic, doc_id) and the grade, and
  saying how to map it; nothing is mapped unless asked;
- ``grade_map`` maps grades before the check: ``{5: 3, 10: 3}`` for every alternative, or
  ``{name: {5: 3}}`` per alternative (keys that are alternatives' names); grades it does not
  name are kept;
- an alternative whose highest grade is below the reference's (0-2 against 0-3) is compared as
  it is, with one :class:`~ir_cwla.errors.InputWarning` that says so (label agreement only: a
  ranking of systems does not depend on the scale being used whole).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla.errors import ArgumentTypeError, DataError, InputWarning

GradeMap = Optional[Mapping[Any, Any]]


def _per_alternative(grade_map: GradeMap, names: list[str]) -> dict[str, dict[int, int]]:
    """``{name: {grade: grade}}`` from a common map or a map of maps keyed by alternative."""
    if grade_map is None:
        return {n: {} for n in names}
    if not isinstance(grade_map, Mapping):
        raise ArgumentTypeError(f"grade_map must be a mapping {{grade: grade}} or {{alternative: {{grade: grade}}}}, "
                                f"got {type(grade_map).__name__}")
    nested = all(isinstance(v, Mapping) for v in grade_map.values()) and len(grade_map) > 0
    if nested:
        unknown = [k for k in grade_map if str(k) not in names]
        if unknown:
            raise DataError(f"grade_map names alternatives {unknown} that are not compared (the alternatives are "
                            f"{names})")
        return {n: _checked(grade_map.get(n, {})) for n in names}
    common = _checked(grade_map)
    return {n: dict(common) for n in names}


def _checked(mapping: Mapping[Any, Any]) -> dict[int, int]:
    out = {}
    for k, v in mapping.items():
        if isinstance(k, bool) or isinstance(v, bool) or not isinstance(k, (int, np.integer)) \
                or not isinstance(v, (int, np.integer)):
            raise ArgumentTypeError(f"grade_map maps integer grades to integer grades, got {k!r}: {v!r}")
        out[int(k)] = int(v)
    return out


def line_of(source: Any, topic: str, doc_id: str) -> Optional[int]:
    """The first line of a qrels file that judges ``(topic, doc_id)`` (None if not a readable file)."""
    if not isinstance(source, (str, os.PathLike)) or str(source).startswith("irds:") or not os.path.isfile(source):
        return None
    from ir_cwla.io import open_input

    with open_input(source, "qrels") as (stream, _, _):
        for number, raw in enumerate(stream, start=1):
            fields = raw.split()
            if len(fields) >= 4 and fields[0].decode(errors="replace") == topic and \
                    fields[2].decode(errors="replace") == doc_id:
                return number
    return None


def check_scales(reference: pd.DataFrame, others: Mapping[str, pd.DataFrame], grade_map: GradeMap = None,
                 sources: Optional[Mapping[str, Any]] = None, reference_name: str = "reference",
                 say_narrower: bool = True) -> dict[str, pd.DataFrame]:
    """The alternatives' qrels frames with ``grade_map`` applied, checked against the reference's scale.

    The module docstring gives the rule. ``sources``: each alternative's input (a path names its
    file and line in the error); ``say_narrower``: warn of narrower scales (the label statistics
    are about the scale; a ranking of systems is not).
    """
    names = list(others)
    maps = _per_alternative(grade_map, names)
    grades = reference["relevance"].to_numpy()
    if not len(grades):
        return dict(others)
    low, high = int(grades.min()), int(grades.max())
    out, narrower = {}, []
    for name, frame in others.items():
        mapping = maps[name]
        if mapping:
            values = frame["relevance"].to_numpy(np.int64)
            mapped = np.fromiter((mapping.get(int(g), int(g)) for g in values), dtype=np.int64, count=len(values))
            frame = frame.assign(relevance=mapped)
        values = frame["relevance"].to_numpy(np.int64)
        outside = (values < low) | (values > high)
        if outside.any():
            first = frame[outside].iloc[0]
            source = (sources or {}).get(name)
            if not isinstance(source, (str, os.PathLike)):
                source = others[name].attrs.get("source")
            line = line_of(source, str(first["query_id"]), str(first["doc_id"])) if source is not None else None
            where = f"{source}, line {line}" if line is not None else f"{source} ({name})" if source else f"qrels {name}"
            bad = sorted({int(v) for v in values[outside]})
            raise DataError(f"{where}: grade {int(first['relevance'])} of topic {first['query_id']} doc "
                            f"{first['doc_id']} is outside {reference_name}'s scale {low}-{high} "
                            f"({int(outside.sum())} judgment(s) of {name} have grades {bad}); map them when you mean "
                            f"to, e.g. grade_map={{{bad[0]}: {high}}} (on the command line --grade-map {bad[0]}={high})")
        if say_narrower and len(values) and values.max() < high and len(np.unique(values)) > 1:
            narrower.append(f"{name} ({int(values.min())}-{int(values.max())})")
        out[name] = frame
    if narrower:
        warnings.warn(f"{len(narrower)} alternative(s) never give the top grade of {reference_name}'s {low}-{high}, "
                      f"compared as they are: {', '.join(narrower[:6])}{' ...' if len(narrower) > 6 else ''}",
                      InputWarning, stacklevel=3)
    return out


def parse_grade_map(text: Optional[str]) -> Optional[dict[int, int]]:
    """``'5=3,10=3'`` (the command line's ``--grade-map``) as ``{5: 3, 10: 3}``; None or ``''`` for none."""
    from ir_cwla.errors import ParameterError

    if text is None or isinstance(text, Mapping):
        return text  # type: ignore[return-value]
    out: dict[int, int] = {}
    for part in filter(None, (p.strip() for p in str(text).split(","))):
        key, sep, value = part.partition("=")
        try:
            out[int(key)] = int(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ParameterError(f"grade map {part!r}: write GRADE=GRADE pairs, e.g. 5=3,10=3")
    return out or None


def check_grade_map(value: Any, what: str = "grade_map") -> Optional[dict[int, int]]:
    """An option's check: ``None``, a mapping of integer grades, or its command-line text."""
    parsed = parse_grade_map(value) if isinstance(value, str) else value
    if parsed is not None and not isinstance(parsed, Mapping):
        from ir_cwla.errors import ParameterError

        raise ParameterError(f"{what} must be a mapping {{grade: grade}} or GRADE=GRADE pairs, got {value!r}")
    return None if parsed is None else _checked(parsed)
