"""Topic-disjoint collections and per-topic score files (issue 32, items 2 and 3).

- the reader of ``trec_eval -q`` files: every per-topic value as written, the mean of each run's
  topics equal to trec_eval's own summary line (to its 4 decimals), bad files named by line;
- ``meta.disjoint_agreement`` on DL23's per-topic files (NIST's 82 topics against SynDL's 618 GPT-4
  topics): Kendall's tau-b against ``scipy.stats.kendalltau`` of the means, tau_AP against a loop
  over Yilmaz et al.'s (2008) definition, the bootstrap and the null against their documented
  recipes re-implemented here, the p-value's formula, disjoint null sets where possible;
- on DL21 (slow): nDCG@10's tau-b between NIST's 53 topics and GPT-4's 424 is the README's 0.896;
- ``meta.score_variation`` from per-query frames equals ``meta.assessor_variation`` of the runs
  with ``judged='policy'`` on DL19 (its re-annotation as the alternative);
- reproducible with the seed, on every executor, whatever the row order; bad input refused.
"""
from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ir_cwla import meta
from ir_cwla.analysis import streams
from ir_cwla.errors import DataError, InputError, InputWarning, ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import criteria, disjoint, scorefiles

MEASURES = ["AP", "P@10", "RR", "Bpref", "Rprec", "P@5"]


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        warnings.simplefilter("ignore", InputWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def dl23(llm_dir) -> dict[str, pd.DataFrame]:
    folder = llm_dir / "dl23" / "per-topic"
    return {name: meta.read_score_files(folder / f"{name}-results")
            for name in ("TREC-DLs", "SynDL-full", "SynDL-partial")}


def test_score_files_are_read_as_written(llm_dir, dl23):
    path = llm_dir / "dl23" / "per-topic" / "TREC-DLs-results" / "uogtr_dph.treceval.gz"
    lines = [line.split() for line in gzip.open(path, "rt")]
    topic_lines = [(m, q, float(v)) for m, q, v in lines if q != "all"]
    frame = dl23["TREC-DLs"]
    run = frame[frame["name"] == "uogtr_dph"]
    assert len(run) == len(topic_lines) == 27 * 82
    names = {"map": "AP", "P_10": "P@10", "recip_rank": "RR", "num_rel_ret": "NumRet(rel=1)", "iprec_at_recall_0.10":
             "IPrec@0.1"}
    got = run.set_index(["measure", "qid"])["value"]
    for m, q, v in topic_lines:
        if m in names:
            assert got[(names[m], q)] == v
    # the mean over each run's topics is trec_eval's summary line, for every run and measure
    for name, frame in dl23.items():
        folder = llm_dir / "dl23" / "per-topic" / f"{name}-results"
        for file in sorted(folder.iterdir())[::7]:
            summary = {m: float(v) for m, q, v in (line.split() for line in gzip.open(file, "rt"))
                       if q == "all" and m in ("map", "P_10", "recip_rank", "bpref")}
            means = frame[frame["name"] == file.name[:-len(".treceval.gz")]].groupby("measure")["value"].mean()
            for m, v in summary.items():
                assert means[scorefiles.measure_name(m)] == pytest.approx(v, abs=5e-5 + 1e-12), (file.name, m)
    assert frame["qid"].nunique() == 700 and frame["name"].nunique() == 35


def test_score_file_errors_name_the_line(tmp_path):
    path = tmp_path / "run.treceval"
    cases = {"map 1 0.5\nP_10 1\n": "line 2: expected 3 fields",
             "map 1 x\n": "line 1: value 'x' of map on topic 1 is not a finite number",
             "map 1 nan\n": "not a finite number",
             "map 1 0.5\nmap 1 0.6\n": "line 2: map of topic 1 is given twice, 0.5 on line 1 and 0.6",
             "runid all a\nrunid all b\nmap 1 0.5\n": "line 2: a second runid 'b'",
             "runid all a\nmap all 0.5\n": "has no per-topic line"}
    for text, message in cases.items():
        path.write_text(text)
        with pytest.raises(InputError, match=message):
            meta.read_trec_eval(path)
    path.write_text("map 1 0.5\nmap 1 0.5\nP_10 2 1e-1\n")              # the same value twice is read once
    frame = meta.read_trec_eval(path)
    assert list(frame["name"].unique()) == ["run"] and len(frame) == 2
    other = tmp_path / "other.txt"
    other.write_text("runid all run\nmap 1 0.5\n")
    with pytest.raises(InputError, match="both hold run 'run'"):
        meta.read_score_files([path, other])
    assert set(meta.read_score_files({"x": path, "y": other})["name"]) == {"x", "y"}


def yilmaz_tau_ap(reference: np.ndarray, other: np.ndarray) -> float:
    """tau_AP of Yilmaz, Aslam & Robertson (2008) by its definition, for rankings without ties.

    Walk down ``other``'s ranking; at rank i (from 2), C(i) counts the items above it in ``other``
    that ``reference`` also ranks above it; tau_AP = 2 / (n - 1) sum_i C(i) / (i - 1) - 1.
    """
    order = sorted(range(len(other)), key=lambda s: -other[s])
    total = 0.0
    for i in range(1, len(order)):
        item = order[i]
        total += sum(1 for above in order[:i] if reference[above] > reference[item]) / i
    return 2.0 / (len(order) - 1) * total - 1.0


def tau_ap_with_ties(reference: np.ndarray, other: np.ndarray, limit: int = 20000) -> float:
    """tau_AP with ties by brute force (None if too many orderings): the ratio of the expectations.

    Over every ordering of the groups of items ``other`` ties (each equally likely), the expected
    ``sum_pairs w s_ref s_other`` over the expected ``sum_pairs w |s_ref|``, ``w = 1 / (i - 1)`` with
    ``i`` the rank in the ordering of the pair's lower item, pairs that ``reference`` ties left out
    (what ir_cwla's docstring says; Yilmaz et al.'s definition where nothing ties).
    """
    import itertools
    import math

    values = sorted(set(other), reverse=True)
    groups = [[s for s in range(len(other)) if other[s] == v] for v in values]
    if math.prod(math.factorial(len(g)) for g in groups) > limit:
        return None
    num = den = 0.0
    count = 0
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [s for group in choice for s in group]
        for i in range(1, len(order)):
            low = order[i]
            for high in order[:i]:
                if reference[high] == reference[low]:
                    continue
                sign = 1.0 if reference[high] > reference[low] else -1.0
                # s_other: +1 if other ranks high above low; a pair tied in other is ordered as in this ordering
                num += sign / i
                den += 1.0 / i
        count += 1
    return (num / count) / (den / count)


@pytest.fixture(scope="module")
def dl23_disjoint(dl23) -> disjoint.DisjointAgreement:
    nist = dl23["TREC-DLs"]
    syn = dl23["SynDL-full"]
    return quiet(meta.disjoint_agreement, nist, syn, measures=MEASURES, bootstrap=400, null_trials=300, seed=3,
                 reference_name="NIST", name="SynDL")


def test_disjoint_statistics_against_scipy_and_a_loop(dl23, dl23_disjoint):
    table = dl23_disjoint.table().set_index("measure")
    assert (table["topics_a"] == 82).all() and (table["topics_b"] == 618).all()
    assert (table["null_sets"] == "resampled").all()            # 82 + 618 topics cannot come from the 82
    untied = 0
    for m in MEASURES:
        # means rounded to 10 decimals: equal means that float sums tell apart tie, as in ir_cwla (TIE_TOLERANCE)
        a = dl23["TREC-DLs"][dl23["TREC-DLs"]["measure"] == m].groupby("name")["value"].mean().round(10)
        b = dl23["SynDL-full"][dl23["SynDL-full"]["measure"] == m].groupby("name")["value"].mean().loc[a.index].round(10)
        assert table.at[m, "tau"] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
        if a.is_unique and b.is_unique:                  # the definition has no ties
            assert table.at[m, "tau_ap"] == pytest.approx(yilmaz_tau_ap(a.to_numpy(), b.to_numpy()), abs=1e-12)
            untied += 1
        expected = tau_ap_with_ties(a.to_numpy(), b.to_numpy())
        if expected is not None:
            assert table.at[m, "tau_ap"] == pytest.approx(expected, abs=1e-12), m
            untied += 1
    assert untied >= 4


def test_disjoint_bootstrap_and_null_follow_their_recipes(dl23, dl23_disjoint):
    cube_a = meta.to_cube(dl23["TREC-DLs"][dl23["TREC-DLs"]["measure"].isin(MEASURES)])
    cube_b = meta.to_cube(dl23["SynDL-full"][dl23["SynDL-full"]["measure"].isin(MEASURES)])
    m = list(cube_a.measures).index("AP")
    k = dl23_disjoint.measures.index("AP")
    rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(streams.TWO_SETS_STREAM, 1)))   # chunk 1
    draws_a = rng.integers(0, 82, size=(200, 82))
    draws_b = rng.integers(0, 618, size=(200, 618))
    for b in (0, 5, 199):
        x = cube_a.values[m][draws_a[b]].mean(axis=0)
        y = cube_b.values[m][draws_b[b]].mean(axis=0)
        x, y = x.round(10), y.round(10)
        assert dl23_disjoint.replicates["SynDL"][200 + b, k, 0] == pytest.approx(stats.kendalltau(x, y).statistic,
                                                                                   abs=1e-12)
        if len(set(x)) == len(x) and len(set(y)) == len(y):
            assert dl23_disjoint.replicates["SynDL"][200 + b, k, 1] == pytest.approx(yilmaz_tau_ap(x, y), abs=1e-12)
    rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(streams.DISJOINT_NULL_STREAM, 0)))
    first, second = rng.integers(0, 82, size=(200, 82)), rng.integers(0, 82, size=(200, 618))
    for b in (0, 77):
        x, y = cube_a.values[m][first[b]].mean(axis=0).round(10), cube_a.values[m][second[b]].mean(axis=0).round(10)
        assert dl23_disjoint.nulls["SynDL"][b, k, 0] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    row = dl23_disjoint.table().set_index("measure").loc["AP"]
    null = dl23_disjoint.nulls["SynDL"][:, k, 0]
    assert row["p_tau"] == pytest.approx((1 + np.sum(null <= row["tau"] + 1e-12)) / (1 + len(null)))
    assert row["null_tau"] == pytest.approx(np.median(null))
    boot = dl23_disjoint.replicates["SynDL"][:, k, 0]
    z = stats.norm.ppf(0.975)
    assert row["tau_low"] == pytest.approx(max(-1, row["tau"] - z * boot.std(ddof=1)))


