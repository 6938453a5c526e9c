"""Robustness to a change of assessor (issue 21, item 1), against independent computations.

On the real re-annotated DL19 data (NIST's qrels against the group files of
``reannotation/`` and the union of the a-files), every qrels is scored from scratch
(``meta.evaluate``, or the engine's ``Scorer`` for the bit-for-bit check of the re-grading);
then, written here with no code of the package:

- the ranking agreement: Kendall's tau-b by ``scipy.stats.kendalltau``, tau_AP and RBO by slow
  loops over their definitions (Yilmaz et al. 2008 with ties as expectations over the orderings
  of tied systems; Webber et al. 2010, RBO_ext with ties, Section 4.3);
- the per-topic correlations by ``scipy.stats.pearsonr`` / ``spearmanr``;
- the rank moves by a loop; the discriminative power and consistency under both qrels equal
  ``meta.discriminative_power`` / ``meta.consistency`` on the from-scratch per-query frames with
  the same seed;
- the bootstrap by the documented recipe re-implemented here (with scipy's tau), the normal
  interval with ``scipy.stats.norm``, and the simultaneous paired test by a slow loop.
"""
from __future__ import annotations

import html
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ir_cwla
from ir_cwla import CWLA, io, meta
from ir_cwla.errors import (
    DataError,
    DuplicateWarning,
    InputWarning,
    MissingTopicsWarning,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
    UsageError,
)
from ir_cwla.meta import assessors, criteria, rescoring

MEASURES = [CWLA(C="P", A="ERG") @ 10, CWLA(C="RBP", A="max") @ 10, CWLA(C="AP", A="ERG") @ 10,
            CWLA(C="INST", A="avg") @ 10, CWLA(C="INST", A="ERG") @ 10, CWLA(C="ERR", A="ERR") @ 10]
OTHERS = ["nDCG@10"]
NAMES = [str(m) for m in MEASURES] + OTHERS
#: the two choices of judged= (named through the module: tests/test_test_data.py reads a quoted
#: SHARED as a path to the real data)
SHARED, POLICY = assessors.JUDGED
#: the synthetic collection's runs include one with duplicate lines and one that misses topics
pytestmark = [pytest.mark.filterwarnings("ignore::ir_cwla.errors.DuplicateWarning"),
              pytest.mark.filterwarnings("ignore::ir_cwla.errors.MissingTopicsWarning")]
TOL = 1e-9          # two means closer than this are tied (real differences here are >= 1e-4)


