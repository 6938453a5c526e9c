"""The ``ir-cwla`` command line: ``eval``, ``meta``, ``leaderboard`` and ``demo``.

::

    ir-cwla eval QRELS RUN... [-m MEASURE...] [-q] [--format trec|csv|json]
    ir-cwla meta QRELS RUNDIR [-m MEASURE...] [--trials N] [--out REPORT]
    ir-cwla leaderboard CSV [--weights accuracy=0.5,latency=0.25,cost=0.25] [--out REPORT]
    ir-cwla demo [--out REPORT]

QRELS and RUN are TREC files (plain or gzipped) or ir_datasets ids written ``irds:ID``
(``irds:cranfield`` is bundled and gets the Cranfield grade conventions of
:mod:`ir_cwla.datasets`). Measures are in ir-measures syntax (``nDCG@10``, ``AP(rel=2)``,
``CWLA(C='RBP', A='max')@10``; the short names it prints, ``RBP_max@10``, and trec_eval names
such as ``ndcg_cut_10`` work too); the
default is the six canonical C/W/L/A measures at cutoff 10.

Errors in the input (a missing file, an unknown measure, a malformed line) are reported on
one line of stderr with exit status 1; usage errors exit with status 2, as argparse does.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

import pandas as pd

SUMMARY_QID = "all"
"""The query id of the mean over topics, as in trec_eval."""


class CliError(Exception):
    """An error the command line reports on one line (no traceback), exit status 1."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (``ir-cwla eval: error: ... (see --help)``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ------------------------------------------------------------------------- inputs

def _dataset_or_error(spec: str, what: str) -> Any:
    from ir_cwla import datasets

    dataset = datasets.dataset_id(spec)
    try:
        ds = datasets.load(dataset)
    except KeyError:
        raise CliError(f"unknown ir_datasets id {dataset!r} (in {spec!r})") from None
    has = {"qrels": ds.has_qrels, "run": ds.has_scoreddocs}[what]
    if not has():
        raise CliError(f"ir_datasets id {dataset!r} provides no {'qrels' if what == 'qrels' else 'scored documents'}")
    return ds


def _missing(spec: str, what: str) -> CliError:
    hint = f" (an ir_datasets id is written irds:{spec})" if "." not in Path(spec).name else ""
    return CliError(f"{what} file not found: {spec}{hint}")


def read_qrels_arg(spec: str) -> pd.DataFrame:
    """Qrels named on the command line: a TREC qrels file or ``irds:ID``."""
    from ir_cwla import datasets, io

    if datasets.dataset_id(spec) is not None:
        _dataset_or_error(spec, "qrels")
        return datasets.load_qrels(spec)
    if not os.path.exists(spec):
        raise _missing(spec, "qrels")
    return io.read_trec_qrels(spec)


CRANFIELD_NOTE = ("ir-cwla: note: irds:cranfield grades remapped 1->4, 2->3, 3->2, 4->1 (larger is more "
                  "relevant); grade -1 counts as judged non-relevant (see ir_cwla.datasets)")


def note_conventions(qrels_spec: str) -> None:
    """Tells on stderr which grade conventions the qrels were read with (Cranfield's)."""
    from ir_cwla import datasets

    if datasets.dataset_id(qrels_spec) == datasets.CRANFIELD:
        print(CRANFIELD_NOTE, file=sys.stderr)


def read_run_arg(spec: str) -> pd.DataFrame:
    """A run named on the command line: a TREC run file or ``irds:ID`` (its scored documents)."""
    from ir_cwla import datasets, io

    if datasets.dataset_id(spec) is not None:
        _dataset_or_error(spec, "run")
        return io.as_run_frame(spec, name=spec)
    if not os.path.exists(spec):
        raise _missing(spec, "run")
    return io.read_trec_run(spec)


def run_name(spec: str) -> str:
    """The name of a run in tables: ``irds:ID`` as is, a file as :func:`ir_cwla.meta.run_name` names it."""
    from ir_cwla.meta import run_name as file_run_name

    return spec if spec.startswith("irds:") else file_run_name(spec)


def unique_run_names(specs: Sequence[str]) -> list[str]:
    """:func:`run_name` of each spec, falling back to the spec itself where two names collide."""
    names = [run_name(s) for s in specs]
    return [n if names.count(n) == 1 else s for n, s in zip(names, specs)]