def test_disjoint_null_sets_are_disjoint_where_possible(dl23):
    """NIST's 82 topics split into disjoint sets of 30 and 40 for a comparison of 30 against 40 topics."""
    nist = dl23["TREC-DLs"][dl23["TREC-DLs"]["measure"].isin(["AP", "P@10"])]
    topics = sorted(nist["qid"].unique())
    a = nist[nist["qid"].isin(topics[:30])]
    b = nist[nist["qid"].isin(topics[30:70])]
    result = quiet(meta.disjoint_agreement, a, b, bootstrap=20, null_trials=50, seed=1, null="a")
    assert result.null_sets == {"b": "resampled"}            # a has 30 topics: 30 + 40 do not fit
    whole = quiet(meta.disjoint_agreement, nist, b.assign(qid="x" + b["qid"]), bootstrap=20, null_trials=50, seed=1,
                  null="a")
    assert whole.null_sets == {"b": "resampled"}
    first, second, how = disjoint.null_draws(np.random.default_rng(0), 50, 82, 30, 40)
    assert how == "disjoint" and all(not set(f) & set(s) for f, s in zip(first, second))
    assert all(len(set(f)) == 30 for f in first)
    cube = meta.to_cube(nist)
    data = disjoint._Data(cube.values[None], cube.values[None], "disjoint", cube.values, (30, 40))
    task = [t for t in disjoint.montecarlo.plan(1, streams.DISJOINT_NULL_STREAM, 50, streams.CHUNK, 1, 1)][0]
    got = disjoint._null_task(data, task)[:, 0]
    rng = np.random.default_rng(np.random.SeedSequence(1, spawn_key=(streams.DISJOINT_NULL_STREAM, 0)))
    order = rng.permuted(np.broadcast_to(np.arange(82), (50, 82)), axis=1)
    for r in (0, 49):
        x = cube.values[0][order[r, :30]].mean(axis=0).round(10)
        y = cube.values[0][order[r, 30:70]].mean(axis=0).round(10)
        assert got[r, 0, 0] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_disjoint_is_reproducible_on_every_executor_and_row_order(dl23):
    nist = dl23["TREC-DLs"][dl23["TREC-DLs"]["measure"].isin(["AP", "P@10"])]
    syn = dl23["SynDL-full"][dl23["SynDL-full"]["measure"].isin(["AP", "P@10"])]
    kwargs = dict(bootstrap=450, null_trials=250, seed=5)
    base = quiet(meta.disjoint_agreement, nist, syn, **kwargs)
    shuffled = quiet(meta.disjoint_agreement, nist.sample(frac=1, random_state=1), syn.sample(frac=1, random_state=2),
                     **kwargs)
    parallel = quiet(meta.disjoint_agreement, nist, syn, n_jobs=2, **kwargs)
    for other in (shuffled, parallel):
        pd.testing.assert_frame_equal(base.agreement, other.agreement)
        np.testing.assert_array_equal(base.replicates["b"], other.replicates["b"])
    several = quiet(meta.disjoint_agreement, nist, {"b": syn, "c": syn}, **kwargs)
    pd.testing.assert_frame_equal(several.table("b").reset_index(drop=True), base.table())
    changed = quiet(meta.disjoint_agreement, nist, syn, **{**kwargs, "seed": 6})
    assert not np.array_equal(changed.replicates["b"], base.replicates["b"])