def by_measure(table, result):
    """A table of the criterion (measures named by label) with ``measure`` as ``str(measure)``."""
    by_label = {label: m for m, label in result.labels.items()}
    return table.assign(measure=table["measure"].map(by_label))


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        # the synthetic collection's runs include one with duplicate lines and some missing topics
        warnings.simplefilter("ignore", DuplicateWarning)
        warnings.simplefilter("ignore", MissingTopicsWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def dl19(dl19_qrels_path, dl19_dir, dl19_run_paths):
    """NIST's qrels, 13 of the 37 runs, and three alternatives.

    Two group files (13 and 9 topics) and the union of the four a-files (43
    topics).
    """
    nist = io.read_trec_qrels(dl19_qrels_path)
    runs = {meta.run_name(p): io.read_trec_run(p) for p in dl19_run_paths[::3]}
    files = {f"g{g}{x}": io.read_trec_qrels(dl19_dir / "reannotation" / f"group{g}-assessor-{x}.txt")
             for g in range(1, 5) for x in "ab"}
    union_a = io.as_qrels_frame(pd.concat([files[f"g{g}a"] for g in range(1, 5)], ignore_index=True))
    return nist, runs, {"g1a": files["g1a"], "g2b": files["g2b"], "a": union_a}


@pytest.fixture(scope="module")
def results(dl19):
    nist, runs, alternatives = dl19
    return {judged: quiet(meta.assessor_variation, runs, nist, alternatives, MEASURES + OTHERS, judged=judged,
                          test_trials=300, splits=50, bootstrap=200, seed=3, groups=meta.browsing_model,
                          progress=False)
            for judged in (SHARED, POLICY)}


# ------------------------------------------------------------------------- independent references

def pairs(frame: pd.DataFrame) -> set:
    return set(zip(frame["query_id"].astype(str), frame["doc_id"].astype(str)))


def compared_qrels(nist: pd.DataFrame, other: pd.DataFrame, judged: str) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """The two qrels each is scored with, and the topics compared, by hand."""
    if judged == SHARED:
        both = pairs(nist) & pairs(other)
        keep = [k in both for k in zip(nist["query_id"].astype(str), nist["doc_id"].astype(str))]
        ref = nist[keep]
        keep = [k in both for k in zip(other["query_id"].astype(str), other["doc_id"].astype(str))]
        alt = other[keep]
        topics = sorted({q for q, _ in both})
    else:
        ref, alt = nist, other
        topics = sorted(set(nist["query_id"].astype(str)) & set(other["query_id"].astype(str)))
    return ref, alt, topics


def matrices(runs, qrels: pd.DataFrame, topics: list) -> dict[str, pd.DataFrame]:
    """{measure: topics x systems} scored from scratch by meta.evaluate, on ``topics``."""
    frame = meta.evaluate(runs, qrels, MEASURES + OTHERS, progress=False)
    frame = frame[frame["qid"].isin(topics)]
    return {m: frame[frame["measure"] == m].pivot(index="qid", columns="name", values="value").loc[topics]
            for m in NAMES}


def sign(a: float, b: float) -> int:
    return 1 if a > b + TOL else -1 if a < b - TOL else 0


def tie_groups(v: np.ndarray) -> list[list[int]]:
    """Groups of near-equal scores, best first (a chain of near-equal scores is one group)."""
    order = sorted(range(len(v)), key=lambda i: (-v[i], i))
    groups: list[list[int]] = []
    for pos, i in enumerate(order):
        if pos == 0 or v[order[pos - 1]] - v[i] > TOL:
            groups.append([])
        groups[-1].append(i)
    return groups


def slow_tau_ap(ref: np.ndarray, other: np.ndarray) -> float:
    """tau_AP of ``other`` against ``ref`` (Yilmaz et al. 2008).

    Sum over the items i below the top of other, at rank r, of 1/(r - 1) times the +-1 of each item
    above i agreeing with ref; a group tied in other counted as the expectation over its orderings
    (item i at each rank of the group with probability 1/size, a tied j above it with probability
    (r - start) / (size - 1)); pairs tied in ref left out of both sums.
    """
    num = den = 0.0
    start = 1
    groups = tie_groups(other)
    for g, members in enumerate(groups):
        above = [j for earlier in groups[:g] for j in earlier]
        size = len(members)
        for i in members:
            for r in range(start, start + size):
                if r == 1:
                    continue
                w = 1.0 / (r - 1) / size
                for j in above:
                    s = sign(ref[j], ref[i])
                    num += w * s
                    den += w * abs(s)
                if size > 1:
                    q = (r - start) / (size - 1)
                    for j in members:
                        if j != i:
                            s = sign(ref[j], ref[i])
                            num += w * q * s
                            den += w * q * abs(s)
        start += size
    return num / den


def slow_rbo(x: np.ndarray, y: np.ndarray, p: float = 0.9) -> float:
    """RBO_ext (Webber et al. 2010, Eq. 32) of two rankings of the same n items, ties as in their Section 4.3.

    A tied item enters the prefix at the first rank of its group.
    """
    def tops(v):
        top, start = {}, 1
        for group in tie_groups(v):
            for i in group:
                top[i] = start
            start += len(group)
        return top

    tx, ty, n = tops(x), tops(y), len(x)
    agreement = []
    for d in range(1, n + 1):
        s = {i for i in range(n) if tx[i] <= d}
        t = {i for i in range(n) if ty[i] <= d}
        agreement.append(2 * len(s & t) / (len(s) + len(t)))
    return (1 - p) / p * sum(agreement[d - 1] * p ** d for d in range(1, n + 1)) + agreement[-1] * p ** n


def positions(v: np.ndarray) -> np.ndarray:
    return np.array([1 + sum(1 for o in v if o > s + TOL) for s in v])


def kendall(x: np.ndarray, y: np.ndarray) -> float:
    return stats.kendalltau(np.round(x, 9), np.round(y, 9)).statistic


# ------------------------------------------------------------------------- the tests

def test_regrading_equals_scoring_each_qrels_from_scratch(dl19):
    """The re-graded union scores every run bit for bit as the Scorer does with each qrels alone."""
    nist, runs, alternatives = dl19
    union = assessors._union([nist, *alternatives.values()])
    collection = rescoring.prepare(runs, union, MEASURES)
    assert collection.depth == 10
    topics = list(collection.topics)
    for name, frame in {"nist": nist, **alternatives}.items():
        graded = collection.qrels.regraded(*collection.qrels.grades_from(frame))
        fresh = ir_cwla.Scorer(MEASURES, frame)
        wanted = [topics.index(t) for t in fresh.qrels.topics]
        cube = collection.cube(qrels=graded, topics=wanted)
        for s, system in enumerate(collection.systems):
            answered, scores = fresh.score_run(runs[system], system)
            rows = [list(fresh.qrels.topics).index(t) for t in answered]
            for m in MEASURES:
                i = collection.measures.index(str(m))          # the canonical order
                np.testing.assert_array_equal(cube[i, rows, s], scores[m], err_msg=f"{name} {system} {m}")
                missing = np.setdiff1d(np.arange(len(wanted)), rows)
                assert (cube[i, missing, s] == 0).all()
    # and the other assessors' grades change the scores (the test can fail)
    a = collection.cube(qrels=collection.qrels.regraded(*collection.qrels.grades_from(alternatives["a"])))
    assert (a != collection.cube(qrels=collection.qrels.regraded(*collection.qrels.grades_from(nist)))).any()


@pytest.mark.slow   # scores NIST and 3 alternatives from scratch under both judged= choices, slow loops
@pytest.mark.parametrize("judged", [SHARED, POLICY])
def test_ranking_agreement_and_correlations_equal_a_direct_loop_on_dl19(dl19, results, judged):
    nist, runs, alternatives = dl19
    result = results[judged]
    table = by_measure(result.table(), result).set_index(["alternative", "measure"])
    assert set(table["judged"]) == {judged}
    moves = result.moves.set_index(["alternative", "measure", "system"])
    checked_moves = 0
    for name, other in alternatives.items():
        ref_qrels, alt_qrels, topics = compared_qrels(nist, other, judged)
        ref, alt = matrices(runs, ref_qrels, topics), matrices(runs, alt_qrels, topics)
        coverage = result.coverage.set_index("alternative").loc[name]
        assert coverage["topics"] == len(topics)
        assert coverage["judged_both"] == len(pairs(ref_qrels) & pairs(alt_qrels) & {(q, d) for q, d in
                                                                                       pairs(other) if q in topics})
        for m in NAMES:
            row = table.loc[(name, m)]
            x, y = ref[m].mean(axis=0).to_numpy(), alt[m].mean(axis=0).to_numpy()
            assert row["topics"] == len(topics)
            assert row["tau"] == pytest.approx(kendall(x, y), abs=1e-12), (name, m)
            assert row["tau_ap"] == pytest.approx(slow_tau_ap(x, y), abs=1e-12), (name, m)
            assert row["rbo"] == pytest.approx(slow_rbo(x, y, 0.9), abs=1e-12), (name, m)
            assert row["abs_change"] == pytest.approx(np.abs(x - y).mean(), abs=1e-14)
            cells_x, cells_y = ref[m].to_numpy().ravel(), alt[m].to_numpy().ravel()
            assert row["pearson"] == pytest.approx(stats.pearsonr(cells_x, cells_y).statistic, abs=1e-12)
            assert row["spearman"] == pytest.approx(stats.spearmanr(cells_x, cells_y).statistic, abs=1e-12)
            move = positions(y) - positions(x)
            assert row["max_rank_move"] == np.abs(move).max()
            assert row["mean_abs_rank_move"] == pytest.approx(np.abs(move).mean())
            systems = list(ref[m].columns)
            biggest = [s for s, v in zip(systems, move) if abs(v) == np.abs(move).max()]
            assert row["moved_system"] == biggest[0] and row["moved_by"] == move[systems.index(biggest[0])]
            for s, v in zip(systems, move):
                assert moves.at[(name, m, s), "move"] == v
                checked_moves += 1
    assert checked_moves == len(alternatives) * len(NAMES) * len(runs)
    # the test can fail: an alternative really moves systems, and tau_AP is not tau
    assert (table["max_rank_move"] > 0).any() and (table["tau_ap"] != table["tau"]).any()


@pytest.mark.slow   # discriminative power and consistency of 4 qrels, from scratch
def test_discriminative_power_and_consistency_under_both_equal_the_criteria(dl19, results):
    nist, runs, alternatives = dl19
    result = results[SHARED]
    table = by_measure(result.table(), result).set_index(["alternative", "measure"])
    for name in ("g1a", "a"):
        ref_qrels, alt_qrels, topics = compared_qrels(nist, alternatives[name], SHARED)
        for side, qrels in (("reference", ref_qrels), ("alternative", alt_qrels)):
            frame = meta.evaluate(runs, qrels, MEASURES + OTHERS, progress=False)
            frame = frame[frame["qid"].isin(topics)]
            disc = meta.discriminative_power(frame, trials=300, seed=3, progress=False)
            significant = disc.pairs.assign(sig=disc.pairs["p_value"] < 0.05).groupby("measure")["sig"].sum()
            cons = quiet(meta.consistency, frame, trials=50, test_trials=10, seed=3, progress=False)
            for m in NAMES:
                assert table.at[(name, m), f"significant_{side}"] == significant[m], (name, side, m)
                assert table.at[(name, m), f"consistency_{side}"] == pytest.approx(cons.mean_tau[m], abs=1e-12)
    assert (table["significant_reference"] != table["significant_alternative"]).any()


@pytest.mark.slow   # scipy's tau on 200 replicates x 7 measures
def test_bootstrap_follows_the_documented_recipe(dl19, results):
    """The bootstrap follows the documented recipe.

    Replicate b of chunk c: topics drawn by integers(0, T, (chunk, T)) from
    SeedSequence(seed, spawn_key=(5, c)); tau by scipy between the means over the drawn topics.
    """
    nist, runs, alternatives = dl19
    result = results["policy"]
    name = "g2b"
    ref_qrels, alt_qrels, topics = compared_qrels(nist, alternatives[name], "policy")
    ref, alt = matrices(runs, ref_qrels, topics), matrices(runs, alt_qrels, topics)
    expected = np.empty((200, len(NAMES)))
    for c in range(1):                       # 200 replicates: one chunk of streams.CHUNK
        rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(5, c)))
        draws = rng.integers(0, len(topics), size=(200, len(topics)))
        for b, drawn in enumerate(draws):
            for j, m in enumerate(NAMES):
                x = ref[m].to_numpy()[drawn].mean(axis=0)
                y = alt[m].to_numpy()[drawn].mean(axis=0)
                tau = kendall(x, y)
                expected[b, j] = 0.0 if np.isnan(tau) else tau
    order = [result.measures.index(m) for m in NAMES]
    np.testing.assert_allclose(result.replicates[name][:, order], expected, atol=1e-12)
    table = by_measure(result.table(name), result).set_index("measure")
    z = stats.norm.ppf(0.975)
    for j, m in enumerate(NAMES):
        se = np.std(expected[:, j], ddof=1)
        assert table.at[m, "tau_se"] == pytest.approx(se, abs=1e-12)
        assert table.at[m, "tau_low"] == pytest.approx(max(-1.0, table.at[m, "tau"] - z * se), abs=1e-12)
        assert table.at[m, "tau_high"] == pytest.approx(min(1.0, table.at[m, "tau"] + z * se), abs=1e-12)