def split_measures(text: str) -> list[str]:
    """Splits ``'nDCG@10 CWLA(C=\\'RBP\\', A=\\'max\\')@10'`` on spaces outside parentheses and quotes."""
    out, buf, depth, quote = [], [], 0, None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch.isspace() and depth == 0:
            if buf:
                out.append("".join(buf))
                buf = []
            continue
        buf.append(ch)
    if buf:
        out.append("".join(buf))
    return out


def parse_short_name(token: str) -> Optional[Any]:
    """``'RBP_max@10'`` -> ``CWLA(C='RBP', A='max')@10``: the short names ``eval`` prints, read back.

    Only the plain form ``MODEL_AGGREGATION[@k]`` (default parameters); None if ``token``
    is not one.
    """
    import ir_cwla

    name, _, cutoff = token.partition("@")
    model, sep, agg = name.partition("_")
    if not sep or model not in ir_cwla.BROWSING_MODELS or agg not in ir_cwla.AGGREGATIONS \
            or (cutoff and not cutoff.isdigit()):
        return None
    measure = ir_cwla.CWLA(C=model, A=agg)
    return measure @ int(cutoff) if cutoff else measure


def parse_measures(texts: Optional[Sequence[str]]) -> list:
    """Measures from ``-m`` arguments (ir-measures syntax, short names such as ``RBP_max@10``,
    or trec_eval names such as ``ndcg_cut_10``), checked.

    None or empty: the six canonical C/W/L/A measures at cutoff 10. A measure given twice is
    kept once. Raises :class:`CliError` naming the first measure that cannot be used.
    """
    import ir_measures

    import ir_cwla

    if not texts:
        return list(ir_cwla.canonical())
    found: list = []
    for text in texts:
        for token in split_measures(text):
            try:
                parsed = [ir_measures.parse_measure(token)]
            except (NameError, ValueError, SyntaxError):
                try:
                    short = parse_short_name(token)
                    parsed = [short] if short is not None else list(ir_measures.parse_trec_measure(token))
                except (NameError, ValueError, KeyError):
                    raise CliError(f"unknown measure {token!r} (ir-measures syntax, e.g. nDCG@10, AP(rel=2), "
                                   "CWLA(C='RBP', A='max')@10, RBP_max@10, or a trec_eval name such as ndcg_cut_10)") from None
            for m in parsed:
                try:
                    m.validate_params()
                except (AssertionError, ValueError, KeyError, TypeError) as ex:
                    raise CliError(f"measure {token!r}: {ex}") from None
                if m not in found:
                    found.append(m)
    return found


# ------------------------------------------------------------------------- evaluation

def measure_name(measure: Any) -> str:
    """The name a measure has in every table: :func:`ir_cwla.short_name` (``RBP_max@10``)."""
    from ir_cwla import short_name

    return short_name(measure)


def evaluate_runs(runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame, measures: Sequence[Any],
                  per_query: bool = True, progress: bool = False) -> pd.DataFrame:
    """Scores every run (:func:`ir_cwla.meta.evaluate`): a long frame ``name, qid, measure, value``.

    Rows per query (when ``per_query``) and, for each run and measure, a row with qid
    ``'all'``: the measure's own aggregate over the topics it scored (the mean, as in
    trec_eval and ``ir_measures.calc_aggregate``). Runs keep their order, topics are in
    natural order, measures are named by :func:`measure_name`.
    """
    from ir_cwla import meta

    by_str = {str(m): m for m in measures}
    try:
        scores = meta.evaluate(dict(runs), qrels, list(measures), progress=progress)
    except (AssertionError, NotImplementedError) as ex:
        raise CliError(f"cannot evaluate {', '.join(map(measure_name, measures))}: {ex}") from None
    values = dict(list(scores.groupby(["name", "measure"], sort=False)["value"]))
    summary = pd.DataFrame([(name, SUMMARY_QID, key, _aggregate(m, values.get((name, key), ())))
                            for name in runs for key, m in by_str.items()], columns=list(scores.columns))
    out = pd.concat([scores if per_query else scores.iloc[:0], summary], ignore_index=True)
    rank = {name: i for i, name in enumerate(runs)}, {key: i for i, key in enumerate(by_str)}
    out = out.assign(_r=out["name"].map(rank[0]), _s=out["qid"] == SUMMARY_QID, _q=out["qid"].map(_natural_key),
                     _m=out["measure"].map(rank[1]))
    out = out.sort_values(["_r", "_s", "_q", "_m"], kind="stable")[["name", "qid", "measure", "value"]]
    return out.assign(measure=out["measure"].map({k: measure_name(m) for k, m in by_str.items()})
                      ).reset_index(drop=True)


