"""Label agreement between qrels (issue 21, item 2), against independent computations.

- Cohen's kappa (unweighted, linear, quadratic) against scikit-learn's ``cohen_kappa_score``,
  per topic and overall, on the real re-annotated DL19 data;
- Krippendorff's alpha (ordinal, interval, nominal) against the ``krippendorff`` package and
  against a slow loop over the definition of Krippendorff (2011) written here (units, pairable
  values, coincidences ``1 / (m_u - 1)``, ``delta^2`` by its formula), itself checked on the
  paper's worked example with missing values;
- the confusion matrices against ``pandas.crosstab``, exact agreement against the README's
  counts;
- the bootstrap against the documented recipe re-implemented here, and against an explicit
  resampling of pairs (same distribution, other random numbers); reproducible with the seed and
  independent of the row order.
"""
from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from ir_cwla import meta
from ir_cwla.errors import (
    ArgumentTypeError,
    DataError,
    InputError,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
)
from ir_cwla.meta import labels
from tests.reference import read_qrels

GROUPS = [f"group{g}-{x}" for g in range(1, 5) for x in "ab"]
WEIGHTS = {"kappa": None, "kappa_linear": "linear", "kappa_quadratic": "quadratic"}
METRICS = ("ordinal", "interval", "nominal")
#: README of reannotation/: pairs with the same grade as NIST, assessor a / b, per group
README_SAME = {"group1-a": 377, "group1-b": 414, "group2-a": 527, "group2-b": 221, "group3-a": 222,
               "group3-b": 185, "group4-a": 392, "group4-b": 456}


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return fn(*args, **kwargs)


# ------------------------------------------------------------------------- independent references

def shared_pairs(ref: dict, other: dict) -> dict[str, list[tuple[int, int]]]:
    """{topic: [(reference grade, other grade), ...]} over the pairs both judged, by hand."""
    out: dict[str, list[tuple[int, int]]] = {}
    for q in sorted(set(ref) & set(other)):
        pairs = [(ref[q][d], other[q][d]) for d in sorted(set(ref[q]) & set(other[q]))]
        if pairs:
            out[q] = pairs
    return out


def slow_alpha(units: list[list[float]], metric: str) -> float:
    """Krippendorff's alpha by the definition (Krippendorff 2011, Sections A-E), slowly.

    ``units``: the values each unit received (any number of coders; missing values absent).
    Units with fewer than 2 values are not pairable. Coincidences: every ordered pair of values
    of two different coders of a unit adds ``1 / (m_u - 1)``. ``alpha = 1 - D_o / D_e`` with
    ``D_o = (1/n) sum_c sum_k o_ck delta_ck`` and ``D_e = 1/(n(n-1)) sum_c sum_k n_c n_k delta_ck``.
    """
    pairable = [u for u in units if len(u) >= 2]
    values = sorted({v for u in pairable for v in u})
    o = {(c, k): 0.0 for c in values for k in values}
    for u in pairable:
        m = len(u)
        for i, j in itertools.permutations(range(m), 2):
            o[(u[i], u[j])] += 1.0 / (m - 1)
    n_c = {c: sum(o[(c, k)] for k in values) for c in values}
    n = sum(n_c.values())

    def delta(c, k):
        if metric == "nominal":
            return 0.0 if c == k else 1.0
        if metric == "interval":
            return (c - k) ** 2
        lo, hi = min(c, k), max(c, k)                 # ordinal: the ranks between c and k, both included
        between = sum(n_c[g] for g in values if lo <= g <= hi)
        return (between - (n_c[c] + n_c[k]) / 2) ** 2

    d_o = sum(o[(c, k)] * delta(c, k) for c in values for k in values) / n
    d_e = sum(n_c[c] * n_c[k] * delta(c, k) for c in values for k in values) / (n * (n - 1))
    return 1.0 - d_o / d_e if d_e > 0 else float("nan")


