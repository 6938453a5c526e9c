"""ir_cwla.compare on frames made here.

Bad input, tables, figures, rank uncertainty, topic set size design (against
statsmodels' power solvers and Sakai's published constants).
"""
from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla.comparison import multiplicity, ranks
from ir_cwla.errors import (
    ArgumentTypeError,
    DataError,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
)
from ir_cwla.meta import topic_set_size

MEASURES = ("nDCG@10", "AP(rel=2)")


def frame(n_systems: int = 5, n_topics: int = 30, seed: int = 1, measures=MEASURES) -> pd.DataFrame:
    """Scores in [0, 1] with a system effect (system k is k * 0.04 better) and a topic effect."""
    rng = np.random.default_rng(seed)
    rows = []
    topic_effect = rng.uniform(0.1, 0.7, n_topics)
    for m_index, m in enumerate(measures):
        for s in range(n_systems):
            values = np.clip(topic_effect + 0.04 * s + rng.normal(0, 0.12, n_topics) + 0.01 * m_index, 0, 1)
            rows += [(f"sys{s}", f"q{t:02d}", m, float(v)) for t, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


@pytest.fixture(scope="module")
def pq() -> pd.DataFrame:
    return frame()


# ----------------------------------------------------------------------------------- the package

def test_import_ir_cwla_stays_light():
    """Neither ``import ir_cwla`` nor ``ir_cwla.compare`` imports scipy.stats or matplotlib.

    Neither ``import ir_cwla`` nor ``ir_cwla.compare`` imports scipy.stats or matplotlib (they are
    imported inside the functions that need them).
    """
    code = ("import sys, ir_cwla; a = 'ir_cwla.comparison' in sys.modules; ir_cwla.compare; "
            "print(a, 'scipy.stats' in sys.modules, 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "False"]


def test_compare_is_the_function_of_the_comparison_room(pq):
    from ir_cwla.comparison import compare

    assert ir_cwla.compare is compare and callable(ir_cwla.compare)
    a = ir_cwla.compare(pq, baseline="sys0", resamples=200).table()
    pd.testing.assert_frame_equal(a, compare(pq, baseline="sys0", resamples=200).table())


# ----------------------------------------------------------------------------------- the table

def test_table_columns_and_order(pq):
    from ir_cwla.comparison.result import COLUMNS

    cmp = ir_cwla.compare(pq, baseline=["sys3", "sys1"], resamples=200)
    t = cmp.table()
    assert tuple(t.columns) == COLUMNS
    # measures in canonical order, baselines as given, systems by name, each unordered pair once
    assert list(dict.fromkeys(t["measure"])) == ["AP(rel=2)", "nDCG@10"] or \
        list(dict.fromkeys(t["measure"])) == list(cmp.measures)
    first = t[t["measure"] == cmp.measures[0]]
    assert list(zip(first["baseline"], first["system"])) == [
        ("sys3", "sys0"), ("sys3", "sys1"), ("sys3", "sys2"), ("sys3", "sys4"),
        ("sys1", "sys0"), ("sys1", "sys2"), ("sys1", "sys4")]
    # the same table whatever the row order of the frame
    shuffled = pq.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(t, ir_cwla.compare(shuffled, baseline=["sys3", "sys1"], resamples=200).table())


def test_all_pairs_differences_are_second_minus_first(pq):
    t = ir_cwla.compare(pq, resamples=200).table()
    assert len(t) == 2 * 10
    assert "baseline" not in t.columns and (t["system_a"] < t["system_b"]).all()       # no system is a baseline
    np.testing.assert_allclose(t["delta"], t["mean_b"] - t["mean_a"], atol=1e-15)
    assert ((t["wins"] + t["ties"] + t["losses"]) == 30).all()
    assert (t["ci_low"] < t["delta"]).all() and (t["delta"] < t["ci_high"]).all()


def test_family_is_stated(pq):
    cmp = ir_cwla.compare(pq, baseline="sys0", correction="bonferroni", family="all", resamples=100)
    assert cmp.family == "the 4 systems against the baseline sys0 under 2 measures: 8 hypotheses adjusted together"
    assert "Bonferroni" in cmp.caption() and cmp.family in cmp.caption()
    per = ir_cwla.compare(pq, baseline="sys0", correction="bonferroni", family="measure", resamples=100)
    assert "each of the 2 measures a family of its own (4 hypotheses each)" in per.family
    np.testing.assert_allclose(np.minimum(1, per.table()["p_value"] * 4), per.table()["p_adjusted"])
    tk = ir_cwla.compare(pq, test="tukey", trials=500, resamples=100)
    assert "adjusts over all 10 pairs of each measure" in tk.family


def test_markdown_and_latex_carry_the_marks_and_the_caption(pq):
    cmp = ir_cwla.compare(pq, baseline="sys0", correction="holm", resamples=200)
    md = cmp.to_markdown()
    sig = cmp.table()
    significant = sig[sig["significant"]]
    assert len(significant) > 0
    assert md.count("†") == len(significant) + 1           # +1: the caption says what † means
    assert "Holm's correction" in md and "8 hypotheses adjusted together" in md
    tex = cmp.to_latex()
    assert r"\begin{tabular}" in tex and r"\toprule" in tex and tex.count(r"$^\dagger$") == len(significant) + 1
    assert r"\caption{" in tex and "Holm" in tex
    # all pairs: letters of the systems a score is significantly better than
    allp = ir_cwla.compare(pq, correction="none", resamples=200)
    md = allp.to_markdown()
    t = allp.table()
    top = t[(t["measure"] == allp.measures[0]) & t["significant"]]
    beats = {(r.system_b if r.delta > 0 else r.system_a) for r in top.itertuples()}
    assert "<sup>" in md and len(beats) > 0
    tex = allp.to_latex()
    assert r"$^{\mathrm{" in tex and r"\textbf{" in tex


def test_latex_escapes_names():
    pq = frame(n_systems=3)
    pq["name"] = pq["name"].map({"sys0": "a_b&c", "sys1": "50%", "sys2": "x#y"})
    tex = ir_cwla.compare(pq, resamples=100).to_latex()
    assert r"a\_b\&c" in tex and r"50\%" in tex and r"x\#y" in tex


def test_letters():
    from ir_cwla.comparison.result import letters

    assert [letters(k) for k in (0, 1, 25, 26, 27, 51, 52)] == ["a", "b", "z", "aa", "ab", "az", "ba"]


def test_plot_differences_is_stable_whatever_the_row_order(pq, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    cmp = ir_cwla.compare(pq, baseline="sys0", resamples=100)
    fig = cmp.plot_differences("sys0", "sys4", "nDCG@10")
    heights = [bar.get_height() for bar in fig.axes[0].patches]
    colours = [bar.get_facecolor() for bar in fig.axes[0].patches]
    d = cmp.differences("sys0", "sys4", "nDCG@10")
    assert heights == sorted(heights, reverse=True)
    np.testing.assert_allclose(sorted(heights, reverse=True), np.sort(d.to_numpy())[::-1])
    fig.savefig(tmp_path / "diff.png")
    other = ir_cwla.compare(pq.sample(frac=1.0, random_state=5), baseline="sys0", resamples=100)
    fig2 = other.plot_differences("sys0", "sys4", "nDCG@10")
    assert [b.get_height() for b in fig2.axes[0].patches] == heights
    assert [b.get_facecolor() for b in fig2.axes[0].patches] == colours
    with pytest.raises(NotFoundError, match="sys9"):
        cmp.plot_differences("sys0", "sys9", "nDCG@10")
    best = cmp.most_significant("nDCG@10")
    assert best["p_adjusted"] == cmp.table().query("measure == 'nDCG@10'")["p_adjusted"].min()
    assert cmp.plot("nDCG@10").axes[0].get_title().startswith(f"{best['system']} vs {best['baseline']}")


# ----------------------------------------------------------------------------------- bad input

def test_too_few_topics_or_systems():
    with pytest.raises(DataError, match="at least 2 topics"):
        ir_cwla.compare(frame(n_topics=1))
    with pytest.raises(DataError, match="at least 2 systems"):
        ir_cwla.compare(frame(n_systems=1))
    with pytest.raises(DataError, match="at least 2 systems"):
        ir_cwla.compare(frame(), systems=["sys1"])


def test_missing_topics_and_the_topic_policies(pq):
    holes = pq[~((pq["name"] == "sys2") & (pq["qid"] == "q05"))]
    with pytest.raises(DataError, match="sys2 lacks q05.*topics='intersection'"):
        ir_cwla.compare(holes)
    cmp = ir_cwla.compare(holes, topics="intersection", resamples=100)
    assert cmp.n_topics == 29


def test_nan_values(pq):
    bad = pq.copy()
    bad.loc[3, "value"] = np.nan
    with pytest.raises(DataError, match="NaN"):
        ir_cwla.compare(bad)


def test_alpha_level_trials(pq):
    for alpha in (0, 1, -0.1, 1.5, "0.05", True):
        with pytest.raises(ParameterError, match="alpha must lie in"):
            ir_cwla.compare(pq, alpha=alpha)
    for level in (0, 1, 95):
        with pytest.raises(ParameterError, match="level must lie in"):
            ir_cwla.compare(pq, level=level)
    with pytest.raises(ParameterError, match="trials"):
        ir_cwla.compare(pq, trials=0)


def test_unknown_names(pq):
    with pytest.raises(NotFoundError, match="'nope'.*systems: sys0"):
        ir_cwla.compare(pq, baseline="nope")
    with pytest.raises(NotFoundError, match="systems 'x' not in"):
        ir_cwla.compare(pq, systems=["sys0", "x"])
    with pytest.raises(NotFoundError, match="measure 'P@5' is not in"):
        ir_cwla.compare(pq, measures=["P@5"])
    with pytest.raises(ParameterError, match="unknown test 'z'.*t, wilcoxon, sign, randomisation, bootstrap, "
                                             "randomised-tukey-hsd, tukey-hsd, tukey-hsd-one-way"):
        ir_cwla.compare(pq, test="z")
    with pytest.raises(ParameterError, match="unknown correction 'fdr'.*none, bonferroni, holm, bh, by, maxt"):
        ir_cwla.compare(pq, correction="fdr")
    with pytest.raises(ParameterError, match="unknown family"):
        ir_cwla.compare(pq, family="pairs")
    with pytest.raises(ArgumentTypeError):
        ir_cwla.compare(pq, test=3)
    with pytest.raises(ParameterError, match="adjusts the p-values over all pairs"):
        ir_cwla.compare(pq, test="tukey", correction="holm")
    with pytest.raises(ParameterError, match="with test='t' or test='randomisation'"):
        ir_cwla.compare(pq, test="wilcoxon", correction="maxt")


def test_constant_differences_warn_and_say_what_the_test_does(pq):
    same = pq[pq["name"] == "sys1"].assign(name="copy")
    shifted = pq[pq["name"] == "sys1"].assign(name="shift", value=lambda f: f["value"] + 0.25)
    data = pd.concat([pq, same, shifted], ignore_index=True)
    with pytest.warns(UndefinedStatisticWarning, match="same difference on every topic.*p = 1 where every difference is 0"):
        cmp = ir_cwla.compare(data, baseline="sys1", resamples=100)
    t = cmp.table().set_index(["measure", "system"])
    row = t.loc[("nDCG@10", "copy")]
    assert (row["p_value"], row["statistic"], row["ties"], row["d_z"]) == (1.0, 0.0, 30, 0.0)
    row = t.loc[("AP(rel=2)", "shift")]
    assert row["p_value"] == 0.0 and row["statistic"] == np.inf and row["wins"] == 30
    with pytest.warns(UndefinedStatisticWarning, match="signed-rank test has nothing to rank"):
        w = ir_cwla.compare(data, baseline="sys1", test="wilcoxon", resamples=100).table()
    assert w.set_index(["measure", "system"]).loc[("nDCG@10", "copy"), "p_value"] == 1.0


# ----------------------------------------------------------------------------------- corrections

def test_adjust_kernels_on_a_hand_example():
    p = np.array([0.01, 0.04, 0.03, 0.2])
    np.testing.assert_allclose(multiplicity.adjust(p, "bonferroni"), [0.04, 0.16, 0.12, 0.8])
    np.testing.assert_allclose(multiplicity.adjust(p, "holm"), [0.04, 0.09, 0.09, 0.2])
    np.testing.assert_allclose(multiplicity.adjust(p, "bh"), [0.04, 0.0533333333, 0.0533333333, 0.2])
    np.testing.assert_allclose(multiplicity.adjust(p, "by"), np.minimum(1, multiplicity.adjust(p, "bh") * (1 + 1 / 2 + 1 / 3 + 1 / 4)))


def test_maxt_is_less_conservative_than_bonferroni_and_step_down_than_single_step(pq):
    big = frame(n_systems=6, n_topics=40, seed=4)
    kw = dict(trials=2000, resamples=100, seed=1)
    bonf = ir_cwla.compare(big, correction="bonferroni", **kw).table()["p_adjusted"]
    single = ir_cwla.compare(big, correction="maxt", **kw).table()["p_adjusted"]
    step = ir_cwla.compare(big, correction="maxt-stepdown", **kw).table()["p_adjusted"]
    assert (step <= single + 1e-12).all()
    assert (single <= bonf + 0.02).all() and (single < bonf - 1e-9).any()


# ----------------------------------------------------------------------------------- ranks

def test_rank_uncertainty_is_its_definition(pq):
    from ir_cwla.analysis import streams
    from ir_cwla.analysis.paired import BOOTSTRAP_INTERVAL_STREAM

    one = pq[pq["measure"] == "nDCG@10"]
    result = ranks.rank_uncertainty(one, resamples=400, seed=9, level=0.9)
    matrix = one.pivot(index="qid", columns="name", values="value").sort_index()
    draws = np.concatenate([streams.chunk_rng(9, BOOTSTRAP_INTERVAL_STREAM, i).integers(0, 30, size=(s, 30))
                            for i, s in enumerate(streams.chunk_sizes(400))])
    means = np.stack([matrix.to_numpy()[idx].mean(axis=0) for idx in draws])       # (R, S)
    sample_ranks = np.array([pd.Series(row).rank(method="min", ascending=False).to_numpy() for row in means])
    table = result.table().set_index("system")
    for k, name in enumerate(matrix.columns):
        lo, hi = np.quantile(sample_ranks[:, k], [0.05, 0.95], method="inverted_cdf")
        assert (table.loc[name, "rank_low"], table.loc[name, "rank_high"]) == (lo, hi)
    observed = matrix.mean(axis=0).sort_values(ascending=False)
    for r in result.adjacent.itertuples():
        i, j = list(matrix.columns).index(r.upper), list(matrix.columns).index(r.lower)
        share = (means[:, i] > means[:, j]).mean()
        assert r.share_above == pytest.approx(share)
        assert r.separable == (1 - share < 0.05)
    assert list(result.systems["system"]) == list(observed.index)
    assert "adjacent pairs" in result.summary()


def test_dynascore_rank_uncertainty_is_the_dynascore_of_each_resample(pq):
    from ir_cwla import leaderboard as lb
    from ir_cwla.analysis import streams
    from ir_cwla.analysis.paired import BOOTSTRAP_INTERVAL_STREAM

    one = pq[pq["measure"] == "nDCG@10"]
    board = pd.DataFrame({"latency": [10.0, 30.0, 20.0, 80.0, 50.0], "cost": [1.0, 2.0, 1.5, 6.0, 3.0]},
                         index=[f"sys{k}" for k in range(5)])
    result = ranks.dynascore_rank_uncertainty(board, one, resamples=60, seed=2)
    matrix = one.pivot(index="qid", columns="name", values="value").sort_index()
    draws = np.concatenate([streams.chunk_rng(2, BOOTSTRAP_INTERVAL_STREAM, i).integers(0, 30, size=(s, 30))
                            for i, s in enumerate(streams.chunk_sizes(60))])
    rank_rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for idx in draws:
            table = board.assign(accuracy=matrix.to_numpy()[idx].mean(axis=0))
            ranked = lb.dynascore(table)
            rank_rows.append(ranked["dynascore"].rank(method="min", ascending=False).reindex(matrix.columns))
    sample_ranks = np.array(rank_rows)
    got = result.table().set_index("system")
    for k, name in enumerate(matrix.columns):
        lo, hi = np.quantile(sample_ranks[:, k], [0.025, 0.975], method="inverted_cdf")
        assert (got.loc[name, "rank_low"], got.loc[name, "rank_high"]) == (lo, hi)
    with pytest.raises(DataError, match="different systems"):
        ranks.dynascore_rank_uncertainty(board.iloc[:4], one)


# ----------------------------------------------------------------------------------- topic set size

@pytest.mark.parametrize("sigma2,min_d", [(0.05, 0.10), (0.10, 0.05), (0.02, 0.10), (0.0479, 0.05)])
@pytest.mark.parametrize("alpha,beta", [(0.05, 0.20), (0.01, 0.10)])
def test_t_test_design_is_statsmodels(sigma2, min_d, alpha, beta):
    from statsmodels.stats.power import TTestPower

    effect = min_d / math.sqrt(2 * sigma2)
    ref = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=1 - beta, alternative="two-sided")
    assert topic_set_size.topics_for_t_test(sigma2, min_d, alpha, beta) == math.ceil(ref)
    # Sakai's Excel tool (Nagata's approximation of the noncentral t) is within a topic of it
    assert abs(topic_set_size.topics_for_t_test(sigma2, min_d, alpha, beta, method="sakai") - math.ceil(ref)) <= 1


@pytest.mark.parametrize("m", [2, 5, 10, 37])
@pytest.mark.parametrize("sigma2,min_d", [(0.05, 0.10), (0.02, 0.15)])
def test_anova_design_is_statsmodels(m, sigma2, min_d):
    from statsmodels.stats.power import FTestAnovaPower

    f = math.sqrt(min_d ** 2 / (2 * m * sigma2))        # Cohen's f of the least favourable configuration
    total = FTestAnovaPower().solve_power(effect_size=f, alpha=0.05, power=0.8, k_groups=m)
    n = topic_set_size.topics_for_anova(sigma2, min_d, m)
    assert n == math.ceil(total / m - 1e-9)
    approx = topic_set_size.topics_for_anova(sigma2, min_d, m, method="sakai")
    assert abs(approx - n) <= max(2, 0.01 * n)


def test_nagata_lambda_constants_approximate_the_noncentral_chi_square():
    """Sakai (2018) Table 6.4.

    Lambda ~ x1 + x2 sqrt(phi_A) is the noncentrality at which the chi-square test with phi_A degrees
    of freedom has power 1 - beta; check the published constants against scipy.
    """
    from scipy import optimize, stats

    for (alpha, beta), (x1, x2) in topic_set_size.NAGATA_LAMBDA.items():
        for phi in (4, 9, 16, 36):
            crit = stats.chi2.isf(alpha, phi)
            exact = optimize.brentq(lambda lam, c=crit, f=phi, b=beta: stats.ncx2.sf(c, f, lam) - (1 - b), 1e-6, 500)
            assert abs(x1 + x2 * math.sqrt(phi) - exact) / exact < 0.01, (alpha, beta, phi)


def test_ci_design_is_its_definition():
    from scipy import special, stats

    for sigma2, width in ((0.05, 0.1), (0.02, 0.05), (0.1, 0.2)):
        n = topic_set_size.topics_for_ci(sigma2, width)

        def expected_width(k, sigma2=sigma2):
            e_s = math.sqrt(2 * sigma2) * math.sqrt(2 / (k - 1)) * math.exp(special.gammaln(k / 2) - special.gammaln((k - 1) / 2))
            return 2 * stats.t.ppf(0.975, k - 1) * e_s / math.sqrt(k)

        assert expected_width(n) <= width < expected_width(n - 1)


def test_design_table_per_measure(pq):
    table = topic_set_size.topic_set_sizes(pq, min_d=0.05)
    assert list(table.columns) == ["measure", "sigma2", "df", "n_t_test", "n_anova", "n_ci"]
    assert table["n_t_test"].is_monotonic_increasing
    from ir_cwla.analysis.anova import residual_variance
    from ir_cwla.meta import to_cube

    cube = to_cube(pq)
    for r in table.itertuples():
        assert r.sigma2 == pytest.approx(residual_variance(cube.matrix(r.measure))[0])
        assert r.n_t_test == topic_set_size.topics_for_t_test(r.sigma2, 0.05)
    assert table.attrs["m"] == 5
    with pytest.raises(ParameterError, match="beta"):
        topic_set_size.topics_for_t_test(0.05, 0.1, beta=1.2)
    with pytest.raises(ParameterError, match="min_d"):
        topic_set_size.topics_for_t_test(0.05, -0.1)
