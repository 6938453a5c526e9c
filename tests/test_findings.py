"""examples/findings.py and docs/findings.md (issue 21, item 4).

The page is what the script makes of the numbers of its full research run (docs/findings.json),
the verdicts follow from those numbers, the pieces of the script that compute something new are
checked against direct computations, and a reduced run on DL19 reproduces the run's deterministic
numbers.

The full run is a research run (tens of minutes on two busy cores) and stays out of the suite; its
settings and wall time are recorded in docs/findings.json and on the page.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def load_example(name: str):
    """``examples/NAME.py`` as a module."""
    spec = importlib.util.spec_from_file_location(f"{name}_example", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module                 # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def findings():
    return load_example("findings")


@pytest.fixture(scope="module")
def numbers():
    return json.loads((DOCS / "findings.json").read_text())


# -- the page cannot drift from the numbers ------------------------------------------------------------

def test_the_page_is_the_rendering_of_the_full_run(findings, numbers):
    assert numbers["full"] is True
    assert numbers["settings"] == json.loads(json.dumps(dataclasses.asdict(findings.FULL)))
    assert set(numbers["views"]) == set(findings.VIEWS)
    page = (DOCS / "findings.md").read_text()
    assert page == findings.render(numbers), "docs/findings.md is not what examples/findings.py --render " \
                                             "docs/findings.json writes: rerun it and copy the page"
    for name in findings.CRITERIA_SHOWN:
        assert f"figures/findings_{name}.png" in page
        assert (DOCS / "figures" / f"findings_{name}.png").stat().st_size > 20_000
    assert f"{numbers['seconds']['total'] / 60:.0f} min" in page          # the wall time of the run


def test_every_finding_is_stated_on_dl21_with_its_settings(findings, numbers):
    """DL21, added by a run of its own (``--merge``), keeps its settings, seeds and trials with its numbers."""
    dl21 = numbers["views"]["dl21"]
    assert dl21["settings"] == json.loads(json.dumps(dataclasses.asdict(findings.VIEW_SETTINGS["dl21"])))
    assert dl21["extra"]["collection"] == {"systems": 63, "topics": 53, "pairs": 63 * 62 // 2, "judgments": 10828}
    assert all(c["views"]["dl21"]["status"] in (findings.HOLDS, findings.TIE, findings.PARTLY, findings.FAILS)
               for c in numbers["claims"])
    page = (DOCS / "findings.md").read_text()
    for claim in numbers["claims"]:                  # every verdict sentence says what happened on DL21
        assert findings.verdict(claim["views"]).count("on DL21 it") == 1
        assert f"**{findings.verdict(claim['views'])}**" in page
    for member in dl21["standings"]["consistency"]["P@10"]["members"].values():
        assert len(member["seeds"]) == len(findings.VIEW_SETTINGS["dl21"].seeds)


def test_the_verdicts_follow_from_the_numbers(findings, numbers):
    assert findings.evaluate_claims(numbers["views"]) == numbers["claims"]
    assert [c["id"] for c in numbers["claims"]] == [c.id for c in findings.CLAIMS]
    assert len({c.id for c in findings.CLAIMS}) == len(findings.CLAIMS)


def test_seed_0_reproduces_the_readme_tables(numbers):
    """The first seed is the README's run (same criteria, same seed): its values are the README's."""
    dl19 = numbers["views"]["dl19"]["standings"]

    def seed0(criterion, family, member):
        return dl19[criterion][family]["members"][member]["seeds"][0]

    assert seed0("consistency", "P@10", "ERG") == pytest.approx(0.816, abs=5e-4)
    assert seed0("consistency", "RBP@10", "fin") == pytest.approx(0.784, abs=5e-4)
    assert seed0("consistency", "ERR@10", "ERG") == pytest.approx(0.680, abs=5e-4)
    assert seed0("consistency", "AP@10", "ERR") == pytest.approx(-0.057, abs=5e-4)
    assert seed0("discriminative_power", "P@10", "ERG") == 210
    assert seed0("discriminative_power", "AP@10", "ETG") == 189
    assert seed0("discriminative_power", "ERR@10", "ETG") == 36
    assert seed0("incompleteness", "P@10", "ERG") == pytest.approx(0.823, abs=5e-4)
    assert seed0("incompleteness", "ERR@10", "ERR") == pytest.approx(0.633, abs=5e-4)
    assert seed0("incompleteness", "AP@10", "ERR") == pytest.approx(0.188, abs=5e-4)
    assert seed0("incompleteness_tau_ap", "AP@10", "ERR") == pytest.approx(0.227, abs=5e-4)
    assert seed0("pooling_bias", "P@10", "max") == pytest.approx(0.108, abs=5e-4)
    assert seed0("pooling_bias", "AP@10", "ERR") == pytest.approx(1.892, abs=5e-4)


# -- the pieces of the script, against direct computations ------------------------------------------------

def test_rank_ranges_from_the_beats_relation(findings):
    """Rank ranges follow from the beats relation.

    best = 1 + #(members that beat it), worst = n - #(members it beats), a beat counting only when
    it holds in every seed; checked against a loop over every total order consistent with the beats.
    """
    values = {"A": [3.0, 3.1], "B": [3.0, 3.1], "C": [2.0, 2.2], "D": [1.0, 1.0]}
    beats = {"A": [{"C", "D"}, {"C", "D"}], "B": [{"C", "D"}, {"D"}], "C": [{"D"}, {"D"}], "D": [set(), set()]}
    st = findings.standing(values, list(values), str, True, beats)
    final = {m: set.intersection(*b) for m, b in beats.items()}
    for m in values:                                 # every order in which no member sits above one that beats it
        places = [order.index(m) + 1 for order in itertools.permutations(values)
                  if all(order.index(a) < order.index(b) for a in final for b in final[a])]
        assert (st["members"][m]["best"], st["members"][m]["worst"]) == (min(places), max(places)), m
    assert st["members"]["B"]["beats"] == ["D"]                # C beaten by B in one seed only
    assert st["members"]["A"]["sd"] == pytest.approx(np.std([3.0, 3.1], ddof=1), abs=1e-6)   # stored to 6 decimals
    assert st["order"] == ["A", "B", "C", "D"]
    # lower is better, exact mode (no test): ties only for equal values
    exact = findings.standing({"x": [1.0], "y": [1.0], "z": [2.0]}, ["x", "y", "z"], str, False)
    assert [(exact["members"][m]["best"], exact["members"][m]["worst"]) for m in "xyz"] == [(1, 2), (1, 2), (3, 3)]


def test_paired_intervals_are_percentiles_of_the_differences(findings):
    rng = np.random.default_rng(1)
    samples = {m: rng.normal(i, 1.0, size=300) for i, m in enumerate("abc")}
    got = findings.paired_intervals(samples, {"f": ["a", "b", "c"]}, 0.05)
    for a, b in itertools.permutations("abc", 2):
        d = np.sort(samples[a] - samples[b])
        assert got[(a, b)] == pytest.approx((np.percentile(d, 2.5), np.percentile(d, 97.5)))
    st = findings.standing({m: [float(s.mean())] for m, s in samples.items()}, list("abc"), str, True,
                           intervals=got)
    assert st["members"]["c"]["beats"] == sorted(b for b in "ab" if got[("c", b)][0] > 0)


def test_pooled_incompleteness_test_is_the_tukey_hsd_of_the_pooled_trials(findings):
    """Two seeds' trials pooled into one paired test.

    Who beats whom is read from the randomised Tukey HSD p-values of the pooled rows
    (meta.randomised_tukey_hsd, called directly here).
    """
    from ir_cwla import meta

    rng = np.random.default_rng(5)
    names = ["m_a", "m_b", "m_c", "m_d"]
    tally = findings.Tally()
    seeds = []
    for _ in range(2):
        trials = pd.DataFrame([(f, t, m, 0.9 - 0.1 * i + 0.02 * rng.standard_normal() + (0.3 if i == 3 else 0))
                               for f in (0.1, 0.5) for t in range(8) for i, m in enumerate(names)],
                              columns=["fraction", "trial", "measure", "tau"])
        tally.add_trials("inc", trials, "tau")
        seeds.append(trials.pivot_table(index="trial", columns="measure", values="tau", aggfunc="mean"))
    labels = {m: m.upper() for m in names}
    tally.pooled_test("inc", {"f": names}, labels, 500, 0.05, 11)
    rows = pd.concat(seeds, ignore_index=True)[names]
    p = meta.randomised_tukey_hsd(rows.to_numpy(), 500, 11)
    mean = rows.mean().to_numpy()
    for i, a in enumerate(names):
        want = {b for j, b in enumerate(names) if mean[i] > mean[j] and p[i, j] < 0.05}
        assert tally.beats["inc"][a] == [want], a
    assert tally.beats["inc"]["m_a"] == [{"m_b", "m_c"}] and tally.beats["inc"]["m_c"] == [set()]   # not trivial
    assert tally.values["inc"]["m_a"] == pytest.approx([s["m_a"].mean() for s in seeds])


def test_topic_resamples_keep_each_topics_rows(findings):
    frame = pd.DataFrame([(s, q, m, float(10 * i + j)) for i, q in enumerate("tuvw") for j, (s, m) in
                          enumerate(itertools.product("xy", ("M1", "M2")))], columns=["name", "qid", "measure", "value"])
    rng = np.random.default_rng(3)
    draw = np.random.default_rng(3).integers(0, 4, size=4)
    out = findings.resample_topics(frame.sample(frac=1, random_state=0), rng)
    assert out["qid"].nunique() == 4 and len(out) == len(frame)
    for k, t in enumerate(draw):
        got = out[out["qid"] == f"b{k:04d}"].drop(columns="qid").sort_values(["name", "measure"]).to_numpy()
        want = frame[frame["qid"] == "tuvw"[t]].drop(columns="qid").sort_values(["name", "measure"]).to_numpy()
        assert (got == want).all()


def test_run_bootstrap_follows_the_stream_recipe(findings):
    runs = pd.DataFrame({"system": np.repeat(list("abcde"), 2), "measure": ["m1", "m2"] * 5,
                         "abs_rank_change": [0, 1, 2, 0, 1, 3, 0, 0, 4, 1]})
    got = findings.run_bootstrap_means(runs, "abs_rank_change", 500, 7)
    rng = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(19, 1)))
    draws = rng.integers(0, 5, size=(500, 5))
    for m in ("m1", "m2"):
        x = runs[runs["measure"] == m].sort_values("system")["abs_rank_change"].to_numpy(dtype=float)
        means = np.array([x[d].mean() for d in draws])
        assert got[m] == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))


def test_claim_statuses(findings):
    def fam(ranges):
        return {"digits": 3, "order": list(ranges), "members": {m: {"value": 0.0, "sd": 0.0, "seeds": [0.0],
                                                                   "best": b, "worst": w, "beats": []}
                                                               for m, (b, w) in ranges.items()}}
    st = fam({"ERG": (1, 1), "ETG": (2, 3), "avg": (2, 3), "max": (4, 4)})
    assert findings.position_status(st, ["ERG"], "first") == findings.HOLDS
    assert findings.position_status(st, ["ETG"], "first") == findings.FAILS
    assert findings.position_status(st, ["ETG"], (2, 2)) == findings.TIE
    assert findings.position_status(st, ["ETG", "avg"], (2, 3)) == findings.HOLDS
    assert findings.position_status(st, ["max"], "last") == findings.HOLDS
    assert findings.position_status(st, ["avg"], "next to last") == findings.TIE
    assert findings.combine([findings.HOLDS, findings.TIE]) == findings.TIE
    assert findings.combine([findings.HOLDS, findings.FAILS]) == findings.PARTLY
    assert findings.combine([findings.FAILS, findings.FAILS]) == findings.FAILS
    assert findings.could_be(st, "first") == ["ERG"] and findings.could_be(st, "last") == ["max"]


def test_one_system_finds_a_measure_that_only_separates_one_run(findings):
    pairs = pd.DataFrame({"measure": ["m"] * 3 + ["n"] * 3, "system_a": ["a", "a", "b"] * 2,
                          "system_b": ["b", "c", "c"] * 2, "p_value": [0.01, 0.02, 0.5, 0.01, 0.5, 0.01]})
    disc = type("D", (), {"pairs": pairs, "measures": ["m", "n"]})()
    got = findings.one_system(disc, 0.05)
    assert got["m"] == {"significant": 2, "one_system": "a"}
    assert got["n"] == {"significant": 2, "one_system": "b"}


# -- a reduced run on the real data ---------------------------------------------------------------------

@pytest.mark.slow
def test_a_reduced_run_on_dl21_reproduces_its_deterministic_numbers(findings, numbers, dl21_dir, tmp_path):
    """Few trials and two seeds on DL21's 63 runs: similarity, topic set sizes and pooling bias are the saved ones."""
    got = findings.main(["--quick", "--views", "dl21", "--irm-trials", "0", "--data", str(dl21_dir.parents[1]),
                         "--out", str(tmp_path / "out"), "--quiet"])
    small, full = got["views"]["dl21"], numbers["views"]["dl21"]
    assert small["extra"]["collection"] == full["extra"]["collection"]
    assert small["extra"]["similarity"] == full["extra"]["similarity"]
    for criterion in ("topic_set_size", "pool_depth", "pooling_bias", "pooling_rel_drop"):
        for family, st in full["standings"][criterion].items():
            for m, e in st["members"].items():
                got_value = small["standings"][criterion][family]["members"][m]["value"]
                assert got_value == pytest.approx(e["value"], abs=2e-6), (criterion, m)


