"""cwl_eval's browsing models (ir_cwla.cwl_models).

Each one's ERG form (TrAP: under 'pad') equals cwl_eval's expected utility per topic to 1e-9
on real DL19 runs (cwl_eval's Python API, rankings in trec_eval order, gains x / x_max), with
unit costs and with cwl_eval's cost file; EC and EI too. Every aggregation under both tails
against a slow loop reference of the new models, and their parameters' errors.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import ir_cwla
from ir_cwla import CWLA
from tests import reference as ref
from tests.cwl_reference import cwl_eval_rows
from tests.test_costs import TYPE_COSTS, typed

#: measures here read cost files the tests write (a measure names a file only with an opt-in)
pytestmark = pytest.mark.usefixtures("allow_tmp_cost_files")

RUNS = ["bm25base_p", "UNH_bm25", "runid5", "runid2", "test1", "ICT-BERT2", "idst_bert_p1", "srchvrs_ps_run2"]


def _fixed_bpmd():
    """cwl_eval's dynamic BPM with its cost loop updating K (it updates T, so K never moves)."""
    from cwl.ruler.measures.cwl_bpm import BPMDCWLMetric

    class Fixed(BPMDCWLMetric):
        def c_vector(self, ranking, worse_case=True):
            gains, costs = ranking.get_gain_vector(worse_case), ranking.get_cost_vector(worse_case)
            cg, cc = np.cumsum(gains), np.cumsum(costs)
            out, T, K = np.zeros(len(gains)), self.T, self.K
            for i in range(len(gains)):
                if not (cg[i] < T and cc[i] < K):
                    break
                out[i] = 1.0
                T += self.hb * (gains[i] - self.gain_med)
                K += self.hc * (gains[i] - self.gain_med)
            return out
    return Fixed


def zoo(cost_file=None):
    """{name: (cwl_eval factory, our EU measure)}."""
    from cwl.ruler.measures.cwl_ap import TrAPCWLMetric
    from cwl.ruler.measures.cwl_bpm import BPMCWLMetric, BPMDCWLMetric
    from cwl.ruler.measures.cwl_ift import IFTGoalCWLMetric, IFTGoalRateCWLMetric, IFTRateCWLMetric
    from cwl.ruler.measures.cwl_nerr import (
        NERReq8CWLMetric,
        NERReq9CWLMetric,
        NERReq10CWLMetric,
        NERReq11CWLMetric,
    )
    from cwl.ruler.measures.cwl_npv import NPVCWLMetric
    from cwl.ruler.measures.cwl_set import SETCWLMetric
    from cwl.ruler.measures.cwl_tbg import TBGCWLMetric
    from cwl.ruler.measures.cwl_umeasure import UMeasureCWLMetric

    costs = {} if cost_file is None else {"costs": f"type:{cost_file}"}
    fixed = _fixed_bpmd()
    return {
        "BPM(1.2,10)": (lambda: BPMCWLMetric(1.2, 10), CWLA(C="BPM", T=1.2, K=10, **costs)),
        "BPM(1000,10)": (lambda: BPMCWLMetric(1000, 10), CWLA(C="BPM", T=1000, K=10, **costs)),
        "BPM(1,1000)": (lambda: BPMCWLMetric(1, 1000), CWLA(C="BPM", T=1, K=1000, **costs)),
        "BPMD(1.2,10,hc=0)": (lambda: BPMDCWLMetric(1.2, 10, 1.0, 0.0), CWLA(C="BPMD", T=1.2, K=10, hc=0, **costs)),
        "BPMD(2,5,fixed)": (lambda: fixed(2, 5, 0.5, 2.0, 0.4), CWLA(C="BPMD", T=2, K=5, hb=0.5, hc=2, gain_med=0.4,
                                                                   **costs)),
        "IFTgoal": (lambda: IFTGoalCWLMetric(2.0, 0.9, 10), CWLA(C="IFTgoal", T=2, b1=0.9, R1=10)),
        "IFTgoal(R1=1)": (lambda: IFTGoalCWLMetric(2.0, 0.9, 1), CWLA(C="IFTgoal", T=2, R1=1)),
        "IFTrate": (lambda: IFTRateCWLMetric(0.2, 0.9, 10), CWLA(C="IFTrate", rate=0.2, b2=0.9, R2=10, **costs)),
        "IFT": (lambda: IFTGoalRateCWLMetric(2.0, 0.9, 10, 0.2, 0.9, 10), CWLA(C="IFT", T=2, **costs)),
        "IFT(100)": (lambda: IFTGoalRateCWLMetric(2.0, 0.9, 100, 0.2, 0.5, 100),
                     CWLA(C="IFT", T=2, R1=100, b2=0.5, R2=100, **costs)),
        "NERR8": (lambda: NERReq8CWLMetric(10), CWLA(C="NERR8")@10),
        "NERR9": (lambda: NERReq9CWLMetric(10), CWLA(C="NERR9")@10),
        "NERR10": (lambda: NERReq10CWLMetric(0.9), CWLA(C="NERR10", phi=0.9)),
        "NERR11": (lambda: NERReq11CWLMetric(2.25), CWLA(C="NERR11", T=2.25)),
        "NPV": (lambda: NPVCWLMetric(0.1), CWLA(C="NPV", discount=0.1)),
        "SET": (lambda: SETCWLMetric(0.5, 10), CWLA(C="SET", exponent=0.5)@10),
        "SET(0.8,20)": (lambda: SETCWLMetric(0.8, 20), CWLA(C="SET", exponent=0.8)@20),
        "TBG": (lambda: TBGCWLMetric(22), CWLA(C="TBG", halflife=22, **costs)),
        "U(50)": (lambda: UMeasureCWLMetric(50), CWLA(C="U", L=50, **costs)),
        # cwl_eval gives its last rank (1000) no weight: rank 999 is the U user's last
        "U(1000)@999": (lambda: UMeasureCWLMetric(1000), CWLA(C="U", L=1000, **costs)@999),
        "TrAP": (lambda: TrAPCWLMetric(), CWLA(C="TrAP", tail="pad", **costs)),
    }


