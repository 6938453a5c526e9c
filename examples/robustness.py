r"""Robustness of the Table-1 measures to incomplete judgments and to pooling bias, on any qrels + runs.

    python examples/robustness.py --qrels ../shared/data/trec-dl-2019-passage/qrels.dl19-passage.txt \
        --runs ../shared/data/trec-dl-2019-passage/runs --out robustness-dl19

Beyond the paper's three criteria: for the 39 measures of Table 1 at cutoff 10 (plus any
``--extra`` ir-measures measures, e.g. ``nDCG@10``, or measures with an unjudged-documents
policy), writes to ``--out``

- incompleteness: 20 random subsets (stratified by relevance) per fraction of the judgments,
  the system ranking compared with the full-qrels one by Kendall's tau, tau_AP and RBO, and
  the qrels of depth-1..20 pools of the runs;
- pooling bias: leave one run out at depth 10 (the run's unique judged documents removed);
- how the aggregations of each browsing model rank under these two criteria next to their
  consistency (1000 topic splits, the paper's Table 3 criterion),

as Markdown and CSV tables and PNG figures. ``--policies zero condense max`` adds the same
two analyses for the six canonical measures under each unjudged-documents policy
(``CWLA(..., unjudged=...)``), side by side per measure. ``--n-jobs 2`` or ``--scheduler``
run the trials on local processes / Dask (same numbers). ``--out`` is written whole or not
at all (``ir_cwla.app.report.staged``): a new directory, or one this script wrote before.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from ir_cwla import CWLA, canonical, meta, parse_measure, table1  # noqa: E402
from ir_cwla.analysis import naming  # noqa: E402
from ir_cwla.app import report  # noqa: E402
from ir_cwla.meta import robustness, tables  # noqa: E402
from ir_cwla.meta.kendall import tau_b_rows  # noqa: E402


def criteria_side_by_side(cons: meta.Consistency, inc: meta.Incompleteness, pool: meta.PoolingBias,
                          depth: int) -> pd.DataFrame:
    """Per family (columns) and aggregation (rows).

    Its rank (1 = best) under consistency / incompleteness / pooling bias, then Kendall's
    tau between the consistency order and each of the two others (over the family's
    measures).
    """
    # every table names measures by their labels (short names); cons.mean_tau is keyed by str(measure)
    scores = {"consistency": cons.mean_tau.rename(index=cons.labels),
              "incompleteness": inc.robustness("tau").set_index("measure")["tau"],
              "pooling": -pool.table().query("depth == @depth").set_index("measure")["mean_abs_rank_change"]}
    cells: dict[str, dict[str, str]] = {}
    for group, members in inc.groups.items():
        frame = pd.DataFrame({k: v.reindex([inc.labels[m] for m in members]) for k, v in scores.items()})
        frame.index = members
        ranks = frame.rank(ascending=False, method="min").astype(int)
        column = cells.setdefault(str(group), {})
        for m in members:
            name = (naming.aggregation(m) or inc.labels[m]) + ("*" if naming.is_canonical(m) else "")
            column[name.rstrip("*")] = f"{name} {'/'.join(str(ranks.at[m, k]) for k in scores)}"
        for other in ("incompleteness", "pooling"):
            tau = float(tau_b_rows(frame["consistency"].to_numpy(), frame[other].to_numpy()))
            column[f"tau(consistency, {other})"] = f"{tau:.2f}"
    order = list(dict.fromkeys(k for column in cells.values() for k in column if not k.startswith("tau")))
    order += ["tau(consistency, incompleteness)", "tau(consistency, pooling)"]
    return pd.DataFrame({g: [column.get(k, "") for k in order] for g, column in cells.items()},
                        index=pd.Index(order, name="aggregation"))


def policies_section(args: argparse.Namespace, common: dict, out: Path) -> list[str]:
    """Incompleteness and pooling bias of the canonical measures under each unjudged policy."""
    measures = [CWLA(**{**m.params, "unjudged": u}) for m in canonical(args.cutoff) for u in args.policies]

    def measure_of(name: str) -> str:                   # the canonical measure a policy variant belongs to
        m = parse_measure(name)
        return f"{m['C']}_{m['A']}@{args.cutoff}"

    common = {**common, "groups": measure_of}
    inc = meta.incompleteness(args.runs, args.qrels, measures, trials=args.trials, seed=args.seed, **common)
    pool = meta.pooling_bias(args.runs, args.qrels, measures, depths=[args.pool_depth], **common)
    inc.table().to_csv(out / "policies_incompleteness.csv", index=False)
    pool.table().to_csv(out / "policies_pooling_bias.csv", index=False)
    at_10 = inc.table().query("fraction == 0.1").set_index("measure")["tau"]
    biased = pool.table().set_index("measure")
    rows = []
    for row in inc.robustness("tau").itertuples():
        rows.append({"measure": row.group, "policy": parse_measure(row.measure)["unjudged"],
                     "incompleteness: mean tau (k)": f"{row.tau:.3f} ({row.outperforms})",
                     "tau at 10%": at_10[row.measure],
                     "pooling: mean drop / mean score": biased.at[row.measure, "rel_drop"],
                     "pooling: mean abs. rank change": biased.at[row.measure, "mean_abs_rank_change"]})
    return ["\n## Unjudged-documents policies of the canonical measures\n",
            "Per measure, policies by mean tau over the fractions (`(k)`: significantly more robust than k "
            f"policies); pooling bias at depth {args.pool_depth} (a negative drop: scores rise).\n",
            tables.markdown(pd.DataFrame(rows))]


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qrels", required=True)
    ap.add_argument("--runs", required=True, help="directory of TREC run files")
    ap.add_argument("--out", default="robustness", help="output directory (default robustness)")
    ap.add_argument("--cutoff", type=int, default=10)
    ap.add_argument("--extra", nargs="*", default=[], help="more measures by name, e.g. nDCG@10")
    ap.add_argument("--trials", type=int, default=20, help="random subsets per fraction")
    ap.add_argument("--pool-depth", type=int, default=10, help="leave-one-run-out pool depth")
    ap.add_argument("--splits", type=int, default=1000, help="consistency: random topic splits")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--title", default=None)
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--scheduler", default=None)
    ap.add_argument("--policies", nargs="*", default=[],
                    help="unjudged-documents policies to compare on the canonical measures, e.g. zero condense max")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.policies and "unjudged" not in CWLA.SUPPORTED_PARAMS:
        ap.error("--policies: this version of ir_cwla has no CWLA(..., unjudged=...) policies")
    report.check_output(args.out, inputs=[args.qrels, args.runs])          # before any work
    progress = not args.quiet
    executor = meta.get_executor(n_jobs=args.n_jobs, scheduler=args.scheduler)
    title = args.title or Path(args.runs).resolve().parent.name
    measures = list(table1(args.cutoff)) + [parse_measure(m) for m in args.extra]
    common = dict(groups=meta.browsing_model, executor=executor, progress=progress)
    timings = {}

    t0 = time.perf_counter()
    inc = meta.incompleteness(args.runs, args.qrels, measures, trials=args.trials, seed=args.seed, **common)
    timings["incompleteness"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    pool = meta.pooling_bias(args.runs, args.qrels, measures, depths=[args.pool_depth], **common)
    timings["pooling_bias"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    per_query = meta.evaluate(args.runs, args.qrels, measures, executor=executor, progress=progress)
    cons = meta.consistency(per_query, trials=args.splits, test_trials=2000, seed=args.seed, **common)
    timings["consistency"] = time.perf_counter() - t0

    with report.staged(args.out, inputs=[args.qrels, args.runs]) as out:
        inc.table().to_csv(out / "incompleteness.csv", index=False)
        inc.trials.to_csv(out / "incompleteness_trials.csv.gz", index=False)
        inc.depth_table().to_csv(out / "pool_depths.csv", index=False)
        pool.table().to_csv(out / "pooling_bias.csv", index=False)
        pool.runs.to_csv(out / "pooling_bias_runs.csv.gz", index=False)
        side = criteria_side_by_side(cons, inc, pool, args.pool_depth)
        side.to_csv(out / "criteria.csv")

        def layout(ranking: pd.DataFrame, column: str) -> str:
            return tables.markdown(robustness.family_layout(ranking, column), index=True)

        by_label = {label: m for m, label in inc.labels.items()}   # tables name measures by label
        at_10 = inc.table().query("fraction == 0.1").set_index("measure").rename(index=by_label)
        n_systems = len(inc.full)
        md = [f"# Robustness of the Table-1 measures on {title}\n",
              f"{n_systems} systems; {args.trials} random subsets per fraction "
              f"({', '.join(f'{f:g}' for f in sorted(set(inc.trials['fraction'])))}), stratified by relevance; "
              f"seed {args.seed}. `*`: canonical.\n",
              "## Incompleteness: mean Kendall's tau with the full-qrels ranking, over the fractions\n",
              layout(inc.robustness("tau"), "tau"),
              "\n## Incompleteness: mean tau_AP over the fractions\n", layout(inc.robustness("tau_ap"), "tau_ap"),
              "\n## Incompleteness: Kendall's tau at 10% of the judgments\n",
              layout(robustness.family_ranking(at_10, "tau", inc.groups, inc.labels, True), "tau"),
              "\n## Pool depth: mean tau over depths 1, 3, 5, 10, 20\n", layout(inc.robustness(kind="depth"), "tau"),
              f"\n## Pooling bias, leave one run out at depth {args.pool_depth}: mean |change of rank position|\n",
              layout(pool.robustness("mean_abs_rank_change"), "mean_abs_rank_change"),
              f"\n## Pooling bias at depth {args.pool_depth}: mean drop of score / mean score\n",
              layout(pool.robustness("rel_drop"), "rel_drop"),
              "\n## Rank of each aggregation under consistency / incompleteness / pooling bias\n",
              "Consistency: mean tau over the splits; incompleteness: mean tau over the fractions; pooling: "
              "mean |change of rank position| (1 = best).\n",
              tables.markdown(side, index=True)]
        if args.policies:
            md += policies_section(args, common, out)
        (out / "README.md").write_text("\n".join(md))

        inc.plot(title=f"{title}: Kendall's tau vs the full-qrels ranking").savefig(
            out / "incompleteness.png", dpi=110, bbox_inches="tight")
        inc.plot(statistic="tau_ap", title=f"{title}: tau_AP vs the full-qrels ranking").savefig(
            out / "incompleteness_tau_ap.png", dpi=110, bbox_inches="tight")
        inc.plot(kind="depth", title=f"{title}: qrels of a depth-d pool").savefig(
            out / "pool_depths.png", dpi=110, bbox_inches="tight")
        pool.plot(statistic="mean_abs_rank_change", title=f"{title}: pooling bias (leave one run out)").savefig(
            out / "pooling_bias.png", dpi=110, bbox_inches="tight")
        (out / "timings.json").write_text(json.dumps(timings, indent=2))
    print(f"wrote {args.out}/" + (": " + ", ".join(f"{k} {v:.2f}s" for k, v in timings.items()) if progress else ""))
    return timings


if __name__ == "__main__":
    main()
