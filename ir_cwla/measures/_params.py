"""The parameters of browsing models and aggregations, declared beside the model that reads them.

A browsing model or an aggregation declares each numeric parameter it reads as a
:class:`Param` (its default, its admissible range or values and what it means), the way an
ir-measures measure declares ``ParamInfo``::

    register_browsing_model("Half", half, params={"q": Param(0.5, bounds=(0.0, 1.0), closed="neither",
                                                             doc="chance of going on after a relevant document")})

From these declarations :class:`ir_cwla.CWLA` builds its supported parameters, their
validation, their one spelling, the short names (``Half(q=0.3)_ERG@10``), the
command line's help and the documentation's reference tables: nothing else lists them.
Several models may declare the same name (``T`` is INST's target gain and BPM's gain
budget), each with its own default and range.

Every ``continuation(inp, params)``, tail, check and aggregation receives the measure's
parameters as one :data:`Params` mapping (:meth:`ir_cwla.CWLA.model_params`): every
parameter its model and its aggregation declare (the measure's value, else the declared
default) and ``cutoff`` (an int, or None).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Optional, Union

from ir_cwla._text import shown
from ir_cwla.errors import RegistrationError

#: What a model, tail, check or aggregation receives: its declared parameters and ``cutoff``.
Params = Mapping[str, Any]

MEASURE_PARAMS = ("cutoff", "C", "A", "gain", "rel", "max_rel", "tail", "unjudged", "costs")
"""The parameters of every C/W/L/A measure (:class:`ir_cwla.CWLA`), which no model or
aggregation may declare: its cutoff, model, aggregation, gains, tail, unjudged policy, costs."""

#: The words of :attr:`Param.closed` (those of ``pandas.Interval``).
CLOSED = ("both", "neither", "left", "right")


@dataclass(frozen=True)
class Param:
    """One numeric parameter of a browsing model or an aggregation.

    Parameters
    ----------
    default : float or int
        The value a measure that does not set the parameter uses.
    bounds : (low, high), optional
        The admissible range (``-math.inf`` / ``math.inf`` for an open end); NaN is never
        admissible, and a bounded parameter must be finite unless its bound is infinite and
        closed.
    closed : {'both', 'neither', 'left', 'right'}
        Which ends of ``bounds`` are admissible, as in ``pandas.Interval`` (default 'both').
    choices : tuple, optional
        The admissible values, instead of (or as well as) a range.
    doc : str
        What the parameter means, for ``--help`` and the reference tables.
    """

    default: Any
    bounds: Optional[tuple[float, float]] = None
    closed: str = "both"
    choices: Optional[tuple[Any, ...]] = None
    doc: str = ""

    @property
    def dtype(self) -> type:
        """``int`` for a parameter whose default is an int, else ``float``."""
        return int if isinstance(self.default, Integral) and not isinstance(self.default, bool) else float

    def declaration_problem(self, name: str) -> Optional[str]:
        """Why this declaration cannot be used (None if it can)."""
        if isinstance(self.default, bool) or not isinstance(self.default, Real):
            return f"parameter {name!r}: the default must be a number, got {self.default!r}"
        if self.closed not in CLOSED:
            return f"parameter {name!r}: closed={self.closed!r} is not one of {', '.join(CLOSED)}"
        if self.bounds is not None:
            if len(self.bounds) != 2 or not all(isinstance(b, Real) and not math.isnan(b) for b in self.bounds) \
                    or self.bounds[0] > self.bounds[1]:
                return f"parameter {name!r}: bounds must be (low, high) numbers with low <= high, got {self.bounds!r}"
        if self.choices is not None and not self.choices:
            return f"parameter {name!r}: choices is empty"
        problem = self.problem(name, self.default)
        if problem:
            return f"parameter {name!r}: its default {problem}"
        return None

    def canonical(self, value: Any) -> Any:
        """``value`` in the parameter's one spelling (float, or int for an int parameter)."""
        if isinstance(value, bool) or not isinstance(value, Real):
            return value
        if self.dtype is int:
            if isinstance(value, Integral):
                return int(value)
            return int(float(value)) if float(value).is_integer() else value
        return float(value)

    def problem(self, name: str, value: Any) -> Optional[str]:
        """Why ``value`` is not admissible (None if it is), as a sentence naming ``name``."""
        if isinstance(value, bool) or not isinstance(value, Real):
            return f"{name} must be a number (got {name}={shown(value)})"
        if self.dtype is int and not (isinstance(value, Integral) or float(value).is_integer()):
            return f"{name} must be an integer (got {name}={shown(value)})"
        v = float(value)
        if self.choices is not None and value not in self.choices:
            return f"{name} must be one of {', '.join(map(repr, self.choices))} (got {name}={shown(value)})"
        if self.bounds is None:
            return None if math.isfinite(v) else f"{name} must be a finite number (got {name}={shown(value)})"
        if not self.admits(v):
            return f"{name} must {self.describe()} (got {name}={shown(value)})"
        return None

    def admits(self, v: float) -> bool:
        """True if ``v`` lies within :attr:`bounds` (NaN never does)."""
        if self.bounds is None:
            return math.isfinite(v)
        lo, hi = self.bounds
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        return (lo <= v if left else lo < v) and (v <= hi if right else v < hi) and \
            (math.isfinite(v) or (v == hi and right) or (v == lo and left))

    def describe(self) -> str:
        """The admissible values in words: ``lie in (0, 1)``, ``be a finite number > 0``."""
        if self.bounds is None:
            return "be a finite number" if self.choices is None else \
                f"be one of {', '.join(map(repr, self.choices))}"
        lo, hi = self.bounds
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        if math.isinf(lo) and math.isinf(hi):
            return "be a finite number"
        if math.isinf(hi):
            return f"be a finite number {'>=' if left else '>'} {_number(lo)}"
        if math.isinf(lo):
            return f"be a finite number {'<=' if right else '<'} {_number(hi)}"
        return f"lie in {'[' if left else '('}{_number(lo)}, {_number(hi)}{']' if right else ')'}"


