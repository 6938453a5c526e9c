"""What inspecting a document costs: per-cell costs for the C/W/L expectations and for the
browsing models that read costs.

cwl_eval (Azzopardi, Thomas & Moffat 2019) prices every ranked element: the expected cost
EC = sum_i W(i) c_i and the expected total cost ETC = sum_i L(i) sum_{j<=i} c_j are
reported next to the expected utility, and TBG, U-measure, IFT and BPM decide whether to go
on from the cost spent so far. ``CWLA(costs=...)`` names where the costs come from:

- unset: every document costs 1 (cwl_eval's default);
- ``'grade:0:1;1:2;2:4;3:4'``: a cost per relevance grade (``grade:cost`` pairs separated
  by ``;``); an unjudged document costs what its grade under the unjudged policy costs
  (grade 0, or the largest grade under ``unjudged='max'``);
- ``'type:PATH'``: cwl_eval's cost file (lines ``element_type cost``), pricing the run's
  element types (a TREC run's second column, ``Q0`` in most runs; a DataFrame's
  ``element_type`` column);
- ``'doc:PATH'``: a cost per document (lines ``doc_id cost``): document lengths in
  characters for the U-measure, reading times in seconds for TBG. Lengths from an
  ir_datasets docstore are written to such a file by
  :func:`ir_cwla.datasets.write_document_lengths`.

Costs are finite and > 0 (cwl_eval: "no free lunches"). A type, document or grade the
source does not price is an error, unless a file prices ``*``, the cost of everything it
does not list. Past the end of a ranking (a cutoff deeper than the ranking, or
``tail='pad'``) the model looks at non-relevant padding documents: they cost the ``*``
entry of a file if it has one, the cost of grade 0 under ``'grade:'``, and 1 otherwise.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ir_cwla.errors import CostError, MeasureError
from ir_cwla.gains import PADDING, UNJUDGED, Group, Rankings

COST_KINDS = ("grade", "type", "doc")
#: The key of a cost file that prices everything the file does not list (and padding).
ANY = "*"
#: Characters a costs spec may not hold: they would break the measure's short name.
_RESERVED = ",=[]@"


@dataclass(frozen=True)
class CostSpec:
    """Where the cost of each ranked document comes from (see the module docstring)."""

    kind: str = "unit"
    table: tuple = ()                  # (key, cost) pairs: grades (float) or labels (str)
    path: Optional[str] = None

    @staticmethod
    def parse(text: Optional[str]) -> CostSpec:
        """The spec a ``costs=`` parameter names (None: unit costs); ValueError says what is wrong."""
        if text is None:
            return CostSpec()
        kind, sep, rest = str(text).partition(":")
        if not sep or kind not in COST_KINDS or not rest:
            raise MeasureError(f"costs={text!r}: write 'grade:0:1;1:2;...', 'type:PATH' (cwl_eval's cost file) "
                             "or 'doc:PATH' (doc_id cost lines)")
        bad = sorted(set(_RESERVED) & set(rest))
        if bad:
            raise MeasureError(f"costs={text!r}: {' '.join(bad)} cannot appear in a costs spec (they would break "
                             "the measure's short name); rename the file")
        if kind != "grade":
            return CostSpec(kind, path=rest)
        pairs = []
        for part in filter(None, (p.strip() for p in rest.split(";"))):
            grade, sep, cost = part.partition(":")
            try:
                value = float(grade)
            except ValueError:
                sep = ""
            if not sep:
                raise MeasureError(f"costs={text!r}: expected GRADE:COST pairs separated by ';', got {part!r}")
            pairs.append((value, _cost(cost, f"costs={text!r}: grade {grade}")))
        if not pairs:
            raise MeasureError(f"costs={text!r}: no GRADE:COST pair")
        return CostSpec("grade", tuple(sorted(dict(pairs).items())))

    def check(self) -> Optional[str]:
        """Why the costs cannot be used (a missing file), or None."""
        if self.path is not None and not os.path.isfile(self.path):
            return f"cost file not found: {self.path}"
        return None

    @property
    def needs_doc_ids(self) -> bool:
        return self.kind == "doc"

    @property
    def needs_element_types(self) -> bool:
        return self.kind == "type"

    def _labels(self) -> dict:
        return dict(self.table) if self.path is None else read_cost_file(self.path)

    def pad_cost(self, policy: str = "zero") -> float:
        """The cost of a padding document past a ranking's end."""
        if self.kind == "grade":
            return self._grade_cost(np.zeros(1), "padding")[0]
        if self.kind in ("type", "doc"):
            return self._labels().get(ANY, 1.0)
        return 1.0

    def _grade_cost(self, grades: np.ndarray, where: str) -> np.ndarray:
        keys = np.array([g for g, _ in self.table])
        costs = np.array([c for _, c in self.table])
        pos = np.clip(np.searchsorted(keys, grades), 0, len(keys) - 1)
        missing = keys[pos] != grades
        if missing.any():
            raise CostError(f"costs='grade:...' prices grades {', '.join(map(_fmt, keys))}, not grade "
                            f"{_fmt(grades[missing][0])} ({where})")
        return costs[pos]

    def cell_costs(self, ranked: Rankings, group: Group, policy: str, top_grade: float) -> Optional[np.ndarray]:
        """The cost of every cell of ``group`` (padding past a ranking's end included) under the
        unjudged ``policy`` ('zero' or 'max'); None for unit costs (the kernel's default)."""
        if self.kind == "unit":
            return None
        pad = self.pad_cost(policy)
        if self.kind == "grade":
            grades = np.where(group.judgments == UNJUDGED, top_grade if policy == "max" else 0.0, group.grades)
            cells = group.judgments != PADDING
            out = np.full(grades.shape, pad)
            out[cells] = self._grade_cost(grades[cells], f"topics {_topics(ranked, group)}")
            return out
        labels = ranked.element_types if self.kind == "type" else ranked.doc_ids
        if labels is None:
            what = ("element types (a TREC run's second column, a DataFrame's element_type column)"
                    if self.kind == "type" else "doc_ids (rank the run with doc_ids=True)")
            raise CostError(f"costs='{self.kind}:{self.path}' prices {what}, but the ranked run has none")
        table = self._labels()
        default = table.get(ANY, math.nan)
        price = np.array([table.get(str(name), default) for name in labels.names] + [pad], dtype=np.float64)
        codes = ranked.dense(group, labels.codes, -1)            # -1 past a ranking's end: padding
        out = price[codes]
        if np.isnan(out).any():
            r, i = np.argwhere(np.isnan(out))[0]
            what = "element type" if self.kind == "type" else "document"
            raise CostError(f"cost file {self.path} prices no {what} {labels.names[codes[r, i]]!r} (topic "
                            f"{ranked.topics[group.rows[r]]!r}, rank {i + 1}); add it, or a line '{ANY} COST' "
                            "for everything the file does not list")
        return out


