"""A griffe extension: the package's reST docstrings read as Markdown by mkdocstrings.

The docstrings use Sphinx roles (``:func:`evaluate```, ``:class:`~ir_cwla.meta.Consistency```),
double-backtick literals and ``::`` literal blocks, which mkdocstrings would print as they
are. This rewrites them, at documentation time only (the package's source is untouched):
a role becomes inline code (``~`` keeps the last name), ``Usage::`` becomes ``Usage:``, and
a parameter written ``name: what it is`` (the older style of some docstrings) becomes numpydoc's
``name`` line followed by its indented description, which griffe's numpy parser reads.
"""
from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|term|ref|doc):`(~?)([^`]+)`")
LITERAL_BLOCK = re.compile(r"(\S)::$", re.MULTILINE)
ITEM_SECTIONS = ("Parameters", "Other Parameters", "Attributes")
SHORT_ITEM = re.compile(r"^([A-Za-z_*][\w*]*(?:\s*,\s*[A-Za-z_*][\w*]*)*):\s+(\S.*)$")


def _role(match: re.Match) -> str:
    tilde, target = match.groups()
    target = target.strip()
    if "<" in target and target.endswith(">"):          # :ref:`text <target>`
        target = target.split("<")[0].strip()
    if tilde:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _is_header(lines: list[str], i: int) -> bool:
    return i + 1 < len(lines) and lines[i].strip() != "" and set(lines[i + 1].strip()) == {"-"} \
        and len(lines[i + 1].strip()) >= 3


def numpy_items(text: str) -> str:
    """``name: description`` items of the Parameters/Attributes sections as numpydoc items."""
    lines = text.split("\n")
    out: list[str] = []
    section = None
    i = 0
    while i < len(lines):
        if _is_header(lines, i):
            section = lines[i].strip()
            out += lines[i:i + 2]
            i += 2
            continue
        line = lines[i]
        match = SHORT_ITEM.match(line) if section in ITEM_SECTIONS else None
        if match:
            out += [match.group(1), "    " + match.group(2)]
        else:
            out.append(line)
        i += 1
    return "\n".join(out)


def markdown(text: str) -> str:
    """A reST docstring in the Markdown mkdocstrings renders."""
    return numpy_items(LITERAL_BLOCK.sub(r"\1:", ROLE.sub(_role, text)))


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