@pytest.mark.slow
def test_a_reduced_run_reproduces_the_deterministic_numbers(findings, numbers, dl19_dir, tmp_path):
    """Few trials and two seeds on DL19 (all 37 runs).

    The numbers that do not depend on the trials (similarity, topic set sizes, pooling bias, the
    depth-pooled qrels) are those of the full run.
    """
    got = findings.main(["--quick", "--views", "dl19", "--irm-trials", "0", "--data", str(dl19_dir.parent),
                         "--out", str(tmp_path / "out"), "--quiet"])
    assert (tmp_path / "out" / "findings.md").exists() and (tmp_path / "out" / "tables" / "claims.csv").exists()
    assert got["full"] is False
    small, full = got["views"]["dl19"], numbers["views"]["dl19"]
    assert small["extra"]["collection"] == full["extra"]["collection"]
    assert small["extra"]["similarity"] == full["extra"]["similarity"]
    assert small["extra"]["pooling"].keys() == full["extra"]["pooling"].keys()
    for m, e in full["extra"]["pooling"].items():
        assert small["extra"]["pooling"][m]["rel_drop"] == e["rel_drop"]
        assert small["extra"]["pooling"][m]["mean_abs_rank_change"] == e["mean_abs_rank_change"]
    for criterion in ("topic_set_size", "pool_depth", "pooling_bias", "pooling_rel_drop"):
        for family, st in full["standings"][criterion].items():
            for m, e in st["members"].items():
                got_value = small["standings"][criterion][family]["members"][m]["value"]
                assert got_value == pytest.approx(e["value"], abs=2e-6), (criterion, m)
    for family, st in full["policies"]["standings"]["pooling_rel_drop"].items():
        for m, e in st["members"].items():
            got_value = small["policies"]["standings"]["pooling_rel_drop"][family]["members"][m]["value"]
            assert got_value == pytest.approx(e["value"], abs=2e-6)
    assert [c["id"] for c in got["claims"]] == [c["id"] for c in numbers["claims"]]


