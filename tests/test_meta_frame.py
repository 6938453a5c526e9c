"""The per-query frame: evaluate() matches pt.Experiment, and bad frames fail clearly."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from ir_measures import AP, RR, P, nDCG

from ir_cwla import CWLA, meta


def toy_frame(n_systems=4, n_topics=6, measures=("P@10", "AP"), seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(f"s{s}", f"q{t}", m, float(rng.random()))
            for s in range(n_systems) for t in range(n_topics) for m in measures]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def toy_runs_and_qrels():
    rng = np.random.default_rng(4)
    docs = [f"d{i}" for i in range(30)]
    qrels = pd.DataFrame([(f"q{t}", d, int(rng.integers(0, 3))) for t in range(5) for d in docs[:15]],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for s in range(3):
        rows = [(f"q{t}", d, float(rng.random())) for t in range(5) for d in rng.choice(docs, 12, replace=False)]
        runs[f"sys{s}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return runs, qrels


def test_evaluate_matches_pyterrier_experiment():
    pt = pytest.importorskip("pyterrier")
    runs, qrels = toy_runs_and_qrels()
    measures = [P @ 10, nDCG @ 10, AP, CWLA(C="RBP", A="max") @ 10]
    ours = meta.evaluate(runs, qrels, measures, progress=False)
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": "x"})
    systems = [pt.Transformer.from_df(r.rename(columns={"query_id": "qid", "doc_id": "docno"}))
               for r in runs.values()]
    theirs = pt.Experiment(systems, topics, pt_qrels, measures, names=list(runs), perquery=True)
    assert list(ours.columns) == list(theirs.columns) == ["name", "qid", "measure", "value"]
    assert list(ours.dtypes) == list(theirs.dtypes)
    key = ["name", "qid", "measure"]
    merged = ours.merge(theirs, on=key, suffixes=("", "_pt"), how="outer", validate="one_to_one")
    assert len(merged) == len(ours) == len(theirs) == 3 * 5 * 4
    np.testing.assert_allclose(merged["value"], merged["value_pt"], rtol=0, atol=1e-12)
    assert set(ours["measure"]) == {str(m) for m in measures}


def test_evaluate_keeps_measure_strings_and_reads_files(tmp_path):
    runs, qrels = toy_runs_and_qrels()
    qrels_path = tmp_path / "qrels.txt"
    with open(qrels_path, "w") as f:
        for r in qrels.itertuples():
            f.write(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n")
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, run in runs.items():
        with open(folder / f"input.{name}.txt", "w") as f:
            for i, r in enumerate(run.itertuples()):
                f.write(f"{r.query_id} Q0 {r.doc_id} {i} {r.score} {name}\n")
    from_files = meta.evaluate(folder, qrels_path, ["RR@10", "P@5"], progress=False)
    from_frames = meta.evaluate(runs, qrels, [RR @ 10, P @ 5], progress=False)
    assert sorted(from_files["name"].unique()) == ["sys0", "sys1", "sys2"]
    assert list(from_files["measure"].unique()) == ["RR@10", "P@5"]
    pd.testing.assert_frame_equal(from_files, from_frames)


def test_run_names():
    assert meta.run_name("runs/input.TUA1-1.gz") == "TUA1-1"
    assert meta.run_name("bm25.run") == "bm25"
    with pytest.raises(ValueError, match="same|system name"):
        meta.evaluate(["a/input.x.gz", "b/input.x.gz"], pd.DataFrame(), [AP], progress=False)


def test_cube_is_independent_of_row_order():
    df = toy_frame()
    cube = meta.to_cube(df)
    shuffled = meta.to_cube(df.sample(frac=1.0, random_state=1))
    # systems sorted, measures in the canonical order (ir-measures measures by name)
    assert cube.systems == ("s0", "s1", "s2", "s3") and cube.measures == ("AP", "P@10")
    np.testing.assert_array_equal(cube.values, shuffled.select(cube.measures).values)
    assert cube.matrix("AP")[2, 1] == df.query("name == 's1' and qid == 'q2' and measure == 'AP'")["value"].item()


def test_nan_values_are_an_error():
    df = toy_frame()
    df.loc[5, "value"] = np.nan
    with pytest.raises(ValueError, match="NaN.*s0, q2, AP"):
        meta.similarity(df)


def test_different_topic_sets_are_named_and_intersection_is_offered():
    df = toy_frame()
    df = df[~((df["name"] == "s2") & df["qid"].isin(["q1", "q4"]))]
    with pytest.raises(ValueError, match=r"s2 lacks q1, q4.*topics='intersection'"):
        meta.discriminative_power(df, trials=10)
    cube = meta.to_cube(df, topics="intersection")
    assert cube.topics == ("q0", "q2", "q3", "q5")
    disc = meta.discriminative_power(df, trials=50, topics="intersection", progress=False)
    assert disc.n_topics == 4


def test_duplicates_and_missing_columns_and_missing_measures():
    df = toy_frame()
    with pytest.raises(ValueError, match="duplicated"):
        meta.to_cube(pd.concat([df, df.iloc[:1]]))
    with pytest.raises(ValueError, match="lacks columns"):
        meta.to_cube(df.rename(columns={"qid": "query"}))
    with pytest.raises(ValueError, match="no scores for measure 'AP'"):
        meta.to_cube(df[~((df["name"] == "s1") & (df["measure"] == "AP"))])


@pytest.mark.parametrize("column", ["name", "qid", "measure"])
def test_a_missing_name_topic_or_measure_is_an_error_naming_the_row(column):
    df = toy_frame()
    df.loc[7, column] = None
    with pytest.raises(ValueError, match=f"1 rows without a '{column}', e.g. row 7"):
        meta.to_cube(df)


def test_labels_are_compared_as_strings():
    """Topic labels are compared as strings.

    Integer and string qids that print alike are one topic, as before (the column is factorised
    first and its distinct values turned into str).
    """
    df = toy_frame(n_topics=3)
    mixed = df.assign(qid=[int(q[1:]) if i % 2 else q[1:] for i, q in enumerate(df["qid"])])
    cube = meta.to_cube(mixed)
    assert cube.topics == ("0", "1", "2")
    np.testing.assert_array_equal(cube.values, meta.to_cube(df.assign(qid=df["qid"].str[1:])).values)


@pytest.mark.parametrize("kwargs, message", [
    ({"n_systems": 1}, "at least 2 systems"),
    ({"n_topics": 1}, "at least 2 topics"),
])
def test_too_few_systems_or_topics(kwargs, message):
    df = toy_frame(**kwargs)
    for analysis in (meta.similarity, meta.consistency, meta.discriminative_power):
        with pytest.raises(ValueError, match=message):
            analysis(df)


def test_one_measure_is_too_few_for_similarity_and_consistency():
    df = toy_frame(measures=("AP",))
    with pytest.raises(ValueError, match="at least 2 measures"):
        meta.similarity(df)
    with pytest.raises(ValueError, match="at least 2 measures"):
        meta.consistency(df, trials=10)
    assert meta.discriminative_power(df, trials=10, progress=False).table()["pairs"].item() == 6


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, True])
def test_alpha_outside_unit_interval(alpha):
    df = toy_frame()
    with pytest.raises(ValueError, match="alpha"):
        meta.discriminative_power(df, trials=10, alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        meta.consistency(df, trials=10, alpha=alpha)


def test_trials_below_one():
    df = toy_frame()
    with pytest.raises(ValueError, match="trials must be >= 1"):
        meta.discriminative_power(df, trials=0)
    with pytest.raises(ValueError, match="trials must be >= 1"):
        meta.consistency(df, trials=0)
    with pytest.raises(ValueError, match="test_trials must be >= 1"):
        meta.consistency(df, trials=5, test_trials=0)


def test_summary_rows_are_never_read_as_a_topic():
    """The per-query output of ``ir-cwla eval -q`` ends each run with qid 'all' rows (the mean)."""
    frame = toy_frame()
    means = frame.groupby(["name", "measure"], as_index=False)["value"].mean().assign(qid="all")
    with_summary = pd.concat([frame, means], ignore_index=True).sample(frac=1, random_state=2)
    cube = meta.to_cube(with_summary)
    assert "all" not in cube.topics and cube.values.shape == (2, 6, 4)
    np.testing.assert_array_equal(cube.values, meta.to_cube(frame).values)
    with pytest.raises(ValueError, match=r"holds only summary rows \(qid 'all'\).*ir-cwla eval -q"):
        meta.to_cube(means)


def test_measure_names_unknown_to_groups_are_an_error_not_an_empty_table():
    frame = toy_frame(n_systems=5, measures=("RBP_maxx@10", "RBP_ERG@10"))
    with pytest.raises(ValueError, match=r"groups=meta.browsing_model: 'RBP_maxx@10' is not a measure name"):
        meta.similarity(frame, groups=meta.browsing_model)
    # every name ir-cwla prints is known: short names and str(measure) form the same families
    frame = toy_frame(n_systems=5, measures=("RBP_max@10", str(CWLA(C="RBP", A="ERG") @ 10), "INST_PE(beta=0.3)@10",
                                "CWLA(C='INST', A='ERG')@10"))
    sim = meta.similarity(frame, groups=meta.browsing_model)
    assert sorted(sim.groups) == ["INST@10", "RBP@10"] and len(sim.table()) == 2
