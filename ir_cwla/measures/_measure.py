"""The ``CWLA`` measure: any browsing model x aggregation pair as an ir-measures measure.

Its parameters are those of every C/W/L/A measure (:data:`GENERAL_PARAMS`: cutoff, model,
aggregation, gains, tail, unjudged policy, costs) and those the registered browsing models
and aggregations declare (:class:`ir_cwla.Param`); :attr:`CWLA.SUPPORTED_PARAMS`, the
validation, the one spelling and the defaults are built from the registries, so a
model registered with a parameter of its own is a measure like any other.
"""
from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Optional

from ir_measures import measures
from ir_measures.providers.base import Any as AnyParam

from ir_cwla._text import shown
from ir_cwla.errors import MeasureError
from ir_cwla.measures import (
    _cwl_models,  # noqa: F401  (registers cwl_eval's browsing models)
)
from ir_cwla.measures import _registry as registry
from ir_cwla.measures._aggregation import AGGREGATIONS, Aggregation, get_aggregation
from ir_cwla.measures._browsing import BROWSING_MODELS, TAILS, BrowsingModel, get_browsing_model
from ir_cwla.measures._costs import CostSpec
from ir_cwla.measures._gains import GAIN_NAMES, UNJUDGED_POLICIES, GainSpec
from ir_cwla.measures._params import MEASURE_PARAMS, Param, Params

if TYPE_CHECKING:
    from typing import TypeGuard

_NP = measures.base._NOT_PROVIDED
#: Largest cutoff (a rank is an int64; a cutoff deeper than the ranking costs nothing).
MAX_CUTOFF = 2**62

#: The parameters of every C/W/L/A measure, in their order around the declared ones:
#: ``cutoff, C, A`` first, then the model's and the aggregation's, then these.
GENERAL_PARAMS = {
    "cutoff": measures.ParamInfo(dtype=int, required=False, desc="ranking depth D looked at (the cutoff k)"),
    "C": measures.ParamInfo(dtype=str, default="RBP", desc="browsing model"),
    "A": measures.ParamInfo(dtype=str, default="ERG", desc="aggregation"),
    "gain": measures.ParamInfo(dtype=str, required=False,
                               desc="lin (x/x_max), exp ((2^x-1)/2^x_max) or bin (x >= rel); "
                                    "default: exp for ERR, lin otherwise, bin when rel is given"),
    "rel": measures.ParamInfo(dtype=float, required=False, desc="binary relevance threshold (gain='bin')"),
    "max_rel": measures.ParamInfo(dtype=float, required=False,
                                  desc="x_max; default: the largest grade in the qrels"),
    "tail": measures.ParamInfo(dtype=str, default="stop",
                               desc="'stop': the user stops at D at the latest; 'pad': the ranking "
                                    "continues with non-relevant documents forever"),
    "unjudged": measures.ParamInfo(dtype=str, default="zero",
                                   desc="unjudged documents: 'zero' (gain 0), 'max' (the largest gain), "
                                        "'condense' (removed before the user model applies), 'residual' "
                                        "(the score under 'max' minus the score under 'zero')"),
    "costs": measures.ParamInfo(dtype=str, required=False,
                                desc="document costs read by EC, ETC and the cost-aware models: "
                                     "'grade:0:1;1:2;...' (per grade), 'type:PATH' (cwl_eval's cost file, "
                                     "by element type), 'doc:PATH' (per doc_id); default 1 per document"),
}
assert tuple(GENERAL_PARAMS) == MEASURE_PARAMS[:1] + MEASURE_PARAMS[1:]


def declarations() -> dict[str, list[tuple[str, Param]]]:
    """Every declared parameter name with its declarations, in registration order.

    Every declared parameter name -> its declarations ``[(owner, Param), ...]``, in registration
    order (models first, then aggregations); ``owner`` is ``'C=NAME'`` or ``'A=NAME'``.
    """
    return {key: list(decls) for key, decls in _declarations().items()}


_DECLARED: tuple[int, dict[str, list[tuple[str, Param]]]] = (-1, {})


