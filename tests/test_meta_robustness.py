"""Robustness to incomplete judgments and pooling bias, against slow loops on real DL19 data.

The slow loops share no code with the package's sampling, pooling or re-scoring: they build
the reduced qrels as frames with plain Python (sets, sorted lists, the documented random
recipe) and evaluate them from scratch with ``meta.evaluate`` (ir-measures + the provider).
"""
from __future__ import annotations

import math
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ir_cwla import CWLA, io, meta, parse_measure, short_name, table1
from ir_cwla.meta import rescoring
from ir_cwla.meta.incompleteness import keep_counts, strata, subsample, trial_masks

MEASURES = [CWLA(C="P", A="ERG") @ 10, CWLA(C="RBP", A="max") @ 10, CWLA(C="AP", A="ERG") @ 10,
            CWLA(C="INST", A="avg") @ 10, ir_measures.nDCG @ 10]
NAMES = [str(m) for m in MEASURES]


@pytest.fixture(scope="module")
def dl19(dl19_qrels_path, dl19_run_paths):
    qrels = io.read_trec_qrels(dl19_qrels_path)
    runs = {meta.run_name(p): io.read_trec_run(p) for p in dl19_run_paths[::5]}     # 8 runs
    return runs, qrels


def judged(qrels: pd.DataFrame) -> dict[tuple[str, str], float]:
    """{(qid, doc_id): grade >= 0}, the last line of a repeated pair winning."""
    out = {}
    for q, d, g in zip(qrels["query_id"].astype(str), qrels["doc_id"].astype(str), qrels["relevance"]):
        out[(q, d)] = max(float(g), 0.0)
    return out


def as_frame(grades: dict[tuple[str, str], float], keep) -> pd.DataFrame:
    keys = sorted(keep)
    return pd.DataFrame({"query_id": [k[0] for k in keys], "doc_id": [k[1] for k in keys],
                         "relevance": [int(grades[k]) for k in keys]})


def slow_subsets(qrels: pd.DataFrame, seed: int, trial: int, fractions, relevant: float = 1.0) -> list[set]:
    """The documented recipe, literally.

    Priorities drawn in (topic, doc_id) order from SeedSequence(seed, spawn_key=(3,
    trial)); per topic and relevance stratum keep the floor(f n + 1/2) of lowest
    priority, at least one relevant / one judgment per topic.
    """
    grades = judged(qrels)
    keys = sorted(grades)
    u = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3, trial))).random(len(keys))
    priority = dict(zip(keys, u))
    out = []
    for f in fractions:
        keep = set()
        for topic in sorted({k[0] for k in keys}):
            rel = sorted((k for k in keys if k[0] == topic and grades[k] >= relevant), key=priority.get)
            non = sorted((k for k in keys if k[0] == topic and grades[k] < relevant), key=priority.get)
            n_rel = max(1, math.floor(f * len(rel) + 0.5)) if rel else 0
            n_non = math.floor(f * len(non) + 0.5)
            if not rel and non:
                n_non = max(1, n_non)
            keep.update(rel[:n_rel])
            keep.update(non[:n_non])
        out.append(keep)
    return out


def system_means(runs, qrels_frame) -> pd.DataFrame:
    cube = meta.to_cube(meta.evaluate(runs, qrels_frame, MEASURES, progress=False))
    return cube.means()


def test_collection_scores_equal_evaluate(dl19):
    runs, qrels = dl19
    measures = MEASURES + [ir_measures.Bpref(rel=2), ir_measures.P(judged_only=True) @ 5]   # with and without cutoff
    collection = rescoring.prepare(runs, qrels, measures, depth=20)
    assert sorted(collection.runs, key=str) == [10, None]
    cube = meta.to_cube(meta.evaluate(runs, qrels, measures, progress=False))
    assert collection.measures == cube.measures and collection.systems == cube.systems
    np.testing.assert_array_equal(collection.cube(), cube.values)
    one = collection.cube(systems=[3])
    np.testing.assert_array_equal(one[:, :, 0], cube.values[:, :, 3])


