"""The user criteria: agreement with ratings, with preferences, and the user model fitted to users.

Every number is checked against an independent computation: the weighted kernels against scipy on
the expanded samples (numpy.repeat), Williams' t against its determinant form and against
Hotelling's and Steiger's tests, the bootstrap against Williams' on the real data, sessions and
preferences against loops written here, the fit against ratings generated from a known model.
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
from ir_cwla.analysis import streams
from ir_cwla.errors import DataError, InputError, InputWarning, ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import correlation, criteria, ratings, satisfaction


def study(n_users: int = 12, queries: int = 10, seed: int = 0, p: float = 0.6, noise: float = 0.15):
    """A synthetic study: pages of 10 graded rows, ratings 1-5 from RBP(p)'s ERG score plus noise."""
    rng = np.random.default_rng(seed)
    qids = [f"{u:02d}{q:02d}" for u in range(n_users) for q in range(queries)]
    gains = rng.choice(4, size=(len(qids), 10), p=[0.4, 0.25, 0.2, 0.15])
    pages = pd.DataFrame({"qid": np.repeat(qids, 10), "rank": np.tile(np.arange(1, 11), len(qids)),
                          "gain": gains.ravel()})
    weights = p ** np.arange(10) * (1 - p)
    score = (gains / 3 * weights).sum(axis=1) / weights.sum()
    rating = np.clip(np.round(1 + 4 * (score + rng.normal(0, noise, len(qids))) / max(score.max(), 1e-9)), 1, 5)
    table = pd.DataFrame({"qid": qids, "rating": rating, "user": [q[:2] for q in qids],
                          "task": [str(int(q[2:]) % 3) for q in qids]})
    return pages, table


@pytest.fixture(scope="module")
def synthetic_study():
    pages, table = study()
    return pages, table, ir_cwla.score_gains(pages, ir_cwla.table1())


# -- the kernels ---------------------------------------------------------------------------------