def test_disjoint_bad_input(dl23):
    nist = dl23["TREC-DLs"][dl23["TREC-DLs"]["measure"].isin(["AP", "P@10"])]
    syn = dl23["SynDL-full"][dl23["SynDL-full"]["measure"].isin(["AP", "P@10"])]
    partial = dl23["SynDL-partial"][dl23["SynDL-partial"]["measure"].isin(["AP", "P@10"])]
    with pytest.raises(DataError, match="share 82 topics .* but not all: pass disjoint topic sets"):
        meta.disjoint_agreement(nist, partial, bootstrap=10, null_trials=10)
    with pytest.raises(DataError, match="have the same topics; this analysis compares collections with disjoint"):
        meta.disjoint_agreement(nist, nist, bootstrap=10, null_trials=10)
    with pytest.raises(DataError, match="score different systems: only b has .*uogtr_s"):
        meta.disjoint_agreement(nist[nist["name"] != "uogtr_s"], syn, bootstrap=10, null_trials=10)
    with pytest.raises(DataError, match="has no scores for RR"):
        meta.disjoint_agreement(nist, syn, measures=["AP", "RR"], bootstrap=10, null_trials=10)
    with pytest.raises(ParameterError, match="null must be one of"):
        meta.disjoint_agreement(nist, syn, null="c")
    with pytest.raises(ParameterError, match="null_trials must be >= 1"):
        meta.disjoint_agreement(nist, syn, null_trials=0)
    with pytest.raises(DataError, match=r"measures \['AP', 'P@10'\] give every system the same mean score"):
        quiet(meta.disjoint_agreement, nist.assign(value=1.0), syn, bootstrap=10, null_trials=10)