def _declarations() -> dict[str, list[tuple[str, Param]]]:
    """:func:`declarations`, built once per state of the registries.

    :func:`declarations`, built once per state of the registries (every measure made reads it:
    ``import ir_cwla`` makes a few hundred); not to be modified.
    """
    global _DECLARED
    if _DECLARED[0] != registry.generation:
        out: dict[str, list[tuple[str, Param]]] = {}
        for prefix, table in (("C", BROWSING_MODELS), ("A", AGGREGATIONS)):
            for name, entry in table.items():
                for key, param in entry.params.items():
                    out.setdefault(key, []).append((f"{prefix}={name}", param))
        _DECLARED = (registry.generation, out)
    return _DECLARED[1]


def _repeated_grade(costs: str) -> Optional[str]:
    """Why a ``'grade:...'`` costs spec is contradictory (a grade priced twice, at two costs), or None.

    (:meth:`CostSpec.parse` has read the spec, so every pair is well formed.)
    """
    kind, _, rest = costs.partition(":")
    if kind != "grade":
        return None
    seen: dict[float, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(";"))):
        grade, _, cost = part.partition(":")
        key = float(grade)
        if key in seen and float(seen[key].partition(":")[2]) != float(cost):
            return f"grade {grade.strip()} is priced twice, {seen[key]} and {part}; give each grade one cost"
        seen.setdefault(key, part)
    return None


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, Real) and not isinstance(value, bool) else repr(value)


class _SupportedParams:
    """``CWLA.SUPPORTED_PARAMS``, rebuilt from the registries whenever one changes."""

    def __init__(self) -> None:
        self._built: tuple[int, dict[str, measures.ParamInfo]] = (-1, {})

    def __get__(self, obj: Any, owner: Any) -> dict[str, measures.ParamInfo]:
        if self._built[0] != registry.generation:
            out = {k: GENERAL_PARAMS[k] for k in ("cutoff", "C", "A")}
            out["C"] = measures.ParamInfo(dtype=str, default="RBP", desc="browsing model: " + ", ".join(BROWSING_MODELS))
            out["A"] = measures.ParamInfo(dtype=str, default="ERG", desc="aggregation: " + ", ".join(AGGREGATIONS))
            for key, decls in _declarations().items():
                first = decls[0][1]
                desc = "; ".join(f"{owner}: {param.doc or key}, default {param.default:g}, must {param.describe()}"
                                 for owner, param in decls)
                out[key] = measures.ParamInfo(dtype=first.dtype, default=first.default, desc=desc)
            out.update({k: v for k, v in GENERAL_PARAMS.items() if k not in out})
            self._built = (registry.generation, out)
        return self._built[1]


def _entries(params: dict[str, Any]) -> tuple[Optional[BrowsingModel], Optional[Aggregation]]:
    c, a = params.get("C", "RBP"), params.get("A", "ERG")
    return (BROWSING_MODELS.get(c) if isinstance(c, str) else None,
            AGGREGATIONS.get(a) if isinstance(a, str) else None)


def _declared(model: Optional[BrowsingModel], agg: Optional[Aggregation]) -> dict[str, Param]:
    """The parameters the model and the aggregation declare (the model's first where both do)."""
    out: dict[str, Param] = dict(agg.params) if agg is not None else {}
    if model is not None:
        out.update(model.params)
    return out


#: Parameters that are grade thresholds: compared with integer grades, so the float they are
#: held in must mean the same grades as the number written.
THRESHOLDS = ("rel",)


def threshold_problem(name: str, written: Any, held: float) -> Optional[str]:
    """Why a grade threshold cannot be held in a float, or None if it can.

    Why the grade threshold ``name`` written as ``written`` (its text, or an int) cannot be
    held in the float ``held``: it would count other integer grades as relevant (None if it can).
    """
    try:
        exact = Decimal(written.strip()) if isinstance(written, str) else Decimal(written)
    except (InvalidOperation, ValueError, TypeError):
        return None
    if not exact.is_finite() or not math.isfinite(held):
        return None
    if exact == Decimal(held) or math.ceil(exact) == math.ceil(Decimal(held)):
        return None
    return (f"{name}={written} is held as the float {held!r}, which would count grades >= {math.ceil(Decimal(held))} "
            f"as relevant where grades >= {math.ceil(exact)} were asked for (a float holds integers exactly up to "
            "2^53); write a threshold a float holds exactly")


