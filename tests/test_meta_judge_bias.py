"""Judge bias (issue 32, item 4): whether runs built on the judge's model family gain under its qrels.

- the permutation test against an exact enumeration written here (every assignment of the family
  labels, ranks by ``scipy.stats.rankdata(method='min')`` of the negated means) on a small case, and
  its Monte-Carlo path within Monte-Carlo error of it, its recipe re-implemented;
- the two-way bootstrap of the effect against its recipe re-implemented;
- DL23 (35 runs' per-topic scores under NIST's 82 topics and SynDL's 618 GPT-4 topics, the run
  metadata of run-models.csv): per-run changes recomputed from the score files with pandas;
- reproducible with the seed and on every executor; bad input refused.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ir_cwla import meta
from ir_cwla.analysis import streams
from ir_cwla.errors import ArgumentTypeError, DataError, InputError, InputWarning, ParameterError
from ir_cwla.meta import criteria
from ir_cwla.meta.judge_bias import holm


def frame(scores: dict[str, list[float]], measure: str = "m", prefix: str = "t") -> pd.DataFrame:
    rows = [(run, f"{prefix}{t}", measure, v) for run, values in scores.items() for t, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def small_case(seed: int = 4, runs: int = 8, topics: int = 6):
    rng = np.random.default_rng(seed)
    names = [f"r{i}" for i in range(runs)]
    reference = {n: list(rng.random(topics)) for n in names}
    judged = {n: list(np.array(reference[n]) + rng.normal(0, 0.3, topics) + (0.2 if i < 3 else 0.0))
              for i, n in enumerate(names)}
    return frame(reference), frame(judged, prefix="u"), {n: i < 3 for i, n in enumerate(names)}


def rank_change(reference: pd.DataFrame, judged: pd.DataFrame) -> pd.Series:
    """Rank under the reference minus rank under the judge, ties sharing the best rank (by hand).

    Means rounded to 10 decimals: equal means that float sums tell apart tie, as in ir_cwla.
    """
    a = reference.groupby("name")["value"].mean().round(10)
    b = judged.groupby("name")["value"].mean().loc[a.index].round(10)
    return pd.Series(stats.rankdata(-a.to_numpy(), method="min") - stats.rankdata(-b.to_numpy(), method="min"),
                     index=a.index)


def exact_p(changes: pd.Series, family: dict[str, bool], alternative: str) -> float:
    runs = list(changes.index)
    k = sum(family.values())

    def effect(members):
        inside = changes[list(members)].mean()
        outside = changes[[r for r in runs if r not in members]].mean()
        return inside - outside

    observed = effect([r for r in runs if family[r]])
    effects = [effect(c) for c in itertools.combinations(runs, k)]
    if alternative == "greater":
        hits = [e >= observed - 1e-9 for e in effects]
    elif alternative == "less":
        hits = [e <= observed + 1e-9 for e in effects]
    else:
        hits = [abs(e) >= abs(observed) - 1e-9 for e in effects]
    return sum(hits) / len(effects)


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_permutation_test_against_exact_enumeration(alternative):
    reference, judged, family = small_case()
    result = meta.judge_bias(reference, judged, family, alternative=alternative, bootstrap=50, seed=0)
    assert result.exact and result.table().at[0, "test"] == "exact"
    changes = rank_change(reference, judged)
    expected = exact_p(changes, family, alternative)
    assert result.table().at[0, "p_rank"] == pytest.approx(expected, abs=1e-12)
    inside = changes[[r for r in changes.index if family[r]]].mean()
    outside = changes[[r for r in changes.index if not family[r]]].mean()
    assert result.table().at[0, "effect_rank"] == pytest.approx(inside - outside, abs=1e-12)
    # Monte-Carlo path: within 4 standard errors of the exact p
    mc = meta.judge_bias(reference, judged, family, alternative=alternative, bootstrap=50, seed=0, trials=4000,
                         exact_limit=1)
    assert not mc.exact
    p = mc.table().at[0, "p_rank"]
    assert abs(p - expected) <= 4 * np.sqrt(expected * (1 - expected) / 4000) + 1 / 4001


def test_monte_carlo_follows_its_recipe():
    reference, judged, family = small_case()
    mc = meta.judge_bias(reference, judged, family, bootstrap=20, seed=9, trials=300, exact_limit=1)
    changes = rank_change(reference, judged)
    runs = list(changes.index)
    observed = mc.table().at[0, "effect_rank"]
    count = 0
    for c, size in enumerate(streams.chunk_sizes(300)):
        rng = np.random.default_rng(np.random.SeedSequence(9, spawn_key=(streams.JUDGE_BIAS_STREAM, c)))
        # 8 runs: the recipe of ir_cwla.analysis.streams draws an index into the table of all 8! permutations
        for row in streams.permutation_table(8)[rng.integers(0, 40320, size=size)]:
            members = [runs[i] for i in row[:3]]
            e = changes[members].mean() - changes[[r for r in runs if r not in members]].mean()
            count += e >= observed - 1e-9
    assert mc.table().at[0, "p_rank"] == pytest.approx((1 + count) / 301, abs=1e-12)


def test_bootstrap_follows_its_recipe():
    reference, judged, family = small_case()
    result = meta.judge_bias(reference, judged, family, bootstrap=30, seed=2)
    ref = meta.to_cube(reference).values[0]
    jud = meta.to_cube(judged).values[0]
    members = np.array([0, 1, 2])
    others = np.arange(3, 8)
    rng = np.random.default_rng(np.random.SeedSequence(2, spawn_key=(streams.TWO_SETS_STREAM, 0)))
    draws_a = rng.integers(0, 6, size=(30, 6))
    draws_b = rng.integers(0, 6, size=(30, 6))
    pick_g = members[rng.integers(0, 3, size=(30, 3))]
    pick_o = others[rng.integers(0, 5, size=(30, 5))]
    for b in (0, 13, 29):
        a, j = ref[draws_a[b]].mean(axis=0), jud[draws_b[b]].mean(axis=0)
        change = stats.rankdata(-a.round(10), method="min") - stats.rankdata(-j.round(10), method="min")
        assert result.replicates[b, 0, 0] == pytest.approx(change[pick_g[b]].mean() - change[pick_o[b]].mean())
        score = j - a
        assert result.replicates[b, 1, 0] == pytest.approx(score[pick_g[b]].mean() - score[pick_o[b]].mean())
    low, high = np.quantile(result.replicates[:, 0, 0], [0.025, 0.975])
    assert result.table().at[0, "effect_rank_low"] == low and result.table().at[0, "effect_rank_high"] == high


def test_holm_against_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = np.array([0.01, 0.04, 0.03, 0.2, 0.005])
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1], atol=1e-15)


@pytest.fixture(scope="module")
def dl23(llm_dir):
    folder = llm_dir / "dl23"
    nist = meta.read_score_files(folder / "per-topic" / "TREC-DLs-results")
    syn = meta.read_score_files(folder / "per-topic" / "SynDL-full-results")
    return nist, syn, folder / "run-models.csv"


def test_dl23_runs_and_their_changes(dl23):
    nist, syn, models = dl23
    family = meta.runs_using(models, "GPT.*")
    assert sum(family.values()) == 14 and family["WatS-Augmented-BM25"] and not family["WatS-LLM-Rerank"]
    gpt4 = meta.runs_using(models, "GPT-4")
    assert sorted(r for r, v in gpt4.items() if v) == sorted(
        ["cip_run_1", "cip_run_2", "uot-yahoo_rankgpt4", "uot-yahoo_LLMs-blender", "naverloo-frgpt4",
         "naverloo-rgpt4", "D_naverloo-frgpt4"])
    with pytest.warns(InputWarning, match="5 run.* not scored.*colbertv2"):
        result = meta.judge_bias(nist, syn, family, measures=["AP", "P@10", "RR"], trials=2000, bootstrap=200,
                                 seed=0)
    table = result.table().set_index("measure")
    assert (table["family_runs"] == 13).all() and (table["runs"] == 35).all()
    assert table.at["AP", "topics_reference"] == 82 and table.at["AP", "topics_judged"] == 618
    for m in ("AP", "P@10", "RR"):
        changes = rank_change(nist[nist["measure"] == m], syn[syn["measure"] == m])
        runs = result.runs_table(m).set_index("run")
        np.testing.assert_array_equal(runs.loc[changes.index, "rank_change"].to_numpy(), changes.to_numpy())
        inside = changes[[r for r in changes.index if family[r]]].mean()
        assert table.at[m, "effect_rank"] == pytest.approx(inside - changes[[r for r in changes.index
                                                                             if not family[r]]].mean())
    assert table["p_rank_holm"].min() >= table["p_rank"].min()


def test_reproducible_on_every_executor(dl23):
    nist, syn, models = dl23
    family = {r: v for r, v in meta.runs_using(models, "GPT.*").items() if r in set(nist["name"])}
    kwargs = dict(measures=["AP", "P@10"], trials=700, bootstrap=300, seed=4)
    base = meta.judge_bias(nist, syn, family, **kwargs)
    parallel = meta.judge_bias(nist.sample(frac=1, random_state=0), syn, family, n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(base.effects, parallel.effects)
    np.testing.assert_array_equal(base.replicates, parallel.replicates)


def test_criterion_and_figure(dl23, tmp_path):
    nist, syn, models = dl23
    nist, syn = nist[nist["measure"].isin(["AP", "RR"])], syn[syn["measure"].isin(["AP", "RR"])]
    inputs = criteria.Inputs(nist, [], alternative_scores={"SynDL": syn}, run_models=meta.read_run_models(models),
                             seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        done = criteria.run(["judge_bias"], inputs, {"bias_trials": 300, "bias_bootstrap": 50, "judge_family": "GPT-4"})
        direct = meta.judge_bias(nist, syn, meta.runs_using(models, "GPT-4"), trials=300, bootstrap=50, seed=1,
                                 reference_name="reference", judged_name="SynDL")
    pd.testing.assert_frame_equal(done.results["judge_bias"].results["SynDL"].effects, direct.effects)
    direct.plot("RR").savefig(tmp_path / "bias.png", dpi=50)
    assert (tmp_path / "bias.png").stat().st_size > 5000


def test_bad_input(tmp_path):
    reference, judged, family = small_case()
    with pytest.raises(DataError, match="says nothing of 1 scored run"):
        meta.judge_bias(reference, judged, {k: v for k, v in family.items() if k != "r7"})
    with pytest.raises(DataError, match="no scored run is in the judge's family"):
        meta.judge_bias(reference, judged, {k: False for k in family})
    with pytest.raises(DataError, match="every scored run is in the judge's family"):
        meta.judge_bias(reference, judged, {k: True for k in family})
    with pytest.raises(DataError, match="names run.* not scored"):
        meta.judge_bias(reference, judged, ["r0", "nope"])
    with pytest.raises(ArgumentTypeError):
        meta.judge_bias(reference, judged, "r0")
    with pytest.raises(ParameterError, match="alternative must be one of"):
        meta.judge_bias(reference, judged, family, alternative="up")
    with pytest.raises(DataError, match="give every run the same mean score"):
        meta.judge_bias(reference.assign(value=0.5), judged, family)
    path = tmp_path / "models.csv"
    path.write_text("run_id,LLM\nr0,GPT-4\nr0,-\n")
    with pytest.raises(InputError, match=r"models.csv, line 3: run 'r0' is listed twice"):
        meta.read_run_models(path)
    path.write_text("run,models\nr0,GPT-4\n")
    with pytest.raises(InputError, match="lacks the column"):
        meta.read_run_models(path)
    assert meta.read_run_models(path, run_column="run", models_column="models") == {"r0": ["GPT-4"]}
    with pytest.raises(ArgumentTypeError):
        meta.runs_using({"r0": ["GPT-4"]}, 3)
    assert meta.runs_using({"r0": ["gpt-4o"], "r1": []}, {"GPT-4o"}) == {"r0": True, "r1": False}