def _aggregate(measure: Any, values: Any) -> float:
    agg = measure.aggregator()
    for v in values:
        agg.add(v)
    return float(agg.result())


def _natural_key(qid: str) -> tuple:
    return (0, int(qid), "") if qid.isdigit() else (1, 0, qid)


def format_results(results: pd.DataFrame, fmt: str = "trec", places: int = 4) -> str:
    """The text of ``ir-cwla eval``'s output.

    ``trec``: trec_eval's layout, ``measure<TAB>qid<TAB>value`` with the measure padded to 22
    characters and ``places`` decimals, each run introduced by a ``runid all NAME`` line.
    ``csv``: the columns ``name,qid,measure,value``; ``json``: a list of such records.
    Both keep every digit (``repr`` of the float).
    """
    if fmt == "csv":
        return results.to_csv(index=False)
    if fmt == "json":
        records = [{"name": n, "qid": q, "measure": m, "value": (v if math.isfinite(v) else None)}
                   for n, q, m, v in results.itertuples(index=False)]
        return json.dumps(records, indent=1) + "\n"
    if fmt != "trec":
        raise CliError(f"unknown output format {fmt!r} (trec, csv or json)")
    lines = []
    for name, block in results.groupby("name", sort=False):
        lines.append(f"{'runid':<22}\t{SUMMARY_QID}\t{name}")
        lines.extend(f"{m:<22}\t{q}\t{v:.{places}f}" for q, m, v in block[["qid", "measure", "value"]].itertuples(index=False))
    return "\n".join(lines) + "\n"


def cmd_eval(args: argparse.Namespace) -> int:
    """``ir-cwla eval``: scores runs like trec_eval, with any ir-measures or C/W/L/A measure."""
    measures = parse_measures(args.measures)
    qrels = read_qrels_arg(args.qrels)
    runs = {name: read_run_arg(spec) for name, spec in zip(unique_run_names(args.runs), args.runs)}
    results = evaluate_runs(runs, qrels, measures, per_query=args.per_query,
                            progress=len(runs) > 1 and sys.stderr.isatty())
    sys.stdout.write(format_results(results, args.format, args.places))
    note_conventions(args.qrels)
    return 0


# ------------------------------------------------------------------------- meta

def cmd_meta(args: argparse.Namespace) -> int:
    """``ir-cwla meta``: similarity, consistency and discriminative power of measures over runs."""
    import ir_cwla
    from ir_cwla import meta, report

    measures = parse_measures(args.measures) if args.measures else list(ir_cwla.table1())
    if not os.path.isdir(args.rundir):
        raise CliError(f"run directory not found: {args.rundir}")
    qrels = read_qrels_arg(args.qrels)
    progress = sys.stderr.isatty()
    per_query = meta.evaluate(args.rundir, qrels, measures, progress=progress)
    all_cwla = all(getattr(m, "NAME", None) == "CWLA" for m in measures)
    groups = meta.browsing_model if all_cwla else None
    sim = meta.similarity(per_query, groups=groups)
    cons = meta.consistency(per_query, trials=args.trials, test_trials=args.test_trials, alpha=args.alpha,
                            seed=args.seed, groups=groups, progress=progress)
    disc = meta.discriminative_power(per_query, trials=args.test_trials, alpha=args.alpha, seed=args.seed,
                                     groups=groups, progress=progress)
    page = report.HtmlReport("ir_cwla meta-evaluation",
                             f"{per_query['name'].nunique()} runs from {args.rundir}, "
                             f"{per_query['qid'].nunique()} topics, {len(measures)} measures; qrels {args.qrels}.",
                             directory=args.out)
    means = per_query.pivot_table(index="name", columns="measure", values="value", aggfunc="mean", sort=False)
    page.section("Runs")
    page.table(means.rename(columns=meta.label).rename_axis("run"), "mean score of every run (rows) under every "
               "measure (columns)", filename="means.csv")
    report.add_meta_sections(page, sim, cons, disc)
    per_query.to_csv(Path(args.out) / "per_query.csv", index=False)
    path = page.write()
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(cons.table().drop(columns=["better_than"]).to_string(index=False, float_format="%.3f"))
        print()
        print(disc.table().to_string(index=False, float_format="%.4f"))
    print(f"\nreport: {path}")
    note_conventions(args.qrels)
    return 0


