"""Findings on the Table-1 measures, with their uncertainty, on every collection reachable offline.

    python examples/findings.py --out findings-run             # the research run: 37 min on 2 busy cores
    python examples/findings.py --out /tmp/findings --quick    # a smoke run: few trials, two seeds

For each *view* -- DL19 passage with NIST's qrels and its 37 runs, the bundled Cranfield with
the demo's 15 systems (pyterrier-pisa and bm25s, built by :mod:`ir_cwla.app.systems`), and
DL19 with the re-annotated qrels of assessor a, then of assessor b, in place of NIST's (the
union of ``reannotation/group*-assessor-a.txt``; the other pooled documents are unjudged) --
the script runs the meta-evaluation criteria of :mod:`ir_cwla.meta` through
``criteria.run`` (the machinery of ``ir-cwla meta``) on the 39 Table-1 measures, families
``meta.browsing_model``: similarity, consistency, discriminative power, topic set size,
incompleteness and pooling bias; then incompleteness and pooling bias of the six canonical
measures under the unjudged policies zero / condense / max, and of ir-measures' condensed
lists (``judged_only=True``) and Bpref.

**Uncertainty.** The randomised criteria run with several seeds (``--seeds``): a value is the
mean over the seeds with their standard deviation. Within a family, measure A *beats* B when
the difference is significant: for consistency and pooling bias by the criteria's own
randomised Tukey HSD test (the ``(k)`` marks), in *every* seed; for incompleteness by the same
test over the trials of all seeds pooled; for discriminative power and topic set size (which
have no test of their own) when the 95% percentile interval of the paired difference over
``Settings.bootstrap`` resamples of the topics excludes 0; for the pool-depth variant
(deterministic) when the values differ. A measure's
*rank range* is ``1 + #(measures that beat it)`` to ``n - #(measures it beats)``: a
difference within noise is a tie, and a claim about a position holds when the rank range
lies within the claimed positions, is *within noise* when it overlaps them, and does not
hold when it is outside them.

Writes to ``--out``: ``findings.md`` (the page ``docs/findings.md`` is a copy of it),
``findings.json`` (every number the page quotes; ``docs/findings.json``), the Markdown/CSV
tables the page quotes under ``tables/``, and the figures under ``figures/``
(``docs/figures/findings_*.png``). ``--render JSON`` rewrites the page and the figures from a
saved JSON without computing anything (the claims are evaluated again from its numbers).
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ir_cwla import CWLA, canonical, io, meta, parse_measure, parse_measures, table1  # noqa: E402
from ir_cwla.analysis import naming, streams  # noqa: E402
from ir_cwla.analysis.frame import resolve_groups  # noqa: E402
from ir_cwla.errors import IrCwlaError  # noqa: E402
from ir_cwla.meta import criteria, robustness, tables  # noqa: E402
from ir_cwla.meta.evaluation import as_run_mapping  # noqa: E402
from ir_cwla.meta.kendall import tau_b_rows  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"

#: The views, in page order: key -> (title, short name).
VIEWS: dict[str, tuple[str, str]] = {
    "dl19": ("DL19 passage, NIST qrels (37 runs, 43 topics)", "DL19"),
    "cranfield": ("Cranfield, the demo's 15 systems (225 topics)", "Cranfield"),
    "dl19-a": ("DL19 passage, assessor a's re-annotation in place of NIST's qrels", "DL19-a"),
    "dl19-b": ("DL19 passage, assessor b's re-annotation in place of NIST's qrels", "DL19-b"),
    "dl21": ("DL21 passage, NIST qrels (63 runs, NIST's 53 topics)", "DL21"),
}
MODELS = ("P", "DCG", "RBP", "INST", "AP", "ERR")
POLICIES = ("zero", "condense", "max")
#: ir-measures measures compared with and without condensed lists (Sakai 2007), and Bpref.
IRM_MEASURES = ("nDCG@10", "nDCG(judged_only=True)@10", "AP(rel=2)@10", "AP(rel=2,judged_only=True)@10",
                "P(rel=2)@10", "P(rel=2,judged_only=True)@10", "Bpref(rel=2)")


@dataclass(frozen=True)
class Settings:
    """How much work: seeds, trials, resamples (the defaults are the research run's)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    splits: int = 1000                    # consistency: random topic splits
    test_trials: int = 2000               # every randomised Tukey HSD test
    fractions: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    fraction_trials: int = 20             # incompleteness: random subsets per fraction
    depths: tuple[int, ...] = (1, 3, 5, 10, 20)
    bias_depth: int = 10                  # pooling bias: leave one run out at this depth
    bootstrap: int = 200                  # topic resamples (discriminative power, topic set size)
    bootstrap_trials: int = 1000          # Tukey HSD permutations within each resample
    run_bootstrap: int = 2000             # run resamples of the pooling bias' mean |rank change|
    irm_fractions: tuple[float, ...] = (0.1, 0.3, 0.5, 0.7, 0.9)
    irm_trials: int = 8                   # ir-measures measures are re-scored by ir-measures: slow
    alpha: float = 0.05
    max_runs: Optional[int] = None        # reduced settings (tests): the first runs by name

    def options(self) -> dict[str, Any]:
        """The criteria's options, by command-line name (as ``ir-cwla meta`` passes them)."""
        return {"trials": self.splits, "test_trials": self.test_trials, "fractions": self.fractions,
                "fraction_trials": self.fraction_trials, "pool_depths": self.depths,
                "bias_depths": (self.bias_depth,)}


FULL = Settings()
QUICK = Settings(seeds=(0, 1), splits=100, test_trials=200, fractions=(0.1, 0.5, 0.9), fraction_trials=3,
                 bootstrap=20, bootstrap_trials=100, run_bootstrap=200, irm_fractions=(0.1, 0.5), irm_trials=0)
#: DL21 (63 runs, 53 topics) runs the criteria with the full settings (a few minutes: its
#: Table-1 criteria are as fast as DL19's), so that its verdicts have the power of the others', but
#: the ir-measures policies, which re-score every run with ir-measures under every qrels variant
#: (about a minute per trial on 63 runs), with half the trials; its settings are recorded with
#: its numbers.
MODEST = dataclasses.replace(FULL, irm_trials=4)
#: The settings of a full run per view, where they are not :data:`FULL`'s.
VIEW_SETTINGS: dict[str, Settings] = {"dl21": MODEST}
DL21_DIR = Path("llm-judgments") / "dl21"


# ============================================================================ the views

@dataclass
class View:
    key: str
    runs: dict[str, pd.DataFrame]
    qrels: pd.DataFrame


def read_runs(folder: Path, max_runs: Optional[int]) -> dict[str, pd.DataFrame]:
    named = as_run_mapping(str(folder))
    names = sorted(named)[:max_runs] if max_runs else sorted(named)
    return {name: io.read_trec_run(str(named[name]), name=name) for name in names}


def dl19_qrels(data: Path, assessor: Optional[str]) -> pd.DataFrame:
    """NIST's qrels (``assessor=None``), or the union of the four groups' files of one assessor."""
    base = data / "trec-dl-2019-passage"
    if assessor is None:
        return io.read_trec_qrels(str(base / "qrels.dl19-passage.txt"))
    files = sorted((base / "reannotation").glob(f"group*-assessor-{assessor}.txt"))
    parts = [io.read_trec_qrels(str(f)) for f in files]
    return pd.concat(parts, ignore_index=True)


def cranfield_runs(max_runs: Optional[int]) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """The demo's systems on the bundled Cranfield (``ir_cwla.app.systems``, as ``ir-cwla demo``)."""
    from ir_cwla import datasets
    from ir_cwla.app import systems as catalogue

    topics = datasets.cranfield_topics()
    names = [s.name for s in catalogue.SYSTEMS][:max_runs] if max_runs else None
    with tempfile.TemporaryDirectory(prefix="ir_cwla-findings-") as workdir, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="text_field not specified")
        built = catalogue.cranfield_systems(workdir, names)
        runs = {name: system(topics) for name, system in built.items()}
    return runs, datasets.cranfield_qrels()


def load_view(key: str, data: Path, settings: Settings) -> View:
    if key == "cranfield":
        runs, qrels = cranfield_runs(settings.max_runs)
        return View(key, runs, qrels)
    if key == "dl21":        # NIST's qrels judge 53 of the runs' 477 topics: the criteria use those 53
        runs = read_runs(data / DL21_DIR / "runs", settings.max_runs)
        return View(key, runs, io.read_trec_qrels(str(data / DL21_DIR / "qrels.nist.txt")))
    runs = read_runs(data / "trec-dl-2019-passage" / "runs", settings.max_runs)
    return View(key, runs, dl19_qrels(data, {"dl19": None, "dl19-a": "a", "dl19-b": "b"}[key]))


# ============================================================================ standings

def aggregation_of(name: str) -> str:
    return str(naming.aggregation(name))


def policy_of(name: str) -> str:
    measure = parse_measure(name)
    if naming.aggregation(name) is not None:
        return str(measure["unjudged"])
    if measure.NAME == "Bpref":
        return "judged only (Bpref)"
    return "condense" if measure.params.get("judged_only") else "zero"


def canonical_of(name: str) -> str:
    """The canonical measure a policy variant belongs to (its family in the policies' analyses)."""
    params = {k: v for k, v in parse_measure(name).params.items() if k != "unjudged"}
    return naming.label(str(CWLA(**params)))


def irm_family(name: str) -> str:
    m = parse_measure(name)
    params = {k: v for k, v in m.params.items() if k != "judged_only"}
    return str(type(m)(**params)) if m.NAME != "Bpref" else str(m)


@functools.cache
def measure_key(name: str) -> str:
    """The measure's ``str`` from its name or label.

    The measure's ``str`` from its name or label (the tables of ir_cwla.meta name measures by
    label, ``P_ERG@10``, which reads back; the tally keys them by ``str(measure)``); a name that is
    no measure stays as it is.
    """
    try:
        return str(parse_measure(name))
    except IrCwlaError:
        return name