@pytest.mark.slow   # re-evaluates DL19 under reduced qrels in a slow loop
def test_subsampling_equals_a_slow_loop(dl19):
    runs, qrels = dl19
    fractions, seed = (0.1, 0.5), 7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = meta.incompleteness(runs, qrels, MEASURES, fractions=fractions, trials=2, seed=seed, depths=(),
                                     progress=False)
    full = system_means(runs, qrels)
    for trial in range(2):
        for f, keep in zip(fractions, slow_subsets(qrels, seed, trial, fractions)):
            reduced = system_means(runs, as_frame(judged(qrels), keep))
            rows = result.trials[(result.trials["fraction"] == f) & (result.trials["trial"] == trial)]
            rows = rows.set_index("measure")
            assert rows["judgments"].iloc[0] == len(keep) / len(judged(qrels))
            for m in NAMES:
                x, y = full[m].to_numpy(), reduced[m].to_numpy()
                tau = stats.kendalltau(x, y).statistic
                assert rows.at[m, "tau"] == pytest.approx(0.0 if np.isnan(tau) else tau, abs=1e-12), (f, trial, m)
                assert rows.at[m, "tau_ap"] == pytest.approx(meta.tau_ap(x, y), abs=1e-12, nan_ok=True)
                assert rows.at[m, "rbo"] == pytest.approx(meta.rbo(x, y, 0.9), abs=1e-12)
                assert rows.at[m, "abs_change"] == pytest.approx(np.abs(x - y).mean(), abs=1e-15)
    # the table averages the trials; it names measures by their labels (short names), as every table
    table = result.table().set_index(["fraction", "measure"])
    mean = result.trials.groupby(["fraction", "measure"])["tau"].mean()
    for (fraction, m), value in mean.items():
        assert table.at[(fraction, short_name(parse_measure(m))), "tau"] == pytest.approx(value)
    assert list(table.index.get_level_values("measure")[:5]) == [result.labels[m] for m in result.measures]


@pytest.mark.slow   # re-evaluates DL19 under reduced qrels in a slow loop
def test_pool_depths_equal_a_slow_loop(dl19):
    runs, qrels = dl19
    result = meta.incompleteness(runs, qrels, MEASURES[:3], fractions=[0.5], trials=1, depths=(1, 5), progress=False)
    full = system_means(runs, qrels)
    grades = judged(qrels)
    for depth in (1, 5):
        pool = set()
        for run in runs.values():
            frame = run.assign(query_id=run["query_id"].astype(str), doc_id=run["doc_id"].astype(str))
            for qid, part in frame.groupby("query_id"):
                # trec_eval order: score descending, ties by doc_id descending
                ordered = sorted(zip(part["score"].astype(np.float32), part["doc_id"]), reverse=True)
                pool.update((qid, d) for _, d in ordered[:depth])
        keep = pool & set(grades)
        reduced = system_means(runs, as_frame(grades, keep))
        rows = result.depths[result.depths["depth"] == depth].set_index("measure")
        assert rows["judgments"].iloc[0] == len(keep) / len(grades)
        for m in [str(x) for x in MEASURES[:3]]:
            tau = stats.kendalltau(full[m], reduced[m]).statistic
            assert rows.at[m, "tau"] == pytest.approx(tau, abs=1e-12)
            assert rows.at[m, "tau_ap"] == pytest.approx(meta.tau_ap(full[m].to_numpy(), reduced[m].to_numpy()),
                                                         abs=1e-12)


