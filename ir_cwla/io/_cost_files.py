"""Cost files: cwl_eval's ``element_type cost`` lines and ``doc_id cost`` lines, and what a cost may be.

cwl_eval (Azzopardi, Thomas & Moffat 2019) prices ranked elements from a file of ``label cost``
lines; ``CWLA(costs='type:PATH')`` and ``'doc:PATH'`` (:class:`ir_cwla.measures.CostSpec`) and
``ir-cwla cwl -c FILE`` read such files here (:func:`read_cost_file`). A label listed twice keeps
its last line, as in cwl_eval; the label :data:`ANY` prices everything the file does not list.

Costs are finite and > 0 (cwl_eval: "no free lunches"), between :data:`MIN_COST` and
:data:`MAX_COST`, so that their sums over any ranking and their inverses (TrAP and IFT divide by
cumulated costs) stay finite (:func:`cost_problem`, the one rule, for files and measure strings
alike). An error about a cost file names the file, the line and what is wrong, never the line's
content.
"""
from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterator
from typing import Any, Optional

from ir_cwla.errors import CostError
from ir_cwla.io._textstream import text_lines

ANY = "*"
"""The key of a cost file that prices everything the file does not list (and padding)."""
MAX_COST = 2.0 ** 40
"""The largest cost, 2^40 (about 1.1e12: beyond any count of characters, seconds or cents a
document costs): a sum of costs over a ranking of up to 2^64 documents, and its product with
any other such sum or inverse, stays far below the float range (1.8e308), so no expectation
overflows to inf or nan."""
MIN_COST = 2.0 ** -40
"""The smallest cost, 2^-40 (about 9.1e-13): the inverse of a cost or of a cumulated cost (TrAP
and IFT's rate divide by them) is at most MAX_COST, and the models that compare costs with
1 keep their precision (TrAP's tail under 'pad' loses it below about 1e-16)."""


def cost_problem(value: float) -> Optional[str]:
    """Why ``value`` cannot be a cost (not finite, <= 0, or outside [MIN_COST, MAX_COST]), or None."""
    if not (math.isfinite(value) and value > 0):
        return "a cost must be a finite number > 0"
    if not MIN_COST <= value <= MAX_COST:
        return (f"a cost must lie in [{MIN_COST:.3g}, {MAX_COST:.3g}], so that sums of costs over a ranking and "
                "their inverses stay finite")
    return None


def cost_value(text: str, where: str, echo: bool = True) -> float:
    """A cost from its text (:class:`CostError` naming ``where`` unless :func:`cost_problem` has nothing to say).

    ``echo`` quotes the text in errors (not for a file's lines, whose content is never shown).
    """
    shown = f" {text!r}" if echo else " (field 2)"
    try:
        value = float(text)
    except ValueError:
        raise CostError(f"{where}: cost{shown} is not a number") from None
    problem = cost_problem(value)
    if problem:
        raise CostError(f"{where}: {problem}" + (f" (got {text})" if echo else ""))
    return value


_FILES: dict[tuple, dict] = {}


def _cache_key(source: Any) -> Optional[tuple]:
    """The cache key of a cost file source.

    (path, mtime, size) of a regular file, None for a stream, ``-``, a pipe or a FIFO (read each time).
    """
    if hasattr(source, "read") or source == "-":
        return None
    path = os.fspath(source)
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return os.path.abspath(path), info.st_mtime_ns, info.st_size


def read_cost_file(source: Any) -> dict[str, float]:
    """``label cost`` lines (cwl_eval's cost file, or doc_id costs) as a dict.

    A label listed twice keeps its last line, as in cwl_eval. ``source`` is a path, ``-``, a
    FIFO or a stream, plain or compressed (:func:`ir_cwla.io.open_input`); a regular
    file is read once per modification time. Errors name the file and line, not the line's
    content.
    """
    key = _cache_key(source)
    if key is not None and key in _FILES:
        return _FILES[key]
    table = {parts[0]: cost_value(parts[1], where, echo=False) for where, parts in read_fields(source, ("label", "cost"))}
    if key is not None:
        _FILES[key] = table
    return table


def read_fields(source: Any, names: tuple, error: type = CostError, kind: str = "cost") -> Iterator[tuple[str, list]]:
    """The fields of every non-blank line of a whitespace-separated text input.

    (``name:line``, fields) of every non-blank line of a whitespace-separated text input
    (a path, ``-``, a FIFO or a stream, plain or compressed, read once) whose lines hold the
    ``names`` fields; ``error`` names the input and line of any other line (how many fields it
    has, not what they say). ``kind`` names the input in messages (``cost file not found: ...``).
    """
    for name, number, parts in field_lines(source, names, error, kind):
        yield f"{name}:{number}", parts


def field_lines(source: Any, names: tuple, error: type = CostError, kind: str = "cost"
                ) -> Iterator[tuple[str, int, list]]:
    """:func:`read_fields` as (input name, line number, fields), for readers that name a line only in an error."""
    width = len(names)
    for name, number, line in text_lines(source, kind):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != width:
            raise error(f"{name}:{number}: expected {width} fields ({' '.join(names)}), found {len(parts)}")
        yield name, number, parts
