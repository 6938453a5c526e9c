"""Per-topic score files (``trec_eval -q`` output) as the per-query frame of :mod:`ir_cwla.meta`.

Where the runs themselves are not available (a track publishes its runs' scores, a study its
per-topic results), every analysis that compares rankings from scores (:func:`ir_cwla.meta.similarity`,
:func:`ir_cwla.meta.disjoint_agreement`, :func:`ir_cwla.meta.judge_bias`, :func:`ir_cwla.meta.assessor_variation`
with ``scores=``, ...) can read them instead. A file is what ``trec_eval -q`` prints::

    runid                 	all	uogtr_dph
    map                   	2001010	0.0359
    P_10                  	2001010	0.4000
    ...
    map                   	all	0.0933

one ``measure  topic  value`` line per measure and topic (any whitespace between the fields),
the summary lines (topic ``all``) after them. The rules (each broken rule an
:class:`~ir_cwla.errors.InputError` naming the file and line):

- every line has exactly three fields; a value is a number (``inf``/``nan`` are refused), except
  on the ``runid`` line, which names the run;
- the run is named by its ``runid`` line, else by the file's name without its extensions
  (``uogtr_dph.treceval.gz`` -> ``uogtr_dph``); two files of one run name are an error;
- a (measure, topic) given twice with two values is an error (the same value twice is read once);
- summary lines (topic ``all``: ``num_q``, ``gm_map``, the means) are not read as a topic;
- measure names are trec_eval's, translated to ir-measures' (``map`` -> ``AP``, ``P_10`` ->
  ``P@10``, ``recip_rank`` -> ``RR``, ``ndcg_cut_10`` -> ``nDCG@10``, by
  ``ir_measures.parse_trec_measure``), so frames read here line up with those of
  :func:`ir_cwla.meta.evaluate`; a name ir-measures does not know is kept as written.

:data:`COUNTS` are the counting columns (``num_ret``, ``num_rel``, ``num_rel_ret``): they are read
like the others, and :func:`effectiveness_measures` names the measures of a frame without them
(what the command line compares by default, saying so).
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis.frame import long_frame
from ir_cwla.errors import InputError
from ir_cwla.io import SUMMARY_QID, open_input

#: The counting columns of trec_eval's default output, in ir-measures' names.
COUNTS = ("NumRet", "NumRel", "NumRet(rel=1)", "NumQ")
#: Extensions taken off a file's name to name its run.
EXTENSIONS = (".gz", ".bz2", ".xz", ".zst", ".txt", ".treceval", ".trec_eval", ".eval", ".tsv")

ScoreFiles = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], Mapping[str, Union[str, os.PathLike]]]

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")


def measure_name(trec_name: str) -> str:
    """ir-measures' name of a trec_eval measure (``map`` -> ``AP``); the name itself where it has none."""
    import ir_measures

    try:
        parsed = ir_measures.parse_trec_measure(trec_name)
    except (ValueError, KeyError, TypeError, NameError):
        return trec_name
    return str(parsed[0]) if len(parsed) == 1 else trec_name


def file_run_name(path: Union[str, os.PathLike]) -> str:
    """A score file's name without its extensions (``uogtr_dph.treceval.gz`` -> ``uogtr_dph``)."""
    name = Path(path).name
    changed = True
    while changed:
        changed = False
        for ext in EXTENSIONS:
            if name.endswith(ext) and len(name) > len(ext):
                name, changed = name[: -len(ext)], True
    return name


