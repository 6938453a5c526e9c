"""``ir-cwla meta``'s inputs for LLM judges: many judges' qrels, their id maps, per-topic scores, run models.

The options (:func:`add_arguments`)::

    --alt-qrels FILE|DIR|NAME=FILE ...   other assessors' qrels; a directory is every file in it (one judge
                                         each, named by its file name), so 33 label sets are one argument
    --alt-topic-map FILE, --alt-doc-map FILE
                                         id maps (``original<TAB>short`` per line, the LLMJudge files'
                                         ``qid_to_qidx.txt`` and ``docid_to_docidx.txt``) applied to every
                                         --alt-qrels file: their ``q*``/``p*`` ids become the reference's
    --alt-scores DIR|NAME=DIR ...        per-topic scores (``trec_eval -q`` files, one per run) of the same
                                         runs under other assessors: adds disjoint_agreement (other topics),
                                         score_variation (the same topics) and, with --run-models, judge_bias
    --run-models FILE                    the models each run's pipeline used (run-models.csv)

and the readers the command calls (:func:`alt_qrels_specs`, :func:`read_alternatives`,
:func:`read_alternative_scores`). Every one of them refuses what it cannot read with a clear error
before any criterion runs.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from ir_cwla.errors import UsageError

#: What each need of a criterion asks the user to give, for ``--criteria`` errors.
HOW = {"runs": "give QRELS and run files (a directory, files or a glob), not a per-query file",
       "qrels": "give QRELS and run files, or QRELS alone with --alt-qrels",
       "alternatives": "give other assessors' qrels with --alt-qrels",
       "alternative_scores": "give other assessors' per-topic scores of the same runs with --alt-scores",
       "run_models": "give the models of each run's pipeline with --run-models"}
EXTENSIONS = (".gz", ".bz2", ".xz", ".zst", ".txt", ".qrels", ".tsv")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the module docstring but ``--alt-qrels`` (the command declares it)."""
    p.add_argument("--alt-topic-map", dest="alt_topic_map", metavar="FILE",
                   help="id map of the --alt-qrels topics (ORIGINAL<TAB>SHORT per line, as the LLMJudge files' "
                        "qid_to_qidx.txt): their ids mapped to the reference's")
    p.add_argument("--alt-doc-map", dest="alt_doc_map", metavar="FILE",
                   help="id map of the --alt-qrels documents (as docid_to_docidx.txt)")
    p.add_argument("--alt-scores", dest="alt_scores", nargs="+", action="extend", metavar="DIR",
                   help="per-topic scores (trec_eval -q files, one per run) of the same runs under other assessors "
                        "(DIR or NAME=DIR): adds disjoint_agreement (other topics than the reference's), "
                        "score_variation (the same topics) and judge_bias (with --run-models)")
    p.add_argument("--run-models", dest="run_models", metavar="FILE",
                   help="the models each run's pipeline used (a CSV/TSV with run_id and LLM columns, models "
                        "separated by '/', as DL 2023's run-models.csv): for judge_bias")


def _name_of(path: str) -> str:
    name = Path(path).name
    for ext in EXTENSIONS:
        if name.endswith(ext) and len(name) > len(ext):
            name = name[: -len(ext)]
    return name


def _named(specs: Optional[Sequence[str]], flag: str, kind: str) -> dict[str, str]:
    """``{name: path}`` of ``FILE``/``DIR``/``NAME=PATH`` arguments (irds: ids as themselves)."""
    out: dict[str, str] = {}
    for spec in specs or ():
        name, path = None, spec
        if "=" in spec and not os.path.lexists(spec) and not spec.startswith("irds:"):
            name, path = spec.split("=", 1)
            if not name or not path:
                raise UsageError(f"{flag} {spec!r}: write NAME={kind} or {kind}")
        if name is None:
            name = path if path.startswith("irds:") else _name_of(path.rstrip("/"))
        if name in out:
            raise UsageError(f"{flag}: two inputs are named {name!r} ({out[name]} and {path}); name them: NAME={kind}")
        out[name] = path
    return out


