"""The assessor findings on TREC DL 2019 passage (docs/findings-assessors.md): every number and figure.

    python examples/assessors.py [--data ../shared/data/trec-dl-2019-passage] [--out docs]

For the 39 measures of the paper's Table 1 (cutoff 10) and nDCG@10, AP and RR@10 for comparison,
over the 37 official runs and NIST's qrels as the reference:

1. how much the re-annotators agree with NIST (Cohen's kappa, Krippendorff's alpha);
2. which aggregation of each browsing model keeps NIST's ranking of the runs best when another
   assessor judges (``meta.assessor_variation``, ``judged='shared'``): "assessor a" (the union of
   the four ``groupN-assessor-a`` files, all 43 topics), "assessor b" (the b files), two consensus
   qrels (``meta.combine_qrels``: the majority grade of NIST, a and b; the mean grade of a and b),
   and the 8 group files one by one, on their own topics; with 95% bootstrap intervals over the
   topics (2000 resamples) and a simultaneous paired test within each browsing model, so that a
   difference within noise is a tie;
3. whether that ordering agrees with consistency, robustness to incomplete judgments and pooling
   bias on DL19 (those three criteria run as ``ir-cwla meta`` runs them: its defaults, seed 0);
4. whether the ERG aggregation the paper recommends is also the most assessor-robust;
5. whether the calls survive another seed (1 and 2) and ``judged='policy'``.

Writes the figures to ``OUT/figures/`` and prints every table of the page as Markdown (the page
copies this output). Takes a few minutes on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

from ir_cwla import io, meta, table1  # noqa: E402
from ir_cwla.analysis import naming, streams, tukey  # noqa: E402
from ir_cwla.errors import UndefinedStatisticWarning  # noqa: E402
from ir_cwla.meta import criteria  # noqa: E402
from ir_cwla.meta.plots import AGGREGATION_STYLES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "trec-dl-2019-passage"
EXTRA = ["nDCG@10", "AP", "RR@10"]
ALPHA = 0.05


def markdown(frame: pd.DataFrame, digits: int = 3) -> str:
    """A frame as a Markdown table (numbers with ``digits`` decimals)."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else f"{v:.{digits}f}"
        return str(v)
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(frame[c]) else "---" for c in frame.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def show(title: str, frame: pd.DataFrame, digits: int = 3) -> None:
    print(f"\n#### {title}\n\n{markdown(frame, digits)}\n", flush=True)


def top_set(values: pd.Series, p: pd.DataFrame, higher: bool = True) -> list[str]:
    """The best measure and every one not significantly worse than it (p >= ALPHA): the tie at the top."""
    best = values.idxmax() if higher else values.idxmin()
    return [m for m in values.sort_values(ascending=not higher).index if m == best or p.at[best, m] >= ALPHA]


def agg(measure: str) -> str:
    return (naming.aggregation(measure) or naming.label(measure)) + ("*" if naming.is_canonical(measure) else "")


def by_measure(table: pd.DataFrame, result: meta.AssessorVariation) -> pd.DataFrame:
    """A table of the criterion (measures named by label) with ``measure`` as ``str(measure)``."""
    by_label = {label: m for m, label in result.labels.items()}
    return table.assign(measure=table["measure"].map(lambda label: by_label.get(label, label)))


def family_cells(result: meta.AssessorVariation, alternatives: list[str]) -> pd.DataFrame:
    """Per family (columns), the aggregations best first.

    ``agg (k) tau [low, high]``, with the tie at the top in bold.
    """
    ranking = by_measure(result.robustness(alternative=alternatives), result)
    columns = {}
    for group, part in ranking.groupby("group", sort=False):
        members = result.groups[group]
        if len(members) < 2:
            continue
        p = result.p_values(group, alternatives)
        p.index = p.columns = members
        values = part.set_index("measure")["tau"]
        tied = set(top_set(values, p))
        cells = []
        for row in part.itertuples():
            text = f"{agg(row.measure)} ({row.outperforms}) {row.tau:.3f} [{row.tau_low:.2f}, {row.tau_high:.2f}]"
            cells.append(f"**{text}**" if row.measure in tied else text)
        columns[str(group)] = cells
    depth = max(len(v) for v in columns.values())
    return pd.DataFrame({k: v + [""] * (depth - len(v)) for k, v in columns.items()},
                        index=pd.RangeIndex(1, depth + 1, name="rank")).reset_index()


