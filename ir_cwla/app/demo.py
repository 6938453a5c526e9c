"""The end-to-end demo (``ir-cwla demo``, ``make demo``): real retrieval on Cranfield, offline.

1. Cranfield from the package (:mod:`ir_cwla.datasets`: grades remapped 1->4 ... 4->1,
   grade -1 judged non-relevant);
2. 15 systems indexed with pyterrier-pisa and bm25s (:mod:`ir_cwla.app.systems`);
3. their runs for the 225 queries (kept as TREC files in ``out/runs`` with ``save_runs``),
   scored with ``pt.Experiment`` on standard measures and the 39 Table-1 C/W/L/A measures,
   per query;
4. the meta-evaluation of the Table-1 measures (:mod:`ir_cwla.meta`): similarity,
   consistency and discriminative power, aggregations compared within each browsing model;
5. latency, throughput and cost of every system, and the Dynascore leaderboard
   (:mod:`ir_cwla.leaderboard`) with bootstrap intervals of its ranks over the topics
   (:func:`ir_cwla.comparison.dynascore_rank_uncertainty`, 2000 resamples from ``seed``);
6. the comparison of systems (:func:`ir_cwla.compare`): every system against the first (the
   baseline) under nDCG@10 and the six canonical C/W/L/A measures, Student's paired t-test,
   Holm's correction over all those hypotheses together, intervals from 2000 bootstrap
   resamples from ``seed``;
7. one self-contained HTML report (:mod:`ir_cwla.app.report`) with its tables (CSV) and
   figures (PNG), and a short text summary.

``run_demo(out='report')`` returns a :class:`DemoResult` with every table it computed.
"""
from __future__ import annotations

import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import pandas as pd

from ir_cwla.errors import ParameterError
from ir_cwla.leaderboard.dynascore import DEFAULT_WEIGHTS


@dataclass
class DemoResult:
    """Everything the demo computed, and where it wrote the report."""

    report: Path
    systems: pd.DataFrame
    per_query: pd.DataFrame
    means: pd.DataFrame
    meta: Any                  # ir_cwla.meta.criteria.Run: every criterion's result and summary
    leaderboard: Any
    weights: dict
    comparison: Any = None     # ir_cwla.comparison.Comparison: every system against the baseline
    timings: dict[str, float] = field(default_factory=dict)
    collection: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def consistency(self) -> Any:
        """The consistency criterion's result (of :attr:`meta`)."""
        return self.meta.results["consistency"]

    @property
    def discriminative_power(self) -> Any:
        """The discriminative power criterion's result (of :attr:`meta`)."""
        return self.meta.results["discriminative_power"]

    def summary(self) -> str:
        """A few lines for the terminal: best systems, best measures, the leaderboard winner.

        The warnings about the ranking are in :attr:`notes`.
        """
        key = "nDCG@10" if "nDCG@10" in self.means.columns else self.means.columns[0]
        best = self.means[key].sort_values(ascending=False, kind="stable")
        cons = self.consistency.table()
        disc = self.discriminative_power.table()
        top_c = cons.sort_values("mean_tau", ascending=False, kind="stable").iloc[0]      # ties: table order
        top_d = disc.sort_values("significant", ascending=False, kind="stable").iloc[0]
        from ir_cwla.errors import RankingWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankingWarning)
            board = self.leaderboard.table(self.weights)
        metrics = self.leaderboard.metrics()
        fastest = metrics["latency"].idxmin()
        c = self.collection
        rows = [
            (f"best by {key}:", ", ".join(f"{n} {v:.4f}" for n, v in best.head(3).items())),
            ("most consistent:", f"{top_c['measure']} (mean tau {top_c['mean_tau']:.3f} between topic halves)"),
            ("most discriminative:", f"{top_d['measure']} ({int(top_d['significant'])} of "
                                     f"{int(top_d['pairs'])} system pairs significant)"),
            ("fastest system:", f"{fastest} ({metrics.loc[fastest, 'latency']:.2f} ms/query, "
                                f"{self.leaderboard.columns['latency']})"),
            ("Dynascore winner:", f"{_winners(board)} (weights "
                                  + ", ".join(f"{k} {v:g}" for k, v in self.weights.items()) + ")"),
        ]
        width = max(len(label) for label, _ in rows) + 2            # every value starts in one column
        lines = [f"Cranfield: {c.get('documents', 0):,} documents, {c.get('topics', 0)} queries, "
                 f"{c.get('judgments', 0):,} judgments; {len(self.systems)} systems; "
                 f"{self.per_query['measure'].nunique()} measures",
                 *(f"  {label:<{width}}{value}" for label, value in rows),
                 "  time: " + ", ".join(f"{k} {v:.1f}s" for k, v in self.timings.items()),
                 f"report: {self.report}"]
        return "\n".join(lines)


