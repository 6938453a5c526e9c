"""Similarity, consistency and discriminative power on synthetic frames (fast, exact checks)."""
from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ir_cwla import meta
from ir_cwla.analysis import streams

matplotlib.use("Agg")


def frame_from(matrices: dict[str, np.ndarray]) -> pd.DataFrame:
    """A per-query frame from {measure: topics x systems matrix}."""
    rows = []
    for m, x in matrices.items():
        for t, s in itertools.product(range(x.shape[0]), range(x.shape[1])):
            rows.append((f"sys{s:02d}", f"q{t:02d}", m, float(x[t, s])))
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


@pytest.fixture(scope="module")
def synthetic():
    """Three measures over 10 systems of increasing quality and 16 topics; 'noisy' is noisier."""
    rng = np.random.default_rng(0)
    quality = np.linspace(0.2, 0.6, 10)
    base = np.clip(quality + rng.normal(0, 0.12, (16, 10)), 0, 1)
    return {"good": base, "scaled": 10 * base, "noisy": np.clip(base + rng.normal(0, 0.3, base.shape), 0, 1)}


def test_similarity_self_one_scaled_one_and_matches_scipy(synthetic):
    sim = meta.similarity(frame_from(synthetic))
    assert (np.diag(sim.tau.to_numpy()) == 1).all()
    assert sim.tau.at["good", "scaled"] == 1.0
    means = {m: x.mean(axis=0) for m, x in synthetic.items()}
    ref = stats.kendalltau(means["good"], means["noisy"]).statistic
    assert sim.tau.at["good", "noisy"] == pytest.approx(ref, abs=1e-12)
    assert sim.ci_low.at["good", "noisy"] < ref < sim.ci_high.at["good", "noisy"]
    table = sim.table()
    assert len(table) == 3 and set(table.columns) >= {"measure_a", "measure_b", "tau", "ci_low", "ci_high"}
    assert sim.matrix().at["scaled", "good"] == "1.000 (1.000, 1.000)"


def test_similarity_rejects_constant_measure(synthetic):
    df = frame_from({**synthetic, "flat": np.full((16, 10), 0.5)})
    with pytest.raises(ValueError, match="same mean score"):
        meta.similarity(df)


