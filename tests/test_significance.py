"""The statistical tests as declarations (issue 29), and the Monte-Carlo p-values' one rule.

A test registered once reaches compare, discriminative power, the command line, the docs and
the report; Monte-Carlo p-values are (count + 1) / (trials + 1) everywhere (the issue's case of
30 systems, 10 topics and 100 trials has no significant pair under Bonferroni); every
shift-invariant statistic is the same to the bit when a constant is added to every score;
Markdown tables escape hostile names.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.analysis import pvalues, significance
from ir_cwla.comparison import multiplicity
from ir_cwla.errors import ArgumentTypeError, ParameterError, RegistrationError


def frame(x: np.ndarray, measure: str = "AP", prefix: str = "s") -> pd.DataFrame:
    """A per-query frame of a topics x systems matrix."""
    n_t, n_s = x.shape
    rows = [(f"{prefix}{j:02d}", f"q{t:02d}", measure, float(x[t, j])) for t in range(n_t) for j in range(n_s)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def issue_frame() -> pd.DataFrame:
    """The issue's case: 30 systems, 10 topics, clearly different systems."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, (10, 1)) + 0.1 * np.arange(30)[None, :] / 30 + rng.normal(0, 0.05, (10, 30))
    return frame(x)


# ----------------------------------------------------------------------------- Phipson & Smyth

def test_the_issues_case_has_no_significant_pair_under_bonferroni():
    """30 systems, 10 topics, 100 sign flips, Bonferroni over 435 pairs: nothing is significant.

    The smallest Monte-Carlo p-value of 100 trials is 1/101; Bonferroni makes it 435/101 > 1.
    With count / trials, most pairs got p = 0 and stayed 0 after the correction.
    """
    cmp = ir_cwla.compare(issue_frame(), test="randomisation", correction="bonferroni", trials=100, resamples=200)
    table = cmp.table()
    assert len(table) == 435 and not table["significant"].any()
    assert table["p_value"].min() == pytest.approx(1 / 101) and (table["p_adjusted"] == 1.0).all()
    # the counts behind them: many pairs are never reached by a sign flip (count 0), and count / trials
    # would have called those significant after Bonferroni -- the rule this test guards against
    tested = significance.run(significance.get_test("randomisation"), _sample(issue_frame(), trials=100))
    assert (tested.counts == 0).sum() > 10
    naive = multiplicity.adjust(tested.counts.ravel() / 100, "bonferroni")
    assert (naive < 0.05).sum() == (tested.counts == 0).sum()
    np.testing.assert_array_equal(tested.p_value, (tested.counts + 1) / 101)


def _sample(per_query: pd.DataFrame, trials: int = 100, seed: int = 0) -> significance.Sample:
    cube = meta.to_cube(per_query)
    a, b = np.triu_indices(len(cube.systems), 1)
    return significance.Sample(cube.values, a, b, np.full(len(cube.measures), 1e-12), trials,
                               np.random.SeedSequence(seed))


@pytest.mark.parametrize("test,correction", [("randomisation", "none"), ("bootstrap", "none"),
                                             ("randomised-tukey-hsd", "none"), ("t", "maxt"),
                                             ("randomisation", "maxt-stepdown")])
def test_no_monte_carlo_p_value_is_zero(test, correction):
    """A pair no trial reaches gets 1 / (trials + 1), and every adjusted p-value is at least that."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0.3, 0.5, (12, 3))
    x[:, 2] = x[:, 0] + 0.3 + rng.normal(0, 0.01, 12)      # far better on every topic: no trial reaches it
    table = ir_cwla.compare(frame(x), test=test, correction=correction, trials=300, resamples=100).table()
    assert table["p_adjusted"].min() == pytest.approx(1 / 301) and (table["p_adjusted"] >= 1 / 301 - 1e-15).all()
    if significance.get_test(test).randomised:
        assert (table["p_value"] >= 1 / 301 - 1e-15).all()


def test_discriminative_power_and_consistency_use_the_rule_too():
    per_query = issue_frame()
    disc = meta.discriminative_power(per_query, trials=100, progress=False)
    assert disc.pairs["p_value"].min() == pytest.approx(1 / 101)
    p = disc.pairs["p_value"].to_numpy()
    np.testing.assert_allclose(disc.pairs["p_mc_sd"], np.sqrt(100 * p * (1 - p)) / 101)
    two = per_query[per_query["name"].isin(["s00", "s29"])]
    p = meta.randomised_tukey_hsd(meta.to_cube(two).matrix("AP"), trials=50, seed=1)
    assert p.min() == pytest.approx(1 / 51)


# ----------------------------------------------------------------------------- shift invariance

OFFSETS = (0.0, 1e6, 1e8, 1e10)
#: The columns of compare's table that do not change when a constant is added to every score.
INVARIANT = ["delta", "ci_low", "ci_high", "boot_low", "boot_high", "boot_low_mc_sd", "boot_high_mc_sd", "d_z",
             "es_e2", "wins", "ties", "losses", "statistic", "p_value", "p_value_mc_sd", "p_adjusted",
             "p_adjusted_mc_sd", "significant", "significance_could_flip", "interval_could_flip"]


def dyadic(n_topics: int = 30, shifts=(0.0, 0.02, 0.05), seed: int = 7) -> np.ndarray:
    """Scores in 1/1024 steps (exact in float64 after adding up to 1e10) with differences of 0.02-0.05."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.2, 0.6, (n_topics, 1)) + np.asarray(shifts) + rng.normal(0, 0.05, (n_topics, len(shifts)))
    return np.round(x * 1024) / 1024


