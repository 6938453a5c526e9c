"""The ``CWLA`` measure: any browsing model x aggregation pair as an ir-measures measure."""
from __future__ import annotations

import math
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

from ir_cwla.errors import MeasureError

if TYPE_CHECKING:
    from typing import TypeGuard

from ir_measures import measures

from ir_cwla import cwl_models  # noqa: F401  (registers cwl_eval's browsing models)
from ir_cwla.aggregation import AGGREGATIONS, get_aggregation
from ir_cwla.browsing import BROWSING_MODELS, get_browsing_model
from ir_cwla.costs import CostSpec
from ir_cwla.gains import GAIN_NAMES, UNJUDGED_POLICIES, GainSpec
from ir_cwla.kernel import TAILS
from ir_cwla.params import MODEL_PARAMS, Params

_NP = measures.base._NOT_PROVIDED
#: The numeric parameters of browsing models and aggregations (each read by some of them).
_FLOAT_PARAMS = MODEL_PARAMS + ("max_rel", "rel")
#: Largest INST/INSQ target T: its users look about 2T documents deep, and beyond 1e12 the
#: closed-form tail's intermediate terms ((i + 2T)^2) would lose their meaning in float64.
MAX_T = 1e12
#: Largest cutoff (a rank is an int64; a cutoff deeper than the ranking costs nothing).
MAX_CUTOFF = 2**62


