r"""Text that leaves the package for other programs (spreadsheets, matplotlib) and for people.

Four rules, each in one place:

* :func:`csv_safe` -- a CSV cell that starts with ``=``, ``+``, ``-``, ``@`` (or a tab or
  carriage return) is a formula to Excel, LibreOffice and Google Sheets (CSV injection,
  OWASP). Such text cells get a leading ``'``, which spreadsheets show as text; numbers
  (numeric columns, and text cells that are plain numbers such as ``-0.5``) stay numbers.
* :func:`plain` -- matplotlib reads ``$...$`` in any text as mathtext, so a system named
  ``$\frac{1}{$`` would be typeset or fail to draw. Names put on a figure go through
  :func:`plain`, which escapes every ``$``; :data:`PLAIN_TEXT` are the keyword arguments that
  make a ``Text`` artist show its string as it is (no mathtext, no LaTeX).
* :func:`shown` -- a value quoted in a message: numbers as plain numbers (``nan``, ``0.5``),
  never numpy's ``np.float64(nan)``; anything else as its ``repr``.
* :func:`escape_name` -- a system name in output lines has its control characters written as
  Python escapes, so that no name forges a line; :func:`run_name` names a run by its file.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import pandas as pd

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
#: Keyword arguments of ``ax.text`` / ``ax.annotate`` that show a string as it is.
PLAIN_TEXT: dict[str, Any] = {"usetex": False, "parse_math": False}


def _formula_like(text: str) -> bool:
    """True for text :func:`csv_cell` escapes.

    It starts like a formula and is no plain number, or it is ``'`` followed by such text
    (so that the escape can be undone unambiguously).
    """
    if text.startswith(FORMULA_STARTS) and not _NUMBER.match(text):
        return True
    return text.startswith("'") and _formula_like(text[1:])


def csv_cell(value: Any) -> Any:
    """``value`` escaped so that a spreadsheet does not run it as a formula.

    ``value`` with a leading ``'`` if it is text a spreadsheet would run as a formula (or text
    that already looks escaped, ``'=x``, so that :func:`csv_unescape` gives back any value).
    """
    if isinstance(value, str) and _formula_like(value):
        return "'" + value
    return value


def csv_unescape(value: Any) -> Any:
    """The inverse of :func:`csv_cell`: ``csv_unescape(csv_cell(v)) == v`` for every ``v``."""
    if isinstance(value, str) and value.startswith("'") and _formula_like(value[1:]):
        return value[1:]
    return value


def _safe_index(index: pd.Index) -> pd.Index:
    import pandas as pd  # (here: ``import ir_cwla`` loads no pandas)

    if isinstance(index, pd.MultiIndex):
        return index.set_levels([_safe_index(level) for level in index.levels])
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return pd.Index([csv_cell(v) for v in index], name=csv_cell(index.name), dtype=object)
    return index.rename(csv_cell(index.name))


def csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells, column names and index labels cannot run as formulas."""
    import pandas as pd

    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].map(csv_cell)
    out.columns = _safe_index(out.columns)
    out.index = _safe_index(out.index)
    return out


def plain(text: Any) -> str:
    """``str(text)`` with every ``$`` escaped, so matplotlib never reads it as mathtext."""
    return str(text).replace("$", r"\$")


def shown(value: Any) -> str:
    """``value`` as a message shows it.

    Numbers as plain numbers (``nan``, ``0.5``, ``3``; never numpy's ``np.float64(nan)``), anything
    else as its ``repr`` (``'abc'``); sequences item by item.
    """
    import numbers

    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, (list, tuple)):
        inner = ", ".join(shown(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)


# ------------------------------------------------------------------------- names of systems

_COMPRESSED = (".gz", ".bz2", ".xz", ".zst")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def escape_name(name: str) -> str:
    r"""A system name that output lines cannot be forged with.

    Control characters (newline, tab, ...) written as Python escapes
    (``'a\nb'``); everything else unchanged.
    """
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], name)


def run_name(path: Union[str, os.PathLike]) -> str:
    """The system name of a TREC run file.

    ``runs/input.TUA1-1.gz`` -> ``TUA1-1`` (control characters escaped,
    :func:`escape_name`).
    """
    name = Path(path).name
    for ext in _COMPRESSED:
        if name.endswith(ext):
            name = name[: -len(ext)]
    for ext in (".txt", ".run", ".trec", ".tsv"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    name = name[len("input."):] if name.startswith("input.") and len(name) > len("input.") else name
    return escape_name(name)