def _standard_measures() -> list:
    from ir_measures import AP, RR, P, R, nDCG

    return [nDCG @ 10, P @ 10, AP, RR, R @ 100]


#: Marker of each browsing model in the effectiveness figure (colour is the aggregation's).
_MODEL_MARKERS = {"P": "o", "DCG": "s", "RBP": "^", "INST": "D", "AP": "v", "ERR": "P"}


def _plot_effectiveness(means: pd.DataFrame, columns: list[str]) -> Any:
    """The systems' scores under each measure of ``columns``, systems sorted by the first column.

    C/W/L/A measures are drawn in their aggregation's colour (as in every meta-evaluation figure)
    with a marker per browsing model; other measures in black.
    """
    import matplotlib.pyplot as plt

    from ir_cwla._text import plain
    from ir_cwla.analysis import naming
    from ir_cwla.meta.plots import AGGREGATION_STYLES

    order = means[columns[0]].sort_values().index
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(order) + 1.6), layout="constrained")
    for col in columns:
        measure = naming.parse(col)
        agg = naming.aggregation(col)
        colour = AGGREGATION_STYLES.get(agg, ("0.1", "o"))[0] if agg else "0.1"
        marker = _MODEL_MARKERS.get(measure["C"], "o") if agg and measure is not None else "*"
        ax.plot(means.loc[order, col], range(len(order)), ls="none", marker=marker, ms=6 if agg else 8,
                color=colour, mfc="none" if agg else colour, mew=1.5, label=plain(col))
    ax.set_yticks(range(len(order)), [plain(n) for n in order], fontsize=8)
    ax.set_xlabel("mean over topics")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False,
              title="colour: aggregation\nmarker: browsing model", title_fontsize=7)
    ax.set_title(f"Cranfield: systems sorted by {columns[0]}")
    return fig