def slow_simultaneous(replicates: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Westfall & Young's single-step max-|t| over the pairs, one replicate and pair at a time."""
    n_b, k = replicates.shape
    pair_list = [(i, j) for i in range(k) for j in range(i + 1, k)]
    se, centre = {}, {}
    for i, j in pair_list:
        d = [replicates[b, i] - replicates[b, j] for b in range(n_b)]
        centre[(i, j)] = sum(d) / n_b
        se[(i, j)] = (sum((v - centre[(i, j)]) ** 2 for v in d) / (n_b - 1)) ** 0.5
    largest = [max(abs(replicates[b, i] - replicates[b, j] - centre[(i, j)]) / se[(i, j)] for i, j in pair_list)
               for b in range(n_b)]
    out = np.ones((k, k))
    for i, j in pair_list:
        t = abs(observed[i] - observed[j]) / se[(i, j)]
        out[i, j] = out[j, i] = (1 + sum(1 for v in largest if v >= t - 1e-12)) / (n_b + 1)   # Phipson & Smyth
    return out


def test_simultaneous_test_equals_a_slow_loop_and_controls_ties():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(300, 1))
    replicates = np.hstack([base + rng.normal(scale=s, size=(300, 1)) + mu
                            for s, mu in ((0.1, 0.0), (0.2, 0.05), (0.1, 0.9), (0.3, 0.0))])
    observed = replicates.mean(axis=0) + 0.01
    p = assessors.simultaneous_p_values(replicates, observed)
    np.testing.assert_allclose(p, slow_simultaneous(replicates, observed), atol=1e-15)
    assert p[0, 2] < 0.01 and p[0, 3] > 0.2             # a clear difference, and a tie
    same = np.hstack([replicates[:, :1]] * 2)
    np.testing.assert_array_equal(assessors.simultaneous_p_values(same, np.array([0.5, 0.5])), np.ones((2, 2)))
    # no replicate reaches a difference the replicates never show: the smallest Monte-Carlo p, never 0
    assert assessors.simultaneous_p_values(same, np.array([0.5, 0.4]))[0, 1] == 1 / (len(same) + 1)


