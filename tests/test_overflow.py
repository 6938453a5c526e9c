"""No finite input makes a measure NaN or infinite; scores past float32 are reported once."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ir_cwla
from ir_cwla import CWLA
from ir_cwla.measures import GainSpec

MODELS = ("P", "DCG", "RBP", "INST", "INSQ", "AP", "ERR", "RR")
AGGS = ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR")


def _valid(**params):
    try:
        m = CWLA(**params)
        m.validate_params()
    except ValueError:
        return None
    return m


def test_exp_gain_cannot_overflow_and_equals_the_plain_form_on_small_grades():
    grades = np.arange(0, 54, dtype=np.float64)
    plain = (np.exp2(grades) - 1.0) / np.exp2(53.0)
    np.testing.assert_array_equal(GainSpec("exp").apply(grades, 53.0), plain)
    huge = np.array([0.0, 1.0, 2.0**62 - 1, 2.0**62])
    g = GainSpec("exp").apply(huge, 2.0**62)
    assert np.isfinite(g).all() and g[-1] == 1.0 and g[0] == 0.0


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grades=st.lists(st.integers(-5, 2**62), min_size=1, max_size=12),
       model=st.sampled_from(MODELS), agg=st.sampled_from(AGGS), tail=st.sampled_from(("stop", "pad")),
       gain=st.sampled_from(("lin", "exp", "bin")),
       p=st.floats(1e-9, 1 - 1e-12), T=st.floats(1e-9, 1e12), beta=st.floats(0, 1),
       cutoff=st.one_of(st.none(), st.integers(1, 2**62)), max_rel=st.one_of(st.none(), st.integers(1, 2**62)))
def test_no_finite_input_gives_nan_or_inf(grades, model, agg, tail, gain, p, T, beta, cutoff, max_rel):
    params = {"C": model, "A": agg, "tail": tail, "gain": gain}
    if model == "RBP":
        params["p"] = p
    if model in ("INST", "INSQ"):
        params["T"] = T
    if agg == "PE":
        params["beta"] = beta
    if cutoff is not None:
        params["cutoff"] = cutoff
    if max_rel is not None and gain != "bin":
        params["max_rel"] = float(max(max_rel, max(grades), 3))   # 3: the unretrieved judgment below
    m = _valid(**params)
    if m is None:
        return
    run = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(len(grades))],
                        "score": np.linspace(1, 0, len(grades))})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(len(grades))], "relevance": grades})
    qrels = pd.concat([qrels, pd.DataFrame({"query_id": ["q"], "doc_id": ["unretrieved"], "relevance": [3]})])
    _, scores = ir_cwla.CwlaEvaluator([m], qrels).score(run)
    assert np.isfinite(scores[m]).all(), (m, grades, scores[m])


def test_scores_past_float32_are_reported_once_with_the_run_name():
    run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [1e39, 2e39, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    ev = ir_cwla.CwlaEvaluator([CWLA(C="RBP") @ 3], qrels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev.score(run, name="huge-run")
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "huge-run: 2 score(s) beyond the float32 range" in messages[0], messages