def save_run(results: pd.DataFrame, path: Path, name: str) -> Path:
    """Writes PyTerrier results (``qid, docno, score, rank``, ranks from 0) as a TREC run file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    trec = pd.DataFrame({"qid": results["qid"], "q0": "Q0", "docno": results["docno"], "rank": results["rank"] + 1,
                         "score": results["score"].astype(float), "run": name})
    trec.to_csv(path, sep=" ", header=False, index=False)
    return path


class _Steps:
    """Prints ``[k/n] what`` on stderr and keeps the wall time of each step."""

    def __init__(self, n: int, progress: bool):
        self.n, self.k, self.progress = n, 0, progress
        self.timings: dict[str, float] = {}
        self._name: Optional[str] = None
        self._start = 0.0

    def start(self, name: str, what: str) -> None:
        self.stop()
        self.k += 1
        self._name, self._start = name, time.perf_counter()
        if self.progress:
            print(f"[{self.k}/{self.n}] {what}", file=sys.stderr, flush=True)

    def note(self, what: str) -> None:
        """A line within the current step (``      criterion 2/6, consistency: ...``)."""
        if self.progress:
            print(f"      {what}", file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self._name is not None:
            self.timings[self._name] = time.perf_counter() - self._start
            self._name = None


def _check_arguments(out: Path, systems: Optional[Sequence[str]], trials: int, test_trials: int, alpha: float,
                     warmup: int, repeats: int, instance: str, accuracy: str, weights: dict) -> pd.DataFrame:
    """Every argument of :func:`run_demo`, checked before any work; returns the systems table."""
    import math

    import ir_measures

    from ir_cwla import leaderboard as lb
    from ir_cwla._text import shown
    from ir_cwla.analysis.frame import check_alpha
    from ir_cwla.analysis.streams import check_trials
    from ir_cwla.app import report
    from ir_cwla.app import systems as catalogue

    spec_table = catalogue.systems_table(systems)           # unknown names fail here
    if len(spec_table) < 2:
        raise ParameterError(f"the demo compares systems: give at least 2, got {list(spec_table['name'])}")
    check_trials(trials, "trials")
    check_trials(test_trials, "test_trials")
    check_alpha(alpha)
    for name, value, low in (("warmup", warmup, 0), ("repeats", repeats, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ParameterError(f"{name} must be an int >= {low}, got {shown(value)}")
    lb.instance(instance)                                   # an unknown instance fails here
    ir_measures.parse_measure(accuracy)
    for key, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise ParameterError(f"weights must be finite and non-negative numbers, got {key}={shown(w)}")
    if sum(weights.values()) <= 0:
        raise ParameterError("at least one weight must be positive")
    report.check_output(out)
    return spec_table


def run_demo(out: Union[str, Path] = "report", systems: Optional[Sequence[str]] = None, trials: int = 1000,
             test_trials: int = 2000, alpha: float = 0.05, seed: int = 0, warmup: int = 10, repeats: int = 3,
             instance: str = "m5.large", accuracy: str = "nDCG@10", weights: Optional[dict] = None,
             save_runs: bool = False, progress: bool = True) -> DemoResult:
    """Runs the whole demo and writes ``out/index.html`` with its tables and figures.

    Every argument is checked before any work. The report is written whole or not at all: into a
    temporary directory beside ``out``, which replaces ``out`` at the end
    (:func:`ir_cwla.app.report.staged`).

    Parameters
    ----------
    out
        The report's directory: new, empty or an earlier report.
    systems
        Names from :data:`ir_cwla.app.systems.SYSTEMS` (default: all 15).
    trials, test_trials, alpha, seed
        Of the consistency and discriminative-power analyses (``trials`` random topic splits and
        permutations; the paper uses 1000 and 2000).
    warmup, repeats, instance
        The latency protocol and the priced cloud instance.
    accuracy, weights
        The leaderboard's accuracy measure and Dynascore weights.
    save_runs
        Also keep every system's TREC run in ``out/runs`` (9 MB per system).
    progress
        Print the steps on stderr, and progress bars where stderr is a terminal.
    """
    weights = dict(weights or DEFAULT_WEIGHTS)
    out = Path(out)
    spec_table = _check_arguments(out, systems, trials, test_trials, alpha, warmup, repeats, instance, accuracy,
                                  weights)
    steps = _Steps(7, progress)
    wall = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _run(out, spec_table, trials, test_trials, alpha, seed, warmup, repeats, instance, accuracy,
                      weights, save_runs, progress, steps, caught)
    for w in caught:                                  # the analyses' warnings are in result.notes
        if not _ours(w):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    result.timings = {**steps.timings, "total": time.perf_counter() - wall}
    return result


def _ours(w: warnings.WarningMessage) -> bool:
    """A warning of ir_cwla's analyses (a UserWarning raised from ir_cwla's code)."""
    package = str(Path(__file__).resolve().parents[1])
    return issubclass(w.category, UserWarning) and str(Path(w.filename).resolve()).startswith(package)


def _notes(caught: list) -> list[str]:
    """The messages of the analyses' warnings, each once."""
    return list(dict.fromkeys(" ".join(str(w.message).split()) for w in caught if _ours(w)))