def test_disjoint_criterion_and_figure(dl23, tmp_path):
    nist = dl23["TREC-DLs"][dl23["TREC-DLs"]["measure"].isin(["AP", "P@10"])]
    syn = dl23["SynDL-full"][dl23["SynDL-full"]["measure"].isin(["AP", "P@10"])]
    inputs = criteria.Inputs(nist, [], alternative_scores={"SynDL": syn}, seed=2)
    assert criteria.resolve(None, inputs)[-1] == "disjoint_agreement"
    assert "score_variation" not in criteria.resolve(None, inputs)
    done = quiet(criteria.run, ["disjoint_agreement"], inputs, {"disjoint_bootstrap": 60, "null_trials": 40})
    direct = quiet(meta.disjoint_agreement, nist, {"SynDL": syn}, bootstrap=60, null_trials=40, seed=2,
                   reference_name="reference")
    pd.testing.assert_frame_equal(done.results["disjoint_agreement"].agreement, direct.agreement)
    direct.plot().savefig(tmp_path / "d.png", dpi=50)
    direct.plot("tau_ap").savefig(tmp_path / "e.png", dpi=50)
    assert (tmp_path / "d.png").stat().st_size > 5000


@pytest.mark.slow
def test_dl21_ndcg_tau_is_the_readme_value(llm_dir):
    folder = llm_dir / "dl21"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nist = meta.evaluate(folder / "runs", folder / "qrels.nist.txt", ["nDCG@10"], progress=False)
        gpt4 = meta.evaluate(folder / "runs", folder / "qrels.gpt4.txt", ["nDCG@10"], progress=False)
    assert nist["name"].nunique() == 63 and nist["qid"].nunique() == 53 and gpt4["qid"].nunique() == 424
    result = quiet(meta.disjoint_agreement, nist, gpt4, bootstrap=200, null_trials=200, seed=0)
    assert result.table().at[0, "tau"] == pytest.approx(0.896, abs=5e-4)
    means = nist.groupby("name")["value"].mean()
    assert means["p_bm25"] == pytest.approx(0.4458, abs=5e-5) and means["NLE_P_v1"] == pytest.approx(0.7347, abs=5e-5)


