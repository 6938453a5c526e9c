"""One shape for extension (issue 30): one signature per model, numeric tails for aggregations.

Every browsing model is ``continuation(BrowsingInput, params)``, and an aggregation registered
without a closed-form tail is summed past the ranking numerically.

The reference for the numeric aggregation tail is the closed form itself: a copy of each built-in
aggregation registered without ``tail=`` must score as the original, under ``tail='pad'`` and
under ``'stop'`` with a cutoff deeper than the matrix, for every built-in model whose tail is not
AP's kind; the models whose V falls too slowly to be summed within 2^20 ranks must say so.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ir_cwla
from ir_cwla.errors import IrCwlaDeprecationWarning, KernelError, MeasureError
from ir_cwla.measures import _registry as registry
from ir_cwla.measures._aggregation import AGGREGATIONS, register_aggregation
from ir_cwla.scoring import _kernel as kernel

RNG = np.random.default_rng(30)
W = 12
GAINS = RNG.choice([0.0, 0.0, 0.0, 0.25, 0.5, 1.0], size=(6, W))
LENGTHS = np.array([12, 12, 7, 12, 3, 1])
for _row, _n in enumerate(LENGTHS):
    GAINS[_row, _n:] = 0.0
COSTS = RNG.uniform(0.5, 2.0, size=(6, W))
PAD_COST = 1.25

#: Not summed within 2^20 ranks under 'pad': V(i) ~ 1/i^2 on zero gains (INST, INSQ, NERR11: V is
#: ~1e-11 there, above 1e-13), or C = 1 - 2e-10 per rank below the goal (IFTgoal with R1 = 10)
TOO_SLOW = {"INST", "INSQ", "NERR11", "IFTgoal"}
#: tails that place the relevant documents never retrieved: refused
READS_TOTAL = {n for n, m in ir_cwla.BROWSING_MODELS.items() if m.reads_total}
BUILT_IN_MODELS = ["P", "DCG", "RBP", "INST", "INSQ", "AP", "ERR", "RR", "NPV", "NERR8", "NERR9", "NERR10",
                   "NERR11", "SET", "IFTgoal", "IFTrate", "IFT", "TBG", "U", "BPM", "BPMD", "TrAP"]
BUILT_IN_AGGREGATIONS = ["ERG", "ETG", "avg", "max", "fin", "PE", "ERR", "EC", "ETC", "EI"]


def test_the_lists_are_every_built_in():
    assert set(BUILT_IN_MODELS) <= set(ir_cwla.BROWSING_MODELS)
    assert set(BUILT_IN_AGGREGATIONS) <= set(AGGREGATIONS)
    assert READS_TOTAL == {"AP", "TrAP"}
    assert all(AGGREGATIONS[a].tail is not None for a in BUILT_IN_AGGREGATIONS)


def _params(model, agg, cutoff):
    params = {k: p.default for k, p in {**model.params, **agg.params}.items()}
    params["cutoff"] = cutoff
    return params


@pytest.fixture
def copies():
    """A copy of every built-in aggregation, registered without a tail."""
    made = {}
    for name in BUILT_IN_AGGREGATIONS:
        a = AGGREGATIONS[name]
        made[name] = register_aggregation(f"notail_{name}", a.fn, params=list(a.params), needs_vplus=a.needs_vplus,
                                          needs_costs=a.needs_costs, unbounded=a.unbounded)
    yield made
    for name in BUILT_IN_AGGREGATIONS:
        registry.remove(AGGREGATIONS, f"notail_{name}")


def _cases(model):
    """(tail, depth) pairs: the rankings' own ends, a cutoff within and one deeper than the matrix."""
    depths = [] if model.requires_cutoff else [("pad", None)]
    return depths + [("pad", 5), ("pad", 20), ("stop", 20), ("stop", 3000)]


def _skip(model, agg) -> bool:
    """The combinations measures refuse under 'pad' (users who never stop: V+ or the costs infinite)."""
    return model.never_stops_on_zero and (agg.needs_vplus or agg.unbounded)


