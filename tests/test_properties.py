"""Properties of the kernel on random rankings (hypothesis)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ir_cwla
from ir_cwla.measures import AGGREGATIONS
from ir_cwla.measures._aggregation import get_aggregation
from ir_cwla.measures._browsing import get_browsing_model
from ir_cwla.scoring import _kernel as kernel

MODELS = ["P", "DCG", "RBP", "INST", "INSQ", "AP", "ERR", "RR"]
PARAMS = {"p": 0.8, "T": 2.25, "beta": 0.5, "cutoff": 10}

gain_matrices = st.integers(1, 6).flatmap(lambda n: st.integers(1, 25).flatmap(
    lambda w: arrays(np.float64, (n, w), elements=st.sampled_from([0.0, 1 / 3, 2 / 3, 1.0, 0.25]))))


# the strategies of each property test, named so that test_property_tests_can_fail can rerun it
SUM_OF_L = dict(gains=gain_matrices, data=st.data(), model=st.sampled_from(MODELS))
BOUNDS = dict(gains=gain_matrices, data=st.data(), model=st.sampled_from(MODELS), tail=st.sampled_from(["stop", "pad"]))
P_AVG = dict(gains=gain_matrices, data=st.data())


def _depths(gains, data):
    n, w = gains.shape
    return np.array([data.draw(st.integers(1, w)) for _ in range(n)])


@settings(max_examples=60, deadline=None)
@given(**SUM_OF_L)
def test_sum_of_L_is_one_under_stop(gains, data, model):
    depth = _depths(gains, data)
    gains = np.where(np.arange(gains.shape[1])[None, :] < depth[:, None], gains, 0.0)
    params = dict(PARAMS, cutoff=gains.shape[1])
    b = kernel.browse(gains, depth, get_browsing_model(model), params, "stop")
    np.testing.assert_allclose(b.L.sum(axis=1), 1.0, atol=1e-12)
    assert (b.L >= -1e-15).all()


@settings(max_examples=60, deadline=None)
@given(**BOUNDS)
def test_bounds(gains, data, model, tail):
    """Every aggregation of gains but ETG lies in [0, 1].

    ETG, ETC and EI (unit costs) <= V+ (at most 1 per rank); EC with unit costs
    is 1.
    """
    depth = _depths(gains, data)
    gains = np.where(np.arange(gains.shape[1])[None, :] < depth[:, None], gains, 0.0)
    params = dict(PARAMS, cutoff=gains.shape[1])
    if model in ("P", "DCG"):
        depth = np.full(len(depth), gains.shape[1])
    total = gains.sum(axis=1) + data.draw(st.floats(0, 5))
    b = kernel.browse(gains, depth, get_browsing_model(model), params, tail, total_gain=total)
    for name, agg in AGGREGATIONS.items():
        if tail == "pad" and (agg.needs_vplus or agg.unbounded) and get_browsing_model(model).never_stops_on_zero:
            continue
        m = kernel.aggregate(b, agg, params)
        assert np.isfinite(m).all(), name
        if name in ("ETG", "ETC", "EI"):
            assert (m <= b.vplus * (1 + 1e-12) + 1e-12).all(), name
        elif name == "EC" and model != "AP":
            np.testing.assert_allclose(m, 1.0, rtol=1e-12)
        else:
            assert ((m >= -1e-12) & (m <= 1 + 1e-12)).all(), name


@settings(max_examples=40, deadline=None)
@given(**P_AVG)
def test_p_avg_equals_p_erg(gains, data):
    k = gains.shape[1]
    depth = np.full(gains.shape[0], k)
    params = dict(PARAMS, cutoff=k)
    b = kernel.browse(gains, depth, get_browsing_model("P"), params)
    np.testing.assert_allclose(kernel.aggregate(b, get_aggregation("avg"), params),
                               kernel.aggregate(b, get_aggregation("ERG"), params), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(n_docs=st.integers(1, 30), seed=st.integers(0, 2**32 - 1), ties=st.booleans())
def test_invariant_to_line_order(n_docs, seed, ties):
    """Shuffling the run's lines (ties included) changes no score."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(n_docs)]
    qrels = pd.DataFrame({"query_id": "q1", "doc_id": docs[::2], "relevance": rng.integers(0, 4, len(docs[::2]))})
    scores = rng.integers(0, 3, n_docs).astype(float) if ties else rng.random(n_docs)
    run = pd.DataFrame({"query_id": "q1", "doc_id": docs, "score": scores})
    measures = ir_cwla.table1(5)
    ev = ir_cwla.CwlaEvaluator(measures, qrels)
    _, a = ev.score(run)
    _, b = ev.score(run.sample(frac=1.0, random_state=int(seed % 1000)))
    for m in measures:
        assert a[m].tolist() == b[m].tolist()


def _search(test, strategies):
    """The property test as hypothesis runs it, without shrinking.

    The property test as hypothesis runs it, but without shrinking or the example database
    (only whether it fails matters here).
    """
    rerun = settings(max_examples=200, deadline=None, database=None, phases=[Phase.generate])
    return rerun(given(**strategies)(test.hypothesis.inner_test))


def test_property_tests_can_fail(monkeypatch):
    """Each property test above fails on a kernel broken the way it guards against."""
    real_browse = kernel.browse

    def forgets_to_stop(gains, depth, model, params, tail="stop", total_gain=None, topics=None):
        """A kernel that forgot C(D) := 0 under 'stop': L(D) uses the model's own C(D)."""
        b = real_browse(gains, depth, model, params, tail, total_gain, topics)
        c = np.asarray(model.continuation(ir_cwla.BrowsingInput(np.asarray(gains, dtype=np.float64)), params))
        return dataclasses.replace(b, L=b.V * (1 - c)) if tail == "stop" else b

    with monkeypatch.context() as m:
        m.setattr(kernel, "browse", forgets_to_stop)
        with pytest.raises(AssertionError):
            _search(test_sum_of_L_is_one_under_stop, SUM_OF_L)()

    avg = get_aggregation("avg")
    with monkeypatch.context() as m:          # A_avg(i) = CG(i): forgot to divide by i, exceeds 1
        m.setitem(AGGREGATIONS, "avg", dataclasses.replace(avg, fn=lambda inp, params: inp.cg))
        with pytest.raises(AssertionError):
            _search(test_bounds, BOUNDS)()
    with monkeypatch.context() as m:          # A_avg(i) = CG(i) / (i + 1): off by one
        m.setitem(AGGREGATIONS, "avg", dataclasses.replace(avg, fn=lambda inp, params: inp.cg / (inp.ranks + 1)))
        with pytest.raises(AssertionError):
            _search(test_p_avg_equals_p_erg, P_AVG)()
    # and the kernel is whole again
    _search(test_sum_of_L_is_one_under_stop, SUM_OF_L)()