def by_measure(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``measure`` column as :func:`measure_key` (``str(measure)``)."""
    return frame.assign(measure=frame["measure"].map(lambda m: measure_key(str(m))))


@dataclass
class Tally:
    """Per criterion: values (one per seed) and the measures each one beats (one set per seed)."""

    values: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    beats: dict[str, dict[str, list[set[str]]]] = field(default_factory=dict)
    rows: dict[str, list[pd.DataFrame]] = field(default_factory=dict)

    def add(self, criterion: str, values: Mapping[str, float], beats: Optional[Mapping[str, set[str]]] = None):
        for m, v in values.items():
            key = measure_key(str(m))
            self.values.setdefault(criterion, {}).setdefault(key, []).append(float(v))
            if beats is not None:
                beaten = {measure_key(str(b)) for b in beats.get(m, ())}
                self.beats.setdefault(criterion, {}).setdefault(key, []).append(beaten)

    def add_trials(self, criterion: str, trials: pd.DataFrame, statistic: str) -> None:
        """One seed's incompleteness trials.

        The values (means over the trials and fractions) and the per-trial rows (each trial's
        mean over the fractions), pooled later for one test.
        """
        per_trial = trials.pivot_table(index="trial", columns="measure", values=statistic, aggfunc="mean")
        self.add(criterion, per_trial.mean(axis=0))
        self.rows.setdefault(criterion, []).append(per_trial)

    def pooled_test(self, criterion: str, families: Mapping[str, Sequence[str]], labels: Mapping[str, str],
                    test_trials: int, alpha: float, seed: Any) -> None:
        """The randomised Tukey HSD test over the pooled trials of every seed.

        The randomised Tukey HSD test of :func:`ir_cwla.meta.robustness.family_ranking` over the
        trials of every seed pooled (each trial a paired row): who beats whom.
        """
        rows = pd.concat(self.rows[criterion], ignore_index=True)
        ranking = robustness.family_ranking(rows.mean(axis=0).to_frame("value"), "value", families, dict(labels),
                                            True, rows=rows, test_trials=test_trials, alpha=alpha, seed=seed)
        beats = {measure_key(str(k)): {measure_key(str(b)) for b in v}
                 for k, v in from_ranking(ranking, "value", labels)[1].items()}
        self.beats[criterion] = {measure_key(str(m)): [beats[measure_key(str(m))]] for m in rows.columns}


def from_ranking(table: pd.DataFrame, column: str, labels: Mapping[str, str]) -> tuple[dict, dict]:
    """Values and beaten measures (names) from a ``robustness.family_ranking`` table."""
    by_label = {v: k for k, v in labels.items()}
    names = [by_label.get(label, label) for label in table["measure"]]      # the table names measures by label
    values = dict(zip(names, table[column]))
    beats = {m: {by_label[b] for b in str(text).split(", ") if b} if isinstance(text, str) else set()
             for m, text in zip(names, table.get("better_than", [""] * len(table)))}
    return values, beats


def standing(values: Mapping[str, Sequence[float]], members: Sequence[str], key: Callable[[str], str],
             higher: bool, beats: Optional[Mapping[str, Sequence[set[str]]]] = None,
             intervals: Optional[Mapping[tuple[str, str], tuple[float, float]]] = None, test: str = "",
             digits: int = 3, identical: Collection[frozenset] = ()) -> dict[str, Any]:
    """One family under one criterion.

    Each member's value (mean over seeds, sd), the members it beats (in every seed, or by the
    bootstrap ``intervals`` of ``a - b``, or by its exact value when neither is given), its rank
    range, and the members it is ``equal`` to: the same measure in disguise (``identical``
    pairs, which rank the systems identically) with the same value in every seed.
    """
    sign = 1.0 if higher else -1.0
    mean = {m: float(np.mean(values[m])) for m in members}
    beaten: dict[str, set[str]] = {}
    for a in members:
        if beats is not None:
            sets = beats[a]
            beaten[a] = set.intersection(*sets) if sets else set()
        elif intervals is not None:
            beaten[a] = {b for b in members if b != a and sign * intervals[(a, b)][0 if higher else 1] > 0}
        else:
            tol = 1e-9 * max(1.0, *(abs(v) for v in mean.values()))
            beaten[a] = {b for b in members if b != a and sign * (mean[a] - mean[b]) > tol}
    n = len(members)
    out: dict[str, Any] = {}
    for m in members:
        vals = np.asarray(values[m], dtype=float)
        equal = [b for b in members if b != m and frozenset((m, b)) in identical
                 and np.allclose(values[b], vals, rtol=1e-9, atol=1e-12)]
        entry = {"value": round(mean[m], 6), "sd": round(float(vals.std(ddof=1)) if len(vals) > 1 else 0.0, 6),
                 "seeds": [round(float(v), 6) for v in vals],
                 "best": 1 + sum(m in beaten[b] for b in members if b != m), "worst": n - len(beaten[m]),
                 "beats": sorted(key(b) for b in beaten[m]), "equal": sorted(key(b) for b in equal)}
        out[key(m)] = entry
    order = sorted(members, key=lambda m: (-sign * mean[m], naming.order_key(m)))
    result = {"higher": higher, "test": test, "digits": digits, "order": [key(m) for m in order], "members": out}
    if intervals is not None:
        result["intervals"] = {key(a): {key(b): [round(intervals[(a, b)][0], 6), round(intervals[(a, b)][1], 6)]
                                        for b in members if b != a} for a in members}
    return result


def standings(tally: Tally, criterion: str, families: Mapping[str, Sequence[str]], key: Callable[[str], str],
              higher: bool, test: str, digits: int = 3, tested: bool = True,
              intervals: Optional[Mapping[tuple[str, str], tuple[float, float]]] = None,
              identical: Collection[frozenset] = ()) -> dict[str, Any]:
    values = tally.values[criterion]
    beats = tally.beats.get(criterion) if tested and intervals is None else None
    return {str(f): standing(values, members, key, higher, beats, intervals, test, digits, identical)
            for f, members in families.items()}


def paired_intervals(samples: Mapping[str, np.ndarray], families: Mapping[str, Sequence[str]],
                     alpha: float) -> dict[tuple[str, str], tuple[float, float]]:
    """Percentile intervals of ``a - b`` over the bootstrap samples, for every pair within a family."""
    out = {}
    for members in families.values():
        for a in members:
            for b in members:
                if a != b:
                    d = np.asarray(samples[a]) - np.asarray(samples[b])
                    lo, hi = np.quantile(d, [alpha / 2, 1 - alpha / 2])
                    out[(a, b)] = (float(lo), float(hi))
    return out


# ============================================================================ analyses

def resample_topics(per_query: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """The per-query frame on topics drawn with replacement (each draw a topic of its own)."""
    qids = np.asarray(sorted(per_query["qid"].unique()))
    rows = {q: idx for q, idx in per_query.groupby("qid", sort=True).indices.items()}
    draw = rng.integers(0, len(qids), size=len(qids))
    take = np.concatenate([rows[qids[i]] for i in draw])
    sizes = np.array([len(rows[qids[i]]) for i in draw])
    out = per_query.iloc[take][["name", "measure", "value"]].reset_index(drop=True)
    out.insert(1, "qid", np.repeat([f"b{k:04d}" for k in range(len(draw))], sizes))
    return out


def topic_bootstrap(per_query: pd.DataFrame, measures: list, settings: Settings, seed: int,
                    progress: bool) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Significant pairs and topics needed of every measure on topic resamples.

    Significant pairs (randomised Tukey HSD) and topics needed (paired t-test design) of every
    measure on ``settings.bootstrap`` resamples of the topics, through the criteria.
    """
    disc: dict[str, list[float]] = {}
    tss: dict[str, list[float]] = {}
    for b in range(settings.bootstrap):
        rng = np.random.default_rng(streams.derive(seed, streams.FINDINGS_STREAM, 0, b))
        frame = resample_topics(per_query, rng)
        inputs = criteria.Inputs(frame, measures, groups=meta.browsing_model,
                                 seed=streams.derive(seed, streams.FINDINGS_STREAM, 4, b),
                                 alpha=settings.alpha, progress=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            done = criteria.run(["discriminative_power", "topic_set_size"], inputs,
                                {"test_trials": settings.bootstrap_trials})
        d = done.results["discriminative_power"]
        sig = d.pairs.assign(s=d.pairs["p_value"] < settings.alpha).groupby("measure", sort=False)["s"].sum()
        for m, v in sig.items():
            disc.setdefault(m, []).append(float(v))
        for m, v in zip(done.results["topic_set_size"].sizes["measure"], done.results["topic_set_size"].sizes["n_t_test"]):
            tss.setdefault(m, []).append(float(v))
        if progress and (b + 1) % 50 == 0:
            print(f"    bootstrap {b + 1}/{settings.bootstrap}", file=sys.stderr, flush=True)
    return ({m: np.asarray(v) for m, v in disc.items()}, {m: np.asarray(v) for m, v in tss.items()})


def run_bootstrap_means(runs: pd.DataFrame, statistic: str, resamples: int, seed: int, level: float = 0.95
                        ) -> dict[str, tuple[float, float]]:
    """Percentile intervals of the mean of ``statistic`` over the left-out runs, runs resampled."""
    wide = runs.pivot(index="system", columns="measure", values=statistic)
    rng = np.random.default_rng(streams.derive(seed, streams.FINDINGS_STREAM, 1))
    draws = rng.integers(0, len(wide), size=(resamples, len(wide)))
    means = wide.to_numpy()[draws].mean(axis=1)                          # (resamples, M)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return {measure_key(str(m)): (float(a), float(b)) for m, a, b in zip(wide.columns, lo, hi)}


def one_system(disc: Any, alpha: float) -> dict[str, Any]:
    """Per measure: its significant pairs and, if they all involve one system, that system."""
    out = {}
    sig = disc.pairs[disc.pairs["p_value"] < alpha]
    for m in disc.measures:
        part = sig[sig["measure"] == m]
        common = set(part["system_a"]) | set(part["system_b"])
        for a, b in zip(part["system_a"], part["system_b"]):
            common &= {a, b}
        out[naming.label(m)] = {"significant": len(part), "one_system": sorted(common)[0] if len(part) and common
                                else None}
    return out


def at_fraction(trials: pd.DataFrame, fractions: Sequence[float], fraction: float = 0.1) -> pd.DataFrame:
    """The trials at ``fraction`` of the judgments (or at the smallest fraction there is)."""
    chosen = fraction if np.isclose(fractions, fraction).any() else min(fractions)
    return trials[np.isclose(trials["fraction"], chosen)]


def analyse_table1(view: View, settings: Settings, progress: bool) -> dict[str, Any]:
    """The six criteria on the 39 Table-1 measures, every seed; the bootstraps; their standings."""
    measures = list(table1())
    per_query = meta.evaluate(view.runs, view.qrels, measures, progress=False)
    names = naming.measure_order(per_query["measure"].unique())
    families = resolve_groups(names, meta.browsing_model)
    models = {parse_measure(members[0])["C"]: str(f) for f, members in families.items()}
    labels = {m: naming.label(m) for m in names}
    tally = Tally()
    extra: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    results: dict[str, Any] = {}
    for i, seed in enumerate(settings.seeds):
        inputs = criteria.Inputs(per_query, measures, view.runs, view.qrels, groups=meta.browsing_model, seed=seed,
                                 alpha=settings.alpha, progress=False)
        chosen = ["consistency", "discriminative_power", "incompleteness"]
        if i == 0:
            chosen = ["similarity", "consistency", "discriminative_power", "topic_set_size", "incompleteness",
                      "pooling_bias"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            done = criteria.run(chosen, inputs, settings.options())
        for k, v in done.seconds.items():
            seconds[k] = seconds.get(k, 0.0) + v
        if i == 0:
            results = dict(done.results)
            pool = done.results["pooling_bias"]
        cons = done.results["consistency"]
        tally.add("consistency", cons.mean_tau, cons.outperforms())
        disc = done.results["discriminative_power"]
        counts = disc.pairs.assign(s=disc.pairs["p_value"] < settings.alpha).groupby("measure", sort=False)["s"].sum()
        tally.add("discriminative_power", counts)
        inc = done.results["incompleteness"]
        tally.add_trials("incompleteness", inc.trials, "tau")
        tally.add_trials("incompleteness_tau_ap", inc.trials, "tau_ap")
        tally.add_trials("incompleteness_at_10", at_fraction(inc.trials, settings.fractions), "tau")
        # pooling bias is deterministic; its Tukey HSD test over the runs takes the seed
        bias = criteria.CRITERIA["pooling_bias"].summary(pool, inputs, depths=(settings.bias_depth,),
                                                         test_trials=settings.test_trials)
        tally.add("pooling_bias", *from_ranking(bias, "mean_abs_rank_change", labels))
        tally.add("pooling_rel_drop", *from_ranking(
            pool.robustness("rel_drop", test_trials=settings.test_trials, alpha=settings.alpha, seed=seed),
            "rel_drop", labels))
        if i == 0:
            extra["one_system"] = one_system(disc, settings.alpha)
        if progress:
            print(f"  {view.key}: seed {seed} done", file=sys.stderr, flush=True)

    for criterion in ("incompleteness", "incompleteness_tau_ap", "incompleteness_at_10"):
        tally.pooled_test(criterion, families, labels, settings.test_trials, settings.alpha,
                          streams.derive(settings.seeds[0], streams.FINDINGS_STREAM, 2))
    # deterministic criteria (one value), and the depth-pooled variant
    sizes = results["topic_set_size"].sizes.set_index("measure")
    tally.add("topic_set_size", sizes["n_t_test"])
    depth = results["incompleteness"].robustness(kind="depth")
    tally.add("pool_depth", dict(zip(depth["measure"], depth["tau"])))

    clock = time.perf_counter()
    disc_samples, tss_samples = topic_bootstrap(per_query, measures, settings, settings.seeds[0], progress)
    seconds["topic bootstrap"] = time.perf_counter() - clock
    key = aggregation_of
    sim = results["similarity"]
    identical = {frozenset((a, b)) for members in families.values() for i, a in enumerate(members)
                 for b in members[i + 1:] if sim.tau.at[a, b] > 1 - 1e-12}
    out: dict[str, Any] = {"models": models, "seconds": {k: round(v, 1) for k, v in seconds.items()}}
    tukey_seeds = f"randomised Tukey HSD ({settings.test_trials} permutations) in every one of {len(settings.seeds)} seeds"
    pooled = f"randomised Tukey HSD ({settings.test_trials} permutations) over the {settings.fraction_trials} trials " \
             f"of every seed pooled ({len(settings.seeds) * settings.fraction_trials})"
    boot = f"95% interval of the paired difference over {settings.bootstrap} topic resamples"
    same = {"identical": identical}
    out["standings"] = {
        "consistency": standings(tally, "consistency", families, key, True, tukey_seeds + " (over the splits)",
                                 **same),
        "discriminative_power": standings(tally, "discriminative_power", families, key, True, boot, digits=1,
                                          intervals=paired_intervals(disc_samples, families, settings.alpha),
                                          **same),
        "topic_set_size": standings(tally, "topic_set_size", families, key, False, boot, digits=0,
                                    intervals=paired_intervals(tss_samples, families, settings.alpha), **same),
        "incompleteness": standings(tally, "incompleteness", families, key, True, pooled, **same),
        "incompleteness_tau_ap": standings(tally, "incompleteness_tau_ap", families, key, True, pooled, **same),
        "incompleteness_at_10": standings(tally, "incompleteness_at_10", families, key, True, pooled + ", at 10%",
                                          **same),
        "pool_depth": standings(tally, "pool_depth", families, key, True, "deterministic: exact values",
                                tested=False, **same),
        "pooling_bias": standings(tally, "pooling_bias", families, key, False, tukey_seeds + " (over the runs)",
                                  **same),
        "pooling_rel_drop": standings(tally, "pooling_rel_drop", families, key, False,
                                      tukey_seeds + " (over the runs)", digits=4, **same),
    }
    # seed-to-seed stability, and numbers some findings quote
    cons_seeds = pd.DataFrame(tally.values["consistency"])
    disc_seeds = pd.DataFrame(tally.values["discriminative_power"])
    extra["seed_range"] = {"consistency": round(float((cons_seeds.max() - cons_seeds.min()).max()), 6),
                           "consistency_measure": labels[str((cons_seeds.max() - cons_seeds.min()).idxmax())],
                           "discriminative_power": int((disc_seeds.max() - disc_seeds.min()).max()),
                           "discriminative_power_measure": labels[str((disc_seeds.max() - disc_seeds.min()).idxmax())]}
    table = by_measure(pool.table()).query("depth == @settings.bias_depth").set_index("measure")
    bounds = run_bootstrap_means(pool.runs[pool.runs["depth"] == settings.bias_depth], "abs_rank_change",
                                 settings.run_bootstrap, settings.seeds[0])
    extra["pooling"] = {labels[m]: {"rel_drop": round(float(table.at[m, "rel_drop"]), 6),
                                    "mean_abs_rank_change": round(float(table.at[m, "mean_abs_rank_change"]), 6),
                                    "interval": [round(bounds[m][0], 6), round(bounds[m][1], 6)],
                                    "max_rank_drop": int(table.at[m, "max_rank_drop"])} for m in names}
    extra["pooling_significant_pairs"] = significant_share(out["standings"]["pooling_bias"])
    sim = results["similarity"]
    extra["similarity"] = {str(f): {f"{key(a)}|{key(b)}": [round(float(sim.tau.at[a, b]), 6),
                                                          round(float(sim.ci_low.at[a, b]), 6),
                                                          round(float(sim.ci_high.at[a, b]), 6)]
                                    for i, a in enumerate(members) for b in members[i + 1:]}
                           for f, members in families.items()}
    n_s = per_query["name"].nunique()
    extra["collection"] = {"systems": n_s, "topics": int(per_query["qid"].nunique()), "pairs": n_s * (n_s - 1) // 2,
                           "judgments": len(view.qrels)}
    out["extra"] = extra
    out["tables"] = {"consistency": results["consistency"].table(), "discriminative_power":
                     results["discriminative_power"].table(), "topic_set_size": results["topic_set_size"].table(),
                     "incompleteness": results["incompleteness"].table(), "pooling_bias": pool.table()}
    return out


def significant_share(family_standings: Mapping[str, Any]) -> list[int]:
    """[significant pairs, pairs] over the families of a criterion."""
    hits = pairs = 0
    for st in family_standings.values():
        members = st["members"]
        pairs += len(members) * (len(members) - 1) // 2
        hits += sum(len(m["beats"]) for m in members.values())
    return [hits, pairs]


def analyse_policies(view: View, settings: Settings, progress: bool) -> dict[str, Any]:
    """Incompleteness and pooling bias of the six canonical measures under each unjudged policy."""
    measures = [CWLA(**{**m.params, "unjudged": u}) for m in canonical(10) for u in POLICIES]
    per_query = meta.evaluate(view.runs, view.qrels, measures, progress=False)
    names = naming.measure_order(per_query["measure"].unique())
    families = resolve_groups(names, canonical_of)
    labels = {m: naming.label(m) for m in names}
    tally = Tally()
    pool = None
    for i, seed in enumerate(settings.seeds):
        inputs = criteria.Inputs(per_query, measures, view.runs, view.qrels, groups=canonical_of, seed=seed,
                                 alpha=settings.alpha, progress=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            done = criteria.run(["incompleteness"] + (["pooling_bias"] if i == 0 else []), inputs, settings.options())
        if i == 0:
            pool = done.results["pooling_bias"]
        inc = done.results["incompleteness"]
        tally.add_trials("incompleteness", inc.trials, "tau")
        tally.add_trials("incompleteness_at_10", at_fraction(inc.trials, settings.fractions), "tau")
        assert pool is not None
        bias = criteria.CRITERIA["pooling_bias"].summary(pool, inputs, depths=(settings.bias_depth,),
                                                         test_trials=settings.test_trials)
        tally.add("pooling_bias", *from_ranking(bias, "mean_abs_rank_change", labels))
    assert pool is not None
    for criterion in ("incompleteness", "incompleteness_at_10"):
        tally.pooled_test(criterion, families, labels, settings.test_trials, settings.alpha,
                          streams.derive(settings.seeds[0], streams.FINDINGS_STREAM, 3))
    table = by_measure(pool.table()).query("depth == @settings.bias_depth").set_index("measure")
    tally.add("pooling_rel_drop", table["rel_drop"])
    tukey_seeds = f"randomised Tukey HSD ({settings.test_trials} permutations) in every one of {len(settings.seeds)} seeds"
    pooled = f"randomised Tukey HSD ({settings.test_trials} permutations) over the {settings.fraction_trials} trials " \
             f"of every seed pooled ({len(settings.seeds) * settings.fraction_trials})"
    if progress:
        print(f"  {view.key}: policies done", file=sys.stderr, flush=True)
    return {"standings": {
        "incompleteness": standings(tally, "incompleteness", families, policy_of, True, pooled),
        "incompleteness_at_10": standings(tally, "incompleteness_at_10", families, policy_of, True,
                                          pooled + ", at 10%"),
        "pooling_bias": standings(tally, "pooling_bias", families, policy_of, False, tukey_seeds),
        "pooling_rel_drop": standings(tally, "pooling_rel_drop", families, policy_of, False, "no test", digits=4,
                                      tested=False)}}


def analyse_irm(view: View, settings: Settings, progress: bool) -> dict[str, Any]:
    """Incompleteness of ir-measures' measures, with and without condensed lists, and of Bpref.

    Incompleteness of ir-measures' measures with and without condensed lists, and of Bpref
    (re-scored by ir-measures under every qrels variant: one seed, fewer fractions and trials).
    """
    measures = parse_measures(list(IRM_MEASURES))
    per_query = meta.evaluate(view.runs, view.qrels, measures, progress=False)
    seed = settings.seeds[0]
    inputs = criteria.Inputs(per_query, measures, view.runs, view.qrels, groups=irm_family, seed=seed,
                             alpha=settings.alpha, progress=False)
    options = {**settings.options(), "fractions": settings.irm_fractions, "fraction_trials": settings.irm_trials,
               "pool_depths": ()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        done = criteria.run(["incompleteness"], inputs, options)
    inc = done.results["incompleteness"]
    names = list(inc.measures)
    labels = dict(inc.labels)
    families = resolve_groups(names, irm_family)
    tally = Tally()
    tally.add("incompleteness", *from_ranking(done.summaries["incompleteness"], "tau", labels))
    everything = dataclasses.replace(inc, groups={"all": names})
    tally.add("incompleteness_all", *from_ranking(
        everything.robustness("tau", test_trials=settings.test_trials, alpha=settings.alpha), "tau", labels))
    table = inc.table()
    at_10 = table[np.isclose(table["fraction"], min(settings.irm_fractions))]
    tally.add("incompleteness_at_10", dict(zip(at_10["measure"], at_10["tau"])))
    test = f"randomised Tukey HSD ({settings.test_trials} permutations) over {settings.irm_trials} trials, seed {seed}"
    if progress:
        print(f"  {view.key}: ir-measures policies done", file=sys.stderr, flush=True)
    return {"standings": {
        "incompleteness": standings(tally, "incompleteness", families, policy_of, True, test),
        "incompleteness_all": standings(tally, "incompleteness_all", {"all": names}, str, True, test),
        "incompleteness_at_10": standings(tally, "incompleteness_at_10", {"all": names}, str, True, "no test",
                                          tested=False)}}


def analyse(view: View, settings: Settings, progress: bool) -> dict[str, Any]:
    clock = time.perf_counter()
    out = analyse_table1(view, settings, progress)
    out["policies"] = analyse_policies(view, settings, progress)
    if settings.irm_trials:
        t = time.perf_counter()
        out["irm"] = analyse_irm(view, settings, progress)
        out["seconds"]["ir-measures policies"] = round(time.perf_counter() - t, 1)
    out["seconds"]["total"] = round(time.perf_counter() - clock, 1)
    return out


# ============================================================================ claims

HOLDS, TIE, PARTLY, FAILS, NA = "holds", "within noise", "partly", "does not hold", "n/a"
SYMBOL = {HOLDS: "holds", TIE: "within noise", PARTLY: "partly", FAILS: "**does not hold**", NA: "n/a"}

#: The paper's Table 3 (TR19DL, document runs): mean tau of every aggregation per browsing model.
PAPER_CONSISTENCY = {
    "P": {"ERG": 0.643, "ETG": 0.643, "avg": 0.643, "max": 0.490, "PE": 0.430, "fin": 0.276},
    "DCG": {"PE": 0.651, "ERG": 0.644, "ETG": 0.644, "avg": 0.638, "max": 0.614, "fin": 0.612},
    "RBP": {"PE": 0.702, "ERG": 0.674, "ETG": 0.674, "fin": 0.667, "avg": 0.657, "max": 0.639},
    "INST": {"ETG": 0.688, "PE": 0.673, "fin": 0.670, "ERG": 0.669, "avg": 0.628, "max": 0.619, "ERR": 0.585},
    "AP": {"ERG": 0.691, "ETG": 0.655, "avg": 0.641, "fin": 0.568, "PE": 0.557, "max": 0.546, "ERR": 0.067},
    "ERR": {"ETG": 0.587, "ERG": 0.573, "ERR": 0.572, "avg": 0.544, "fin": 0.499, "PE": 0.478, "max": 0.448},
}


class Numbers:
    """The numbers of one view (``findings.json``'s ``views[key]``), with accessors for the claims."""

    def __init__(self, key: str, data: Mapping[str, Any]):
        self.key, self.d = key, data

    def family(self, model: str, suite: str = "table1") -> str:
        return self.d["models"][model] if suite == "table1" else model

    def st(self, criterion: str, model: str, suite: str = "table1") -> dict[str, Any]:
        source = self.d if suite == "table1" else self.d[suite]
        return source["standings"][criterion][self.family(model, suite)]

    def has(self, suite: str) -> bool:
        return suite == "table1" or suite in self.d

    @property
    def extra(self) -> dict[str, Any]:
        return self.d["extra"]


def number(value: float, digits: int) -> str:
    return f"{value:.{digits}f}" if digits else f"{value:.0f}"


def pm(st: Mapping[str, Any], member: str) -> str:
    """``0.816 ± 0.004`` (mean and sd over the seeds), or the value alone if it has no spread."""
    e, digits = st["members"][member], st["digits"]
    if len(e["seeds"]) > 1 and e["sd"] > 0:
        return f"{number(e['value'], digits)} ± {number(e['sd'], max(digits, 1) if digits < 3 else 3)}"
    return number(e["value"], digits)


def rank_text(st: Mapping[str, Any], member: str) -> str:
    e, n = st["members"][member], len(st["members"])
    return f"rank {e['best']}" + (f"-{e['worst']}" if e["worst"] != e["best"] else "") + f" of {n}"


def entry(st: Mapping[str, Any], member: str) -> str:
    """``ERG 0.816 ± 0.004 (rank 1-3 of 6)``; ``ERG (= ETG = avg) ...`` for identical measures."""
    equal = st["members"][member].get("equal", [])
    same = f" (= {' = '.join(equal)})" if equal else ""
    return f"{member}{same} {pm(st, member)} ({rank_text(st, member)})"


def entries(st: Mapping[str, Any], members: Sequence[str]) -> str:
    """:func:`entry` of each member, once for members identical to each other (``ERG = ETG ...``)."""
    out, done = [], set()
    for m in members:
        if m in done:
            continue
        group = [m] + [e for e in members if e != m and e in st["members"][m].get("equal", [])]
        done.update(group)
        rest = [e for e in st["members"][m].get("equal", []) if e not in group]
        name = " = ".join(group) + (f" (= {' = '.join(rest)})" if rest else "")
        out.append(f"{name} {pm(st, m)} ({rank_text(st, m)})")
    return ", ".join(out)


def could_be(st: Mapping[str, Any], where: str) -> list[str]:
    """The members whose rank range reaches the first (``'first'``) or the last place."""
    n = len(st["members"])
    return [m for m in st["order"] if (st["members"][m]["best"] == 1 if where == "first"
                                        else st["members"][m]["worst"] == n)]


def combine(statuses: Sequence[str]) -> str:
    s = set(statuses) - {NA}
    if not s:
        return NA
    if s == {HOLDS}:
        return HOLDS
    if FAILS in s:
        return PARTLY if s & {HOLDS, TIE, PARTLY} else FAILS
    return PARTLY if PARTLY in s else TIE


def bounds(where: Any, n: int, k: int) -> tuple[int, int]:
    """Positions ``(lo, hi)`` from ``'first'``, ``'last'``, ``'next to last'`` or ints (negative: from the end)."""
    if where == "first":
        return 1, k
    if where == "last":
        return n - k + 1, n
    if where == "next to last":
        return n - k, n - 1
    lo, hi = where
    return (lo if lo > 0 else n + 1 + lo), (hi if hi > 0 else n + 1 + hi)


def position_status(st: Mapping[str, Any], members: Sequence[str], where: Any) -> str:
    """A place claimed for ``members``.

    Members identical to them (the same measure in disguise, e.g. ERG and ETG
    under P) share it, so the claimed places widen by as many.
    """
    n = len(st["members"])
    group = set(members) | {e for m in members for e in st["members"][m].get("equal", [])}
    lo, hi = bounds(where, n, len(group))
    if isinstance(where, tuple):
        hi = min(n, hi + len(group) - len(members))
    status = []
    for m in members:
        b, w = st["members"][m]["best"], st["members"][m]["worst"]
        status.append(HOLDS if lo <= b and w <= hi else FAILS if w < lo or b > hi else TIE)
    return FAILS if FAILS in status else TIE if TIE in status else HOLDS


Check = Callable[[Numbers], tuple[str, str]]


def position(criterion: str, members: Sequence[str], models: Sequence[str], where: Any, suite: str = "table1",
             note: Optional[Callable[[Numbers], str]] = None) -> Check:
    """``members`` take the positions ``where`` in every family of ``models``."""
    def check(v: Numbers) -> tuple[str, str]:
        if not v.has(suite):
            return NA, "not computed"
        statuses, parts = [], []
        for model in models:
            st = v.st(criterion, model, suite)
            status = position_status(st, members, where)
            statuses.append(status)
            text = entries(st, members)
            if where in ("first", "last") and status != HOLDS:
                text += f"; could be {where}: {', '.join(could_be(st, where))}"
            parts.append(f"{model}: {text} — {SYMBOL[status]}")
        extra = f" ({note(v)})" if note else ""
        return combine(statuses), "; ".join(parts) + extra
    return check


def pair_status(st: Mapping[str, Any], a: str, b: str) -> str:
    ma, mb = st["members"][a], st["members"][b]
    return HOLDS if b in ma["beats"] else FAILS if a in mb["beats"] else TIE


def order(criterion: str, chain: Sequence[str], models: Sequence[str], suite: str = "table1",
          note: Optional[Callable[[Numbers], str]] = None) -> Check:
    """Each member of ``chain`` is significantly better than the next, in every family of ``models``."""
    def check(v: Numbers) -> tuple[str, str]:
        if not v.has(suite):
            return NA, "not computed"
        statuses, parts = [], []
        for model in models:
            st = v.st(criterion, model, suite)
            links = [pair_status(st, a, b) for a, b in zip(chain, chain[1:])]
            status = FAILS if FAILS in links else TIE if TIE in links else HOLDS
            statuses.append(status)
            text = f"{chain[0]} {pm(st, chain[0])}"
            for b, link in zip(chain[1:], links):
                sign = {HOLDS: ">", TIE: "≈", FAILS: "<"}[link]
                text += f" {sign} {b} {pm(st, b)}"
            parts.append(f"{model}: {text}" + ("" if len(models) == 1 and suite != "table1" else
                                               f" — {SYMBOL[status]}"))
        extra = f" ({note(v)})" if note else ""
        return combine(statuses), "; ".join(parts) + extra
    return check


def both(*checks: Check) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        results = [c(v) for c in checks]
        return combine([r[0] for r in results]), "; ".join(r[1] for r in results)
    return check


def similarity_of(v: Numbers, model: str, a: str, b: str) -> tuple[float, float, float]:
    table = v.extra["similarity"][v.family(model)]
    return tuple(table.get(f"{a}|{b}") or table[f"{b}|{a}"])  # type: ignore[return-value]


def members_of(v: Numbers, model: str) -> list[str]:
    return list(v.st("consistency", model)["members"])


def sim_text(v: Numbers, model: str, a: str, b: str) -> str:
    tau, lo, hi = similarity_of(v, model, a, b)
    return f"tau({a}, {b}) = {tau:.2f} [{lo:.2f}, {hi:.2f}]"


def identical(pairs: Mapping[str, Sequence[tuple[str, str]]]) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model, ps in pairs.items():
            for a, b in ps:
                tau = similarity_of(v, model, a, b)[0]
                cons = v.st("consistency", model)["members"]
                same = tau > 1 - 1e-9 and abs(cons[a]["value"] - cons[b]["value"]) < 1e-9
                statuses.append(HOLDS if same else FAILS)
                parts.append(f"{model}: tau({a}, {b}) = {tau:.3f}" + ("" if same else " — **differ**"))
        return combine(statuses), "; ".join(parts)
    return check


def least_similar(model_list: Sequence[str], odd: str, to: str) -> Check:
    """``odd`` is the aggregation least similar to ``to`` (lowest tau).

    Within noise when the next lowest tau lies inside its 95% interval.
    """
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model in model_list:
            others = [m for m in members_of(v, model) if m not in (to, "ETG" if to == "ERG" else to)]
            taus = sorted(((similarity_of(v, model, to, m), m) for m in others), key=lambda t: t[0][0])
            (low, first), (next_low, second) = taus[0], taus[1]
            status = FAILS if first != odd else HOLDS if next_low[0] > low[2] else TIE
            statuses.append(status)
            parts.append(f"{model}: {sim_text(v, model, to, first)}, next {sim_text(v, model, to, second)} — "
                         f"{SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def cluster(model: str, groups: Sequence[Sequence[str]]) -> Check:
    """Each group is closer to itself than to the rest.

    Its smallest tau within is above its largest tau with any other aggregation, within noise when
    that largest tau lies inside the 95% interval of the smallest within. A group of one is the
    odd one out: its closest aggregation is farther from it than every other aggregation's closest
    (leaving it out), within noise when the 95% interval of its closest reaches that.
    """
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        everyone = members_of(v, model)
        for group in groups:
            inside = [similarity_of(v, model, a, b) for i, a in enumerate(group) for b in group[i + 1:]]
            across = [similarity_of(v, model, a, b) for a in group for b in everyone if b not in group]
            high = max(across, key=lambda t: t[0])
            if not inside:                 # the odd one out
                odd = group[0]
                closest = [max(similarity_of(v, model, a, b)[0] for b in everyone if b not in (a, odd))
                           for a in everyone if a != odd]
                status = HOLDS if high[2] < min(closest) else TIE if high[0] < min(closest) else FAILS
                statuses.append(status)
                parts.append(f"{odd}: its closest {high[0]:.2f} [{high[1]:.2f}, {high[2]:.2f}], every other "
                             f"aggregation's closest {min(closest):.2f} or more — {SYMBOL[status]}")
                continue
            low = min(inside, key=lambda t: t[0])
            status = HOLDS if low[1] > high[0] else TIE if low[0] > high[0] else FAILS
            inside, across = [t[0] for t in inside], [t[0] for t in across]
            high_out = max(across)
            statuses.append(status)
            what = f"{', '.join(group)}: " + (f"tau within {min(inside):.2f}-{max(inside):.2f}, " if inside else "")
            parts.append(what + f"with the others {min(across):.2f}-{high_out:.2f} — {SYMBOL[status]}")
        return combine(statuses), f"{model}: " + "; ".join(parts)
    return check


def similar_at_most(model: str, limit: float) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        table = v.extra["similarity"][v.family(model)]
        different = {k: t[0] for k, t in table.items() if t[0] < 1 - 1e-9}
        pair = max(different, key=lambda k: different[k])
        status = HOLDS if different[pair] <= limit else FAILS
        return status, f"{model}: the largest tau between aggregations that rank differently is " \
                       f"{different[pair]:.2f} ({pair.replace('|', ', ')}) — {SYMBOL[status]}"
    return check


def value_below(criterion: str, model: str, member: str, limit: float, low: Optional[float] = None,
                last: bool = False, what: str = "") -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        st = v.st(criterion, model)
        e = st["members"][member]
        ok = e["value"] < limit and (low is None or e["value"] > low)
        if last:
            ok = ok and position_status(st, [member], "last") != FAILS
        label = f" ({what})" if what else ""
        return (HOLDS if ok else FAILS), f"{model}{label}: {entry(st, member)} — {SYMBOL[HOLDS if ok else FAILS]}"
    return check


def volatile(members: Sequence[str], spread: int = 3) -> Check:
    """The member's place (by value) changes by at least ``spread`` positions across the models."""
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for m in members:
            places = [v.st("consistency", model)["order"].index(m) + 1 for model in MODELS]
            ok = max(places) - min(places) >= spread
            statuses.append(HOLDS if ok else FAILS)
            parts.append(f"{m} places {'/'.join(map(str, places))} ({', '.join(MODELS)}) — {SYMBOL[HOLDS if ok else FAILS]}")
        avg = [v.st("consistency", model)["order"].index("avg") + 1 for model in MODELS]
        return combine(statuses), "; ".join(parts) + f" (avg: {'/'.join(map(str, avg))})"
    return check


def weak(criterion: str, member: str, models: Sequence[str]) -> Check:
    """Significantly below the family's best aggregation."""
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model in models:
            st = v.st(criterion, model)
            best = st["order"][0]
            status = NA if best == member else pair_status(st, best, member)
            status = FAILS if best == member else status
            statuses.append(status)
            parts.append(f"{model}: {entry(st, member)} against {entry(st, best)} — {SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def consistency_range() -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        values = [e["value"] for model in MODELS for m, e in v.st("consistency", model)["members"].items()
                  if not (model == "AP" and m == "ERR")]
        lo, hi = min(values), max(values)
        ok = lo > 0.276 and hi > 0.702
        return (HOLDS if ok else FAILS), f"mean tau {lo:.3f}-{hi:.3f} (TR19DL: 0.276-0.702) — " \
                                         f"{SYMBOL[HOLDS if ok else FAILS]}"
    return check


def weak_measures(measures: Sequence[str]) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for m in measures:
            e = v.extra["one_system"][m]
            ok = e["one_system"] is not None and e["significant"] == v.extra["collection"]["systems"] - 1
            statuses.append(HOLDS if ok else FAILS)
            parts.append(f"{m}: {e['significant']} pairs" + (f", all with {e['one_system']}" if e["one_system"]
                                                              else ""))
        share = v.extra["collection"]["pairs"]
        return combine(statuses), "; ".join(parts) + f" (of {share}; seed 0)"
    return check


def seed_stability() -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        r = v.extra["seed_range"]
        pairs = v.extra["collection"]["pairs"]
        ok = r["consistency"] <= 0.01 and r["discriminative_power"] <= 0.03 * pairs
        return (HOLDS if ok else FAILS), (
            f"largest range over the seeds: mean tau {r['consistency']:.4f} ({r['consistency_measure']}), "
            f"significant pairs {r['discriminative_power']} of {pairs} ({100 * r['discriminative_power'] / pairs:.1f}%, "
            f"{r['discriminative_power_measure']}) — {SYMBOL[HOLDS if ok else FAILS]}")
    return check


def sets_status(a: Collection[str], b: Collection[str]) -> str:
    """Two sets of aggregations that could take a place.

    The same (holds), overlapping (within noise) or disjoint (does not hold).
    """
    return HOLDS if set(a) == set(b) else TIE if set(a) & set(b) else FAILS


def ends_status(v: Numbers, model: str, first: str, second: str) -> str:
    a, b = v.st(first, model), v.st(second, model)
    return combine([sets_status(could_be(a, w), could_be(b, w)) for w in ("first", "last")])


def same_ends(first: str, second: str) -> Check:
    """The aggregations that could be first (last) under one statistic are those under the other."""
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model in MODELS:
            a, b = v.st(first, model), v.st(second, model)
            status = ends_status(v, model, first, second)
            statuses.append(status)
            parts.append(f"{model}: first {'/'.join(could_be(a, 'first'))} vs {'/'.join(could_be(b, 'first'))}, last "
                         f"{'/'.join(could_be(a, 'last'))} vs {'/'.join(could_be(b, 'last'))} — {SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def lower_throughout(first: str, second: str) -> Check:
    """``second`` (tau_AP) is below ``first`` (tau) for every measure."""
    def check(v: Numbers) -> tuple[str, str]:
        higher = []
        n = 0
        for model in MODELS:
            a, b = v.st(first, model)["members"], v.st(second, model)["members"]
            for m in a:
                n += 1
                if b[m]["value"] >= a[m]["value"]:
                    higher.append(f"{model}_{m} tau_AP {b[m]['value']:.3f} vs tau {a[m]['value']:.3f}")
        status = HOLDS if not higher else FAILS
        return status, (f"tau_AP below tau for {n - len(higher)} of {n} measures" +
                        (f"; not for {'; '.join(higher)}" if higher else ""))
    return check


def pooling_small(limit: float = 0.04, others: float = 0.014) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        drops = sorted(((e["rel_drop"], m) for m, e in v.extra["pooling"].items()), reverse=True)
        (top, worst), (second, runner) = drops[0], drops[1]
        ok = round(100 * top, 1) <= 100 * limit and round(100 * second, 1) <= 100 * others   # as precise as stated
        return (HOLDS if ok else FAILS), (f"largest mean drop {100 * top:.1f}% of the mean score ({worst}), next "
                                          f"{100 * second:.1f}% ({runner}) — {SYMBOL[HOLDS if ok else FAILS]}")
    return check


def pooling_ranks(limit: float = 2.0) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        m, e = max(v.extra["pooling"].items(), key=lambda kv: kv[1]["mean_abs_rank_change"])
        lo, hi = e["interval"]
        value = e["mean_abs_rank_change"]
        status = HOLDS if hi < limit else TIE if value < limit else FAILS
        return status, (f"largest mean |rank change| {value:.2f} ({m}; 95% interval over the runs {lo:.2f}-{hi:.2f}) — "
                        f"{SYMBOL[status]}")
    return check


def few_significant(limit: float = 0.25) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        hits, pairs = v.extra["pooling_significant_pairs"]
        ok = hits <= limit * pairs
        return (HOLDS if ok else FAILS), (f"{hits} of {pairs} within-family pairs differ significantly "
                                          f"({100 * hits / pairs:.0f}%) — {SYMBOL[HOLDS if ok else FAILS]}")
    return check


def paper_ends(expect: Mapping[str, Sequence[str]], agree: bool) -> Check:
    """Incompleteness against the paper's consistency (TR19DL).

    For ``(model, 'first'|'last')``, whether the paper's most (least) consistent aggregation is
    the most (least) robust here: it agrees when every aggregation that could take the place
    here is the paper's, disagrees when none is, and is within noise otherwise.
    """
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model, ends in expect.items():
            st = v.st("incompleteness", model)
            paper = PAPER_CONSISTENCY[model]
            for where in ends:
                best = max(paper.values()) if where == "first" else min(paper.values())
                theirs = [m for m, x in paper.items() if x == best]
                here = could_be(st, where)
                definite, possible = set(here) <= set(theirs), bool(set(here) & set(theirs))
                if agree:
                    status = HOLDS if definite else TIE if possible else FAILS
                else:
                    status = FAILS if definite else TIE if possible else HOLDS
                statuses.append(status)
                parts.append(f"{model} {'most' if where == 'first' else 'least'}: paper {'/'.join(theirs)}, here "
                             f"{'/'.join(here)} — {SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def order_tau(second: str, models: Sequence[str], sign: int, flip: bool = False) -> Check:
    """Kendall's tau between the consistency order and ``second``'s, per family and seed.

    Checks that it has the sign ``sign`` (+1 positive, -1 negative, 0: near zero, |tau| < 0.3)
    in every family of ``models``.
    """
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model in models:
            a, b = v.st("consistency", model), v.st(second, model)
            members = list(a["members"])
            k = min(len(a["members"][members[0]]["seeds"]), len(b["members"][members[0]]["seeds"]))
            taus = []
            for s in range(max(k, 1)):
                x = np.array([a["members"][m]["seeds"][min(s, len(a["members"][m]["seeds"]) - 1)] for m in members])
                y = np.array([b["members"][m]["seeds"][min(s, len(b["members"][m]["seeds"]) - 1)] for m in members])
                taus.append(float(tau_b_rows(x, -y if flip else y)))
            t, sd = float(np.mean(taus)), float(np.std(taus, ddof=1)) if len(taus) > 1 else 0.0
            ok = (t > 0) if sign > 0 else (t < 0) if sign < 0 else abs(t) < 0.3
            statuses.append(HOLDS if ok else FAILS)
            parts.append(f"{model}: {t:.2f}" + (f" ± {sd:.2f}" if sd else "") + ("" if ok else " — **not as claimed**"))
        return combine(statuses), "; ".join(parts)
    return check


def same_first(first: str, second: str, models: Sequence[str]) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model in models:
            a, b = could_be(v.st(first, model), "first"), could_be(v.st(second, model), "first")
            status = sets_status(a, b)
            statuses.append(status)
            parts.append(f"{model}: {'/'.join(a)} vs {'/'.join(b)} — {SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def similar_ranking(model: str, a: str, b: str, limit: float = 0.8) -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        tau, lo, hi = similarity_of(v, model, a, b)
        status = HOLDS if lo >= limit else TIE if tau >= limit else FAILS
        return status, f"{model}: {sim_text(v, model, a, b)} — {SYMBOL[status]}"
    return check


def policy_change(criterion: str, members: Sequence[str], limit: float, suite: str = "policies") -> Check:
    """Whether the two policies give values within ``limit`` of each other.

    The two policies give values within ``limit`` of each other (a difference that small counts as
    none even when the test finds it significant; the sign shows what the test says).
    """
    def check(v: Numbers) -> tuple[str, str]:
        if not v.has(suite):
            return NA, "not computed"
        statuses, parts = [], []
        for model in members:
            st = v.st(criterion, model, suite)
            a, b = st["members"]["zero"], st["members"]["condense"]
            close = abs(a["value"] - b["value"]) <= limit
            link = pair_status(st, "zero", "condense")
            status = HOLDS if close else FAILS
            statuses.append(status)
            sign = {HOLDS: ">", TIE: "≈", FAILS: "<"}[link]
            parts.append(f"{model}: zero {pm(st, 'zero')} {sign} condense {pm(st, 'condense')} — {SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def optimistic_bias() -> Check:
    """The 'max' policy is optimistic.

    The 'max' policy: scores rise when a run's unique documents go unjudged, and its ranks
    move significantly more than under 'zero' and 'condense'.
    """
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for fam in v.d["policies"]["standings"]["pooling_bias"]:
            drop = v.st("pooling_rel_drop", fam, "policies")["members"]["max"]["value"]
            st = v.st("pooling_bias", fam, "policies")
            more = all("max" in st["members"][p]["beats"] for p in ("zero", "condense"))
            ok = drop < 0 and more
            status = HOLDS if ok else TIE if drop < 0 else FAILS
            statuses.append(status)
            parts.append(f"{fam}: drop {100 * drop:.1f}%, |rank change| {pm(st, 'max')} (zero {pm(st, 'zero')}) — "
                         f"{SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def condense_moves() -> Check:
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for fam in v.d["policies"]["standings"]["pooling_bias"]:
            drop = v.st("pooling_rel_drop", fam, "policies")["members"]["condense"]["value"]
            st = v.st("pooling_bias", fam, "policies")
            gap = st["members"]["condense"]["value"] - st["members"]["zero"]["value"]
            ok = -0.02 <= drop <= 0.0 and abs(gap) <= 0.2
            statuses.append(HOLDS if ok else FAILS)
            parts.append(f"{fam}: drop {100 * drop:.1f}%, |rank change| condense - zero {gap:+.2f} — "
                         f"{SYMBOL[HOLDS if ok else FAILS]}")
        return combine(statuses), "; ".join(parts)
    return check


def match(criterion: str, a: str, b: str, models: Sequence[str]) -> Check:
    """Neither of ``a`` and ``b`` is significantly better than the other."""
    def check(v: Numbers) -> tuple[str, str]:
        statuses, parts = [], []
        for model in models:
            st = v.st(criterion, model)
            status = HOLDS if pair_status(st, a, b) == TIE else FAILS
            statuses.append(status)
            parts.append(f"{model}: {a} {pm(st, a)}, {b} {pm(st, b)} — {SYMBOL[status]}")
        return combine(statuses), "; ".join(parts)
    return check


def at_10(members: Sequence[str]) -> Callable[[Numbers], str]:
    """Note: tau at 10% of the judgments."""
    def note(v: Numbers) -> str:
        return "at 10% of the judgments: " + ", ".join(
            f"{m} {pm(v.st('incompleteness_at_10', model), m)}" for model, m in members)
    return note


def policy_at_10(families: Sequence[str]) -> Callable[[Numbers], str]:
    def note(v: Numbers) -> str:
        parts = []
        for fam in families:
            st = v.st("incompleteness_at_10", fam, "policies")["members"]
            parts.append(f"{fam} {st['condense']['value'] - st['zero']['value']:+.2f}")
        return "condense - zero at 10% of the judgments: " + ", ".join(parts)
    return note


@dataclass(frozen=True)
class Claim:
    """A finding the README states: its words, and the check that reads it on one view."""

    id: str
    section: str
    readme: str
    check: Check
    how: str = ""              # how the claim is read, where that needs saying


ALL = MODELS
CANON = ("P_ERG@10", "DCG_ERG@10", "RBP_ERG@10", "INST_ERG@10", "AP_ERG@10", "ERR_ERR@10")
S_PROTOCOL = "Consistency, discriminative power and similarity (the paper's protocol)"
S_ROBUST = "Robustness to incomplete judgments and pooling bias"
S_AGREE = "Do the robustness rankings agree with consistency?"
S_POLICY = "Unjudged-document policies"
FIRST_LAST = "first (last): its rank range is the first (last) place alone"

CLAIMS: tuple[Claim, ...] = (
    # -- the paper's protocol on DL19 --------------------------------------------------------------
    Claim("C1", S_PROTOCOL, "ERG and ETG rank the systems identically for P, DCG and RBP (tau = 1, identical "
          "consistency taus and ASL curves), and so does avg for P",
          identical({"P": [("ERG", "ETG"), ("ERG", "avg")], "DCG": [("ERG", "ETG")], "RBP": [("ERG", "ETG")]})),
    Claim("C2", S_PROTOCOL, "ERG is first or second [in consistency] under every browsing model",
          position("consistency", ["ERG"], ALL, (1, 2)), "its rank range lies within places 1-2"),
    Claim("C3", S_PROTOCOL, "max is last [in consistency] under P, DCG, RBP, INST and ERR",
          position("consistency", ["max"], ("P", "DCG", "RBP", "INST", "ERR"), "last"), FIRST_LAST),
    Claim("C4", S_PROTOCOL, "AP_ERR has no consistency at all (paper 0.067, here -0.057)",
          value_below("consistency", "AP", "ERR", 0.1, -0.1), "no consistency: |mean tau| < 0.1"),
    Claim("C5", S_PROTOCOL, "avg is mediocre (3rd-5th) [in consistency]",
          position("consistency", ["avg"], ALL, (3, 5)), "its rank range lies within places 3-5"),
    Claim("C6", S_PROTOCOL, "PE and fin are volatile across models [in consistency]", volatile(["PE", "fin"]),
          "volatile: its place by mean tau changes by 3 or more positions across the six models"),
    Claim("D1", S_PROTOCOL, "ERG is the most discriminative aggregation under P, DCG, RBP, INST and ERR",
          position("discriminative_power", ["ERG"], ("P", "DCG", "RBP", "INST", "ERR"), "first"), FIRST_LAST),
    Claim("D2", S_PROTOCOL, "ETG collapses under ERR (last, 36 pairs)",
          position("discriminative_power", ["ETG"], ("ERR",), "last"), FIRST_LAST),
    Claim("D3", S_PROTOCOL, "[ETG is] matching ERG under P, DCG, RBP [in discriminative power]",
          match("discriminative_power", "ERG", "ETG", ("P", "DCG", "RBP")),
          "matching: neither discriminates significantly more pairs than the other"),
    Claim("D4", S_PROTOCOL, "max is last [in discriminative power] under P, DCG, RBP and INST",
          position("discriminative_power", ["max"], ("P", "DCG", "RBP", "INST"), "last"), FIRST_LAST),
    Claim("D5", S_PROTOCOL, "[max is] next to last under AP (above only AP_ERR)",
          both(position("discriminative_power", ["max"], ("AP",), "next to last"),
               order("discriminative_power", ["max", "ERR"], ("AP",)))),
    Claim("D6", S_PROTOCOL, "fin is strong under RBP and INST (second or third, close to ERG)",
          position("discriminative_power", ["fin"], ("RBP", "INST"), (2, 3)), "its rank range lies within places 2-3"),
    Claim("D7", S_PROTOCOL, "[fin is] weak under P and AP [in discriminative power]",
          weak("discriminative_power", "fin", ("P", "AP")),
          "weak: significantly fewer pairs than the family's most discriminative aggregation"),
    Claim("D8", S_PROTOCOL, "PE lies between fin and max under every browsing model [in discriminative power]",
          order("discriminative_power", ["fin", "PE", "max"], ALL)),
    Claim("S1", S_PROTOCOL, "under DCG, RBP and INST, max is the aggregation least similar to ERG/ETG "
          "(tau 0.80, 0.83, 0.88)", least_similar(("DCG", "RBP", "INST"), "max", "ERG"),
          "within noise: the next lowest tau lies inside the 95% interval of max's"),
    Claim("S2", S_PROTOCOL, "under AP, ERR is unlike every other aggregation (tau 0.05-0.21), avg is close to ERG "
          "(0.95) and max, fin, PE are close to each other (0.94-0.98)",
          cluster("AP", [["ERR"], ["ERG", "avg"], ["max", "fin", "PE"]]),
          "a group is close (unlike the rest) when its smallest tau within is above its largest tau with the "
          "other aggregations"),
    Claim("S3", S_PROTOCOL, "under ERR, ETG is the odd one out (0.77-0.84), ERG, avg and ERR are close (0.89-0.90), "
          "and max, fin, PE are close (0.95-0.98)", cluster("ERR", [["ETG"], ["ERG", "avg", "ERR"], ["max", "fin", "PE"]])),
    Claim("S4", S_PROTOCOL, "Under P, tau between different aggregations stays at or below 0.90",
          similar_at_most("P", 0.90)),
    Claim("Q1", S_PROTOCOL, "ERR with ERG instead of its canonical aggregation discriminates more pairs (192 vs 174) "
          "and is more consistent, while ranking the systems much like ERR_ERR (tau 0.89, CI 0.84-0.93)",
          both(order("discriminative_power", ["ERG", "ERR"], ("ERR",)), order("consistency", ["ERG", "ERR"], ("ERR",)),
               similar_ranking("ERR", "ERG", "ERR")), "much like: tau >= 0.8 (its interval's lower end, to hold)"),
    Claim("X1", S_PROTOCOL, "Consistency is higher overall here (mean tau 0.54-0.82 against 0.28-0.70, leaving out "
          "AP_ERR)", consistency_range(), "higher: both ends of the range above TR19DL's"),
    Claim("X2", S_PROTOCOL, "On TR19DL, PE was the most consistent aggregation under DCG and RBP; here it is third "
          "and fourth", both(position("consistency", ["PE"], ("DCG",), (3, 3)),
                             position("consistency", ["PE"], ("RBP",), (4, 4)))),
    Claim("X3", S_PROTOCOL, "fin is first under RBP (significantly better than ERG) [in consistency]",
          both(position("consistency", ["fin"], ("RBP",), "first"), order("consistency", ["fin", "ERG"], ("RBP",)))),
    Claim("X4", S_PROTOCOL, "Under P, ... here max is last and fin 5th (not significantly different) [in consistency]",
          both(position("consistency", ["max"], ("P",), "last"), position("consistency", ["fin"], ("P",), (5, 5)),
               match("consistency", "fin", "max", ("P",)))),
    Claim("X5", S_PROTOCOL, "ERR_ERG is significantly more consistent than the canonical ERR_ERR here (0.680 vs 0.615)",
          order("consistency", ["ERG", "ERR"], ("ERR",))),
    Claim("X6", S_PROTOCOL, "Under AP, ETG is clearly the most consistent and the most discriminative aggregation "
          "here (189 pairs vs 158 for the canonical ERG)",
          both(position("consistency", ["ETG"], ("AP",), "first"),
               position("discriminative_power", ["ETG"], ("AP",), "first")), FIRST_LAST),
    Claim("X7", S_PROTOCOL, "Under ERR, the canonical ERR aggregation is third in discriminative power, behind ERG "
          "and avg", both(position("discriminative_power", ["ERR"], ("ERR",), (3, 3)),
                          order("discriminative_power", ["ERG", "ERR"], ("ERR",)),
                          order("discriminative_power", ["avg", "ERR"], ("ERR",)))),
    Claim("X8", S_PROTOCOL, "[Under ERR] max is next to last, above ETG [in discriminative power]",
          both(position("discriminative_power", ["max"], ("ERR",), "next to last"),
               order("discriminative_power", ["max", "ETG"], ("ERR",)))),
    Claim("X9", S_PROTOCOL, "INST_ERR is mid-table (185 pairs) rather than clearly insufficient [in discriminative "
          "power]", position("discriminative_power", ["ERR"], ("INST",), (2, -2)),
          "mid-table: its rank range lies within places 2 to n-1"),
    Claim("X10", S_PROTOCOL, "Three weak measures (P_max, AP_ERR, ERR_ETG) discriminate exactly 36 pairs: each "
          "separates one very poor run (UNH_exDL_bm25) from the 36 others and nothing else",
          weak_measures(["P_max@10", "AP_ERR@10", "ERR_ETG@10"]),
          "holds for a measure whose significant pairs are the n - 1 pairs of one system"),
    Claim("X11", S_PROTOCOL, "Over five seeds, mean tau per measure differs by at most 0.0061 between two seeds, and "
          "the number of significant pairs by at most 13 of 666 (2.0%)", seed_stability(),
          "holds within the tests' limits: 0.01 and 3% of the pairs"),
    # -- robustness ---------------------------------------------------------------------------------
    Claim("I1", S_ROBUST, "Most robust [to incomplete judgments]: ERG = ETG (= avg under P) under P and DCG",
          both(position("incompleteness", ["ERG", "ETG", "avg"], ("P",), "first"),
               position("incompleteness", ["ERG", "ETG"], ("DCG",), "first")),
          "a claimed tie holds when the tied aggregations share the first places and beat all the others"),
    Claim("I2", S_ROBUST, "[Most robust:] fin under RBP (ERG and ETG within 0.01)",
          position("incompleteness", ["fin"], ("RBP",), "first"), FIRST_LAST),
    Claim("I3", S_ROBUST, "[Most robust:] ETG under INST, AP and ERR",
          position("incompleteness", ["ETG"], ("INST", "AP", "ERR"), "first"), FIRST_LAST),
    Claim("I4", S_ROBUST, "Least robust: fin under P; avg under DCG and RBP",
          both(position("incompleteness", ["fin"], ("P",), "last"),
               position("incompleteness", ["avg"], ("DCG", "RBP"), "last")), FIRST_LAST),
    Claim("I5", S_ROBUST, "[avg is] next to last under INST, AP and ERR",
          position("incompleteness", ["avg"], ("INST", "AP", "ERR"), "next to last")),
    Claim("I6", S_ROBUST, "ERR [is least robust] under INST, AP and ERR, where the canonical ERR_ERR is the least "
          "robust measure of its family (0.633 against 0.772 for ERR_ETG; at 10% of the judgments 0.43 against 0.59)",
          position("incompleteness", ["ERR"], ("INST", "AP", "ERR"), "last",
                   note=at_10([("ERR", "ERR"), ("ERR", "ETG")])), FIRST_LAST),
    Claim("I7", S_ROBUST, "AP_ERR collapses (tau 0.01 at 10%, 0.19 on average)",
          value_below("incompleteness", "AP", "ERR", 0.5, last=True),
          "collapses: mean tau over the fractions below 0.5, and last of its family"),
    Claim("I8", S_ROBUST, "tau_AP puts the same aggregations first and last in every family",
          same_ends("incompleteness", "incompleteness_tau_ap"),
          "the same aggregations could be first (last) by tau and by tau_AP; within noise when the two sets only "
          "overlap"),
    Claim("I9", S_ROBUST, "[tau_AP] is lower throughout", lower_throughout("incompleteness", "incompleteness_tau_ap")),
    Claim("P1", S_ROBUST, "Pooling bias is small on DL19 passage: on average a left-out run loses at most 4% of the "
          "mean score (P_fin; at most 1.4% under every other measure)", pooling_small()),
    Claim("P2", S_ROBUST, "[a left-out run loses] less than two rank positions", pooling_ranks(),
          "for the measure with the largest mean |rank change|; within noise when its interval reaches 2"),
    Claim("P3", S_ROBUST, "max is the least biased aggregation under P, DCG, RBP and INST",
          position("pooling_bias", ["max"], ("P", "DCG", "RBP", "INST"), "first"), FIRST_LAST),
    Claim("P4", S_ROBUST, "[max] ties for first under AP [in pooling bias]",
          position("pooling_bias", ["max"], ("AP",), (1, 2)), "its rank range lies within places 1-2"),
    Claim("P5", S_ROBUST, "fin is the most biased under P, DCG, RBP and INST (tied with ERG there)",
          position("pooling_bias", ["fin"], ("P", "DCG", "RBP", "INST"), "last"), FIRST_LAST),
    Claim("P6", S_ROBUST, "ERR, then ETG, [is most biased] under AP (AP_ERR's scores *rise* when judgments go, "
          "its ranks move 1.9 positions on average)",
          both(position("pooling_bias", ["ERR"], ("AP",), "last"),
               position("pooling_bias", ["ETG"], ("AP",), "next to last"),
               value_below("pooling_rel_drop", "AP", "ERR", 0.0, what="mean drop of score / mean score")),
          "the last part: AP_ERR's mean drop of score (over the mean score) is negative"),
    Claim("P7", S_ROBUST, "avg [is most biased] under ERR", position("pooling_bias", ["avg"], ("ERR",), "last"),
          FIRST_LAST),
    Claim("P8", S_ROBUST, "Few of these differences are significant over 37 runs", few_significant(),
          "few: at most a quarter of the within-family pairs (Tukey HSD over the runs)"),
    Claim("P9", S_ROBUST, "With the qrels of a depth-d pool of the runs, max is the most robust aggregation under P, "
          "DCG, RBP and INST (mean tau over depths 1-20: 0.95-0.99)",
          position("pool_depth", ["max"], ("P", "DCG", "RBP", "INST"), "first"), "deterministic: by value"),
    # -- agreement between criteria ------------------------------------------------------------------
    Claim("A1", S_AGREE, "Against the paper's TR19DL consistency, the least robust aggregation is also the paper's "
          "least consistent under P (fin), INST (ERR) and AP (ERR), and the most robust is the paper's most "
          "consistent under P (ERG/ETG/avg), INST (ETG) and ERR (ETG)",
          paper_ends({"P": ["last", "first"], "INST": ["last", "first"], "AP": ["last"], "ERR": ["first"]}, True),
          "agrees when every aggregation that could be the most (least) robust here is the paper's most (least) "
          "consistent; within noise when the paper's is only one of them"),
    Claim("A2", S_AGREE, "It does not agree under DCG and RBP (the paper's most consistent, PE, is only 3rd and 4th "
          "here and the least robust is avg; the paper: fin and max); under AP (ERG ... only 5th of 7 here); and "
          "under ERR (the paper's least consistent is max, 5th here)",
          paper_ends({"DCG": ["first", "last"], "RBP": ["first", "last"], "AP": ["first"], "ERR": ["last"]}, False),
          "disagrees when none of the aggregations that could be the most (least) robust here is the paper's; "
          "within noise when the paper's is one of them"),
    Claim("A3", S_AGREE, "Against consistency measured on the same runs, Kendall's tau between the two orderings is "
          "0.43-0.86 under P, DCG, RBP, INST and AP, and 0.05 under ERR",
          both(order_tau("incompleteness", ("P", "DCG", "RBP", "INST", "AP"), +1),
               order_tau("incompleteness", ("ERR",), 0)),
          "tau over the family's aggregations, per seed; holds when positive (near 0 under ERR: |tau| < 0.3)"),
    Claim("A4", S_AGREE, "the most consistent aggregation is also the most robust under P, DCG, RBP and AP",
          same_first("consistency", "incompleteness", ("P", "DCG", "RBP", "AP")),
          "the same aggregations could be first under the two criteria; within noise when the two sets only "
          "overlap"),
    Claim("A5", S_AGREE, "max, the least consistent aggregation under P, DCG, RBP, INST and ERR, is the least biased; "
          "ERG, the paper's recommendation, is mid-table (2nd-6th)",
          both(position("pooling_bias", ["max"], ("P", "DCG", "RBP", "INST", "ERR"), "first"),
               position("pooling_bias", ["ERG"], ALL, (2, 6)))),
    Claim("A6", S_AGREE, "Under DCG, RBP and INST the order [of pooling bias] is roughly the reverse of consistency "
          "(tau -0.37 to -0.86)", order_tau("pooling_bias", ("DCG", "RBP", "INST"), -1, flip=True),
          "tau between the consistency order and the order by least bias, per seed; holds when negative"),
    # -- policies -------------------------------------------------------------------------------------
    Claim("U1", S_POLICY, "Condensing the ranked lists makes nDCG and AP significantly more robust to incomplete "
          "judgments", order("incompleteness", ["condense", "zero"], ("nDCG@10", "AP(rel=2)@10"), suite="irm")),
    Claim("U2", S_POLICY, "Bpref is the most robust of all",
          position("incompleteness_all", ["Bpref(rel=2)"], ("all",), "first", suite="irm"), FIRST_LAST),
    Claim("U3", S_POLICY, "for P@10 condensing changes almost nothing here",
          policy_change("incompleteness", ("P(rel=2)@10",), 0.02, suite="irm"),
          "almost nothing: within 0.02 of each other, however significant so small a difference may be"),
    Claim("U4", S_POLICY, "condense makes ERG (and the canonical ERR_ERR) significantly more robust to incomplete "
          "judgments than zero under DCG, RBP, INST, AP and ERR (AP_ERG from 0.681 to 0.804, ERR_ERR from 0.633 to "
          "0.760; at 10% of the judgments by 0.11-0.19)",
          order("incompleteness", ["condense", "zero"], CANON[1:], suite="policies", note=policy_at_10(CANON[1:]))),
    Claim("U5", S_POLICY, "but not under P: P_ERG@10 on the condensed list is less robust (0.765 against 0.823)",
          order("incompleteness", ["zero", "condense"], ("P_ERG@10",), suite="policies")),
    Claim("U6", S_POLICY, "The optimistic max is the least robust policy except under AP",
          both(position("incompleteness", ["max"], tuple(c for c in CANON if c != "AP_ERG@10"), "last",
                        suite="policies"),
               position("incompleteness", ["max"], ("AP_ERG@10",), (1, 2), suite="policies")),
          "under AP: max is not the least robust (its rank range lies within places 1-2)"),
    Claim("U7", S_POLICY, "[max] is the one with a strong pooling bias, in the other direction: a run whose unique "
          "documents go unjudged gains 4-10% of its score and 2.4-4.4 rank positions", optimistic_bias(),
          "holds when the scores rise and the ranks move significantly more than under zero and condense"),
    Claim("U8", S_POLICY, "condense moves scores up by about 1% and ranks about as little as zero (within 0.2 "
          "positions on average)", condense_moves(), "scores up by 0-2%, mean |rank change| within 0.2 of zero's"),
)


# ============================================================================ the page

CRITERIA_SHOWN = {  # criterion -> (title, what the value is)
    "consistency": ("System ranking consistency", "mean tau between topic halves"),
    "discriminative_power": ("Discriminative power", "significant system pairs"),
    "incompleteness": ("Robustness to incomplete judgments", "mean tau with the full-qrels ranking"),
    "pooling_bias": ("Pooling bias, leave one run out", "mean |change of rank position|, lower is better"),
    "topic_set_size": ("Topic set size", "topics a paired t-test needs, lower is better"),
}
PHRASE = {HOLDS: "holds", TIE: "is within noise (a tie)", PARTLY: "holds in part", FAILS: "does not hold",
          NA: "was not computed"}


def evaluate_claims(views: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for claim in CLAIMS:
        results = {}
        for key, data in views.items():
            status, text = claim.check(Numbers(key, data))
            results[key] = {"status": status, "text": text}
        out.append({"id": claim.id, "section": claim.section, "readme": claim.readme, "how": claim.how,
                    "views": results})
    return out


def verdict(results: Mapping[str, Mapping[str, str]]) -> str:
    s = {k: v["status"] for k, v in results.items()}
    d, c = s.get("dl19", NA), s.get("cranfield", NA)
    if d == HOLDS and c == HOLDS:
        text = "Holds on DL19 and on Cranfield"
    elif d == FAILS:
        text = f"Does not hold on DL19 itself; on Cranfield it {PHRASE[c]}"
    else:
        text = f"On DL19 it {PHRASE[d]}; on Cranfield it {PHRASE[c]}"
    a, b = s.get("dl19-a", NA), s.get("dl19-b", NA)
    if a == b:
        text += f"; with either re-annotation in place of NIST's qrels it {PHRASE[a]}"
    else:
        text += f"; with assessor a's qrels it {PHRASE[a]}, with assessor b's it {PHRASE[b]}"
    if "dl21" in s:
        text += f"; on DL21 it {PHRASE[s['dl21']]}"
    return text + "."


def own_settings(view: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    """How a view's own settings (a view added by ``--merge``) differ from the run's: ``irm_trials 4``."""
    own = view.get("settings")
    if not own:
        return ""
    return ", ".join(f"{k} {own[k]}" for k in own if own[k] != settings.get(k) and k != "max_runs")


def cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def rank_table(views: Mapping[str, Any], criterion: str, suite: str = "table1") -> str:
    """Aggregations (rows) x families (columns): the rank range on every view, ``DL19 · Cranfield · a · b``."""
    keys = [k for k in VIEWS if k in views]
    first = Numbers(keys[0], views[keys[0]])
    families = list(first.d["models"]) if suite == "table1" else list(first.d[suite]["standings"][criterion])
    members: list[str] = []
    for model in families:
        for m in first.st(criterion, model, suite)["members"]:
            if m not in members:
                members.append(m)
    rows = []
    for m in members:
        row = [m]
        for model in families:
            parts = []
            for k in keys:
                st = Numbers(k, views[k]).st(criterion, model, suite)["members"]
                if m not in st:
                    parts.append("")
                    continue
                e = st[m]
                parts.append(f"{e['best']}" + (f"-{e['worst']}" if e["worst"] != e["best"] else ""))
            row.append(" · ".join(parts) if any(parts) else "")
        rows.append(row)
    return md_table(["aggregation", *families], rows)


def render(numbers: Mapping[str, Any]) -> str:
    """The page (``docs/findings.md``) from the numbers of a run (``findings.json``)."""
    s = numbers["settings"]
    views = numbers["views"]
    claims = numbers["claims"]
    keys = [k for k in VIEWS if k in views]
    wall = numbers["seconds"]
    seeds = len(s["seeds"])
    lines = [
        "# Findings on the aggregations, with their uncertainty, on more than one collection",
        "",
        "<!-- generated by examples/findings.py from docs/findings.json: rerun it and copy, do not edit -->",
        "",
        "Every finding the README stated (before its findings moved to this page) about which C/W/L/A aggregation is the most and least consistent, "
        "discriminative, robust to incomplete judgments and to pooling bias was measured on TREC DL 2019 passage "
        "only, and stated with point estimates. This page measures each again, with its uncertainty, on DL19, "
        "on the bundled Cranfield collection, on a second TREC collection (DL21 passage, NIST's qrels) and with "
        "DL19's re-annotated qrels in place of NIST's, and says for each finding where it holds.",
        "",
        "**Rerun it** (numbers, tables and figures; nothing is fetched):",
        "",
        "<!-- test: norun (the research run: tens of minutes on the real data; tests/test_findings.py checks "
        "this page against docs/findings.json) -->",
        "```console",
        "$ python examples/findings.py --out findings-run --views dl19,cranfield,dl19-a,dl19-b",
        "$ python examples/findings.py --out findings-run --views dl21 --merge findings-run/findings.json",
        "$ cp findings-run/findings.md docs/findings.md; cp findings-run/findings.json docs/findings.json",
        "$ cp findings-run/figures/*.png docs/figures/",
        "```",
        "",
        f"The run behind this page took **{minutes(wall['total'])}** on a 2-core machine shared with other jobs "
        f"(per view: " + ", ".join(f"{VIEWS[k][1]} {minutes(views[k]['seconds']['total'])}" for k in keys
                                   if "settings" not in views[k]) + ")"
        + "".join(f"; {VIEWS[k][1]} was added to it by a run of its own (`--views {k} --merge`, "
                  f"{minutes(views[k]['seconds']['total'])}, `nice -n 10`)" for k in keys if "settings" in views[k])
        + ". "
        "`--quick` runs the same code with few trials in a few minutes; `--render docs/findings.json` rewrites "
        "this page and its figures from the saved numbers in seconds. `tests/test_findings.py` checks that this "
        "page is what `--render` makes of `docs/findings.json`, and that a reduced run of the script reproduces "
        "its deterministic numbers.",
        "",
        "## What was measured",
        "",
    ]
    for k in keys:
        c = views[k]["extra"]["collection"]
        own = own_settings(views[k], s)
        lines.append(f"* **{VIEWS[k][1]}**: {VIEWS[k][0]}; {c['systems']} systems, {c['topics']} topics, "
                     f"{c['judgments']:,} judgments, {c['pairs']:,} system pairs"
                     + (f"; settings as below but {own}" if own else "") + ".")
    lines += [
        "",
        "The re-annotated views use the union of the four groups' files of one assessor "
        "(`reannotation/group*-assessor-a.txt`, then `-b`) as the qrels: about half of NIST's pairs, judged by "
        "someone else; the other pooled documents are unjudged there (gain 0 under the default policy). DL21 "
        "(`llm-judgments/dl21/` of the shared data, from the SynDL repository): the 63 official DL 2021 passage "
        "runs (top 100, 477 topics each) and NIST's graded qrels of 53 of those topics; the criteria use the 53 "
        "judged topics. It is the second TREC collection, with runs of another year and another corpus (MS MARCO "
        "v2): a finding that holds on DL19 and on DL21 holds beyond one set of topics and runs.",
        "",
        f"On every view, `ir_cwla.meta.criteria.run` (the machinery of `ir-cwla meta`) computes the criteria on the "
        f"39 Table-1 measures at cutoff 10, aggregations compared within each browsing model "
        f"(`groups=meta.browsing_model`): similarity; consistency ({s['splits']} topic splits); discriminative "
        f"power (randomised Tukey HSD, {s['test_trials']} permutations, alpha = {s['alpha']}); topic set size "
        f"(paired t-test, minD = 0.10, power 0.8); incompleteness ({len(s['fractions'])} fractions "
        f"{min(s['fractions'])}-{max(s['fractions'])} x {s['fraction_trials']} trials; pools of depth "
        f"{', '.join(map(str, s['depths']))}); pooling bias (leave one run out at depth {s['bias_depth']}). Then "
        f"incompleteness and pooling bias of the six canonical measures under the unjudged policies "
        f"{', '.join(POLICIES)} (`CWLA(..., unjudged=...)`), and incompleteness of ir-measures' nDCG@10, AP(rel=2)@10 "
        f"and P(rel=2)@10 with and without condensed lists (`judged_only=True`) and of Bpref(rel=2) "
        f"({len(s['irm_fractions'])} fractions x {s['irm_trials']} trials, one seed: ir-measures re-scores every "
        "run under every qrels variant, which is slow).",
        "",
        "**Uncertainty, and when a difference is a tie.**",
        "",
        f"* Randomised criteria run with {seeds} seeds ({', '.join(map(str, s['seeds']))}); a value is the mean over "
        "the seeds `±` their standard deviation (deterministic values have no `±`).",
        f"* Within a family, aggregation A *beats* B when the difference is significant: for consistency and "
        "pooling bias by the criteria's own randomised Tukey HSD test (the `(k)` marks of the README's tables; over "
        f"the splits or the runs) at p < {s['alpha']} in **every** seed; for incompleteness by the same test over "
        f"the trials of all seeds pooled ({seeds} x {s['fraction_trials']} paired trials); for "
        f"discriminative power and topic set size, which have no test of their own, when the 95% percentile "
        f"interval of the paired difference over {s['bootstrap']} resamples of the topics (each with a "
        f"{s['bootstrap_trials']}-permutation Tukey HSD test) excludes 0 (a resample draws topics with "
        "replacement, so its counts run higher than the collection's: only the differences are used); for the "
        "depth-pooled qrels (deterministic) when the values differ. Pooling bias is deterministic; its interval "
        f"in P2 is a percentile interval over {s['run_bootstrap']} resamples of the runs.",
        "* An aggregation's **rank range** runs from 1 + the number of aggregations that beat it to n - the number "
        "it beats. A difference within noise is a tie: ERG and ETG, which rank the systems identically under P, "
        "DCG and RBP, always share a range.",
        "* A claim about a place **holds** when the rank range lies within the claimed places, is **within noise** "
        "when it overlaps them (a tie the README reported as a win, or the other way round), and **does not hold** "
        "when it lies outside them; a claim over several browsing models holds **partly** when it fails under some "
        "and not others. Claims that one aggregation is better than another hold only if the difference is "
        "significant. Every row below gives the numbers it was decided on.",
        "* The tests over splits and trials are conditional on the topics of the collection: they say whether a "
        "difference is larger than the Monte Carlo noise of the criterion, not whether it would survive other "
        "topics. The second collection is the test of that.",
        "",
        "## Summary",
        "",
        "Each README finding (ids as below) on each view.",
        "",
    ]
    lines.append(md_table(["id", "README", *[VIEWS[k][1] for k in keys]],
                          [[c["id"], c["readme"], *[SYMBOL[c["views"][k]["status"]] for k in keys]] for c in claims]))
    counts = {k: {st: sum(c["views"][k]["status"] == st for c in claims) for st in (HOLDS, TIE, PARTLY, FAILS)}
              for k in keys}
    lines.append("Counts (holds / within noise / partly / does not hold): " + "; ".join(
        f"{VIEWS[k][1]} {counts[k][HOLDS]} / {counts[k][TIE]} / {counts[k][PARTLY]} / {counts[k][FAILS]}"
        for k in keys) + f", of {len(claims)}.")
    lines.append("")
    lines += in_short(claims)
    section = None
    for c in claims:
        if c["section"] != section:
            section = c["section"]
            lines += [f"## {section}", ""]
        lines += [f"### {c['id']}", "", f"README: *\"{c['readme']}\"*" + (f" (read as: {c['how']})" if c["how"] else ""),
                  ""]
        lines.append(md_table(["view", "", "the numbers"],
                              [[VIEWS[k][1], SYMBOL[c["views"][k]["status"]], c["views"][k]["text"]] for k in keys]))
        lines += [f"**{verdict(c['views'])}**", ""]
    lines += tau_ap_section(numbers)
    lines += topic_set_size_section(numbers)
    lines += ["## Rank ranges, every criterion and view", "",
              "Each cell: the rank range of the aggregation in its family on " + " · ".join(VIEWS[k][1] for k in keys)
              + " (1 = best; `1-3`: tied for places 1 to 3).", ""]
    for criterion, (title, what) in CRITERIA_SHOWN.items():
        lines += [f"**{title}** ({what}):", "", rank_table(views, criterion)]
    lines += ["**Unjudged policies, incompleteness** (mean tau with the full-qrels ranking):", "",
              rank_table(views, "incompleteness", "policies"),
              "**Unjudged policies, pooling bias** (mean |change of rank position|):", "",
              rank_table(views, "pooling_bias", "policies")]
    lines += ["## Figures", ""]
    for criterion, (title, _) in CRITERIA_SHOWN.items():
        lines += [f"![{title}: rank range of every aggregation on every view](figures/findings_{criterion}.png)", ""]
    lines += ["Each panel is a browsing model; x: the views; y: the rank of each aggregation (1 = best), the bar "
              "its rank range (places it ties for), the marker the middle of it. A line that stays flat across "
              "the views is a finding that holds on every view.", ""]
    return "\n".join(lines)


#: The findings issue 21 names as not holding on a held-out collection, and the one false on DL19.
ISSUE_CLAIMS = (("I2", "fin is most robust under RBP"), ("P7", "avg is most biased under ERR"),
                ("P2", "a left-out run moves fewer than 2 rank positions"),
                ("U4", "condense beats zero significantly under DCG, RBP, INST, AP and ERR"),
                ("U6", "max is least robust except under AP"), ("I9", "tau_AP is lower throughout"))


def in_short(claims: Sequence[Mapping[str, Any]]) -> list[str]:
    """The claims grouped by what happened to them, and the ones the issue named."""
    def ids(test: Callable[[Mapping[str, str]], bool]) -> str:
        found = [c["id"] for c in claims if test({k: v["status"] for k, v in c["views"].items()})]
        return ", ".join(found) if found else "none"

    def ok(s: str) -> bool:
        return s == HOLDS

    out = ["**In short.**", "",
           "* Hold on DL19 and on Cranfield: " + ids(lambda s: ok(s.get("dl19", NA)) and ok(s.get("cranfield", NA))) + ".",
           "* Hold on DL19 but not on Cranfield (partly, or not at all): "
           + ids(lambda s: ok(s.get("dl19", NA)) and s.get("cranfield", NA) in (PARTLY, FAILS)) + ".",
           "* Hold on DL19, within noise on Cranfield: " + ids(lambda s: ok(s.get("dl19", NA)) and s.get("cranfield", NA) == TIE) + ".",
           "* Within noise already on DL19 (a tie stated as a win, or a difference the tests cannot tell from "
           "noise): " + ids(lambda s: s.get("dl19", NA) == TIE) + ".",
           "* Hold only in part on DL19: " + ids(lambda s: s.get("dl19", NA) == PARTLY) + ".",
           "* Do not hold on DL19 itself: " + ids(lambda s: s.get("dl19", NA) == FAILS) + ".",
           "* Hold with both re-annotations in place of NIST's qrels: "
           + ids(lambda s: ok(s.get("dl19-a", NA)) and ok(s.get("dl19-b", NA))) + ".",
           "* Hold on DL19 and on DL21, the second TREC collection: "
           + ids(lambda s: ok(s.get("dl19", NA)) and ok(s.get("dl21", NA))) + ".",
           "* Hold on DL19 but not on DL21 (partly, or not at all): "
           + ids(lambda s: ok(s.get("dl19", NA)) and s.get("dl21", NA) in (PARTLY, FAILS)) + ".",
           "* Hold on DL19, within noise on DL21: "
           + ids(lambda s: ok(s.get("dl19", NA)) and s.get("dl21", NA) == TIE) + ".",
           "* Hold on DL21 though not (or only within noise) on DL19: "
           + ids(lambda s: ok(s.get("dl21", NA)) and not ok(s.get("dl19", NA))) + ".",
           "", "The findings issue 21 names (six that did not hold on a held-out collection, one false on DL19):", ""]
    by_id = {c["id"]: c for c in claims}
    for cid, words in ISSUE_CLAIMS:
        out.append(f"* \"{words}\" ({cid}): {verdict(by_id[cid]['views'])}")
    return out + [""]


def tau_ap_section(numbers: Mapping[str, Any]) -> list[str]:
    """The README's tau_AP sentence, corrected from the numbers."""
    out = ["## The tau_AP sentence, corrected", "",
           "The README says tau_AP \"puts the same aggregations first and last in every family (it is lower "
           "throughout: more of the swaps are among the top systems than tau assumes)\". Measured:", ""]
    for k in [k for k in VIEWS if k in numbers["views"]]:
        v = Numbers(k, numbers["views"][k])
        higher = []
        n = 0
        for model in MODELS:
            a, b = v.st("incompleteness", model)["members"], v.st("incompleteness_tau_ap", model)["members"]
            for m in a:
                n += 1
                if b[m]["value"] >= a[m]["value"]:
                    higher.append(f"{model}_{m}@10 ({b[m]['value']:.3f} against {a[m]['value']:.3f})")
        ends = next(c for c in numbers["claims"] if c["id"] == "I8")["views"][k]["status"]
        out.append(f"* {VIEWS[k][1]}: tau_AP is below tau for {n - len(higher)} of {n} measures"
                   + (f"; at or above it for {', '.join(higher)}" if higher else "")
                   + f". The same aggregations first and last (I8): {SYMBOL[ends]}.")
    if "dl19" not in numbers["views"]:              # a run without DL19 (a reduced run of another view)
        return out + [""]
    v = Numbers("dl19", numbers["views"]["dl19"])
    tau, tau_ap = v.st("incompleteness", "AP")["members"]["ERR"], v.st("incompleteness_tau_ap", "AP")["members"]["ERR"]
    seeds = len(tau["seeds"])
    ties = [model for model in MODELS if ends_status(v, model, "incompleteness", "incompleteness_tau_ap") != HOLDS]
    ends_text = ("It puts the same aggregations first and last as tau in every family." if not ties else
                 f"It puts the same aggregations first and last as tau in {len(MODELS) - len(ties)} of the "
                 f"{len(MODELS)} families; under {', '.join(ties)} the two only overlap (I8 above).")
    out += ["", f"Corrected, for DL19: tau_AP is lower than tau for most measures (more of the swaps are among the top "
            f"systems than tau assumes), but not for AP_ERR@10, whose ranking is nearly unrelated to the full-qrels "
            f"one either way: tau_AP {tau_ap['value']:.3f} against tau {tau['value']:.3f} (mean of {seeds} seeds; "
            f"{tau_ap['seeds'][0]:.3f} against {tau['seeds'][0]:.3f} with seed 0, the README's run). " + ends_text, ""]
    return out


def topic_set_size_section(numbers: Mapping[str, Any]) -> list[str]:
    out = ["## Not in the README: topic set size", "",
           "How many topics a paired t-test needs to detect a difference of 0.10 with power 0.8 at alpha 0.05 "
           "(Sakai 2016), from each measure's residual variance: fewest first, `could be first` by the bootstrap "
           "over topics. minD is on each measure's own scale, so ETG (whose values are not bounded by 1) needs "
           "far more topics for a reason that is not its noise; compare the others.", ""]
    keys = [k for k in VIEWS if k in numbers["views"]]
    rows = []
    for model in MODELS:
        row = [model]
        for k in keys:
            st = Numbers(k, numbers["views"][k]).st("topic_set_size", model)
            first = could_be(st, "first")
            row.append(", ".join(f"{m} {pm(st, m)}" for m in first))
        rows.append(row)
    out.append(md_table(["model", *[VIEWS[k][1] for k in keys]], rows))
    return out


# ============================================================================ figures and tables

def plot_rank_ranges(numbers: Mapping[str, Any], criterion: str, suite: str = "table1"):
    """One panel per family: the rank range of every aggregation (bar) on every view (x)."""
    import matplotlib.pyplot as plt

    from ir_cwla.meta.plots import AGGREGATION_STYLES

    views = numbers["views"]
    keys = [k for k in VIEWS if k in views]
    first = Numbers(keys[0], views[keys[0]])
    families = list(first.d["models"]) if suite == "table1" else list(first.d[suite]["standings"][criterion])
    fig, axes = plt.subplots(2, 3, figsize=(11, 7.4), sharex=True, layout="constrained")
    handles: dict[str, Any] = {}
    for ax, model in zip(axes.ravel(), families):
        members = list(first.st(criterion, model, suite)["members"])
        n = len(members)
        for i, m in enumerate(members):
            colour, marker = AGGREGATION_STYLES.get(m, ("0.3", "o"))
            dx = (i - (n - 1) / 2) * 0.07
            xs, mids = [], []
            for x, k in enumerate(keys):
                e = Numbers(k, views[k]).st(criterion, model, suite)["members"][m]
                ax.plot([x + dx, x + dx], [e["best"], e["worst"]], color=colour, lw=3, alpha=0.55,
                        solid_capstyle="round")
                xs.append(x + dx)
                mids.append((e["best"] + e["worst"]) / 2)
            (line,) = ax.plot(xs, mids, color=colour, marker=marker, ms=6, lw=1.2, label=m)
            handles.setdefault(m, line)
        ax.set_ylim(n + 0.5, 0.5)
        ax.set_yticks(range(1, n + 1))
        ax.set_xticks(range(len(keys)), [VIEWS[k][1] for k in keys], fontsize=8)
        ax.set_title(f"{model}@10", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=len(handles), fontsize=9,
               frameon=False)
    title, what = CRITERIA_SHOWN[criterion]
    fig.suptitle(f"{title} ({what}), on every view\nrank of each aggregation within its browsing model; "
                 "bar: its rank range (the places it ties for within noise), marker: the middle", fontsize=10)
    fig.supylabel("rank (1 = best)", fontsize=9)
    return fig


def standings_frame(data: Mapping[str, Any], suite: str = "table1") -> pd.DataFrame:
    source = data if suite == "table1" else data[suite]
    rows = []
    for criterion, families in source["standings"].items():
        for family, st in families.items():
            for m in st["order"]:
                e = st["members"][m]
                rows.append({"criterion": criterion, "family": family, "member": m, "value": e["value"],
                             "sd": e["sd"], "seeds": len(e["seeds"]), "best": e["best"], "worst": e["worst"],
                             "beats": " ".join(e["beats"]), "test": st["test"]})
    return pd.DataFrame(rows)


def dumps(obj: Any, level: int = 0, compact_at: int = 4) -> str:
    """The findings as JSON, one line per family standing.

    JSON with one line per family standing (a compact leaf below ``compact_at`` levels), so the
    file stays small and a rerun's diff shows which standings moved.
    """
    if level >= compact_at or not isinstance(obj, (dict, list)) or \
            (isinstance(obj, list) and all(not isinstance(x, (dict, list)) for x in obj)):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    pad, inner = " " * level, " " * (level + 1)
    if isinstance(obj, dict):
        body = ",\n".join(f"{inner}{json.dumps(k)}: {dumps(v, level + 1, compact_at)}" for k, v in obj.items())
        return "{\n" + body + "\n" + pad + "}"
    return "[\n" + ",\n".join(inner + dumps(v, level + 1, compact_at) for v in obj) + "\n" + pad + "]"


def write_outputs(numbers: Mapping[str, Any], out: Path, frames: Optional[Mapping[str, Mapping[str, Any]]] = None):
    """``findings.md``, ``findings.json``, ``tables/`` and ``figures/`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "findings.json").write_text(dumps(numbers) + "\n")
    (out / "findings.md").write_text(render(numbers))
    tables_dir = out / "tables"
    tables_dir.mkdir(exist_ok=True)
    for key, data in numbers["views"].items():
        for suite in ("table1", "policies", "irm"):
            if suite != "table1" and suite not in data:
                continue
            frame = standings_frame(data, suite)
            name = f"{key}_{suite}_standings"
            frame.to_csv(tables_dir / f"{name}.csv", index=False)
            (tables_dir / f"{name}.md").write_text(tables.markdown(frame, digits=4))
        for criterion, frame in (frames or {}).get(key, {}).items():
            frame.to_csv(tables_dir / f"{key}_{criterion}.csv", index=False)
    claims = pd.DataFrame([{"id": c["id"], "view": k, "status": v["status"], "numbers": v["text"], "readme": c["readme"]}
                           for c in numbers["claims"] for k, v in c["views"].items()])
    claims.to_csv(tables_dir / "claims.csv", index=False)
    figures = out / "figures"
    figures.mkdir(exist_ok=True)
    import matplotlib.pyplot as plt

    for criterion in CRITERIA_SHOWN:
        fig = plot_rank_ranges(numbers, criterion)
        fig.savefig(figures / f"findings_{criterion}.png", dpi=100)
        plt.close(fig)


# ============================================================================ main

def main(argv: Optional[Sequence[str]] = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="findings-run")
    ap.add_argument("--data", default=str(DATA), help="the shared data (trec-dl-2019-passage/)")
    ap.add_argument("--views", default=",".join(VIEWS), help=f"comma-separated, of {', '.join(VIEWS)}")
    ap.add_argument("--quick", action="store_true", help="few trials and two seeds (a smoke run)")
    ap.add_argument("--seeds", type=int, default=None, help="number of seeds (0, 1, ...)")
    ap.add_argument("--max-runs", type=int, default=None, help="only the first runs/systems by name (tests)")
    ap.add_argument("--irm-trials", type=int, default=None, help="trials of the ir-measures policies (0: skip)")
    ap.add_argument("--render", default=None, metavar="JSON", help="only rewrite the page and figures from JSON")
    ap.add_argument("--merge", default=None, metavar="JSON",
                    help="compute only --views and add them to the saved numbers of JSON (its other views kept)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.render:          # the claims are a function of the numbers: evaluated again by this code
        numbers = json.loads(Path(args.render).read_text())
        numbers["claims"] = evaluate_claims(numbers["views"])
        write_outputs(numbers, out)
        return numbers
    def adjusted(settings: Settings) -> Settings:
        if args.seeds is not None:
            settings = dataclasses.replace(settings, seeds=tuple(range(args.seeds)))
        if args.max_runs is not None:
            settings = dataclasses.replace(settings, max_runs=args.max_runs)
        if args.irm_trials is not None:
            settings = dataclasses.replace(settings, irm_trials=args.irm_trials)
        return settings

    settings = adjusted(QUICK if args.quick else FULL)
    keys = [k.strip() for k in args.views.split(",") if k.strip()]
    unknown = [k for k in keys if k not in VIEWS]
    if unknown:
        ap.error(f"--views: unknown {unknown}; choose from {', '.join(VIEWS)}")
    progress = not args.quiet
    clock = time.perf_counter()
    views: dict[str, Any] = {}
    frames: dict[str, Any] = {}
    for key in keys:
        if progress:
            print(f"[{key}] {VIEWS[key][0]}", file=sys.stderr, flush=True)
        own = settings if args.quick or key not in VIEW_SETTINGS else adjusted(VIEW_SETTINGS[key])
        view = load_view(key, Path(args.data), own)
        result = analyse(view, own, progress)
        frames[key] = result.pop("tables")
        if own != settings:          # a view with settings of its own records them with its numbers
            result["settings"] = dataclasses.asdict(own)
        views[key] = result
    if args.merge:                   # the saved run, with these views added (or replaced)
        numbers = json.loads(Path(args.merge).read_text())
        numbers["views"] = {k: v for k, v in {**numbers["views"], **views}.items()}
        numbers["views"] = {k: numbers["views"][k] for k in VIEWS if k in numbers["views"]}
    else:
        numbers = {"settings": dataclasses.asdict(settings), "full": settings == FULL,
                   "seconds": {"total": round(time.perf_counter() - clock, 1)}, "views": views}
    numbers["claims"] = evaluate_claims(numbers["views"])
    write_outputs(numbers, out, frames)
    if progress:
        print(f"wrote {out}/ (findings.md, findings.json, tables/, figures/) in {minutes(numbers['seconds']['total'])}",
              file=sys.stderr)
    return numbers


if __name__ == "__main__":
    main()
