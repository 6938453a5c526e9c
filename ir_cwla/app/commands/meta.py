"""``ir-cwla meta``: the meta-evaluation criteria of measures over runs, in one report.

::

    ir-cwla meta (QRELS RUNS... | QRELS --alt-qrels ... | PER_QUERY | SCORE_DIR) [-m MEASURE...]
                 [--criteria LIST] [--groups auto|model|all] [--alt-qrels FILE|DIR...]
                 [--alt-topic-map FILE] [--alt-doc-map FILE] [--alt-scores DIR...] [--run-models FILE]
                 [--alpha A] [--seed S] [criteria options] [--out REPORT]

Its options are those of the registered criteria (:func:`ir_cwla.meta.criteria.command_line_options`),
imported only when ``meta`` runs (or ``--help`` lists every command): ``ir-cwla eval`` never
imports :mod:`ir_cwla.meta`. The inputs for LLM judges (many judges' qrels, their id maps,
per-topic score files, the models each run used) are read by :mod:`ir_cwla.app.judge_inputs`.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from ir_cwla.app.commands import options
from ir_cwla.app.commands.options import check_report, measures_arg

NAME = "meta"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds ``meta`` to ``subparsers``: its options are those of the registered criteria."""
    from ir_cwla.app.commands import COMMANDS
    from ir_cwla.meta.criteria import CRITERIA

    titles = [c.title for c in CRITERIA.values()]
    p = subparsers.add_parser(NAME, help=f"{COMMANDS[NAME]}: " + ", ".join(titles),
                              description="Meta-evaluation criteria of measures over TREC runs (a directory, run "
                                          "files or globs): " + "; ".join(titles) + ". Writes tables, figures, "
                                          "their run times and an HTML report.")
    p.add_argument("qrels", metavar="QRELS|PER_QUERY", nargs="?",
                   help="TREC qrels file or irds:ID; or, alone, a per-query file of ir-cwla eval -q --format csv or a "
                        "directory of per-topic score files (trec_eval -q, one per run); none with --gains")
    p.add_argument("runs", metavar="RUNS", nargs="*",
                   help="a directory of TREC run files (one system each), or run files, or quoted globs")
    p.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measures to compare (default: the 39 Table-1 C/W/L/A measures @10)")
    p.add_argument("--criteria", metavar="LIST",
                   help="comma-separated subset of " + ", ".join(CRITERIA) + " (default: every one the "
                        "inputs allow; those that re-score the runs need QRELS and RUNS)")
    p.add_argument("--groups", choices=("auto", "model", "all"), default="auto",
                   help="families compared within: 'model' (the aggregations of each browsing model), 'all' (one "
                        "family), 'auto' (model if every measure is C/W/L/A, else all; the default)")
    p.add_argument("--alt-qrels", dest="alt_qrels", nargs="+", action="extend", metavar="FILE",
                   help="qrels of other assessors of the same topics (FILE, NAME=FILE, irds:ID or a directory of "
                        "files, one judge each; named by the file name): adds label_agreement and, with RUNS, "
                        "assessor_variation; QRELS and --alt-qrels alone compare the labels only")
    from ir_cwla.app import judge_inputs, user_study

    judge_inputs.add_arguments(p)
    user_study.add_arguments(p)
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=options.seed, default=0, help="random seed (default 0)")
    _add_criteria_options(p)
    p.add_argument("--out", default="meta-report", metavar="REPORT", help="output directory (default meta-report)")
    p.set_defaults(plan=plan, execute=execute)
    return p


def _add_criteria_options(p: argparse.ArgumentParser) -> None:
    """The options of every registered criterion (:func:`ir_cwla.meta.criteria.command_line_options`)."""
    from ir_cwla.meta.criteria import CRITERIA, command_line_options

    for key, option in command_line_options().items():
        users = [c.name for c in CRITERIA.values() if any(o.key == key for o in c.options)]
        default = option.default
        shown = ",".join(map(str, default)) if isinstance(default, (tuple, list)) else default
        p.add_argument(option.flag, dest=key, type=option.reader(), default=default, metavar=option.metavar,
                       help=f"{'/'.join(users)}: {option.help} (default {shown})")


# ------------------------------------------------------------------------- option readers

