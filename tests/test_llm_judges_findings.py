"""examples/llm_judges.py and docs/llm-judges.md (issue 32, item 6).

The page is what the script makes of the numbers of its research run (docs/llm-judges.json): it
cannot drift from them, its verdicts follow from them, and a reduced run on the real data gives
the run's deterministic numbers (every point estimate) again. The research run itself (minutes on
busy cores) stays out of the suite; its settings and wall time are in the JSON and on the page.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIGURES = ("llm_judges_dl21_disjoint", "llm_judges_dl23_disjoint", "llm_judges_bias", "llm_judges_ranking",
           "llm_judges_ppi")


def load_script():
    spec = importlib.util.spec_from_file_location("llm_judges_example", ROOT / "examples" / "llm_judges.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module                 # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():
    return load_script()


@pytest.fixture(scope="module")
def numbers():
    return json.loads((DOCS / "llm-judges.json").read_text())


def test_the_page_is_the_rendering_of_the_full_run(script, numbers):
    assert numbers["full"] is True
    assert numbers["settings"] == json.loads(json.dumps(dataclasses.asdict(script.FULL)))
    page = (DOCS / "llm-judges.md").read_text()
    assert page == script.render(numbers), "docs/llm-judges.md is not what examples/llm_judges.py --render " \
                                           "docs/llm-judges.json writes: rerun it and copy the page"
    for name in FIGURES:
        assert f"figures/{name}.png" in page
        assert (DOCS / "figures" / f"{name}.png").stat().st_size > 20_000
    assert f"{numbers['seconds']['total'] / 60:.0f} min" in page


def test_the_verdicts_follow_from_the_numbers(script, numbers):
    runs = 2 * len(numbers["settings"]["seeds"])
    for collection in ("dl21", "dl23"):
        verdicts = script.verdicts(numbers[collection]["disjoint"])
        for measure, v in verdicts.items():
            assert v["runs"] == runs
            rows = [r for rs in numbers[collection]["disjoint"].values() for r in rs if r["measure"] == measure]
            assert v["below"] == sum(r["p_tau"] < 0.05 for r in rows)
            assert len({r["tau"] for r in rows}) == 1          # the point estimate does not depend on the seed
    for key, rows in numbers["judges"]["rankings"].items():
        statistic = key.split("|")[0]
        values = [r[statistic] for r in rows]
        assert values == sorted(values, reverse=True) and rows[0]["tied_best"]
        assert len(rows) == 34
    for rows in numbers["corrected"]["dl19"].values():
        assert all(0 <= r["coverage_ppi"] <= 1 and r["width_ppi"] > 0 for r in rows)


@pytest.mark.slow
def test_a_reduced_run_gives_the_point_estimates_again(script, numbers, llm_dir):
    settings = script.Settings(seeds=(0,), bootstrap=20, null_trials=20, label_trials=20, bias_trials=50,
                               bias_bootstrap=20, ppi_repetitions=10, dl21=False)
    data = llm_dir.parent
    dl23 = script.dl23(data, settings, None)
    for ours, full in zip(dl23["disjoint"]["a0"], numbers["dl23"]["disjoint"]["a0"]):
        assert (ours["measure"], ours["tau"], ours["tau_ap"]) == (full["measure"], full["tau"], full["tau_ap"])
    for key in ("GPT|0", "GPT-4|0", "any LLM|0"):
        for ours, full in zip(dl23["bias"][key], numbers["dl23"]["bias"][key]):
            assert (ours["measure"], ours["effect_rank"], ours["effect_score"]) == \
                   (full["measure"], full["effect_rank"], full["effect_score"])
    assert dl23["families"] == numbers["dl23"]["families"]
    judges = script.judges(data, settings, None)
    for ours, full in zip(judges["agreement"], numbers["judges"]["agreement"]):
        assert {k: ours[k] for k in ("alternative", "exact", "kappa", "kappa_quadratic", "alpha_ordinal")} == \
               {k: full[k] for k in ("alternative", "exact", "kappa", "kappa_quadratic", "alpha_ordinal")}
