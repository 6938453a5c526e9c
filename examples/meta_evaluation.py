r"""The meta-evaluation protocol of Chen & Sakai (Sections 4-6) on any qrels + directory of runs.

    python examples/meta_evaluation.py --qrels ../shared/data/trec-dl-2019-passage/qrels.dl19-passage.txt \
        --runs ../shared/data/trec-dl-2019-passage/runs --out meta-dl19

Evaluates the 39 measures of Table 1 at cutoff 10 (or ``--measures``, names read by
``ir_cwla.parse_measures``), then writes to ``--out``:
similarity (Kendall's tau with 95% CIs, Figure 2), consistency (1000 random topic splits,
2000-trial Tukey HSD test, Table 3) and discriminative power (2000-trial randomised Tukey
HSD, ASL curves of Figure 4) as Markdown and CSV tables and PNG figures, plus the timings.
``--scheduler tcp://host:8786`` or ``--n-jobs 2`` run the work on Dask / local processes.
``--out`` is written whole or not at all, as every report of ir_cwla (``ir_cwla.app.report.staged``):
a new directory, or one this script wrote before (its files are replaced, anything else kept).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from ir_cwla import meta, parse_measures, table1  # noqa: E402
from ir_cwla.app import report  # noqa: E402
from ir_cwla.meta import tables  # noqa: E402


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qrels", required=True)
    ap.add_argument("--runs", required=True, help="directory of TREC run files")
    ap.add_argument("--out", default="meta-evaluation", help="output directory (default meta-evaluation)")
    ap.add_argument("--cutoff", type=int, default=10)
    ap.add_argument("--measures", nargs="+", default=None,
                    help="measures instead of Table 1, in any name ir_cwla reads (RBP_max@10, nDCG@10, ...)")
    ap.add_argument("--splits", type=int, default=1000, help="consistency: random topic splits B")
    ap.add_argument("--test-trials", type=int, default=2000, help="consistency: Tukey HSD trials")
    ap.add_argument("--trials", type=int, default=2000, help="discriminative power: Tukey HSD trials")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--title", default=None, help="collection name for the figure titles")
    ap.add_argument("--n-jobs", type=int, default=None, help="local worker processes")
    ap.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    report.check_output(args.out, inputs=[args.qrels, args.runs])          # before any work
    progress = not args.quiet
    executor = meta.get_executor(n_jobs=args.n_jobs, scheduler=args.scheduler)
    title = args.title or Path(args.runs).resolve().parent.name
    timings = {}

    t0 = time.perf_counter()
    measures = parse_measures(args.measures) if args.measures else table1(args.cutoff)
    per_query = meta.evaluate(args.runs, args.qrels, measures, executor=executor, progress=progress)
    timings["evaluate"] = time.perf_counter() - t0
    n_systems, n_topics = per_query["name"].nunique(), per_query["qid"].nunique()

    t0 = time.perf_counter()
    sim = meta.similarity(per_query, groups=meta.browsing_model)
    timings["similarity"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cons = meta.consistency(per_query, trials=args.splits, test_trials=args.test_trials, alpha=args.alpha,
                            seed=args.seed, groups=meta.browsing_model, executor=executor, progress=progress)
    timings["consistency"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    disc = meta.discriminative_power(per_query, trials=args.trials, alpha=args.alpha, seed=args.seed,
                                     groups=meta.browsing_model, executor=executor, progress=progress)
    timings["discriminative_power"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    with report.staged(args.out, inputs=[args.qrels, args.runs]) as out:
        per_query.to_csv(out / "per_query.csv.gz", index=False)
        sim.table().to_csv(out / "similarity.csv", index=False)
        cons.table().to_csv(out / "consistency.csv", index=False)
        cons.taus.to_csv(out / "consistency_taus.csv.gz")
        for group, p in cons.p_values.items():
            p.rename(index=cons.labels, columns=cons.labels).to_csv(out / f"consistency_p_{group}.csv")
        disc.table().to_csv(out / "discriminative_power.csv", index=False)
        disc.pairs.to_csv(out / "discriminative_power_pairs.csv.gz", index=False)
        disc.asl().to_csv(out / "asl.csv")

        md = [f"# Meta-evaluation of {'the given' if args.measures else 'the Table-1'} measures on {title}\n",
              f"{n_systems} systems, {n_topics} topics, {per_query['measure'].nunique()} measures at cutoff "
              f"{args.cutoff}; seed {args.seed}.\n",
              f"## System ranking consistency ({args.splits} splits; Tukey HSD {args.test_trials} trials, "
              f"alpha = {args.alpha})\n",
              "Per browsing model, aggregations by mean tau; `(k)`: significantly better than the worst k; "
              "`*`: canonical.\n", tables.markdown(tables.consistency_layout(cons), index=True),
              f"\n## Discriminative power (randomised Tukey HSD, {args.trials} trials, alpha = {args.alpha})\n",
              f"Significant pairs out of {n_systems * (n_systems - 1) // 2}.\n",
              tables.markdown(tables.discpower_layout(disc), index=True),
              f"\n## System ranking similarity (Kendall's tau-b, {int(sim.level * 100)}% CI)\n"]
        for group in [g for g in sim.groups if g not in sim.single_families()]:
            md += [f"\n### C: {group}\n", tables.markdown(tables.similarity_layout(sim, group), index=True)]
        if sim.note():
            md.append(f"\n{sim.note()}\n")
        (out / "README.md").write_text("\n".join(md))

        if len(sim.single_families()) < len(sim.groups):          # some family holds two measures
            sim.plot(title=f"{title}: system ranking similarity").savefig(out / "similarity.png", dpi=110,
                                                                          bbox_inches="tight")
        cons.plot(title=f"{title}: system ranking consistency").savefig(out / "consistency.png", dpi=110,
                                                                        bbox_inches="tight")
        disc.plot_asl(title=f"{title}: ASL curves (randomised Tukey HSD)").savefig(out / "asl.png", dpi=110,
                                                                                  bbox_inches="tight")
        timings["tables_and_figures"] = time.perf_counter() - t0
        (out / "timings.json").write_text(json.dumps(timings, indent=2))
    print(f"wrote {args.out}/" + (": " + ", ".join(f"{k} {v:.2f}s" for k, v in timings.items()) if progress else ""))
    return timings


if __name__ == "__main__":
    main()
