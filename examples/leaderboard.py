"""An efficiency-aware leaderboard of real PyTerrier systems on Cranfield, end to end.

Eight systems, none needing Java: five single-stage lexical retrievers from
:mod:`ir_cwla.app.systems` (PISA BM25, DPH and QLD; bm25s Lucene BM25 and BM25L), PISA BM25
cut to 10 results (PISA then prunes dynamically), a CombSUM fusion of PISA BM25 and bm25s
(PyTerrier's ``+``), and BM25 with RM3 pseudo-relevance feedback (BM25 >> RM3 >> BM25, a
two-stage pipeline). Each is measured for accuracy (nDCG@10 and a CWLA measure), per-query
latency, batch throughput and cost on an AWS m5.large (2 vCPUs, like the machine this was
written on), then ranked by the paper's three strategies.

Run:  python examples/leaderboard.py [--out leaderboard-example] [--quick]

Writes ``results.csv``, ``latency_per_query.csv``, ``environment.json``, ``frontier.png``
and ``weight_map.png`` to ``--out`` (whole or not at all, ``ir_cwla.app.report.staged``: a new
directory, or one this script wrote before), and prints the tables.
"""
from __future__ import annotations

import argparse
import collections
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pyterrier as pt  # noqa: E402
from ir_measures import nDCG  # noqa: E402

import ir_cwla  # noqa: E402  (registers the CWLA measure with ir-measures and PyTerrier)
from ir_cwla import datasets  # noqa: E402
from ir_cwla import leaderboard as lb  # noqa: E402
from ir_cwla.app import report, systems  # noqa: E402

SINGLE_STAGE = ["PISA-BM25", "PISA-DPH", "PISA-QLD-mu1000", "bm25s-lucene", "bm25s-bm25l"]
CWLA_RBP = ir_cwla.CWLA(C="RBP", A="ERG") @ 10


class RM3(pt.Transformer):
    """RM3 query expansion (Abdul-Jaleel et al. 2004), as PyTerrier's RM3 does it, in Python.

    From the top ``fb_docs`` results of each query, P(t|R) = sum_d P(t|d) P(d|q) with
    P(t|d) = tf / |d| and P(d|q) the softmax of the retrieval scores; the ``fb_terms`` most
    likely terms are mixed with the original query: w(t) = lam P(t|q) + (1 - lam) P(t|R).
    Returns ``qid, query, query_toks`` for a PISA retriever built with ``query_weighted=True``.
    Defaults are those of PyTerrier's RM3 (fb_docs=3, fb_terms=10, lambda=0.6).
    """

    def __init__(self, doc_terms: dict[str, collections.Counter], fb_docs: int = 3, fb_terms: int = 10,
                 lam: float = 0.6):
        self.doc_terms = doc_terms
        self.doc_len = {d: sum(c.values()) for d, c in doc_terms.items()}
        self.fb_docs, self.fb_terms, self.lam = fb_docs, fb_terms, lam

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        from pyterrier_pisa import tokenize

        rows = []
        for qid, group in results.groupby("qid", sort=False):
            top = group.sort_values("rank").head(self.fb_docs)
            prior = np.exp(top["score"].to_numpy(float) - top["score"].max())
            prior /= prior.sum()
            feedback: collections.Counter = collections.Counter()
            for docno, p_d in zip(top["docno"], prior):
                for term, tf in self.doc_terms[docno].items():
                    feedback[term] += p_d * tf / self.doc_len[docno]
            expansion = dict(feedback.most_common(self.fb_terms))
            norm = sum(expansion.values())
            query = group["query"].iloc[0]
            terms = tokenize(query, "porter2")
            weights = collections.Counter({t: self.lam * c / len(terms) for t, c in collections.Counter(terms).items()})
            for term, p in expansion.items():
                weights[term] += (1 - self.lam) * p / norm
            rows.append({"qid": qid, "query": query, "query_toks": dict(weights)})
        return pd.DataFrame(rows, columns=["qid", "query", "query_toks"])


def build(workdir: Path) -> dict[str, pt.Transformer]:
    """The eight systems, keyed by leaderboard name."""
    from pyterrier_pisa import tokenize

    built = systems.cranfield_systems(workdir, names=SINGLE_STAGE)
    bm25 = built["PISA-BM25"]
    doc_terms = {d["docno"]: collections.Counter(tokenize(d["text"], "porter2"))
                 for d in systems.cranfield_corpus()}
    weighted_bm25 = bm25.index.bm25(k1=0.9, b=0.4, num_results=1000, threads=1, query_weighted=True)
    return {
        **built,
        "PISA-BM25 top10": (bm25 % 10).compile(),   # fused: PISA retrieves 10, pruning dynamically
        "PISA-BM25 + bm25s": bm25 + built["bm25s-lucene"],
        "PISA-BM25 >> RM3": bm25 >> RM3(doc_terms) >> weighted_bm25,
    }


