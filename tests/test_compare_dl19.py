"""ir_cwla.compare on the real DL19 runs: every statistic against an independent computation.

scipy.stats (ttest_rel, wilcoxon, binomtest, bootstrap, studentized_range), statsmodels
(multipletests, anova_lm), ranx's Fisher test, PyTerrier's own pt.Experiment p-values, and
slow loops over the definitions (MaxT single step and step-down, Sakai's bootstrap test, the
bootstrap intervals) written here from the recipes of the docstrings.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ir_cwla
from ir_cwla import meta
from ir_cwla.analysis import anova, paired, streams
from ir_cwla.analysis.frame import to_cube
from ir_cwla.errors import UndefinedStatisticWarning

BASELINE = "bm25base_p"


@pytest.fixture(scope="module")
def dl19(dl19_dir) -> pd.DataFrame:
    """Per-topic scores of the 37 DL19 runs under two canonical C/W/L/A measures and nDCG@10."""
    import ir_measures

    measures = list(ir_cwla.canonical()[:2]) + [ir_measures.nDCG @ 10]
    frame = meta.evaluate(dl19_dir / "runs", dl19_dir / "qrels.dl19-passage.txt", measures, progress=False)
    # compare's tables name measures by their short labels (as the command line does): a column to find them by
    return frame.assign(label=frame["measure"].map(meta.label))


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return fn(*args, **kwargs)


def scores(per_query: pd.DataFrame, measure: str, system: str) -> np.ndarray:
    """One system's scores by topic under a measure (its name or its label)."""
    which = (per_query["measure"] == measure) | (per_query["label"] == measure)
    rows = per_query[which & (per_query["name"] == system)].sort_values("qid")
    return rows["value"].to_numpy()


@pytest.fixture(scope="module")
def t_holm(dl19):
    return quiet(ir_cwla.compare, dl19, baseline=BASELINE, test="t", correction="holm", resamples=500)


def test_t_test_statistic_p_value_and_interval_are_scipys(dl19, t_holm):
    rows = t_holm.table()
    assert len(rows) == 3 * 36
    checked = 0
    for r in rows.itertuples():
        x, y = scores(dl19, r.measure, r.system), scores(dl19, r.measure, r.baseline)
        if np.ptp(x - y) <= 1e-12:
            continue
        ref = stats.ttest_rel(x, y)
        ci = ref.confidence_interval(0.95)
        assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert r.p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
        assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-10)
        assert r.delta == pytest.approx(np.mean(x - y), abs=1e-15)
        assert r.d_z == pytest.approx(np.mean(x - y) / np.std(x - y, ddof=1), rel=1e-10)
        checked += 1
    assert checked >= 100


def test_wilcoxon_and_sign_tests_are_scipys(dl19):
    wil = quiet(ir_cwla.compare, dl19, baseline=BASELINE, test="wilcoxon", correction="none", resamples=200).table()
    sign = quiet(ir_cwla.compare, dl19, baseline=BASELINE, test="sign", correction="none", resamples=200).table()
    for w, s in zip(wil.itertuples(), sign.itertuples()):
        x, y = scores(dl19, w.measure, w.system), scores(dl19, w.measure, w.baseline)
        d = x - y
        if np.abs(d).max() <= 1e-12:
            assert w.p_value == 1.0 and s.p_value == 1.0
            continue
        # rounding noise (|d| <= 1e-12, e.g. 2.8e-17) is a tie, i.e. a zero difference for Wilcoxon
        ref = stats.wilcoxon(np.where(np.abs(d) <= 1e-12, 0.0, d))
        assert w.p_value == pytest.approx(ref.pvalue, rel=1e-12)
        assert w.statistic == ref.statistic
        if not ((np.abs(d) > 0) & (np.abs(d) <= 1e-12)).any():
            assert w.p_value == pytest.approx(stats.wilcoxon(x, y).pvalue, rel=1e-12)
        k, n = int((d > 1e-12).sum()), int((np.abs(d) > 1e-12).sum())
        assert (s.wins, s.losses, s.ties) == (k, n - k, len(d) - n)
        assert s.p_value == pytest.approx(stats.binomtest(k, n).pvalue, rel=1e-12)