def criteria_arg(text: Optional[str], available: Sequence[str]) -> Optional[list[str]]:
    """``--criteria`` as a list of names, each checked before any work.

    Each name must be a known criterion, and the inputs it needs must be ``available``.

    Parameters
    ----------
    text
        The ``--criteria`` argument: names separated by commas.
    available
        The inputs there are (names of :data:`ir_cwla.meta.criteria.NEEDS`).

    Returns
    -------
    list of str or None
        The criteria asked for; None (no ``--criteria``): every criterion the inputs allow.
    """
    from ir_cwla.app import user_study
    from ir_cwla.app.judge_inputs import HOW
    from ir_cwla.errors import UsageError
    from ir_cwla.meta import criteria

    if text is None:
        return None
    asked = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in asked if c not in criteria.CRITERIA]
    if unknown or not asked:
        raise UsageError(f"--criteria: unknown {', '.join(map(repr, unknown)) or 'empty list'}; "
                         f"choose from {', '.join(criteria.CRITERIA)}")
    for name in asked:
        missing = criteria.CRITERIA[name].missing(available)
        if missing:
            how = {**HOW, **user_study.HOW, "preferences or satisfaction": user_study.HOW["preferences"]}
            raise UsageError(f"--criteria {name} needs {' and '.join(missing)}: "
                             f"{how.get(missing[0], 'give QRELS and run files, or a per-query file')}")
    return asked


def run_files_arg(specs: Sequence[str]) -> Union[str, list[str]]:
    """RUNDIR, run files or quoted globs (``'runs/*.gz'``) as what :func:`ir_cwla.meta.evaluate` takes."""
    import glob

    from ir_cwla.errors import UsageError

    if len(specs) == 1 and os.path.isdir(specs[0]):
        return specs[0]
    files: list[str] = []
    for spec in specs:
        if os.path.lexists(spec) or not any(ch in spec for ch in "*?["):
            if not os.path.lexists(spec):
                raise UsageError(f"run file or directory not found: {spec}")
            if os.path.isdir(spec):
                raise UsageError(f"{spec} is a directory: give one directory of runs, or run files")
            files.append(spec)
        else:
            found = sorted(glob.glob(spec))
            if not found:
                raise UsageError(f"no run file matches {spec}")
            files.extend(found)
    return list(dict.fromkeys(files))


def groups_arg(text: str, measures: Sequence[Any]) -> Any:
    """``--groups``: 'model', 'all' or 'auto', as the families of measures compared.

    'model': the aggregations of each browsing model compared with each other, as the paper does
    (other measures each a family of their own); 'all': one family; 'auto': 'model' when every
    measure is C/W/L/A, else 'all'.
    """
    import ir_cwla
    from ir_cwla import meta

    if text == "auto":
        text = "model" if all(ir_cwla.is_cwla(m) for m in measures) else "all"
    return meta.browsing_model if text == "model" else None


# ------------------------------------------------------------------------- the plan

@dataclass(frozen=True)
class Plan:
    """What ``ir-cwla meta`` reads, computes and writes.

    Read: ``runs`` (a directory or run files, :func:`run_files_arg`) scored against ``qrels``
    and, for ``assessor_variation``, against each of ``alternatives`` (``{name: qrels}``, their
    ids mapped by ``alt_topic_map`` and ``alt_doc_map``); or, without runs, ``qrels`` is a
    per-query file or a directory of ``trec_eval -q`` files, or (``labels_only``, with
    alternatives) the qrels whose labels are compared. ``alt_scores`` (per-topic scores of the
    same runs under other assessors) and ``run_models`` feed the judges' criteria
    (:mod:`ir_cwla.app.judge_inputs`). Computed: the criteria ``chosen`` (names of
    :data:`ir_cwla.meta.CRITERIA`) with their ``options``, over ``measures`` (given: None, the
    default of the inputs: Table 1 over runs, every measure of a per-query file), families by
    ``groups``, at level ``alpha`` with ``seed``; with ``asked`` (``--criteria`` given), a chosen
    criterion the inputs turn out not to suit is an error. Written: the report directory ``out``,
    the summaries and timings on stdout.
    """

    qrels: Optional[str]
    runs: Union[str, list[str], None]
    alternatives: dict[str, str] = field(default_factory=dict)
    alt_topic_map: Optional[str] = None
    alt_doc_map: Optional[str] = None
    alt_scores: Optional[tuple[str, ...]] = None
    run_models: Optional[str] = None
    labels_only: bool = False
    chosen: tuple[str, ...] = ()
    asked: bool = False
    study: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    measures: Optional[tuple[Any, ...]] = None
    groups: str = "auto"
    alpha: float = 0.05
    seed: int = 0
    out: str = "meta-report"

    @property
    def inputs(self) -> list[str]:
        """The files read (the report directory may not hold one)."""
        runs = [self.runs] if isinstance(self.runs, str) else list(self.runs or [])
        extra = [self.alt_topic_map, self.alt_doc_map, self.run_models, *(self.alt_scores or ())]
        return [*([self.qrels] if self.qrels else []), *runs,
                *[p for p in self.alternatives.values() if not p.startswith("irds:")],
                *[p for p in extra if p is not None and "=" not in p],
                *(self.study.files() if self.study is not None else [])]