def markdown(frame: pd.DataFrame, digits: dict[str, int]) -> str:
    """A DataFrame as a GitHub Markdown table, with per-column rounding."""
    cols = [frame.index.name or "system", *frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for name, *values in frame.itertuples(name=None):
        cells = [str(name)] + [f"{v:.{digits.get(c, 3)}f}" if isinstance(v, (float, np.floating)) else str(v)
                               for c, v in zip(frame.columns, values)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="leaderboard-example", help="output directory (default leaderboard-example)")
    parser.add_argument("--workdir", default=None, help="where the PISA indexes go (default: a temp dir)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--instance", default="m5.large", help="instance type from the bundled price table")
    parser.add_argument("--quick", action="store_true", help="50 topics, 1 timed pass (a smoke run)")
    args = parser.parse_args()

    report.check_output(args.out)                         # before any work
    topics = datasets.cranfield_topics()
    qrels = datasets.as_pyterrier_qrels(datasets.cranfield_qrels())
    repeats = args.repeats
    if args.quick:
        topics, repeats = topics.head(50), 1

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        runs = build(Path(args.workdir or tmp))
        print(f"indexed Cranfield and built {len(runs)} systems in {time.perf_counter() - started:.1f} s")
        instance = lb.instance(args.instance)
        print(f"instance: {instance.name}, ${instance.usd_per_hour}/h ({instance.price_date}, {instance.source})")
        started = time.perf_counter()
        board = lb.Leaderboard.run(runs, topics, qrels, accuracy=[nDCG @ 10, CWLA_RBP], instance=instance,
                                   warmup=args.warmup, repeats=repeats, verbose=True)
        print(f"measured in {time.perf_counter() - started:.1f} s")

    env = board.environment
    print(f"\nmachine: {env['cpu_model']}, {env['logical_cores']} logical cores, {env['memory_gib']} GiB; "
          f"usable cores {env['threads']['usable_cores']}; "
          f"pyterrier {env['versions'].get('pyterrier') or env['versions'].get('python-terrier')}, "
          f"pyterrier-pisa {env['versions'].get('pyterrier-pisa')}, bm25s {env['versions'].get('bm25s')}")
    print(f"load average (1, 5, 15 min) before measuring: {env['load_average_1_5_15min']}, "
          f"after: {env['load_average_after_1_5_15min']}")
    print(f"protocol: {len(topics)} topics, warm-up {args.warmup} queries, {repeats} timed passes\n")

    digits = {"nDCG@10": 4, str(CWLA_RBP): 4, "latency_p50_ms": 3, "latency_p95_ms": 3, "latency_p99_ms": 3,
              "qps": 0, "usd_per_1M_q_from_qps": 3, "usd_per_q_from_latency": 9, "dynascore": 4}
    shown = ["nDCG@10", str(CWLA_RBP), "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "qps",
             "usd_per_1M_q_from_qps", "usd_per_q_from_latency", "dynascore", "rank"]
    table = board.table()
    print("Dynascore {accuracy: 0.5, cost: 0.25, latency: 0.25}, accuracy = nDCG@10:")
    print(markdown(table[shown], digits))

    cwla_board = board.using(accuracy=CWLA_RBP)
    print(f"\nthe same measurements with accuracy = {CWLA_RBP}:")
    cols = cwla_board.columns                              # the rankings keep the board's column names
    print(markdown(cwla_board.dynascore()[[cols["accuracy"], cols["latency"], cols["cost"], "dynascore", "rank"]],
                   {cols["accuracy"]: 4, cols["latency"]: 3, cols["cost"]: 3, "dynascore": 4}))

    baseline = table.loc["PISA-BM25", "nDCG@10"]
    budget_ms = 1.0
    print(f"\nstrategy 1: median latency <= {budget_ms} ms, ranked by nDCG@10:")
    cols = board.columns
    print(markdown(board.within_budget(latency=budget_ms)[[cols["accuracy"], cols["latency"], "rank"]],
                   {cols["accuracy"]: 4, cols["latency"]: 3}))
    print(f"\nstrategy 2: nDCG@10 >= PISA-BM25's ({baseline:.4f}), ranked by cost ($ per 1M queries):")
    print(markdown(board.above_accuracy(baseline, by="cost")[[cols["accuracy"], cols["cost"], "rank"]],
                   {cols["accuracy"]: 4, cols["cost"]: 3}))
    for weights in ({"accuracy": 0.9, "cost": 0.05, "latency": 0.05}, {"accuracy": 0.4, "cost": 0.4, "latency": 0.2}):
        print(f"\nstrategy 3: Dynascore {weights}: " + ", ".join(board.dynascore(weights).index[:3]) + ", ...")
    print("\nPareto frontier (nDCG@10 against median latency): " + ", ".join(board.pareto().index))
    winners = board.winner_map(step=0.01)
    share = winners["winner"].value_counts(normalize=True)
    print("share of weightings won (step 0.01): " + ", ".join(f"{n} {s:.0%}" for n, s in share.items()))

    with report.staged(args.out) as out:
        board.save(out)
        ax = board.plot_frontier(title="Cranfield: nDCG@10 against median latency (ms)")
        ax.figure.savefig(out / "frontier.png", dpi=110, bbox_inches="tight")
        plt.close(ax.figure)
        ax = board.plot_weight_map(title="Dynascore winner by weighting (cf. Fig. 2(a))")
        ax.figure.savefig(out / "weight_map.png", dpi=110, bbox_inches="tight")
        plt.close(ax.figure)
        written = sorted(p.name for p in out.iterdir())
    print(f"\nwrote {', '.join(written)} to {args.out}/")


if __name__ == "__main__":
    main()
