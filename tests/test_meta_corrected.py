"""Corrected scores (issue 32, item 5): prediction-powered inference of systems' scores.

- the estimator and its interval against a slow reference written here from Angelopoulos et al.
  (2023) (plain Python over the topics, ``statistics``' population variances), on DL19 with NIST's
  labels on some topics and the re-annotation's (assessor a) as the cheap labels on all;
- the validation (hidden human labels, coverage over repetitions) against its recipe redone here;
- pairs as units: DL23's NIST and GPT-4 grades of the same 22,327 pairs, the share of relevant
  pairs estimated from a few NIST grades, against the same slow reference;
- bad input refused.
"""
from __future__ import annotations

import math
import statistics
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ir_cwla import io, meta
from ir_cwla.analysis import streams
from ir_cwla.errors import DataError, ParameterError

Z = statistics.NormalDist().inv_cdf(0.975)


def slow_ppi(y_labelled: list[float], f_labelled: list[float], f_unlabelled: list[float]) -> tuple[float, float, float]:
    """PPI for a mean (Angelopoulos et al. 2023): estimate and 95% interval, by the formulas, slowly."""
    rectifier = [y - f for y, f in zip(y_labelled, f_labelled)]
    estimate = sum(f_unlabelled) / len(f_unlabelled) + sum(rectifier) / len(rectifier)
    se = math.sqrt(statistics.pvariance(f_unlabelled) / len(f_unlabelled)
                   + statistics.pvariance(rectifier) / len(rectifier))
    return estimate, estimate - Z * se, estimate + Z * se


@pytest.fixture(scope="module")
def dl19(dl19_files):
    folder = Path(dl19_files.qrels).parent / "reannotation"
    a = io.as_qrels_frame(pd.concat([io.read_trec_qrels(folder / f"group{g}-assessor-a.txt") for g in range(1, 5)],
                                    ignore_index=True), "a")
    measures = ["nDCG@10", "P_ERG@10", "AP"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nist = meta.evaluate(dl19_files.runs, dl19_files.qrels, measures, progress=False)
        cheap = meta.evaluate(dl19_files.runs, a, measures, progress=False)
    return nist, cheap


def by_system(frame: pd.DataFrame, measure: str) -> dict[str, dict[str, float]]:
    part = frame[frame["measure"] == measure]
    return {s: dict(zip(g["qid"], g["value"])) for s, g in part.groupby("name")}


def test_corrected_scores_against_the_slow_reference(dl19):
    nist, cheap = dl19
    topics = sorted(nist["qid"].unique())
    labelled = topics[::4]                                  # 11 of the 43 topics keep NIST's labels
    result = meta.corrected_scores(nist, cheap, labelled=labelled)
    assert result.labelled == labelled and len(result.unlabelled) == 43 - 11
    table = result.scores
    for measure in ("nDCG@10", "AP"):
        human, low_cost = by_system(nist, measure), by_system(cheap, measure)
        rows = table[table["measure"] == measure].set_index("system")
        for system in list(human)[::5]:
            y = [human[system][t] for t in labelled]
            f_l = [low_cost[system][t] for t in labelled]
            f_u = [low_cost[system][t] for t in topics if t not in labelled]
            estimate, low, high = slow_ppi(y, f_l, f_u)
            assert rows.at[system, "corrected"] == pytest.approx(estimate, abs=1e-12)
            assert rows.at[system, "low"] == pytest.approx(low, abs=1e-12)
            assert rows.at[system, "high"] == pytest.approx(high, abs=1e-12)
            mean, sd = statistics.fmean(y), statistics.pstdev(y)
            assert rows.at[system, "classical_low"] == pytest.approx(mean - Z * sd / math.sqrt(len(y)), abs=1e-12)
            assert rows.at[system, "human"] == pytest.approx(mean, abs=1e-12)
            assert rows.at[system, "cheap"] == pytest.approx(statistics.fmean(low_cost[system].values()), abs=1e-12)
    ranking = result.ranking("nDCG@10")
    assert ranking["corrected"].is_monotonic_decreasing
    by_label = meta.corrected_scores(nist[nist["qid"].isin(labelled)], cheap, measures=["P_ERG@10"])
    assert by_label.measures == [m for m in result.measures if meta.label(m) == "P_ERG@10"]


def test_validation_follows_its_recipe(dl19):
    nist, cheap = dl19
    result = meta.validate_corrected(nist, cheap, shares=[0.8], repetitions=40, measures=["nDCG@10"], seed=3)
    row = result.table().iloc[0]
    assert row["labelled"] == round(0.2 * 43) == 9 and row["unlabelled"] == 34
    topics = sorted(nist["qid"].unique())
    human, low_cost = by_system(nist, "nDCG@10"), by_system(cheap, "nDCG@10")
    truth = {s: statistics.fmean(v.values()) for s, v in human.items()}
    rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(streams.CORRECTED_STREAM, 0, 0)))
    order = rng.permuted(np.broadcast_to(np.arange(43), (40, 43)), axis=1)
    covered = []
    for r in range(40):
        lab = [topics[i] for i in order[r, :9]]
        unl = [topics[i] for i in order[r, 9:]]
        for s in sorted(human):
            _, low, high = slow_ppi([human[s][t] for t in lab], [low_cost[s][t] for t in lab],
                                    [low_cost[s][t] for t in unl])
            covered.append(low <= truth[s] <= high)
    assert row["coverage_ppi"] == pytest.approx(np.mean(covered), abs=1e-12)
    assert result.cells[0.8]["covered_ppi"].shape == (40, 1, 37)
    assert 0.0 < row["coverage_classical"] <= 1.0 and row["width_ppi"] > 0


