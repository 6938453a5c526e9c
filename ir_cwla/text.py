"""Text that leaves the package for other programs: spreadsheets and matplotlib.

Two rules, each in one place:

* :func:`csv_safe` -- a CSV cell that starts with ``=``, ``+``, ``-``, ``@`` (or a tab or
  carriage return) is a formula to Excel, LibreOffice and Google Sheets (CSV injection,
  OWASP). Such text cells get a leading ``'``, which spreadsheets show as text; numbers
  (numeric columns, and text cells that are plain numbers such as ``-0.5``) stay numbers.
* :func:`plain` -- matplotlib reads ``$...$`` in any text as mathtext, so a system named
  ``$\\frac{1}{$`` would be typeset or fail to draw. Names put on a figure go through
  :func:`plain`, which escapes every ``$``; :data:`PLAIN_TEXT` are the keyword arguments that
  make a ``Text`` artist show its string as it is (no mathtext, no LaTeX).
"""
from __future__ import annotations

import re
from typing import Any

import pandas as pd

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
#: Keyword arguments of ``ax.text`` / ``ax.annotate`` that show a string as it is.
PLAIN_TEXT: dict[str, Any] = {"usetex": False, "parse_math": False}


def csv_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.match(value):
        return "'" + value
    return value


def _safe_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return index.set_levels([_safe_index(level) for level in index.levels])
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return pd.Index([csv_cell(v) for v in index], name=csv_cell(index.name), dtype=object)
    return index.rename(csv_cell(index.name))


def csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells, column names and index labels cannot run as formulas."""
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
