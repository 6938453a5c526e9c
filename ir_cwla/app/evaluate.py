"""What ``ir-cwla eval`` does, as library functions: read the arguments, score, format.

:func:`evaluate_runs` scores runs into a long frame (``name, qid, measure, value`` plus a
summary row per run and measure, as trec_eval's ``all``); :func:`format_results` writes it
in trec_eval's layout, CSV or JSON. Run and qrels arguments are TREC files or any named
source of :mod:`ir_cwla.io` (``irds:ID``, :mod:`ir_cwla.datasets`).
"""
from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ir_cwla import datasets, io, meta
from ir_cwla.names import short_name

SUMMARY_QID = "all"
"""The query id of the mean over topics, as in trec_eval."""


def _missing(spec: str, what: str) -> FileNotFoundError:
    hint = f" (an ir_datasets id is written {datasets.IRDS_PREFIX}{spec})" if "." not in Path(spec).name else ""
    return FileNotFoundError(f"{what} file not found: {spec}{hint}")


def read_qrels_arg(spec: str) -> pd.DataFrame:
    """Qrels named on the command line: a TREC qrels file or a named source (``irds:ID``)."""
    if not io.is_named_source(spec) and not os.path.exists(spec):
        raise _missing(spec, "qrels")
    return io.as_qrels_frame(spec)


def read_run_arg(spec: str) -> pd.DataFrame:
    """A run named on the command line: a TREC run file or a named source (``irds:ID``)."""
    if not io.is_named_source(spec) and not os.path.exists(spec):
        raise _missing(spec, "run")
    return io.as_run_frame(spec, name=spec)


def note_conventions(qrels_spec: str) -> None:
    """Tells on stderr which grade conventions the qrels were read with (Cranfield's)."""
    note = datasets.conventions_note(qrels_spec)
    if note:
        print(f"ir-cwla: note: {note}", file=sys.stderr)


def run_name(spec: str) -> str:
    """The name of a run in tables: a named source (``irds:ID``) as is, a file as
    :func:`ir_cwla.meta.run_name` names it."""
    return spec if io.is_named_source(spec) else meta.run_name(spec)


def unique_run_names(specs: Sequence[str]) -> list[str]:
    """:func:`run_name` of each spec, falling back to the spec itself where two names collide."""
    names = [run_name(s) for s in specs]
    return [n if names.count(n) == 1 else s for n, s in zip(names, specs)]


# ------------------------------------------------------------------------- evaluation

def evaluate_runs(runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame, measures: Sequence[Any],
                  per_query: bool = True, progress: bool = False) -> pd.DataFrame:
    """Scores every run (:func:`ir_cwla.meta.evaluate`): a long frame ``name, qid, measure, value``.

    Rows per query (when ``per_query``) and, for each run and measure, a row with qid
    ``'all'``: the measure's own aggregate over the topics it scored (the mean, as in
    trec_eval and ``ir_measures.calc_aggregate``). Runs keep their order, topics are in
    natural order, measures are named by :func:`ir_cwla.short_name`.
    """
    by_str = {str(m): m for m in measures}
    try:
        scores = meta.evaluate(dict(runs), qrels, list(measures), progress=progress)
    except (AssertionError, NotImplementedError) as ex:
        raise ValueError(f"cannot evaluate {', '.join(map(short_name, measures))}: {ex}") from None
    values = dict(list(scores.groupby(["name", "measure"], sort=False)["value"]))
    summary = pd.DataFrame([(name, SUMMARY_QID, key, _aggregate(m, values.get((name, key), ())))
                            for name in runs for key, m in by_str.items()], columns=list(scores.columns))
    out = pd.concat([scores if per_query else scores.iloc[:0], summary], ignore_index=True)
    rank = {name: i for i, name in enumerate(runs)}, {key: i for i, key in enumerate(by_str)}
    out = out.assign(_r=out["name"].map(rank[0]), _s=out["qid"] == SUMMARY_QID, _q=out["qid"].map(_natural_key),
                     _m=out["measure"].map(rank[1]))
    out = out.sort_values(["_r", "_s", "_q", "_m"], kind="stable")[["name", "qid", "measure", "value"]]
    return out.assign(measure=out["measure"].map({k: short_name(m) for k, m in by_str.items()})
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
        raise ValueError(f"unknown output format {fmt!r} (trec, csv or json)")
    lines = []
    for name, block in results.groupby("name", sort=False):
        lines.append(f"{'runid':<22}\t{SUMMARY_QID}\t{name}")
        lines.extend(f"{m:<22}\t{q}\t{v:.{places}f}" for q, m, v in block[["qid", "measure", "value"]].itertuples(index=False))
    return "\n".join(lines) + "\n"