# -- the assessor page's headline findings, over the 8 pairings of the group files -------------------------

@pytest.fixture(scope="module")
def assessors():
    return load_example("assessors")


@pytest.fixture(scope="module")
def pairings_numbers():
    return json.loads((DOCS / "assessors-pairings.json").read_text())


def test_the_headline_findings_are_the_rendering_of_the_pairings(assessors, pairings_numbers):
    page = (DOCS / "findings-assessors.md").read_text()
    start, stop = page.index(assessors.BEGIN), page.index(assessors.END) + len(assessors.END)
    assert page[start:stop] == assessors.render_headlines(pairings_numbers), \
        "the headline findings of docs/findings-assessors.md are not what examples/assessors.py makes of " \
        "docs/assessors-pairings.json: run examples/assessors.py --render-pairings docs/assessors-pairings.json"
    assert len(pairings_numbers["pairings"]) == 8
    settings = pairings_numbers["settings"]
    assert settings["seed"] == 0 and settings["bootstrap"] >= 1000 and settings["test_trials"] >= 1000


def test_the_8_pairings_are_every_way_to_split_each_group(assessors):
    files = {f"g{g}{x}": f"g{g}{x}" for g in range(1, 5) for x in "ab"}
    found = assessors.pairings(files)
    assert found[0] == ("1a 2a 3a 4a", {f"g{g}a": f"g{g}a" for g in range(1, 5)},
                        {f"g{g}b": f"g{g}b" for g in range(1, 5)})              # the published pairing first
    splits = set()
    for name, a, b in found:
        assert sorted({k[1] for k in a} | {k[1] for k in b}) == ["1", "2", "3", "4"]
        assert all({f"g{g}a", f"g{g}b"} == {k for k in (*a, *b) if k[1] == str(g)} for g in range(1, 5))
        assert name == " ".join(k[1:] for k in a)
        splits.add(frozenset((frozenset(a), frozenset(b))))                     # unordered: a and b swapped alike
    every = {frozenset((frozenset(f"g{g}{x}" for g, x in zip(range(1, 5), pick)),
                        frozenset(f"g{g}{'b' if x == 'a' else 'a'}" for g, x in zip(range(1, 5), pick))))
             for pick in itertools.product("ab", repeat=4)}
    assert splits == every and len(every) == 8