@pytest.mark.parametrize("test,correction", [
    ("t", "maxt"), ("t", "maxt-stepdown"), ("randomisation", "maxt-stepdown"), ("randomised-tukey-hsd", "none"),
    ("t", "holm"), ("wilcoxon", "bh"), ("sign", "bonferroni"), ("bootstrap", "holm"), ("randomisation", "holm"),
    ("tukey-hsd", "none"), ("tukey-hsd-one-way", "none")])
def test_every_shift_invariant_statistic_is_the_same_to_the_bit(test, correction):
    """Offsets 0, 1e6, 1e8, 1e10 (latencies and costs are that large) change no invariant number.

    Before the scores were centred, MaxT's adjusted p-values went to 0.9995 at 1e8 (the sums of
    squares cancelled) and the randomised Tukey HSD test drifted at 1e10.
    """
    x = dyadic()
    tables = []
    for offset in OFFSETS:
        shifted = x + offset
        assert ((shifted - offset) == x).all()                       # the data themselves are exact
        cmp = ir_cwla.compare(frame(shifted), test=test, correction=correction, trials=2000, resamples=400)
        tables.append(cmp.table()[INVARIANT])
    for offset, table in zip(OFFSETS[1:], tables[1:]):
        pd.testing.assert_frame_equal(table, tables[0], check_exact=True, obj=f"offset {offset:g}")
    if correction.startswith("maxt"):
        assert tables[0]["p_adjusted"].min() < 0.01                  # the issue's case: [0.0135, 0.0, 0.0055]


def test_ranks_and_discriminative_power_are_shift_invariant():
    from ir_cwla.comparison import rank_uncertainty

    x = dyadic(shifts=(0.0, 0.01, 0.02, 0.05, 0.06))
    ranks = [rank_uncertainty(frame(x + c), resamples=300).table().drop(columns="score") for c in OFFSETS]
    disc = [meta.discriminative_power(frame(x + c), trials=500, progress=False).pairs[["p_value", "p_mc_sd"]]
            for c in OFFSETS]
    for r, d in zip(ranks[1:], disc[1:]):
        pd.testing.assert_frame_equal(r, ranks[0], check_exact=True)
        pd.testing.assert_frame_equal(d, disc[0], check_exact=True)


@pytest.mark.realdata
def test_real_scores_depend_only_on_their_differences(dl19_dir):
    """DL19's scores are not exact after a shift; the numbers of x + c are those of (x + c) - c, to the bit."""
    import ir_measures

    per_query = meta.evaluate(dl19_dir / "runs", dl19_dir / "qrels.dl19-passage.txt", [ir_measures.AP(rel=2)],
                              progress=False)
    per_query = per_query[per_query["name"].isin(sorted(per_query["name"].unique())[:6])]
    for offset in OFFSETS[1:]:
        shifted = per_query.assign(value=per_query["value"] + offset)
        back = shifted.assign(value=shifted["value"] - offset)
        for test, correction in (("t", "maxt-stepdown"), ("randomised-tukey-hsd", "none")):
            a = ir_cwla.compare(shifted, test=test, correction=correction, trials=500, resamples=200).table()
            b = ir_cwla.compare(back, test=test, correction=correction, trials=500, resamples=200).table()
            pd.testing.assert_frame_equal(a[INVARIANT], b[INVARIANT], check_exact=True)