def test_the_family_ranking_uses_the_test(results):
    result = results[SHARED]
    ranking = result.robustness()
    # measures named by their labels, as in every table of ir_cwla.meta (issue 19)
    assert list(ranking.columns[:8]) == ["group", "rank", "measure", "tau", "tau_se", "tau_low", "tau_high",
                                         "outperforms"]
    assert set(ranking["judged"]) == {SHARED} and set(ranking["alternatives"]) == {3}
    mean = result.agreement.groupby("measure")["tau"].mean().rename(index=result.labels)
    for _, row in ranking.iterrows():
        assert row["tau"] == pytest.approx(mean[row["measure"]])
    for group, members in result.groups.items():
        part = ranking[ranking["group"] == group]
        assert list(part["tau"]) == sorted(part["tau"], reverse=True)
        p = result.p_values(group)
        labels = [result.labels[m] for m in members]
        for _, row in part.iterrows():
            beaten = [b for b in labels if b != row["measure"] and mean[b] < row["tau"]
                      and p.at[row["measure"], b] < 0.05]
            assert row["outperforms"] == len(beaten) and row["better_than"] == ", ".join(beaten)
    # one alternative alone: its own taus
    alone = result.robustness(alternative="g1a").set_index("measure")
    assert alone["tau"].to_dict() == result.table("g1a").set_index("measure")["tau"].to_dict()