@pytest.mark.parametrize("ties", [False, True])
def test_weighted_correlations_are_scipy_on_the_expanded_sample(ties):
    rng = np.random.default_rng(4)
    n = 157
    y = rng.integers(1, 6, n).astype(float)
    X = rng.random((n, 6)) + 0.3 * y[:, None]
    if ties:
        X = np.round(X, 1)
    X[:, 5] = np.round(X[:, 5] * 3)                    # few distinct values
    W = rng.multinomial(n, np.ones(n) / n, size=6).astype(float)
    W[0] = 1.0
    W[1, : n // 2] = 0.0                               # units not drawn at all
    got = correlation.correlations(X, y, W)
    for name, reference in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
        expected = [[reference(np.repeat(X[:, m], W[b].astype(int)), np.repeat(y, W[b].astype(int)))[0]
                     for m in range(X.shape[1])] for b in range(len(W))]
        np.testing.assert_allclose(got[name], expected, rtol=0, atol=1e-12, err_msg=name)


def test_cluster_counts_give_the_weights_of_their_units():
    rng = np.random.default_rng(5)
    n, users = 90, 9
    clusters = rng.integers(0, users, n)
    y = rng.integers(1, 4, n).astype(float)
    X = np.round(rng.random((n, 3)) + y[:, None] * 0.2, 2)
    counts = rng.integers(0, 3, size=(4, users)).astype(float)
    by_cluster = correlation.clustered(counts, clusters, X, y)
    by_unit = correlation.correlations(X, y, counts[:, clusters])
    for name in correlation.STATISTICS:
        np.testing.assert_allclose(by_cluster[name], by_unit[name], rtol=0, atol=1e-13)


def test_a_replicate_with_a_constant_side_is_undefined():
    X = np.array([[1.0, 1.0], [2.0, 1.0], [3.0, 1.0], [4.0, 2.0]])
    y = np.array([1.0, 2.0, 2.0, 3.0])
    W = np.array([[1, 1, 1, 0], [0, 1, 1, 0], [1, 1, 1, 1]], dtype=float)
    got = correlation.correlations(X, y, W)
    for name in correlation.STATISTICS:
        assert np.isnan(got[name][0, 1])          # the second measure is constant over the first three units
        assert np.isnan(got[name][1]).all()        # the ratings are constant over units 2 and 3
        assert np.isfinite(got[name][2]).all()


def williams_by_determinant(r12, r13, r23, n):
    """Williams' T2 (Steiger 1980, eq. 3), |R| from numpy's determinant of the correlation matrix."""
    det = np.linalg.det(np.array([[1, r12, r13], [r12, 1, r23], [r13, r23, 1]]))
    rbar = (r12 + r13) / 2
    t = (r12 - r13) * math.sqrt(((n - 1) * (1 + r23)) / (2 * ((n - 1) / (n - 3)) * det + rbar ** 2 * (1 - r23) ** 3))
    return t, 2 * stats.t.sf(abs(t), n - 3)


def hotelling_t(r12, r13, r23, n):
    det = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    return (r12 - r13) * math.sqrt((n - 3) * (1 + r23) / (2 * det))


def steiger_z(r12, r13, r23, n):
    """Steiger's (1980) Z2*, on Fisher's z with the pooled correlation."""
    z12, z13 = np.arctanh(r12), np.arctanh(r13)
    rbar = (r12 + r13) / 2
    psi = r23 * (1 - 2 * rbar ** 2) - 0.5 * rbar ** 2 * (1 - 2 * rbar ** 2 - r23 ** 2)
    c = psi / (1 - rbar ** 2) ** 2
    return (z12 - z13) * math.sqrt(n - 3) / math.sqrt(2 - 2 * c)


@pytest.mark.parametrize("r12, r13, r23, n", [(0.5, 0.3, 0.4, 50), (0.28, 0.25, 0.95, 1119), (0.1, 0.6, -0.2, 30),
                                              (0.7, 0.69, 0.99, 400)])
def test_williams_t_against_its_determinant_form_and_the_asymptotic_tests(r12, r13, r23, n):
    t, p = correlation.williams_t(np.array([r12]), np.array([r13]), np.array([r23]), n)
    t_ref, p_ref = williams_by_determinant(r12, r13, r23, n)
    assert t[0] == pytest.approx(t_ref, rel=1e-12) and p[0] == pytest.approx(p_ref, rel=1e-10)
    # Hotelling's t and Steiger's Z test the same hypothesis; for large n they agree with Williams'
    tolerance = 0.05 if n > 100 else 0.25
    assert t[0] == pytest.approx(hotelling_t(r12, r13, r23, n), rel=tolerance)
    assert t[0] == pytest.approx(steiger_z(r12, r13, r23, n), rel=tolerance)


# -- user agreement -------------------------------------------------------------------------------

def test_user_agreement_estimates_are_scipy_s_and_reproducible(synthetic_study):
    pages, table, per_query = synthetic_study
    result = meta.user_agreement(per_query, table, trials=300, seed=7, groups=meta.browsing_model)
    wide = per_query.pivot(index="qid", columns="measure", values="value").loc[table["qid"]]
    for m in result.measures:
        x, y = wide[m].to_numpy(), table["rating"].to_numpy()
        assert result.estimates.at[m, "pearson"] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-14)
        assert result.estimates.at[m, "kendall"] == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-14)
        assert result.estimates.at[m, "pearson_low"] < result.estimates.at[m, "pearson"] < \
            result.estimates.at[m, "pearson_high"]
    table_out = result.table()
    assert list(table_out.columns) == ["measure", "group", "pearson", "pearson_low", "pearson_high", "spearman",
                                       "spearman_low", "spearman_high", "kendall", "kendall_low", "kendall_high",
                                       "units"]
    assert "cluster bootstrap over 12 users" in table_out.attrs["note"]
    again = meta.user_agreement(per_query.sample(frac=1, random_state=3), table.sample(frac=1, random_state=4),
                                trials=300, seed=7, groups=meta.browsing_model)
    pd.testing.assert_frame_equal(result.table(), again.table())
    pd.testing.assert_frame_equal(result.comparisons_table(), again.comparisons_table())
    other = meta.user_agreement(per_query, table, trials=300, seed=8, groups=meta.browsing_model)
    assert not result.table().equals(other.table())