def _fmt(x: float) -> str:
    return f"{x:g}"


def _topics(ranked: Rankings, group: Group) -> str:
    names = [repr(t) for t in ranked.topics[group.rows[:3]]]
    return ", ".join(names) + (", ..." if len(group.rows) > 3 else "")


def _cost(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CostError(f"{where}: cost {text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise CostError(f"{where}: a cost must be a finite number > 0 (got {text})")
    return value


_FILES: dict[tuple, dict] = {}


def read_cost_file(path: str) -> dict[str, float]:
    """``label cost`` lines (cwl_eval's cost file, or doc_id costs) as a dict; a label listed
    twice keeps its last line, as in cwl_eval. Read once per file (and modification time)."""
    stat = os.stat(path)
    key = (os.path.abspath(path), stat.st_mtime_ns, stat.st_size)
    if key not in _FILES:
        _FILES[key] = {parts[0]: _cost(parts[1], where) for where, parts in read_fields(path, ("label", "cost"))}
    return _FILES[key]


def read_fields(path: str, names: tuple, error: type = CostError):
    """(``path:line``, fields) of every non-blank line of a whitespace-separated file whose
    lines hold the ``names`` fields; ``error`` names the file and line of any other line."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != len(names):
                raise error(f"{path}:{lineno}: expected {len(names)} fields ({' '.join(names)}), found "
                            f"{len(parts)}: {line.strip()[:80]!r}")
            yield f"{path}:{lineno}", parts