#: Krippendorff (2011), Section D: 4 coders x 12 units with missing values (None), and the
#: alphas the paper reports: nominal 0.743, ordinal 0.815, interval 0.849.
PAPER_DATA = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
              [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
              [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
              [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
PAPER_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}


def paper_units() -> list[list[float]]:
    return [[float(row[u]) for row in PAPER_DATA if row[u] is not None] for u in range(len(PAPER_DATA[0]))]


def test_slow_alpha_reproduces_the_paper():
    """The test's reference itself, on Krippendorff's worked example (and the package agrees)."""
    data = np.array([[np.nan if v is None else v for v in row] for row in PAPER_DATA], dtype=float)
    for metric, expected in PAPER_ALPHA.items():
        assert slow_alpha(paper_units(), metric) == pytest.approx(expected, abs=5e-4)
        assert krippendorff.alpha(data, level_of_measurement=metric) == pytest.approx(expected, abs=5e-4)


def test_alpha_kernel_on_the_paper_coincidences():
    """The kernel from a coincidence matrix (built here by the definition, 4 coders, missing values)."""
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    o = np.zeros((5, 5))
    for u in paper_units():
        for i, j in itertools.permutations(range(len(u)), 2):
            if len(u) >= 2:
                o[values.index(u[i]), values.index(u[j])] += 1.0 / (len(u) - 1)
    for metric, expected in PAPER_ALPHA.items():
        got = float(labels.krippendorff_alpha(o, metric, np.array(values)))
        assert got == pytest.approx(slow_alpha(paper_units(), metric), abs=1e-12)
        assert got == pytest.approx(expected, abs=5e-4)


# ------------------------------------------------------------------------- the real DL19 re-annotations

@pytest.fixture(scope="module")
def reannotation(dl19_dir) -> dict[str, Path]:
    folder = dl19_dir / "reannotation"
    return {g: folder / f"{g[:-2]}-assessor-{g[-1]}.txt" for g in GROUPS}


@pytest.fixture(scope="module")
def dl19_agreement(dl19_qrels_path, reannotation) -> labels.LabelAgreement:
    return quiet(meta.label_agreement, dl19_qrels_path, reannotation, trials=200, seed=0, reference_name="NIST")


def test_kappa_against_scikit_learn_on_dl19(dl19_qrels_path, reannotation, dl19_agreement):
    nist = read_qrels(dl19_qrels_path)
    stats = dl19_agreement.statistics.set_index(["alternative", "query_id", "statistic"])["value"]
    checked = undefined = 0
    for name, path in reannotation.items():
        by_topic = shared_pairs(nist, read_qrels(path))
        everything = [p for pairs in by_topic.values() for p in pairs]
        categories = sorted({g for p in everything for g in p})
        assert list(dl19_agreement.categories[name]) == categories
        assert dl19_agreement.topics[name] == sorted(by_topic)
        for stat, weights in WEIGHTS.items():
            y1, y2 = zip(*everything)
            assert stats[(name, "all", stat)] == pytest.approx(cohen_kappa_score(y1, y2, weights=weights), abs=1e-12)
            for q, pairs in by_topic.items():
                y1, y2 = zip(*pairs)
                if len(set(y1) | set(y2)) == 1:             # one category: undefined (scikit-learn: 0/0)
                    assert np.isnan(stats[(name, q, stat)])
                    undefined += 1
                    continue
                expected = cohen_kappa_score(y1, y2, labels=categories, weights=weights)
                assert stats[(name, q, stat)] == pytest.approx(expected, abs=1e-12), (name, q, stat)
                checked += 1
    assert checked > 250 and undefined == 15          # 5 single-grade (alternative, topic) cases x 3 weights


def test_kappa_between_the_two_assessors_of_each_group(reannotation):
    for g in range(1, 5):
        a, b = reannotation[f"group{g}-a"], reannotation[f"group{g}-b"]
        result = quiet(meta.label_agreement, a, b, trials=1)
        by_topic = shared_pairs(read_qrels(a), read_qrels(b))
        y1, y2 = zip(*[p for pairs in by_topic.values() for p in pairs])
        row = result.table("all").iloc[0]
        assert row["judged_both"] == len(y1)
        for stat, weights in WEIGHTS.items():
            assert row[stat] == pytest.approx(cohen_kappa_score(y1, y2, weights=weights), abs=1e-12)
        data = np.array([y1, y2], dtype=float)
        assert row["alpha_ordinal"] == pytest.approx(krippendorff.alpha(data, level_of_measurement="ordinal"),
                                                     abs=1e-12)


def test_alpha_against_krippendorff_and_the_definition_on_dl19(dl19_qrels_path, reannotation, dl19_agreement):
    nist = read_qrels(dl19_qrels_path)
    stats = dl19_agreement.statistics.set_index(["alternative", "query_id", "statistic"])["value"]
    checked = 0
    for name, path in reannotation.items():
        by_topic = shared_pairs(nist, read_qrels(path))
        cases = {"all": [p for pairs in by_topic.values() for p in pairs], **by_topic}
        for q, pairs in cases.items():
            data = np.array(list(zip(*pairs)), dtype=float)         # 2 coders x units
            single = len(np.unique(data)) == 1
            for metric in METRICS:
                got = stats[(name, q, f"alpha_{metric}")]
                if single:
                    assert np.isnan(got)
                    continue
                assert got == pytest.approx(krippendorff.alpha(data, level_of_measurement=metric), abs=1e-10)
                if q == "all" or metric == "ordinal":           # the slow loop: overall, and per topic once
                    units = [[float(a), float(b)] for a, b in pairs]
                    assert got == pytest.approx(slow_alpha(units, metric), abs=1e-10), (name, q, metric)
                checked += 1
    assert checked > 250


def test_confusion_and_exact_agreement_on_dl19(dl19_qrels_path, reannotation, dl19_agreement):
    nist = read_qrels(dl19_qrels_path)
    table = dl19_agreement.table("exact").set_index("alternative")
    for name, path in reannotation.items():
        other = read_qrels(path)
        by_topic = shared_pairs(nist, other)
        n = sum(map(len, by_topic.values()))
        assert table.at[name, "judged_both"] == n == sum(map(len, other.values()))   # every pair is also NIST's
        assert table.at[name, "judged_reference"] == 9260
        assert table.at[name, "judged_other"] == sum(map(len, other.values()))
        assert round(table.at[name, "exact"] * n) == README_SAME[name]
        frame = pd.DataFrame([p for pairs in by_topic.values() for p in pairs], columns=["r", "o"])
        expected = pd.crosstab(frame["r"], frame["o"]).reindex(index=range(4), columns=range(4), fill_value=0)
        assert (dl19_agreement.confusion(alternative=name).to_numpy() == expected.to_numpy()).all()
        q = next(iter(by_topic))
        frame = pd.DataFrame(by_topic[q], columns=["r", "o"])
        expected = pd.crosstab(frame["r"], frame["o"]).reindex(index=range(4), columns=range(4), fill_value=0)
        assert (dl19_agreement.confusion(topic=q, alternative=name).to_numpy() == expected.to_numpy()).all()


def test_an_alternative_does_not_depend_on_the_others(dl19_qrels_path, reannotation, dl19_agreement):
    alone = quiet(meta.label_agreement, dl19_qrels_path, reannotation["group3-b"], trials=200, seed=0,
                  reference_name="NIST", name="group3-b")
    together = dl19_agreement.statistics
    together = together[together["alternative"] == "group3-b"].reset_index(drop=True)
    pd.testing.assert_frame_equal(alone.statistics, together)


def test_plot_on_dl19(dl19_agreement, tmp_path):
    fig = dl19_agreement.plot("kappa_quadratic", alternatives=["group2-a", "group2-b"])
    assert len(fig.axes) == 4
    assert [t.get_text() for t in fig.axes[1].get_xticklabels()][0] == "1121402\n(57)"
    fig.savefig(tmp_path / "labels.png", dpi=60)
    assert (tmp_path / "labels.png").stat().st_size > 10_000
    with pytest.raises(ParameterError):
        dl19_agreement.plot("tau")


# ------------------------------------------------------------------------- synthetic: the bootstrap

def make_pair(seed: int = 1, topics: int = 6, docs: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A reference and a noisy second assessor (grades 0-3), with pairs judged by one only."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(topics):
        for d in range(docs):
            g = int(rng.integers(0, 4))
            o = int(np.clip(g + rng.integers(-1, 2), 0, 3)) if rng.random() < 0.8 else int(rng.integers(0, 4))
            rows.append((f"q{t}", f"d{d}", g, o))
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "ref", "other"])
    ref = frame.rename(columns={"ref": "relevance"})[["query_id", "doc_id", "relevance"]].iloc[5:]
    other = frame.rename(columns={"other": "relevance"})[["query_id", "doc_id", "relevance"]].iloc[:-7]
    other = pd.concat([other, pd.DataFrame({"query_id": ["q0", "q9"], "doc_id": ["new1", "new2"], "relevance": [1, 2]})])
    return ref.reset_index(drop=True), other.reset_index(drop=True)


def direct_kappa(c: np.ndarray) -> float:
    """Unweighted kappa ``(p_o - p_e) / (1 - p_e)`` of one confusion matrix."""
    n = c.sum()
    p_o = np.trace(c) / n
    p_e = float((c.sum(axis=1) * c.sum(axis=0)).sum()) / n ** 2
    return (p_o - p_e) / (1 - p_e)


def test_coverage_is_reported():
    ref, other = make_pair()
    result = meta.label_agreement(ref, other, trials=10)
    row = result.table().iloc[0]
    assert (row["query_id"], row["judged_reference"], row["judged_other"], row["judged_both"]) == \
        ("all", len(ref), len(other), 240 - 12)
    per_topic = result.table(per_topic=True).set_index("query_id")
    assert per_topic.loc["q9", ["judged_reference", "judged_other", "judged_both"]].tolist() == [0, 1, 0]
    assert np.isnan(per_topic.at["q9", "kappa"])
    assert per_topic.loc["q0", ["judged_reference", "judged_other", "judged_both"]].tolist() == [35, 41, 35]
    assert per_topic.loc["q5", ["judged_reference", "judged_other", "judged_both"]].tolist() == [40, 33, 33]


def test_bootstrap_follows_the_documented_recipe():
    ref, other = make_pair()
    trials, seed, level = 450, 7, 0.9                       # 3 chunks: 200, 200, 50
    result = meta.label_agreement(ref, other, trials=trials, seed=seed, level=level)
    merged = ref.merge(other, on=["query_id", "doc_id"])
    topics = sorted(merged["query_id"].unique())
    conf = np.zeros((len(topics), 4, 4), dtype=np.int64)
    for q, a, b in zip(merged["query_id"], merged["relevance_x"], merged["relevance_y"]):
        conf[topics.index(q), a, b] += 1
    t = len(topics)
    overall, per_topic = [], []
    for c, size in enumerate([200, 200, 50]):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4, 0, c)))
        for draw in rng.integers(0, t, size=(size, t)):
            overall.append(direct_kappa(conf[draw].sum(axis=0)))
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4, 1, c)))
        n = conf.reshape(t, 16).sum(axis=1)
        draws = rng.multinomial(n, conf.reshape(t, 16) / n[:, None], size=(size, t))
        per_topic.extend([[direct_kappa(d.reshape(4, 4)) for d in row] for row in draws])
    stats = result.statistics[result.statistics["statistic"] == "kappa"].set_index("query_id")
    low, high = np.quantile(overall, [0.05, 0.95])
    assert stats.at["all", "ci_low"] == pytest.approx(low, abs=1e-12)
    assert stats.at["all", "ci_high"] == pytest.approx(high, abs=1e-12)
    per_topic_arr = np.array(per_topic)
    for i, q in enumerate(topics):
        low, high = np.quantile(per_topic_arr[:, i], [0.05, 0.95])
        assert (stats.at[q, "ci_low"], stats.at[q, "ci_high"]) == (pytest.approx(low, abs=1e-12),
                                                                   pytest.approx(high, abs=1e-12))
    assert (stats["defined"] == trials).all()