def test_judged_pairs_are_handled_as_said(dl19, results):
    """Judged pairs are handled as the documentation says.

    DL19's re-annotations hold every NIST-relevant pair, so under unjudged='zero' the two choices
    agree on the topics both judge; they differ where NIST judges pairs the alternative lacks
    among relevant ones (topic 168216 in group 1: 4 of its pairs) and under 'condense'.
    """
    shared, policy = (results[j].table().set_index(["alternative", "measure"]) for j in (SHARED, POLICY))
    assert (shared.loc["a", "tau"] == policy.loc["a", "tau"]).all()
    assert not np.allclose(shared.loc["g1a", "tau"], policy.loc["g1a", "tau"])
    assert results[SHARED].coverage["judged_reference"].tolist()[2] == 9260


def test_row_order_and_executor_do_not_change_a_bit(dl19):
    nist, runs, alternatives = dl19
    small = {k: runs[k] for k in list(runs)[:6]}
    kwargs = dict(test_trials=60, splits=20, bootstrap=210, seed=1, progress=False)
    base = quiet(meta.assessor_variation, small, nist, {"g1a": alternatives["g1a"]}, MEASURES[:3], **kwargs)
    rng = np.random.default_rng(0)
    shuffled = {k: v.sample(frac=1, random_state=int(rng.integers(1 << 30))) for k, v in reversed(small.items())}
    again = quiet(meta.assessor_variation, shuffled, nist.sample(frac=1, random_state=2),
                  {"g1a": alternatives["g1a"].sample(frac=1, random_state=3)}, MEASURES[:3][::-1], **kwargs)
    pd.testing.assert_frame_equal(base.agreement, again.agreement, check_exact=True)
    np.testing.assert_array_equal(base.replicates["g1a"], again.replicates["g1a"])
    parallel = quiet(meta.assessor_variation, small, nist, {"g1a": alternatives["g1a"]}, MEASURES[:3], n_jobs=2,
                     **kwargs)
    pd.testing.assert_frame_equal(base.agreement, parallel.agreement, check_exact=True)
    np.testing.assert_array_equal(base.replicates["g1a"], parallel.replicates["g1a"])
    other = quiet(meta.assessor_variation, small, nist, {"g1a": alternatives["g1a"]}, MEASURES[:3],
                  **{**kwargs, "seed": 2})
    assert not np.array_equal(other.replicates["g1a"], base.replicates["g1a"])
    # an alternative's result does not depend on the others compared with it
    with_more = quiet(meta.assessor_variation, small, nist, {"x": alternatives["g2b"], "g1a": alternatives["g1a"]},
                      MEASURES[:3], **kwargs)
    pd.testing.assert_frame_equal(with_more.table("g1a"), base.table("g1a"), check_exact=True)