# ----------------------------------------------------------------------------- the registry

@pytest.fixture()
def toy_test():
    """A paired test registered for one test (the mean difference's sign, p from a normal approximation)."""
    from scipy import stats

    def toy(sample: significance.Sample) -> significance.Outcome:
        d = sample.diffs
        z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]) + 1e-300)
        return significance.Outcome(z, p_value=2 * stats.norm.sf(np.abs(z)))

    declared = significance.register_test(significance.StatisticalTest(
        "toy-z", "z-test", "the toy z-test (paired over topics)", "paired", False, toy,
        doc="A z-test of the mean difference, for the registry's test.", aliases=("toy",), statistic="z"))
    yield declared
    del significance.TESTS["toy-z"]


def test_a_test_registered_once_reaches_compare_meta_the_cli_the_docs_and_the_report(toy_test, tmp_path, capsys):
    from ir_cwla.app.cli import main
    from tests.test_docs import reference

    x = dyadic(shifts=(0.0, 0.03, 0.06, 0.01))
    per_query = frame(x)
    cmp = ir_cwla.compare(per_query, baseline="s00", test="toy")
    assert cmp.test == "toy-z" and "The toy z-test (paired over topics), two-sided" in cmp.caption()
    assert (cmp.table()["p_value"] > 0).all() and ir_cwla.comparison.tests()[-1] == "toy-z"
    disc = meta.discriminative_power(per_query, test="toy-z", progress=False)
    assert disc.test == "toy-z" and len(disc.pairs) == 6
    # the criterion's option, and so ir-cwla meta, take it
    from ir_cwla.meta.discriminative_power import check_test

    assert check_test("toy") == "toy-z"
    path = tmp_path / "per_query.csv"
    per_query.to_csv(path, index=False)
    code = main(["compare", str(path), "--baseline", "s00", "--test", "toy-z", "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert len(pd.read_csv(pd.io.common.StringIO(out))) == 3
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "toy-z" in capsys.readouterr().out
    docs = reference.expand("<!-- generated: statistical-tests -->\n\n<!-- generated: compare-options -->")
    assert "`toy-z`" in docs and "A z-test of the mean difference" in docs
    # the report's section names it in its caption
    from ir_cwla.app.report import HtmlReport, add_comparison_section

    page = HtmlReport("t", "t")
    add_comparison_section(page, cmp)
    assert "The toy z-test (paired over topics), two-sided" in page.render()


def test_a_callable_is_a_test_as_in_pt_experiment():
    from scipy import stats

    per_query = frame(dyadic(shifts=(0.0, 0.03, 0.06, 0.01)))
    ours = ir_cwla.compare(per_query, baseline="s00", test="t").table()
    theirs = ir_cwla.compare(per_query, baseline="s00", test=stats.ttest_rel).table()
    np.testing.assert_allclose(theirs["p_value"], ours["p_value"], rtol=1e-12)
    np.testing.assert_allclose(theirs["statistic"], -ours["statistic"], rtol=1e-12)    # ttest_rel(baseline, system)

    def two_tuple(x, y):
        return 0.5, 0.25

    assert (ir_cwla.compare(per_query, test=two_tuple).table()["p_value"] == 0.25).all()
    with pytest.raises(ArgumentTypeError, match="must take two arrays"):
        ir_cwla.compare(per_query, test=lambda x: x)
    with pytest.raises(ValueError, match="must return"):
        ir_cwla.compare(per_query, test=lambda x, y: "no")


def test_names_are_one_spelling_each_and_ambiguous_ones_are_refused():
    assert significance.get_test("tukey").name == "randomised-tukey-hsd"
    assert significance.get_test("t-test").name == significance.get_test("Student").name == "t"
    with pytest.raises(ParameterError, match="could mean 'tukey-hsd'.*'tukey-hsd-one-way'"):
        significance.get_test("tukey_hsd")
    with pytest.raises(ParameterError, match="is an all-pairs test"):
        significance.get_test("tukey-hsd", kinds=("paired",))
    with pytest.raises(RegistrationError, match="taken by the test 't'"):
        significance.register_test(significance.StatisticalTest("mine", "m", "m", "paired", False, len,
                                                                aliases=("student",)))
    with pytest.raises(RegistrationError, match="already registered"):
        significance.register_test(significance.TESTS["t"])
    with pytest.raises(RegistrationError, match="kind"):
        significance.register_test(significance.StatisticalTest("odd", "o", "o", "sideways", False, len))  # type: ignore
    labels = [t.label for t in significance.TESTS.values()]
    assert len(set(labels)) == len(labels)
    assert "two-way" in significance.TESTS["randomised-tukey-hsd"].label
    assert "one-way" in significance.TESTS["tukey-hsd-one-way"].label


def test_an_omnibus_test_is_refused_by_the_comparison_of_pairs():
    def anova_f(sample):
        return significance.Outcome(np.zeros((sample.values.shape[0], 1)), p_value=np.ones((sample.values.shape[0], 1)))

    significance.register_test(significance.StatisticalTest("toy-omnibus", "F", "an F test", "omnibus", False, anova_f))
    try:
        with pytest.raises(ParameterError, match="'toy-omnibus' is an omnibus test"):
            ir_cwla.compare(issue_frame(), test="toy-omnibus")
        with pytest.raises(ParameterError, match="omnibus"):
            meta.discriminative_power(issue_frame(), test="toy-omnibus")
    finally:
        del significance.TESTS["toy-omnibus"]


def test_a_test_that_returns_the_wrong_shape_is_an_error():
    def bad(sample):
        return significance.Outcome(np.zeros(3), p_value=np.zeros(3))

    significance.register_test(significance.StatisticalTest("toy-bad", "b", "b", "paired", False, bad))
    try:
        with pytest.raises(ValueError, match="shape"):
            ir_cwla.compare(issue_frame(), test="toy-bad")
    finally:
        del significance.TESTS["toy-bad"]


# ----------------------------------------------------------------------------- the one-way test

def test_one_way_tukey_hsd_is_scipys_and_differs_from_the_two_way_tests():
    from scipy import stats

    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, (25, 1)) + np.array([0.0, 0.03, 0.05, 0.1]) + rng.normal(0, 0.04, (25, 4))
    table = ir_cwla.compare(frame(x), test="tukey-hsd-one-way").table()
    ref = stats.tukey_hsd(*[x[:, j] for j in range(4)])
    a, b = np.triu_indices(4, 1)
    np.testing.assert_allclose(table["p_value"], ref.pvalue[a, b], rtol=1e-9)
    two_way = ir_cwla.compare(frame(x), test="tukey-hsd").table()
    assert (two_way["p_value"] < table["p_value"] / 10).any()          # the topic effect is taken out


# ----------------------------------------------------------------------------- Markdown

HOSTILE = ["</table><script>alert(1)</script>", "<img src=x onerror=alert(2)>", "[x](javascript:alert(3))",
           "*bold*", "_it_", "a|b", "line\nbreak", "back\\slash`tick`"]


@pytest.mark.parametrize("baseline", [None, "plain"])
def test_markdown_escapes_hostile_names(baseline):
    import markdown

    x = dyadic(shifts=[0.01 * k for k in range(len(HOSTILE) + 1)])
    per_query = frame(x)
    names = {f"s{j:02d}": name for j, name in enumerate(["plain"] + HOSTILE)}
    per_query["name"] = per_query["name"].map(names)
    cmp = ir_cwla.compare(per_query, baseline=baseline, resamples=100)
    md = cmp.to_markdown()
    lines = md.split("\n\n")[0].splitlines()
    assert len(lines) == 2 + len(HOSTILE) + 1                          # no name splits a row
    cells = {len([c for c in _unescaped_pipes(line)]) for line in lines}
    assert len(cells) == 1                                             # every row has as many cells
    html = markdown.markdown(md, extensions=["tables"])
    for tag in ("<script", "<img", "<a ", "<em>", "<code>", "</table><"):
        assert tag not in html.replace("<table>\n<thead>", ""), tag
    for name in HOSTILE:                                               # each shown as its text
        shown = " ".join(name.split("\n"))
        assert shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in html, name
    assert ("| # | System |" in md) == (baseline is None) and not md.startswith("|  |")


def _unescaped_pipes(line: str):
    escaped = False
    for c in line:
        if c == "|" and not escaped:
            yield c
        escaped = c == "\\" and not escaped


# ----------------------------------------------------------------------------- what a new user met

def test_tables_keep_the_order_given_and_show_short_names():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (20, 4))
    per_query = pd.concat([frame(x, "nDCG@10"), frame(x * 0.9, "CWLA(C='RBP',A='ERG')@10"),
                           frame(x ** 2, "AP(rel=2)")])
    cmp = ir_cwla.compare(per_query, measures=["nDCG@10", "RBP_ERG@10", "AP(rel=2)"],
                          systems=["s03", "s01", "s02", "s00"], baseline="s02", resamples=100)
    table = cmp.table()
    assert list(dict.fromkeys(table["measure"])) == ["nDCG@10", "RBP_ERG@10", "AP(rel=2)"]
    assert list(table["system"][:3]) == ["s03", "s01", "s00"]
    assert list(cmp.means().index) == ["s02", "s03", "s01", "s00"]
    assert list(cmp.marked_means().columns) == ["nDCG@10", "RBP_ERG@10", "AP(rel=2)"]
    # the numbers do not depend on the order given
    other = ir_cwla.compare(per_query, baseline="s02", resamples=100).table()
    merged = table.merge(other, on=["measure", "baseline", "system"], suffixes=("", "_other"))
    assert len(merged) == 9 and (merged["p_value"] == merged["p_value_other"]).all()
    assert (merged["boot_low"] == merged["boot_low_other"]).all()