def _at_1000(m):
    return m if "cutoff" in m.params else m@1000


@pytest.mark.parametrize("run, priced", [(r, i % 2 == 1) for i, r in enumerate(RUNS)])
def test_zoo_equals_cwl_eval(run, priced, dl19_qrels_path, dl19_dir, tmp_path):
    """EU = ERG per topic for every model; EC and EI too (not TrAP: cwl_eval's W is not a distribution)."""
    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz")
    cost_file = None
    if priced:
        frame = typed(frame)
        cost_file = tmp_path / "costs.txt"
        cost_file.write_text("".join(f"{t} {c}\n" for t, c in TYPE_COSTS.items()))
    models = {name: (factory, _at_1000(m)) for name, (factory, m) in zoo(cost_file).items()}
    theirs = cwl_eval_rows(qrels, frame, {k: v[0] for k, v in models.items()},
                           cost_dict=TYPE_COSTS if priced else None)
    forms = {}
    for name, (_, m) in models.items():
        forms[name] = {"EU": m}
        if m["C"] != "TrAP":
            extra = {"costs": m["costs"]} if "costs" in m.params else ({"costs": f"type:{cost_file}"} if priced else {})
            forms[name].update(EC=m(A="EC", **extra), EI=m(A="EI"))
    ours = {}
    topics, scores = ir_cwla.CwlaEvaluator([x for f in forms.values() for x in f.values()], qrels).score(frame)
    for f in forms.values():
        for m in f.values():
            ours.update({(m, q): v for q, v in zip(topics, scores[m])})
    index = {"EU": 0, "EC": 2, "EI": 4}
    for (name, q), row in theirs.items():
        for quantity, m in forms[name].items():
            assert ours[(m, q)] == pytest.approx(row[index[quantity]], abs=1e-9, rel=1e-12), (name, quantity, q)
    # the comparison is not vacuous: the models disagree with each other
    eu = {name: np.array([row[0] for (n, _), row in theirs.items() if n == name]) for name in models}
    assert len({round(float(v.mean()), 6) for v in eu.values()}) > len(models) - 3