@pytest.mark.slow   # draws two figures
def test_plot_has_a_panel_per_family_and_a_colour_per_aggregation(results, tmp_path):
    from ir_cwla.meta.plots import AGGREGATION_STYLES

    result = results[SHARED]
    families = [g for g in result.groups if g != "nDCG@10"]    # C/W/L/A only: named and coloured by aggregation
    assert len(families) == len(result.groups) - 1
    fig = result.plot(groups=families)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == len(families)
    inst = axes[families.index("INST@10")]
    colours = {line.get_label(): line.get_color() for line in inst.get_lines() if not line.get_label().startswith("_")}
    assert colours == {"ERG *": AGGREGATION_STYLES["ERG"][0], "avg": AGGREGATION_STYLES["avg"][0]}
    assert [t.get_text() for t in inst.get_xticklabels()] == ["g1a", "g2b", "a"]
    fig.savefig(tmp_path / "assessors.png")
    everything = result.plot("spearman")                        # nDCG too: every measure by its label
    everything.savefig(tmp_path / "assessors-all.png")
    assert len([ax for ax in everything.axes if ax.get_visible()]) == len(result.groups)
    with pytest.raises(ParameterError, match="statistic must be one of"):
        result.plot("nope")
    with pytest.raises(NotFoundError, match="no alternative 'zz'"):
        result.table("zz")