def _normal_params(params: dict[str, Any]) -> dict[str, Any]:
    """The one spelling of a measure's parameters, so that equal measures are equal objects.

    The one spelling of a measure's parameters, so that equal measures are equal objects
    (ir-measures compares measures by their repr).

    Numbers become float (``cutoff`` and int parameters int); parameters are ordered
    ``cutoff, C, A``, the model's in its declaration order, the aggregation's, then the other
    general ones; ``gain`` is kept only where it differs from what the model and ``rel`` imply
    (``rel`` implies 'bin', and 'bin' without ``rel`` means ``rel=1``).
    """
    params = dict(params)
    model, agg = _entries(params)
    declared = _declared(model, agg)
    every = {k: d[0][1] for k, d in _declarations().items()}
    for key, v in list(params.items()):
        param = declared.get(key) or every.get(key)
        if param is not None:
            params[key] = param.canonical(v)
        elif key in ("max_rel", "rel") and isinstance(v, Real) and not isinstance(v, bool):
            problem = threshold_problem(key, v, float(v)) if key in THRESHOLDS and isinstance(v, Integral) else None
            if problem:
                raise MeasureError(f"CWLA: {problem}")
            params[key] = float(v)
    cutoff = params.get("cutoff")
    if isinstance(cutoff, Integral) and not isinstance(cutoff, bool):
        params["cutoff"] = int(cutoff)
    gain = params.get("gain", _NP)
    if gain == "bin":
        params.setdefault("rel", 1.0)
        del params["gain"]
    elif gain is not _NP and "rel" not in params and model is not None and gain == model.default_gain:
        del params["gain"]
    order = ["cutoff", "C", "A"] + list(model.params if model else ()) + list(agg.params if agg else ())
    order += [k for k in MEASURE_PARAMS if k not in order]
    rank = {k: i for i, k in enumerate(dict.fromkeys(order))}
    return dict(sorted(params.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


class _CWLA(measures.Measure):
    """A C/W/L/A measure: M = sum_i L(i) A(i), L(i) = (1 - C(i)) prod_{j<i} C(j).

    ``C`` names the browsing model (P, DCG, RBP, INST, INSQ, AP, ERR, RR, cwl_eval's NPV,
    NERR8-11, SET, TBG, U, IFTgoal, IFTrate, IFT, BPM, BPMD, TrAP, or a registered one), ``A``
    the aggregation (ERG, ETG, avg, max, fin, PE, ERR; the expectations EC, ETC, EI over
    document costs, ``costs=``; or a registered one). cwl_eval's EU is ERG, ETU ETG.
    The exact semantics (ranking order, gains, depth, the two tails, rejected combinations)
    are those of ``docs/semantics.md``, summarised in the README.

    ``unjudged`` says what an unjudged document is worth: gain 0 ('zero', the default), the
    largest gain ('max'), nothing at all ('condense': removed from the ranking first), and
    'residual' makes the measure the difference 'max' - 'zero', the share of the score that
    rests on documents nobody judged.

    Examples: ``CWLA(C='RBP', A='max')@10``, ``CWLA(C='INST', A='PE', T=3, beta=0.3)``,
    ``CWLA(C='AP', A='ERG', tail='pad')`` (= trec_eval's AP with binary gains),
    ``CWLA(C='RBP', unjudged='residual')@10`` (RBP's residual, as cwl_eval's ``-r``).

    .. cite:: Moffat, Bailey, Scholer, Thomas. "Assessing the cost of ... C/W/L/A" (2022);
       Chen & Sakai, "A Meta-Evaluation of C/W/L/A Metrics".
    """

    __name__ = "CWLA"
    NAME = "CWLA"
    PRETTY_NAME = "C/W/L/A"
    SHORT_DESC = "A user-model measure: a browsing model C(i) combined with a gain aggregation A(i)."
    SUPPORTED_PARAMS = _SupportedParams()  # type: ignore[assignment]

    def __init__(self, **params: Any):
        super().__init__(**_normal_params(params))
        if not any(isinstance(v, AnyParam) for v in self.params.values()):     # (not a provider's pattern)
            self._refuse(evaluated=False)

    def __getitem__(self, key: str) -> Any:
        """A parameter's value.

        The measure's own, else its model's or aggregation's declared default,
        else the default of every C/W/L/A measure.
        """
        if key in self.params:
            return self.params[key]
        param = _declared(*_entries(self.params)).get(key)
        if param is not None:
            return param.default
        return self.SUPPORTED_PARAMS[key].default

    def validate_params(self) -> None:
        """Checks every parameter and raises :class:`~ir_cwla.errors.MeasureError` saying what to change.

        What the constructor checked already (every parameter, every combination), and what only
        an evaluation needs: the cutoff of a model that requires one (``CWLA(C='P')`` is a measure
        waiting for its ``@k``), and that a cost file named by ``costs=`` is allowed and exists.
        """
        if self.validated:
            return
        self._refuse(evaluated=True)
        self.validated = True

    def _refuse(self, evaluated: bool) -> None:
        """Raises :class:`~ir_cwla.errors.MeasureError` for the first thing wrong with the measure.

        With ``evaluated=False`` (when the measure is made: ``CWLA(...)``, ``m @ k``,
        :func:`~ir_cwla.parse_measure`, ``ir_measures.parse_measure``) every check that the
        measure's own parameters decide; with ``evaluated=True`` (:meth:`validate_params`) also
        those that wait for the evaluation: a required cutoff, and the cost file's environment.
        """
        for name in GENERAL_PARAMS:
            v = self.params.get(name, _NP)
            info = GENERAL_PARAMS[name]
            if v is not _NP and info.dtype is not None and not isinstance(v, info.dtype):
                raise MeasureError(f"CWLA: parameter {name}={shown(v)} must be of type {info.dtype.__name__}")
        model, agg = self._resolved()
        supported = self.SUPPORTED_PARAMS
        unknown = sorted(set(self.params) - set(supported))
        if unknown:
            valid = list(dict.fromkeys(["cutoff", "C", "A", *model.params, *agg.params, *GENERAL_PARAMS]))
            raise MeasureError(f"CWLA: unknown parameter(s) {unknown}; valid with C={model.name!r} and "
                               f"A={agg.name!r}: {', '.join(valid)}")
        cutoff = self.params.get("cutoff", None)
        if isinstance(cutoff, bool):
            raise MeasureError(f"CWLA: the cutoff must be a whole number, not a bool (got @{cutoff})")
        if cutoff is not None and cutoff < 1:
            raise MeasureError(f"CWLA: cutoff must be >= 1 (got @{cutoff})")
        if cutoff is not None and cutoff > MAX_CUTOFF:
            raise MeasureError(f"CWLA: cutoff must be at most 2^62 (got @{cutoff})")
        if evaluated and model.requires_cutoff and cutoff is None:
            raise MeasureError(f"CWLA: C={model.name!r} needs a cutoff, e.g. CWLA(C={model.name!r}, A={agg.name!r})@10")
        owned = {**{k: f"C={model.name!r}" for k in model.params}, **{k: f"A={agg.name!r}" for k in agg.params
                                                                          if k not in model.params}}
        for name in self.params:
            if name not in GENERAL_PARAMS and name not in owned:
                theirs = list(dict.fromkeys([*model.params, *agg.params]))
                raise MeasureError(f"CWLA: {name}={_shown(self.params[name])} has no effect with C={model.name!r} and "
                                   f"A={agg.name!r} (their parameters: {', '.join(theirs) or 'none'})")
        declared = _declared(model, agg)
        for name, param in declared.items():
            if name in self.params:
                problem = param.problem(name, self.params[name])
                if problem:
                    raise MeasureError(f"CWLA: {owned[name]}: {problem}")
        problem = model.check(self.model_params()) if model.check is not None else None
        if problem:
            raise MeasureError(f"CWLA: C={model.name!r}: {problem}")
        tail = self["tail"]
        if tail not in TAILS:
            raise MeasureError(f"CWLA: unknown tail={tail!r}; valid: {', '.join(TAILS)}")
        if self["unjudged"] not in UNJUDGED_POLICIES:
            raise MeasureError(f"CWLA: unknown unjudged={self['unjudged']!r}; valid: {', '.join(UNJUDGED_POLICIES)}")
        gain = self.params.get("gain", _NP)
        if gain is not _NP and gain not in GAIN_NAMES:
            raise MeasureError(f"CWLA: unknown gain={gain!r}; valid: {', '.join(GAIN_NAMES)}")
        rel = self.params.get("rel", _NP)
        if rel is not _NP:
            if gain not in (_NP, "bin"):
                raise MeasureError(f"CWLA: rel={rel:g} only applies to gain='bin' (got gain={gain!r})")
            if not (rel > 0 and math.isfinite(rel)):
                raise MeasureError(f"CWLA: rel must be a finite number > 0 (got rel={rel:g})")
        max_rel = self.params.get("max_rel", _NP)
        if max_rel is not _NP and not (max_rel > 0 and math.isfinite(max_rel)):
            raise MeasureError(f"CWLA: max_rel must be a finite number > 0 (got max_rel={max_rel:g})")
        if max_rel is not _NP and rel is not _NP:
            raise MeasureError("CWLA: max_rel has no effect with binary gains (rel=...); drop one of them")
        costs = self.params.get("costs", _NP)
        if costs is not _NP:
            spec = CostSpec.parse(costs)        # MeasureError says what is wrong
            if not (agg.needs_costs or model.uses_costs):
                readers = [n for n, a in AGGREGATIONS.items() if a.needs_costs] + \
                    [n for n, c in BROWSING_MODELS.items() if c.uses_costs]
                raise MeasureError(f"CWLA: costs={costs!r} has no effect with C={model.name!r} and A={agg.name!r} "
                                   f"(costs are read by {', '.join(readers)})")
            problem = (spec.check() if evaluated else None) or _repeated_grade(costs)
            if problem:
                raise MeasureError(f"CWLA: costs={costs!r}: {problem}")
        if tail == "pad" and agg.unbounded and model.never_stops_on_zero:
            raise MeasureError(f"CWLA: C={model.name!r} with A={agg.name!r} under tail='pad' is infinite (users past "
                               "the last relevant document never stop, so the documents they inspect and their cost "
                               "have no bound); use tail='stop'")
        if agg.name == "ERR" and not model.gain_dependent:
            raise MeasureError(f"CWLA: C={model.name!r} with A='ERR' gives the same score for every ranking "
                               "(C does not depend on the gains; the paper's crossed-out cells)")
        if tail == "pad" and agg.needs_vplus and model.never_stops_on_zero:
            raise MeasureError(f"CWLA: C={model.name!r} with A={agg.name!r} under tail='pad' has an infinite "
                               "expected depth V+ (users past the last relevant document never stop); use tail='stop'")

    def __repr__(self) -> str:
        # cached: ir-measures hashes measures by their repr, once per (measure, topic)
        cached = self.__dict__.get("_repr")
        if cached is not None and cached[0] == self.params and cached[2] == registry.generation:
            return cached[1]
        # C and A are always shown, so that a column named after the measure is readable
        shown = {"C": self["C"], "A": self["A"]}
        declared = _declared(*_entries(self.params))
        general = GENERAL_PARAMS
        for k, v in self.params.items():
            if k in ("C", "A", self.AT_PARAM):
                continue
            default = declared[k].default if k in declared else (general[k].default if k in general else _NP)
            if v != default:
                shown[k] = v
        result = f"{self.__name__}({','.join(f'{k}={v!r}' for k, v in shown.items())})"
        if self.AT_PARAM in self.params:
            result = f"{result}@{self.params[self.AT_PARAM]}"
        self._repr = (dict(self.params), result, registry.generation)
        return result

    def __hash__(self) -> int:
        return hash(repr(self))

    # -- C and A, resolved once -------------------------------------------------------------
    @property
    def browsing_model(self) -> BrowsingModel:
        """The registered browsing model ``C`` names (resolved once per state of the registries)."""
        return self._resolved()[0]

    @property
    def aggregation(self) -> Aggregation:
        """The registered aggregation ``A`` names (resolved once per state of the registries)."""
        return self._resolved()[1]

    def _resolved(self) -> tuple[BrowsingModel, Aggregation]:
        cached = self.__dict__.get("_entries_resolved")
        if cached is None or cached[0] != registry.generation:
            cached = (registry.generation, get_browsing_model(self["C"]), get_aggregation(self["A"]))
            self._entries_resolved = cached
        return cached[1], cached[2]

    def __getstate__(self) -> dict[str, Any]:
        # (the resolved entries hold the registries' functions, some of them lambdas: a measure sent
        # to another process resolves its own)
        return {k: v for k, v in self.__dict__.items() if k != "_entries_resolved"}

    # -- what the provider needs ------------------------------------------------------------
    def gain_spec(self) -> GainSpec:
        model = self.browsing_model
        rel = self.params.get("rel", _NP)
        kind = self.params.get("gain", _NP)
        if kind is _NP:
            kind = "bin" if rel is not _NP else model.default_gain
        max_rel = self.params.get("max_rel", _NP)
        return GainSpec(kind, (1.0 if rel is _NP else rel) if kind == "bin" else None,
                        None if max_rel is _NP or kind == "bin" else max_rel)

    def cost_spec(self) -> CostSpec:
        """Where document costs come from (:mod:`ir_cwla.measures._costs`; unit costs by default)."""
        return CostSpec.parse(self.params.get("costs"))

    def model_params(self) -> Params:
        """What the model, its tail and check, and the aggregation read (:data:`ir_cwla.measures._params.Params`).

        Every parameter they declare (the measure's value or the declared default) and ``cutoff``.
        """
        declared = _declared(*_entries(self.params))
        params: dict[str, Any] = {name: self.params.get(name, param.default) for name, param in declared.items()}
        params["cutoff"] = self.params.get("cutoff")
        return params


CWLA = _CWLA()
"""The C/W/L/A measure, an ir-measures measure: ``CWLA(C='RBP', A='max', p=0.9)@10``.

M = sum_i L(i) A(i): ``C`` names the browsing model (:data:`BROWSING_MODELS`), ``A`` the
aggregation (:data:`AGGREGATIONS`), ``@k`` the cutoff; ``gain``, ``rel``, ``max_rel``, ``tail``,
``unjudged`` and ``costs`` are the parameters of every C/W/L/A measure (:data:`MEASURE_PARAMS`),
and the model and the aggregation declare their own (``p`` of RBP, ``T`` of INST, ``beta`` of PE).
A measure is validated against the registries (:class:`~ir_cwla.errors.MeasureError` says what to
change); its exact semantics are those of ``docs/semantics.md``. Examples: ``CWLA(C='RBP', A='max')@10``,
``CWLA(C='INST', A='PE', T=3, beta=0.3)``, ``CWLA(C='AP', A='ERG', tail='pad')`` (trec_eval's AP
with binary gains), ``CWLA(C='RBP', unjudged='residual')@10`` (RBP's residual).
"""


def needs_element_types(measures: Any) -> bool:
    """True if some measure prices documents by the run's element types.

    True if some measure prices documents by the run's element types (``costs='type:...'``),
    so the run must be read with its second column (:func:`ir_cwla.io.as_run_frame`).
    """
    return any(is_cwla(m) and "costs" in m.params and m.cost_spec().needs_element_types for m in measures)


def is_cwla(measure: Any) -> TypeGuard[_CWLA]:
    """True if ``measure`` is a C/W/L/A measure (an ir-measures ``CWLA`` measure object)."""
    return isinstance(measure, measures.Measure) and measure.NAME == _CWLA.NAME
