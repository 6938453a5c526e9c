"""Scores of result pages given as ranked gains: ``score_gains(frame, measures)``.

A user study has result pages, not run files: for each query the grade of each rank of the
page its user saw (``qid, rank, gain``, optionally the ``cost`` of inspecting that rank).
:func:`score_gains` scores such pages under any measures through the normal path, so that no
measure has a second copy:

- the page is written as a run (rank ``i`` of query ``q`` is document ``q#i``, score ``-i``) and
  its judged ranks as qrels (document ``i`` has grade ``gain``); both go through the readers'
  rules (:func:`ir_cwla.io.as_run_frame`, :func:`ir_cwla.io.as_qrels_frame`) and are scored by
  ``ir_cwla.provider._per_topic.run_values``, the unit of work of :func:`ir_cwla.meta.evaluate`: the
  C/W/L/A measures (the paper's 39, cwl_eval's zoo, a plugin's) by :class:`ir_cwla.Scorer`, the
  others by ``ir_measures.evaluator``;
- a gain is a relevance grade, mapped to [0, 1] by each measure's own gain mapping as a qrels
  grade is (``x_max``: the largest gain of the frame unless the measure sets ``max_rel``); it
  must be an integer (the qrels' rule); a missing gain (NaN) is an unjudged rank, which the
  measure's ``unjudged=`` policy prices (a page needs at least one judged rank);
- a ``cost`` column prices each rank for the measures that read costs (the cost-aware browsing
  models TBG, U, IFT, BPM, ...; the aggregations EC, ETC) and name no ``costs=`` of their own
  (a measure that names its costs keeps them).

What a page cannot tell. A page shows its own ranks only: nothing says how many relevant
documents its query has elsewhere. The measures that read that (:func:`reads_beyond_page`:
R, the ideal ranking, unretrieved relevant documents: AP, nDCG, recall, R-precision, bpref,
infAP, the set measures but SetP, and the C/W/L/A models that read R under ``tail='pad'``) are
refused unless ``beyond_page='page'``, which computes them as if the page held every judged
document of its query (R = the page's relevant ranks; nDCG's ideal = the page sorted by grade),
a choice that the caller then states.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_cwla._text import shown
from ir_cwla.errors import ArgumentTypeError, InputError, MeasureError, ParameterError
from ir_cwla.measures import is_cwla
from ir_cwla.measures._names import named_measures

if TYPE_CHECKING:
    import pandas as pd

#: The columns of a frame of result pages (``cost`` is optional).
PAGE_COLUMNS = ("qid", "rank", "gain")
COST_COLUMN = "cost"
#: ``beyond_page=`` values: refuse the measures that read beyond the page, or compute them on the page.
BEYOND_PAGE = ("refuse", "page")
PAGE_MEASURES = frozenset({"P", "Precision", "RR", "MRR", "ERR", "RBP", "Judged", "NumRet", "NumRelRet", "Success",
                           "INST", "INSQ", "BPM", "NERR8", "NERR9", "NERR10", "NERR11", "SDCG", "SetP"})
"""ir-measures measures (by NAME) whose value depends on the ranked grades only: computable from a
result page. SetP only without ``relative=True`` (which divides by R); ir-measures' cwl_eval
measures (INST, INSQ, BPM, NERR8-11, SDCG) need their ``max_rel`` given (``INST(T=2.0, max_rel=3)``),
as they do on runs."""


def reads_beyond_page(measure: Any) -> bool:
    """True if ``measure`` reads judged documents beyond the ranking (R, the ideal ranking).

    A C/W/L/A measure does where its browsing model reads the total gain R (AP, TrAP) under
    ``tail='pad'``; an ir-measures measure unless it is one of :data:`PAGE_MEASURES` (SetP with
    ``relative=True`` reads R).
    """
    if is_cwla(measure):
        return measure["tail"] == "pad" and bool(measure.browsing_model.reads_total)
    if measure.NAME == "SetP":
        return bool(measure.params.get("relative", False))
    return measure.NAME not in PAGE_MEASURES


def _where(frame: pd.DataFrame, i: int) -> str:
    return f"row {i + 1} (qid {frame['qid'].iloc[i]!r})"


def _numbers(frame: pd.DataFrame, column: str, name: str) -> np.ndarray:
    """A column as float64, NaN where empty; non-numbers are an :class:`InputError` naming the row."""
    import pandas as pd

    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    given = frame[column].notna().to_numpy()
    bad = np.flatnonzero(given & np.isnan(values))
    if len(bad):
        i = int(bad[0])
        raise InputError(f"{name}, {_where(frame, i)}: {column} {shown(frame[column].iloc[i])} is not a number")
    return values


def check_pages(frame: Any, name: str = "gains") -> pd.DataFrame:
    """A frame of result pages checked: ``qid`` (str), ``rank`` (int64, 1..n per query), ``gain`` (float64, NaN unjudged).

    Sorted by qid and rank, with ``cost`` (float64) where given. Every rule is an
    :class:`~ir_cwla.errors.InputError` naming the frame (``name``), the row (counted from 1, in
    the frame's order) and the query: a missing column, an empty frame or qid, a rank that is not
    a whole number >= 1, a rank given twice or missing (the ranks of a page are 1, 2, ..., n), a
    gain or cost that is not a number, a gain that is not finite, a cost that is missing where
    others are given or is no cost (:func:`ir_cwla.io.MIN_COST`, :func:`ir_cwla.io.MAX_COST`), and a page with no judged rank.
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise ArgumentTypeError(f"{name}: expected a DataFrame with columns {', '.join(PAGE_COLUMNS)}[, cost], "
                                f"got {type(frame).__name__}")
    missing = [c for c in PAGE_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{name}: no column {', '.join(map(repr, missing))} (a result page is one row per rank: "
                         f"{', '.join(PAGE_COLUMNS)}[, cost]; it has {', '.join(map(str, frame.columns))})")
    if not len(frame):
        raise InputError(f"{name}: no rows")
    frame = frame.reset_index(drop=True)
    blank = np.flatnonzero(frame["qid"].isna().to_numpy() | (frame["qid"].astype(str).str.strip() == "").to_numpy())
    if len(blank):
        raise InputError(f"{name}, row {int(blank[0]) + 1}: the qid is empty")
    ranks = _numbers(frame, "rank", name)
    bad = np.flatnonzero(~(np.isfinite(ranks) & (ranks >= 1) & (np.floor(ranks) == ranks) & (ranks < 2.0 ** 62)))
    if len(bad):
        i = int(bad[0])
        raise InputError(f"{name}, {_where(frame, i)}: rank {shown(frame['rank'].iloc[i])} is not a whole number >= 1 "
                         "(ranks count from 1)")
    gains = _numbers(frame, "gain", name)
    infinite = np.flatnonzero(np.isinf(gains))
    if len(infinite):
        raise InputError(f"{name}, {_where(frame, int(infinite[0]))}: gain {gains[infinite[0]]} is not finite")
    out = pd.DataFrame({"qid": frame["qid"].astype(str).to_numpy(dtype=object), "rank": ranks.astype(np.int64),
                        "gain": gains, "row": np.arange(len(frame))})
    if COST_COLUMN in frame.columns:
        costs = _numbers(frame, COST_COLUMN, name)
        absent = np.flatnonzero(np.isnan(costs))
        if len(absent):
            raise InputError(f"{name}, {_where(frame, int(absent[0]))}: no cost (give every rank a cost, or drop the "
                             "cost column)")
        from ir_cwla.io import MAX_COST, MIN_COST
        from ir_cwla.io._cost_files import cost_problem

        wrong_cost = np.flatnonzero(~((costs >= MIN_COST) & (costs <= MAX_COST)))
        if len(wrong_cost):
            i = int(wrong_cost[0])
            raise InputError(f"{name}, {_where(frame, i)}: cost {costs[i]:g}: {cost_problem(float(costs[i]))}")
        out[COST_COLUMN] = costs
    out = out.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
    qid = out["qid"].to_numpy()
    rank = out["rank"].to_numpy()
    first = np.r_[True, qid[1:] != qid[:-1]]
    expected = np.arange(len(out)) - np.maximum.accumulate(np.where(first, np.arange(len(out)), 0)) + 1
    wrong = np.flatnonzero(rank != expected)
    if len(wrong):
        i = int(wrong[0])
        row = int(out["row"].iloc[i])
        what = (f"rank {rank[i]} is given twice" if i and not first[i] and rank[i] == rank[i - 1]
                else f"rank {expected[i]} is missing")
        raise InputError(f"{name}, row {row + 1} (qid {qid[i]!r}): {what} (the ranks of a page are 1, 2, ..., n)")
    judged = out.groupby("qid", sort=False)["gain"].count()
    empty = judged.index[judged.to_numpy() == 0].tolist()
    if empty:
        raise InputError(f"{name}: page {empty[0]!r}{f' and {len(empty) - 1} other(s)' if len(empty) > 1 else ''} "
                         "has no judged rank (every gain missing): nothing to score it by")
    return out.drop(columns="row")


def score_gains(frame: Any, measures: Sequence[Any], *, name: str = "pages", beyond_page: str = "refuse",
                source: str = "gains") -> pd.DataFrame:
    """Per-query scores of result pages (``qid, rank, gain``, optionally ``cost``) under ``measures``.

    Parameters
    ----------
    frame : DataFrame
        One row per rank of each query's page: ``qid``, ``rank`` (1, 2, ..., n), ``gain`` (the
        rank's integer relevance grade; NaN: unjudged), optionally ``cost`` (what inspecting the
        rank costs, for the measures that read costs and name none). Checked by
        :func:`check_pages`.
    measures : sequence of measures or names
        C/W/L/A measures (any browsing model and aggregation, cwl_eval's zoo) and ir-measures'
        measures; names are read by :func:`ir_cwla.parse_measure`.
    name : str
        The system name of the output's ``name`` column.
    beyond_page : {'refuse', 'page'}
        What to do with measures that read judged documents beyond the page
        (:func:`reads_beyond_page`): refuse them (a :class:`~ir_cwla.errors.MeasureError`
        naming them), or compute them as if the page held every judged document of its query.
    source : str
        What the frame is called in messages (a file name).

    Returns
    -------
    DataFrame
        ``name, qid, measure, value`` (the frame of :func:`ir_cwla.meta.evaluate` and of
        ``pt.Experiment(..., perquery=True)``), sorted by measure (in the order given) and qid;
        a measure is named by the string it was given as, else by ``str(measure)``.

    Notes
    -----
    Each page is scored as the run that ranks its ranks in order against the qrels of its
    judged ranks (see the module docstring): ``score_gains`` of the pages of a run scores bit
    for bit what :func:`ir_cwla.meta.evaluate` scores for that run, for every measure that reads
    the ranking only.
    """
    import pandas as pd

    from ir_cwla import io
    from ir_cwla.measures import CostSpec
    from ir_cwla.provider import _per_topic as per_topic
    from ir_cwla.provider._backends import check_grades_for_backends
    from ir_cwla.scoring import Scorer
    from ir_cwla.scoring._gains import run_columns

    if beyond_page not in BEYOND_PAGE:
        raise ParameterError(f"beyond_page={beyond_page!r}; choose from {', '.join(BEYOND_PAGE)}")
    parsed, names = named_measures(measures)
    if beyond_page == "refuse":
        beyond = [n for m, n in zip(parsed, names) if reads_beyond_page(m)]
        if beyond:
            raise MeasureError(f"{', '.join(beyond[:5])}{' ...' if len(beyond) > 5 else ''} read judged documents "
                               "beyond the result page (R, the ideal ranking), which a page does not show: score them "
                               "with beyond_page='page' to compute them as if the page held every judged document of "
                               f"its query, or choose measures of the ranking only (ir-measures': "
                               f"{', '.join(sorted(PAGE_MEASURES))}; C/W/L/A measures under tail='stop')")
    pages = check_pages(frame, source)
    # rank i of query q is document 'q#i' (one-to-one: a rank holds no '#'): a document of its query alone, so
    # that the qrels number a page's documents in rank order (R adds their gains in that order) and a cost
    # table keyed by doc_id prices each rank
    doc = (pages["qid"] + "#" + pages["rank"].astype(str)).to_numpy(dtype=object)
    run = pd.DataFrame({"query_id": pages["qid"].to_numpy(), "doc_id": doc,
                        "score": -pages["rank"].to_numpy(dtype=np.float64)})
    judged = pages["gain"].notna().to_numpy()
    grades = pages["gain"].to_numpy()[judged]
    fractional = np.flatnonzero(np.floor(grades) != grades)
    if len(fractional):
        i = int(np.flatnonzero(judged)[fractional[0]])
        raise InputError(f"{source} (qid {pages['qid'].iloc[i]!r}, rank {pages['rank'].iloc[i]}): gain {grades[fractional[0]]:g} "
                         "is not an integer (a gain is a relevance grade, which a measure maps by its own gain "
                         "mapping; rescale the grades to integers)")
    qrels = io.as_qrels_frame(pd.DataFrame({"query_id": run["query_id"].to_numpy()[judged], "doc_id": doc[judged],
                                            "relevance": grades.astype(np.int64)}), source, measures=parsed)
    check_grades_for_backends(qrels, parsed, source)
    costs = None
    if COST_COLUMN in pages.columns:
        costs = CostSpec("doc", tuple(zip(doc.tolist(), pages[COST_COLUMN].tolist())))
    cwla = [m for m in parsed if is_cwla(m)]
    others = [m for m in parsed if not is_cwla(m)]
    label = dict(zip(parsed, names))
    # ranks compared as float64 (trec_eval 10): the scores -rank are distinct at any depth
    scorer = Scorer(cwla, qrels, ties="float64", costs=costs) if cwla else None
    evaluator = None
    if others:
        import ir_measures

        evaluator = ir_measures.evaluator(others, qrels)
    qids, measure_names, values = per_topic.run_values(run_columns(io.as_run_frame(run, source), source), name, scorer,
                                                       evaluator, label, ties="float64")
    out = pd.DataFrame({"name": name, "qid": qids, "measure": measure_names, "value": np.asarray(values, dtype=np.float64)})
    order = {n: i for i, n in enumerate(names)}
    out = out.assign(_m=out["measure"].map(order)).sort_values(["_m", "qid"], kind="stable").drop(columns="_m")
    return out.reset_index(drop=True)