def other_criteria(runs, nist, measures, seed: int):
    """Consistency, incompleteness and pooling bias, as ``ir-cwla meta`` runs them (defaults)."""
    per_query = meta.evaluate(runs, nist, measures, progress=False)
    inputs = criteria.Inputs(per_query, measures, runs, nist, groups=meta.browsing_model, seed=seed, alpha=ALPHA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        done = criteria.run(["consistency", "incompleteness", "pooling_bias"], inputs)
    return done


def criterion_values(done, measures: list[str], seed: int) -> dict[str, tuple[pd.Series, dict, bool]]:
    """Per criterion, its values, p-values and direction.

    Per criterion: its value per measure, its p-values per family (the test its summary uses) and
    whether higher is better.
    """
    cons, inc, pool = (done.results[k] for k in ("consistency", "incompleteness", "pooling_bias"))
    per_trial = inc.trials.pivot_table(index="trial", columns="measure", values="tau", aggfunc="mean")
    runs = pool.runs[pool.runs["depth"] == pool.runs["depth"].min()]
    per_run = runs.pivot(index="system", columns="measure", values="abs_rank_change")
    out = {"consistency": (cons.mean_tau, {}, True), "incompleteness": (per_trial.mean(axis=0), {}, True),
           "pooling bias": (per_run.mean(axis=0), {}, False)}
    for group, members in cons.groups.items():
        out["consistency"][1][group] = cons.p_values[group]
        p = tukey.randomised_tukey_hsd(per_trial[members].to_numpy(), 2000,
                                       streams.derive(inc.seed, streams.INCOMPLETENESS_STREAM))
        out["incompleteness"][1][group] = pd.DataFrame(p, index=members, columns=members)
        p = tukey.randomised_tukey_hsd(per_run[members].to_numpy(), 2000, seed)
        out["pooling bias"][1][group] = pd.DataFrame(p, index=members, columns=members)
    return out


def plot_criteria(assessor: pd.Series, others: dict, groups: dict, path: Path) -> pd.DataFrame:
    """Assessor robustness against each other criterion, one point per measure.

    Assessor robustness (mean tau, a and b) against each other criterion, one point per measure
    in its aggregation's colour; returns the rank correlations over the 39 measures.
    """
    import matplotlib.pyplot as plt

    names = {"consistency": "consistency: mean tau between topic halves",
             "incompleteness": "incompleteness: mean tau with the full qrels",
             "pooling bias": "pooling bias: mean |rank change| of a left-out run"}
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.0), layout="constrained", sharey=True)
    rows = []
    measures = [m for members in groups.values() for m in members]
    for ax, (name, (values, _, _)) in zip(axes, others.items()):
        x, y = values.reindex(measures).to_numpy(), assessor.reindex(measures).to_numpy()
        for m, xi, yi in zip(measures, x, y):
            colour, marker = AGGREGATION_STYLES[naming.aggregation(m)]
            ax.plot(xi, yi, marker=marker, color=colour, linestyle="none", ms=6,
                    mec="black" if naming.is_canonical(m) else colour)
        rho = stats.spearmanr(x, y).statistic
        ax.set_title(f"{name.split(':')[0]} (Spearman {rho:+.2f} over 39 measures)", fontsize=10)
        ax.set_xlabel(names[name], fontsize=9)
        ax.grid(True, alpha=0.25)
        rows.append({"criterion": name, "spearman_39": rho})
    axes[0].set_ylabel("assessor robustness: mean tau vs NIST (a, b)", fontsize=9)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], linestyle="none", marker=m, color=c, ms=6) for c, m in AGGREGATION_STYLES.values()]
    fig.legend(handles + [Line2D([], [], linestyle="none", marker="o", color="white", mec="black", ms=6)],
               list(AGGREGATION_STYLES) + ["canonical (*)"], loc="outside lower center", ncol=8, fontsize=8,
               frameon=False)
    fig.suptitle("DL19 passage, 37 runs: is the most assessor-robust measure also the most robust otherwise? (seed 0)")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return pd.DataFrame(rows)


# ============================================================================ the 8 pairings

#: Where the numbers of every pairing are kept (``--pairings``), and the page whose headline
#: findings are rendered from them.
PAIRINGS_JSON = ROOT / "docs" / "assessors-pairings.json"
PAGE = ROOT / "docs" / "findings-assessors.md"
BEGIN = ("<!-- generated by examples/assessors.py --pairings from docs/assessors-pairings.json: rerun it, "
         "do not edit -->")
END = "<!-- end of the generated headline findings -->"
CANON_ORDER = ("P", "DCG", "RBP", "INST", "AP", "ERR")