def test_cwl_eval_bpmd_differs_where_its_cost_budget_should_move(dl19_qrels_path, dl19_dir):
    """cwl_eval's dynamic BPM never moves K (its cost loop updates T).

    With hc != 0 ours (Zhang et al.'s model) differs from it and equals the
    fixed loop.
    """
    from cwl.ruler.measures.cwl_bpm import BPMDCWLMetric

    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.bm25base_p.gz")
    theirs = cwl_eval_rows(qrels, frame, {"cwl": lambda: BPMDCWLMetric(2, 5, 0.5, 2.0, 0.4),
                                          "fixed": lambda: _fixed_bpmd()(2, 5, 0.5, 2.0, 0.4)})
    m = CWLA(C="BPMD", T=2, K=5, hb=0.5, hc=2, gain_med=0.4)@1000
    topics, s = ir_cwla.CwlaEvaluator([m], qrels).score(frame)
    ours = dict(zip(topics, s[m]))
    assert all(ours[q] == pytest.approx(theirs[("fixed", q)][0], abs=1e-12) for q in ours)
    assert sum(abs(ours[q] - theirs[("cwl", q)][0]) > 1e-6 for q in ours) > 5


# ------------------------------------------------------------------------------ a slow reference

def reference_c(model: str, r: list, c: list, p: dict) -> list:
    """C(1..n) of the new models, one rank at a time, straight from the papers' formulas."""
    out, cg, cc = [], 0.0, 0.0
    T, K = p["T"], p["K"]
    alive = True
    s = [0.0] * (len(r) + 2)
    ccs = []
    for x in c:
        cc += x
        ccs.append(cc)
    for j in range(len(r), 0, -1):
        s[j] = s[j + 1] + r[j - 1] / ccs[j - 1]
    cc = 0.0
    for i in range(1, len(r) + 1):
        ri, ci = r[i - 1], c[i - 1]
        prev_cc = cc
        cg += ri
        cc += ci
        if model == "NPV":
            v = 1 / (1 + p["discount"])
        elif model == "NERR8":
            v = 1 - ri if i < p["k"] else 0.0
        elif model == "NERR9":
            v = i / (i + 1) * (1 - ri) if i < p["k"] else 0.0
        elif model == "NERR10":
            v = p["phi"] * (1 - ri)
        elif model == "NERR11":
            v = ((i + 2 * p["T"] - 1) / (i + 2 * p["T"])) ** 2 * (1 - ri)
        elif model == "SET":
            w = lambda x: (x + 1) ** p["exponent"] - x ** p["exponent"]  # noqa: E731
            v = w(i + 1) / w(i) if i < p["k"] else 0.0
        elif model in ("IFTgoal", "IFTrate", "IFT"):
            c1 = 1 - 1 / (1 + p["b1"] * math.exp((p["T"] - cg) * p["R1"]))
            c2 = 1 / (1 + p["b2"] * math.exp((p["rate"] - cg / cc) * p["R2"]))
            v = {"IFTgoal": c1, "IFTrate": c2, "IFT": c1 * c2}[model]
        elif model == "TBG":
            v = 2 ** (-ci / p["halflife"])
        elif model == "U":
            before, after = max(0.0, 1 - prev_cc / p["L"]), max(0.0, 1 - cc / p["L"])
            v = after / before if before > 0 else 0.0
        elif model in ("BPM", "BPMD"):
            alive = alive and cg < T and cc < K
            v = 1.0 if alive else 0.0
            if model == "BPMD":
                T += p["hb"] * (ri - p["gain_med"])
                K += p["hc"] * (ri - p["gain_med"])
        elif model == "TrAP":
            v = s[i + 1] / s[i] if s[i] > 0 else 0.0
        else:
            raise KeyError(model)
        out.append(v)
    return out