def test_pooling_bias_equals_a_slow_loop(dl19):
    runs, qrels = dl19
    depth = 10
    result = meta.pooling_bias(runs, qrels, MEASURES, depths=[depth], progress=False)
    grades = judged(qrels)
    tops = {}
    for name, run in runs.items():
        frame = run.assign(query_id=run["query_id"].astype(str), doc_id=run["doc_id"].astype(str))
        tops[name] = {(qid, d) for qid, part in frame.groupby("query_id")
                      for _, d in sorted(zip(part["score"].astype(np.float32), part["doc_id"]), reverse=True)[:depth]}
    full = system_means(runs, qrels)
    rows = result.runs.set_index(["measure", "system"])
    checked = 0
    for name in sorted(runs)[:4]:
        others = set().union(*(tops[o] for o in runs if o != name))
        unique = (tops[name] - others) & set(grades)
        if unique:
            frame = meta.evaluate({name: runs[name]}, as_frame(grades, set(grades) - unique), MEASURES,
                                  progress=False)
            reduced = frame.groupby("measure")["value"].mean()
        for m in NAMES:
            row = rows.loc[(m, name)]
            assert row["unique_judged"] == len(unique)
            assert row["unique_relevant"] == sum(grades[k] >= 1 for k in unique)
            value = reduced[m] if unique else full.at[name, m]
            assert row["reduced"] == pytest.approx(value, abs=1e-14)
            assert row["drop"] == pytest.approx(full.at[name, m] - value, abs=1e-14)
            others_full = full[m].drop(name)
            assert row["rank_full"] == 1 + int((others_full > full.at[name, m] + 1e-12).sum())
            assert row["rank_reduced"] == 1 + int((others_full > value + 1e-12).sum())
        checked += bool(unique)
    assert checked >= 2                                    # the loop really removed judgments
    table = result.table().set_index("measure").rename(index=lambda label: str(parse_measure(label)))
    for m in NAMES:
        part = result.runs[result.runs["measure"] == m]
        assert table.at[m, "mean_drop"] == pytest.approx(part["drop"].mean())
        assert table.at[m, "max_rank_drop"] == part["rank_drop"].max()
        assert table.at[m, "tau"] == pytest.approx(stats.kendalltau(part["full"], part["reduced"]).statistic)


def shuffled(runs, qrels, seed=0):
    rng = np.random.default_rng(seed)
    runs2 = {k: runs[k].sample(frac=1, random_state=int(rng.integers(1 << 30))) for k in reversed(list(runs))}
    return runs2, qrels.sample(frac=1, random_state=int(rng.integers(1 << 30)))