def test_the_published_pairing_is_the_pages_tables(pairings_numbers):
    """The published pairing's agreement and taus are those of the page's tables (the assessors.py run)."""
    page = (DOCS / "findings-assessors.md").read_text()
    published = pairings_numbers["pairings"]["1a 2a 3a 4a"]
    for who in ("a", "b"):
        row = next(line for line in page.splitlines() if line.startswith(f"| {who} | 45"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[2]) == pytest.approx(published["agreement"][who]["exact"], abs=5e-4)
        assert float(cells[3]) == pytest.approx(published["agreement"][who]["kappa"], abs=5e-4)
        assert float(cells[5]) == pytest.approx(published["agreement"][who]["alpha_ordinal"], abs=5e-4)
        for measure in ("P_ERG@10", "ERR_ERR@10", "RR@10", "nDCG@10"):
            row = next(line for line in page.splitlines() if line.startswith(f"| {who} | {measure} |"))
            assert float(row.split("|")[3]) == pytest.approx(published["measures"][who][measure]["tau"], abs=5e-4)


@pytest.mark.slow
def test_a_reduced_run_of_one_pairing_reproduces_its_deterministic_numbers(assessors, pairings_numbers, dl19_dir):
    """Pairing ``1a 2b 3a 4a`` with few resamples: the label agreement and every tau (deterministic) are the saved ones."""
    from ir_cwla import io, meta, table1

    nist = io.read_trec_qrels(dl19_dir / "qrels.dl19-passage.txt")
    runs = {meta.run_name(p): io.read_trec_run(p) for p in sorted((dl19_dir / "runs").glob("input.*.gz"))}
    files = {f"g{g}{x}": io.read_trec_qrels(dl19_dir / "reannotation" / f"group{g}-assessor-{x}.txt")
             for g in range(1, 5) for x in "ab"}
    name, a_files, b_files = next(p for p in assessors.pairings(files) if p[0] == "1a 2b 3a 4a")
    a = io.as_qrels_frame(pd.concat(list(a_files.values()), ignore_index=True), "assessor a")
    b = io.as_qrels_frame(pd.concat(list(b_files.values()), ignore_index=True), "assessor b")
    measures = list(table1()) + assessors.EXTRA
    kwargs = {**pairings_numbers["settings"], "test_trials": 50, "splits": 20, "bootstrap": 50,     # as saved, fewer
              "groups": meta.browsing_model, "reference_name": "NIST", "progress": False}
    got = assessors.pairing_numbers(runs, nist, a, b, measures, {}, kwargs, 0)     # no other criteria here
    saved = pairings_numbers["pairings"][name]
    assert got["agreement"] == saved["agreement"]
    for who in ("a", "b", "majority(NIST,a,b)", "mean(a,b)"):
        for measure, entry in saved["measures"][who].items():
            assert got["measures"][who][measure]["tau"] == entry["tau"], (who, measure)
            assert got["measures"][who][measure]["max_rank_move"] == entry["max_rank_move"], (who, measure)
    for family, fam in saved["families"].items():
        assert got["families"][family]["a, b"]["best"] == fam["a, b"]["best"]
        assert got["families"][family]["ERG"]["rank"] == fam["ERG"]["rank"]