def test_corrections_are_statsmodels(dl19):
    from statsmodels.stats.multitest import multipletests

    for ours, theirs in {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh", "by": "fdr_by"}.items():
        for family in ("all", "measure"):
            rows = quiet(ir_cwla.compare, dl19, baseline=BASELINE, correction=ours, family=family,
                         resamples=100).table()
            groups = [rows.index] if family == "all" else [g.index for _, g in rows.groupby("measure")]
            for index in groups:
                ref = multipletests(rows.loc[index, "p_value"], method=theirs)[1]
                np.testing.assert_allclose(rows.loc[index, "p_adjusted"], ref, rtol=1e-12, atol=1e-300)


@pytest.mark.slow
def test_fisher_p_values_agree_with_ranx_within_monte_carlo_error(dl19):
    from ranx.statistical_tests import fisher_randomization_test

    measure = str(ir_cwla.canonical()[0])
    one = dl19[dl19["measure"] == measure]
    rows = quiet(ir_cwla.compare, one, baseline=BASELINE, test="randomisation", correction="none", trials=10000,
                 resamples=100).table()
    gaps = []
    for r in rows.itertuples():
        x, y = scores(dl19, measure, r.system), scores(dl19, measure, r.baseline)
        p_ranx = fisher_randomization_test(y, x, 10000, 0.05, 42)[0]
        se = math.sqrt(max(r.p_value * (1 - r.p_value), 1e-4) / 10000)
        gaps.append(abs(r.p_value - p_ranx) / (se * math.sqrt(2)))
    assert max(gaps) < 4.5                       # two independent Monte-Carlo estimates
    # and exactly meta's seeded kernel
    matrix = to_cube(one).matrix(measure)
    systems = sorted(one["name"].unique())
    p_meta = meta.paired_randomisation_test(matrix, trials=10000, seed=0)
    b = systems.index(BASELINE)
    for r in rows.itertuples():
        assert r.p_value == p_meta[b, systems.index(r.system)]


@pytest.mark.slow
def test_tukey_tests(dl19):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    measure = str(ir_cwla.canonical()[1])
    one = dl19[dl19["measure"] == measure]
    matrix = to_cube(one).matrix(measure)
    systems = sorted(one["name"].unique())
    rand = quiet(ir_cwla.compare, one, test="tukey", trials=2000, resamples=100).table()
    ref = meta.randomised_tukey_hsd(matrix, trials=2000, seed=0)
    for r in rand.itertuples():
        assert r.p_adjusted == r.p_value == ref[systems.index(r.system_a), systems.index(r.system_b)]
    # classical Tukey HSD after the two-way ANOVA without replication, on 8 systems (the studentized
    # range distribution is slow to integrate)
    few = one[one["name"].isin(systems[:8])]
    hsd = quiet(ir_cwla.compare, few, test="tukey-hsd", resamples=100).table()
    fit = smf.ols("value ~ C(name) + C(qid)", data=few.assign(qid=few["qid"].astype(str))).fit()
    table = anova_lm(fit)
    ms_e, df_e = table.loc["Residual", "mean_sq"], table.loc["Residual", "df"]
    n = few["qid"].nunique()
    assert anova.residual_variance(to_cube(few).matrix(measure)) == pytest.approx((ms_e, df_e), rel=1e-10)
    for r in hsd.itertuples():
        q = abs(r.mean_b - r.mean_a) / math.sqrt(ms_e / n)
        assert r.statistic == pytest.approx(q, rel=1e-10)
        assert r.p_value == pytest.approx(stats.studentized_range.sf(q, 8, df_e), rel=1e-6, abs=1e-12)
        es = (r.mean_b - r.mean_a) / math.sqrt(ms_e)
        assert r.es_e2 == pytest.approx(es, rel=1e-10)


def _resamples(seed, n_topics, total, stream):
    """The topic resamples of the bootstrap, re-drawn from the recipe of compare.paired."""
    out = []
    for index, size in enumerate(streams.chunk_sizes(total)):
        rng = streams.chunk_rng(seed, stream, index)
        out.append(rng.integers(0, n_topics, size=(size, n_topics)))
    return np.concatenate(out)


def test_bootstrap_interval_is_the_percentile_interval_of_its_resamples(dl19):
    measure = str(ir_cwla.canonical()[0])
    one = dl19[dl19["measure"] == measure]
    rows = quiet(ir_cwla.compare, one, baseline=BASELINE, resamples=3000, seed=7).table()
    draws = _resamples(7, 43, 3000, paired.BOOTSTRAP_INTERVAL_STREAM)
    for r in rows.iloc[:8].itertuples():
        d = scores(dl19, measure, r.system) - scores(dl19, measure, r.baseline)
        means = d[draws].mean(axis=1)
        lo, hi = np.quantile(means, [0.025, 0.975])
        assert (r.boot_low, r.boot_high) == pytest.approx((lo, hi), abs=1e-14)
        ref = stats.bootstrap((d,), np.mean, n_resamples=3000, method="percentile", random_state=1).confidence_interval
        width = hi - lo
        assert abs(r.boot_low - ref.low) < 0.12 * width and abs(r.boot_high - ref.high) < 0.12 * width


def test_sakai_bootstrap_test_is_its_definition(dl19):
    measure = str(ir_cwla.canonical()[0])
    one = dl19[dl19["measure"] == measure]
    rows = quiet(ir_cwla.compare, one, baseline=BASELINE, test="bootstrap", correction="none", trials=600,
                 resamples=100, seed=3).table()
    # chunks of the test: streams.trial_chunk(T * P) trials each
    chunk = streams.trial_chunk(43 * 36)
    draws = np.concatenate([streams.chunk_rng(3, paired.BOOTSTRAP_TEST_STREAM, i).integers(0, 43, size=(s, 43))
                            for i, s in enumerate(streams.chunk_sizes(600, chunk))])
    for r in rows.iloc[:6].itertuples():
        d = scores(dl19, measure, r.system) - scores(dl19, measure, r.baseline)
        t_obs = abs(stats.ttest_rel(scores(dl19, measure, r.system), scores(dl19, measure, r.baseline)).statistic)
        w = d - d.mean()
        hits = 0
        for idx in draws:
            sample = w[idx]
            sd = sample.std(ddof=1)
            t = abs(sample.mean()) / (sd / math.sqrt(43)) if sd > 0 else (0.0 if sample.mean() == 0 else np.inf)
            hits += t >= t_obs * (1 - 1e-9)
        assert r.p_value == (hits + 1) / 601                 # Phipson & Smyth: the observed sample is one of 601


def _slow_maxt(values, pairs, trials, seed, step_down):
    """MaxT from its definition.

    Permute every topic's systems (the streams recipe), paired t statistics by scipy, the
    maximum over the family (or over the hypotheses not yet rejected).
    """
    from ir_cwla.analysis.paired import MAXT_STREAM

    n_m, n_t, n_s = values.shape
    hyps = [(m, a, b) for m in range(n_m) for a, b in pairs]
    observed = np.array([abs(stats.ttest_rel(values[m][:, b], values[m][:, a]).statistic) for m, a, b in hyps])
    cells = max(n_t * n_s, n_s * n_s, len(hyps))
    perm_stats = []
    for index, size in enumerate(streams.chunk_sizes(trials, streams.trial_chunk(cells))):
        rng = streams.chunk_rng(seed, MAXT_STREAM, index)
        perms = streams.permutations(rng, (size, n_t), n_s)
        for perm in perms:
            row = []
            for m, a, b in hyps:
                x = np.take_along_axis(values[m], perm, axis=1)
                row.append(abs(stats.ttest_rel(x[:, b], x[:, a]).statistic))
            perm_stats.append(row)
    perm_stats = np.array(perm_stats)
    def p(hits):
        return (hits.sum() + 1) / (len(hits) + 1)                   # Phipson & Smyth

    if not step_down:
        return np.array([p(perm_stats.max(axis=1) >= t * (1 - 1e-9)) for t in observed])
    order = np.argsort(-observed, kind="stable")
    out = np.empty(len(hyps))
    running = 0.0
    for j, h in enumerate(order):
        rest = order[j:]
        pj = p(perm_stats[:, rest].max(axis=1) >= observed[h] * (1 - 1e-9))
        running = max(running, pj)
        out[h] = running
    return out


@pytest.mark.slow
@pytest.mark.parametrize("correction", ["maxt", "maxt-stepdown"])
def test_maxt_is_its_definition(dl19, correction):
    systems = [BASELINE] + sorted(set(dl19["name"]) - {BASELINE})[:4]
    sub = dl19[dl19["name"].isin(systems) & dl19["measure"].isin(sorted(dl19["measure"].unique())[:2])]
    cmp = quiet(ir_cwla.compare, sub, baseline=BASELINE, correction=correction, trials=300, resamples=50, seed=5)
    cube = to_cube(sub)
    names = list(cube.systems)
    b = names.index(BASELINE)
    pairs = [(b, j) for j in range(len(names)) if j != b]
    ref = _slow_maxt(cube.values, pairs, 300, 5, correction == "maxt-stepdown")
    got = cmp.table()
    expected = {(meta.label(m), names[j]): p for (m, (_, j)), p in zip([(m, pr) for m in cube.measures for pr in pairs],
                                                                        ref)}
    for r in got.itertuples():
        assert r.p_adjusted == pytest.approx(expected[(r.measure, r.system)], abs=1e-12)
    assert (got["p_adjusted"] >= got["p_value"] - 0.05).all()       # adjusting raises p (up to MC error)


def test_es_e2_with_two_systems_is_sqrt2_dz(dl19):
    two = dl19[dl19["name"].isin([BASELINE, "TUA1-1"])]
    rows = ir_cwla.compare(two, baseline=BASELINE, resamples=100).table()
    np.testing.assert_allclose(rows["es_e2"], math.sqrt(2) * rows["d_z"], rtol=1e-10)


def test_executor_and_row_order_do_not_change_anything(dl19):
    from ir_cwla.meta import LocalProcesses

    measure = str(ir_cwla.canonical()[0])
    one = dl19[dl19["measure"] == measure]
    one = one[one["name"].isin(sorted(one["name"].unique())[:12])]
    shuffled = one.sample(frac=1.0, random_state=11)
    for test, correction in (("randomisation", "maxt-stepdown"), ("bootstrap", "holm"), ("tukey", None)):
        kwargs = dict(test=test, correction=correction, trials=1000, resamples=300, seed=2)
        a = quiet(ir_cwla.compare, one, **kwargs).table()
        b = quiet(ir_cwla.compare, shuffled, executor=LocalProcesses(2), **kwargs).table()
        pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.fixture(scope="module")
def pyterrier_runs(dl19_dir):
    import ir_measures
    import pyterrier as pt

    paths = sorted((dl19_dir / "runs").glob("input.*.gz"))
    runs = [pt.Transformer.from_df(pt.io.read_results(str(p))) for p in paths]
    qrels = pt.io.read_qrels(str(dl19_dir / "qrels.dl19-passage.txt"))
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": "unused"})
    names = [meta.run_name(p) for p in paths]
    order = np.argsort(names, kind="stable")
    base = names.index(BASELINE)
    runs = [runs[base]] + [runs[i] for i in order if i != base]
    names = [names[base]] + [names[i] for i in order if i != base]
    metrics = [ir_measures.nDCG @ 10, ir_measures.AP(rel=2)]
    # the per-query frame is the same for every test and correction: PyTerrier computes it once
    per_query = pt.Experiment(runs, topics, qrels, eval_metrics=metrics, names=names, perquery=True)
    return runs, topics, qrels, names, metrics, per_query


@pytest.mark.slow
@pytest.mark.parametrize("test,correction", [("t", "holm"), ("wilcoxon", "bonferroni"), ("t", "fdr_bh")])
def test_p_values_are_pyterriers(pyterrier_runs, test, correction):
    """ir_cwla.compare gives pt.Experiment's p-values and corrected p-values.

    pt.Experiment(baseline=0, test=..., correction=...) and ir_cwla.compare on its own per-query
    frame give the same p-values and corrected p-values (PyTerrier adjusts per measure).
    """
    import pyterrier as pt

    runs, topics, qrels, names, metrics, per_query = pyterrier_runs
    table = pt.Experiment(runs, topics, qrels, eval_metrics=metrics, names=names, baseline=0, test=test,
                          correction=correction)
    ours = quiet(ir_cwla.compare, per_query, baseline=BASELINE, test=test, correction=correction,
                 family="measure", resamples=100).table()
    for m in metrics:
        key = str(m)
        mine = ours[ours["measure"] == key].set_index("system")
        theirs = table.set_index("name").drop(index=BASELINE)
        np.testing.assert_allclose(mine.loc[theirs.index, "p_value"], theirs[f"{key} p-value"], rtol=1e-12)
        np.testing.assert_allclose(mine.loc[theirs.index, "p_adjusted"], theirs[f"{key} p-value corrected"],
                                   rtol=1e-12)
        assert (mine.loc[theirs.index, "wins"].to_numpy() == theirs[f"{key} +"].to_numpy()).all()
        assert (mine.loc[theirs.index, "losses"].to_numpy() == theirs[f"{key} -"].to_numpy()).all()


def test_rank_intervals_on_dl19_are_their_definition(dl19):
    from ir_cwla.comparison import rank_uncertainty

    measure = "nDCG@10"
    one = dl19[dl19["measure"] == measure]
    result = rank_uncertainty(one, resamples=500, seed=4)
    matrix = one.pivot(index="qid", columns="name", values="value").sort_index()
    draws = _resamples(4, 43, 500, paired.BOOTSTRAP_INTERVAL_STREAM)
    means = np.stack([matrix.to_numpy()[idx].mean(axis=0) for idx in draws])
    ranks = pd.DataFrame(means, columns=matrix.columns).rank(axis=1, method="min", ascending=False).to_numpy()
    got = result.table().set_index("system")
    for k, name in enumerate(matrix.columns):
        lo, hi = np.quantile(ranks[:, k], [0.025, 0.975], method="inverted_cdf")
        assert (got.loc[name, "rank_low"], got.loc[name, "rank_high"]) == (lo, hi), name
    for r in result.adjacent.itertuples():
        share = (means[:, list(matrix.columns).index(r.upper)] > means[:, list(matrix.columns).index(r.lower)]).mean()
        assert r.share_above == pytest.approx(share) and r.separable == (1 - share < 0.025)
    assert 0 < result.adjacent["separable"].sum() < 36        # DL19: some adjacent ranks separable, most not


def test_topic_set_sizes_on_dl19_are_statsmodels(dl19):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm
    from statsmodels.stats.power import FTestAnovaPower, TTestPower

    from ir_cwla.comparison import topic_set_sizes

    table = topic_set_sizes(dl19, min_d=0.10)
    assert len(table) == 3 and table["n_t_test"].is_monotonic_increasing
    for r in table.itertuples():
        one = dl19[dl19["measure"] == r.measure]
        ms_e = anova_lm(smf.ols("value ~ C(name) + C(qid)", data=one).fit()).loc["Residual", "mean_sq"]
        assert r.sigma2 == pytest.approx(ms_e, rel=1e-10)
        n_t = TTestPower().solve_power(effect_size=0.10 / math.sqrt(2 * ms_e), alpha=0.05, power=0.8)
        assert r.n_t_test == math.ceil(n_t)
        total = FTestAnovaPower().solve_power(effect_size=math.sqrt(0.01 / (2 * 37 * ms_e)), alpha=0.05, power=0.8,
                                              k_groups=37)
        assert r.n_anova == math.ceil(total / 37 - 1e-9)