def plan(args: argparse.Namespace) -> Plan:
    """The :class:`Plan` of the parsed options: criteria, their options, measures, alpha, runs and ``--out`` checked."""
    from ir_cwla.analysis.frame import check_alpha
    from ir_cwla.app import judge_inputs, user_study
    from ir_cwla.meta import criteria

    have_runs = bool(args.runs)
    alternatives = judge_inputs.alt_qrels_specs(args.alt_qrels)
    labels_only = bool(alternatives) and not have_runs          # QRELS and --alt-qrels: the labels alone
    study = user_study.Study.from_args(args)
    user_study.check_positionals(args.qrels, args.runs, study)
    available = judge_inputs.available(args, have_runs, alternatives) + study.available()
    judge_inputs.check_paths(args)
    asked = criteria_arg(args.criteria, available)
    names = user_study.default_criteria(asked, available, study.gains is not None)
    options = {key: getattr(args, key) for key in criteria.command_line_options()}
    chosen = [n for n in criteria.resolve(names, available) if not labels_only or criteria.CRITERIA[n].needs]
    for name in chosen:
        criteria.options_of(name, options)
    check_alpha(args.alpha)
    measures = tuple(measures_arg(args.measures, [])) if args.measures else None
    done = Plan(qrels=args.qrels, runs=run_files_arg(args.runs) if have_runs else None, alternatives=alternatives,
                alt_topic_map=args.alt_topic_map, alt_doc_map=args.alt_doc_map,
                alt_scores=tuple(args.alt_scores) if args.alt_scores else None, run_models=args.run_models,
                labels_only=labels_only, chosen=tuple(chosen), asked=asked is not None, options=options,
                measures=measures, groups=args.groups, alpha=args.alpha, seed=args.seed, out=args.out,
                study=study)
    check_report(done.out, done.inputs)
    return done