def test_pair_bootstrap_matches_explicit_resampling_of_pairs():
    """The multinomial over cells has the distribution of resampling the pairs themselves."""
    ref, other = make_pair(seed=3, topics=1, docs=300)
    result = quiet(meta.label_agreement, ref, other, trials=4000, seed=0)    # one topic: no overall interval
    merged = ref.merge(other, on=["query_id", "doc_id"])
    a, b = merged["relevance_x"].to_numpy(), merged["relevance_y"].to_numpy()
    rng = np.random.default_rng(12345)
    reps = []
    for _ in range(4000):
        i = rng.integers(0, len(a), len(a))
        c = np.zeros((4, 4))
        np.add.at(c, (a[i], b[i]), 1)
        reps.append(direct_kappa(c))
    row = result.statistics.set_index(["query_id", "statistic"]).loc[("q0", "kappa")]
    low, high = np.quantile(reps, [0.025, 0.975])
    assert row["ci_low"] == pytest.approx(low, abs=0.02)
    assert row["ci_high"] == pytest.approx(high, abs=0.02)


def test_bootstrap_is_seeded_and_ignores_row_order():
    ref, other = make_pair()
    first = meta.label_agreement(ref, {"x": other}, trials=300, seed=5)
    again = meta.label_agreement(ref, {"x": other}, trials=300, seed=5)
    shuffled = meta.label_agreement(ref.sample(frac=1, random_state=1), {"x": other.sample(frac=1, random_state=2)},
                                    trials=300, seed=5)
    as_seed = meta.label_agreement(ref, {"x": other}, trials=300, seed=np.random.SeedSequence(5))
    pd.testing.assert_frame_equal(first.statistics, again.statistics)
    pd.testing.assert_frame_equal(first.statistics, shuffled.statistics)
    pd.testing.assert_frame_equal(first.statistics, as_seed.statistics)
    pd.testing.assert_frame_equal(first.coverage, shuffled.coverage)
    other_seed = meta.label_agreement(ref, {"x": other}, trials=300, seed=6)
    assert (first.statistics["value"].to_numpy() == other_seed.statistics["value"].to_numpy()).all()
    assert not np.allclose(first.statistics["ci_low"], other_seed.statistics["ci_low"], equal_nan=True)