def pairings(files: dict) -> list[tuple[str, dict, dict]]:
    """The 8 equally valid ways of calling one file of each group "a" and the other "b".

    Each group's two files are two people with no order between them, so any choice of one file
    per group is an "assessor a" and the other files "assessor b": 2^4 choices, of which those
    that swap every group give the same two qrels with their names exchanged, so 8 pairings
    (group 1's ``-a`` file always in "a"). Returns ``[(name, a_files, b_files)]``, the published
    pairing (every ``-a`` file in "a") first; ``name`` lists the files of "a", e.g. ``1a 2b 3a 4a``.
    """
    out = []
    for flips in range(8):
        pick = ["a"] + ["b" if flips >> (g - 2) & 1 else "a" for g in range(2, 5)]
        other = ["b" if x == "a" else "a" for x in pick]
        name = " ".join(f"{g}{x}" for g, x in zip(range(1, 5), pick))
        out.append((name, {f"g{g}{x}": files[f"g{g}{x}"] for g, x in zip(range(1, 5), pick)},
                    {f"g{g}{x}": files[f"g{g}{x}"] for g, x in zip(range(1, 5), other)}))
    return out


def pairing_numbers(runs, nist, a, b, measures, others, kwargs, seed: int) -> dict:
    """What the headline findings quote, for one pairing (assessors a and b and their consensus)."""
    majority = meta.combine_qrels({"NIST": nist, "a": a, "b": b}, method="majority")
    mean_ab = meta.combine_qrels({"a": a, "b": b}, method="mean")
    alts = {"a": a, "b": b, "majority(NIST,a,b)": majority, "mean(a,b)": mean_ab}
    with warnings.catch_warnings():          # a resample of topics without a grade pair: said by the tables
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        labels = meta.label_agreement(nist, {"a": a, "b": b}, trials=200, seed=seed)
        agreement = labels.table(["exact", "kappa", "alpha_ordinal"]).set_index("alternative")
        result = meta.assessor_variation(runs, nist, alts, measures, **kwargs)
    rows = by_measure(result.table(list(alts)), result)
    out: dict = {"agreement": {x: {k: round(float(agreement.at[x, k]), 6) for k in ("exact", "kappa",
                                                                                   "alpha_ordinal")}
                               for x in ("a", "b")}}
    keep = ["tau", "max_rank_move", "significant_reference", "significant_alternative", "consistency_reference",
            "consistency_alternative"]
    out["measures"] = {x: {naming.label(r.measure): {k: (round(float(getattr(r, k)), 6) if k.startswith(("tau",
                                                                                                         "cons"))
                                                         else int(getattr(r, k))) for k in keep}
                           for r in rows[rows["alternative"] == x].itertuples()} for x in alts}
    tau_ab = result.agreement[result.agreement["alternative"].isin(["a", "b"])].groupby("measure")["tau"].mean()
    families = {}
    for group, members in result.groups.items():
        if len(members) < 2:
            continue
        fam: dict = {}
        for which, chosen in (("a", ["a"]), ("b", ["b"]), ("a, b", ["a", "b"]), ("mean(a,b)", ["mean(a,b)"]),
                              ("majority(NIST,a,b)", ["majority(NIST,a,b)"])):
            p = result.p_values(group, chosen)
            p.index = p.columns = members
            tau = result.agreement[result.agreement["alternative"].isin(chosen)].groupby("measure")["tau"].mean()
            tau = tau[members]
            significant = sorted(f"{agg(i)} > {agg(j)}" for i in members for j in members
                                 if i != j and tau[i] > tau[j] and p.at[i, j] < ALPHA)
            fam[which] = {"best": agg(tau.idxmax()), "tied": [agg(m) for m in top_set(tau, p)],
                          "significant": significant}
        p = result.p_values(group, ["a", "b"])
        p.index = p.columns = members
        erg = next(m for m in members if naming.aggregation(m) == "ERG")
        fam["ERG"] = {"rank": int((tau_ab[members] > tau_ab[erg] + 1e-12).sum()) + 1,
                      "beaten_by": [agg(m) for m in members if tau_ab[m] > tau_ab[erg] and p.at[erg, m] < ALPHA],
                      "beats": [agg(m) for m in members if tau_ab[erg] > tau_ab[m] and p.at[erg, m] < ALPHA],
                      "p_vs_best": round(float(p.at[erg, tau_ab[members].idxmax()]), 6)}
        families[str(group)] = fam
    out["families"] = families
    cwla = [str(m) for m in table1()]
    out["spearman"] = {name: round(float(stats.spearmanr(values.reindex(cwla).to_numpy(),
                                                         tau_ab.reindex(cwla).to_numpy()).statistic), 6)
                       for name, (values, _, _) in others.items()}
    return out


