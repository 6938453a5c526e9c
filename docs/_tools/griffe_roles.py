"""A griffe extension: the package's reST docstrings read as Markdown by mkdocstrings.

The docstrings use Sphinx roles (``:func:`evaluate```, ``:class:`~ir_cwla.meta.Consistency```),
double-backtick literals and ``::`` literal blocks, which mkdocstrings would print as they
are. This rewrites them, at documentation time only (the package's source is untouched):
a role becomes inline code (``~`` keeps the last name) and ``Usage::`` becomes ``Usage:``.
The Parameters sections are numpydoc's (``name`` on a line, its description indented below,
checked by ruff's pydocstyle rules), which griffe's numpy parser reads as they are.
"""
from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|term|ref|doc):`(~?)([^`]+)`")
LITERAL_BLOCK = re.compile(r"(\S)::$", re.MULTILINE)


def _role(match: re.Match) -> str:
    tilde, target = match.groups()
    target = target.strip()
    if "<" in target and target.endswith(">"):          # :ref:`text <target>`
        target = target.split("<")[0].strip()
    if tilde:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown(text: str) -> str:
    """A reST docstring in the Markdown mkdocstrings renders."""
    return LITERAL_BLOCK.sub(r"\1:", ROLE.sub(_role, text))


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