def test_level_widens_the_interval():
    ref, other = make_pair()
    narrow = meta.label_agreement(ref, other, trials=500, level=0.5).table()
    wide = meta.label_agreement(ref, other, trials=500, level=0.99).table()
    for s in labels.DEFAULT_STATISTICS:
        assert wide.at[0, f"{s}_low"] < narrow.at[0, f"{s}_low"] <= narrow.at[0, s]
        assert narrow.at[0, s] <= narrow.at[0, f"{s}_high"] < wide.at[0, f"{s}_high"]


# ------------------------------------------------------------------------- undefined statistics, errors

def test_a_single_category_topic_is_nan_with_one_warning():
    ref = pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 3 + ["3"] * 3,
                        "doc_id": list("abcd") + list("abc") + list("abc"),
                        "relevance": [0, 1, 2, 1, 2, 2, 2, 0, 0, 0]})
    other = ref.assign(relevance=[0, 2, 2, 1, 2, 2, 2, 0, 0, 0])
    with pytest.warns(UndefinedStatisticWarning) as caught:
        result = meta.label_agreement(ref, other, trials=50)
    ours = [w for w in caught if issubclass(w.category, UndefinedStatisticWarning)]
    assert len(ours) == 1 and str(ours[0].message).startswith("2 (alternative, topic)")
    table = result.table("all", per_topic=True).set_index("query_id")
    for q in ("2", "3"):
        assert table.at[q, "exact"] == 1.0
        for s in labels.STATISTICS[1:]:
            assert np.isnan(table.at[q, s]) and np.isnan(table.at[q, f"{s}_low"])
    assert np.isfinite(table.at["1", "kappa"]) and np.isfinite(table.at["all", "kappa"])