@pytest.mark.parametrize("name", BUILT_IN_MODELS)
def test_an_aggregation_without_a_tail_scores_as_its_closed_form(copies, name):
    model = ir_cwla.BROWSING_MODELS[name]
    for agg_name, copy in copies.items():
        agg = AGGREGATIONS[agg_name]
        if _skip(model, agg):
            continue
        for tail, cutoff in _cases(model):
            depth = LENGTHS if cutoff is None else np.full(len(LENGTHS), cutoff)
            gains = np.where(np.arange(1, W + 1)[None, :] <= depth[:, None], GAINS, 0.0)
            params = _params(model, agg, cutoff)
            total = gains.sum(axis=1) + 1.0 if model.reads_total else None

            def run(a, tail=tail, depth=depth, gains=gains, params=params, total=total):
                b = kernel.browse(gains, depth, model, params, tail, total, costs=COSTS, pad_cost=PAD_COST)
                return kernel.aggregate(b, a, params, COSTS, PAD_COST)

            if name in READS_TOTAL:
                with pytest.raises(MeasureError, match=rf"aggregation 'notail_{agg_name}' defines no tail, and "
                                                       rf"browsing model '{name}'.*reads R.*tail="):
                    run(copy)
            elif tail == "stop" or name not in TOO_SLOW:
                closed = run(agg)
                got = run(copy)
                assert np.isfinite(closed).all()
                np.testing.assert_allclose(got, closed, rtol=1e-10, atol=1e-10,
                                           err_msg=f"{name} {agg_name} tail={tail} cutoff={cutoff}")
            elif agg_name == "ETG":         # (2^20 ranks per try: once per model and cutoff is enough)
                with pytest.raises(KernelError, match=rf"browsing model '{name}''s users have not stopped within "
                                                      r"1048576 zero-gain ranks.*register the aggregation with tail= "
                                                      r"or use tail='stop'"):
                    run(copy)


def test_the_check_against_the_closed_form_has_teeth(copies):
    """A model whose closed-form tail disagrees with its continuation over zero gains is refused."""
    def wrong_tail(inp, params):
        return ir_cwla.measures.rbp_tail(inp, {"p": 0.5})

    model = ir_cwla.register_browsing_model("WrongTail", ir_cwla.BROWSING_MODELS["RBP"].continuation,
                                            params=["p"], gain_dependent=False, tail=wrong_tail, finite_tail=True)
    try:
        params = {"p": 0.8, "cutoff": None, "beta": 0.5}
        b = kernel.browse(GAINS, LENGTHS, model, params, "pad")
        with pytest.raises(MeasureError, match=r"'WrongTail''s continuation over zero gains disagrees with its "
                                               r"closed-form tail .*sum L (/ i )?= "):
            kernel.aggregate(b, copies["ETG"], params)
    finally:
        registry.remove(ir_cwla.BROWSING_MODELS, "WrongTail")


def test_a_shared_browsing_serves_aggregations_with_and_without_tails(copies):
    """One browsing (as the scorer shares it), then ETG and its copy, then the copy again."""
    model = ir_cwla.BROWSING_MODELS["TBG"]
    params = _params(model, AGGREGATIONS["PE"], None)
    b = kernel.browse(GAINS, LENGTHS, model, params, "pad", costs=COSTS, pad_cost=PAD_COST)
    closed = kernel.aggregate(b, AGGREGATIONS["PE"], params, COSTS, PAD_COST)
    for _ in range(2):
        np.testing.assert_allclose(kernel.aggregate(b, copies["PE"], params, COSTS, PAD_COST), closed, rtol=1e-10)
    # and with other gains for a gain-independent model (the 'max' policy's shared browsing)
    other = np.where(GAINS > 0, 1.0, 0.0)
    b2 = b.with_gains(other)
    np.testing.assert_allclose(kernel.aggregate(b2, copies["PE"], params, COSTS, PAD_COST),
                               kernel.aggregate(b2, AGGREGATIONS["PE"], params, COSTS, PAD_COST), rtol=1e-10)


# ------------------------------------------------------------------------------ the signature

def test_every_built_in_model_takes_a_browsing_input():
    inp = ir_cwla.BrowsingInput(GAINS, COSTS)
    for name in BUILT_IN_MODELS:
        model = ir_cwla.BROWSING_MODELS[name]
        c = np.asarray(model.continuation(inp, _params(model, AGGREGATIONS["ERG"], 10)))
        assert c.shape == GAINS.shape, name
        with pytest.raises(AttributeError):         # the old form is gone: an array has no .gains
            model.continuation(GAINS, _params(model, AGGREGATIONS["ERG"], 10))