def test_captions_read_and_most_significant_is_one_row():
    per_query = frame(dyadic(shifts=(0.0, 0.03, 0.06, 0.01)))
    tukey = ir_cwla.compare(per_query, test="tukey", trials=500, resamples=100)
    caption = tukey.caption()
    assert "Two-sided the" not in caption
    assert caption.split(". ")[1].startswith("The randomised Tukey HSD test (two-way: systems permuted within each "
                                             "topic; 500 permutations), two-sided")
    row = tukey.most_significant()
    ranked = tukey.by_significance()
    assert isinstance(row, pd.Series) and ranked["p_adjusted"].is_monotonic_increasing
    assert ranked.iloc[0]["p_adjusted"] == row["p_adjusted"]


def test_the_monte_carlo_error_is_reported_and_stated():
    cmp = ir_cwla.compare(frame(dyadic(n_topics=15, shifts=(0.0, 0.02, 0.03))), test="randomisation",
                          correction="none", trials=200, resamples=200)
    table = cmp.table()
    p, sd = table["p_value"].to_numpy(), table["p_value_mc_sd"].to_numpy()
    np.testing.assert_allclose(sd, np.sqrt(200 * p * (1 - p)) / 201)
    exact = ir_cwla.compare(frame(dyadic()), test="t", resamples=200).table()
    assert (exact["p_value_mc_sd"] == 0).all() and not exact["significance_could_flip"].any()
    assert (exact["boot_low_mc_sd"] > 0).all()
    unstable = cmp.unstable()
    if len(unstable):
        assert "could flip" in cmp.caption()
    assert pvalues.monte_carlo_p(np.array([0]), 99)[0] == 0.01