def test_incompleteness_is_independent_of_row_order_and_executor(dl19):
    runs, qrels = dl19
    kwargs = dict(fractions=[0.2, 0.6], trials=3, seed=5, depths=(3,), progress=False)
    base = meta.incompleteness(runs, qrels, MEASURES[:3], **kwargs)
    again = meta.incompleteness(*shuffled(runs, qrels), MEASURES[:3][::-1], **kwargs)
    pd.testing.assert_frame_equal(base.trials, again.trials, check_exact=True)
    pd.testing.assert_frame_equal(base.depths, again.depths, check_exact=True)
    parallel = meta.incompleteness(runs, qrels, MEASURES[:3], n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(base.trials, parallel.trials, check_exact=True)
    other_seed = meta.incompleteness(runs, qrels, MEASURES[:3], **{**kwargs, "seed": 6})
    assert not other_seed.trials["tau"].equals(base.trials["tau"])
    # a trial's subsets do not depend on the other fractions or the number of trials
    single = meta.incompleteness(runs, qrels, MEASURES[:3], fractions=[0.6], trials=2, seed=5, depths=(),
                                 progress=False)
    part = base.trials[(base.trials["fraction"] == 0.6) & (base.trials["trial"] < 2)].reset_index(drop=True)
    pd.testing.assert_frame_equal(single.trials, part, check_exact=True)


@pytest.mark.slow   # starts a Dask cluster
def test_incompleteness_on_dask_is_identical(dl19):
    distributed = pytest.importorskip("distributed")
    runs, qrels = dl19
    kwargs = dict(fractions=[0.3], trials=3, seed=2, depths=(5,), progress=False)
    local = meta.incompleteness(runs, qrels, MEASURES[:2], **kwargs)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0", silence_logs=50) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        remote = meta.incompleteness(runs, qrels, MEASURES[:2], executor=client, **kwargs)
        pooled = meta.pooling_bias(runs, qrels, MEASURES[:2], depths=[5], executor=client, progress=False)
    pd.testing.assert_frame_equal(local.trials, remote.trials, check_exact=True)
    pd.testing.assert_frame_equal(local.depths, remote.depths, check_exact=True)
    pd.testing.assert_frame_equal(meta.pooling_bias(runs, qrels, MEASURES[:2], depths=[5], progress=False).runs,
                                  pooled.runs, check_exact=True)


def test_sampling_kernel_rules():
    sizes = np.array([10, 3, 4, 0, 0, 5, 1, 1])            # (non, rel) per topic: 4 topics
    counts = keep_counts(np.array([0.05, 0.5, 1.0]), sizes)
    assert counts.tolist() == [[1, 1, 1, 0, 0, 1, 0, 1],   # at least one relevant; a topic without
                               [5, 2, 2, 0, 0, 3, 1, 1],   # relevant keeps one judgment; halves up
                               [10, 3, 4, 0, 0, 5, 1, 1]]
    rng = np.random.default_rng(0)
    stratum = np.repeat(np.arange(8), sizes)
    priority = rng.random(len(stratum))
    masks = subsample(priority, stratum, np.arange(len(stratum)), counts)
    assert (masks[0] <= masks[1]).all() and (masks[1] <= masks[2]).all()      # nested
    assert masks[2].all()
    for f, mask in enumerate(masks):
        assert np.bincount(stratum[mask], minlength=8).tolist() == counts[f].tolist()
        for s in range(8):                                  # the lowest priorities of the stratum
            members = np.flatnonzero(stratum == s)
            chosen = members[mask[members]]
            if len(chosen) and len(chosen) < len(members):
                assert priority[chosen].max() < priority[members[~mask[members]]].min()


def test_full_fraction_agrees_exactly_and_topics_keep_a_relevant_document(dl19):
    runs, qrels = dl19
    result = meta.incompleteness(runs, qrels, MEASURES[:2], fractions=[0.01, 1.0], trials=2, depths=(),
                                 progress=False)
    whole = result.table().query("fraction == 1.0")
    assert (whole["tau"] == 1).all() and (whole["tau_ap"] == 1).all() and (whole["abs_change"] == 0).all()
    assert (whole["judgments"] == 1).all()
    collection = rescoring.prepare(runs, qrels, MEASURES[:1])
    q = collection.qrels
    stratum = strata(q.judgment_topic, q.grades, 1)
    counts = keep_counts(np.array([0.01]), np.bincount(stratum, minlength=2 * len(q.topics)))
    masks = trial_masks(np.random.SeedSequence(0), 0, collection.judgment_order(), stratum, counts)
    relevant_kept = np.bincount(q.judgment_topic[masks[0] & (q.grades >= 1)], minlength=len(q.topics))
    assert (relevant_kept >= 1).all()


def test_robustness_rankings_and_figures(dl19):
    runs, qrels = dl19
    measures = [CWLA(C="RBP", A=a) @ 10 for a in ("ERG", "max", "fin")] + [CWLA(C="AP", A=a) @ 10
                                                                         for a in ("ERG", "avg")]
    result = meta.incompleteness(runs, qrels, measures, fractions=[0.1, 0.3], trials=2, depths=(1, 10),
                                 groups=meta.browsing_model, progress=False)
    ranking = result.robustness()
    assert list(ranking["group"].unique()) == ["RBP@10", "AP@10"]
    for _, part in ranking.groupby("group"):
        assert part["tau"].is_monotonic_decreasing and part["rank"].tolist() == list(range(1, len(part) + 1))
    assert result.robustness("abs_change")["abs_change"].iloc[:3].is_monotonic_increasing
    assert set(result.robustness(kind="depth")["measure"]) == {short_name(m) for m in measures}
    fig = result.plot()
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 2
    assert len(result.plot(kind="depth", statistic="tau_ap").axes) == 2
    pool = meta.pooling_bias(runs, qrels, measures, depths=[5, 10], groups=meta.browsing_model, progress=False)
    assert len(pool.plot().axes) == 2
    assert set(pool.robustness(depth=10)["measure"]) == {short_name(m) for m in measures}
    assert pool.table()["depth"].tolist() == [5] * 5 + [10] * 5
    import matplotlib.pyplot as plt

    plt.close("all")


def test_bad_input_is_refused(dl19):
    runs, qrels = dl19
    two = dict(list(runs.items())[:2])
    with pytest.raises(ValueError, match="fractions"):
        meta.incompleteness(two, qrels, MEASURES[:1], fractions=[0.0], progress=False)
    with pytest.raises(ValueError, match="fractions"):
        meta.incompleteness(two, qrels, MEASURES[:1], fractions=[1.5], progress=False)
    with pytest.raises(ValueError, match="trials"):
        meta.incompleteness(two, qrels, MEASURES[:1], trials=0, progress=False)
    with pytest.raises(ValueError, match="depths"):
        meta.incompleteness(two, qrels, MEASURES[:1], depths=[0], progress=False)
    with pytest.raises(ValueError, match="relevant"):
        meta.incompleteness(two, qrels, MEASURES[:1], relevant=0, progress=False)
    with pytest.raises(ValueError, match="persistence"):
        meta.incompleteness(two, qrels, MEASURES[:1], persistence=1.2, progress=False)
    with pytest.raises(ValueError, match="2 systems"):
        meta.incompleteness(dict(list(runs.items())[:1]), qrels, MEASURES[:1], progress=False)
    with pytest.raises(ValueError, match="depths"):
        meta.pooling_bias(two, qrels, MEASURES[:1], depths=[], progress=False)
    constant = {n: r.assign(doc_id="nowhere-" + r["doc_id"].astype(str)) for n, r in two.items()}
    with pytest.raises(ValueError, match="same mean score"):
        meta.incompleteness(constant, qrels, MEASURES[:1], progress=False)
    with pytest.raises(ValueError, match="statistic"):
        meta.incompleteness(two, qrels, MEASURES[:1], fractions=[0.5], trials=1, depths=(),
                            progress=False).robustness("spearman")


def test_similarity_and_consistency_take_top_weighted_agreement(dl19):
    runs, qrels = dl19
    per_query = meta.evaluate(runs, qrels, table1()[:8], progress=False)
    means = meta.to_cube(per_query).means()
    default = meta.similarity(per_query)
    assert default.agreement == "tau" and np.array_equal(default.tau.to_numpy(), meta.tau_b_matrix(means.to_numpy()))
    for kind in ("tau_ap", "rbo"):
        sim = meta.similarity(per_query, agreement=kind, persistence=0.8)
        a, b = means.columns[0], means.columns[5]
        x, y = means[a].to_numpy(), means[b].to_numpy()
        expected = 0.5 * (meta.tau_ap(x, y) + meta.tau_ap(y, x)) if kind == "tau_ap" else meta.rbo(x, y, 0.8)
        assert sim.tau.at[a, b] == pytest.approx(expected, abs=1e-12)
        assert sim.ci_low.isna().all().all() and sim.agreement == kind
    cube = meta.to_cube(per_query)
    tau = meta.consistency(per_query, trials=30, test_trials=50, seed=3, progress=False)
    rbo = meta.consistency(per_query, trials=30, test_trials=50, seed=3, agreement="rbo", progress=False)
    assert rbo.agreement == "rbo" and not rbo.taus.equals(tau.taus)
    # the same splits, compared by RBO: re-draw split 0 by the streams contract
    rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(1, 0)))
    order = rng.permuted(np.broadcast_to(np.arange(len(cube.topics)), (30, len(cube.topics))), axis=1)
    half = len(cube.topics) // 2
    first, second = np.sort(order[0, :half]), np.sort(order[0, half:])
    for m, name in enumerate(cube.measures):
        x, y = cube.values[m][first].mean(axis=0), cube.values[m][second].mean(axis=0)
        assert rbo.taus.at[0, name] == pytest.approx(meta.rbo(x, y, 0.9), abs=1e-12)
        assert tau.taus.at[0, name] == pytest.approx(meta.tau_b_rows(x, y), abs=1e-12)   # near-ties are ties
    with pytest.raises(ValueError, match="agreement"):
        meta.consistency(per_query, trials=5, agreement="kendall", progress=False)