def test_browsing_input_makes_unit_costs_and_ranks_only_when_read():
    inp = ir_cwla.BrowsingInput(GAINS)
    assert inp._costs is None and inp._ranks is None
    np.testing.assert_array_equal(inp.ranks, np.arange(1, W + 1))
    np.testing.assert_array_equal(inp.costs, np.ones_like(GAINS))
    assert ir_cwla.BrowsingInput is ir_cwla.measures.BrowsingInput


def _old_sated(gains, params):
    """SATED, written to the old form."""
    return float(params["q"]) * (1.0 - 0.5 * gains)


def _new_sated(inp, params):
    """SATED, written to the new form."""
    return float(params["q"]) * (1.0 - 0.5 * inp.gains)


def _old_tbg(gains, params, costs):
    """TBG, written to the old form with costs."""
    return np.exp2(-costs / float(params["halflife"]))


def _scores(name, measure_kwargs):
    m = ir_cwla.CWLA(C=name, **measure_kwargs)
    return kernel.score(GAINS, LENGTHS, m.browsing_model, m.aggregation, m.model_params(), m["tail"],
                        costs=COSTS, pad_cost=PAD_COST)


@pytest.mark.parametrize("old, new, uses_costs", [(_old_sated, _new_sated, False),
                                                  (_old_tbg, ir_cwla.BROWSING_MODELS["TBG"].continuation, True)])
def test_an_old_form_model_is_adapted_with_a_warning(old, new, uses_costs):
    params = {"halflife": ir_cwla.Param(224.0)} if uses_costs else {"q": ir_cwla.Param(0.8, bounds=(0.0, 1.0))}
    kw = dict(params=params, uses_costs=uses_costs, tail=None)
    try:
        with pytest.warns(IrCwlaDeprecationWarning, match=r"browsing model 'OldForm': continuation\(gains, params"
                                                          + (r", costs" if uses_costs else "") +
                                                          r"\) is the signature of before; write it "
                                                          r"continuation\(inp, params\)"):
            model = ir_cwla.register_browsing_model("OldForm", old, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ir_cwla.register_browsing_model("NewForm", new, **kw)
        assert model.summary == (old.__doc__ or "").split("\n")[0] and model.continuation.__wrapped__ is old
        for tail in ("stop", "pad"):
            for agg in ("ERG", "avg"):
                ours = _scores("OldForm", dict(A=agg, tail=tail))
                theirs = _scores("NewForm", dict(A=agg, tail=tail))
                np.testing.assert_array_equal(ours, theirs)
    finally:
        for name in ("OldForm", "NewForm"):
            registry.remove(ir_cwla.BROWSING_MODELS, name)


def test_a_model_that_fails_both_probes_registers_and_fails_when_scored():
    def broken(inp, params):
        """Fails on any input."""
        raise ZeroDivisionError("broken model")

    def picky(inp, params):
        """Fails on its defaults (q=0 in the probe), works with a measure's q."""
        return np.full(inp.gains.shape, 1.0 / float(params["q"]) / 4)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ir_cwla.register_browsing_model("Broken", broken)
            model = ir_cwla.register_browsing_model("Picky", picky, params={"q": ir_cwla.Param(0, bounds=(0, 10))})
        assert model.continuation is picky
        with pytest.raises(ZeroDivisionError, match="broken model"):
            _scores("Broken", dict(A="ERG"))
        assert np.isfinite(_scores("Picky", dict(A="ERG", q=2))).all()
    finally:
        for name in ("Broken", "Picky"):
            registry.remove(ir_cwla.BROWSING_MODELS, name)


def test_finite_tail_without_a_tail_is_refused_when_registered():
    """finite_tail=True without tail= is refused at registration.

    finite_tail promises that tail= sums a finite stretch; without tail=, the numeric tail was
    summed past a cutoff deeper than the ranking under 'stop' (RBP's copy at @50 on 3
    documents: 0.2525 for 0.3280).
    """
    with pytest.raises(ir_cwla.RegistrationError, match=r"browsing model 'NoTail': finite_tail=True says that "
                                                         r"tail= also sums .* give tail= or leave finite_tail False"):
        ir_cwla.register_browsing_model("NoTail", ir_cwla.BROWSING_MODELS["RBP"].continuation, params=["p"],
                                        gain_dependent=False, finite_tail=True)
    assert "NoTail" not in ir_cwla.BROWSING_MODELS