def slow_consistency_taus(matrices, trials, seed, chunk=100):
    """Algorithm 1 re-implemented split by split with scipy's tau.

    Algorithm 1 re-implemented split by split with scipy's tau, from the documented streams
    (measures in the canonical order: names that are no measure sort by name).
    """
    names = sorted(matrices)
    n_t = matrices[names[0]].shape[0]
    out = []
    for c, start in enumerate(range(0, trials, chunk)):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, c)))
        size = min(chunk, trials - start)
        orders = rng.permuted(np.tile(np.arange(n_t), (size, 1)), axis=1)
        for order in orders:
            t1, t2 = sorted(order[: n_t // 2]), sorted(order[n_t // 2:])
            assert len(t1) == n_t // 2 and not set(t1) & set(t2) and len(t1) + len(t2) == n_t
            out.append([stats.kendalltau(matrices[m][t1].mean(0), matrices[m][t2].mean(0)).statistic
                        for m in names])
    return np.array(out)


def test_consistency_follows_algorithm_1_and_its_tukey_test(synthetic):
    cons = meta.consistency(frame_from(synthetic), trials=150, test_trials=300, seed=3, progress=False)
    np.testing.assert_allclose(cons.taus.to_numpy(), slow_consistency_taus(synthetic, 150, 3), atol=1e-12)
    p = meta.randomised_tukey_hsd(cons.taus.to_numpy(), trials=300,
                                  seed=streams.derive(3, streams.CONSISTENCY_TEST_STREAM))
    np.testing.assert_array_equal(cons.p_value_matrix().to_numpy(), p)
    table = cons.table()
    assert list(table["measure"][:2]) in (["good", "scaled"], ["scaled", "good"])
    assert table["mean_tau"].is_monotonic_decreasing
    # the noisy measure is significantly worse than both others; the two identical ones are not different
    assert table.set_index("measure")["outperforms"].to_dict() == {"good": 1, "scaled": 1, "noisy": 0}
    assert cons.p_value_matrix().at["good", "scaled"] == 1.0
    assert (cons.degenerate == 0).all()


def test_consistency_families_are_tested_separately(synthetic):
    df = frame_from({**synthetic, "noisy2": synthetic["noisy"][:, ::-1]})
    groups = {"good": "A", "noisy": "A", "scaled": "B", "noisy2": "B"}
    cons = meta.consistency(df, trials=100, test_trials=200, seed=0, groups=groups, progress=False)
    assert list(cons.p_values) == ["A", "B"]
    assert list(cons.p_values["B"].index) == ["noisy2", "scaled"]
    assert set(cons.table()["group"]) == {"A", "B"}
    with pytest.raises(ValueError, match="several families"):
        cons.p_value_matrix()


def test_consistency_counts_degenerate_splits():
    x = np.zeros((4, 5))
    x[0] = np.arange(5)                                  # only topic 0 separates the systems
    df = frame_from({"a": x, "b": x[:, ::-1]})
    with pytest.warns(UserWarning, match="tying all systems"):
        cons = meta.consistency(df, trials=40, test_trials=50, seed=0, progress=False)
    assert (cons.degenerate == 40).all()                 # one half never contains topic 0
    assert (cons.taus.to_numpy() == 0).all()


def test_discriminative_power_tukey_matches_kernel_and_sorts_table(synthetic):
    df = frame_from(synthetic)
    disc = meta.discriminative_power(df, trials=400, alpha=0.05, seed=2, progress=False)
    p_good = meta.randomised_tukey_hsd(synthetic["good"], trials=400, seed=2)
    np.testing.assert_array_equal(disc.p_values("good").to_numpy(), p_good)
    a, b = np.triu_indices(10, 1)
    table = disc.table().set_index("measure")
    assert table.at["good", "significant"] == int((p_good[a, b] < 0.05).sum()) > 0
    assert table.at["good", "significant"] == table.at["scaled", "significant"]
    assert table.at["noisy", "significant"] < table.at["good", "significant"]
    assert table.at["good", "share"] == table.at["good", "significant"] / 45
    assert disc.table()["significant"].is_monotonic_decreasing
    asl = disc.asl()
    assert asl.shape == (45, 3) and asl["noisy"].is_monotonic_increasing
    np.testing.assert_array_equal(asl["good"], np.sort(p_good[a, b]))


def test_discriminative_power_other_tests_match_their_kernels(synthetic):
    df = frame_from(synthetic)
    rand = meta.discriminative_power(df, trials=300, seed=1, test="randomisation", progress=False)
    ttest = meta.discriminative_power(df, test="t-test", progress=False)
    np.testing.assert_array_equal(rand.p_values("noisy").to_numpy(),
                                  meta.paired_randomisation_test(synthetic["noisy"], trials=300, seed=1))
    np.testing.assert_allclose(ttest.p_values("noisy").to_numpy(), meta.paired_t_test(synthetic["noisy"]))
    assert ttest.test == "t" and rand.test == "randomisation"         # one spelling of each test: the registry's
    # every test of the registry is one; Wilcoxon's p-values are scipy's, pair by pair
    from scipy import stats

    wil = meta.discriminative_power(df, test="wilcoxon", progress=False).p_values("noisy").to_numpy()
    x = synthetic["noisy"]
    assert wil[0, 1] == pytest.approx(stats.wilcoxon(x[:, 0] - x[:, 1]).pvalue, rel=1e-12)
    with pytest.raises(ValueError, match="unknown test 'anova': valid ones are t, wilcoxon, sign, randomisation, bootstrap, randomised-tukey-hsd"):
        meta.discriminative_power(df, test="anova")


def test_discriminative_power_is_independent_of_the_other_measures(synthetic):
    both = meta.discriminative_power(frame_from(synthetic), trials=250, seed=7, progress=False)
    alone = meta.discriminative_power(frame_from({"noisy": synthetic["noisy"]}), trials=250, seed=7, progress=False)
    np.testing.assert_array_equal(both.p_values("noisy").to_numpy(), alone.p_values("noisy").to_numpy())


def test_figures_have_one_panel_per_family(synthetic):
    df = frame_from(synthetic)
    groups = {"good": "A", "scaled": "A", "noisy": "B"}
    sim = meta.similarity(df, groups=groups)
    cons = meta.consistency(df, trials=30, test_trials=30, groups=groups, progress=False)
    disc = meta.discriminative_power(df, trials=30, groups=groups, progress=False)
    fig = disc.plot_asl()
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 2 and len(visible[0].get_lines()) == 2 + 1      # 2 curves + the alpha line
    assert [ax.get_title() for ax in visible] == ["A", "B"]            # not browsing models: no "C:"
    fig = sim.plot()                     # family B holds one measure: no (empty) panel, named under the title
    assert [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()] == ["A"]
    assert "left out: noisy (family of one measure" in fig._suptitle.get_text()
    assert len(cons.plot().axes) == 2


def test_similarity_with_few_systems_warns_that_cis_are_undefined(synthetic):
    small = {m: x[:, :4] for m, x in synthetic.items()}
    with pytest.warns(UserWarning, match="confidence intervals"):
        sim = meta.similarity(frame_from(small))
    assert np.isnan(sim.ci_low.to_numpy()).all() and np.isfinite(sim.tau.to_numpy()).all()


def test_labels_and_families_of_measure_names():
    assert meta.label("CWLA(C='RBP',A='max')@10") == "RBP_max@10"
    assert meta.browsing_model("CWLA(C='RBP',A='max')@10") == "RBP@10"
    assert meta.browsing_model("CWLA(C='INST',A='PE',T=3.0)@10") == "INST(T=3)@10"
    assert meta.label("nDCG@10") == "nDCG@10" and meta.browsing_model("nDCG@10") == "nDCG@10"
    # standard measures are families with their cutoff and parameters: AP and AP@10 are two (issue 19)
    assert [meta.browsing_model(m) for m in ("AP", "AP@10", "P(rel=2)@5")] == ["AP", "AP@10", "P(rel=2)@5"]
    assert meta.browsing_model("RBP_max@10") == "RBP@10"            # short names are read too
    with pytest.raises(ValueError, match="'my-measure@5' is not a measure name"):
        meta.browsing_model("my-measure@5")                           # never a family of its own