def run_pairings(runs, nist, files, measures, others, kwargs, seed: int, progress: bool = True) -> dict:
    """:func:`pairing_numbers` of every pairing, with the settings they were computed with."""
    clock = time.perf_counter()
    done = {}
    for name, a_files, b_files in pairings(files):
        a = io.as_qrels_frame(pd.concat(list(a_files.values()), ignore_index=True), "assessor a")
        b = io.as_qrels_frame(pd.concat(list(b_files.values()), ignore_index=True), "assessor b")
        done[name] = pairing_numbers(runs, nist, a, b, measures, others, kwargs, seed)
        if progress:
            print(f"  pairing a = {name}: done, {time.perf_counter() - clock:.0f} s", flush=True)
    settings = {k: v for k, v in kwargs.items() if k in ("judged", "test_trials", "splits", "bootstrap", "seed",
                                                          "alpha")}
    return {"settings": settings, "runs": len(runs), "seconds": round(time.perf_counter() - clock), "pairings": done}


def compact_json(numbers: dict) -> str:
    """``numbers`` as JSON, indented, with every innermost object or list on one line."""
    text = json.dumps(numbers, indent=1, ensure_ascii=False)
    return re.sub(r"[\[{][^\[\]{}]*[\]}]", lambda m: " ".join(m.group(0).split()), text)


def _span(values, digits: int = 3) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}" if round(lo, digits) == round(hi, digits) else f"{lo:.{digits}f}-{hi:.{digits}f}"


def _count(values, want) -> int:
    return sum(v == want for v in values)


