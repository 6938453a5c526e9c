"""Many judges at once (issue 32, item 1 and its bad input): the LLMJudge challenge's 33 label sets.

- kappa (unweighted, linear, quadratic) against scikit-learn and ordinal/interval alpha against the
  ``krippendorff`` package, overall and per topic, for every one of the 33 judges;
- exact agreement against the README's range (36.5-54.0%);
- the judges' ranking: its joint bootstrap against the documented recipe re-implemented here, the
  rank intervals and the ties with the best recomputed from the replicates by hand;
- id maps: the q*/p* ids mapped back give exactly NIST's DL23 qrels on those pairs (the README);
- bad input: a grade outside the reference's scale names file, line, topic and doc (two of the 33
  files have one), is mapped only when asked; a narrower scale is said; ids of another scheme give
  an error that shows both; an id map that lacks an id names it.
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

from ir_cwla import io, meta
from ir_cwla.analysis import streams
from ir_cwla.errors import DataError, InputError, InputWarning, ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import criteria, judges, labels
from tests.reference import read_qrels

WEIGHTS = {"kappa": None, "kappa_linear": "linear", "kappa_quadratic": "quadratic"}
#: The grades outside NIST's 0-3 in two of the 33 files, mapped to 3 where the tests compare them all.
GRADE_MAP = {5: 3, 10: 3}


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        warnings.simplefilter("ignore", InputWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def llmjudge(llm_dir) -> Path:
    return llm_dir / "llmjudge-dl23"


@pytest.fixture(scope="module")
def agreement(llmjudge) -> labels.LabelAgreement:
    return quiet(meta.label_agreement, llmjudge / "human.txt", meta.read_judges(llmjudge / "labels"), trials=300,
                 seed=0, reference_name="NIST", grade_map=GRADE_MAP)


def test_the_33_judges_against_scikit_learn_and_krippendorff(llmjudge, agreement):
    nist = read_qrels(llmjudge / "human.txt")
    stats = agreement.statistics.set_index(["alternative", "query_id", "statistic"])["value"]
    assert len(agreement.alternatives) == 33
    checked = 0
    for path in sorted((llmjudge / "labels").iterdir()):
        name = path.name[:-4]
        other = read_qrels(path)
        pairs = {q: [(nist[q][d], min(other[q][d], 3)) for d in sorted(nist[q])] for q in sorted(nist)}
        everything = [p for ps in pairs.values() for p in ps]
        y1, y2 = zip(*everything)
        assert stats[(name, "all", "exact")] == pytest.approx(np.mean(np.array(y1) == np.array(y2)), abs=1e-12)
        for stat, weights in WEIGHTS.items():
            assert stats[(name, "all", stat)] == pytest.approx(cohen_kappa_score(y1, y2, weights=weights), abs=1e-12)
        for metric in ("ordinal", "interval"):
            expected = krippendorff.alpha(np.array([y1, y2], dtype=float), level_of_measurement=metric)
            assert stats[(name, "all", f"alpha_{metric}")] == pytest.approx(expected, abs=1e-9)
        categories = sorted({g for p in everything for g in p})
        for q, ps in itertools.islice(pairs.items(), 0, None, 6):             # every sixth topic
            a, b = zip(*ps)
            if len(set(a) | set(b)) < 2:
                continue
            expected = cohen_kappa_score(a, b, labels=categories, weights="quadratic")
            assert stats[(name, q, "kappa_quadratic")] == pytest.approx(expected, abs=1e-12)
            checked += 1
    assert checked > 100
    exact = agreement.table()["exact"]
    assert exact.min() == pytest.approx(0.365, abs=5e-4) and exact.max() == pytest.approx(0.540, abs=5e-4)


def test_ranking_replicates_follow_the_documented_recipe(agreement):
    ranking = judges.judge_ranking(agreement, "kappa_quadratic")
    names = list(ranking.ranking["alternative"])
    # the recipe, by hand: topic draws of part 0 over the sorted union of topics, summed confusions
    union = sorted({t for a in agreement.alternatives for t in agreement.topics[a]})
    assert len(union) == 25
    rng = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(streams.LABEL_AGREEMENT_STREAM, 0, 0)))
    draws = rng.integers(0, len(union), size=(streams.CHUNK, len(union)))
    for j in (0, 7, 32):
        name = names[j]
        conf = agreement.confusions[name]
        for b in (0, 1, 199):
            summed = sum(conf[agreement.topics[name].index(union[t])] for t in draws[b])
            a = np.repeat(np.arange(len(summed)), summed.sum(axis=1))
            pairs = [(i, k) for i in range(len(summed)) for k in range(len(summed)) for _ in range(summed[i, k])]
            a, c = zip(*pairs)
            expected = cohen_kappa_score(a, c, labels=list(range(len(summed))), weights="quadratic")
            assert ranking.replicates[b, j] == pytest.approx(expected, abs=1e-12)
    # ranks and intervals from the replicates, by hand
    reps = ranking.replicates
    ranks = np.array([[1 + sum(r[k] > r[i] for k in range(len(r))) for i in range(len(r))] for r in reps])
    for j in (0, 10, 32):
        ordered = np.sort(ranks[:, j])
        assert ranking.ranking.at[j, "rank_low"] == ordered[int(np.ceil(0.025 * len(ordered))) - 1]
        assert ranking.ranking.at[j, "rank_high"] == ordered[int(np.ceil(0.975 * len(ordered))) - 1]
    observed = ranking.ranking["kappa_quadratic"].to_numpy()
    assert (np.diff(observed) <= 0).all() and ranking.ranking.at[0, "tied_best"]
    p = meta.assessors.simultaneous_p_values(reps, observed)
    np.testing.assert_array_equal(ranking.ranking["tied_best"].to_numpy()[1:], p[0, 1:] >= 0.05)
    assert not ranking.ranking["tied_best"].all()            # the last judges differ from the best


def test_ranking_figure_and_the_criterion(agreement, llmjudge, tmp_path):
    fig = judges.judge_ranking(agreement).plot()
    fig.savefig(tmp_path / "judges.png", dpi=60)
    assert (tmp_path / "judges.png").stat().st_size > 10_000
    nist = io.read_trec_qrels(llmjudge / "human.txt")
    inputs = criteria.Inputs(pd.DataFrame(columns=["name", "qid", "measure", "value"]), qrels=nist,
                             alternatives=meta.read_judges(llmjudge / "labels"), seed=0)
    done = quiet(criteria.run, ["label_agreement"], inputs, {"label_trials": 300, "grade_map": "5=3,10=3"})
    pd.testing.assert_frame_equal(done.summaries["label_agreement"].drop(columns=[]),
                                  judges.judge_ranking(agreement).table())


def test_id_maps_give_nist_dl23_qrels_on_those_pairs(llm_dir):
    folder = llm_dir / "llmjudge-dl23"
    topics = meta.read_id_map(folder / "qid_to_qidx.txt")
    docs = meta.read_id_map(folder / "docid_to_docidx.txt")
    assert len(topics) == 50 and topics["q0"] == "2040064"
    mapped = meta.map_ids(folder / "human.txt", topics, docs)
    nist = read_qrels(llm_dir / "dl23" / "qrels.nist.txt")
    assert len(mapped) == 4423
    for q, d, g in mapped[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        assert nist[q][d] == g
    judged = meta.read_judges([folder / "labels" / "Olz-gpt4o.txt"], topics, docs)
    assert set(judged) == {"Olz-gpt4o"} and set(judged["Olz-gpt4o"]["query_id"]) <= set(nist)


def test_ids_of_another_scheme_are_a_clear_error(llm_dir):
    folder = llm_dir / "llmjudge-dl23"
    with pytest.raises(DataError, match=r"no topic id in common: NIST's look like '2001010'.*'q0'.*id map"):
        quiet(meta.label_agreement, llm_dir / "dl23" / "qrels.nist.txt", {"Olz-gpt4o": folder / "labels" / "Olz-gpt4o.txt"},
              trials=10, reference_name="NIST")
    short = {k: v for k, v in meta.read_id_map(folder / "qid_to_qidx.txt").items() if k != "q49"}
    with pytest.raises(InputError, match=r"human.txt: 1 topic id\(s\) are not in the topic id map, e.g. 'q49'"):
        meta.map_ids(folder / "human.txt", short)


def test_grades_outside_the_scale_name_file_line_and_pair(llmjudge):
    path = llmjudge / "labels" / "RMITIR-llama70B.txt"
    with pytest.raises(DataError, match=r"RMITIR-llama70B.txt, line 2449: grade 5 of topic q0 doc p3021 is outside "
                                        r"NIST's scale 0-3 \(2 judgment\(s\).*grade_map=\{5: 3\}"):
        quiet(meta.label_agreement, llmjudge / "human.txt", {"RMITIR-llama70B": path}, trials=10,
              reference_name="NIST")
    with pytest.raises(DataError, match=r"h2oloo-zeroshot2.txt, line 3187: grade 10 of topic q2 doc p8028"):
        quiet(meta.label_agreement, llmjudge / "human.txt", meta.read_judges(llmjudge / "labels"), trials=10,
              reference_name="NIST", grade_map={5: 3})
    mapped = quiet(meta.label_agreement, llmjudge / "human.txt", {"RMITIR-llama70B": path}, trials=10,
                   grade_map={"RMITIR-llama70B": {5: 3}})
    assert mapped.categories["RMITIR-llama70B"] == (0, 1, 2, 3)
    with pytest.raises(DataError, match="names alternatives"):
        meta.label_agreement(llmjudge / "human.txt", {"a": path}, trials=10, grade_map={"b": {5: 3}})
    with pytest.warns(InputWarning, match=r"1 alternative\(s\) never give the top grade of .*0-3.*instruct0 \(0-2\)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            meta.label_agreement(llmjudge / "human.txt",
                                 {"instruct0": llmjudge / "labels" / "NISTRetrieval-instruct0.txt"}, trials=10)


def test_grade_map_on_the_command_line_and_its_checks():
    from ir_cwla.meta.grades import check_grade_map, parse_grade_map

    assert parse_grade_map("5=3, 10=3") == {5: 3, 10: 3} and parse_grade_map("") is None
    with pytest.raises(ParameterError, match="GRADE=GRADE"):
        parse_grade_map("5:3")
    assert check_grade_map("5=3") == {5: 3}
    with pytest.raises(ParameterError):
        check_grade_map(5)


def test_id_map_and_judge_files_bad_input(tmp_path):
    bad = tmp_path / "map.txt"
    bad.write_text("1 q0\n2 q0\n")
    with pytest.raises(InputError, match=r"map.txt, line 2: 'q0' maps to '1' and to '2'"):
        meta.read_id_map(bad)
    bad.write_text("1 q0 x\n")
    with pytest.raises(InputError, match="line 1: expected 2 fields"):
        meta.read_id_map(bad)
    bad.write_text("1 q0\n1 q1\n")
    with pytest.raises(InputError, match="'1' has two short ids"):
        meta.read_id_map(bad)
    (tmp_path / "j").mkdir()
    with pytest.raises(InputError, match="no label file"):
        meta.read_judges(tmp_path / "j")
    (tmp_path / "j" / "a.txt").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "j" / "a.qrels").write_text("q1 0 d1 1\n")
    with pytest.raises(InputError, match="two files name the judge 'a'"):
        meta.read_judges(tmp_path / "j")


def test_judge_ranking_refuses_what_it_cannot_rank(agreement):
    with pytest.raises(ParameterError, match="statistic must be one of"):
        judges.judge_ranking(agreement, "tau")
    with pytest.raises(ParameterError, match="a label agreement has none"):
        judges.judge_ranking(agreement, measure="AP")
    with pytest.raises(ParameterError, match="LabelAgreement or an AssessorVariation"):
        judges.judge_ranking(pd.DataFrame())
