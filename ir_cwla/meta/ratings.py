"""Users' ratings joined to the measures' per-query scores: the units every user criterion reads.

A ratings table has one row per rated query: ``qid``, ``rating`` (a number: satisfaction on a
Likert scale, a slider, a grade of the page), optionally ``user`` (who rated it: the bootstrap
then resamples users, whose ratings are not independent), ``task`` (what the user was doing:
preference pairs are derived within a user's task), ``session``/``position`` (sessions rated as
a whole, below) and ``name`` (the system whose page was rated, where the per-query frame holds
several). :func:`read_ratings` reads and checks it; :func:`join` pairs it with the per-query
scores, saying what does not pair.

Sessions (Järvelin, Price, Delcambre & Nielsen 2008, "Discounted cumulated gain based
evaluation of multiple-query IR sessions", ECIR). With ``session_score`` given, the unit is the
session: its rating is the one rating its rows carry (a session is rated once; give that rating
on each of its queries' rows), and a measure's session score is, over the session's queries in
``position`` order (1, 2, ...), their ``'mean'``, ``'sum'``, the ``'last'`` query's score, or
``'sdcg'``: ``sum_j M_j / (1 + log_bq(j))``, each later query discounted as session DCG
discounts it (``bq = 4`` by default, as Järvelin et al.'s example; ``bq`` must be > 1).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.errors import ArgumentTypeError, DataError, InputError, InputWarning, ParameterError

#: The columns a ratings table must have, and those it may have.
REQUIRED = ("qid", "rating")
OPTIONAL = ("user", "task", "session", "position", "name")
#: How a session's score is made from its queries' scores.
SESSION_SCORES = ("mean", "sum", "last", "sdcg")
#: The fewest units a correlation is computed over.
MIN_UNITS = 10
#: The units, in the plural.
PLURAL = {"query": "queries", "session": "sessions"}


def read_table(source: Any, kind: str, name: Optional[str] = None) -> tuple[pd.DataFrame, str]:
    """A table given as a DataFrame, or as a CSV file with a header (TSV where it ends in ``.tsv``), and its name.

    A file is read as text (every column str, nothing taken for NaN): the readers check the
    columns. ``kind`` names it in messages (``ratings file not found: ...``).
    """
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        sep = "\t" if text.endswith((".tsv", ".tsv.gz")) else ","
        try:
            return pd.read_csv(source, sep=sep, dtype=str, keep_default_na=False), name or text
        except FileNotFoundError:
            raise InputError(f"{kind} file not found: {text}") from None
    if isinstance(source, pd.DataFrame):
        return source, name or kind
    raise ArgumentTypeError(f"{kind}: expected a DataFrame or a CSV file, got {type(source).__name__}")


def read_ratings(source: Any, name: Optional[str] = None) -> pd.DataFrame:
    """A ratings table (a DataFrame, or a CSV/TSV file with a header) checked.

    Columns :data:`REQUIRED` and any of :data:`OPTIONAL` (others are kept and ignored); ids as
    str. A rating that is not a number, an empty qid and a (name, qid, user) rated twice are an
    :class:`~ir_cwla.errors.InputError` naming the table and the row (counted from 1).
    """
    frame, name = read_table(source, "ratings", name)
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputError(f"ratings {name}: no column {', '.join(map(repr, missing))} (it has "
                         f"{', '.join(map(str, frame.columns))}; a ratings table has {', '.join(REQUIRED)} and "
                         f"optionally {', '.join(OPTIONAL)})")
    if not len(frame):
        raise InputError(f"ratings {name}: no rows")
    frame = frame.reset_index(drop=True)
    raw = frame["rating"]
    values = pd.to_numeric(raw.replace("", np.nan) if raw.dtype == object else raw, errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        i = int(bad[0])
        raise InputError(f"ratings {name}, row {i + 1} (qid {str(frame['qid'].iloc[i])!r}): rating "
                         f"{shown(raw.iloc[i])} is not a number")
    out = pd.DataFrame({"qid": frame["qid"].astype(str).to_numpy(dtype=object), "rating": values})
    for column in OPTIONAL:
        if column in frame.columns:
            out[column] = frame[column].astype(str).to_numpy(dtype=object) if column != "position" else \
                pd.to_numeric(frame[column], errors="coerce").to_numpy(float)
    blank = np.flatnonzero((out["qid"].str.strip() == "").to_numpy() | frame["qid"].isna().to_numpy())
    if len(blank):
        raise InputError(f"ratings {name}, row {int(blank[0]) + 1}: the qid is empty")
    if "position" in out.columns:
        wrong = np.flatnonzero(~(np.isfinite(out["position"]) & (out["position"] >= 1) &
                                 (np.floor(out["position"]) == out["position"])).to_numpy())
        if len(wrong):
            i = int(wrong[0])
            raise InputError(f"ratings {name}, row {i + 1}: position {shown(frame['position'].iloc[i])} is not a "
                             "whole number >= 1")
    key = [c for c in ("name", "qid", "user") if c in out.columns]
    twice = np.flatnonzero(out.duplicated(key).to_numpy())
    if len(twice):
        i = int(twice[0])
        raise InputError(f"ratings {name}, row {i + 1}: ({', '.join(key)}) = "
                         f"({', '.join(repr(out[c].iloc[i]) for c in key)}) is rated twice")
    out.attrs["source"] = name
    return out


@dataclass
class Units:
    """What a user criterion computes over: one row per unit (a rated query, or a session).

    ``scores`` (n, M): the measures' scores; ``ratings`` (n,); ``clusters`` (n,): the code of each
    unit's bootstrap cluster (its user, or the unit itself) and ``cluster`` what they are
    (``'users'``, ``'queries'``, ``'sessions'``); ``frame``: the units with their ids
    (``qid`` or ``session``, ``user``, ``task``, ``name``, ``rating``); ``unit``: ``'query'`` or
    ``'session'``; ``measures``: the measure names (columns of ``scores``); ``note``: what the
    pairing left out, for the outputs.
    """

    scores: np.ndarray
    ratings: np.ndarray
    clusters: np.ndarray
    cluster: str
    frame: pd.DataFrame
    unit: str
    measures: list[str]
    note: str = ""

    @property
    def n_clusters(self) -> int:
        """The number of bootstrap clusters."""
        return int(self.clusters.max()) + 1 if len(self.clusters) else 0


def _few(items: Sequence[Any], n: int = 3) -> str:
    items = sorted(map(str, items))
    return ", ".join(items[:n]) + (", ..." if len(items) > n else "")


def _check_session_score(session_score: Optional[str], bq: float) -> None:
    if session_score is not None and session_score not in SESSION_SCORES:
        raise ParameterError(f"session_score={session_score!r}; choose from {', '.join(SESSION_SCORES)}")
    if not (isinstance(bq, (int, float)) and np.isfinite(bq) and bq > 1):
        raise ParameterError(f"bq={shown(bq)}: session DCG's query discount base must be a number > 1")


def session_scores(values: np.ndarray, session: np.ndarray, position: np.ndarray, how: str,
                   bq: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    """Per session (sorted ids), the score of each measure from its queries' scores: (sessions, (S, M)).

    ``values`` (n, M) per query, ``session`` (n,) ids, ``position`` (n,) each query's place in its
    session (1 first); ``how`` in :data:`SESSION_SCORES`. sDCG discounts the j-th query (in
    position order, 1-based) by ``1 + log_bq(j)``.
    """
    codes, ids = pd.factorize(pd.Series(session), sort=True)
    order = np.lexsort((position, codes))
    codes, values = codes[order], np.asarray(values, dtype=np.float64)[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    counts = np.diff(np.r_[starts, len(codes)])
    j = np.arange(len(codes)) - np.repeat(starts, counts) + 1           # 1-based place in the session
    if how == "mean":
        out = np.add.reduceat(values, starts, axis=0) / counts[:, None]
    elif how == "sum":
        out = np.add.reduceat(values, starts, axis=0)
    elif how == "last":
        out = values[starts + counts - 1]
    elif how == "sdcg":
        out = np.add.reduceat(values / (1.0 + np.log(j) / np.log(bq))[:, None], starts, axis=0)
    else:
        raise ParameterError(f"session_score={how!r}; choose from {', '.join(SESSION_SCORES)}")
    return np.asarray(ids, dtype=object), out


def join(per_query: pd.DataFrame, ratings: pd.DataFrame, measures: Optional[Sequence[str]] = None, *,
         session_score: Optional[str] = None, bq: float = 4.0, clusters: str = "auto") -> Units:
    """The units of ``ratings`` with the scores of ``per_query`` (``name, qid, measure, value``).

    A rating pairs with the scores of its qid (and its ``name`` where the frame holds several
    systems). Rated queries that are not scored, and scored queries that are not rated, are left
    out with one :class:`~ir_cwla.errors.InputWarning` giving their counts and a few ids (never
    silently); a query scored under some measures only is an error. ``clusters``: ``'auto'``
    (users where the ratings have a ``user`` column, else the units), ``'users'``, ``'units'``.
    Fewer than :data:`MIN_UNITS` units, and ratings that are all equal, are refused.
    """
    _check_session_score(session_score, bq)
    if clusters not in ("auto", "users", "units"):
        raise ParameterError(f"clusters={clusters!r}; choose from auto, users, units")
    source = ratings.attrs.get("source", "ratings")
    if not isinstance(per_query, pd.DataFrame) or not {"qid", "measure", "value"} <= set(per_query.columns):
        raise ArgumentTypeError("per_query: expected the long per-query frame (name, qid, measure, value) of "
                                "ir_cwla.score_gains, meta.evaluate or pt.Experiment(..., perquery=True)")
    frame = per_query.assign(qid=per_query["qid"].astype(str))
    if "name" not in frame.columns:
        frame = frame.assign(name="")
    systems = pd.unique(frame["name"].astype(str))
    by_name = len(systems) > 1
    if by_name and "name" not in ratings.columns:
        raise DataError(f"per_query holds {len(systems)} systems ({_few(systems)}): the ratings need a 'name' column "
                        "saying whose page each rating is of")
    names = list(pd.unique(frame["measure"])) if measures is None else list(measures)
    present = set(pd.unique(frame["measure"]).tolist())
    unknown = [m for m in names if m not in present]
    if unknown:
        raise DataError(f"per_query has no scores of {', '.join(map(repr, unknown[:3]))}")
    frame = frame[frame["measure"].isin(names)]
    wide = frame.pivot_table(index=["name", "qid"], columns="measure", values="value", aggfunc="first")[names]
    partial = wide.index[wide.isna().any(axis=1)]
    if len(partial):
        raise DataError(f"per_query: query {partial[0][1]!r} is scored under some measures only "
                        f"({int(wide.loc[partial[0]].notna().sum())} of {len(names)})")
    key = ["name", "qid"] if by_name else ["qid"]
    rated = ratings.assign(name=ratings["name"].astype(str) if by_name else systems[0])
    index = wide.index.to_frame(index=False)
    scored_keys = set(zip(index["name"].tolist(), index["qid"].tolist())) if by_name else set(index["qid"].tolist())
    rated_keys = set(zip(rated["name"].tolist(), rated["qid"].tolist())) if by_name else set(rated["qid"].tolist())
    not_scored = sorted(rated_keys - scored_keys, key=str)
    not_rated = sorted(scored_keys - rated_keys, key=str)
    note = ""
    if not_scored or not_rated:
        parts = []
        if not_scored:
            parts.append(f"{len(not_scored)} rated quer{'y is' if len(not_scored) == 1 else 'ies are'} not scored "
                         f"({_few(not_scored)})")
        if not_rated:
            parts.append(f"{len(not_rated)} scored quer{'y is' if len(not_rated) == 1 else 'ies are'} not rated "
                         f"({_few(not_rated)})")
        note = f"{source}: " + "; ".join(parts) + "; they are left out"
        warnings.warn(note, InputWarning, stacklevel=3)
    units = rated.merge(wide.reset_index(), on=["name", "qid"], how="inner")
    unit = "query"
    if session_score is not None:
        if "session" not in units.columns:
            raise DataError(f"session_score={session_score!r} needs a 'session' column in the ratings")
        if session_score in ("last", "sdcg") and "position" not in units.columns:
            raise DataError(f"session_score={session_score!r} needs the queries' order: a 'position' column "
                            "(1 for a session's first query)")
        spread = units.groupby("session")["rating"].nunique()
        if (spread > 1).any():
            s = spread.index[spread.to_numpy() > 1][0]
            raise DataError(f"{source}: session {s!r} has ratings "
                            f"{', '.join(f'{v:g}' for v in sorted(units.loc[units['session'] == s, 'rating'].unique()))} on "
                            "its queries: a session is rated once (give its rating on each of its queries' rows)")
        position = units["position"].to_numpy() if "position" in units.columns else np.ones(len(units))
        ids, values = session_scores(units[names].to_numpy(), units["session"].to_numpy(), position, session_score, bq)
        first = units.sort_values("session", kind="stable").drop_duplicates("session").set_index("session")
        keep = [c for c in ("user", "task", "name", "rating") if c in first.columns]
        units = first.loc[list(ids), keep].reset_index()
        units[names] = values
        unit = "session"
    else:
        units = units.sort_values(key, kind="stable").reset_index(drop=True)
    if len(units) < MIN_UNITS:
        raise DataError(f"{source}: {len(units)} rated {PLURAL[unit] if len(units) != 1 else unit} pair with the scores; "
                        f"a correlation over fewer than {MIN_UNITS} is refused")
    y = units["rating"].to_numpy(dtype=np.float64)
    if np.all(y == y[0]):
        raise DataError(f"{source}: every rating is {y[0]:g}: a correlation with a constant is undefined")
    if clusters == "users" and "user" not in units.columns:
        raise DataError("clusters='users' needs a 'user' column in the ratings")
    by_user = "user" in units.columns and clusters != "units"
    codes = pd.factorize(units["user"], sort=True)[0] if by_user else np.arange(len(units))
    return Units(units[names].to_numpy(dtype=np.float64), y, codes.astype(np.int64),
                 "users" if by_user else ("sessions" if unit == "session" else "queries"),
                 units.drop(columns=names), unit, names, note)