def test_runs_cut_for_ir_measures_score_as_whole_runs():
    rng = np.random.default_rng(0)
    n = 60
    run = pd.DataFrame({"query_id": np.repeat(["q1", "q2", "q3"], n), "doc_id": [f"d{i}" for i in range(3 * n)],
                        "score": np.round(rng.random(3 * n), 1)})          # many ties, also at rank 10
    run.loc[5, "score"] = run.loc[7, "score"] = 0.95                       # a doc repeated: both lines kept
    run.loc[7, "doc_id"] = run.loc[5, "doc_id"]
    qrels = pd.DataFrame({"query_id": run["query_id"], "doc_id": run["doc_id"],
                          "relevance": rng.integers(0, 3, 3 * n)}).drop_duplicates(["query_id", "doc_id"])
    cut = rescoring.top_of_run(run, 10)
    assert len(cut) < len(run) / 2
    for q, part in run.groupby("query_id"):                               # ties at the boundary kept whole
        tenth = np.sort(part["score"].to_numpy())[::-1][9]
        assert (cut[cut["query_id"] == q]["score"] >= tenth).all()
        assert ((part["score"] >= tenth).sum()) <= (cut["query_id"] == q).sum()
    for measure in (ir_measures.nDCG @ 10, ir_measures.P @ 10, ir_measures.RR @ 10, ir_measures.AP @ 10):
        whole = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        part = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, cut)}
        assert whole == part, measure
    assert rescoring.top_of_run(run, None) is run