def _number(x: float) -> str:
    return f"{x:g}"


def check_declarations(owner: str, params: Mapping[str, Param], reserved: tuple[str, ...]) -> dict[str, Param]:
    """The declarations of ``owner`` (a model or an aggregation) as a dict.

    Raises :class:`~ir_cwla.errors.RegistrationError` if a name is not an identifier, is
    one of ``reserved`` (the parameters of every C/W/L/A measure) or a declaration is unusable.
    """
    out: dict[str, Param] = {}
    for name, param in params.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise RegistrationError(f"{owner}: parameter names must be identifiers, got {name!r}")
        if name in reserved:
            raise RegistrationError(f"{owner}: {name!r} is a parameter of every C/W/L/A measure ({', '.join(reserved)}); "
                           "choose another name")
        if not isinstance(param, Param):
            raise RegistrationError(f"{owner}: parameter {name!r} must be declared as ir_cwla.Param(default, bounds=..., "
                           f"doc=...), got {param!r}")
        problem = param.declaration_problem(name)
        if problem:
            raise RegistrationError(f"{owner}: {problem}")
        out[name] = param
    return out


def declared_params(name: str, tables: Sequence[Mapping[str, Any]]) -> Optional[Param]:
    """The declaration of parameter ``name`` by the first registered entry of ``tables`` that declares it."""
    for table in tables:
        for entry in table.values():
            if name in entry.params:
                return entry.params[name]
    return None


def as_declarations(owner: str, params: Union[Mapping[str, Param], Sequence[str]],
                    tables: Sequence[Mapping[str, Any]]) -> dict[str, Param]:
    """``params`` of a registration as declarations.

    A mapping ``{name: Param}``, or a sequence of names that registered models or
    aggregations (``tables``) declare already (``('p',)`` reads RBP's ``p``). ``'cutoff'`` is
    the measure's own and may be listed (it is left out).
    """
    if isinstance(params, Mapping):
        return check_declarations(owner, params, MEASURE_PARAMS)
    out: dict[str, Param] = {}
    for name in params:
        if name == "cutoff":
            continue
        found = declared_params(name, tables)
        if found is None:
            raise RegistrationError(f"{owner}: parameter {name!r} is declared by no registered model or "
                                    f"aggregation; declare it: params={{{name!r}: ir_cwla.Param(default, "
                                    "bounds=(low, high), doc='...')}}")
        out[name] = found
    return out
