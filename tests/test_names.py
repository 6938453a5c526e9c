"""The one measure grammar: every name the package prints reads back as the same measure.

``parse_measure(short_name(m)) == m`` and ``parse_measure(str(m)) == m`` for every measure
of ``table1()``, of a broad ``meta.grid`` and of random parameters (hypothesis); every
place that reads a measure name (the command line, ``meta.evaluate``, ``meta`` on a frame,
the leaderboard) goes through it.
"""
from __future__ import annotations

import ir_measures
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_cwla
from ir_cwla import CWLA, meta
from ir_cwla.measures import AGGREGATIONS, BROWSING_MODELS, family, parse_measure, parse_measures, short_name
from ir_cwla.measures._names import MeasureSyntaxError


def _round_trips(m) -> None:
    assert parse_measure(short_name(m)) == m, (short_name(m), m)
    assert parse_measure(str(m)) == m, str(m)
    assert parse_measure(repr(m)) == m
    assert str(parse_measure(short_name(m))) == str(m)          # the same object, not just equal


def test_table1_round_trips():
    for m in ir_cwla.table1():
        _round_trips(m)


COMMON = {"A": list(AGGREGATIONS), "tail": ["stop", "pad"], "cutoff": [5, 10, 1000]}
GRID = (meta.grid(CWLA, C=["P", "DCG", "AP", "ERR", "RR"], **COMMON)
        + meta.grid(CWLA, C="RBP", p=[0.5, 0.8, 0.95, 0.999], **COMMON)
        + meta.grid(CWLA, C=["INST", "INSQ"], T=[1, 2.25, 3, 10.5], **COMMON)
        + meta.grid(CWLA, C=list(BROWSING_MODELS), A="PE", beta=[0, 0.3, 0.5, 1], cutoff=[10, 100])
        + meta.grid(CWLA, C="RBP", A="PE", p=[0.5, 0.9], beta=[0.3, 0.7], tail=["stop", "pad"]))


def test_broad_grid_round_trips():
    assert len(GRID) > 400
    for m in GRID:
        _round_trips(m)


def test_grid_with_gains_and_no_cutoff_round_trips():
    measures = meta.grid(CWLA, C=["RBP", "INST", "AP", "ERR", "RR", "INSQ"], A=list(AGGREGATIONS),
                         gain=["lin", "exp", "bin"], rel=[1, 2, 3], tail=["stop", "pad"])
    measures += meta.grid(CWLA, C=["RBP", "DCG", "P"], A=["ERG", "max"], max_rel=[3, 4.5], cutoff=[3, 20])
    assert len(measures) > 100
    for m in measures:
        _round_trips(m)


finite = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def cwla_measures(draw):
    model = draw(st.sampled_from(list(BROWSING_MODELS)))
    params = {"C": model, "A": draw(st.sampled_from(list(AGGREGATIONS)))}
    if model == "RBP" or draw(st.booleans()):
        params["p"] = draw(st.floats(1e-9, 1 - 1e-9))
    if model in ("INST", "INSQ"):
        params["T"] = draw(st.floats(0.25, 1e6))
    if params["A"] == "PE":
        params["beta"] = draw(st.floats(0.0, 1.0))
    gain = draw(st.sampled_from([None, "lin", "exp", "bin"]))
    if gain == "bin":
        params["rel"] = draw(st.one_of(st.integers(1, 10**6), st.floats(1e-6, 1e9)))
    elif gain is not None:
        params["gain"] = gain
        if draw(st.booleans()):
            params["max_rel"] = draw(st.floats(1e-6, 1e12))
    params["tail"] = draw(st.sampled_from(["stop", "pad"]))
    if model in ("P", "DCG") or draw(st.booleans()):
        params["cutoff"] = draw(st.integers(1, 10**7))
    try:
        m = CWLA(**params)
        m.validate_params()
    except ValueError:
        from hypothesis import assume

        assume(False)
    return m


@settings(max_examples=400, deadline=None)
@given(m=cwla_measures())
def test_random_parameters_round_trip(m):
    _round_trips(m)
    assert family(parse_measure(short_name(m))) == family(m)


