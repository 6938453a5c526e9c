"""What inspecting a document costs.

per-cell costs for the C/W/L expectations and for the browsing models that read
costs.

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

Costs are finite and > 0 (cwl_eval: "no free lunches"), between :data:`MIN_COST` and
:data:`MAX_COST`, so that their sums over any ranking and their inverses (TrAP and IFT divide
by cumulated costs) stay finite. A type, document or grade the
source does not price is an error, unless a file prices ``*``, the cost of everything it
does not list. Past the end of a ranking (a cutoff deeper than the ranking, or
``tail='pad'``) the model looks at non-relevant padding documents: they cost the ``*``
entry of a file if it has one, the cost of grade 0 under ``'grade:'``, and 1 otherwise.

**Files named inside a measure are read only with an opt-in.** Measure names come from
users of services, notebooks and the accuracy columns of leaderboard CSVs, so a measure
string alone cannot make the library open a file: ``'type:PATH'`` and ``'doc:PATH'`` are
refused (when the measure is validated, before anything is opened) unless PATH, or a
directory above it, is allowed, by :func:`allow_cost_files` in the program or by the
environment variable :data:`COST_FILES_ENV` (``IR_CWLA_COST_FILES=/data/costs:/tmp/x.txt``,
paths separated by ``os.pathsep``; symbolic links are resolved before the comparison, so a
link in an allowed directory to a file elsewhere is refused). ``allow_cost_files`` records the
paths in that variable, so that worker processes started afterwards (``ir_cwla.meta``'s
executors) inherit them; Dask workers on other machines need it set there. The command line
allows the files a user names in the measures of their own command (``ir-cwla eval -m``, ``meta
-m``, ``measures``, ``compare -m``); ``ir-cwla cwl -c FILE`` reads its cost file itself. An error about a
cost file names the file, the line and what is wrong, never the line's content.
"""
from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ir_cwla.errors import CostError, MeasureError, ParameterError
from ir_cwla.io._textstream import text_lines
from ir_cwla.scoring._gains import PADDING, UNJUDGED, Group, Rankings

COST_KINDS = ("grade", "type", "doc")
#: The key of a cost file that prices everything the file does not list (and padding).
ANY = "*"
#: Characters a costs spec may not hold: they would break the measure's short name.
_RESERVED = ",=[]@"
#: The largest cost, 2^40 (about 1.1e12: beyond any count of characters, seconds or cents a
#: document costs): a sum of costs over a ranking of up to 2^64 documents, and its product with
#: any other such sum or inverse, stays far below the float range (1.8e308), so no expectation
#: overflows to inf or nan.
MAX_COST = 2.0 ** 40
#: The smallest cost, 2^-40 (about 9.1e-13): the inverse of a cost or of a cumulated cost (TrAP
#: and IFT's rate divide by them) is at most MAX_COST, and the models that compare costs with
#: 1 keep their precision (TrAP's tail under 'pad' loses it below about 1e-16).
MIN_COST = 2.0 ** -40
#: The environment variable listing the cost files (or directories) that measure strings may
#: read, separated by ``os.pathsep`` (see the module docstring and :func:`allow_cost_files`).
COST_FILES_ENV = "IR_CWLA_COST_FILES"


def allowed_cost_paths() -> list[str]:
    """The files and directories measure strings may read cost files from (resolved paths)."""
    return [os.path.realpath(p) for p in os.environ.get(COST_FILES_ENV, "").split(os.pathsep) if p]


def cost_file_allowed(path: Any) -> bool:
    """Whether a measure string may read the cost file ``path``.

    It, or a directory above it, is allowed (:func:`allow_cost_files`,
    :data:`COST_FILES_ENV`), symbolic links resolved.
    """
    real = os.path.realpath(os.fspath(path))
    for allowed in allowed_cost_paths():
        if real == allowed or real.startswith(allowed.rstrip(os.sep) + os.sep):
            return True
    return False


