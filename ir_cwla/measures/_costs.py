"""What inspecting a document costs: the measure's ``costs=`` (:class:`CostSpec`), and which files it may read.

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

Costs are finite and > 0 (cwl_eval: "no free lunches"), between :data:`ir_cwla.io.MIN_COST` and
:data:`ir_cwla.io.MAX_COST` (the rule of :mod:`ir_cwla.io`, which reads cost files), so that their
sums over any ranking and their inverses (TrAP and IFT divide by cumulated costs) stay finite.
The scoring room lays the costs out per ranked document (``ir_cwla/scoring/_cell_costs.py``). A type, document or grade the
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
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ir_cwla.errors import CostError, MeasureError, ParameterError
from ir_cwla.io._cost_files import ANY, cost_value, read_cost_file

COST_KINDS = ("grade", "type", "doc")
#: Characters a costs spec may not hold: they would break the measure's short name.
_RESERVED = ",=[]@"
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
        pairs: list[tuple[float, float]] = []
        for part in filter(None, (p.strip() for p in rest.split(";"))):
            grade, sep, cost = part.partition(":")
            try:
                value = float(grade)
            except ValueError:
                sep = ""
            if not sep:
                raise MeasureError(f"costs={text!r}: expected GRADE:COST pairs separated by ';', got {part!r}")
            if not (math.isfinite(value) and value >= 0 and value == int(value)):
                # (a key no grade has would price nothing: grades are integers, a negative one counts as 0)
                raise MeasureError(f"costs={text!r}: grade {grade.strip()} is not a grade: grades are integers >= 0 "
                                   "(a negative grade counts as grade 0)")
            price = cost_value(cost, f"costs={text!r}: grade {grade}")
            twice = [c for g, c in pairs if g == value and c != price]
            if twice:           # (the same price twice is no contradiction)
                raise MeasureError(f"costs={text!r}: grade {grade.strip()} is priced twice, {_fmt(twice[0])} and "
                                   f"{_fmt(price)}")
            pairs.append((value, price))
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

    def labels(self) -> dict:
        """The costs of a ``'type:'`` or ``'doc:'`` file (label -> cost), or the ``'grade:'`` table (grade -> cost).

        A file is read only if a measure string may read it (:func:`allow_cost_files`), else
        :class:`CostError`.
        """
        if self.path is None:
            return dict(self.table)
        if not cost_file_allowed(self.path):
            raise CostError(_not_allowed(self.path))
        return read_cost_file(self.path)

    def pad_cost(self, policy: str = "zero") -> float:
        """The cost of a padding document past a ranking's end."""
        if self.kind == "grade":
            return self.grade_costs(np.zeros(1), "padding")[0]
        if self.kind in ("type", "doc"):
            return self.labels().get(ANY, 1.0)
        return 1.0

    def grade_costs(self, grades: np.ndarray, where: str) -> np.ndarray:
        """The cost of each grade under ``'grade:...'`` costs (:class:`CostError` naming ``where`` for one not priced)."""
        keys = np.array([g for g, _ in self.table])
        costs = np.array([c for _, c in self.table])
        pos = np.clip(np.searchsorted(keys, grades), 0, len(keys) - 1)
        missing = keys[pos] != grades
        if missing.any():
            raise CostError(f"costs='grade:...' prices grades {', '.join(map(_fmt, keys))}, not grade "
                            f"{_fmt(grades[missing][0])} ({where})")
        return costs[pos]



def _fmt(x: float) -> str:
    return f"{x:g}"


