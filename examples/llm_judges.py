"""Which measures survive an LLM judge? Every number and figure of docs/llm-judges.md (issue 32).

The research run (a few minutes on two busy cores) computes, on the real data of
``../shared/data`` (``llm-judgments/`` and ``trec-dl-2019-passage/``):

1. **DL21, topic-disjoint** (63 runs; NIST's 53 topics against GPT-4's 424 others):
   ``meta.disjoint_agreement`` for the 39 Table-1 measures and ir-measures' AP, P@10, RR and
   nDCG@10, over the seeds and both nulls (from NIST's topics, from GPT-4's);
2. **DL23, topic-disjoint** (35 runs' ``trec_eval -q`` scores: NIST's 82 topics against SynDL's 618
   GPT-4 topics): the same for trec_eval's measures;
3. **DL23, judge bias**: ``meta.judge_bias`` of the runs that use the judge's family, for three
   equally valid families (GPT: GPT-3.5, GPT-4 and an unnamed GPT; GPT-4 only; any LLM), over the seeds;
4. **the LLMJudge challenge**: ``meta.label_agreement`` of its 33 label sets and of SynDL's GPT-4
   grades of the same pairs with NIST, ranked by ``meta.judge_ranking`` by quadratic kappa, kappa
   and ordinal alpha, over the seeds;
5. **corrected scores**: ``meta.validate_corrected`` on DL19 (NIST, with either re-annotator as the
   cheap labels) and on DL23's pairs (NIST and GPT-4 grades of every pair), over the seeds.

It writes the numbers to ``OUT/llm-judges.json`` and the figures to ``OUT/figures/``; ``--render``
turns the JSON into the page, so the page cannot drift from the numbers
(``tests/test_llm_judges_findings.py`` checks it)::

    python examples/llm_judges.py --data ../shared/data --out docs
    python examples/llm_judges.py --render docs/llm-judges.json > docs/llm-judges.md
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla import io, meta, table1
from ir_cwla.errors import InputWarning, UndefinedStatisticWarning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data"))
EXTRA = ["AP", "P@10", "RR", "nDCG@10"]
#: trec_eval's measures compared on DL23 (their ir-measures names); the counts and IPrec are left out.
DL23_MEASURES = ["AP", "P@5", "P@10", "P@20", "P@100", "RR", "Rprec", "Bpref"]
#: The measures both collections have (DL21 scored by ir-measures as trec_eval does): where a finding can hold twice.
COMMON = ["AP", "P@10", "RR"]
FAMILIES = {"GPT": "GPT.*", "GPT-4": "GPT-4", "any LLM": ".+"}
GRADE_MAP = {5: 3, 10: 3}
PPI_MEASURES = ["P_ERG@10", "DCG_ERG@10", "RBP_ERG@10", "INST_ERG@10", "AP_ERG@10", "ERR_ERR@10", "nDCG@10", "AP",
                "RR@10"]


@dataclasses.dataclass(frozen=True)
class Settings:
    """The analysis' settings (the research run's are :data:`FULL`)."""

    seeds: tuple[int, ...] = (0, 1, 2)
    bootstrap: int = 1000
    null_trials: int = 1000
    label_trials: int = 2000
    bias_trials: int = 10000
    bias_bootstrap: int = 2000
    ppi_repetitions: int = 500
    ppi_shares: tuple[float, ...] = (0.5, 0.7, 0.9)
    label_shares: tuple[float, ...] = (0.9, 0.98, 0.995)
    dl21: bool = True


FULL = Settings()


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        warnings.simplefilter("ignore", InputWarning)
        return fn(*args, **kwargs)


def records(frame: pd.DataFrame, columns: list[str]) -> list[dict]:
    out = frame[columns].copy()
    for c in out.columns:
        if out[c].dtype.kind == "f":
            out[c] = out[c].round(6)
    return json.loads(out.to_json(orient="records"))


# -- the analyses -----------------------------------------------------------------------------------------
def disjoint_runs(nist: pd.DataFrame, judge: pd.DataFrame, settings: Settings, name: str,
                  figure: Optional[Path] = None) -> dict:
    out: dict[str, Any] = {}
    for null in ("a", "b"):
        for seed in settings.seeds:
            result = quiet(meta.disjoint_agreement, nist, judge, bootstrap=settings.bootstrap,
                           null_trials=settings.null_trials, null=null, seed=seed, groups=meta.browsing_model,
                           reference_name="NIST", name=name)
            out[f"{null}{seed}"] = records(result.table(), ["group", "measure", "topics_a", "topics_b", "tau",
                                                            "tau_low", "tau_high", "null_tau", "null_tau_low",
                                                            "null_tau_high", "p_tau", "tau_ap", "tau_ap_low",
                                                            "tau_ap_high", "null_tau_ap", "p_tau_ap", "null_sets"])
            if figure is not None and null == "a" and seed == settings.seeds[0]:
                result.plot(title=f"{name} against NIST, topic-disjoint").savefig(figure, dpi=100)
    return out


def dl21(data: Path, settings: Settings, figures: Optional[Path]) -> dict:
    folder = data / "llm-judgments" / "dl21"
    measures = list(table1()) + EXTRA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nist = meta.evaluate(folder / "runs", folder / "qrels.nist.txt", measures, progress=False)
        gpt4 = meta.evaluate(folder / "runs", folder / "qrels.gpt4.txt", measures, progress=False)
    return {"runs": int(nist["name"].nunique()), "topics_nist": int(nist["qid"].nunique()),
            "topics_gpt4": int(gpt4["qid"].nunique()),
            "disjoint": disjoint_runs(nist, gpt4, settings, "GPT-4",
                                      figures / "llm_judges_dl21_disjoint.png" if figures else None)}


def dl23_scores(data: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = data / "llm-judgments" / "dl23" / "per-topic"
    nist = meta.read_score_files(folder / "TREC-DLs-results")
    syn = meta.read_score_files(folder / "SynDL-full-results")
    return nist[nist["measure"].isin(DL23_MEASURES)], syn[syn["measure"].isin(DL23_MEASURES)]


def dl23(data: Path, settings: Settings, figures: Optional[Path]) -> dict:
    nist, syn = dl23_scores(data)
    models = meta.read_run_models(data / "llm-judgments" / "dl23" / "run-models.csv")
    bias: dict[str, Any] = {}
    members: dict[str, list[str]] = {}
    for family, pattern in FAMILIES.items():
        using = {r: v for r, v in meta.runs_using(models, pattern).items() if r in set(nist["name"])}
        members[family] = sorted(r for r, v in using.items() if v)
        for seed in settings.seeds:
            result = quiet(meta.judge_bias, nist, syn, using, trials=settings.bias_trials,
                           bootstrap=settings.bias_bootstrap, seed=seed, reference_name="NIST",
                           judged_name="GPT-4 (SynDL)")
            bias[f"{family}|{seed}"] = records(result.table(), [
                "measure", "runs", "family_runs", "effect_rank", "effect_rank_low", "effect_rank_high", "p_rank",
                "p_rank_holm", "effect_score", "effect_score_low", "effect_score_high", "p_score", "p_score_holm"])
            if figures is not None and family == "GPT" and seed == settings.seeds[0]:
                result.plot("AP", title="DL23: GPT-4 (SynDL) against NIST").savefig(
                    figures / "llm_judges_bias.png", dpi=100)
    return {"runs": int(nist["name"].nunique()), "topics_nist": int(nist["qid"].nunique()),
            "topics_syndl": int(syn["qid"].nunique()), "families": members,
            "disjoint": disjoint_runs(nist, syn, settings, "GPT-4 (SynDL)",
                                      figures / "llm_judges_dl23_disjoint.png" if figures else None),
            "bias": bias}


def judges(data: Path, settings: Settings, figures: Optional[Path]) -> dict:
    folder = data / "llm-judgments" / "llmjudge-dl23"
    topics, docs = meta.read_id_map(folder / "qid_to_qidx.txt"), meta.read_id_map(folder / "docid_to_docidx.txt")
    human = meta.map_ids(folder / "human.txt", topics, docs)
    labels = meta.read_judges(folder / "labels", topics, docs)
    gpt4 = io.read_trec_qrels(data / "llm-judgments" / "dl23" / "qrels.gpt4.txt")
    labels["GPT-4 (SynDL)"] = human[["query_id", "doc_id"]].merge(gpt4, on=["query_id", "doc_id"], how="left")
    assert labels["GPT-4 (SynDL)"]["relevance"].notna().all()
    out: dict[str, Any] = {"pairs": len(human), "topics": int(human["query_id"].nunique()), "rankings": {}}
    for seed in settings.seeds:
        agreement = quiet(meta.label_agreement, human, labels, trials=settings.label_trials, seed=seed,
                          reference_name="NIST", grade_map=GRADE_MAP)
        if seed == settings.seeds[0]:
            out["agreement"] = records(agreement.table(["exact", "kappa", "kappa_quadratic", "alpha_ordinal"]), [
                "alternative", "judged_both", "exact", "kappa", "kappa_low", "kappa_high", "kappa_quadratic",
                "kappa_quadratic_low", "kappa_quadratic_high", "alpha_ordinal", "alpha_ordinal_low",
                "alpha_ordinal_high"])
        for statistic in ("kappa_quadratic", "kappa", "alpha_ordinal"):
            ranking = meta.judge_ranking(agreement, statistic)
            out["rankings"][f"{statistic}|{seed}"] = records(ranking.table(), [
                "rank", "alternative", statistic, "rank_low", "rank_high", "p_vs_best", "tied_best"])
            if figures is not None and statistic == "kappa_quadratic" and seed == settings.seeds[0]:
                ranking.plot(title="LLMJudge (DL23): 33 label sets and SynDL's GPT-4").savefig(
                    figures / "llm_judges_ranking.png", dpi=90)
    return out


def corrected(data: Path, settings: Settings, figures: Optional[Path]) -> dict:
    dl19 = data / "trec-dl-2019-passage"
    runs = {meta.run_name(p): io.read_trec_run(p) for p in sorted((dl19 / "runs").glob("input.*.gz"))}
    folder = dl19 / "reannotation"
    out: dict[str, Any] = {"dl19": {}, "dl19_tuned": {}, "dl23": {}}
    measures = list(table1()) + ["nDCG@10", "AP", "RR@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nist = meta.evaluate(runs, dl19 / "qrels.dl19-passage.txt", measures, progress=False)
        for who in ("a", "b"):
            qrels = io.as_qrels_frame(pd.concat([io.read_trec_qrels(folder / f"group{g}-assessor-{who}.txt")
                                                 for g in range(1, 5)], ignore_index=True), who)
            cheap = meta.evaluate(runs, qrels, measures, progress=False)
            for seed in settings.seeds:
                for tuned, key in ((False, "dl19"), (True, "dl19_tuned")):
                    result = meta.validate_corrected(nist, cheap, shares=settings.ppi_shares, measures=PPI_MEASURES,
                                                     repetitions=settings.ppi_repetitions, seed=seed,
                                                     power_tuning=tuned)
                    out[key][f"{who}|{seed}"] = records(result.table(), [
                        "share_hidden", "labelled", "measure", "coverage_ppi", "coverage_classical", "width_ppi",
                        "width_classical", "error_ppi", "error_classical", "error_cheap"])
                    if figures is not None and who == "a" and seed == settings.seeds[0] and not tuned:
                        result.plot(measures=["P_ERG@10", "AP_ERG@10", "nDCG@10", "RR@10"],
                                    title="DL19, assessor a as the cheap labels").savefig(
                            figures / "llm_judges_ppi.png", dpi=100)
    folder23 = data / "llm-judgments" / "dl23"
    human, cheap23 = meta.label_units(folder23 / "qrels.nist.txt", folder23 / "qrels.gpt4.txt")
    for seed in settings.seeds:
        result = meta.validate_corrected(human, cheap23, shares=settings.label_shares,
                                         repetitions=max(50, settings.ppi_repetitions // 5), seed=seed)
        frame = result.cells
        rows = []
        for share in result.shares:
            for j, statistic in enumerate(sorted(human["name"].unique())):
                cells = {k: v[:, 0, j] for k, v in frame[share].items()}
                rows.append({"share_hidden": share, "statistic": statistic,
                             "labelled": int(result.table().loc[result.table()["share_hidden"] == share,
                                                                "labelled"].iloc[0]),
                             "coverage_ppi": float(cells["covered_ppi"].mean()),
                             "coverage_classical": float(cells["covered_classical"].mean()),
                             "width_ppi": float(cells["width_ppi"].mean()),
                             "width_classical": float(cells["width_classical"].mean()),
                             "error_cheap": float(cells["error_cheap"].mean())})
        out["dl23"][str(seed)] = records(pd.DataFrame(rows), list(rows[0]))
    return out


def compute(data: Path, settings: Settings = FULL, figures: Optional[Path] = None) -> dict:
    clock = time.perf_counter()
    numbers: dict[str, Any] = {"settings": json.loads(json.dumps(dataclasses.asdict(settings))),
                               "full": settings == FULL, "seconds": {}}
    for name, fn in (("dl21", dl21), ("dl23", dl23), ("judges", judges), ("corrected", corrected)):
        if name == "dl21" and not settings.dl21:
            continue
        start = time.perf_counter()
        numbers[name] = fn(data, settings, figures)
        numbers["seconds"][name] = round(time.perf_counter() - start, 1)
        print(f"{name}: {numbers['seconds'][name]:.0f} s", file=sys.stderr, flush=True)
    numbers["seconds"]["total"] = round(time.perf_counter() - clock, 1)
    return numbers


# -- the page --------------------------------------------------------------------------------------------
def _table(rows: list[dict], columns: list[str], header: Optional[list[str]] = None, digits: int = 3) -> str:
    head = header or columns
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if isinstance(rows[0][c], (int, float)) and not isinstance(rows[0][c], bool)
                            else "---" for c in columns) + "|"]
    for r in rows:
        cells = []
        for c in columns:
            v = r[c]
            if isinstance(v, bool) or v is None:
                cells.append("" if v is None else ("yes" if v else "no"))
            elif isinstance(v, float):
                cells.append(f"{v:.{digits}f}")
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def verdicts(disjoint: dict, statistic: str = "tau", alpha: float = 0.05) -> dict[str, dict]:
    """Per measure: tau over every seed and null, and whether it is below the null in each of them."""
    out: dict[str, dict] = {}
    for rows in disjoint.values():
        for r in rows:
            v = out.setdefault(r["measure"], {"group": r["group"], "tau": r[statistic], "below": 0, "runs": 0,
                                              "p": [], "null": [], "low": [], "high": []})
            v["below"] += int(r[f"p_{statistic}"] < alpha)
            v["runs"] += 1
            v["p"].append(r[f"p_{statistic}"])
            v["null"].append(r[f"null_{statistic}"])
            v["low"].append(r[f"{statistic}_low"])
            v["high"].append(r[f"{statistic}_high"])
    return out


def _names(items: list[str]) -> str:
    return ", ".join(items) if items else "none"


def _verdict(v: dict) -> str:
    if v["below"] == v["runs"]:
        return "below the null in every run"
    if v["below"] == 0:
        return "within the null in every run"
    return f"below the null in {v['below']} of {v['runs']} runs"


def render(numbers: dict) -> str:
    s = numbers["settings"]
    seeds = ", ".join(map(str, s["seeds"]))
    runs_count = 2 * len(s["seeds"])
    lines = ["# Which measures survive an LLM judge?", "",
             "To regenerate every number and figure of this page (a few minutes on 2 cores):", "",
             "<!-- test: norun (a research run of several minutes on the real data; "
             "tests/test_llm_judges_findings.py checks the page against its numbers) -->",
             "```bash", "python examples/llm_judges.py --data ../shared/data --out docs",
             "python examples/llm_judges.py --render docs/llm-judges.json > docs/llm-judges.md", "```", "",
             f"Seeds {seeds}; {s['bootstrap']} bootstrap resamples and {s['null_trials']} null replicates per "
             f"disjoint comparison, {s['label_trials']} resamples per label agreement, {s['bias_trials']} random "
             f"label assignments and {s['bias_bootstrap']} two-way bootstrap replicates per judge-bias test, "
             f"{s['ppi_repetitions']} hidings per share for the corrected scores. The run took "
             f"{numbers['seconds']['total'] / 60:.0f} min. The house rule: a **finding** holds on a second "
             "collection (DL21 and DL23 are two; DL19 is a third for the corrected scores) and is stated over every "
             "equally valid choice of the analysis (the seeds, the two nulls, the judge families, the statistics, "
             "the two re-annotators); what holds on one collection only is an **observation**.", ""]
    d21 = numbers.get("dl21")
    d23 = numbers["dl23"]
    v23 = verdicts(d23["disjoint"])
    v23_ap = verdicts(d23["disjoint"], "tau_ap")
    lines += ["## Findings", ""]
    if d21:
        v21 = verdicts(d21["disjoint"])
        v21_ap = verdicts(d21["disjoint"], "tau_ap")
        both = []
        for m in COMMON:
            a, b = v21[m], v23[m]
            both.append(f"{m}: DL21 tau {a['tau']:.3f} ({_verdict(a)}), DL23 tau {b['tau']:.3f} ({_verdict(b)})")
        cwla = [m for m, v in v21.items() if v["group"] not in COMMON and m not in EXTRA]
        within = [m for m in cwla if v21[m]["below"] == 0]
        below = [m for m in cwla if v21[m]["below"] == v21[m]["runs"]]
        mixed = [m for m in cwla if m not in within and m not in below]
        canonical = [m for m in cwla if m in PPI_MEASURES]
        def status(m: str) -> str:
            a, b = v21[m], v23[m]
            if a["below"] == a["runs"] and b["below"] == b["runs"]:
                return "below the null on both"
            if a["below"] == 0 and b["below"] == 0:
                return "within the null on both"
            return "differs between them"

        both = [f"{m}: DL21 tau {v21[m]['tau']:.3f} ({_verdict(v21[m])}), DL23 tau {v23[m]['tau']:.3f} "
                f"({_verdict(v23[m])})" for m in COMMON]
        below_both = [m for m in COMMON if status(m) == "below the null on both"]
        within_both = [m for m in COMMON if status(m) == "within the null on both"]
        differs = [m for m in COMMON if status(m) == "differs between them"]
        headline = "; ".join(part for part in (
            f"{_names(below_both)} rank{'s' if len(below_both) == 1 else ''} the systems under GPT-4 less like "
            "NIST than topic sampling explains, on both" if below_both else "",
            f"{_names(within_both)} within what topic sampling explains on both" if within_both else "",
            f"{_names(differs)} differ{'s' if len(differs) == 1 else ''} between the collections" if differs else "")
            if part)
        cwla = [m for m in v21 if m not in EXTRA]
        within = [m for m in cwla if v21[m]["below"] == 0]
        below = [m for m in cwla if v21[m]["below"] == v21[m]["runs"]]
        mixed = [m for m in cwla if m not in within and m not in below]
        canonical = [m for m in cwla if m in PPI_MEASURES]
        ap21 = [m for m, v in v21_ap.items() if v["below"] == v["runs"]]
        ap23 = [m for m, v in v23_ap.items() if v["below"] == v["runs"]]
        lines += [
            f"1. **DL21 and DL23, the measures both have: {headline}.** Kendall's tau between NIST's ranking and "
            f"the GPT-4 collection's, against the null of two topic sets drawn from NIST's (or from GPT-4's) "
            f"topics alone, over {runs_count} runs (seeds x nulls): " + "; ".join(both) + ".",
            f"2. **Which C/W/L/A measures keep DL21's ranking under GPT-4 (one collection: an observation; DL23 has "
            f"no run files to score them).** Of the {len(cwla)} Table-1 measures, {len(within)} stay within the "
            f"null in every run, {len(below)} fall below it in every run ({_names(below)})"
            + (f", and {len(mixed)} in some runs only ({_names(mixed)})" if mixed else "") + ". The canonical "
            "measures (tau, and the range of its interval's bounds over the runs): "
            + "; ".join(f"{m} {v21[m]['tau']:.3f} [{min(v21[m]['low']):.2f}, {max(v21[m]['high']):.2f}]"
                        for m in canonical) + f". tau_AP, which weighs the top of the ranking, is below its null in "
            f"every run for {len(ap21)} of DL21's {len(v21_ap)} measures ({_names(ap21)}) and {len(ap23)} of DL23's "
            f"{len(v23_ap)} ({_names(ap23)})."]
    bias = d23["bias"]
    fam_lines = []
    for family in FAMILIES:
        keys = [k for k in bias if k.startswith(family + "|")]
        ap = [next(r for r in bias[k] if r["measure"] == "AP") for k in keys]
        significant = sorted({r["measure"] for k in keys for r in bias[k] if r["p_rank_holm"] < 0.05})
        fam_lines.append(f"{family} ({len(d23['families'][family])} runs): AP effect "
                         f"{ap[0]['effect_rank']:+.2f} positions [{min(r['effect_rank_low'] for r in ap):.2f}, "
                         f"{max(r['effect_rank_high'] for r in ap):.2f}], one-sided p "
                         f"{min(r['p_rank'] for r in ap):.3f}-{max(r['p_rank'] for r in ap):.3f}; measures with a "
                         f"Holm-adjusted p < 0.05 in any seed: {', '.join(significant) or 'none'}")
    gains = [f for f in FAMILIES if any(r["p_rank_holm"] < 0.05 and r["effect_rank"] > 0
                                        for k in bias if k.startswith(f + "|") for r in bias[k])]
    verdict = (f"the {', '.join(gains)} family gains on some measure" if gains else
               "LLM-based runs do not gain on any measure")
    lines += [f"3. **Under GPT-4 on DL23, {verdict} (one collection: an observation).** The runs "
              "whose pipeline uses a model of the judge's family, against the others, rank changes from NIST's 82 "
              "topics to SynDL's 618 GPT-4 topics, for three equally valid families and the seeds: "
              + "; ".join(fam_lines) + ". Positive effects would mean the family moves up under the judge."]
    jd = numbers["judges"]
    tops = {}
    for key, rows in jd["rankings"].items():
        tops[key] = [r["alternative"] for r in rows if r["tied_best"]]
    firsts = {key: rows[0]["alternative"] for key, rows in jd["rankings"].items()}
    always = sorted(set.intersection(*(set(v) for v in tops.values())))
    never = sorted(set(r["alternative"] for r in jd["agreement"]) - set.union(*(set(v) for v in tops.values())))
    syndl = {key: next(r for r in rows if r["alternative"] == "GPT-4 (SynDL)") for key, rows in jd["rankings"].items()}
    lines += [f"4. **Which of the 33 LLMJudge label sets agree most with NIST (one collection: an observation).** "
              f"On {jd['pairs']} pairs of {jd['topics']} DL23 topics, the nominal best is "
              + ", ".join(sorted(set(firsts.values()))) + " depending on the statistic and seed, but the top is "
              f"wide: {len(always)} judges are never distinguishable from the best (simultaneous bootstrap test, "
              f"every statistic and seed): {', '.join(always)}; {len(never)} {'is' if len(never) == 1 else 'are'} always "
              "worse than the best: "
              f"{', '.join(never) or 'none'}. SynDL's GPT-4 grades of the same pairs rank "
              f"{min(r['rank'] for r in syndl.values())}-{max(r['rank'] for r in syndl.values())} of 34 "
              f"(rank intervals {min(r['rank_low'] for r in syndl.values())}-"
              f"{max(r['rank_high'] for r in syndl.values())}).",
              ]
    c = numbers["corrected"]
    share = max(s["ppi_shares"])
    c_rows = [r for rows in c["dl19"].values() for r in rows if r["share_hidden"] == share]
    c_low = [r for rows in c["dl19"].values() for r in rows if r["share_hidden"] == min(s["ppi_shares"])]
    l_rows = [r for rows in c["dl23"].values() for r in rows]
    keyed_cases: dict[tuple, dict] = {}
    for key, rows in c["dl19"].items():
        for r in rows:
            if r["share_hidden"] == share:
                keyed_cases[(key, r["measure"])] = r
    better = sum(r["coverage_ppi"] > r["coverage_classical"] for r in keyed_cases.values())
    wider = sum(r["width_ppi"] > r["width_classical"] for r in c_low)
    t_low = [r for rows in c["dl19_tuned"].values() for r in rows if r["share_hidden"] == min(s["ppi_shares"])]
    t_rows = [r for rows in c["dl19_tuned"].values() for r in rows if r["share_hidden"] == share]
    tuned_narrower = sum(r["width_ppi"] < r["width_classical"] for r in t_low)
    lines += [f"5. **With few human labels, corrected scores cover more often than the classical interval in "
              f"{better} of {len(keyed_cases)} (measure, re-annotator, seed) cases on DL19 (DL19 scores, DL23 "
              f"labels: two collections, two estimands).** With {share:.0%} of DL19's "
              f"topics' NIST labels "
              f"hidden, the PPI intervals cover the full NIST score in "
              f"{min(r['coverage_ppi'] for r in c_rows):.1%}-{max(r['coverage_ppi'] for r in c_rows):.1%} of the "
              f"(repetition, run) cells over the measures, both re-annotators and the seeds, the classical intervals "
              f"from the labelled topics alone in {min(r['coverage_classical'] for r in c_rows):.1%}-"
              f"{max(r['coverage_classical'] for r in c_rows):.1%} (nominal 95%); with {min(s['ppi_shares']):.0%} "
              f"hidden both cover ({min(r['coverage_ppi'] for r in c_low):.1%}-"
              f"{max(r['coverage_ppi'] for r in c_low):.1%} and {min(r['coverage_classical'] for r in c_low):.1%}-"
              f"{max(r['coverage_classical'] for r in c_low):.1%}) and PPI's intervals are the wider in {wider} of "
              f"{len(c_low)} cases: the re-annotators' labels are too noisy to shrink them. Power tuning (PPI++, "
              f"`power_tuning=True`), which weighs the cheap labels by how well they predict the human ones, makes "
              f"them narrower than the classical ones in {tuned_narrower} of {len(t_low)} cases with "
              f"{min(s['ppi_shares']):.0%} hidden (coverage {min(r['coverage_ppi'] for r in t_low):.1%}-"
              f"{max(r['coverage_ppi'] for r in t_low):.1%}) and covers {min(r['coverage_ppi'] for r in t_rows):.1%}-"
              f"{max(r['coverage_ppi'] for r in t_rows):.1%} with {share:.0%} hidden. On DL23's 22,327 pairs (GPT-4 grades for all, "
              f"NIST's on a few), the share of relevant pairs and the mean grade: PPI coverage "
              f"{min(r['coverage_ppi'] for r in l_rows):.1%}-{max(r['coverage_ppi'] for r in l_rows):.1%} over "
              f"the shares hidden ({', '.join(f'{x:.1%}' for x in s['label_shares'])}), statistics and seeds, "
              f"where GPT-4's own mean is off by {min(r['error_cheap'] for r in l_rows):.3f}-"
              f"{max(r['error_cheap'] for r in l_rows):.3f}.", "",
              "What does not follow: every collection here has one LLM (GPT-4) as the judge of whole collections; "
              "the LLMJudge judges are compared on labels only (no runs were scored with their labels); DL23's "
              "judge-bias test has 35 runs, 13 or fewer of them in a family, so its power is low; the topic-"
              "disjoint design confounds the judge with the topics (the null separates topic sampling, not topic "
              "difficulty); and the null drawn with replacement from NIST's 53 (DL21) or 82 (DL23) topics is the "
              "bootstrap's plug-in of the topic population, not a second set of NIST topics.", ""]
    # tables
    if d21:
        key = f"a{s['seeds'][0]}"
        lines += ["## DL21: NIST's 53 topics against GPT-4's 424 (63 runs)", "",
                  "![tau between NIST's and GPT-4's rankings of the 63 DL21 runs, per measure, beside the null]"
                  "(figures/llm_judges_dl21_disjoint.png)", "",
                  f"*Seed {s['seeds'][0]}, null from NIST's topics (resampled: 53 + 424 topics cannot be drawn "
                  "disjointly from 53). p: one-sided, the share of null replicates at or below the observed tau "
                  "(Phipson-Smyth). Over every seed and both nulls: the range of p and the number of runs below the "
                  "null.*", ""]
        v = verdicts(d21["disjoint"])
        rows = [{**r, "p range": f"{min(v[r['measure']]['p']):.3f}-{max(v[r['measure']]['p']):.3f}",
                 "below": f"{v[r['measure']]['below']}/{v[r['measure']]['runs']}"} for r in d21["disjoint"][key]]
        lines += [_table(rows, ["measure", "tau", "tau_low", "tau_high", "null_tau", "null_tau_low", "null_tau_high",
                                "p_tau", "p range", "below", "tau_ap", "null_tau_ap", "p_tau_ap"]), ""]
    key = f"a{s['seeds'][0]}"
    lines += ["## DL23: NIST's 82 topics against SynDL's 618 GPT-4 topics (35 runs, trec_eval scores)", "",
              "![tau between NIST's and SynDL's rankings of the 35 DL23 runs](figures/llm_judges_dl23_disjoint.png)",
              "", f"*From the runs' `trec_eval -q` files (`meta.read_score_files`); seed {s['seeds'][0]}, null from "
              "NIST's topics. Columns as above.*", ""]
    rows = [{**r, "p range": f"{min(v23[r['measure']]['p']):.3f}-{max(v23[r['measure']]['p']):.3f}",
             "below": f"{v23[r['measure']]['below']}/{v23[r['measure']]['runs']}"} for r in d23["disjoint"][key]]
    lines += [_table(rows, ["measure", "tau", "tau_low", "tau_high", "null_tau", "null_tau_low", "null_tau_high",
                            "p_tau", "p range", "below", "tau_ap", "null_tau_ap", "p_tau_ap"]), ""]
    lines += ["## DL23: do runs of the judge's family gain?", "",
              "![ranks under NIST and under SynDL's GPT-4 qrels, and the GPT family's effect per measure]"
              "(figures/llm_judges_bias.png)", "",
              "*The families: " + "; ".join(f"{f} ({', '.join(m)})" for f, m in d23["families"].items()) +
              f". Effect: the family's mean rank change minus the other runs' (positions, positive: the family "
              f"moves up under GPT-4), {s['bias_bootstrap']} two-way bootstrap replicates (topics, then runs within "
              f"the groups); p: one-sided permutation test over the labels, Holm over the measures; seed "
              f"{s['seeds'][0]}.*", ""]
    for family in FAMILIES:
        rows = bias[f"{family}|{s['seeds'][0]}"]
        lines += [f"*{family}*", "", _table(rows, ["measure", "family_runs", "effect_rank", "effect_rank_low",
                                                   "effect_rank_high", "p_rank", "p_rank_holm", "effect_score",
                                                   "p_score"]), ""]
    lines += ["## The LLMJudge challenge: 33 label sets and SynDL's GPT-4 against NIST", "",
              "![the judges ranked by quadratic kappa, with their confusion of grades](figures/llm_judges_ranking.png)",
              "", f"*{jd['pairs']} pairs of {jd['topics']} topics (the challenge's q*/p* ids mapped to DL23's), "
              f"seed {s['seeds'][0]}, {s['label_trials']} topic resamples; two label sets grade outside NIST's 0-3 "
              "(RMITIR-llama70B two 5s, h2oloo-zeroshot2 one 10): mapped to 3 here (`grade_map={5: 3, 10: 3}`); "
              "the three NISTRetrieval-instruct sets never give grade 3. Ranked by quadratic kappa; rank intervals "
              "and ties with the best from the joint resamples.*", ""]
    ranking = jd["rankings"][f"kappa_quadratic|{s['seeds'][0]}"]
    agreement = {r["alternative"]: r for r in jd["agreement"]}
    rows = [{**agreement[r["alternative"]], "rank": r["rank"], "ranks": f"{r['rank_low']}-{r['rank_high']}",
             "tied_best": r["tied_best"]} for r in ranking]
    lines += [_table(rows, ["rank", "alternative", "ranks", "tied_best", "exact", "kappa", "kappa_quadratic",
                            "kappa_quadratic_low", "kappa_quadratic_high", "alpha_ordinal"]), ""]
    lines += ["## Corrected scores (prediction-powered inference)", "",
              "![coverage and width of the PPI and classical intervals on DL19](figures/llm_judges_ppi.png)", "",
              "*DL19: NIST's per-topic scores on the labelled topics, assessor a's or b's on all 43 (the re-annotation "
              "covers every NIST-relevant pair and 400 others; the pairs it does not judge are non-relevant for "
              "both); coverage of the full NIST score over the (repetition, run) cells, mean over the seeds and both "
              "re-annotators.*", ""]
    keyed: dict[tuple, list] = {}
    for rows in c["dl19"].values():
        for r in rows:
            keyed.setdefault((r["share_hidden"], r["measure"]), []).append(r)
    table = [{"share hidden": k[0], "measure": k[1], "labelled": rs[0]["labelled"],
              **{col: float(np.mean([r[col] for r in rs])) for col in ("coverage_ppi", "coverage_classical",
                                                                        "width_ppi", "width_classical", "error_ppi",
                                                                        "error_cheap")}}
             for k, rs in keyed.items()]
    lines += [_table(table, ["share hidden", "measure", "labelled", "coverage_ppi", "coverage_classical", "width_ppi",
                             "width_classical", "error_ppi", "error_cheap"]), ""]
    keyed = {}
    for rows in c["dl23"].values():
        for r in rows:
            keyed.setdefault((r["share_hidden"], r["statistic"]), []).append(r)
    table = [{"share hidden": k[0], "statistic": k[1], "labelled": rs[0]["labelled"],
              **{col: float(np.mean([r[col] for r in rs])) for col in ("coverage_ppi", "coverage_classical",
                                                                        "width_ppi", "width_classical",
                                                                        "error_cheap")}}
             for k, rs in keyed.items()]
    lines += ["*DL23, pairs as units: NIST's grades of a random share of the 22,327 pairs, GPT-4's of all; mean over "
              "the seeds.*", "", _table(table, ["share hidden", "statistic", "labelled", "coverage_ppi",
                                                 "coverage_classical", "width_ppi", "width_classical",
                                                 "error_cheap"], digits=4), ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--render", metavar="JSON", help="print the page of a run's numbers and stop")
    args = ap.parse_args(argv)
    if args.render:
        sys.stdout.write(render(json.loads(Path(args.render).read_text())))
        return
    out = Path(args.out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    numbers = compute(Path(args.data), FULL, out / "figures")
    (out / "llm-judges.json").write_text(json.dumps(numbers, indent=1) + "\n")
    (out / "llm-judges.md").write_text(render(numbers))
    print(f"wrote {out / 'llm-judges.json'}, {out / 'llm-judges.md'} and 5 figures; "
          f"{numbers['seconds']['total']:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