def _run(out: Path, spec_table: pd.DataFrame, trials: int, test_trials: int, alpha: float, seed: int,
         warmup: int, repeats: int, instance: str, accuracy: str, weights: dict, save_runs: bool,
         progress: bool, steps: _Steps, caught: list) -> DemoResult:
    import pyterrier as pt

    import ir_cwla
    from ir_cwla import datasets, meta
    from ir_cwla import leaderboard as lb
    from ir_cwla._progress import on_terminal, progress_bar
    from ir_cwla._text import csv_safe
    from ir_cwla.app import report
    from ir_cwla.app import systems as catalogue

    steps.start("data", "Cranfield from the package (offline)")
    topics = datasets.cranfield_topics()
    qrels = datasets.cranfield_qrels()
    n_docs = sum(1 for _ in datasets.cranfield.dataset().docs_iter())
    collection = {"documents": n_docs, "topics": len(topics), "judgments": len(qrels)}
    pt_qrels = datasets.as_pyterrier_qrels(qrels)

    with report.staged(out) as directory, tempfile.TemporaryDirectory(prefix="ir_cwla-demo-") as workdir:
        steps.start("index", f"indexing with pyterrier-pisa and bm25s: {len(spec_table)} systems")
        with warnings.catch_warnings():               # PISA's indexer says which field it indexes
            warnings.filterwarnings("ignore", message="text_field not specified")
            built = catalogue.cranfield_systems(workdir, list(spec_table["name"]))

        steps.start("retrieve", f"retrieving for {len(topics)} topics"
                                + (f", runs saved in {out / 'runs'}" if save_runs else ""))
        runs = {}
        for name, system in progress_bar(built.items(), progress=progress, desc="retrieve", unit="system"):
            runs[name] = system(topics)
            if save_runs:
                save_run(runs[name], directory / "runs" / f"{name}.run", name)

        table1 = list(ir_cwla.table1())
        standard = _standard_measures()
        steps.start("evaluate", f"pt.Experiment: {len(runs)} systems x {len(topics)} topics x "
                                f"{len(standard) + len(table1)} measures")
        per_query = pt.Experiment(list(runs.values()), topics, pt_qrels, eval_metrics=standard + table1,
                                  names=list(runs), perquery=True, verbose=on_terminal(progress))
        per_query = per_query[["name", "qid", "measure", "value"]]

        t1 = per_query[per_query["measure"].isin({str(m) for m in table1})]
        inputs = meta.Inputs(t1, table1, runs, qrels, groups=meta.browsing_model, seed=seed, alpha=alpha,
                             progress=progress)
        chosen = meta.criteria.resolve(None, inputs)        # the criteria these inputs allow, as run below
        steps.start("meta", f"meta-evaluation of the {len(table1)} Table-1 measures, {len(chosen)} criteria: "
                            f"{', '.join(chosen)}")
        criteria_run = meta.criteria.run(chosen, inputs, {"trials": trials, "test_trials": test_trials},
                                         log=steps.note)

        steps.start("leaderboard", f"latency, throughput and cost: {len(built)} systems x {len(topics)} "
                                   f"queries x {repeats} passes")
        board = lb.Leaderboard.run(built, topics, pt_qrels, accuracy=accuracy, instance=instance,
                                   warmup=warmup, repeats=repeats, progress=progress, log=steps.note)

        steps.start("report", f"writing {out / 'index.html'}")
        means = per_query.pivot_table(index="name", columns="measure", values="value", aggfunc="mean", sort=False)
        means = means.rename(columns=meta.label).loc[list(built)]
        means.index.name = "system"
        comparison = _compare(per_query, list(built), seed)
        result = DemoResult(out / "index.html", spec_table, per_query, means, criteria_run, board, weights,
                            comparison, dict(steps.timings), collection)
        tables = report.leaderboard_tables(board, weights, seed=seed)   # its RankingWarnings join the notes
        result.notes = _notes(caught)
        page = _build_report(result, out, directory, standard, table1, len(topics), save_runs, tables)
        csv_safe(per_query).to_csv(directory / "per_query.csv.gz", index=False)
        board.save(str(directory / "leaderboard"))
        page.write()
        steps.stop()
    return result


#: The comparison of the demo's report: its design, stated on the page by the comparison's caption.
COMPARISON = {"test": "t", "correction": "holm", "family": "all", "resamples": 2000}


def _compare(per_query: pd.DataFrame, systems: list[str], seed: int) -> Any:
    """Every system compared with the first (the baseline), as :data:`COMPARISON` designs it.

    The measures are nDCG@10 and the six canonical C/W/L/A measures (the measures the report's
    effectiveness figure shows).
    """
    import ir_cwla

    measures = ["nDCG@10", *(str(m) for m in ir_cwla.canonical())]
    return ir_cwla.compare(per_query, baseline=systems[0], measures=measures, systems=systems, seed=seed,
                           **COMPARISON)


def _winners(table: pd.DataFrame) -> str:
    """The Dynascore winner, or the tied winners."""
    first = [str(n) for n in table.index[table["rank"] == 1]]
    return first[0] if len(first) == 1 else " = ".join(first) + " (tie)"