# ------------------------------------------------------------------------- synthetic: every clone

@pytest.fixture(scope="module")
def synthetic(synthetic_collection):
    """The synthetic collection and an alternative: 70% of the pairs regraded, on all topics but 3."""
    qrels = io.as_qrels_frame(synthetic_collection.qrels)
    rng = np.random.default_rng(2)
    keep = (rng.random(len(qrels)) < 0.7) & ~qrels["query_id"].isin(sorted(set(qrels["query_id"]))[:3])
    other = qrels[keep].assign(relevance=rng.integers(0, 4, int(keep.sum())))
    return synthetic_collection.runs, qrels, io.as_qrels_frame(other.reset_index(drop=True))


def test_bad_input_is_refused(synthetic):
    runs, qrels, other = synthetic
    kwargs = dict(progress=False, test_trials=20, splits=10, bootstrap=20)
    with pytest.raises(ParameterError, match="judged must be one of"):
        meta.assessor_variation(runs, qrels, other, MEASURES[:2], judged="nope", **kwargs)
    with pytest.raises(ParameterError, match="bootstrap must be >= 1"):
        meta.assessor_variation(runs, qrels, other, MEASURES[:2], **{**kwargs, "bootstrap": 0})
    elsewhere = other.assign(doc_id="X" + other["doc_id"].astype(str))
    with pytest.raises(DataError, match="share no judged"):
        quiet(meta.assessor_variation, runs, qrels, {"x": elsewhere}, MEASURES[:2], **kwargs)
    one_topic = other[other["query_id"] == other["query_id"].iloc[0]]
    with pytest.raises(DataError, match="judge 1 topic"):
        quiet(meta.assessor_variation, runs, qrels, {"x": one_topic}, MEASURES[:2], **kwargs)
    new_topic = pd.concat([other, pd.DataFrame({"query_id": ["zz"], "doc_id": ["D1"], "relevance": [1]})])
    with pytest.warns(InputWarning, match="1 topic.* left out"):
        quiet(meta.assessor_variation, runs, qrels, {"x": new_topic}, MEASURES[:2], **kwargs)


def test_judged_choices_differ_and_the_criterion_equals_the_function(synthetic):
    runs, qrels, other = synthetic
    kwargs = dict(test_trials=40, splits=20, bootstrap=50)
    shared = quiet(meta.assessor_variation, runs, qrels, {"b": other}, MEASURES, progress=False, **kwargs)
    policy = quiet(meta.assessor_variation, runs, qrels, {"b": other}, MEASURES, judged="policy", progress=False,
                   **kwargs)
    assert shared.coverage.at[0, "topics"] == policy.coverage.at[0, "topics"] == other["query_id"].nunique() < 40
    assert (shared.agreement["abs_change"] != policy.agreement["abs_change"]).any()
    per_query = quiet(meta.evaluate, runs, qrels, MEASURES, progress=False)
    inputs = criteria.Inputs(per_query, MEASURES, runs, qrels, {"b": other})
    done = quiet(criteria.run, ["assessor_variation"], inputs, {"alt_judged": "policy", "test_trials": 40,
                                                                 "alt_splits": 20, "alt_bootstrap": 50})
    pd.testing.assert_frame_equal(done.results["assessor_variation"].agreement, policy.agreement)
    assert done.summaries["assessor_variation"]["judged"].eq("policy").all()
    with pytest.raises(ParameterError, match="needs alternatives"):
        criteria.resolve(["assessor_variation"], criteria.Inputs(per_query, MEASURES, runs, qrels))
    assert "assessor_variation" not in criteria.resolve(None, criteria.Inputs(per_query, MEASURES, runs, qrels))
    assert "assessor_variation" in criteria.resolve(None, inputs)
    with pytest.raises(ParameterError, match="--alt-judged must be one of"):
        criteria.run(["assessor_variation"], inputs, {"alt_judged": "all"})


