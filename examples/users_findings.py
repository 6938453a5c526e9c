"""Observations on the image-search user study (Shao et al., TOIS 2019), with their uncertainty.

    python examples/users_findings.py DATA_DIR [--seeds 5] [--trials 2000]

One lab study: 36 users, 12 tasks, 1,119 queries on one image search engine; a page is a grid
whose ten rows a browsing model walks, graded 0-3 by assessors; the satisfaction (1-5) is the
user's. One collection, so these are observations of one lab study, not findings (the house
rule: a finding holds on a second collection). Each is stated over every equally valid choice:

- the three correlations (Pearson, Spearman, Kendall tau-b), each over ``--seeds`` bootstrap
  seeds (cluster bootstrap over users, ``--trials`` replicates): the best aggregation of each
  browsing model, the share of replicates in which it is the best (pooled over the seeds), and
  the comparisons with the model's canonical ERG (Williams' t, Holm over the within-model pairs);
- the agreement with the preferences derived from each user's ratings within a task, under the
  three ways to count a pair the measure ties;
- the fitted RBP p and INST T, over ``--seeds`` cross-validation seeds (5 folds x 10 repeats each).
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import ir_cwla
from ir_cwla import meta
from ir_cwla.analysis import naming
from ir_cwla.datasets.image_search import read_image_search
from ir_cwla.meta import correlation

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("data")
ap.add_argument("--seeds", type=int, default=5)
ap.add_argument("--trials", type=int, default=2000)
args = ap.parse_args()
warnings.simplefilter("ignore")
pd.set_option("display.width", 120)
pages, ratings = read_image_search(args.data)
per_query = ir_cwla.score_gains(pages, ir_cwla.table1())
print(f"{len(ratings)} queries, {ratings['user'].nunique()} users, {ratings['session'].nunique()} user-task sessions; "
      f"satisfaction {dict(sorted(ratings['rating'].value_counts().items()))}")

# -- 1. which aggregation agrees best with the users, within each browsing model -------------------
runs = [meta.user_agreement(per_query, ratings, trials=args.trials, seed=s, groups=meta.browsing_model,
                            test="williams") for s in range(args.seeds)]
first = runs[0]
rows = []
for model, members in first.groups.items():
    cols = [first.measures.index(m) for m in members]
    for statistic in correlation.STATISTICS:
        est = first.estimates.loc[members, statistic]
        best = est.idxmax()
        pooled = np.concatenate([r.replicates[statistic][:, cols] for r in runs])
        wins = np.nanargmax(np.where(np.isfinite(pooled), pooled, -np.inf), axis=1)
        share = float(np.mean(wins == members.index(best)))
        lows = [r.estimates.at[best, f"{statistic}_low"] for r in runs]
        highs = [r.estimates.at[best, f"{statistic}_high"] for r in runs]
        maxed = [m for m in members if naming.aggregation(m) == "max"][0]
        rows.append({"model": model, "statistic": statistic, "best": first.labels[best],
                     "value": round(est[best], 3), "interval": f"[{min(lows):.3f}, {max(highs):.3f}]",
                     "best_share": round(share, 2), "max": round(est[maxed], 3),
                     "max_rank": int((est > est[maxed]).sum()) + 1, "of": len(members)})
table = pd.DataFrame(rows)
print("\n1. Best aggregation per browsing model and statistic (interval: the widest 95% bound over the seeds; "
      "best_share: replicates in which it is the best, over all seeds; max_rank: A_max's place)")
print(table.to_string(index=False))
sig = first.comparisons_table()
williams = sig[np.isfinite(sig["p_williams"])]
print(f"\nWilliams' test (Pearson's r), Holm over {len(williams)} within-model pairs: "
      f"{int(williams['significant'].sum())} significant at 0.05")
print(williams[williams["significant"]][["group", "measure_a", "measure_b", "difference", "p_williams", "p_holm"]]
      .round(4).to_string(index=False))
spearman = [meta.user_agreement(per_query, ratings, trials=200, seed=0, groups=meta.browsing_model, test="williams",
                                statistic="spearman").comparisons_table()]
print(f"Williams' test on Spearman's rho (ranks), Holm: {int(spearman[0]['significant'].sum())} significant")
boot = first.comparisons
print(f"the cluster bootstrap with {args.trials} replicates cannot reach Holm's threshold over {len(boot)} pairs "
      f"(its smallest p is 2/{args.trials + 1}); smallest bootstrap p: {boot['p_bootstrap'].min():.4f}")

# -- 2. preferences ------------------------------------------------------------------------------
print("\n2. Agreement with the preferences derived within each user's task (best and A_max of each model)")
prefs = {ties: meta.preference_agreement(per_query, satisfaction=ratings, ties=ties, trials=args.trials, seed=0,
                                         groups=meta.browsing_model) for ties in ("half", "exclude", "disagree")}
out = []
for ties, result in prefs.items():
    est = result.estimates
    for model, members in result.groups.items():
        best = est.loc[members, "agreement"].idxmax()
        maxed = [m for m in members if naming.aggregation(m) == "max"][0]
        out.append({"ties": ties, "model": model, "best": result.labels[best],
                    "agreement": round(est.at[best, "agreement"], 3),
                    "interval": f"[{est.at[best, 'low']:.3f}, {est.at[best, 'high']:.3f}]",
                    "max": round(est.at[maxed, "agreement"], 3), "max_tied": round(est.at[maxed, "tied"], 2)})
print(f"{prefs['half'].pairs} pairs; " + prefs["half"].describe().split("; ", 1)[1])
print(pd.DataFrame(out).to_string(index=False))

# -- 3. the fitted parameters --------------------------------------------------------------------
print("\n3. Fitted RBP p and INST T (Pearson's r), over the cross-validation seeds")
fits = [meta.fit_user_model(pages, ratings, models=("RBP", "INST"), trials=args.trials, seed=s)
        for s in range(args.seeds)]
rows = []
for (model, aggregation), group in pd.concat([f.table().assign(seed=k) for k, f in enumerate(fits)]) \
        .groupby(["model", "aggregation"], sort=False):
    rows.append({"model": model, "aggregation": aggregation, "fitted": group["fitted"].iloc[0],
                 "edge": bool(group["edge"].iloc[0]), "r": round(group["agreement"].iloc[0], 3),
                 "cv_interval": f"[{group['cv_low'].min():.3g}, {group['cv_high'].max():.3g}]",
                 "held_out": f"{group['held_out'].min():.3f}-{group['held_out'].max():.3f}"})
print(pd.DataFrame(rows).to_string(index=False))