def test_unjudged_policies_are_rescored_exactly(dl19):
    """Measures with an unjudged-documents policy re-score under reduced qrels exactly.

    Measures with an unjudged-documents policy (another branch adds CWLA(..., unjudged=...)) must
    re-score under reduced qrels exactly as evaluated from scratch: a policy such as 'condense'
    has to act on the judgments in force when scoring, not when the run was ranked.
    """
    from ir_cwla.measures._measure import _CWLA

    if "unjudged" not in _CWLA.SUPPORTED_PARAMS:
        pytest.skip("CWLA has no unjudged= policy on this branch yet")
    runs, qrels = dl19
    measures = []
    for policy in ("zero", "max", "condense"):
        for c, a in (("RBP", "ERG"), ("AP", "ERG"), ("ERR", "ERR"), ("INST", "avg")):
            try:
                measures.append(CWLA(C=c, A=a, unjudged=policy) @ 10)
                measures[-1].validate_params()
            except (ValueError, TypeError):
                measures.pop()
    assert measures
    collection = rescoring.prepare(runs, qrels, measures)
    rng = np.random.default_rng(0)
    mask = rng.random(collection.n_judgments) < 0.3
    first = np.unique(collection.qrels.judgment_topic, return_index=True)[1]
    mask[first] = True                                                    # every topic keeps a judgment
    got = collection.cube(mask)
    expected = meta.to_cube(meta.evaluate(runs, collection.qrels_frame(mask), measures, progress=False))
    np.testing.assert_allclose(got, expected.values, rtol=0, atol=1e-12)


def test_bad_groups_fail_before_the_work(dl19, monkeypatch):
    runs, qrels = dl19
    called = []
    monkeypatch.setattr(rescoring.Collection, "means", lambda *a, **k: called.append(1))
    for analysis in (meta.incompleteness, meta.pooling_bias):
        with pytest.raises(ValueError, match="groups mapping has no family"):
            analysis(runs, qrels, MEASURES[:2], groups={NAMES[0]: "x"}, progress=False)
    assert not called
