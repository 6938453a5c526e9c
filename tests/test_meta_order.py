"""Order independence (issue 14, item 5).

Any permutation of the rows of the per-query frame, and any order in which systems, topics,
measures, families or runs are given, leaves every result of similarity, consistency,
discriminative power and sweep bit-identical. Random numbers are drawn only after the cube has
put systems and topics in sorted and measures in the canonical order.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ir_cwla import CWLA, meta
from ir_cwla.analysis import streams
from ir_cwla.meta.consistency import family_tests

from .test_meta_sweep import toy

#: CWLA measures of several families, ir-measures measures, and names that are no measure.
NAMES = ["CWLA(C='RBP',A='max')@10", "CWLA(C='RBP',A='ERG')@10", "CWLA(C='P',A='ERG')@10",
         "CWLA(C='INST',A='PE',T=3.0)@10", "CWLA(C='INST',A='ERG',T=3.0)@10", "nDCG@10", "AP", "P@5",
         "my-score", "another-score"]


def frame(n_systems: int, n_topics: int, names: list[str], seed: int) -> pd.DataFrame:
    """Scores on a coarse grid (many ties between topics and systems) plus a system effect.

    The random part can cancel the effect (seed 4165, 4 x 4: every system's mean 0.6 for the fifth name), so
    a measure whose systems all tie gets 0.1 more for the last system on the first topic (still on the
    grid): no measure gives every system the same mean, which similarity refuses.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for m, name in enumerate(names):
        x = np.round(rng.random((n_topics, n_systems)), 1) + 0.05 * np.arange(n_systems) * (1 + m % 2)
        if np.ptp(x.mean(axis=0)) < 1e-9:
            x[0, -1] += 0.1
        rows += [(f"s{s}", f"q{t}", name, float(x[t, s])) for t in range(n_topics) for s in range(n_systems)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def results(df: pd.DataFrame, groups) -> dict:
    """Every output of the three analyses, as frames and arrays."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                # few systems: CIs are NaN; degenerate splits
        sim = meta.similarity(df, groups=groups)
        cons = meta.consistency(df, trials=40, test_trials=120, seed=7, groups=groups, progress=False)
        out = {"sim.tau": sim.tau, "sim.ci_low": sim.ci_low, "sim.ci_high": sim.ci_high, "sim.means": sim.means,
               "sim.table": sim.table(), "sim.table_all": sim.table(within_groups=False),
               "cons.taus": cons.taus, "cons.table": cons.table(), "cons.degenerate": cons.degenerate.to_frame()}
        out.update({f"cons.p[{g}]": p for g, p in cons.p_values.items()})
        for test, trials in (("tukey", 150), ("randomisation", 100), ("t-test", 1)):
            disc = meta.discriminative_power(df, trials=trials, seed=3, test=test, groups=groups, progress=False)
            out.update({f"{test}.pairs": disc.pairs, f"{test}.table": disc.table(), f"{test}.asl": disc.asl()})
    return out


def assert_identical(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key in a:
        pd.testing.assert_frame_equal(a[key], b[key], check_exact=True, obj=key)


def family_of(name: str) -> str:
    return meta.browsing_model(name) if "score" not in name else "custom"


#: A colleague's Hypothesis example: before the generator's fix, the fifth name gave every system
#: the same mean and similarity raised DataError (issue 19).
TIED_EXAMPLE = dict(n_systems=4, n_topics=4, names=[NAMES[0], NAMES[1], NAMES[2], NAMES[5], NAMES[4]],
                    data_seed=4165, shuffle_seed=0, grouped=False)


def test_the_generator_never_gives_a_measure_that_ties_every_system():
    df = frame(4, 4, TIED_EXAMPLE["names"], 4165)
    means = df.groupby(["measure", "name"])["value"].mean().unstack()
    assert (means.max(axis=1) - means.min(axis=1) > 1e-9).all()
    assert means.loc[NAMES[4]].round(6).tolist() == [0.6, 0.6, 0.6, 0.625]   # the one that tied, moved


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(**TIED_EXAMPLE)
@given(n_systems=st.integers(3, 6), n_topics=st.integers(4, 8),
       names=st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True),
       data_seed=st.integers(0, 2**16), shuffle_seed=st.integers(0, 2**16), grouped=st.booleans())
def test_shuffled_frames_give_identical_results(n_systems, n_topics, names, data_seed, shuffle_seed, grouped):
    df = frame(n_systems, n_topics, names, data_seed)
    shuffled = df.sample(frac=1.0, random_state=shuffle_seed).reset_index(drop=True)
    rng = np.random.default_rng(shuffle_seed)
    # groups as a mapping, its keys in another order than the frame's; or as a function
    mapping = {m: family_of(m) for m in rng.permutation(names)}
    groups = (mapping if rng.random() < 0.5 else family_of) if grouped else None
    assert_identical(results(df, groups), results(shuffled, groups))


def test_reversed_names_and_rows_give_identical_results():
    """A fixed case with every kind of name, systems and topics given in reverse order."""
    df = frame(5, 7, NAMES, 0)
    backwards = df.iloc[::-1].reset_index(drop=True)
    assert list(pd.unique(backwards["measure"])) == NAMES[::-1]
    a, b = results(df, family_of), results(backwards, family_of)
    assert_identical(a, b)
    # the canonical order: CWLA by model (P, RBP, INST) then aggregation, then ir-measures by name, then the rest
    assert list(a["cons.taus"].columns) == [NAMES[i] for i in (2, 1, 0, 4, 3, 6, 7, 5, 9, 8)]


def test_families_given_in_another_order_are_tested_alike():
    df = frame(5, 8, NAMES[:5], 1)
    cons = meta.consistency(df, trials=40, test_trials=200, seed=2, groups=meta.browsing_model, progress=False)
    seed = streams.derive(2, streams.CONSISTENCY_TEST_STREAM)
    forward = family_tests(cons.taus, cons.groups, 200, seed, meta.InProcess(), False)
    backward = family_tests(
        cons.taus, {g: ms[::-1] for g, ms in reversed(cons.groups.items())}, 200, seed, meta.InProcess(), False)
    for group in cons.groups:
        pd.testing.assert_frame_equal(forward[group], backward[group], check_exact=True)
        pd.testing.assert_frame_equal(forward[group], cons.p_values[group], check_exact=True)
    assert list(backward) == list(reversed(cons.groups))


@pytest.mark.parametrize("order_seed", [1, 2])
def test_sweep_over_runs_and_measures_in_another_order(order_seed):
    qrels, runs = toy(5, n_runs=6)
    measures = meta.grid(CWLA, C=["RBP", "INST"], A=["ERG", "max", "PE"], cutoff=10)
    rng = np.random.default_rng(order_seed)
    other_runs = {k: runs[k].sample(frac=1.0, random_state=order_seed) for k in rng.permutation(list(runs))}
    other_measures = [measures[i] for i in rng.permutation(len(measures))]
    qrels_shuffled = qrels.sample(frac=1.0, random_state=order_seed)
    analyses = {"similarity": {}, "consistency": {"trials": 50, "test_trials": 100},
                "discriminative_power": {"trials": 120}}
    one = meta.sweep(runs, qrels, measures, analyses, groups=meta.browsing_model, progress=False)
    two = meta.sweep(other_runs, qrels_shuffled, other_measures, analyses, groups=meta.browsing_model, progress=False)
    pd.testing.assert_frame_equal(one.table(), two.table(), check_exact=True)
    key = "collection"
    pd.testing.assert_frame_equal(one.consistency[key].taus, two.consistency[key].taus, check_exact=True)
    pd.testing.assert_frame_equal(one.discriminative_power[key].pairs, two.discriminative_power[key].pairs,
                                  check_exact=True)
    pd.testing.assert_frame_equal(one.similarity[key].tau, two.similarity[key].tau, check_exact=True)
    columns = ["name", "qid", "measure"]
    pd.testing.assert_frame_equal(one.per_query[key].sort_values(columns, ignore_index=True),
                                  two.per_query[key].sort_values(columns, ignore_index=True), check_exact=True)
