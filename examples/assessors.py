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
import os
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

from ir_cwla import io, meta, table1  # noqa: E402
from ir_cwla.errors import UndefinedStatisticWarning  # noqa: E402
from ir_cwla.meta import criteria, naming, streams, tukey  # noqa: E402
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


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bootstrap", type=int, default=2000)
    ap.add_argument("--n-jobs", type=int, default=None)
    args = ap.parse_args(argv)
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
    kwargs = dict(judged="shared", test_trials=2000, splits=1000, bootstrap=args.bootstrap, seed=args.seed,
                  alpha=ALPHA, groups=meta.browsing_model, reference_name="NIST", progress=False, n_jobs=args.n_jobs)
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