STANDARD = ["nDCG@10", "P(rel=2)@10", "AP(rel=2)", "RR(rel=2)@10", "R@100", "Judged@10", "ERR@20", "nDCG"]


@pytest.mark.parametrize("text", STANDARD)
def test_standard_measures_are_ir_measures_own(text):
    assert parse_measure(text) == ir_measures.parse_measure(text)
    assert parse_measure(str(parse_measure(text))) == parse_measure(text)


def test_names_the_issue_lists():
    assert parse_measure("RBP_max@10") == CWLA(C="RBP", A="max") @ 10
    assert parse_measure("INST_PE(beta=0.3)@10") == CWLA(C="INST", A="PE", beta=0.3) @ 10
    assert parse_measure("RBP(p=0.9)_max@10") == CWLA(C="RBP", A="max", p=0.9) @ 10
    assert parse_measure("AP_ERG[pad]") == CWLA(C="AP", A="ERG", tail="pad")
    assert parse_measure("RBP_ERG[bin>=2,pad]@10") == CWLA(C="RBP", A="ERG", rel=2, tail="pad") @ 10
    assert parse_measure("CWLA(C='RBP', A='max', p=0.9)@10") == CWLA(C="RBP", A="max", p=0.9) @ 10
    # ir-measures itself reads the plain short names once ir_cwla is imported
    assert ir_measures.parse_measure("RBP_max@10") == CWLA(C="RBP", A="max") @ 10


def test_trec_eval_names_and_lists_are_never_truncated():
    assert parse_measures(["ndcg_cut_10,map"]) == [ir_measures.nDCG @ 10, ir_measures.AP]
    assert parse_measures("ndcg_cut.10,20 map") == [ir_measures.nDCG @ 10, ir_measures.nDCG @ 20, ir_measures.AP]
    assert parse_measures(["P_5 RBP_max@10, nDCG@10"]) == [ir_measures.P @ 5, CWLA(C="RBP", A="max") @ 10,
                                                           ir_measures.nDCG @ 10]
    with pytest.raises(MeasureSyntaxError, match="unknown measure 'nope'"):
        parse_measures("ndcg_cut_10,nope")


def test_meta_evaluate_reads_every_printed_name(dl19_qrels_path, dl19_run_paths):
    runs = {p.name: p for p in dl19_run_paths[:3]}
    by_object = meta.evaluate(runs, dl19_qrels_path, [CWLA(C="INST", A="PE", beta=0.3) @ 10], progress=False)
    by_name = meta.evaluate(runs, dl19_qrels_path, ["INST_PE(beta=0.3)@10"], progress=False)
    assert by_name["value"].tolist() == by_object["value"].tolist()
    assert meta.browsing_model("INST_PE(beta=0.3)@10") == meta.browsing_model(str(CWLA(C="INST", A="PE",
                                                                                          beta=0.3) @ 10))


def test_leaderboard_reads_measure_names_with_the_grammar():
    from ir_cwla.leaderboard import board

    assert board._measures(["RBP_max@10", "nDCG@10"]) == [CWLA(C="RBP", A="max") @ 10, ir_measures.nDCG @ 10]
    frame = pd.DataFrame({"name": ["a", "b"], str(CWLA(C="RBP", A="max") @ 10): [0.3, 0.4],
                          "latency": [1.0, 2.0], "cost": [1.0, 3.0]})
    lb = board.Leaderboard.from_frame(frame, accuracy=str(CWLA(C="RBP", A="max") @ 10), name="name")
    assert lb.using(accuracy="RBP_max@10").measure == str(CWLA(C="RBP", A="max") @ 10)


def test_ir_measures_names_that_start_like_a_browsing_model_are_theirs():
    """``AP(...)``/``RR(...)`` name ir-measures measures when they are no short name."""
    m = ir_cwla.parse_measure("AP(rel=2,judged_only=True)@10")
    assert m == ir_measures.AP(rel=2, judged_only=True) @ 10
    assert ir_cwla.meta.browsing_model(str(m)) == str(m)          # its own family, cutoff and parameters included
    with pytest.raises(ir_cwla.MeasureSyntaxError, match="'x' is not a number"):
        ir_cwla.parse_measure("RBP(p=x)_max@10")