def reference_score(model, agg, r, c, depth, tail, p, total=0.0, pad_cost=1.0, extra=4000):
    """sum_i L(i) A(i) by brute force.

    Under 'pad' the ranking continues with zero gains and padding costs for ``extra`` ranks
    (enough for V to fall below 1e-16 where it decays geometrically); NERR11's tail (INSQ's, V
    ~ 1/i^2) is summed by mpmath (tests/reference.py).
    """
    r = list(r[:depth]) + [0.0] * max(0, depth - len(r))
    c = list(c[:depth]) + [pad_cost] * max(0, depth - len(c))
    slow = model == "NERR11" and tail == "pad"
    n = depth + (extra if tail == "pad" and not slow else 0)
    rr, cs = r + [0.0] * (n - depth), c + [pad_cost] * (n - depth)
    C = reference_c(model, rr, cs, p)
    if model == "TrAP" and tail == "pad":   # TrAP's C over the ranked part only (AP's convention)
        C = reference_c(model, r, c, p) + [0.0] * (n - depth)
    if tail == "stop":
        C[depth - 1] = 0.0
    V, L = [1.0], []
    for i in range(n):
        L.append(V[-1] * (1 - C[i]))
        V.append(V[-1] * C[i])
    vplus = sum(V[:n])
    if model == "TrAP" and tail == "pad":
        s1 = sum(r[j] / sum(c[:j + 1]) for j in range(depth))
        vplus = total / s1 if s1 > 0 else math.inf
    tail_sums = (0.0, 0.0, 0.0, 0.0)
    if slow:
        tail_sums = ref.pad_tail("INSQ", tuple(r), depth, V[n], 0.0, p["T"], 0.0, vplus, True)
        vplus += tail_sums[1]
    cg = cc = mx = m = 0.0
    for i in range(n):
        cg += rr[i]
        cc += cs[i]
        mx = max(mx, rr[i])
        a = {"ERG": cg / vplus, "ETG": cg, "avg": cg / (i + 1), "max": mx, "fin": rr[i],
             "PE": 0.5 * mx + 0.5 * rr[i], "ERR": 1 / (i + 1), "EC": cc / vplus, "ETC": cc, "EI": i + 1.0}[agg]
        m += L[i] * a
    if slow:   # past D: A(i) = const + coef / i + slope i
        stop, _, inv, rank = tail_sums
        const = {"ERG": cg / vplus, "ETG": cg, "max": mx, "PE": 0.5 * mx, "ETC": cc - pad_cost * n,
                 "EC": (cc - pad_cost * n) / vplus}.get(agg, 0.0)
        coef = {"avg": cg, "ERR": 1.0}.get(agg, 0.0)
        slope = {"EI": 1.0, "ETC": pad_cost, "EC": pad_cost / vplus}.get(agg, 0.0)
        m += const * stop + coef * inv + slope * rank
    return m


MODELS = ["NPV", "NERR8", "NERR9", "NERR10", "NERR11", "SET", "IFTgoal", "IFTrate", "IFT", "TBG", "U", "BPM",
          "BPMD", "TrAP"]
AGGS = ["ERG", "ETG", "avg", "max", "fin", "PE", "ERR", "EC", "ETC", "EI"]


@pytest.mark.parametrize("tail", ["stop", "pad"])
def test_every_aggregation_matches_the_reference(tail, dl19_qrels_path, dl19_dir, tmp_path):
    """Every model and aggregation matches the reference.

    All models x all aggregations at cutoffs 10 and 30 (deeper than some rankings: ICT-BERT2
    ranks 20), per-type costs, on 6 topics.
    """
    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.ICT-BERT2.gz"))
    cost_file = tmp_path / "costs.txt"
    cost_file.write_text("".join(f"{t} {c}\n" for t, c in TYPE_COSTS.items()))
    params = dict(T=1.5, K=12.0, hb=0.7, hc=0.3, gain_med=0.4, b1=0.9, R1=3.0, rate=0.3, b2=0.8, R2=4.0, phi=0.85,
                  discount=0.2, exponent=0.6, halflife=6.0, L=25.0)
    measures = []
    for c in MODELS:
        model = ir_cwla.BROWSING_MODELS[c]
        own = {k: v for k, v in params.items() if k in model.params}
        if model.uses_costs:
            own["costs"] = f"type:{cost_file}"
        for a in AGGS:
            for k in (10, 30):
                try:
                    m = CWLA(C=c, A=a, tail=tail, **({k2: v for k2, v in own.items() if k2 != "costs"}))@k
                    if a in ("EC", "ETC") or model.uses_costs:
                        m = m(costs=f"type:{cost_file}")
                    m.validate_params()
                except ValueError:
                    continue
                measures.append(m)
    assert len(measures) > 200
    topics, scores = ir_cwla.CwlaEvaluator(measures, qrels).score(frame)
    x_max = float(qrels["relevance"].max())
    grade = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    rel_count = qrels[qrels["relevance"] > 0].groupby("query_id").size()
    from tests.test_equivalences import trec_sorted

    ordered = trec_sorted(frame)
    for t, q in enumerate(topics[:6]):
        block = ordered[ordered["query_id"] == q]
        r = [max(grade.get((q, d), 0), 0) / x_max for d in block["doc_id"]]
        c = [TYPE_COSTS[e] for e in block["element_type"]]
        for m in measures:
            p = dict(params, k=m["cutoff"])
            expected = reference_score(m["C"], m["A"], r, c, m["cutoff"], tail, p, float(rel_count.get(q, 0)))
            assert scores[m][t] == pytest.approx(expected, abs=1e-9, rel=1e-9), (ir_cwla.short_name(m), q)