@pytest.mark.realdata
def test_one_way_tukey_hsd_is_ranx_and_scipy_on_dl19(dl19_dir):
    """DL19 nDCG@10 of 12 runs: the one-way test gives ranx's 'tukey' p-values (scipy.stats.tukey_hsd)."""
    import ir_measures
    from ranx.statistical_tests import tukey_hsd_test
    from scipy import stats

    per_query = meta.evaluate(dl19_dir / "runs", dl19_dir / "qrels.dl19-passage.txt", [ir_measures.nDCG @ 10],
                              progress=False)
    keep = sorted(per_query["name"].unique())[:12]
    per_query = per_query[per_query["name"].isin(keep)]
    matrix = meta.to_cube(per_query).matrix("nDCG@10")
    table = ir_cwla.compare(per_query, test="tukey-hsd-one-way", resamples=100).table()
    by_ranx = {(r["control"], r["treatment"]): r["p-value"]
               for r in tukey_hsd_test(keep, [matrix[:, j] for j in range(len(keep))], 0.05)}
    scipy_p = stats.tukey_hsd(*[matrix[:, j] for j in range(len(keep))]).pvalue
    for r in table.itertuples():
        i, j = keep.index(r.system_a), keep.index(r.system_b)
        assert r.p_value == pytest.approx(by_ranx[(r.system_a, r.system_b)], rel=1e-9, abs=1e-12)
        assert r.p_value == pytest.approx(scipy_p[i, j], rel=1e-9, abs=1e-12)
    two_way = ir_cwla.compare(per_query, test="tukey-hsd", resamples=100).table()
    # by design not the same test: the two-way test takes the topic variance out
    assert (two_way["p_value"] < 0.05).sum() > (table["p_value"] < 0.05).sum()