def _canonical_params(params: dict[str, Any], supported: dict[str, Any]) -> dict[str, Any]:
    """The one spelling of a measure's parameters, so that equal measures are equal objects
    (ir-measures compares measures by their repr).

    Numbers become float (``cutoff`` int); parameters are ordered as declared; ``gain`` is
    kept only where it differs from what the model and ``rel`` imply (``rel`` implies 'bin',
    and 'bin' without ``rel`` means ``rel=1``).
    """
    params = dict(params)
    for key in _FLOAT_PARAMS:
        v = params.get(key, _NP)
        if isinstance(v, Real) and not isinstance(v, bool):
            params[key] = float(v)
    cutoff = params.get("cutoff")
    if isinstance(cutoff, Integral) and not isinstance(cutoff, bool):
        params["cutoff"] = int(cutoff)
    gain = params.get("gain", _NP)
    if gain == "bin":
        params.setdefault("rel", 1.0)
        del params["gain"]
    elif gain is not _NP and "rel" not in params:
        model = BROWSING_MODELS.get(params.get("C", supported["C"].default)) \
            if isinstance(params.get("C", supported["C"].default), str) else None
        if model is not None and gain == model.default_gain:
            del params["gain"]
    order = {k: i for i, k in enumerate(supported)}
    return dict(sorted(params.items(), key=lambda kv: order.get(kv[0], len(order))))


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
    SUPPORTED_PARAMS = {
        "cutoff": measures.ParamInfo(dtype=int, required=False, desc="ranking depth D looked at"),
        "C": measures.ParamInfo(dtype=str, default="RBP", desc="browsing model: " + ", ".join(BROWSING_MODELS)),
        "A": measures.ParamInfo(dtype=str, default="ERG", desc="aggregation: " + ", ".join(AGGREGATIONS)),
        "p": measures.ParamInfo(dtype=float, default=0.8, desc="RBP persistence, 0 < p < 1"),
        "T": measures.ParamInfo(dtype=float, default=2.25, desc="INST/INSQ target gain, T > 0"),
        "beta": measures.ParamInfo(dtype=float, default=0.5, desc="peak-end weight, 0 <= beta <= 1"),
        "K": measures.ParamInfo(dtype=float, default=10.0, desc="BPM/BPMD cost budget, K > 0 (documents, with "
                                                                "unit costs); T is their gain budget"),
        "hb": measures.ParamInfo(dtype=float, default=1.0, desc="BPMD: how far a document moves the gain budget"),
        "hc": measures.ParamInfo(dtype=float, default=1.0, desc="BPMD: how far a document moves the cost budget"),
        "gain_med": measures.ParamInfo(dtype=float, default=0.5, desc="BPMD: the gain that moves no budget"),
        "b1": measures.ParamInfo(dtype=float, default=0.9, desc="IFT goal intercept, b1 > 0 (T is the goal)"),
        "R1": measures.ParamInfo(dtype=float, default=10.0, desc="IFT goal rationality, R1 >= 0"),
        "rate": measures.ParamInfo(dtype=float, default=0.2, desc="IFT expected rate of gain per unit of cost"),
        "b2": measures.ParamInfo(dtype=float, default=0.9, desc="IFT rate intercept, b2 > 0"),
        "R2": measures.ParamInfo(dtype=float, default=10.0, desc="IFT rate rationality, R2 >= 0"),
        "phi": measures.ParamInfo(dtype=float, default=0.9, desc="NERR10 persistence, 0 < phi < 1"),
        "discount": measures.ParamInfo(dtype=float, default=0.1, desc="NPV discount rate, > 0 (C = 1/(1+rate))"),
        "exponent": measures.ParamInfo(dtype=float, default=0.5, desc="SET diminishing returns, 0 < e <= 1"),
        "halflife": measures.ParamInfo(dtype=float, default=224.0, desc="TBG half-life H > 0, in the costs' unit"),
        "L": measures.ParamInfo(dtype=float, default=1000.0, desc="U-measure patience L > 0, in the costs' unit"),
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

    def __init__(self, **params: Any):
        super().__init__(**_canonical_params(params, self.SUPPORTED_PARAMS))

    def validate_params(self) -> None:
        """Checks every parameter and raises ValueError with a message that says what to change."""
        if self.validated:
            return
        unknown = sorted(set(self.params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise MeasureError(f"CWLA: unknown parameter(s) {unknown}; valid: {', '.join(self.SUPPORTED_PARAMS)}")
        for name, info in self.SUPPORTED_PARAMS.items():
            v = self.params.get(name, _NP)
            if v is not _NP and info.dtype is not None and not isinstance(v, info.dtype):
                raise MeasureError(f"CWLA: parameter {name}={v!r} must be of type {info.dtype.__name__}")
        model = get_browsing_model(self["C"])
        agg = get_aggregation(self["A"])
        cutoff = self.params.get("cutoff", None)
        if cutoff is not None and cutoff < 1:
            raise MeasureError(f"CWLA: cutoff must be >= 1 (got @{cutoff})")
        if cutoff is not None and cutoff > MAX_CUTOFF:
            raise MeasureError(f"CWLA: cutoff must be at most 2^62 (got @{cutoff})")
        if model.requires_cutoff and cutoff is None:
            raise MeasureError(f"CWLA: C={model.name!r} needs a cutoff, e.g. CWLA(C={model.name!r}, A={agg.name!r})@10")
        p, T, beta = self["p"], self["T"], self["beta"]
        if not (0 < p < 1):
            raise MeasureError(f"CWLA: p must lie in (0, 1) (got p={p})")
        if not (0 < T <= MAX_T):
            raise MeasureError(f"CWLA: T must lie in (0, {MAX_T:g}] (got T={T})")
        if not (0 <= beta <= 1):
            raise MeasureError(f"CWLA: beta must lie in [0, 1] (got beta={beta})")
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
        for name in MODEL_PARAMS:
            if name in self.params and name not in model.params and name not in agg.params:
                raise MeasureError(f"CWLA: {name}={self.params[name]:g} has no effect with C={model.name!r} and "
                                 f"A={agg.name!r} (their parameters: {', '.join(model.params + agg.params) or 'none'})")
        if max_rel is not _NP and rel is not _NP:
            raise MeasureError("CWLA: max_rel has no effect with binary gains (rel=...); drop one of them")
        costs = self.params.get("costs", _NP)
        if costs is not _NP:
            spec = CostSpec.parse(costs)        # ValueError says what is wrong
            if not (agg.needs_costs or model.uses_costs):
                readers = [n for n, a in AGGREGATIONS.items() if a.needs_costs] + \
                    [n for n, c in BROWSING_MODELS.items() if c.uses_costs]
                raise MeasureError(f"CWLA: costs={costs!r} has no effect with C={model.name!r} and A={agg.name!r} "
                                 f"(costs are read by {', '.join(readers)})")
            problem = spec.check()
            if problem:
                raise MeasureError(f"CWLA: costs={costs!r}: {problem}")
        if tail == "pad" and agg.unbounded and model.never_stops_on_zero:
            raise MeasureError(f"CWLA: C={model.name!r} with A={agg.name!r} under tail='pad' is infinite (users past the "
                             "last relevant document never stop, so the documents they inspect and their cost have "
                             "no bound); use tail='stop'")
        if agg.name == "ERR" and not model.gain_dependent:
            raise MeasureError(f"CWLA: C={model.name!r} with A='ERR' gives the same score for every ranking "
                             "(C does not depend on the gains; the paper's crossed-out cells)")
        if tail == "pad" and agg.needs_vplus and model.never_stops_on_zero:
            raise MeasureError(f"CWLA: C={model.name!r} with A={agg.name!r} under tail='pad' has an infinite expected "
                             "depth V+ (users past the last relevant document never stop); use tail='stop'")
        self.validated = True

    def __repr__(self) -> str:
        # cached: ir-measures hashes measures by their repr, once per (measure, topic)
        cached = self.__dict__.get("_repr")
        if cached is not None and cached[0] == self.params:
            return cached[1]
        # C and A are always shown, so that a column named after the measure is readable
        shown = {"C": self["C"], "A": self["A"]}
        shown.update({k: v for k, v in self.params.items()
                      if k not in ("C", "A", self.AT_PARAM)
                      and (k not in self.SUPPORTED_PARAMS or v != self.SUPPORTED_PARAMS[k].default)})
        result = f"{self.__name__}({','.join(f'{k}={v!r}' for k, v in shown.items())})"
        if self.AT_PARAM in self.params:
            result = f"{result}@{self.params[self.AT_PARAM]}"
        self._repr = (dict(self.params), result)
        return result

    def __hash__(self) -> int:
        return hash(repr(self))

    # -- what the provider needs ------------------------------------------------------------
    def gain_spec(self) -> GainSpec:
        model = get_browsing_model(self["C"])
        rel = self.params.get("rel", _NP)
        kind = self.params.get("gain", _NP)
        if kind is _NP:
            kind = "bin" if rel is not _NP else model.default_gain
        max_rel = self.params.get("max_rel", _NP)
        return GainSpec(kind, (1.0 if rel is _NP else rel) if kind == "bin" else None,
                        None if max_rel is _NP or kind == "bin" else max_rel)

    def cost_spec(self) -> CostSpec:
        """Where document costs come from (:mod:`ir_cwla.costs`; unit costs by default)."""
        return CostSpec.parse(self.params.get("costs"))

    def model_params(self) -> Params:
        """The numeric parameters every model, tail and aggregation reads (:class:`ir_cwla.params.Params`)."""
        params = {name: self[name] for name in MODEL_PARAMS}
        params["cutoff"] = self.params.get("cutoff")
        return params


CWLA = _CWLA()


def needs_element_types(measures: Any) -> bool:
    """True if some measure prices documents by the run's element types (``costs='type:...'``),
    so the run must be read with its second column (:func:`ir_cwla.io.as_run_frame`)."""
    return any(is_cwla(m) and "costs" in m.params and m.cost_spec().needs_element_types for m in measures)


def is_cwla(measure: Any) -> TypeGuard[_CWLA]:
    """True if ``measure`` is a C/W/L/A measure (an ir-measures ``CWLA`` measure object)."""
    return isinstance(measure, measures.Measure) and measure.NAME == _CWLA.NAME