def execute(plan: Plan) -> int:
    """Reads and scores the runs (or reads the per-query file), runs the criteria, writes the report."""
    import sys
    import time

    import pandas as pd

    import ir_cwla
    from ir_cwla import meta
    from ir_cwla._text import csv_safe
    from ir_cwla.analysis import naming
    from ir_cwla.app import judge_inputs, report
    from ir_cwla.app.evaluate import (
        note_conventions,
        per_query_measures,
        read_per_query,
        read_qrels_arg,
        read_run_arg,
    )
    from ir_cwla.errors import InputError, UsageError
    from ir_cwla.meta import criteria

    progress = sys.stderr.isatty()

    def step(text: str) -> None:          # one line per step on stderr, terminal or not (bars: terminal only)
        print(f"ir-cwla meta: {text}", file=sys.stderr, flush=True)

    timings: dict[str, float] = {}
    clock = time.perf_counter()
    users = plan.study.read() if plan.study is not None else {}
    runs: Optional[dict[str, Any]] = None
    alternatives: Optional[dict[str, Any]] = None
    qrels: Any = None
    measures: list[Any]
    if plan.study is not None and plan.study.gains is not None:     # a user study's pages, scored by score_gains
        measures = list(ir_cwla.table1() if plan.measures is None else plan.measures)
        step(f"scoring the result pages of {plan.study.gains} under {len(measures)} measures")
        per_query = ir_cwla.score_gains(users["gains"], measures, source=plan.study.gains)
        source = f"the result pages {plan.study.gains}; the users' ratings {plan.study.satisfaction}."
    elif plan.labels_only:       # QRELS and other assessors' qrels: their labels compared, no run scored
        assert plan.qrels is not None
        step(f"reading the qrels {plan.qrels} and {len(plan.alternatives)} other assessors' qrels")
        try:
            qrels = read_qrels_arg(plan.qrels, [])
        except InputError as ex:
            raise UsageError(f"--alt-qrels without RUNS compares the labels of QRELS with the other assessors': "
                             f"{ex} (a per-query file cannot be scored again with other assessors' qrels: give QRELS "
                             "and RUNS)") from None
        alternatives = judge_inputs.read_alternatives(plan.alternatives, plan, lambda path: read_qrels_arg(path, []))
        per_query = pd.DataFrame(columns=["name", "qid", "measure", "value"])
        measures = []
        source = f"qrels {plan.qrels}; other assessors' qrels {', '.join(plan.alternatives)}."
    elif plan.runs is None:    # one argument: a per-query file of `ir-cwla eval -q --format csv`, or trec_eval -q files
        assert plan.qrels is not None            # (plan() checked it: QRELS, a per-query file or --gains)
        if os.path.isdir(plan.qrels):       # trec_eval's measure names (IPrec@0.1, ...): selected by name
            step(f"reading the per-topic score files (trec_eval -q) of {plan.qrels}")
            per_query, measures = judge_inputs.score_files_measures(
                meta.read_score_files(plan.qrels), [str(m) for m in plan.measures or ()], step)
        else:
            step(f"reading the per-query file {plan.qrels}")
            per_query, measures = per_query_measures(read_per_query(plan.qrels), list(plan.measures or []))
        source = f"{plan.qrels}."
    else:
        assert plan.qrels is not None
        measures = list(ir_cwla.table1() if plan.measures is None else plan.measures)
        mapping = meta.evaluation.as_run_mapping(plan.runs)
        step(f"reading the qrels {plan.qrels} and {len(mapping)} run files")
        qrels = read_qrels_arg(plan.qrels, measures)
        alternatives = judge_inputs.read_alternatives(plan.alternatives, plan,
                                                      lambda path: read_qrels_arg(path, measures)) or None
        runs = {name: read_run_arg(path, name, measures) for name, path in mapping.items()}
        # every run's topics checked by meta.evaluate (the rule of eval: no silent zero)
        step(f"evaluating {len(runs)} runs x {qrels['query_id'].nunique()} qrels topics x {len(measures)} measures")
        per_query = meta.evaluate(runs, qrels, measures, progress=progress)
        shown = plan.runs if isinstance(plan.runs, str) else f"{len(runs)} run files"
        source = f"{shown}; qrels {plan.qrels}" + (f"; other assessors' qrels {', '.join(plan.alternatives)}"
                                                   if plan.alternatives else "") + "."
    timings["evaluation"] = time.perf_counter() - clock
    inputs = criteria.Inputs(per_query, measures, runs, qrels, alternatives, groups=groups_arg(plan.groups, measures),
                             seed=plan.seed, alpha=plan.alpha, progress=progress,
                             alternative_scores=judge_inputs.read_alternative_scores(
                                 plan, list(pd.unique(per_query["measure"])) or None),
                             run_models=judge_inputs.read_run_models(plan), **users)
    suits = {n: criteria.CRITERIA[n].applies for n in plan.chosen}
    unsuited = [n for n, applies in suits.items() if applies is not None and not applies(inputs)]
    if unsuited and plan.asked:
        raise UsageError(f"--criteria {unsuited[0]}: the inputs do not suit it "
                         f"({criteria.CRITERIA[unsuited[0]].question})")
    done = criteria.run([n for n in plan.chosen if n not in unsuited], inputs, plan.options, log=step)
    timings.update(done.seconds)
    step(f"writing the report to {plan.out}")
    means = per_query.pivot_table(index="name", columns="measure", values="value", aggfunc="mean")
    means = means[naming.measure_order(means.columns)].rename(columns=meta.label).rename_axis("run")
    with report.staged(plan.out, inputs=plan.inputs) as directory:
        page = report.HtmlReport("ir_cwla meta-evaluation",
                                 f"{per_query['name'].nunique()} runs, {per_query['qid'].nunique()} topics, "
                                 f"{len(measures)} measures, from {source}", directory=directory)
        report.add_meta_summary(page, done)
        if len(per_query):
            page.section("Runs")
            page.table(means, "mean score of every run (rows) under every measure (columns)", filename="means.csv")
        report.add_meta_sections(page, done)
        report.add_timings(page, timings)
        csv_safe(per_query).to_csv(directory / "per_query.csv", index=False)
        page.write()
    for name, table in done.summaries.items():
        criterion = criteria.CRITERIA[name]
        print(f"{criterion.title}:")
        note = table.attrs.get("note", "")
        if len(table):
            print(report.text_table(table, precision=criterion.precision, index=False))
        elif not note:
            note = "nothing to show (no row)"
        if note:
            print(f"  {note}")
        print()
    print(report.text_table(report.timings_table(timings), precision=2, index=False))
    print(f"\nreport: {Path(plan.out) / 'index.html'}")
    if plan.runs is not None and plan.qrels is not None:
        note_conventions(plan.qrels)
    return 0
