"""Trust at the edges (issue 19): no silent zero in meta.evaluate, and the smaller defects.

Each test here failed on the code before its fix (the report of the branch says how that was
checked); the numbers are checked against independent computations where there are numbers.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import io, meta
from ir_cwla.errors import InputError, MissingTopicsWarning, ParameterError
from tests import synthetic

QRELS = pd.DataFrame({"query_id": ["1", "1", "2", "2", "3"], "doc_id": ["a", "b", "a", "c", "d"],
                      "relevance": [1, 0, 2, 1, 1]})


def _run(topics, docs=("a", "b", "c")):
    return pd.DataFrame([(t, d, 10.0 - i) for t in topics for i, d in enumerate(docs)],
                        columns=["query_id", "doc_id", "score"])


# -- meta.evaluate: no silent zero ---------------------------------------------------------------

def test_meta_evaluate_refuses_a_run_that_shares_no_topic_with_the_qrels():
    runs = {"good": _run(["1", "2", "3"]), "zeros": _run(["001", "002", "003"])}
    with pytest.raises(InputError, match=r"run zeros shares no topic with the qrels \(run topics: 001, 002, 003; "
                                         r"qrels topics: 1, 2, 3\).*'001' is not '1'"):
        meta.evaluate(runs, QRELS, ["RBP_ERG@10", "nDCG@10"], progress=False)
    with pytest.raises(InputError, match="run other shares no topic"):          # ir-measures measures alone too
        meta.evaluate({"other": _run(["7"])}, QRELS, ["nDCG@10"], progress=False)
    with pytest.raises(InputError, match="run empty is empty"):
        meta.evaluate({"empty": _run([])}, QRELS, ["RBP_ERG@10"], progress=False)


def test_meta_evaluate_warns_once_per_run_that_misses_topics():
    runs = {"full": _run(["1", "2", "3"]), "partial": _run(["1"]), "half": _run(["2", "3", "9"])}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = meta.evaluate(runs, QRELS, ["RBP_ERG@10", "P_ERG@10", "nDCG@10"], progress=False)
    notes = [str(w.message) for w in caught if issubclass(w.category, MissingTopicsWarning)]
    assert notes == ["run partial answers 1 of the 3 qrels topics; the other 2 (2, 3) count as 0 (the measures' "
                     "default, as in ir-measures and pt.Experiment)",
                     "run half answers 2 of the 3 qrels topics; the other 1 (1) count as 0 (the measures' "
                     "default, as in ir-measures and pt.Experiment)"]
    assert (frame[(frame["name"] == "partial") & (frame["qid"] != "1")]["value"] == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meta.evaluate(runs, QRELS, ["RBP_ERG@10"], progress=False, missing_topics="ignore")
    with pytest.raises(ParameterError, match="missing_topics"):
        meta.evaluate(runs, QRELS, ["RBP_ERG@10"], progress=False, missing_topics="silent")


class _Blocks(meta.InProcess):
    """In-process, but splits the measures into blocks as a pool of three workers would."""

    parallelism = 3


def test_meta_evaluate_warns_once_per_run_whatever_the_blocks_of_measures():
    runs = {"partial": _run(["1", "2"])}
    with pytest.warns(MissingTopicsWarning) as caught:
        meta.evaluate(runs, QRELS, ["RBP_ERG@10", "P_ERG@10", "DCG_ERG@10", "nDCG@10", "P@5", "AP"],
                      executor=_Blocks(), progress=False)
    assert len([w for w in caught if issubclass(w.category, MissingTopicsWarning)]) == 1


def test_the_robustness_analyses_apply_the_same_rule():
    runs = {"a": _run(["1", "2", "3"]), "b": _run(["01", "02"])}
    with pytest.raises(InputError, match="run b shares no topic"):
        meta.incompleteness(runs, QRELS, ["RBP_ERG@10"], trials=2, seed=0, progress=False)


def test_one_rule_for_the_command_line_and_the_library():
    with pytest.raises(InputError, match=r"^run x is empty: no ranked documents$"):
        io.topic_coverage("x", _run([]), QRELS)
    assert io.topic_coverage("x", _run(["1", "2", "3"]), QRELS) is None
    assert io.topic_coverage("x", ["3"], ["1", "2", "3"], "are gone") == \
        "run x answers 1 of the 3 qrels topics; the other 2 (1, 2) are gone"
    from ir_cwla.app.evaluate import check_topics

    with pytest.warns(MissingTopicsWarning, match=r"count as 0 in the means \(--answered-only averages"):
        check_topics("x", _run(["1"]), QRELS)
    with pytest.warns(MissingTopicsWarning, match=r"are left out of the means"):
        check_topics("x", _run(["1"]), QRELS, answered_only=True)


# -- measure names: cutoffs, contradictions, thresholds -----------------------------------------

@pytest.mark.parametrize("text", ["RBP_ERG@True", "RBP_ERG@0x10", "RBP_ERG@\u0661\u0660", "RBP_ERG@1_0",
                                  "CWLA(C='RBP')@True", "CWLA(C='RBP', cutoff=0x10)", "nDCG@True", "P(rel=2)@0x5",
                                  "RBP_ERG@\uff11\uff10"])
def test_a_cutoff_is_a_whole_number_in_ascii_digits(text):
    with pytest.raises(ir_cwla.MeasureSyntaxError, match="ASCII decimal digits"):
        ir_cwla.parse_measure(text)


def test_a_cutoff_that_is_a_bool_is_refused_by_the_measure():
    with pytest.raises(ir_cwla.MeasureError, match="not a bool"):
        (ir_cwla.CWLA(C="RBP") @ True).validate_params()
    assert ir_cwla.parse_measure("RBP_ERG@010") == ir_cwla.CWLA(C="RBP") @ 10     # decimal, leading zero


@pytest.mark.parametrize("text, both", [
    ("RBP_ERG[pad,stop]@10", ("[pad]", "[stop]")),
    ("RBP_ERG[lin,exp]@10", ("[lin]", "[exp]")),
    ("RBP_ERG[bin>=2,bin>=3]@10", ("[bin>=2]", "[bin>=3]")),
    ("RBP_ERG[residual,unjudged=max]@10", ("[residual]", "[unjudged=max]")),
    ("RBP(p=0.8,p=0.9)_ERG@10", ("p=0.8", "p=0.9")),
    ("RBP(p=0.8)_ERG[p=0.9]@10", ("p=0.8", "[p=0.9]")),
    ("CWLA(C='RBP', p=0.8, p=0.9)@10", ("p=0.8", "p=0.9")),
    ("CWLA(C='RBP', A='ERG', A='max')@10", ("A='ERG'", "A='max'")),
    ("CWLA(C='RBP', cutoff=5)@10", ("cutoff=5", "@10")),
    ("RBP_EC[costs=grade:0:1;1:2;1:3]@10", ("1:2", "1:3")),
])
def test_contradictory_options_are_refused_naming_both(text, both):
    with pytest.raises(ir_cwla.MeasureError) as caught:
        ir_cwla.parse_measures(text)
    assert all(b in str(caught.value) for b in both), str(caught.value)


def test_repeating_an_option_with_the_same_value_is_no_contradiction():
    assert ir_cwla.parse_measure("RBP_ERG[pad,pad]@10") == ir_cwla.CWLA(C="RBP", tail="pad") @ 10
    assert ir_cwla.parse_measure("CWLA(C='RBP', cutoff=10)@10") == ir_cwla.CWLA(C="RBP") @ 10
    assert ir_cwla.parse_measure("P_ERG[bin,bin>=2]@10") == ir_cwla.CWLA(C="P", rel=2) @ 10
    assert ir_cwla.parse_measures("RBP_EC[costs=grade:0:1;1:2;1:2]@10")


@pytest.mark.parametrize("text", ["P_ERG[bin>=9007199254740993]@10", "CWLA(C='P', A='ERG', rel=9007199254740993)@10",
                                  "P_ERG(rel=9007199254740993)@10", "P_ERG[bin>=2.0000000000000001]@10",
                                  "CWLA(C='P', A='ERG', rel=2.0000000000000001)@10"])
def test_a_grade_threshold_a_float_cannot_hold_is_refused(text):
    with pytest.raises(ir_cwla.MeasureError, match="held as the float"):
        ir_cwla.parse_measure(text)
    with pytest.raises(ir_cwla.MeasureError, match="held as the float"):
        ir_cwla.CWLA(C="P", rel=9007199254740993)


def test_binary_gains_compare_integer_grades_exactly_beyond_2_to_53():
    """The threshold rel = 2^53 + 4 is a float; grade 2^53 + 3 rounds to it as a float64, but is below it."""
    big = 2 ** 53
    qrels = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": list("abcd"),
                          "relevance": np.array([big + 3, big + 4, big + 5, 2], dtype=np.int64)})
    run = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": list("abcd"), "score": [4.0, 3.0, 2.0, 1.0]})
    assert float(big + 3) == float(big + 4)                  # what a float comparison would see
    for rel in (big + 4, big + 6, big + 2, big, 3, 2):
        assert float(rel) == rel
        m = ir_cwla.CWLA(C="P", A="ERG", rel=float(rel)) @ 4
        expected = sum(int(g) >= rel for g in qrels["relevance"]) / 4        # the slow loop, in integers
        assert ir_cwla.Scorer([m], qrels).score_run(run)[1][m][0] == expected, rel
    ap = ir_cwla.CWLA(C="AP", A="ERG", rel=float(big + 4), tail="pad")
    # R counts the judged documents with grade >= rel exactly: b and c, both ranked (2nd, 3rd)
    assert ir_cwla.Scorer([ap], qrels).score_run(run)[1][ap][0] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)


def test_a_relevance_level_beyond_trec_evals_c_int_is_a_clear_error():
    from ir_measures import P

    with pytest.raises(ir_cwla.MeasureError, match="a C int, at most 2147483647"):
        meta.evaluate({"r": _run(["1", "2", "3"])}, QRELS, [P(rel=2 ** 31) @ 3], progress=False)


# -- warnings name the file ---------------------------------------------------------------------

def test_the_float32_overflow_warning_names_the_file_not_run(tmp_path, capsys):
    import ir_measures

    from ir_cwla.app import cli

    (tmp_path / "q.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n")
    path = tmp_path / "huge.run"
    path.write_text("1 Q0 d1 1 1e39 t\n1 Q0 d2 2 2e39 t\n2 Q0 d1 1 3 t\n")
    qrels = io.read_trec_qrels(tmp_path / "q.txt")
    for run, name in ((io.read_trec_run(path), str(path)), (str(path), str(path))):
        with pytest.warns(ir_cwla.ScoreOverflowWarning, match=f"^{name}: 2 score"):
            ir_measures.calc_aggregate([ir_cwla.parse_measure("RBP_ERG@10")], qrels, run)
    assert cli.main(["measures", str(tmp_path / "q.txt"), str(path), "RBP_ERG@10"]) == 0
    assert f"ir-cwla measures: warning: {path}: 2 score(s) beyond the float32 range" in capsys.readouterr().err
    edited = io.read_trec_run(path)
    edited.loc[0, "score"] = 5e39                              # no longer the file's frame: named 'run'
    with pytest.warns(ir_cwla.ScoreOverflowWarning, match="^run: 2 score"):
        ir_measures.calc_aggregate([ir_cwla.parse_measure("RBP_ERG@10")], qrels, edited)


# -- tau_AP in O(n) memory, RBO's p and empty rankings ------------------------------------------

def _rankings(rng, rows, n, ties):
    if ties:
        return rng.integers(0, ties, (rows, n)).astype(float), rng.integers(0, ties, (rows, n)).astype(float)
    return rng.random((rows, n)), rng.random((rows, n))


@pytest.mark.parametrize("n", [2, 3, 5, 9, 31])
@pytest.mark.parametrize("ties", [0, 2, 4])
def test_tau_ap_sorted_counts_equal_the_pair_matrices_bit_for_bit(n, ties, monkeypatch):
    from ir_cwla.meta import agreement

    x, y = _rankings(np.random.default_rng(n * 10 + ties), 40, n, ties)
    dense = agreement.tau_ap_rows(x, y)
    monkeypatch.setattr(agreement, "DENSE_PAIRS", 0)           # the O(n log n) counts for every size
    assert np.array_equal(agreement.tau_ap_rows(x, y), dense, equal_nan=True)


def test_tau_ap_sorted_counts_against_the_definition_and_the_tie_rule(monkeypatch):
    from ir_cwla.meta import agreement
    from tests.test_meta_agreement import tau_ap_brute, tau_ap_loop

    monkeypatch.setattr(agreement, "DENSE_PAIRS", 0)
    rng = np.random.default_rng(7)
    for _ in range(30):
        x, y = rng.random(12), rng.random(12)
        assert meta.tau_ap(x, y) == pytest.approx(tau_ap_loop(x, y), abs=1e-12)
    for _ in range(30):
        x, y = rng.integers(0, 3, 6).astype(float), rng.integers(0, 3, 6).astype(float)
        brute = tau_ap_brute(x, y)
        got = meta.tau_ap(x, y)
        assert (np.isnan(got) and np.isnan(brute)) or got == pytest.approx(brute, abs=1e-12)


def test_tau_ap_memory_grows_linearly_with_the_items():
    """6,000 items: the (n, n) pair matrices took about 250 MiB; the sorted counts a few."""
    import tracemalloc

    from tests.test_meta_agreement import tau_ap_loop

    rng = np.random.default_rng(3)
    x = rng.random(6000)
    y = x + rng.normal(0, 0.2, 6000)
    tracemalloc.start()
    try:
        got = meta.tau_ap(x, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2 ** 20, peak
    small = slice(0, 300)
    assert meta.tau_ap(x[small], y[small]) == pytest.approx(tau_ap_loop(x[small], y[small]), abs=1e-12)
    assert -1 <= got <= 1


def _rbo_slow(first, second, p):
    """RBO_ext (Webber et al. Eq. 32, equal lengths, no ties) in exact rational arithmetic."""
    from fractions import Fraction

    q = Fraction(p)
    n = len(first)
    agreements = [Fraction(len(set(first[:d]) & set(second[:d])), d) for d in range(1, n + 1)]
    total = sum(a * q ** (d - 1) for d, a in enumerate(agreements, start=1)) * (1 - q)
    return float(total + agreements[-1] * q ** n)


@pytest.mark.parametrize("p", [5e-324, 1e-300, 1e-5, 0.5, 0.9, 0.999999, 1 - 2 ** -52])
def test_rbo_is_finite_for_every_admissible_p(p):
    pairs = [(list("abcde"), list("bcdae")), (list("abcde"), list("edcba")), (list("abc"), list("abc"))]
    for first, second in pairs:
        got = meta.rbo(first, second, p=p)
        assert np.isfinite(got) and 0 <= got <= 1
        assert got == pytest.approx(_rbo_slow(first, second, p), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5, float("nan"), True, "0.9"])
def test_rbo_refuses_p_outside_the_open_unit_interval_saying_so(p):
    with pytest.raises((ParameterError, ir_cwla.ArgumentTypeError), match=r"open interval \(0, 1\)"):
        meta.rbo(list("ab"), list("ba"), p=p)


def test_empty_rankings_are_refused_clearly():
    with pytest.raises(ir_cwla.DataError, match="rbo: the rankings are empty"):
        meta.rbo(np.array([]), np.array([]))
    with pytest.raises(ir_cwla.DataError, match="rbo: a ranking is empty"):
        meta.rbo([], [])
    with pytest.raises(ir_cwla.DataError, match="at least 2 systems"):
        meta.tau_ap(np.array([]), np.array([]))


def test_an_empty_system_name_is_refused_everywhere_it_enters():
    runs = {"": _run(["1", "2", "3"]), "b": _run(["1", "2", "3"])}
    with pytest.raises(InputError, match="a system name is empty"):
        meta.evaluate(runs, QRELS, ["RBP_ERG@10"], progress=False)
    frame = meta.evaluate({"a": _run(["1", "2", "3"]), "b": _run(["1", "2", "3"], ("b", "a"))}, QRELS,
                          ["RBP_ERG@10", "P_ERG@10"], progress=False)
    blank = frame.assign(name=frame["name"].replace({"a": " "}))
    with pytest.raises(ir_cwla.DataError, match="empty system name"):
        meta.similarity(blank)
    with pytest.raises(ir_cwla.DataError, match="without a 'name'"):             # what a CSV round trip gives
        meta.to_cube(frame.assign(name=frame["name"].replace({"a": np.nan})))


# -- numpy's (and pandas') own warnings do not reach users -------------------------------------

def test_import_and_scoring_raise_no_warning_of_numpy_or_pandas():
    import subprocess
    import sys

    script = ("import ir_cwla, numpy as np, pandas as pd\n"
              "from ir_cwla import meta\n"
              "q = pd.DataFrame({'query_id': ['1', '1', '2'], 'doc_id': ['a', 'b', 'a'], 'relevance': [1, 0, 2]})\n"
              "r = pd.DataFrame({'query_id': ['1', '1', '2'], 'doc_id': ['a', 'b', 'a'], 'score': [2.0, 1.0, 1.0]})\n"
              "meta.rbo(np.array([3.0, 2.0, 1.0]), np.array([1.0, 2.0, 3.0]), p=5e-324)\n"
              "ir_cwla.Scorer(list(ir_cwla.table1()), q).score_run(r)\n")
    done = subprocess.run([sys.executable, "-W", "error", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_variance_beyond_a_float_is_a_clear_error_not_an_overflow_warning():
    from ir_cwla.analysis.anova import residual_variance

    rng = np.random.default_rng(0)
    x = rng.random((6, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v, df = residual_variance(x * 1e120)               # scaled: no overflow, the same up to rounding
        assert v == pytest.approx(residual_variance(x)[0] * 1e120 * 1e120,
                                  rel=1e-12)
        with pytest.raises(ir_cwla.DataError, match="beyond a float's range"):
            residual_variance(x * 1e300)
    frame = pd.DataFrame([(s, str(t), m, float(rng.random() * 1e300)) for s in "abcde" for t in range(6)
                          for m in ("RBP_ERG@10", "P_ERG@10")], columns=["name", "qid", "measure", "value"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ir_cwla.DataError, match="rescale the scores"):
            meta.topic_set_sizes(frame)


# -- what grows with trials is bounded up front; incompleteness says how long it will take -------

@pytest.fixture(scope="module")
def small_frame():
    rng = np.random.default_rng(5)
    return pd.DataFrame([(s, str(t), m, float(rng.random())) for s in "abcdef" for t in range(8)
                         for m in ("RBP_ERG@10", "P_ERG@10", "AP_ERG@10")], columns=["name", "qid", "measure", "value"])


def test_consistency_refuses_trials_whose_taus_would_not_fit_saying_how_many_would(small_frame):
    from ir_cwla.analysis import montecarlo

    with pytest.raises(ParameterError, match=r"consistency: 1,000,000,000 trials would keep about 67.1 GiB of "
                                             r"taus .* pass at most 29,826,161 trials"):
        meta.consistency(small_frame, trials=10 ** 9, progress=False)
    with pytest.raises(ParameterError, match="MAX_RESULT_BYTES"):
        meta.consistency(small_frame, trials=10 ** 8, progress=False)
    with pytest.raises(ParameterError, match=r"trials must be at most 1,000,000,000 \(ir_cwla.analysis.streams.MAX_TRIALS\)"):
        meta.consistency(small_frame, trials=10 ** 12, progress=False)      # (issue 33: any count, before any work)
    assert montecarlo.MAX_RESULT_BYTES == 2 ** 31


def test_the_memory_limit_is_a_setting(small_frame, monkeypatch):
    from ir_cwla.analysis import montecarlo

    monkeypatch.setattr(montecarlo, "MAX_RESULT_BYTES", 3 * 8 * 3 * 50)
    meta.consistency(small_frame, trials=50, test_trials=10, progress=False)
    with pytest.raises(ParameterError, match="pass at most 50 trials"):
        meta.consistency(small_frame, trials=51, test_trials=10, progress=False)


def test_incompleteness_refuses_too_many_trials_and_estimates_its_time(monkeypatch):
    from ir_cwla.analysis import montecarlo

    coll = synthetic.make_collection(n_topics=8, max_depth=30)
    runs = {k: coll.runs[k] for k in ("graded", "ties", "short")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_cwla.IrCwlaWarning)
        with pytest.raises(ParameterError, match="incompleteness: 1,000,000,000 trials would keep"):
            meta.incompleteness(runs, coll.qrels, ["RBP_ERG@10", "P_ERG@10"], trials=10 ** 9, progress=False)
        quiet = meta.incompleteness(runs, coll.qrels, ["RBP_ERG@10", "P_ERG@10"], trials=3, seed=1, progress=False)
    monkeypatch.setattr(montecarlo, "WARN_AFTER_SECONDS", 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        timed = meta.incompleteness(runs, coll.qrels, ["RBP_ERG@10", "P_ERG@10"], trials=3, seed=1, progress=False)
    long = [w for w in caught if issubclass(w.category, ir_cwla.LongRunWarning)]
    assert len(long) == 1 and str(long[0].message).startswith("incompleteness: 8 tasks will take about")
    assert long[0].filename == __file__                       # the user's line
    pd.testing.assert_frame_equal(quiet.trials, timed.trials)
    pd.testing.assert_frame_equal(quiet.depths, timed.depths)


def test_label_agreement_refuses_a_bootstrap_that_would_not_fit():
    ref = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": list("abab"), "relevance": [1, 0, 2, 1]})
    other = ref.assign(relevance=[1, 1, 2, 0])
    with pytest.raises(ParameterError, match="label_agreement: 1,000,000,000 trials would keep"):
        meta.label_agreement(ref, other, trials=10 ** 9)


def test_the_command_line_refuses_them_in_one_line(small_frame, tmp_path, capsys):
    from ir_cwla.app import cli

    path = tmp_path / "per_query.csv"
    small_frame.to_csv(path, index=False)
    assert cli.main(["meta", str(path), "--criteria", "consistency", "--trials", "1000000000",
                     "--out", str(tmp_path / "report")]) == 1
    lines = capsys.readouterr().err.splitlines()
    errors = [line for line in lines if "error:" in line]      # the others: meta's step lines
    assert len(errors) == 1 and lines[-1] == errors[0]
    assert errors[0].startswith("ir-cwla meta: error: consistency: 1,000,000,000 trials would keep about")