def test_the_command_line_runs_the_criterion(synthetic_files, synthetic, tmp_path, capsys):
    from ir_cwla.app import cli
    from ir_cwla.app.judge_inputs import alt_qrels_specs as alt_qrels_arg

    _, _, other = synthetic
    alt = tmp_path / "assessor-b.txt"
    with open(alt, "w") as f:
        for q, d, g in zip(other["query_id"], other["doc_id"], other["relevance"]):
            f.write(f"{q} 0 {d} {g}\n")
    runs = [str(p) for p in synthetic_files.runs.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli.main(["meta", str(synthetic_files.qrels), *runs, "-m", "P_ERG@10", "RBP_max@10",
                         "--criteria", "assessor_variation", "--alt-qrels", str(alt), f"again={alt}",
                         "--test-trials", "20", "--alt-splits", "10", "--alt-bootstrap", "30",
                         "--out", str(tmp_path / "report")]) == 0
    assert "robustness to a change of assessor:" in capsys.readouterr().out
    written = pd.read_csv(tmp_path / "report" / "assessors.csv")
    assert list(dict.fromkeys(written["alternative"])) == ["assessor-b", "again"]
    assert set(written["judged"]) == {SHARED}
    page = html.unescape((tmp_path / "report" / "index.html").read_text())
    assert "robustness to a change of assessor" in page and f"judged='{SHARED}'" in page
    assert alt_qrels_arg(["x/group1-assessor-a.txt", "n=y.txt.gz", "irds:foo/bar"]) == {
        "group1-assessor-a": "x/group1-assessor-a.txt", "n": "y.txt.gz", "irds:foo/bar": "irds:foo/bar"}
    with pytest.raises(UsageError, match="two inputs are named 'q'"):
        alt_qrels_arg(["a/q.txt", "b/q.txt"])
    capsys.readouterr()
    assert cli.main(["meta", str(synthetic_files.qrels), *runs, "--criteria", "assessor_variation",
                     "--out", str(tmp_path / "r2")]) == 1
    assert "needs alternatives: give other assessors' qrels with --alt-qrels" in capsys.readouterr().err
    per_query = tmp_path / "pq.csv"
    quiet(meta.evaluate, synthetic_files.runs, synthetic_files.qrels, ["P_ERG@10"], progress=False).to_csv(
        per_query, index=False)
    assert cli.main(["meta", str(per_query), "--alt-qrels", str(alt), "--out", str(tmp_path / "r3")]) == 1
    assert "a per-query file cannot be scored again with other assessors' qrels" in capsys.readouterr().err
    assert not (tmp_path / "r2").exists() and not (tmp_path / "r3").exists()


def test_kernels_against_scipy():
    rng = np.random.default_rng(4)
    x = rng.integers(0, 5, size=(6, 40)).astype(float)          # many ties
    y = x + rng.normal(size=(6, 40))
    y[2] = 7.0                                                   # constant: undefined
    ranks = assessors.average_ranks(x)
    for row, expected in zip(ranks, x):
        np.testing.assert_array_equal(row, stats.rankdata(expected))
    r, rho = assessors.pearson_rows(x, y), assessors.spearman_rows(x, y)
    for i in range(6):
        if i == 2:
            assert np.isnan(r[i]) and np.isnan(rho[i])
            continue
        assert r[i] == pytest.approx(stats.pearsonr(x[i], y[i]).statistic, abs=1e-13)
        assert rho[i] == pytest.approx(stats.spearmanr(x[i], y[i]).statistic, abs=1e-13)