def test_kernels_on_degenerate_matrices():
    one = np.array([[5, 0], [0, 0]])
    assert np.isnan(labels.cohen_kappa(one)) and np.isnan(labels.krippendorff_alpha(labels.coincidence_matrix(one)))
    apart = np.array([[0, 4], [0, 0]])                   # each assessor one grade, never the same: kappa 0
    assert labels.cohen_kappa(apart) == 0.0
    assert np.isnan(labels.cohen_kappa(np.zeros((3, 3))))
    perfect = np.diag([3, 4, 5])
    for w in labels.KAPPA_WEIGHTS:
        assert labels.cohen_kappa(perfect, w) == 1.0
    for m in METRICS:
        assert labels.krippendorff_alpha(labels.coincidence_matrix(perfect), m) == 1.0


def test_bad_input_gives_clear_errors(tmp_path):
    ref, other = make_pair()
    with pytest.raises(DataError, match="share no judged"):
        meta.label_agreement(ref, other.assign(query_id=other["query_id"] + "-elsewhere"))
    with pytest.raises(InputError, match="not an integer"):
        meta.label_agreement(ref, other.assign(relevance=other["relevance"] + 0.5))
    single = tmp_path / "one.txt"
    single.write_text("q0 0 d10 1\n")
    with pytest.raises(DataError, match="single judged pair"):
        meta.label_agreement(ref, single)
    for bad in ({"level": 1.0}, {"level": 0}, {"trials": 0}, {"seed": -1}):
        with pytest.raises(ParameterError):
            meta.label_agreement(ref, other, **bad)
    with pytest.raises(ParameterError, match="keys are the names"):
        meta.label_agreement(ref, {"a": other}, name="b")
    with pytest.raises(ParameterError, match="empty mapping"):
        meta.label_agreement(ref, {})
    result = meta.label_agreement(ref, {"a": other, "b": other}, trials=5)
    with pytest.raises(ParameterError, match="name the alternative"):
        result.confusion()
    with pytest.raises(NotFoundError):
        result.confusion(alternative="c")
    with pytest.raises(NotFoundError):
        result.confusion(topic="q99", alternative="a")
    with pytest.raises(ParameterError):
        result.table("kappa_cubic")
    with pytest.raises(ParameterError):
        result.confusion(alternative="a", normalise="column")
    with pytest.raises(ParameterError):
        labels.cohen_kappa(np.eye(2), "cubic")
    with pytest.raises(ParameterError):
        labels.krippendorff_alpha(np.eye(2), "ratio")
    with pytest.raises(ArgumentTypeError):
        labels.as_qrels_mapping(ref, "qrels")