# ------------------------------------------------------------------------- leaderboard

def parse_weights(text: Optional[str]) -> Optional[dict[str, float]]:
    """``'accuracy=0.5,latency=0.25,cost=0.25'`` -> a dict (None for None)."""
    if text is None:
        return None
    weights = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        try:
            weights[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not key.strip():
            raise CliError(f"bad weight {part!r}: write NAME=NUMBER, e.g. accuracy=0.5,latency=0.25,cost=0.25")
    if not weights:
        raise CliError("--weights is empty")
    return weights


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """``ir-cwla leaderboard``: Dynascore ranking (and budgets) from a CSV of measured numbers."""
    from ir_cwla import leaderboard as lb
    from ir_cwla import report

    if not os.path.exists(args.csv):
        raise CliError(f"CSV file not found: {args.csv}")
    try:
        df = pd.read_csv(args.csv)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as ex:
        raise CliError(f"malformed CSV file {args.csv}: {ex}") from None
    name = args.name or ("name" if "name" in df.columns else df.columns[0])
    if name not in df.columns:
        raise CliError(f"{args.csv}: no column {name!r} (columns: {', '.join(map(str, df.columns))})")
    df[name] = df[name].astype(str)
    board = lb.Leaderboard.from_frame(df, accuracy=args.accuracy, latency=args.latency, cost=args.cost, name=name)
    weights = parse_weights(args.weights)
    shown = ["accuracy", "latency", "cost"]
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        table = board.table(weights)
        print(table[[board.columns[c] for c in shown] + ["dynascore", "rank"]].to_string(float_format="%.4g"))
        budget = {k: v for k, v in (("latency", args.max_latency), ("cost", args.max_cost)) if v is not None}
        if budget:
            print(f"\nwithin budget ({', '.join(f'{k} <= {v:g}' for k, v in budget.items())}), by accuracy:")
            print(board.within_budget(**budget)[shown + ["rank"]].to_string(float_format="%.4g"))
        if args.min_accuracy is not None:
            print(f"\naccuracy >= {args.min_accuracy:g}, cheapest first:")
            print(board.above_accuracy(args.min_accuracy)[shown + ["rank"]].to_string(float_format="%.4g"))
    if args.out:
        page = report.HtmlReport("ir_cwla leaderboard", f"{len(df)} systems from {args.csv}", directory=args.out)
        report.add_leaderboard_sections(page, board, weights)
        print(f"\nreport: {page.write()}")
    return 0


# ------------------------------------------------------------------------- demo

def cmd_demo(args: argparse.Namespace) -> int:
    """``ir-cwla demo``: the offline end-to-end demo on Cranfield (see :mod:`ir_cwla.demo`)."""
    from ir_cwla import systems as catalogue

    try:
        import bm25s  # noqa: F401
        import pyterrier_pisa  # noqa: F401
    except ImportError as ex:
        raise CliError(f"the demo needs pyterrier-pisa and bm25s ({ex}): pip install 'ir-cwla[systems]'") from None
    from ir_cwla.demo import run_demo

    names = None
    if args.systems:
        names = list(catalogue.SMOKE_SYSTEMS) if args.systems == "smoke" else \
            [n.strip() for n in args.systems.split(",") if n.strip()]
        catalogue.system_specs(names)          # unknown names fail here, before any work
    result = run_demo(args.out, systems=names, trials=args.trials, test_trials=args.test_trials,
                      seed=args.seed, warmup=args.warmup, repeats=args.repeats, instance=args.instance,
                      progress=not args.quiet)
    print(result.summary())
    return 0


# ------------------------------------------------------------------------- entry point

def build_parser() -> argparse.ArgumentParser:
    """The ``ir-cwla`` argument parser (one sub-command per verb)."""
    parser = _Parser(prog="ir-cwla", description="C/W/L/A measures, meta-evaluation and efficiency-aware "
                                                 "leaderboards for ir-measures and PyTerrier.")
    parser.add_argument("--traceback", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("eval", help="score runs against qrels (like trec_eval / ir_measures)",
                       description="Score TREC runs against qrels, like trec_eval -q / ir_measures.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or irds:ID")
    p.add_argument("runs", metavar="RUN", nargs="+", help="TREC run file(s) or irds:ID")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measure(s) in ir-measures syntax, repeatable or space-separated "
                        "(default: the six canonical C/W/L/A measures @10)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print the score of every query")
    p.add_argument("--format", choices=("trec", "csv", "json"), default="trec", help="output format (default trec)")
    p.add_argument("-p", "--places", type=int, default=4, help="decimals in the trec format (default 4)")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("meta", help="meta-evaluate measures: similarity, consistency, discriminative power",
                       description="The three analyses of Chen & Sakai over a directory of TREC runs; writes "
                                   "tables, figures and an HTML report.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or irds:ID")
    p.add_argument("rundir", metavar="RUNDIR", help="directory of TREC run files (one system each)")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measures to compare (default: the 39 Table-1 C/W/L/A measures @10)")
    p.add_argument("--trials", type=int, default=1000, help="random topic splits for consistency (default 1000)")
    p.add_argument("--test-trials", type=int, default=2000,
                   help="permutations of the randomised Tukey HSD tests (default 2000)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", default="meta-report", metavar="REPORT", help="output directory (default meta-report)")
    p.set_defaults(func=cmd_meta)

    p = sub.add_parser("leaderboard", help="rank systems from a CSV of accuracy, latency and cost",
                       description="Efficiency-aware leaderboard (Dynascore) from precomputed numbers.")
    p.add_argument("csv", metavar="CSV", help="one row per system: a name column and numeric columns")
    p.add_argument("--name", help="column of the system names (default: 'name', else the first column)")
    p.add_argument("--accuracy", default="accuracy", help="accuracy column (default 'accuracy')")
    p.add_argument("--latency", default="latency", help="latency column (default 'latency')")
    p.add_argument("--cost", default="cost", help="cost column (default 'cost')")
    p.add_argument("--weights", help="Dynascore weights, e.g. accuracy=0.5,latency=0.25,cost=0.25 (the default)")
    p.add_argument("--max-latency", type=float, help="also rank the systems within this latency budget")
    p.add_argument("--max-cost", type=float, help="also rank the systems within this cost budget")
    p.add_argument("--min-accuracy", type=float, help="also rank the systems above this accuracy by cost")
    p.add_argument("--out", metavar="REPORT", help="write an HTML report with figures to this directory")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("demo", help="the offline end-to-end demo on Cranfield (what `make demo` runs)",
                       description="Index Cranfield with pyterrier-pisa and bm25s, evaluate with pt.Experiment, "
                                   "meta-evaluate, build the Dynascore leaderboard, write an HTML report.")
    p.add_argument("--out", default="report", metavar="REPORT", help="output directory (default report)")
    p.add_argument("--systems", help="comma-separated system names, or 'smoke' for a reduced set (default: all)")
    p.add_argument("--trials", type=int, default=1000, help="random topic splits for consistency (default 1000)")
    p.add_argument("--test-trials", type=int, default=2000, help="permutations of the randomised tests (2000)")
    p.add_argument("--repeats", type=int, default=3, help="timed passes over the topics per system (default 3)")
    p.add_argument("--warmup", type=int, default=10, help="untimed queries before timing (default 10)")
    p.add_argument("--instance", default="m5.large", help="cloud instance that prices the cost (default m5.large)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``ir-cwla`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("ir-cwla: interrupted", file=sys.stderr)
        return 130
    except Exception as ex:   # one line, never a traceback (unless asked for)
        if args.traceback:
            raise
        print(f"ir-cwla {args.command}: error: {_one_line(ex)}", file=sys.stderr)
        return 1


def _one_line(ex: BaseException) -> str:
    if isinstance(ex, (CliError, ValueError, OSError, KeyError)):
        text = ex.args[0] if isinstance(ex, KeyError) and ex.args else str(ex)
        if isinstance(ex, OSError) and ex.filename and ex.strerror:
            text = f"{ex.strerror}: {ex.filename}"
    else:
        text = f"{type(ex).__name__}: {ex} (rerun with --traceback for details)"
    return " ".join(str(text).split()) or type(ex).__name__
