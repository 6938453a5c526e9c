"""The "Adding a browsing model or an aggregation" recipe of docs/measures.md, followed literally (issue 30).

The page's code block is run as written; the model it registers (HalfRBP, with a parameter of
its own and a tail built from the public closed forms) and its aggregation (sq, A(i) = (CG(i)/i)^2,
which has no closed form past the ranking) then pass the project's own registry tests, and score
as independent computations say.
"""
from __future__ import annotations

import re
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA
from ir_cwla.errors import MeasureError
from ir_cwla.measures import _registry as registry

ROOT = Path(__file__).resolve().parents[1]
QRELS = pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 2, "doc_id": list("abcdef"), "relevance": [2, 1, 0, 2, 1, 0]})
RUN = pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 2, "doc_id": list("bcax") + list("fe"),
                    "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]})


def recipe_code() -> str:
    """The first Python block of the section "Adding a browsing model or an aggregation"."""
    text = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    section = text[text.index("## Adding a browsing model or an aggregation"):]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)




@pytest.fixture
def recipe(capsys):
    namespace = {"ir_cwla": ir_cwla, "ir_measures": ir_measures, "qrels": QRELS, "run": RUN}
    try:
        exec(compile(recipe_code(), "docs/measures.md", "exec"), namespace)
        yield capsys.readouterr().out
    finally:
        registry.remove(ir_cwla.BROWSING_MODELS, "HalfRBP")
        registry.remove(ir_cwla.AGGREGATIONS, "sq")


def test_the_recipes_model_passes_the_registry_tests(recipe):
    from tests import test_finite_tails

    assert recipe.startswith("CWLA(C='HalfRBP',A='sq',q=0.9)@10 ")
    test_finite_tails.test_every_model_has_a_finite_tail()
    model = ir_cwla.BROWSING_MODELS["HalfRBP"]
    assert set(model.params) == {"q"} and model.summary.startswith("HalfRBP: C(i) = q / 2")
    m = ir_cwla.parse_measure("HalfRBP(q=0.9)_ERG@10")
    assert ir_cwla.parse_measure(ir_cwla.short_name(m)) == m == ir_measures.parse_measure("HalfRBP_ERG(q=0.9)@10")
    with pytest.raises(MeasureError, match=r"C='HalfRBP': q must lie in \(0, 1\) \(got q=1.5\)"):
        CWLA(C="HalfRBP", q=1.5)


@pytest.mark.parametrize("tail", ["stop", "pad"])
@pytest.mark.parametrize("agg", ["ERG", "ETG", "avg", "max", "PE"])
def test_the_recipes_model_is_rbp_with_half_the_persistence(recipe, tail, agg):
    for cutoff in (3, 10, 10**6):
        ours = ir_measures.calc_aggregate([CWLA(C="HalfRBP", A=agg, q=0.9, tail=tail) @ cutoff], QRELS, RUN)
        rbp = ir_measures.calc_aggregate([CWLA(C="RBP", A=agg, p=0.45, tail=tail) @ cutoff], QRELS, RUN)
        assert list(ours.values())[0] == pytest.approx(list(rbp.values())[0], rel=1e-12, abs=1e-15)


def sq_reference(gains, p, cutoff):
    """sum_i L(i) (CG(i)/i)^2 under RBP(p)@cutoff, tail='stop', by a plain loop."""
    r = list(gains) + [0.0] * (cutoff - len(gains))
    reach, total, cg = 1.0, 0.0, 0.0
    for i in range(cutoff):
        c = 0.0 if i == cutoff - 1 else p
        cg += r[i]
        total += reach * (1 - c) * (cg / (i + 1)) ** 2
        reach *= c
    return total


def test_the_recipes_aggregation_without_a_closed_form(recipe):
    gains = {"1": [0.5, 0.0, 1.0, 0.0], "2": [0.0, 0.5]}
    m = CWLA(C="HalfRBP", A="sq", q=0.9) @ 10
    got = {x.query_id: x.value for x in ir_measures.iter_calc([m], QRELS, RUN)}
    for topic, g in gains.items():
        assert got[topic] == pytest.approx(sq_reference(g, 0.45, 10), rel=1e-12)
    assert recipe.split()[-1] == f"{np.mean([sq_reference(g, 0.45, 10) for g in gains.values()]):.4f}"


def sq_pad_reference(gains, p, cutoff=None, ranks=10**5):
    """sum_i L(i) (CG(i)/i)^2 under RBP(p), tail='pad', by a plain loop over ``ranks`` ranks.

    The ranking (cut at ``cutoff``) is followed by zero gains; C(i) = p on every rank, so the
    loop's truncation error is below p^ranks.
    """
    r = list(gains)[:cutoff] if cutoff is not None else list(gains)
    reach, total, cg = 1.0, 0.0, 0.0
    for i in range(ranks):
        cg += r[i] if i < len(r) else 0.0
        total += reach * (1 - p) * (cg / (i + 1)) ** 2
        reach *= p
    return total


@pytest.mark.parametrize("cutoff", [None, 2, 3, 10, 10**6])
def test_the_recipes_aggregation_without_a_closed_form_under_pad(recipe, cutoff):
    """The aggregation sq has no tail=: under tail='pad' it is summed past the ranking numerically (issue 30)."""
    gains = {"1": [0.5, 0.0, 1.0, 0.0], "2": [0.0, 0.5]}
    m = CWLA(C="HalfRBP", A="sq", q=0.9, tail="pad")
    m = m @ cutoff if cutoff is not None else m
    got = {x.query_id: x.value for x in ir_measures.iter_calc([m], QRELS, RUN)}
    for topic, g in gains.items():
        assert got[topic] == pytest.approx(sq_pad_reference(g, 0.45, cutoff), rel=1e-12, abs=1e-15)
        # the tail counts: the users who stop past a short depth add far more than the tolerance
        # (at 10^6 ranks 'pad' and 'stop' agree: 0.45^(10^6) is 0)
        depth = len(g) if cutoff is None else cutoff
        if depth <= 10:
            assert abs(got[topic] - sq_reference(g, 0.45, depth)) > 1e-8