@pytest.fixture(scope="module")
def dl19_frames(dl19_files):
    import ir_cwla
    from ir_cwla import io

    folder = Path(dl19_files.qrels).parent / "reannotation"
    a = io.as_qrels_frame(pd.concat([io.read_trec_qrels(folder / f"group{g}-assessor-a.txt") for g in range(1, 5)],
                                    ignore_index=True), "a")
    measures = list(ir_cwla.canonical()) + ["nDCG@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nist = meta.evaluate(dl19_files.runs, dl19_files.qrels, measures, progress=False)
        alt = meta.evaluate(dl19_files.runs, a, measures, progress=False)
    return dl19_files, a, measures, nist, alt


def test_score_variation_equals_assessor_variation_with_policy(dl19_frames):
    files, a, measures, nist, alt = dl19_frames
    kwargs = dict(test_trials=100, splits=30, bootstrap=100, seed=0, progress=False)
    runs_based = quiet(meta.assessor_variation, files.runs, files.qrels, {"a": a}, measures, judged="policy", **kwargs)
    scores_based = quiet(meta.score_variation, nist, {"a": alt}, **kwargs)
    left = runs_based.agreement.drop(columns=[])
    right = scores_based.agreement
    numeric = [c for c in left.columns if left[c].dtype.kind in "fi"]
    pd.testing.assert_frame_equal(left[numeric], right[numeric], atol=1e-12, check_exact=False)
    assert (scores_based.table()["judged"] == "scores").all()
    np.testing.assert_allclose(runs_based.replicates_tau_ap["a"], scores_based.replicates_tau_ap["a"], atol=1e-12)


def test_score_variation_bad_input(dl19_frames):
    _, _, _, nist, alt = dl19_frames
    with pytest.raises(ParameterError, match="a mapping"):
        meta.score_variation(nist, alt)
    with pytest.raises(DataError, match="score 0 topic"):
        meta.score_variation(nist, {"x": alt.assign(qid="x" + alt["qid"])}, progress=False)
    with pytest.raises(DataError, match="different systems"):
        meta.score_variation(nist, {"x": alt[alt["name"] != alt["name"].iloc[0]]}, progress=False)
    few = alt[alt["qid"].isin(sorted(alt["qid"].unique())[:20])]
    with pytest.warns(InputWarning, match="23 topic"):
        quiet_but_input(meta.score_variation, nist, {"x": few}, test_trials=20, splits=5, bootstrap=20, progress=False)


def quiet_but_input(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return fn(*args, **kwargs)


def test_tau_ap_interval_follows_the_recipe_and_judges_rank_by_tau(dl19_frames):
    """tau_AP's bootstrap replicates: the assessor bootstrap's topic draws (stream 5), tau_AP of the means."""
    _, a, measures, nist, alt = dl19_frames
    files = dl19_frames[0]
    folder = Path(files.qrels).parent / "reannotation"
    from ir_cwla import io

    b = io.as_qrels_frame(pd.concat([io.read_trec_qrels(folder / f"group{g}-assessor-b.txt") for g in range(1, 5)],
                                    ignore_index=True), "b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alt_b = meta.evaluate(files.runs, b, measures, progress=False)
    result = quiet(meta.score_variation, nist, {"a": alt, "b": alt_b}, test_trials=50, splits=10, bootstrap=200,
                   seed=3, progress=False)
    cube_n, cube_a = meta.to_cube(nist), meta.to_cube(alt)
    rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(streams.ASSESSOR_STREAM, 0)))
    draws = rng.integers(0, 43, size=(200, 43))
    m = result.measures.index("nDCG@10")
    for r in (0, 50, 199):
        x = cube_n.values[m][draws[r]].mean(axis=0)
        y = cube_a.values[m][draws[r]].mean(axis=0)
        assert result.replicates_tau_ap["a"][r, m] == pytest.approx(meta.tau_ap(x, y), abs=1e-12)
    row = result.table("a").set_index("measure").loc["nDCG@10"]
    se = result.replicates_tau_ap["a"][:, m].std(ddof=1)
    assert row["tau_ap_se"] == pytest.approx(se) and row["tau_ap_low"] == pytest.approx(
        max(-1.0, row["tau_ap"] - stats.norm.ppf(0.975) * se))
    ranking = meta.judge_ranking(result, measure="nDCG@10")
    table = ranking.table()
    assert list(table["alternative"]) == sorted(["a", "b"], key=lambda n: -result.table(n).set_index("measure")
                                                 .at["nDCG@10", "tau"])
    assert table["rank_low"].notna().all()               # both on the same 43 topics: joint replicates
    np.testing.assert_array_equal(ranking.replicates[:, 0], result.replicates[table.at[0, "alternative"]][:, m])
    few = quiet(meta.score_variation, nist, {"a": alt, "x": alt[alt["qid"].isin(sorted(alt["qid"].unique())[:20])]},
                test_trials=20, splits=5, bootstrap=20, progress=False)
    assert meta.judge_ranking(few, measure="nDCG@10").table()["rank_low"].isna().all()   # other topics: no interval
    with pytest.raises(ParameterError, match="name the measure"):
        meta.judge_ranking(result)