def test_the_bootstrap_draws_the_documented_stream(synthetic_study):
    _, table, per_query = synthetic_study
    result = meta.user_agreement(per_query, table, trials=250, seed=3, measures=["CWLA(C='RBP',A='ERG')@10"])
    units = result.units
    # the contract re-implemented: chunk c of 200 draws G cluster indices per replicate
    replicates = []
    for c, size in enumerate([200, 50]):
        rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(streams.USER_AGREEMENT_STREAM, c)))
        for draw in rng.integers(0, units.n_clusters, size=(size, units.n_clusters)):
            w = np.bincount(draw, minlength=units.n_clusters)[units.clusters]
            replicates.append(stats.pearsonr(np.repeat(units.scores[:, 0], w), np.repeat(units.ratings, w))[0])
    np.testing.assert_allclose(result.replicates["pearson"][:, 0], replicates, rtol=0, atol=1e-12)
    low, high = np.quantile(replicates, [0.025, 0.975])
    assert result.estimates.iloc[0]["pearson_low"] == pytest.approx(low, abs=1e-12)
    assert result.estimates.iloc[0]["pearson_high"] == pytest.approx(high, abs=1e-12)


def test_comparisons_p_values_and_holm(synthetic_study):
    _, table, per_query = synthetic_study
    result = meta.user_agreement(per_query, table, trials=400, seed=1, groups=meta.browsing_model)
    pairs = result.comparisons
    assert len(pairs) == sum(len(m) * (len(m) - 1) // 2 for m in result.groups.values())
    reps = result.replicates["pearson"]
    index = {m: i for i, m in enumerate(result.measures)}
    for row in pairs.sample(10, random_state=0).itertuples():
        d = reps[:, index[row.measure_a]] - reps[:, index[row.measure_b]]
        d = d[np.isfinite(d)]
        p = min(1.0, 2 * (min((d <= 0).sum(), (d >= 0).sum()) + 1) / (len(d) + 1))
        assert row.p_bootstrap == pytest.approx(p)
    from statsmodels.stats.multitest import multipletests

    finite = np.isfinite(pairs["p_bootstrap"]).to_numpy()
    expected = multipletests(pairs["p_bootstrap"][finite], method="holm")[1]
    np.testing.assert_allclose(pairs["p_holm"][finite], expected, rtol=1e-12)
    assert (pairs["significant"] == (pairs["p_holm"] < 0.05)).all()
    williams = meta.user_agreement(per_query, table, trials=50, seed=1, groups=meta.browsing_model, test="williams")
    expected = multipletests(williams.comparisons["p_williams"].dropna(), method="holm")[1]
    np.testing.assert_allclose(williams.comparisons["p_holm"].dropna(), expected, rtol=1e-12)
    with pytest.raises(ParameterError, match="williams"):
        meta.user_agreement(per_query, table, trials=50, statistic="kendall", test="williams")
    # 400 replicates cannot reach Holm's threshold over these pairs, and the output says so
    assert not result.comparisons["significant"].any()
    need = math.ceil(2 * len(pairs) / 0.05 - 1)
    assert f"only with at least {need} replicates" in result.comparisons_table().attrs["note"]
    assert williams.resolution() == ""


def test_williams_finds_no_difference_between_a_measure_and_itself():
    """Scores alike, or a positive affine map of each other (P_ETG = 10 P_ERG), are t = 0, p = 1.

    Without that rule rounding makes Williams' t a ratio of two ~1e-16 quantities: a measure and
    a copy of it that differs in the last bit were "significantly" different (p < 1e-4), and so
    were P_ERG@10 and P_ETG@10 on the image-search pages on one machine and not on another (the
    users page's Holm-adjusted p-values moved by one rank between two installs).
    """
    rng = np.random.default_rng(3)
    y = rng.integers(1, 6, 500).astype(float)
    a = np.clip(y / 5 + rng.normal(0, 0.3, 500), 0, 1)
    other = np.clip(y / 5 + rng.normal(0, 0.5, 500), 0, 1)
    # the same scores but for rounding (for Spearman's r a copy with the same ranks: ties kept)
    copies = [("pearson", a * (1 + 1e-16) + 1e-17 * (np.arange(500) % 3)), ("spearman", a * (1 + 1e-16)),
              ("pearson", 10 * a + 0.1), ("pearson", a / 7.3), ("spearman", a ** 3)]
    for statistic, copy in copies:
        scores = np.column_stack([a, copy, other])
        t, p = satisfaction.williams(scores, y, np.array([0, 0]), np.array([1, 2]), statistic)
        assert t[0] == 0.0 and p[0] == 1.0
        r = np.corrcoef(np.column_stack([y, scores]), rowvar=False) if statistic == "pearson" else \
            np.corrcoef(np.column_stack([stats.rankdata(y), stats.rankdata(scores, axis=0)]), rowvar=False)
        t_ref, p_ref = correlation.williams_t(r[0, 1:2], r[0, 3:4], r[1:2, 3], 500)
        assert t[1] == t_ref[0] and p[1] == p_ref[0] and p[1] < 0.05   # a real difference is left alone


def test_without_users_the_bootstrap_resamples_queries(synthetic_study):
    _, table, per_query = synthetic_study
    result = meta.user_agreement(per_query, table.drop(columns="user"), trials=50)
    assert result.units.cluster == "queries" and result.units.n_clusters == len(table)
    forced = meta.user_agreement(per_query, table, trials=50, clusters="units")
    assert forced.units.cluster == "queries"


# -- bad input -----------------------------------------------------------------------------------

def test_ratings_that_are_not_numbers_are_refused_naming_the_row(synthetic_study):
    _, table, per_query = synthetic_study
    bad = table.assign(rating=table["rating"].astype(object))
    bad.loc[5, "rating"] = "good"
    with pytest.raises(InputError, match=r"row 6 \(qid '0005'\): rating 'good' is not a number"):
        meta.user_agreement(per_query, bad, trials=10)


def test_unpaired_queries_are_counted_in_one_warning(synthetic_study):
    _, table, per_query = synthetic_study
    extra = pd.concat([table, pd.DataFrame({"qid": ["x1", "x2"], "rating": [3, 4], "user": ["00", "00"],
                                            "task": ["0", "0"]})])
    scored = per_query[per_query["qid"] != "0003"]
    with pytest.warns(InputWarning, match=r"2 rated queries are not scored \(x1, x2\); 1 scored query is not rated") \
            as caught:
        result = meta.user_agreement(pd.concat([scored, per_query[per_query["qid"] == "0003"]]), extra.iloc[1:],
                                     trials=10)
    assert len(caught) == 1
    assert len(result.units.ratings) == len(table) - 1
    assert "left out" in result.table().attrs["note"]


def test_constant_ratings_and_too_few_queries_are_refused(synthetic_study):
    _, table, per_query = synthetic_study
    with pytest.raises(DataError, match="every rating is 3: a correlation with a constant is undefined"):
        meta.user_agreement(per_query, table.assign(rating=3), trials=10)
    with pytest.raises(DataError, match="fewer than 10 is refused"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InputWarning)
            meta.user_agreement(per_query, table.iloc[:9], trials=10)


def test_a_constant_measure_is_undefined_and_said_so(synthetic_study):
    _, table, per_query = synthetic_study
    flat = per_query[per_query["measure"] == per_query["measure"].iloc[0]].assign(measure="flat", value=0.5)
    with pytest.warns(UndefinedStatisticWarning, match="undefined for flat"):
        result = meta.user_agreement(pd.concat([per_query, flat]), table, trials=20)
    assert np.isnan(result.estimates.loc["flat", ["pearson", "pearson_low", "kendall_high"]].astype(float)).all()


def test_read_ratings_from_a_file(tmp_path, synthetic_study):
    _, table, per_query = synthetic_study
    path = tmp_path / "ratings.csv"
    table.to_csv(path, index=False)
    from_file = meta.user_agreement(per_query, str(path), trials=30)
    from_frame = meta.user_agreement(per_query, table, trials=30)
    pd.testing.assert_frame_equal(from_file.table(), from_frame.table())
    with pytest.raises(InputError, match="ratings file not found"):
        meta.read_ratings(tmp_path / "none.csv")
    with pytest.raises(InputError, match="no column 'rating'"):
        meta.read_ratings(table.drop(columns="rating"))
    with pytest.raises(InputError, match="is rated twice"):
        meta.read_ratings(pd.concat([table, table.iloc[:1]]))


# -- sessions ------------------------------------------------------------------------------------

def session_reference(values, positions, how, bq=4.0):
    order = np.argsort(positions, kind="stable")
    v = [values[i] for i in order]
    if how == "mean":
        return sum(v) / len(v)
    if how == "sum":
        return sum(v)
    if how == "last":
        return v[-1]
    return sum(x / (1 + math.log(j, bq)) for j, x in enumerate(v, start=1))


@pytest.mark.parametrize("how", ratings.SESSION_SCORES)
def test_session_scores_against_a_loop(how):
    rng = np.random.default_rng(2)
    session = rng.choice(["s1", "s2", "s3"], 20)
    position = np.zeros(20)
    for s in np.unique(session):
        at = np.flatnonzero(session == s)
        position[at] = rng.permutation(len(at)) + 1
    values = rng.random((20, 2))
    ids, got = ratings.session_scores(values, session, position, how, bq=3.0)
    for k, s in enumerate(ids):
        at = np.flatnonzero(session == s)
        for m in range(2):
            assert got[k, m] == pytest.approx(session_reference(values[at, m], position[at], how, 3.0), rel=1e-13)


def test_sessions_as_units(synthetic_study):
    _, table, per_query = synthetic_study
    by_session = table.assign(session=table["qid"].str[:2] + "-" + table["task"],
                              position=table.groupby(["user", "task"]).cumcount() + 1)
    by_session["rating"] = by_session.groupby("session")["rating"].transform("max")
    result = meta.user_agreement(per_query, by_session, trials=40, session_score="sdcg")
    assert result.units.unit == "session" and len(result.units.ratings) == by_session["session"].nunique()
    m = result.measures[0]
    wide = per_query[per_query["measure"] == m].set_index("qid")["value"]
    first = by_session.sort_values("session").drop_duplicates("session")
    expected = [session_reference(wide[g["qid"]].to_numpy(), g["position"].to_numpy(), "sdcg")
                for _, g in by_session.groupby("session")]
    assert result.estimates.at[m, "pearson"] == pytest.approx(stats.pearsonr(expected, first["rating"])[0], abs=1e-12)
    unequal = by_session.copy()
    unequal.loc[unequal.index[0], "rating"] = unequal["rating"].iloc[0] - 1 if unequal["rating"].iloc[0] > 1 else 5
    with pytest.raises(DataError, match="a session is rated once"):
        meta.user_agreement(per_query, unequal, trials=10, session_score="mean")
    with pytest.raises(DataError, match="needs the queries' order"):
        meta.user_agreement(per_query, by_session.drop(columns="position"), trials=10, session_score="last")
    with pytest.raises(ParameterError, match="session_score"):
        meta.user_agreement(per_query, by_session, trials=10, session_score="median")
    with pytest.raises(ParameterError, match="bq"):
        meta.user_agreement(per_query, by_session, trials=10, session_score="sdcg", bq=1.0)


# -- preferences ---------------------------------------------------------------------------------

def test_pairs_derived_from_ratings_within_user_and_task(synthetic_study):
    _, table, _ = synthetic_study
    pairs = meta.derive_pairs(meta.read_ratings(table))
    expected = set()
    for (_, _), g in table.groupby(["user", "task"]):
        rows = list(g.itertuples())
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                if a.rating != b.rating:
                    expected.add((a.qid, b.qid, "a" if a.rating > b.rating else "b"))
    assert set(zip(pairs["qid_a"], pairs["qid_b"], pairs["preferred"])) == expected
    assert "user and task" in pairs.attrs["derived"]


@pytest.mark.parametrize("ties", ["half", "exclude", "disagree"])
def test_preference_agreement_against_a_loop(synthetic_study, ties):
    _, table, per_query = synthetic_study
    result = meta.preference_agreement(per_query, satisfaction=table, ties=ties, trials=100, seed=2)
    pairs = meta.derive_pairs(meta.read_ratings(table))
    for m in result.estimates.index[:8]:
        score = per_query[per_query["measure"] == m].set_index("qid")["value"]
        agree = []
        for a, b, pref in zip(pairs["qid_a"], pairs["qid_b"], pairs["preferred"]):
            d = (score[a] - score[b]) * (1 if pref == "a" else -1)
            if d == 0:
                if ties == "exclude":
                    continue
                agree.append(0.5 if ties == "half" else 0.0)
            else:
                agree.append(1.0 if d > 0 else 0.0)
        assert result.estimates.at[m, "agreement"] == pytest.approx(np.mean(agree), abs=1e-14)
        assert result.estimates.at[m, "pairs"] == len(agree)
    assert "derived from the ratings" in result.table().attrs["note"]


def test_explicit_side_by_side_pairs():
    rng = np.random.default_rng(9)
    frames = []
    for name in ("A", "B"):
        frames.append(pd.DataFrame({"name": name, "qid": [str(q) for q in range(30)], "measure": "m",
                                    "value": rng.random(30)}))
    per_query = pd.concat(frames, ignore_index=True)
    score = per_query.set_index(["name", "qid"])["value"]
    preferred = ["a" if score["A", str(q)] > score["B", str(q)] else "b" for q in range(30)]
    preferred[0] = "b" if preferred[0] == "a" else "a"                # one pair against the measure
    preferred[1] = ""                                                   # no preference
    pairs = pd.DataFrame({"qid_a": [str(q) for q in range(30)], "qid_b": [str(q) for q in range(30)],
                          "name_a": "A", "name_b": "B", "preferred": preferred})
    result = meta.preference_agreement(per_query, pairs, trials=50)
    assert result.estimates.at["m", "agreement"] == pytest.approx(28 / 29)
    assert "1 pairs without a preference" in result.table().attrs["note"]
    with pytest.raises(InputError, match="preferred 'maybe' is not 'a' or 'b'"):
        meta.preference_agreement(per_query, pairs.assign(preferred="maybe"), trials=5)
    with pytest.raises(ParameterError, match="one of the two"):
        meta.preference_agreement(per_query, trials=5)


# -- the user model fitted -----------------------------------------------------------------------

def test_the_fit_recovers_the_persistence_the_ratings_were_made_with():
    pages, table = study(n_users=30, queries=20, seed=1, p=0.3, noise=0.03)
    fit = meta.fit_user_model(pages, table, models=("RBP",), aggregations=("ERG",), points=20, trials=200, folds=5,
                              repeats=4, seed=0)
    row = fit.table().iloc[0]
    assert abs(row["fitted"] - 0.3) <= 0.1
    assert row["cv_low"] <= row["fitted"] <= row["cv_high"]
    assert len(fit.folds_table) == 5 * 4
    assert (fit.curves["RBP"]["low"] <= fit.curves["RBP"]["agreement"] + 1e-12).all()
    again = meta.fit_user_model(pages, table.sample(frac=1, random_state=0), models=("RBP",), aggregations=("ERG",),
                                points=20, trials=200, folds=5, repeats=4, seed=0)
    pd.testing.assert_frame_equal(fit.table(), again.table())


def test_the_fit_sweeps_each_model_s_parameter(synthetic_study):
    pages, table, _ = synthetic_study
    fit = meta.fit_user_model(pages, table, points=6, trials=30, folds=3, repeats=2)
    assert set(fit.curves) == {"RBP", "INST", "DCG"}
    dcg = fit.curves["DCG"]
    assert dcg["value"].max() == 10                      # a cut-off never beyond the pages' ten ranks
    assert "ERR" not in set(fit.curves["RBP"]["aggregation"])      # constant under RBP's browsing model
    assert set(fit.table()["parameter"]) == {"p", "T", "cutoff"}
    with pytest.raises(ParameterError, match="folds"):
        meta.fit_user_model(pages, table, folds=1)
    with pytest.raises(ParameterError, match="models"):
        meta.fit_user_model(pages, table, models=("XYZ",))


# -- the criteria --------------------------------------------------------------------------------

def test_the_criteria_run_from_inputs(synthetic_study):
    pages, table, per_query = synthetic_study
    inputs = criteria.Inputs(per_query, groups=meta.browsing_model, satisfaction=table, gains=pages)
    chosen = criteria.resolve(None, inputs)
    assert {"user_agreement", "preference_agreement", "user_model_fit"} <= set(chosen)
    done = criteria.run(["user_agreement", "preference_agreement", "user_model_fit"], inputs,
                        {"user_trials": 30, "fit_points": 4, "fit_repeats": 1})
    assert set(done.summaries) == {"user_agreement", "preference_agreement", "user_model_fit"}
    for name, result in done.results.items():
        for block in criteria.CRITERIA[name].section(result, done.summaries[name]):
            assert isinstance(block, (criteria.Text, criteria.Figure, criteria.Table))
    without = criteria.Inputs(per_query)
    assert not {"user_agreement", "preference_agreement", "user_model_fit"} & set(criteria.resolve(None, without))
    with pytest.raises(ParameterError, match="needs satisfaction"):
        criteria.resolve(["user_agreement"], without)
    with pytest.raises(ParameterError, match="preferences or satisfaction"):
        criteria.resolve(["preference_agreement"], without)


# -- the real data -------------------------------------------------------------------------------

def test_image_search_agreement_and_williams_against_the_bootstrap(image_search):
    pages, table = image_search
    assert len(table) == 1119 and table["user"].nunique() == 36 and pages.groupby("qid").size().eq(10).all()
    per_query = ir_cwla.score_gains(pages, ir_cwla.table1())
    result = meta.user_agreement(per_query, table, trials=2000, seed=0, groups=meta.browsing_model)
    est = result.estimates
    wide = per_query.pivot(index="qid", columns="measure", values="value").loc[table["qid"]]
    m = "CWLA(C='RBP',A='ERG')@10"
    assert est.at[m, "pearson"] == pytest.approx(stats.pearsonr(wide[m], table["rating"])[0], abs=1e-14)
    assert 0.2 < est.at[m, "pearson"] < 0.35
    # the bootstrap's p-values and Williams' agree on the real data: where either is small the other is,
    # and the differences they test have the same sign as the replicates' median
    pairs = result.comparisons.dropna(subset=["p_williams"])
    assert stats.spearmanr(pairs["p_bootstrap"], pairs["p_williams"])[0] > 0.8
    small = pairs[pairs["p_williams"] < 0.001]
    assert len(small) and (small["p_bootstrap"] <= 0.01).mean() > 0.9
    large = pairs[pairs["p_williams"] > 0.2]
    assert len(large) and (large["p_bootstrap"] > 0.05).mean() > 0.9


def test_the_query_bootstrap_agrees_with_scipy_s_within_monte_carlo_error(image_search):
    pages, table = image_search
    m = "CWLA(C='RBP',A='ERG')@10"
    per_query = ir_cwla.score_gains(pages, [m])
    ours = meta.user_agreement(per_query, table, trials=4000, seed=0, clusters="units").estimates.loc[m]
    x = per_query.set_index("qid").loc[table["qid"], "value"].to_numpy()
    y = table["rating"].to_numpy(dtype=float)
    theirs = stats.bootstrap((x, y), lambda a, b, axis=-1: stats.pearsonr(a, b, axis=axis)[0], paired=True,
                             vectorized=True, n_resamples=4000, method="percentile", random_state=1).confidence_interval
    # two independent 4000-replicate estimates of the same quantiles: their Monte-Carlo error is about 0.004
    assert ours["pearson_low"] == pytest.approx(theirs.low, abs=0.012)
    assert ours["pearson_high"] == pytest.approx(theirs.high, abs=0.012)
