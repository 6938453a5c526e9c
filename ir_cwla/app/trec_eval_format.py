"""``ir-cwla eval --format trec_eval``: trec_eval 10.0's output, byte for byte, for the measures it computes.

trec_eval's names (``P_5``, ``iprec_at_recall_0.10``, ``ndcg_1=3,2=9``), its order (the order
of its measure table, whatever the order of the ``-m`` options; each topic's lines, the topics
in ``strcmp`` order, then the summary), its number formats (``%6.4f``; counts as integers) and
its ``runid`` line (the run id of the run's last line, printed when asked for, as ``official``
and ``all_trec`` do), from :func:`ir_cwla.measures._trec_names.trec_name` and the selection of the
command line (:func:`ir_cwla.measures._trec_names.select`). Measures trec_eval does not compute (C/W/L/A
measures, ERR, ...) follow in the same layout under their short names, in the order given.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from ir_cwla.io import SUMMARY_QID
from ir_cwla.measures import _trec_names as trec_names


def _entries(measures: Sequence[Any], selection: Optional[trec_names.Selection], level: int
             ) -> dict[str, trec_names.Selected]:
    """``str(measure)`` -> how trec_eval prints it; measures it does not compute get their short name, after its own."""
    from ir_cwla.measures import short_name

    chosen = {str(s.measure): s for s in (selection.values if selection else ()) if s.measure is not None}
    out: dict[str, trec_names.Selected] = {}
    extra = 0
    for m in measures:
        key = str(m)
        entry = chosen.get(key) or trec_names.trec_name(m, level)
        if entry is None:
            extra += 1
            entry = trec_names.Selected(short_name(m), m, (len(trec_names.TREC_MEASURES), extra))
        out[key] = entry
    return out


def printed(entry: trec_names.Selected, value: float) -> str:
    """A value as trec_eval prints it: ``%ld`` of the value cast to long for counts, else ``%6.4f``.

    As C's printf, a NaN keeps its sign (0/0 is ``-nan`` on x86: trec_eval's iprec_at_recall_0.00
    of a topic left without documents by -J).
    """
    if entry.long:
        return str(int(value))
    if math.isnan(value):
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return f"{value:6.4f}"


def format_trec_eval(rows: Sequence[tuple[str, str, str, float, str]], measures: Sequence[Any],
                     selection: Optional[trec_names.Selection] = None, level: int = 1,
                     runids: Optional[Mapping[str, Optional[str]]] = None,
                     relstrings: Optional[Mapping[str, Mapping[str, str]]] = None,
                     per_query: bool = False, summary: bool = True) -> str:
    """The text trec_eval prints for ``rows`` (:func:`ir_cwla.app.evaluate.result_rows`).

    Parameters
    ----------
    rows
        ``(run name, qid, str(measure), value, short name)``; qid ``all`` for the summary.
    measures
        The measures of the rows (their ``str`` is the rows' third field).
    selection
        What the command line's trec_eval names selected (their printed names, and the lines
        ``runid`` and ``relstring``); None: the measures' own trec_eval names.
    level
        trec_eval's ``-l``: a measure prints under its trec_eval name only at this relevance level.
    runids
        Each run's id for the ``runid`` line (when it is asked for); None: its name.
    relstrings
        Each run's ``relstring`` per topic (when it is asked for).
    per_query, summary
        trec_eval's ``-q`` and not ``-n``.
    """
    entries = _entries(measures, selection, level)
    lines = selection.lines if selection else []
    runid = next((s for s in lines if s.line == "runid"), None)
    relstring = next((s for s in lines if s.line == "relstring"), None)
    by_run: dict[str, dict[str, dict[str, float]]] = {}
    for name, qid, key, value, _ in rows:
        by_run.setdefault(name, {}).setdefault(qid, {})[key] = value
    out: list[str] = []
    for name, topics in by_run.items():
        ordered = sorted(entries.items(), key=lambda kv: kv[1].order)
        if per_query:
            strings = (relstrings or {}).get(name, {})
            for qid in sorted(q for q in topics if q != SUMMARY_QID):
                values = topics[qid]
                items: list[tuple[tuple, str]] = [(e.order, f"{e.name:<22}\t{qid}\t{printed(e, values[k])}")
                                                  for k, e in ordered if e.per_query and k in values]
                if relstring is not None:
                    items.append((relstring.order, f"{relstring.name:<22}\t{qid}\t'{strings.get(qid, '')}'"))
                out.extend(text for _, text in sorted(items, key=lambda item: item[0]))
        if summary:
            values = topics.get(SUMMARY_QID, {})
            if runid is not None:
                tag = (runids or {}).get(name) or name
                out.append(f"{'runid':<22}\t{SUMMARY_QID}\t{tag}")
            out.extend(f"{e.name:<22}\t{SUMMARY_QID}\t{printed(e, values[k])}" for k, e in ordered
                       if e.summary and k in values)
    return "".join(line + "\n" for line in out)