def read_trec_eval(source: Any, name: Union[str, None] = None) -> pd.DataFrame:
    """One ``trec_eval -q`` output file as a per-query frame ``name, qid, measure, value``.

    Parameters
    ----------
    source
        A path (plain or compressed), ``-`` or an open binary file.
    name
        The run's name; default: the file's ``runid`` line, else its file name without extensions.

    Returns
    -------
    The long frame of :func:`ir_cwla.meta.evaluate` (sorted by qid, measures in the file's order),
    without the summary lines.

    Raises
    ------
    InputError: a line that breaks a rule of the module docstring (file and line named), a file
    with no per-topic line.
    """
    with open_input(source, "score") as (stream, shown, _):
        text = stream.read().decode("utf-8", errors="replace")
    run_id = None
    seen: dict[tuple[str, str], tuple[float, int]] = {}
    qids: list[str] = []
    measures: list[str] = []
    values: list[float] = []
    names: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise InputError(f"score file {shown}, line {number}: expected 3 fields (measure, topic, value), got "
                             f"{len(fields)}: {line.strip()[:80]!r}")
        measure, qid, value = fields
        if measure == "runid":
            if run_id is not None and value != run_id:
                raise InputError(f"score file {shown}, line {number}: a second runid {value!r} (the first was "
                                 f"{run_id!r}); one file holds one run")
            run_id = value
            continue
        if not _NUMBER.match(value):
            raise InputError(f"score file {shown}, line {number}: value {value!r} of {measure} on topic {qid} is not "
                             "a finite number")
        if qid == SUMMARY_QID:
            continue
        number_value = float(value)
        key = (measure, qid)
        if key in seen:
            if seen[key][0] != number_value:
                raise InputError(f"score file {shown}, line {number}: {measure} of topic {qid} is given twice, "
                                 f"{seen[key][0]:g} on line {seen[key][1]} and {number_value:g}")
            continue
        seen[key] = (number_value, number)
        if measure not in names:
            names[measure] = measure_name(measure)
        qids.append(qid)
        measures.append(names[measure])
        values.append(number_value)
    if not values:
        raise InputError(f"score file {shown} has no per-topic line (write it with trec_eval -q)")
    translated = list(names.values())
    if len(set(translated)) != len(translated):
        twice = sorted({t for t in translated if translated.count(t) > 1})
        raise InputError(f"score file {shown}: two trec_eval measures are one ir-measures measure {twice}")
    run = name or run_id or file_run_name(shown)
    return long_frame([run] * len(values), qids, measures, values, order=translated)


def score_file_paths(files: ScoreFiles) -> dict[str, Any]:
    """``{path or key: source}`` of a directory (its regular files, sorted), a list of files or a mapping."""
    if isinstance(files, Mapping):
        return {str(k): v for k, v in files.items()}
    if isinstance(files, (str, os.PathLike)):
        folder = Path(files)
        if folder.is_dir():
            found = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
            if not found:
                raise InputError(f"score files: no file in {folder}")
            return {str(p): p for p in found}
        return {str(folder): folder}
    out = {str(p): p for p in files}
    if not out:
        raise InputError("score files: none given")
    return out


def read_score_files(files: ScoreFiles) -> pd.DataFrame:
    """Several runs' ``trec_eval -q`` files as one per-query frame (one run per file).

    ``files``: a directory of score files (one per run, hidden files skipped), a list of files,
    or a mapping ``{run name: file}`` (the names then win over the files' ``runid`` lines).
    Two files that name one run are an :class:`~ir_cwla.errors.InputError` naming both.
    """
    named = isinstance(files, Mapping)
    frames: list[pd.DataFrame] = []
    origin: dict[str, str] = {}
    for key, source in score_file_paths(files).items():
        frame = read_trec_eval(source, name=key if named else None)
        run = str(frame["name"].iloc[0])
        if run in origin:
            raise InputError(f"score files {origin[run]} and {key} both hold run {run!r}; pass a mapping "
                             "{name: file} to name them")
        origin[run] = key
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    order = list(dict.fromkeys(m for f in frames for m in pd.unique(f["measure"])))
    return long_frame(out["name"].tolist(), out["qid"].tolist(), out["measure"].tolist(),
                      out["value"].to_numpy(np.float64).tolist(), order=order)


def effectiveness_measures(per_query: pd.DataFrame) -> list[str]:
    """The measures of a per-query frame but the counting columns of :data:`COUNTS`, in frame order."""
    return [m for m in pd.unique(per_query["measure"]) if m not in COUNTS]
