r"""How much of each run's score rests on documents nobody judged.

The residual of the six canonical C/W/L/A measures per run, next to the score (cwl_eval's
``-r``, for any measure).

For every run, the score is the measure with unjudged documents at gain 0 (the usual score,
the lower bound) and the residual the same measure with them at the largest gain minus
that score (``CWLA(unjudged='residual')``), so the true score, whatever the missing
judgments, lies between the two for measures that grow with every gain (P, DCG, RBP, ERR;
an ERG form may also fall, as AP's precision does when a relevant document is added late).
Writes a figure (runs sorted by score, the residual as an error bar from the score) and a CSV.

Usage::

    python examples/residuals.py --qrels ../shared/data/trec-dl-2019-passage/qrels.dl19-passage.txt \
        --runs ../shared/data/trec-dl-2019-passage/runs --out docs/figures/dl19_residuals.png
"""
from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import ir_cwla  # noqa: E402
from ir_cwla import meta  # noqa: E402


def residual_frame(qrels_path: str, run_dir: str, cutoffs=(10, 100)) -> pd.DataFrame:
    """One row per (run, measure, cutoff): the mean score and the mean residual over the topics."""
    base = [m for k in cutoffs for m in ir_cwla.canonical(k)]
    measures = base + [m(unjudged="residual") for m in base]
    per_query = meta.evaluate(run_dir, ir_cwla.io.read_trec_qrels(qrels_path), measures)
    means = per_query.groupby(["name", "measure"], sort=False)["value"].mean()
    rows = []
    for m in base:
        for name in per_query["name"].unique():
            rows.append({"run": name, "measure": ir_cwla.short_name(m).split("@")[0], "cutoff": m["cutoff"],
                         "score": means[(name, str(m))], "residual": means[(name, str(m(unjudged="residual")))]})
    return pd.DataFrame(rows)


def plot(frame: pd.DataFrame, path: str, title: str) -> None:
    measures = list(dict.fromkeys(frame["measure"]))
    cutoffs = sorted(frame["cutoff"].unique())
    fig, axes = plt.subplots(len(cutoffs), len(measures), figsize=(3.1 * len(measures), 3.3 * len(cutoffs)),
                             sharey="row", squeeze=False)
    for r, k in enumerate(cutoffs):
        for c, name in enumerate(measures):
            ax = axes[r][c]
            d = frame[(frame["measure"] == name) & (frame["cutoff"] == k)].sort_values("score")
            x = range(len(d))
            # the bar goes from the score to the score with unjudged documents at the largest gain
            # (downwards where that lowers an ERG form: AP's precision at a later relevant document)
            down, up = (-d["residual"]).clip(lower=0), d["residual"].clip(lower=0)
            ax.errorbar(x, d["score"], yerr=[down, up], fmt="o", ms=3, color="tab:blue", ecolor="tab:orange",
                        elinewidth=1.2, capsize=1.5)
            ax.set_title(f"{name}@{k}", fontsize=10)
            ax.set_xticks([])
            ax.grid(axis="y", alpha=0.3)
            if c == 0:
                ax.set_ylabel(f"cutoff {k}: score (dot), residual (bar)", fontsize=9)
            if r == len(cutoffs) - 1:
                ax.set_xlabel(f"{len(d)} runs, by score", fontsize=9)
            big = d["residual"].abs().max()
            ax.text(0.02, 0.97, f"largest |residual| {big:.3f}", transform=ax.transAxes, fontsize=8, va="top")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qrels", required=True)
    ap.add_argument("--runs", required=True, help="directory of TREC run files")
    ap.add_argument("--out", default="docs/figures/dl19_residuals.png")
    ap.add_argument("--title", default="TREC DL 2019 passage: canonical C/W/L/A measures, score and residual per run")
    args = ap.parse_args()
    frame = residual_frame(args.qrels, args.runs)
    plot(frame, args.out, args.title)
    frame.to_csv(Path(args.out).with_suffix(".csv"), index=False)
    summary = frame.groupby(["measure", "cutoff"])["residual"].agg(["min", "median", "max"]).round(4)
    print(summary.to_string())
    print(f"figure: {args.out}")


if __name__ == "__main__":
    main()