def render_headlines(numbers: dict) -> str:
    """The page's headline findings, each stated over every pairing (from ``--pairings``' JSON)."""
    ps = numbers["pairings"]
    names = list(ps)
    published = ps[names[0]]
    n = len(ps)
    s = numbers["settings"]

    def over(get, digits=3, who=("a", "b"), unit=""):
        """``lo-hi`` over the pairings (and ``who``), with the published pairing's values (a / b)."""
        every = [get(p, x) for p in ps.values() for x in who]
        pub = [get(published, x) for x in who]
        return (f"{_span(every, digits)}{unit} (published pairing: "
                f"{' / '.join(f'{v:.{digits}f}{unit}' for v in pub)})")

    canon = [m for m in published["measures"]["a"] if naming.is_canonical(m)]
    canon_tau = [p["measures"][x][m]["tau"] for p in ps.values() for x in ("a", "b") for m in canon]
    canon_pub = [published["measures"][x][m]["tau"] for x in ("a", "b") for m in canon]
    moves = [p["measures"][x][m]["max_rank_move"] for p in ps.values() for x in ("a", "b") for m in canon]
    lines = [BEGIN, "", "## Headline findings", "",
             f"Every number below is stated over the **{n} equally valid pairings** of the group files into "
             "\"assessor a\" and \"assessor b\" (each group's two files are two people in no order: any choice of "
             "one file per group makes an \"a\", the other files \"b\"; swapping every group only exchanges the "
             f"names, so there are {n}), as ranges over the pairings, with the pairing the tables below use "
             "(every `-a` file in \"a\", the *published pairing*) in brackets, and for every \"best\" the number "
             f"of the {n} pairings in which it holds. Settings: judged='{s['judged']}', {s['bootstrap']} bootstrap "
             f"resamples, {s['test_trials']} Tukey HSD permutations, {s['splits']} topic splits, seed {s['seed']}; "
             f"`python examples/assessors.py --pairings` ({numbers['seconds'] / 60:.0f} min) writes "
             "`docs/assessors-pairings.json` and this section, and `tests/test_findings.py` checks that the section "
             "is what the script makes of that file.", ""]
    rr = "RR@10"
    worst_extra = [min(("nDCG@10", "AP", rr), key=lambda m: p["measures"][x][m]["tau"]) for p in ps.values()
                   for x in ("a", "b")]
    lines += [
        "1. **The labels disagree, the rankings mostly do not.** The re-annotators agree with NIST on "
        f"{over(lambda p, x: 100 * p['agreement'][x]['exact'], 0, unit='%')} of the pairs; Cohen's kappa "
        f"{over(lambda p, x: p['agreement'][x]['kappa'])}, ordinal Krippendorff's alpha "
        f"{over(lambda p, x: p['agreement'][x]['alpha_ordinal'])}. Yet the six canonical measures keep NIST's "
        f"ranking of the {numbers['runs']} runs with tau {_span(canon_tau)} under either assessor of any pairing "
        f"(published: {_span(canon_pub)}); the system that moves most moves {min(moves)}-{max(moves)} positions. "
        f"nDCG@10: tau {over(lambda p, x: p['measures'][x]['nDCG@10']['tau'])}; ir-measures' AP: "
        f"{over(lambda p, x: p['measures'][x]['AP']['tau'])}; RR@10: {over(lambda p, x: p['measures'][x][rr]['tau'])}. "
        f"Of the three, RR@10 is the least robust in {_count(worst_extra, rr)} of the {2 * n} (pairing, assessor) "
        f"cases; AP_ERR@10, the least robust C/W/L/A measure, has tau "
        f"{over(lambda p, x: p['measures'][x]['AP_ERR@10']['tau'])}.",
    ]
    # 2. the best aggregation per model, a and b together
    best_rows = []
    for family in published["families"]:
        bests = [p["families"][family]["a, b"]["best"] for p in ps.values()]
        tally = sorted({b: bests.count(b) for b in bests}.items(), key=lambda kv: (-kv[1], kv[0]))
        best_rows.append(f"{family.split('@')[0]}: " + ", ".join(f"{b} in {k}" for b, k in tally))
    sig = {which: [sum(bool(p["families"][f][which]["significant"]) for f in p["families"]) for p in ps.values()]
           for which in ("a", "b", "a, b")}
    sig_pairs = {}
    for p in ps.values():
        for f, fam in p["families"].items():
            for pair in fam["a, b"]["significant"]:
                key = f"{f.split('@')[0]}: {pair}"
                sig_pairs[key] = sig_pairs.get(key, 0) + 1
    sig_text = ", ".join(f"{k} ({v} of {n})" for k, v in sorted(sig_pairs.items(), key=lambda kv: (-kv[1], kv[0])))
    lines += [
        "2. **Which aggregation keeps NIST's ranking best, per browsing model (the mean tau under a and b, 43 "
        f"topics)?** The nominal best, and in how many of the {n} pairings: " + "; ".join(best_rows) + ". "
        "So a nominal winner is a property of the pairing as much as of the aggregation. And on 43 topics "
        "**almost everything is a tie**: the families with at least one significant difference number "
        f"{_span(sig['a'], 0)} of 6 under a alone, {_span(sig['b'], 0)} under b alone and {_span(sig['a, b'], 0)} "
        f"on the mean of a and b; the significant differences on the mean, with the pairings they hold in: "
        f"{sig_text or 'none'}.",
        "3. **With more comparisons, the same order with some resolution.** The 8 group files one by one (the "
        "tables below) do not depend on the pairing: P: ERG = ETG = avg, each significantly better than PE, max "
        "and fin; DCG: ERG and ETG, each better than 3 of the other 4; INST: ETG (better than 4), ERG (better "
        "than 2) and fin (1) tied at the top; AP: ETG (better than 5) and ERG (better than 2) tied; RBP: all but "
        "max tied; ERR: all seven tied. Per file, the best aggregation varies (ERR: five different winners in 8 "
        "files), and ERG is tied with the best in **8 of 8 files in every model**.",
    ]
    erg_ranks = {f: [p["families"][f]["ERG"]["rank"] for p in ps.values()] for f in published["families"]}
    never_beaten = sum(all(not p["families"][f]["ERG"]["beaten_by"] for f in p["families"]) for p in ps.values())
    p_min = min(p["families"][f]["ERG"]["p_vs_best"] for p in ps.values() for f in p["families"])
    top2 = sum(all(p["families"][f]["ERG"]["rank"] <= 2 for f in p["families"]) for p in ps.values())
    lines += [
        "4. **ERG, which the paper recommends, is among the most assessor-robust, not uniquely the most.** Its "
        "rank (a and b) per model over the pairings: " + "; ".join(
            f"{f.split('@')[0]} {_span(r, 0)}" for f, r in erg_ranks.items()) +
        f". It ranks first or second in every model in {top2} of {n} pairings, and no aggregation beats it "
        f"significantly in {never_beaten} of {n} (adjusted p against the nominal best >= {p_min:.3f} over every "
        "pairing and model). ETG, its unnormalised twin, is as robust or nominally more in some models; the "
        "difference is within noise.",
    ]
    rho = {k: [p["spearman"][k] for p in ps.values()] for k in published["spearman"]}
    lines += [
        "5. **Assessor robustness goes with consistency, less with incompleteness, not with pooling bias** (DL19, "
        "the three criteria run as `ir-cwla meta` runs them, seed 0, on NIST's qrels: they do not depend on the "
        "pairing). Over the 39 measures, Spearman's rho between the mean tau under a and b and "
        + ", ".join(f"{k}: {_span(v, 2)} (published {published['spearman'][k]:.2f})" for k, v in rho.items())
        + ". The within-model comparison of the criteria (the table below) is of the published pairing only.",
    ]
    more = {x: [sum(e["significant_alternative"] > e["significant_reference"] for e in p["measures"][x].values())
                for p in ps.values()] for x in ("a", "b")}
    total = len(published["measures"]["a"])
    cons = [abs(e["consistency_alternative"] - e["consistency_reference"]) for p in ps.values() for x in ("a", "b")
            for e in p["measures"][x].values()]
    lines += [
        "6. **Stable across seeds, and the re-assessors' labels separate more runs.** With seeds 1 and 2 (the "
        "published pairing) the ties at the top are the same in every model but one (P@10, seed 2: PE leaves the "
        "tie); bootstrap standard errors move by at most 0.003. The measures with more significant run pairs "
        f"(randomised Tukey HSD, {s['test_trials']} trials) under the re-assessor than under NIST number "
        f"{_span(more['a'], 0)} of {total} under a and {_span(more['b'], 0)} of {total} under b over the pairings "
        f"(published: {more['a'][0]} and {more['b'][0]}); counts, not tested. Consistency changes by at most "
        f"{max(cons):.2f} over every pairing, assessor and measure.",
        "",
        f"What does not follow: these are one collection, 43 topics and {numbers['runs']} runs (many of "
        "them variants of a few systems), and one re-annotation study whose \"assessor a\" and \"b\" are four "
        "people each, paired arbitrarily. The nominal order of the aggregations (finding 2) is mostly noise at "
        "this size; only the differences marked significant, with the number of pairings they hold in, and "
        "finding 4's \"never significantly beaten\", are supported here. The second TREC collection with NIST "
        "judgments here (DL21, `../shared/data/llm-judgments/dl21/`) has no second human assessor of the same "
        "pairs (its GPT-4 grades are of other topics), so these findings cannot be re-run on it; the findings "
        "of [Findings](findings.md) that do not need a second assessor are re-run on DL21 there.",
        "", END,
    ]
    return "\n".join(lines)