def test_inputs_of_every_kind_give_the_same_numbers(tmp_path):
    ref, other = make_pair()
    path = tmp_path / "other.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in other.itertuples(index=False)))
    as_dict = {q: dict(zip(part["doc_id"], part["relevance"])) for q, part in other.groupby("query_id")}
    frames = [meta.label_agreement(ref, x, trials=20, name="o").statistics for x in (other, path, str(path), as_dict)]
    for f in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], f)
    assert meta.label_agreement(ref, path, trials=1).alternatives == ["other.txt"]
    normalised = meta.label_agreement(ref, other, trials=20).confusion(normalise="row").to_numpy()
    assert np.allclose(normalised.sum(axis=1), 1.0)


def test_categories_are_the_grades_of_the_shared_pairs():
    """Kappa weighs category positions (scikit-learn's), alpha's interval metric the grade values."""
    rng = np.random.default_rng(4)
    grades = np.array([0, 2, 5])
    a = grades[rng.integers(0, 3, 200)]
    b = np.where(rng.random(200) < 0.6, a, grades[rng.integers(0, 3, 200)])
    ref = pd.DataFrame({"query_id": [f"q{i % 5}" for i in range(200)], "doc_id": [f"d{i}" for i in range(200)],
                        "relevance": a})
    other = ref.assign(relevance=b)
    ref = pd.concat([ref, pd.DataFrame({"query_id": ["q0"], "doc_id": ["only-here"], "relevance": [1]})])
    result = meta.label_agreement(ref, other, trials=1)
    assert result.categories["other"] == (0, 2, 5)
    row = result.table("all").iloc[0]
    for stat, weights in WEIGHTS.items():
        assert row[stat] == pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-12)
    for metric in METRICS:
        expected = krippendorff.alpha(np.array([a, b], dtype=float), level_of_measurement=metric)
        assert row[f"alpha_{metric}"] == pytest.approx(expected, abs=1e-12)
        assert row[f"alpha_{metric}"] == pytest.approx(slow_alpha([[float(x), float(y)] for x, y in zip(a, b)],
                                                                  metric), abs=1e-12)


def test_every_statistic_has_a_figure_name():
    from ir_cwla.meta.labels_plots import NAMES

    assert tuple(NAMES) == labels.STATISTICS