class CostFileAllowance:
    """What :func:`allow_cost_files` returns.

    Used as a context manager, it restores the allowed paths of before on exit.
    """

    def __init__(self, paths: tuple):
        self._before = os.environ.get(COST_FILES_ENV)
        added = []
        for p in paths:
            text = os.fspath(p)
            if not text or os.pathsep in text:
                raise ParameterError(f"allow_cost_files: {text!r} cannot be allowed: a path must be non-empty and "
                                     f"not contain {os.pathsep!r}")
            added.append(os.path.realpath(text))
        if added:
            os.environ[COST_FILES_ENV] = os.pathsep.join(([self._before] if self._before else []) + added)

    def __enter__(self) -> CostFileAllowance:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._before is None:
            os.environ.pop(COST_FILES_ENV, None)
        else:
            os.environ[COST_FILES_ENV] = self._before


def allow_cost_files(*paths: Any) -> CostFileAllowance:
    """Lets measure strings read these cost files, or any file under these directories.

    Lets measure strings read these cost files, or any file under these directories
    (``CWLA(costs='type:PATH')``, ``'doc:PATH'``); without it a measure naming a file is refused.

    ``ir_cwla.allow_cost_files('lengths.txt')`` allows it for the rest of the program; ``with
    ir_cwla.allow_cost_files('costs/'): ...`` only inside the block. The paths are added to the
    environment variable :data:`COST_FILES_ENV`, which worker processes started afterwards inherit.
    """
    return CostFileAllowance(paths)


def _not_allowed(path: str) -> str:
    return (f"cost file {path} is named inside a measure, and a measure string may read a file only with an "
            f"opt-in (measure names can come from users, services or CSV columns): call "
            f"ir_cwla.allow_cost_files({path!r}) (or name a directory holding it), or set {COST_FILES_ENV}")


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
        """Why the costs cannot be used (a file not allowed, or missing), or None."""
        if self.path is not None:
            if not cost_file_allowed(self.path):
                return _not_allowed(self.path)
            if not os.path.isfile(self.path):
                return f"cost file not found: {self.path}"
        return None

    @property
    def needs_doc_ids(self) -> bool:
        """True if the costs are priced per document (``'doc:PATH'``), so doc_ids must be kept."""
        return self.kind == "doc"

    @property
    def needs_element_types(self) -> bool:
        """True if costs are priced per element type (``'type:PATH'``): the run's types are read."""
        return self.kind == "type"

    def _labels(self) -> dict:
        if self.path is None:
            return dict(self.table)
        if not cost_file_allowed(self.path):
            raise CostError(_not_allowed(self.path))
        return read_cost_file(self.path)

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
        """The cost of every cell of ``group`` under the unjudged ``policy``.

        The cost of every cell of ``group`` (padding past a ranking's end included) under the
        unjudged ``policy`` ('zero' or 'max'); None for unit costs (the kernel's default).
        """
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


def cost_problem(value: float) -> Optional[str]:
    """Why ``value`` cannot be a cost (not finite, <= 0, or outside [MIN_COST, MAX_COST]), or None."""
    if not (math.isfinite(value) and value > 0):
        return "a cost must be a finite number > 0"
    if not MIN_COST <= value <= MAX_COST:
        return (f"a cost must lie in [{MIN_COST:.3g}, {MAX_COST:.3g}], so that sums of costs over a ranking and "
                "their inverses stay finite")
    return None


def _cost(text: str, where: str, echo: bool = True) -> float:
    """A cost from its text; ``echo`` quotes the text in errors (not for a file's lines)."""
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
    FIFO or a stream, plain or compressed (:func:`ir_cwla.textstream.open_input`); a regular
    file is read once per modification time. Errors name the file and line, not the line's
    content.
    """
    key = _cache_key(source)
    if key is not None and key in _FILES:
        return _FILES[key]
    table = {parts[0]: _cost(parts[1], where, echo=False) for where, parts in read_fields(source, ("label", "cost"))}
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
