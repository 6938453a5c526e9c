"""Browsing models: the continuation probability C(i) of the C/W/L/A framework.

A browsing model says how likely a user who has just looked at rank i is to look at rank
i+1. From C follow V(i) = prod_{j<i} C(j) (the chance of reaching rank i) and
L(i) = (1 - C(i)) V(i) (the chance of stopping at rank i), which the kernel of
:mod:`ir_cwla.scoring` computes.

Every model is a pure function ``continuation(inp, params) -> C`` over a
:class:`BrowsingInput` (the topics x ranks gain matrix, the ranks and, read only by the models
registered with ``uses_costs``, the document costs; Moffat et al. 2022;
Chen & Sakai, "A Meta-Evaluation of C/W/L/A Metrics", Eqs. 3-8; exact details in
``docs/semantics.md``). Under ``tail='pad'`` a model also says what happens past the last
ranked document (where every gain is 0): its :class:`TailSums`. Add your own with
:func:`register_browsing_model`.

The two tails (:data:`TAILS`, ``CWLA(tail=...)``): ``'stop'``, the user stops at the depth D
(the cutoff, or the ranking's end) at the latest; ``'pad'``, the ranking goes on with
non-relevant documents forever, and the measure is the exact infinite sum.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Optional, Union

import numpy as np

from ir_cwla.errors import MeasureError, RegistrationError

# (scipy.special is imported by the tails that use it, so that ``import ir_cwla`` loads no scipy)
from ir_cwla.measures import _registry as registry
from ir_cwla.measures._params import Param, Params, as_declarations
from ir_cwla.measures._tails import (
    BrowsingInput,
    TailInput,
    TailSums,
    ap_tail,
    dcg_tail,
    insq_tail,
    inst_tail,
    never_stopping_tail,
    precision_tail,
    rbp_tail,
)

TAILS = ("stop", "pad")
"""What happens past the depth D looked at (``CWLA(tail=...)``): ``'stop'``, the user stops at D
at the latest (C(D) := 0); ``'pad'``, non-relevant documents follow forever (the tail sums)."""

#: What a model's tail reads of R (:attr:`TailInput.total_gain`): nothing (False), the total gain of
#: the topic's judged documents (True), or their number with a gain > 0 ('count').
ReadsTotal = Literal[False, True, "count"]

#: ``continuation(inp, params) -> C``: the (topics x ranks) matrix of C(i) from a :class:`BrowsingInput`.
Continuation = Callable[[BrowsingInput, Params], np.ndarray]


@dataclass(frozen=True)
class BrowsingModel:
    """A registered browsing model (see :func:`register_browsing_model` for every field).

    ``continuation(inp, params) -> C`` maps a :class:`BrowsingInput` (gains, ranks, costs) to the
    (topics x ranks) matrix of C(i); ``params`` declares the parameters it reads (:class:`ir_cwla.Param`).
    ``gain_dependent=False`` marks models whose C ignores the gains (A = ERR is then a
    constant and rejected); ``never_stops_on_zero`` marks models with C = 1 on zero gains
    (V+ infinite under 'pad', so A = ERG is rejected there); ``reads_total`` models whose
    tail reads :attr:`TailInput.total_gain` (R).
    """

    name: str
    continuation: Continuation
    params: Mapping[str, Param] = field(default_factory=dict)
    requires_cutoff: bool = False
    gain_dependent: bool = True
    default_gain: str = "lin"
    never_stops_on_zero: bool = False
    tail: Optional[Callable[[TailInput, Params], TailSums]] = None
    finite_tail: bool = False
    check: Optional[Callable[[Params], Optional[str]]] = None
    reads_total: ReadsTotal = False
    uses_costs: bool = False
    doc: str = ""

    @property
    def summary(self) -> str:
        """The first line of :attr:`doc` (the continuation's docstring by default)."""
        return self.doc.strip().split("\n")[0].strip() if self.doc else ""


BROWSING_MODELS: dict[str, BrowsingModel] = {}
"""Every registered browsing model by name (``CWLA(C=name)``), in registration order; add one with
:func:`register_browsing_model`."""


def register_browsing_model(name: str, continuation: Continuation, *,
                            params: Union[Mapping[str, Param], Sequence[str]] = (), requires_cutoff: bool = False,
                            gain_dependent: bool = True, default_gain: str = "lin", never_stops_on_zero: bool = False,
                            tail: Optional[Callable[[TailInput, Params], TailSums]] = None,
                            finite_tail: bool = False,
                            check: Optional[Callable[[Params], Optional[str]]] = None,
                            reads_total: ReadsTotal = False, uses_costs: bool = False,
                            doc: Optional[str] = None, replace: bool = False) -> BrowsingModel:
    """Registers a browsing model so that ``CWLA(C=name, ...)`` works everywhere.

    Parameters
    ----------
    name : str
        The model's name (an identifier): ``CWLA(C=name)``, short names ``name_ERG@10``.
    continuation : callable
        ``continuation(inp, params)`` receives a :class:`BrowsingInput` (``inp.gains``, the
        (topics x ranks) float matrix of gains in [0, 1]; ``inp.ranks``, 1..W; ``inp.costs``, the
        document costs) and the measure's parameters (:data:`ir_cwla.measures._params.Params`: those
        declared here and by the aggregation, and ``cutoff``) and returns C(i) for every cell, in
        [0, 1]. A function of the old form ``continuation(gains, params)`` (or ``(gains, params,
        costs)`` with ``uses_costs``) is recognised by one call on a 1 x 3 input, wrapped, and
        warned about (:class:`~ir_cwla.errors.IrCwlaDeprecationWarning`).
    params : mapping of str to Param, or sequence of str
        The parameters the model reads, each declared as :class:`ir_cwla.Param` (default,
        bounds, doc); a name already declared by a registered model may be given alone.
        ``CWLA(C=name, q=0.3)``, the short name ``name(q=0.3)_ERG``, ``--help`` and the
        reference tables are built from these declarations.
    requires_cutoff : bool
        The model needs a cutoff k (``CWLA(C=name)@k``).
    gain_dependent : bool
        False if C ignores the gains (then A='ERR' is constant and rejected).
    default_gain : {'lin', 'exp', 'bin'}
        The gain mapping used when the measure does not name one.
    never_stops_on_zero : bool
        C = 1 on every zero gain (V+ is infinite under 'pad').
    tail : callable, optional
        ``tail(TailInput, params) -> TailSums``: the sums over the zero-gain ranks past the
        ranking. Without it, ``tail='pad'`` sums the zero-gain tail numerically (exact for
        geometrically decaying V). The continuation over zero gains must agree with it: an
        aggregation registered without a tail is summed past the ranking with ``continuation``
        itself, checked against these sums.
    finite_tail : bool
        ``tail`` also sums a finite stretch of zero gains (:class:`TailInput` ``horizon``),
        which lets a cutoff deeper than the ranking cost nothing; without it such a ranking
        is padded with zeros up to the cutoff. Needs ``tail`` (refused without it).
    check : callable, optional
        ``check(params)`` returns why a combination of parameters is unusable (None if it is
        usable), for constraints beyond each parameter's bounds; called when a measure is built.
    reads_total : bool or 'count'
        ``tail`` reads R (:attr:`TailInput.total_gain`), the total gain of the topic's judged
        documents (``'count'``: their number with a gain > 0), which ``unjudged='max'`` raises
        by the gain of (by one for) every unjudged document ranked.
    uses_costs : bool
        ``continuation`` reads ``inp.costs``, the (topics x ranks) matrix of document costs
        (:mod:`ir_cwla.measures._costs`; 1 per document unless the measure names ``costs=``):
        ``costs=`` is accepted for the model, its browsing is cached per costs, and ``tail``
        receives them in :attr:`TailInput.costs`. The call is the same either way.
    doc : str, optional
        What the model is, for the reference tables (default: ``continuation``'s docstring).
    replace : bool
        Replace a model registered under ``name``.

    Returns
    -------
    BrowsingModel
        The registered model.
    """
    if reads_total not in (False, True, "count"):
        raise RegistrationError(f"browsing model {name!r}: reads_total must be False, True or 'count', "
                                f"got {reads_total!r}")
    if finite_tail and tail is None:
        # (the numeric tail sums past the ranking without end: under 'stop' with a cutoff deeper than the
        # ranking it would be summed past the cutoff, a wrong score and no error)
        raise RegistrationError(f"browsing model {name!r}: finite_tail=True says that tail= also sums a finite "
                                "stretch of zero gains, but no tail= is given; give tail= or leave finite_tail False")
    declared = as_declarations(f"browsing model {name!r}", params, [BROWSING_MODELS])
    continuation = _current_form(name, continuation, declared, uses_costs)
    model = BrowsingModel(name, continuation, declared, requires_cutoff, gain_dependent, default_gain,
                          never_stops_on_zero, tail, finite_tail, check, reads_total, uses_costs,
                          continuation.__doc__ or "" if doc is None else doc)
    return registry.add(BROWSING_MODELS, "browsing model", name, model, replace)


def _probe_params(declared: Mapping[str, Param]) -> dict:
    return {**{k: p.default for k, p in declared.items()}, "cutoff": 3}


def _shaped(result: object) -> bool:
    try:
        return np.asarray(result, dtype=np.float64).shape == (1, 3)
    except (TypeError, ValueError):
        return False


def _current_form(name: str, continuation: Callable[..., Any], declared: Mapping[str, Param],
                  uses_costs: bool) -> Continuation:
    """``continuation`` itself, or an adapter for a function of the old form.

    ``continuation`` itself, or, for a function of the form of before (``continuation(gains,
    params)``, or ``(gains, params, costs)`` with ``uses_costs``), an adapter to the current
    one, with an :class:`~ir_cwla.errors.IrCwlaDeprecationWarning`. Told apart by one call of
    each form on a 1 x 3 input with the declared defaults (and cutoff 3), not by names: the
    old form is taken only when the current call fails or returns no 1 x 3 matrix and the old
    call succeeds; when neither works the function is kept as given (scoring then says what
    is wrong, as it would have). The built-in models (defined in ``ir_cwla.measures``, all of
    the current form, as tests/test_extension_shape.py checks) are not probed, so that
    ``import ir_cwla`` calls none of them (IFT's would load scipy).
    """
    if (getattr(continuation, "__module__", None) or "").startswith("ir_cwla.measures."):
        return continuation
    gains = np.array([[1.0, 0.5, 0.0]])
    costs = np.ones_like(gains)
    params = _probe_params(declared)
    with np.errstate(all="ignore"):
        try:
            if _shaped(continuation(BrowsingInput(gains, costs), params)):
                return continuation
        except Exception:          # the probe is only a probe: whatever the call raises
            pass
        try:
            old = continuation(gains.copy(), params, costs.copy()) if uses_costs else \
                continuation(gains.copy(), params)
            if not _shaped(old):
                return continuation
        except Exception:
            return continuation
    import functools
    import warnings

    from ir_cwla.errors import IrCwlaDeprecationWarning

    third = ", costs" if uses_costs else ""
    warnings.warn(f"browsing model {name!r}: continuation(gains, params{third}) is the signature of before; "
                  "write it continuation(inp, params) with inp an ir_cwla.BrowsingInput (inp.gains, inp.ranks, "
                  "inp.costs); it is adapted for now", IrCwlaDeprecationWarning, stacklevel=3)
    old_form = continuation

    if uses_costs:
        @functools.wraps(old_form)
        def adapted(inp: BrowsingInput, params: Params) -> np.ndarray:
            return old_form(inp.gains, params, inp.costs)
    else:
        @functools.wraps(old_form)
        def adapted(inp: BrowsingInput, params: Params) -> np.ndarray:
            return old_form(inp.gains, params)
    return adapted


#: How models and aggregations of one's own are found (the end of every "unknown ..." message).
PLUGINS_HELP = ("a model or aggregation of your own is registered by a package installed beside ir_cwla, "
                "found by its entry point of the group ir_cwla.plugins (docs/plugins.md, "
                "'Your own measure on the command line')")


def get_browsing_model(name: str) -> BrowsingModel:
    """The browsing model registered as ``name``, else a :class:`MeasureError` naming the valid ones."""
    try:
        return BROWSING_MODELS[name]
    except KeyError:
        raise MeasureError(f"unknown browsing model C={name!r}; valid: {', '.join(BROWSING_MODELS)}; "
                           f"{PLUGINS_HELP}") from None


# ---------------------------------------------------------------------------------------------
# The built-in models

def precision(inp: BrowsingInput, params: Params) -> np.ndarray:
    """Precision@k (Eq. 3): C(i) = 1 for i < k, else 0."""
    k = int(params["cutoff"])
    return np.broadcast_to((inp.ranks < k).astype(np.float64), inp.gains.shape).copy()


def dcg(inp: BrowsingInput, params: Params) -> np.ndarray:
    """DCG@k (Järvelin & Kekäläinen 2002; Eq. 4).

    C(i) = log2(i+1) / log2(i+2) for i < k, else 0, so V(i) = 1 / log2(i+1), the
    DCG discount.
    """
    k = int(params["cutoff"])
    i = inp.ranks
    c = np.where(i < k, np.log2(i + 1) / np.log2(i + 2), 0.0)
    return np.broadcast_to(c, inp.gains.shape).copy()


def rbp(inp: BrowsingInput, params: Params) -> np.ndarray:
    """RBP (Moffat & Zobel 2008; Eq. 5): C(i) = p."""
    return np.full(inp.gains.shape, float(params["p"]))


def inst(inp: BrowsingInput, params: Params) -> np.ndarray:
    """INST (Bailey et al. 2015; Moffat et al. 2015; Eq. 6).

    C(i) = ((i - 1 + T + T_i) / (i + T + T_i))^2 with T_i = T - sum_{j<=i} r_j.
    """
    T = float(params["T"])
    i = inp.ranks[None, :]
    a = np.cumsum(inp.gains, axis=1)
    np.subtract(2 * T, a, out=a)                        # a = T + T_i = 2T - CG(i)
    c = (i - 1) + a
    c /= np.add(i, a, out=a)
    c **= 2
    return c


def insq(inp: BrowsingInput, params: Params) -> np.ndarray:
    """INSQ (Moffat et al. 2012): C(i) = ((i + 2T - 1) / (i + 2T))^2."""
    T = float(params["T"])
    i = inp.ranks
    return np.broadcast_to(((i + 2 * T - 1) / (i + 2 * T)) ** 2, inp.gains.shape).copy()


def average_precision(inp: BrowsingInput, params: Params) -> np.ndarray:
    """AP (Moffat et al. 2017; Eq. 7).

    C(i) = sum_{j>i} r_j/j / sum_{j>=i} r_j/j over the ranked documents (0 where the
    denominator is 0), so V(i) = S_i / S_1 and the user stops at the last relevant document
    retrieved.
    """
    s = inp.gains / inp.ranks[None, :]
    s = np.cumsum(s[:, ::-1], axis=1)[:, ::-1]          # S_i = sum_{j>=i} r_j / j
    c = np.zeros_like(s)                                # C(i) = S_{i+1} / S_i, 0 at the last rank
    np.divide(s[:, 1:], s[:, :-1], out=c[:, :-1], where=s[:, :-1] > 0)
    return c


def expected_reciprocal_rank(inp: BrowsingInput, params: Params) -> np.ndarray:
    """ERR (Chapelle et al. 2009; Eq. 8): C(i) = 1 - r_i."""
    return 1.0 - inp.gains


def reciprocal_rank(inp: BrowsingInput, params: Params) -> np.ndarray:
    """RR: C(i) = 1 if r_i = 0, else 0 (the user stops at the first document with gain)."""
    return (inp.gains == 0).astype(np.float64)


register_browsing_model("P", precision, requires_cutoff=True, gain_dependent=False,
                        tail=precision_tail, finite_tail=True)
register_browsing_model("DCG", dcg, requires_cutoff=True, gain_dependent=False,
                        tail=dcg_tail, finite_tail=True)
register_browsing_model("RBP", rbp, params={"p": Param(0.8, bounds=(0.0, 1.0), closed="neither",
                                                        doc="persistence: the chance of going on to the next document")},
                        gain_dependent=False, tail=rbp_tail, finite_tail=True)


def _check_inst(params: Params) -> Optional[str]:
    """C(i) <= 1 needs i + 2T - CG(i) >= 1/2 for every ranking, i.e. T >= 1/4 (CG(i) <= i)."""
    T = float(params["T"])
    return None if T >= 0.25 else f"T={T:g} lets C(i) exceed 1 (INST needs T >= 0.25)"


#: Largest INST/INSQ target T: its users look about 2T documents deep, and beyond 1e12 the
#: closed-form tail's intermediate terms ((i + 2T)^2) would lose their meaning in float64.
MAX_T = 1e12
TARGET = Param(2.25, bounds=(0.0, MAX_T), closed="right", doc="target gain T: the gain the user wants to collect")

register_browsing_model("INST", inst, params={"T": TARGET}, tail=inst_tail, finite_tail=True, check=_check_inst)
register_browsing_model("INSQ", insq, params={"T": TARGET}, gain_dependent=False, tail=insq_tail, finite_tail=True)
register_browsing_model("AP", average_precision, tail=ap_tail, finite_tail=True, reads_total=True)
register_browsing_model("ERR", expected_reciprocal_rank, default_gain="exp", never_stops_on_zero=True,
                        tail=never_stopping_tail, finite_tail=True)
register_browsing_model("RR", reciprocal_rank, never_stops_on_zero=True, tail=never_stopping_tail,
                        finite_tail=True)