def test_label_units_on_dl23_pairs(llm_dir):
    folder = llm_dir / "dl23"
    human, cheap = meta.label_units(folder / "qrels.nist.txt", folder / "qrels.gpt4.txt", thresholds=(2,))
    assert sorted(human["name"].unique()) == ["grade>=2", "mean grade"] and human["qid"].nunique() == 22327
    nist = io.read_trec_qrels(folder / "qrels.nist.txt")
    assert human[human["name"] == "grade>=2"]["value"].mean() == pytest.approx((nist["relevance"] >= 2).mean())
    units = sorted(human["qid"].unique())
    labelled = units[::50]                                   # 447 of the pairs keep NIST's grade
    result = meta.corrected_scores(human[human["qid"].isin(labelled)], cheap)
    row = result.scores.set_index("system").loc["grade>=2"]
    h = dict(zip(human[human["name"] == "grade>=2"]["qid"], human[human["name"] == "grade>=2"]["value"]))
    c = dict(zip(cheap[cheap["name"] == "grade>=2"]["qid"], cheap[cheap["name"] == "grade>=2"]["value"]))
    labelled_set = set(labelled)
    estimate, low, high = slow_ppi([h[u] for u in labelled], [c[u] for u in labelled],
                                   [c[u] for u in units if u not in labelled_set])
    assert row["corrected"] == pytest.approx(estimate, abs=1e-12) and row["low"] == pytest.approx(low, abs=1e-12)
    truth = (nist["relevance"] >= 2).mean()
    assert row["cheap"] > truth + 0.03                       # GPT-4 grades more pairs relevant than NIST
    assert row["low"] <= truth <= row["high"]
    validation = meta.validate_corrected(human, cheap, shares=[0.98], repetitions=30, seed=0)
    assert validation.table()["coverage_ppi"].min() >= 0.8


def test_bad_input(dl19):
    nist, cheap = dl19
    topics = sorted(nist["qid"].unique())
    with pytest.raises(DataError, match="need at least 2 topics"):
        meta.corrected_scores(nist[nist["qid"] == topics[0]], cheap)
    with pytest.raises(DataError, match="every topic of the cheap scores is labelled"):
        meta.corrected_scores(nist, cheap)
    with pytest.raises(DataError, match="without cheap scores"):
        meta.corrected_scores(nist, cheap[cheap["qid"] != topics[0]], labelled=topics[:3])
    with pytest.raises(DataError, match="different systems"):
        meta.corrected_scores(nist[nist["qid"].isin(topics[:5])], cheap[cheap["name"] != cheap["name"].iloc[0]])
    with pytest.raises(DataError, match="have no"):
        meta.corrected_scores(nist, cheap, measures=["RR@10"])
    with pytest.raises(ParameterError, match="shares must lie in"):
        meta.validate_corrected(nist, cheap, shares=[1.0])
    with pytest.raises(DataError, match="both labels on every topic"):
        meta.validate_corrected(nist, cheap[cheap["qid"] != topics[0]])
    with pytest.raises(DataError, match="judged by one qrels only"):
        meta.label_units({"q": {"d1": 1, "d2": 0}}, {"q": {"d1": 1}})


def slow_ppi_plus_plus(y_labelled: list[float], f_labelled: list[float], f_unlabelled: list[float]):
    """PPI++ for a mean (Angelopoulos, Duchi & Zrnic 2023): the tuned lambda, estimate and 95% interval, slowly."""
    n, big_n = len(y_labelled), len(f_unlabelled)
    my, mf = statistics.fmean(y_labelled), statistics.fmean(f_labelled)
    cov = sum((y - my) * (f - mf) for y, f in zip(y_labelled, f_labelled)) / n
    lam = min(1.0, max(0.0, cov / ((1 + n / big_n) * statistics.variance(f_labelled + f_unlabelled))))
    rectifier = [y - lam * f for y, f in zip(y_labelled, f_labelled)]
    imputed = [lam * f for f in f_unlabelled]
    estimate = statistics.fmean(imputed) + statistics.fmean(rectifier)
    se = math.sqrt(statistics.pvariance(imputed) / big_n + statistics.pvariance(rectifier) / n)
    return lam, estimate, estimate - Z * se, estimate + Z * se


def test_power_tuning_against_the_slow_reference(dl19):
    nist, cheap = dl19
    topics = sorted(nist["qid"].unique())
    labelled = topics[1::3]
    result = meta.corrected_scores(nist, cheap, labelled=labelled, power_tuning=True)
    plain = meta.corrected_scores(nist, cheap, labelled=labelled)
    assert (plain.scores["lambda"] == 1.0).all()
    human, low_cost = by_system(nist, "AP"), by_system(cheap, "AP")
    rows = result.scores[result.scores["measure"] == "AP"].set_index("system")
    for system in list(human)[::4]:
        lam, estimate, low, high = slow_ppi_plus_plus([human[system][t] for t in labelled],
                                                      [low_cost[system][t] for t in labelled],
                                                      [low_cost[system][t] for t in topics if t not in labelled])
        assert rows.at[system, "lambda"] == pytest.approx(lam, abs=1e-12)
        assert rows.at[system, "corrected"] == pytest.approx(estimate, abs=1e-12)
        assert (rows.at[system, "low"], rows.at[system, "high"]) == (pytest.approx(low, abs=1e-12),
                                                                     pytest.approx(high, abs=1e-12))
    assert 0 <= result.scores["lambda"].min() and result.scores["lambda"].max() <= 1
    tuned = meta.validate_corrected(nist, cheap, shares=[0.9], repetitions=30, measures=["AP"], seed=1,
                                    power_tuning=True)
    untuned = meta.validate_corrected(nist, cheap, shares=[0.9], repetitions=30, measures=["AP"], seed=1)
    assert tuned.table().at[0, "width_ppi"] != untuned.table().at[0, "width_ppi"]