def _build_report(result: DemoResult, out: Path, directory: Path, standard: list, table1: list, n_topics: int,
                  save_runs: bool, tables: list) -> Any:
    import ir_cwla
    from ir_cwla import meta
    from ir_cwla.app import report

    page = report.HtmlReport("ir_cwla demo: C/W/L/A measures on Cranfield",
                             "Real retrieval (pyterrier-pisa, bm25s), pt.Experiment with the Table-1 C/W/L/A "
                             "measures, their meta-evaluation, and an efficiency-aware leaderboard. "
                             "Computed offline on this machine.", directory=directory)
    c = result.collection
    page.section("In short")
    page.code("\n".join(result.summary().splitlines()[:-2]))
    ranking_notes = {" ".join(str(n).split()) for n in tables[0].frame.attrs.get("notes", [])}
    page.warnings([n for n in result.notes if n not in ranking_notes])     # those are in the leaderboard's section
    page.section("The collection and the systems")
    page.text(f"Cranfield 1400 ({c['documents']:,} documents, {c['topics']} queries, {c['judgments']:,} "
              "judgments), bundled with ir_cwla and served through ir_datasets (id 'cranfield').")
    page.bullets(["Grade direction: Cleverdon's grades run from 1 (complete answer) to 4 (minimum interest); "
                  "they are remapped 1->4, 2->3, 3->2, 4->1 so that larger is more relevant.",
                  "Grade -1 (one per query, apparently the paper the query was written from): judged "
                  "non-relevant (grade 0), as ir_datasets and ir-measures treat the raw grade."])
    page.table(result.systems.set_index("name").rename_axis("system"), "the systems", filename="systems.csv")

    page.section("Effectiveness")
    std_names = [str(m) for m in standard]
    canon = [meta.label(str(m)) for m in ir_cwla.canonical()]
    headline = result.means[std_names + canon]
    best = headline[std_names[0]].idxmax()
    page.text(f"Mean over {n_topics} topics; standard measures first, then the six canonical C/W/L/A measures "
              "(cutoff 10). Evaluated with pt.Experiment, which computes the CWLA measures through the ir_cwla "
              "provider.")
    page.table(headline.sort_values(std_names[0], ascending=False), "mean scores (best nDCG@10 highlighted)",
               highlight={best}, filename="means_headline.csv")
    page.figure(_plot_effectiveness(result.means, [std_names[0], *canon]),
                "systems under nDCG@10 and the canonical C/W/L/A measures", filename="effectiveness.png")
    t1_names = [meta.label(str(m)) for m in table1]
    page.table(result.means[t1_names].T.rename_axis("measure"),
               "all 39 Table-1 measures (rows) for every system (columns)", filename="means_table1.csv")

    if result.comparison is not None:
        baseline = result.comparison.table()["baseline"].iloc[0]
        intro = (f"Is a system better than the baseline {baseline} (the first system), and by how much? Every other "
                  "system against it under nDCG@10 and the six canonical C/W/L/A measures: Student's paired t-test "
                  "over the topics, p-values adjusted with Holm's correction over all these hypotheses together, "
                  "mean differences with 95% t and bootstrap intervals (2,000 resamples of the topics, seed "
                  f"{result.comparison.seed}), Cohen's d_z, wins and losses (ir_cwla.compare).")
        report.add_comparison_section(page, result.comparison, intro=intro)

    report.add_meta_summary(page, result.meta)
    report.add_meta_sections(page, result.meta)
    report.add_leaderboard_sections(page, result.leaderboard, result.weights, tables=tables)

    page.section("Run it again")
    commands = ["make demo                      # = ir-cwla demo --out report",
                f"ir-cwla leaderboard {out}/leaderboard/results.csv --out leaderboard-report"]
    if save_runs:
        commands += [f"ir-cwla eval irds:cranfield {out}/runs/*.run -m nDCG@10 -m \"CWLA(C='RBP', A='max')@10\"",
                     f"ir-cwla meta irds:cranfield {out}/runs --out meta-report"]
    else:
        commands += [f"ir-cwla demo --out {out} --save-runs   # also keep the TREC runs ({out}/runs), then:",
                     f"ir-cwla eval irds:cranfield {out}/runs/*.run -m nDCG@10 -m \"CWLA(C='RBP', A='max')@10\"",
                     f"ir-cwla meta irds:cranfield {out}/runs --out meta-report"]
    page.code("\n".join(commands))
    page.text("Files beside this page: the tables as CSV, the figures as PNG, per_query.csv.gz (every score of "
              "every system, topic and measure), leaderboard/ (results.csv, environment.json, "
              "latency_per_query.csv, per_query.csv: the per-topic accuracy behind the rank intervals)" + (", runs/ (the TREC runs)." if save_runs else "."), note=True)
    page.text("Wall time per step: " + ", ".join(f"{k} {v:.1f}s" for k, v in result.timings.items()) + ".",
              note=True)
    return page