def write_headlines(numbers: dict, page: Path = PAGE) -> None:
    """Replaces the generated section of ``page`` with :func:`render_headlines`."""
    text = page.read_text()
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    page.write_text(text[:start] + render_headlines(numbers) + text[stop:])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bootstrap", type=int, default=2000)
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--pairings", action="store_true",
                    help="only the headline findings over the 8 pairings of the group files: writes "
                         "OUT/assessors-pairings.json and the headline section of OUT/findings-assessors.md")
    ap.add_argument("--render-pairings", default=None, metavar="JSON",
                    help="only rewrite the headline section of OUT/findings-assessors.md from JSON")
    args = ap.parse_args(argv)
    if args.render_pairings:
        write_headlines(json.loads(Path(args.render_pairings).read_text()), Path(args.out) / PAGE.name)
        return
    data, figures = Path(args.data), Path(args.out) / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore", UndefinedStatisticWarning)
    clock = time.perf_counter()

    nist = io.read_trec_qrels(data / "qrels.dl19-passage.txt")
    runs = {meta.run_name(p): io.read_trec_run(p) for p in sorted((data / "runs").glob("input.*.gz"))}
    files = {f"g{g}{x}": io.read_trec_qrels(data / "reannotation" / f"group{g}-assessor-{x}.txt")
             for g in range(1, 5) for x in "ab"}
    a = io.as_qrels_frame(pd.concat([files[f"g{g}a"] for g in range(1, 5)], ignore_index=True), "assessor a")
    b = io.as_qrels_frame(pd.concat([files[f"g{g}b"] for g in range(1, 5)], ignore_index=True), "assessor b")
    majority = meta.combine_qrels({"NIST": nist, "a": a, "b": b}, method="majority")
    mean_ab = meta.combine_qrels({"a": a, "b": b}, method="mean")
    main_alts = {"a": a, "b": b, "majority(NIST,a,b)": majority, "mean(a,b)": mean_ab}
    measures = list(table1()) + EXTRA
    kwargs = dict(judged="shared", test_trials=2000, splits=1000, bootstrap=args.bootstrap, seed=args.seed,
                  alpha=ALPHA, groups=meta.browsing_model, reference_name="NIST", progress=False, n_jobs=args.n_jobs)
    if args.pairings:
        done = other_criteria(runs, nist, list(table1()), args.seed)
        others = criterion_values(done, [str(m) for m in table1()], args.seed)
        numbers = run_pairings(runs, nist, files, measures, others, kwargs, args.seed)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / PAIRINGS_JSON.name).write_text(compact_json(numbers) + "\n")
        if (out / PAGE.name).exists():
            write_headlines(numbers, out / PAGE.name)
        print(render_headlines(numbers))
        return
    print(f"DL19 passage: {len(runs)} runs, {nist['query_id'].nunique()} topics, {len(nist)} NIST judgments; "
          f"assessor a {len(a)} judgments, b {len(b)}, majority(NIST,a,b) {len(majority)}, mean(a,b) {len(mean_ab)}; "
          f"seed {args.seed}, {args.bootstrap} bootstrap resamples")

    # 1. label agreement, for context
    labels = meta.label_agreement(nist, {**main_alts, **files}, trials=1000, seed=args.seed)
    table = labels.table(["exact", "kappa", "kappa_quadratic", "alpha_ordinal"])
    show("Label agreement with NIST on the pairs both judged (95% bootstrap intervals over topics, seed "
         f"{args.seed})", table[["alternative", "judged_both", "exact", "kappa", "kappa_quadratic",
                                 "alpha_ordinal", "alpha_ordinal_low", "alpha_ordinal_high"]])

    # 2. assessor robustness
    result = meta.assessor_variation(runs, nist, main_alts, measures, **kwargs)
    groups_result = meta.assessor_variation(runs, nist, files, measures, **kwargs)
    show("Topics and pairs compared (judged='shared')",
         pd.concat([result.coverage, groups_result.coverage], ignore_index=True), 0)
    for name, alts in (("assessor a", ["a"]), ("assessor b", ["b"]), ("a and b (mean tau)", ["a", "b"]),
                       ("majority(NIST,a,b)", ["majority(NIST,a,b)"]), ("mean(a,b)", ["mean(a,b)"])):
        show(f"Aggregations by Kendall's tau with NIST's ranking, {name}: agg (k) tau [95% interval]; (k): "
             "significantly better than k of its family; bold: tied with the best", family_cells(result, alts))
    show("The 8 group files together (mean tau over the 8, each on its own topics)",
         family_cells(groups_result, list(files)))
    both = result.table(["a", "b"])
    singles = both[both["measure"].isin(EXTRA) | both["measure"].map(naming.is_canonical)]
    show("The six canonical measures and the ir-measures ones: every statistic, assessors a and b",
         singles[["alternative", "measure", "tau", "tau_low", "tau_high", "tau_ap", "rbo", "pearson", "spearman",
                  "max_rank_move", "moved_system", "moved_by", "significant_reference", "significant_alternative",
                  "consistency_reference", "consistency_alternative"]])

    # per group file: the best of each family, and where ERG stands
    rows = []
    for name in files:
        part = by_measure(groups_result.robustness(alternative=name), groups_result)
        for group, fam in part.groupby("group", sort=False):
            members = groups_result.groups[group]
            if len(members) < 2:
                continue
            p = groups_result.p_values(group, name)
            p.index = p.columns = members
            tied = top_set(fam.set_index("measure")["tau"], p)
            erg = next(m for m in members if naming.aggregation(m) == "ERG")
            rows.append({"group": group, "file": name, "best": agg(fam["measure"].iloc[0]), "tied_with_best": len(tied),
                         "ERG_rank": int(fam.set_index("measure").at[erg, "rank"]), "ERG_tied_with_best": erg in tied})
    per_file = pd.DataFrame(rows)
    summary = per_file.groupby("group", sort=False).agg(
        best_per_file=("best", lambda s: ", ".join(s)), ERG_top_tied=("ERG_tied_with_best", "sum"),
        ERG_median_rank=("ERG_rank", "median")).reset_index()
    show("Per group file (on its own topics): the best aggregation, and in how many of the 8 files ERG is tied "
         "with the best", summary, 1)

    # 3. the other criteria, as `ir-cwla meta` runs them
    done = other_criteria(runs, nist, list(table1()), args.seed)
    others = criterion_values(done, [str(m) for m in table1()], args.seed)
    assessor_tau = result.agreement[result.agreement["alternative"].isin(["a", "b"])].groupby("measure")["tau"].mean()
    p_assessor = {g: result.p_values(g, ["a", "b"]) for g in result.groups}
    rows = []
    for group, members in result.groups.items():
        if len(members) < 2:
            continue
        p = p_assessor[group]
        p.index = p.columns = members
        row = {"family": group, "assessors (a, b)": ", ".join(agg(m) for m in top_set(assessor_tau[members], p))}
        for name, (values, p_values, higher) in others.items():
            row[name] = ", ".join(agg(m) for m in top_set(values[members], p_values[group], higher))
        for name, (values, _, higher) in others.items():
            row[f"tau vs {name}"] = stats.kendalltau(assessor_tau[members],
                                                     values[members] * (1 if higher else -1)).statistic
        rows.append(row)
    agreement = pd.DataFrame(rows)
    show("Best (and tied with the best) aggregations per criterion, and Kendall's tau between the assessor order "
         "and each criterion's order within the family (7 or 4 aggregations: a tau is very uncertain)", agreement)
    correlations = plot_criteria(assessor_tau, others, {g: m for g, m in result.groups.items() if len(m) > 1},
                                 figures / "assessors-criteria.png")
    show("Spearman correlation over the 39 measures between assessor robustness and each criterion", correlations)

    # 4. ERG
    rows = []
    for group, members in result.groups.items():
        if len(members) < 2:
            continue
        p = p_assessor[group]
        erg = next(m for m in members if naming.aggregation(m) == "ERG")
        best = assessor_tau[members].idxmax()
        beats = [agg(m) for m in members if m != erg and assessor_tau[erg] > assessor_tau[m] and p.at[erg, m] < ALPHA]
        beaten = [agg(m) for m in members if m != erg and assessor_tau[m] > assessor_tau[erg] and p.at[erg, m] < ALPHA]
        rows.append({"family": group, "ERG tau (a, b)": assessor_tau[erg],
                     "rank": int((assessor_tau[members] > assessor_tau[erg] + 1e-12).sum()) + 1,
                     "best": f"{agg(best)} {assessor_tau[best]:.3f}", "p(ERG vs best)": p.at[erg, best],
                     "ERG beats significantly": ", ".join(beats) or "-",
                     "beat ERG significantly": ", ".join(beaten) or "-"})
    show("ERG, the aggregation the paper recommends, under assessors a and b (simultaneous bootstrap test, "
         f"alpha {ALPHA})", pd.DataFrame(rows))

    # 5. another seed, and judged='policy'
    cwla = list(table1())
    rows = []
    for seed in (1, 2):
        again = meta.assessor_variation(runs, nist, {"a": a, "b": b}, cwla,
                                        **{**kwargs, "seed": seed, "splits": 200})
        tau = again.agreement.groupby("measure")["tau"].mean()
        for group, members in again.groups.items():
            p = again.p_values(group)
            p.index = p.columns = members
            here = top_set(tau[members], p)
            p0 = p_assessor[group]
            base = top_set(assessor_tau[members], p0)
            rows.append({"seed": seed, "family": group, "tied with the best": ", ".join(agg(m) for m in here),
                         "same as seed 0": here == base,
                         "max |se change|": float(np.abs(
                             by_measure(again.robustness(), again).set_index("measure")["tau_se"]
                             - by_measure(result.robustness(alternative=["a", "b"]), result)
                             .set_index("measure")["tau_se"]).reindex(members).max())})
    show("Seed to seed: the tie at the top with seeds 1 and 2 (assessors a and b)", pd.DataFrame(rows))
    policy = meta.assessor_variation(runs, nist, {"a": a, "b": b}, measures, **{**kwargs, "judged": "policy",
                                                                               "splits": 200})
    diff = (policy.agreement.set_index(["alternative", "measure"])["tau"]
            - result.agreement.set_index(["alternative", "measure"])["tau"]).dropna()
    print(f"judged='policy' against judged='shared' for a and b: largest |difference of tau| over the "
          f"{len(diff)} (alternative, measure) pairs = {diff.abs().max():.3g}")

    # figures
    families = [g for g, m in result.groups.items() if len(m) > 1]
    fig = result.plot(alternatives=list(main_alts), groups=families,
                      title=f"DL19 passage, 37 runs, NIST vs other assessors (seed {args.seed})")
    fig.savefig(figures / "assessors-tau.png", dpi=110)
    fig = groups_result.plot(groups=families, title="DL19 passage, NIST vs each group file on its own topics "
                                                    f"(seed {args.seed})")
    fig.savefig(figures / "assessors-groups.png", dpi=110)
    fig = result.plot("rbo", alternatives=["a", "b"], groups=families,
                      title="DL19 passage, top-weighted agreement with NIST (RBO, p = 0.9)")
    fig.savefig(figures / "assessors-rbo.png", dpi=110)
    print(f"\nfigures: {', '.join(sorted(p.name for p in figures.glob('assessors-*.png')))}; "
          f"{time.perf_counter() - clock:.0f} s")


if __name__ == "__main__":
    main()
