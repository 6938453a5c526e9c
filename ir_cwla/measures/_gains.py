"""How grades become gains, and what an unjudged document is worth: the measure's words for them.

The semantics (``docs/semantics.md``, section 4): the gain r in [0, 1] of grade x is ``'lin'``:
x / x_max, ``'exp'``: (2^x - 1) / 2^x_max (computed as 2^(x - x_max) - 2^(-x_max), which cannot
overflow), or ``'bin'``: 1 if x >= rel else 0; x_max defaults to the largest grade in the qrels
(:class:`GainSpec`, pure numpy). ``CWLA(unjudged=...)`` names one of :data:`UNJUDGED_POLICIES`.
The scoring room (:mod:`ir_cwla.scoring`) applies them to the judgments of ranked runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ir_cwla.errors import MeasureError

GAIN_NAMES = ("lin", "exp", "bin")
"""How grades become gains (``CWLA(gain=...)``): ``'lin'`` x / x_max, ``'exp'`` (2^x - 1) / 2^x_max, ``'bin'`` x >= rel."""

UNJUDGED_POLICIES = ("zero", "max", "condense", "residual")
"""What an unjudged document is worth (``CWLA(unjudged=...)``): ``'zero'`` gain 0 (the
pessimistic bound, trec_eval's convention), ``'max'`` the largest gain (the optimistic
bound), ``'condense'`` removed from the ranking before the user model applies (Sakai's
condensed lists), ``'residual'`` the score under 'max' minus the score under 'zero'."""


@dataclass(frozen=True)
class GainSpec:
    """How grades become gains in [0, 1]: ``kind`` in lin/exp/bin, ``rel`` for bin, ``max_rel``."""

    kind: str
    rel: Optional[float] = None
    max_rel: Optional[float] = None

    def apply(self, grades: np.ndarray, x_max: float) -> np.ndarray:
        """Maps grades (negative already clipped to 0) to gains; pure numpy."""
        if self.kind == "bin":
            return (grades >= self.rel).astype(np.float64)
        x_max = self.max_rel if self.max_rel is not None else x_max
        if x_max <= 0:
            return np.zeros_like(grades, dtype=np.float64)
        if self.kind == "lin":
            return grades / x_max
        if self.kind == "exp":
            # (2^x - 1) / 2^x_max written so that it cannot overflow for any finite grade
            # (equal bit for bit to the plain form for integer grades up to 2^53)
            return np.exp2(grades - x_max) - np.exp2(-x_max)
        raise MeasureError(f"unknown gain {self.kind!r}; valid: {', '.join(GAIN_NAMES)}")

    @property
    def threshold(self) -> int:
        """The smallest integer grade a 'bin' gain counts as relevant: ceil(rel), exact."""
        return math.ceil(self.rel if self.rel is not None else 1.0)

    def binary(self, grades: np.ndarray) -> np.ndarray:
        """'bin' gains of integer grades, compared exactly as integers.

        'bin' gains of integer grades (int64), compared as integers, so that a threshold or a
        grade beyond 2^53 (which a float64 rounds) counts exactly the grades >= rel.
        """
        t = self.threshold
        if t > np.iinfo(np.int64).max:
            return np.zeros(grades.shape, dtype=np.float64)
        return (grades >= np.int64(t)).astype(np.float64)

    def largest(self, x_max: float) -> float:
        """The largest gain a document can have: that of grade ``max_rel`` (or x_max), 1 for 'bin'.

        An unjudged document gets it under ``unjudged='max'`` (0 if x_max is 0).
        """
        if self.kind == "bin":
            return 1.0
        top = self.max_rel if self.max_rel is not None else x_max
        return float(self.apply(np.array([top], dtype=np.float64), x_max)[0])