@pytest.mark.parametrize("measure, message", [
    (lambda: CWLA(C="NPV", discount=0), r"C='NPV': discount must be a finite number > 0"),
    (lambda: CWLA(C="NERR10", phi=1.0), r"phi must lie in \(0, 1\)"),
    (lambda: CWLA(C="SET", exponent=1.5)@10, r"C='SET': exponent must lie in \(0, 1\] \(got exponent=1.5\)"),
    (lambda: CWLA(C="SET"), r"C='SET' needs a cutoff"),
    (lambda: CWLA(C="IFTgoal", b1=0), r"b1 must be a finite number > 0"),
    (lambda: CWLA(C="IFT", R2=-1), r"R2 must be a finite number >= 0"),
    (lambda: CWLA(C="IFTrate", rate=float("inf")), r"rate must be a finite number"),
    (lambda: CWLA(C="TBG", halflife=-3), r"halflife must be a finite number > 0"),
    (lambda: CWLA(C="U", L=0), r"L must be a finite number > 0"),
    (lambda: CWLA(C="BPM", K=0), r"K must be a finite number > 0"),
    (lambda: CWLA(C="BPMD", gain_med=2), r"gain_med must lie in \[0, 1\]"),
    (lambda: CWLA(C="RBP", K=3), r"K=3 has no effect with C='RBP' and A='ERG' \(their parameters: p\)"),
    (lambda: CWLA(C="TBG", A="ERR"), r"same score for every ranking"),
    (lambda: CWLA(C="NPV", A="ERR"), r"same score for every ranking"),
])
def test_bad_zoo_parameters(measure, message):
    with pytest.raises(ValueError, match=message):
        measure().validate_params()


def test_names_round_trip_for_every_model_and_aggregation():
    from ir_cwla import parse_measure, short_name

    extras = [{}, {"tail": "pad"}, {"unjudged": "residual"}, {"unjudged": "max"}, {"unjudged": "condense"},
              {"gain": "exp"}, {"rel": 2}]
    n = 0
    for c, model in ir_cwla.BROWSING_MODELS.items():
        for a in ir_cwla.AGGREGATIONS:
            for extra in extras:
                own = [k for k in model.params if k != "cutoff"]
                try:
                    m = CWLA(C=c, A=a, **extra, **({own[0]: 0.37} if own else {}))@10
                    m.validate_params()
                except ValueError:
                    continue
                assert parse_measure(short_name(m)) == m, short_name(m)
                assert parse_measure(str(m)) == m, str(m)
                n += 1
    assert n > 800


@pytest.mark.parametrize("q", [0.3, 1e-6, 1e-13, 1e-30])
@pytest.mark.parametrize("horizon", [np.inf, 7.0, 1e9])
def test_per_topic_geometric_tail_against_mpmath(q, horizon):
    """IFTgoal's tail past E with C = 1 - q, q down to far below the float spacing near 1."""
    import mpmath

    from ir_cwla.measures import TailInput
    from ir_cwla.measures._cwl_models import _per_topic_geometric_tail

    E, v = 4, 0.25
    inp = TailInput(np.zeros((1, E)), np.array([E]), np.array([v]), np.array([1.0]), np.array([0.0]),
                    np.array([0.0]), np.array([horizon]))
    got = _per_topic_geometric_tail(inp, np.array([q]))
    with mpmath.workdps(60):
        p, n = 1 - mpmath.mpf(q), E + 1
        if math.isinf(horizon):
            stop, depth = v, v / mpmath.mpf(q)
            inv = v * mpmath.mpf(q) * mpmath.lerchphi(p, 1, n)
        else:
            h = int(horizon)
            b = n + h - 1
            depth = v * (1 - p ** h) / mpmath.mpf(q)
            stop = v
            # ranks n..b-1 stop with probability V(i) q, everyone left stops at b
            inv = v * mpmath.mpf(q) * (mpmath.lerchphi(p, 1, n) - p ** (h - 1) * mpmath.lerchphi(p, 1, b)) \
                + v * p ** (h - 1) / b
        rank = E * stop + depth
    for name, expected in (("stop", stop), ("depth", depth), ("inverse_rank", inv), ("rank", rank)):
        assert getattr(got, name)[0] == pytest.approx(float(expected), rel=1e-9, abs=1e-300), name