def alt_qrels_specs(specs: Optional[Sequence[str]]) -> dict[str, str]:
    """``--alt-qrels`` as ``{name: qrels}``: ``FILE``, ``NAME=FILE``, ``irds:ID``, or a directory of files.

    A ``FILE`` is named by its file name without extensions (``group1-assessor-a.txt`` ->
    ``group1-assessor-a``); a directory gives each of its files (sorted, hidden ones skipped), named so.
    """
    expanded: list[str] = []
    for spec in specs or ():
        if os.path.isdir(spec):
            files = sorted(str(p) for p in Path(spec).iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise UsageError(f"--alt-qrels {spec}: the directory holds no file")
            expanded.extend(files)
        else:
            expanded.append(spec)
    return _named(expanded, "--alt-qrels", "FILE")


def check_paths(args: Any) -> None:
    """The files and directories of the options exist (before any work).

    ``args`` here and below: the parsed options, or the command's plan (the same attribute names).
    """
    for flag, value in (("--alt-topic-map", args.alt_topic_map), ("--alt-doc-map", args.alt_doc_map),
                        ("--run-models", args.run_models)):
        if value is not None and not os.path.isfile(value):
            raise UsageError(f"{flag}: no file {value}")
    for name, path in _named(args.alt_scores, "--alt-scores", "DIR").items():
        if not os.path.exists(path):
            raise UsageError(f"--alt-scores {name}: no file or directory {path}")
    if (args.alt_topic_map or args.alt_doc_map) and not args.alt_qrels:
        raise UsageError("--alt-topic-map and --alt-doc-map map the ids of --alt-qrels files: give them")


def read_alternatives(specs: Mapping[str, str], args: Any, read: Any) -> dict[str, Any]:
    """The ``--alt-qrels`` qrels read (by ``read(path)``), their ids mapped by the id maps if given."""
    from ir_cwla import meta

    topics = meta.read_id_map(args.alt_topic_map) if args.alt_topic_map else None
    docs = meta.read_id_map(args.alt_doc_map) if args.alt_doc_map else None
    out = {}
    for name, path in specs.items():
        frame = read(path)
        if topics is not None or docs is not None:
            frame = meta.map_ids(frame, topics, docs, name=path)
        frame.attrs["source"] = path            # errors about its grades name the file and line
        out[name] = frame
    return out


def read_alternative_scores(args: Any, measures: Optional[Sequence[Any]] = None
                            ) -> Optional[dict[str, Any]]:
    """``--alt-scores`` as ``{name: per-query frame}`` (None without it), restricted to ``measures``."""
    from ir_cwla import meta

    specs = _named(args.alt_scores, "--alt-scores", "DIR")
    if not specs:
        return None
    out = {}
    for name, path in specs.items():
        frame = meta.read_score_files(path)
        if measures is not None:
            frame = frame[frame["measure"].isin([str(m) for m in measures])].reset_index(drop=True)
        out[name] = frame
    return out


def score_files_measures(frame: Any, wanted: Sequence[str], step: Any) -> tuple[Any, list[str]]:
    """The frame of score files restricted to ``wanted`` measures (their names), or to all but the counts.

    Measures are trec_eval's as ir-measures names them (``IPrec@0.1`` among them, which ir_cwla's
    grammar does not parse), so they are chosen by name; a wanted one the files lack is an error.
    """
    from ir_cwla.meta.scorefiles import effectiveness_measures

    found = list(dict.fromkeys(frame["measure"]))
    if wanted:
        missing = [m for m in wanted if m not in found]
        if missing:
            raise UsageError(f"-m: the score files have no {', '.join(missing)} (they have {', '.join(found[:8])}"
                             f"{', ...' if len(found) > 8 else ''})")
        chosen = list(wanted)
    else:
        chosen = effectiveness_measures(frame)
        left_out = [m for m in found if m not in chosen]
        if left_out:
            step(f"comparing every measure but the counts {', '.join(left_out)}")
    return frame[frame["measure"].isin(chosen)].reset_index(drop=True), chosen


def read_run_models(args: Any) -> Optional[dict[str, list[str]]]:
    """``--run-models`` read (None without it)."""
    from ir_cwla import meta

    return meta.read_run_models(args.run_models) if args.run_models else None


def available(args: Any, have_runs: bool, alt_specs: Mapping[str, str]) -> list[str]:
    """The inputs there are (names of :data:`ir_cwla.meta.criteria.NEEDS`) for these options."""
    labels_only = bool(alt_specs) and not have_runs
    out = ["per_query"] if not labels_only else []
    out += ["runs", "qrels"] if have_runs else (["qrels"] if labels_only else [])
    out += ["alternatives"] if alt_specs else []
    out += ["alternative_scores"] if args.alt_scores else []
    out += ["run_models"] if args.run_models else []
    return out
