"""The :class:`Leaderboard`: accuracy, latency, throughput and cost of systems, ranked.

Build one by running PyTerrier systems (:meth:`Leaderboard.run`) or from numbers already
published (:meth:`Leaderboard.from_frame`). Either way the board keeps one row per system
and three named dimensions -- ``accuracy``, ``latency``, ``cost`` -- which the Dynascore
weights, the ranking strategies and the figures refer to.

For a measured board:

* ``accuracy`` is any ir-measures measure (``RR(rel=2)@10``, ``nDCG@10``, ``CWLA(...)``),
  computed by :func:`pyterrier.Experiment` on the system's output for all topics. Pass
  several measures to get a column for each (named as ir-measures names them); the first
  plays ``accuracy``, and :meth:`Leaderboard.using` switches to another without re-running;
* ``latency`` is the median per-query latency (``latency_stat='p50'``; or mean, p95, p99);
* ``cost`` is USD per million queries from throughput (``cost_basis='throughput'``), or
  USD per query from mean latency (``cost_basis='latency'``). Both columns are always in
  the table, named by what they are computed from.

A measured board also keeps the per-topic scores of its accuracy measures
(:attr:`Leaderboard.per_query`, the long frame ``name, qid, measure, value`` of
``pt.Experiment(perquery=True)``); a board from numbers may be given them (``per_query=``),
checked against the board. With them, the app layer puts bootstrap intervals of the
Dynascore ranks next to the ranking (:func:`ir_cwla.comparison.dynascore_rank_uncertainty`).
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla._text import csv_safe, csv_unescape, shown
from ir_cwla.errors import ArgumentTypeError, DataError, InputError, MissingFileError, ParameterError

from . import plots, strategies
from .cost import Instance, as_instance, usd_per_million_queries, usd_per_query
from .dynascore import DEFAULT_WEIGHTS, default_direction, dynascore, is_non_negative, winner_map
from .timing import LatencyResult, ThroughputResult, environment, measure_latency, measure_throughput

LATENCY_STATS = {"mean": "latency_mean_ms", "p50": "latency_p50_ms", "p95": "latency_p95_ms",
                 "p99": "latency_p99_ms"}
COST_BASES = {"throughput": "usd_per_1M_q_from_qps", "latency": "usd_per_q_from_latency"}
ALIASES = ("accuracy", "latency", "cost")
#: What pandas reads as NA by default (its ``STR_NA_VALUES``): still NA in numeric columns, never in names.
_NA_STRINGS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
               "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


#: Columns of a per-query frame (``pt.Experiment(perquery=True)``, ``ir-cwla eval -q --format csv``).
PER_QUERY_COLUMNS = ("name", "qid", "measure", "value")
#: A board's accuracy and the mean of its per-topic scores may differ by this much, relative to
#: ``max(1, |mean|)``: numbers published with 3 decimals still match their per-topic scores.
MEAN_TOLERANCE = 5e-4


def _evaluate(run: pd.DataFrame, topics: pd.DataFrame, qrels: pd.DataFrame, measures: list[Any]
              ) -> tuple[dict[str, float], pd.DataFrame]:
    """The aggregate score of ``run`` under each measure, and its per-topic scores.

    The aggregate scores are those ``pt.Experiment`` reports; the per-topic scores (``qid,
    measure, value``) those ``pt.Experiment(perquery=True)`` gives, without the NaN it gives
    topics that have no judgments (which its averages leave out too).
    """
    import pyterrier as pt

    # one evaluation: pyterrier (>= 1.0) averages the per-topic scores it returns beside them
    result, by_topic = pt.Experiment([run], topics, qrels, eval_metrics=measures, names=["system"], verbose=False,
                                     perquery="both")
    by_topic = by_topic[by_topic["value"].notna()][["qid", "measure", "value"]]
    return {str(m): float(result[str(m)].iloc[0]) for m in measures}, by_topic


def _per_query_frame(per_query: Any) -> pd.DataFrame:
    """A copy of a long per-query frame, ``name, qid, measure`` as text and ``value`` as float.

    The rows are sorted by name, measure and qid (stable: nothing depends on the input's row order).
    """
    if not isinstance(per_query, pd.DataFrame):
        raise ArgumentTypeError(f"per_query must be a DataFrame with columns {', '.join(PER_QUERY_COLUMNS)} "
                                f"(pt.Experiment(perquery=True)), got {type(per_query).__name__}")
    missing = [c for c in PER_QUERY_COLUMNS if c not in per_query.columns]
    if missing:
        raise InputError(f"per-query scores lack columns {missing} (found {list(per_query.columns)}); give the "
                         "frame of pt.Experiment(perquery=True) or the file of ir-cwla eval -q --format csv")
    frame = per_query[list(PER_QUERY_COLUMNS)].astype({"name": str, "qid": str, "measure": str})
    try:
        frame["value"] = pd.to_numeric(frame["value"]).astype("float64")
    except (ValueError, TypeError) as ex:
        raise InputError(f"per-query scores: column 'value' is not numeric ({ex})") from None
    if len(frame) == 0:
        raise DataError("per-query scores hold no row")
    return frame.sort_values(["name", "measure", "qid"], kind="stable").reset_index(drop=True)


def accuracy_measure(measures: list[str], column: str, fallback: bool = True) -> Optional[str]:
    """The measure of ``measures`` (as a per-query frame names them) that the accuracy ``column`` holds.

    That is the measure of the same name; else the same measure read by
    :func:`ir_cwla.parse_measure` (the short ``RBP_ERG@10`` and ``CWLA(C='RBP',A='ERG')@10`` are
    one); else, with ``fallback``, when the column is not named after a measure (``accuracy``) and
    there is one measure, that one; else None.
    """
    if column in measures:
        return column
    from ir_cwla.measures import parse_measure

    def parsed(name: str) -> Any:
        try:
            return parse_measure(name)
        except (ValueError, SyntaxError, TypeError):
            return None

    wanted = parsed(column)
    if wanted is None:
        return measures[0] if fallback and len(measures) == 1 else None
    return next((m for m in measures if parsed(m) == wanted), None)


def _measures(accuracy: Any) -> list[Any]:
    """Accuracy measures from objects or names (read by :func:`ir_cwla.parse_measure`)."""
    import ir_measures

    from ir_cwla.measures import parse_measure

    items = [accuracy] if isinstance(accuracy, (str, ir_measures.Measure)) else list(accuracy)
    if not items:
        raise ParameterError("give at least one accuracy measure")
    measures = [parse_measure(m) if isinstance(m, str) else m for m in items]
    for m in measures:
        if not isinstance(m, ir_measures.Measure):
            raise ArgumentTypeError(f"accuracy must be an ir-measures measure or its name, got {m!r}")
    return measures


def _read_environment(meta: Path) -> tuple[dict, Optional[str]]:
    """The roles' columns and the per-topic file that :meth:`Leaderboard.save` named in ``environment.json``.

    A file that is not what ``save()`` writes (not UTF-8 JSON, not an object, ``columns`` not a
    mapping of roles to column names, ``per_query`` not a file name) is an :class:`InputError`
    that says which.
    """
    why = "what Leaderboard.save() writes beside results.csv; fix it or move it away"
    try:
        written = json.loads(meta.read_text(encoding="utf-8"))
    except UnicodeDecodeError as ex:
        raise InputError(f"{meta} is not UTF-8 text (byte {ex.object[ex.start]:#x} at offset {ex.start}): "
                         f"expected {why}") from None
    except ValueError as ex:
        raise InputError(f"{meta} is not JSON ({' '.join(str(ex).split())}): expected {why}") from None
    if not isinstance(written, dict):
        raise InputError(f"{meta} holds a JSON {type(written).__name__}, not an object: expected {why}")
    columns = written.get("columns") or {}
    if not isinstance(columns, dict) or not all(isinstance(k, str) and isinstance(v, (str, type(None)))
                                                for k, v in columns.items()):
        raise InputError(f"{meta}: 'columns' must map roles to column names, got {json.dumps(columns)[:80]}: "
                         f"expected {why}")
    scores = written.get("per_query")
    if scores is not None and not isinstance(scores, str):
        raise InputError(f"{meta}: 'per_query' must be a file name, got {json.dumps(scores)[:80]}: expected {why}")
    return dict(columns), scores


def _read_saved_per_query(path: Path) -> pd.DataFrame:
    """The ``per_query.csv`` that :meth:`Leaderboard.save` wrote (names, topics and measures as text)."""
    try:
        frame = pd.read_csv(path, dtype={"name": str, "qid": str, "measure": str}, keep_default_na=False,
                            na_values={"value": ["", "nan", "NaN"]})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as ex:
        raise InputError(f"malformed per-query file {path}: {' '.join(str(ex).split())}") from None
    missing = [c for c in PER_QUERY_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"per-query file {path} lacks columns {missing} (found {list(frame.columns)})")
    for column in ("name", "qid", "measure"):
        frame[column] = frame[column].map(csv_unescape)
    return frame


class Leaderboard:
    """Systems with their accuracy, latency and cost, and the ways to rank them.

    ``results`` has one row per system (index ``name``). ``columns`` maps each of the
    dimensions ``accuracy``, ``latency``, ``cost`` to the column that plays it.
    ``directions`` overrides the direction (+1 larger is better, -1 smaller is better) of
    any column; by default columns whose names start with latency, cost, usd or memory
    are -1 and all others +1.
    """

    def __init__(self, results: pd.DataFrame, columns: Optional[Mapping[str, str]] = None,
                 directions: Optional[Mapping[str, int]] = None, environment: Optional[dict] = None,
                 latencies: Optional[dict[str, LatencyResult]] = None,
                 throughputs: Optional[dict[str, ThroughputResult]] = None,
                 per_query: Optional[pd.DataFrame] = None):
        self.results = results
        self.columns = {alias: alias for alias in ALIASES}
        self.columns.update(columns or {})
        for alias, column in self.columns.items():
            if column not in results.columns:
                raise DataError(f"{alias} column {column!r} not in the results (columns: {list(results.columns)})")
        if results.index.has_duplicates:
            raise DataError(f"system names must be unique: {shown(list(dict.fromkeys(results.index[results.index.duplicated()])))} "
                             "appear more than once")
        self._check_values()
        self.directions = dict(directions or {})
        self.environment = environment or {}
        self.latencies = latencies or {}
        self.throughputs = throughputs or {}
        #: Per-topic scores (``name, qid, measure, value``) of the accuracy measure(s), or None.
        self.per_query = None if per_query is None else self._check_per_query(per_query)

    def _check_per_query(self, per_query: Any) -> pd.DataFrame:
        """``per_query`` checked against the board; a :class:`DataError` names what differs.

        It must have the same systems, the accuracy measure among its measures, and the mean of
        every system's per-topic scores equal to its accuracy (to :data:`MEAN_TOLERANCE`).
        """
        frame = _per_query_frame(per_query)
        board_names = [str(n) for n in self.results.index]
        found = list(dict.fromkeys(frame["name"]))
        only_scores = sorted(set(found) - set(board_names))
        only_board = sorted(set(board_names) - set(found))
        if only_scores or only_board:
            parts = ([f"only in the per-query scores: {shown(only_scores[:5])}"] if only_scores else []) + \
                    ([f"only in the board: {shown(only_board[:5])}"] if only_board else [])
            raise DataError("the board and its per-query scores name different systems (" + "; ".join(parts) +
                            "); give the per-query scores of the board's systems, named as in the board")
        measures = list(dict.fromkeys(frame["measure"]))
        measure = accuracy_measure(measures, self.measure)
        if measure is None:
            raise DataError(f"the per-query scores have no scores of the accuracy measure {self.measure!r} (they have "
                            f"{', '.join(measures[:6])}{', ...' if len(measures) > 6 else ''}); name the accuracy "
                            "column after the measure of the scores, or give the scores of the accuracy measure")
        means = frame[frame["measure"] == measure].groupby("name", sort=True)["value"].agg(["mean", "size"])
        accuracy = self.results[self.measure]
        for name, value in zip(board_names, accuracy.to_numpy(dtype=float)):
            if name not in means.index:
                raise DataError(f"the per-query scores have no {measure} score of system {shown(name)}")
            mean, size = means.loc[name, "mean"], int(means.loc[name, "size"])
            if not abs(mean - value) <= MEAN_TOLERANCE * max(1.0, abs(mean)):
                raise DataError(f"{self.measure} of system {shown(name)} is {value:.6g} on the board but the mean of "
                                f"its per-query {measure} scores is {mean:.6g} ({size} topics): the scores are not "
                                "those of the board's accuracy")
        return frame

    def with_per_query(self, per_query: Optional[pd.DataFrame]) -> Leaderboard:
        """The same board with the per-topic scores ``per_query``, checked as in :meth:`from_frame`.

        ``per_query=None`` gives the board without any per-topic scores.
        """
        return Leaderboard(self.results, columns=self.columns, directions=self.directions,
                           environment=self.environment, latencies=self.latencies, throughputs=self.throughputs,
                           per_query=per_query)

    def accuracy_per_query(self) -> Optional[pd.DataFrame]:
        """The per-topic scores of the accuracy measure (``name, qid, measure, value``), or None.

        None when the board has none: a board from numbers without ``per_query=``, or an accuracy
        column switched to one without per-topic scores.
        """
        if self.per_query is None:
            return None
        measure = accuracy_measure(list(dict.fromkeys(self.per_query["measure"])), self.measure)
        if measure is None:
            return None
        return self.per_query[self.per_query["measure"] == measure].reset_index(drop=True)

    def _check_values(self) -> None:
        """Accuracy, latency and cost finite for every system; no resource column negative."""
        frame = self.metrics()
        strategies._check_columns(frame, list(ALIASES))
        for column in frame.columns:
            values = frame[column].to_numpy(dtype=float)
            negative = np.flatnonzero(values < 0)
            if is_non_negative(column) and len(negative):
                raise DataError(f"{column} of system {shown(frame.index[negative[0]])} is {values[negative[0]]:g}; "
                                 "latency, cost, memory and throughput cannot be negative")

    # ------------------------------------------------------------------ construction

    @classmethod
    def run(cls, systems: Mapping[str, Any], topics: pd.DataFrame, qrels: pd.DataFrame, accuracy: Any,
            instance: Union[Instance, str, Mapping[str, Union[Instance, str]]], warmup: int = 10,
            repeats: int = 3, batch_size: Optional[int] = None, latency_stat: str = "p50",
            cost_basis: Literal["throughput", "latency"] = "throughput", verbose: bool = False,
            progress: bool = False, log: Optional[Callable[[str], None]] = None) -> Leaderboard:
        """Runs every system on ``topics`` and measures accuracy, latency, throughput and cost.

        First, each system runs once over all topics, untimed, and its output is scored
        with ``accuracy`` against ``qrels`` by ``pt.Experiment`` (this also warms it up).
        Then ``repeats`` rounds; in each round every system in turn gets one timed
        throughput pass (:func:`~.timing.measure_throughput`: all topics in batches of
        ``batch_size``, after one untimed batch from the second round on) and one latency
        pass (:func:`~.timing.measure_latency`: ``warmup`` untimed single queries, then
        every topic timed on its own). Interleaving the passes spreads a busy spell of the
        machine over all systems instead of penalising whichever ran during it.

        Parameters
        ----------
        systems : mapping
            Name -> PyTerrier transformer (or callable on a topics DataFrame).
        accuracy
            An ir-measures measure or its name, e.g. ``RR(rel=2)@10``, or a list of them (the
            first is the ``accuracy`` dimension).
        instance
            The :class:`~.cost.Instance` the systems run on (or its name in the bundled price
            table), or a mapping name -> instance, one per system.
        latency_stat : {'mean', 'p50', 'p95', 'p99'}
            Which latency statistic is the ``latency`` dimension.
        cost_basis : {'throughput', 'latency'}
            Which cost estimate is the ``cost`` dimension.
        verbose : bool
            Print every step (system and pass) on stdout.
        progress : bool
            A progress bar over the timed passes where stderr is a terminal.
        log : callable, optional
            Called with one line as each round of timed passes starts (the demo prints it on
            stderr: the longest step of the demo).
        """
        if not isinstance(systems, Mapping) or len(systems) < 2:
            raise DataError("a leaderboard needs a mapping of at least 2 named systems")
        if latency_stat not in LATENCY_STATS:
            raise ParameterError(f"latency_stat must be one of {list(LATENCY_STATS)}, got {latency_stat!r}")
        if cost_basis not in COST_BASES:
            raise ParameterError(f"cost_basis must be one of {list(COST_BASES)}, got {cost_basis!r}")
        measures = _measures(accuracy)
        if isinstance(instance, Mapping):
            missing = [name for name in systems if name not in instance]
            if missing:
                raise ParameterError(f"no instance given for system(s) {missing}")
            instances = {name: as_instance(instance[name]) for name in systems}
        else:
            one = as_instance(instance)
            instances = {name: one for name in systems}

        env = environment()                        # before measuring: the load average says how busy
        scores, per_topic = {}, []
        for name, system in systems.items():
            if verbose:
                print(f"[leaderboard] accuracy: {name}", flush=True)
            run = system.transform(topics) if hasattr(system, "transform") else system(topics)
            scores[name], topic_scores = _evaluate(run, topics, qrels, measures)
            per_topic.append(topic_scores.assign(name=str(name)))
        thr_parts: dict[str, list[ThroughputResult]] = {name: [] for name in systems}
        lat_parts: dict[str, list[LatencyResult]] = {name: [] for name in systems}
        from ir_cwla._progress import progress_bar

        bar = progress_bar(total=repeats * len(systems), progress=progress, desc="latency", unit="pass")
        for r in range(repeats):                   # passes interleaved: a busy spell hits every system
            if log is not None:
                log(f"timed pass {r + 1}/{repeats}: throughput and latency of {len(systems)} systems x "
                    f"{len(topics)} queries")
            for name, system in systems.items():
                if verbose:
                    print(f"[leaderboard] pass {r + 1}/{repeats}: throughput, latency: {name}", flush=True)
                thr_parts[name].append(measure_throughput(system, topics, batch_size=batch_size, repeats=1,
                                                          warmup=0 if r == 0 else 1))
                lat_parts[name].append(measure_latency(system, topics, warmup=warmup, repeats=1))
                bar.update(1)
        bar.close()
        rows, latencies, throughputs = [], {}, {}
        for name in systems:
            thr, lat = ThroughputResult.concat(thr_parts[name]), LatencyResult.concat(lat_parts[name])
            stats, inst = lat.summary(), instances[name]
            rows.append({
                "name": name, **scores[name],
                "latency_mean_ms": stats["mean_ms"], "latency_p50_ms": stats["p50_ms"],
                "latency_p95_ms": stats["p95_ms"], "latency_p99_ms": stats["p99_ms"],
                "qps": thr.qps, "instance": inst.name, "usd_per_hour": inst.usd_per_hour,
                "usd_per_1M_q_from_qps": float(usd_per_million_queries(thr.qps, inst.usd_per_hour)),
                "usd_per_q_from_latency": float(usd_per_query(stats["mean_ms"], inst.usd_per_hour)),
            })
            latencies[name], throughputs[name] = lat, thr
        results = pd.DataFrame(rows).set_index("name")
        env["load_average_after_1_5_15min"] = environment()["load_average_1_5_15min"]
        env["protocol"] = {"warmup": warmup, "repeats": repeats, "batch_size": batch_size or len(topics),
                           "n_topics": len(topics), "latency_stat": latency_stat, "cost_basis": cost_basis,
                           "accuracy": [str(m) for m in measures],
                           "instances": {n: i.as_dict() for n, i in instances.items()}}
        columns = {"accuracy": str(measures[0]), "latency": LATENCY_STATS[latency_stat],
                   "cost": COST_BASES[cost_basis]}
        per_query = pd.concat(per_topic, ignore_index=True)[list(PER_QUERY_COLUMNS)]
        return cls(results, columns=columns, environment=env, latencies=latencies, throughputs=throughputs,
                   per_query=per_query)

    @classmethod
    def from_frame(cls, df: pd.DataFrame, accuracy: str = "accuracy", latency: str = "latency",
                   cost: str = "cost", name: Optional[str] = None,
                   directions: Optional[Mapping[str, int]] = None,
                   per_query: Optional[pd.DataFrame] = None) -> Leaderboard:
        """A board from numbers already measured (e.g. a paper's table): one row per system.

        ``accuracy``, ``latency`` and ``cost`` name the columns that play those roles; the
        system names are the index, or the column ``name``. Other numeric columns (memory,
        throughput, ...) can be weighted too; give their ``directions`` (default +1, -1 for
        names starting with latency, cost, usd or memory).

        Parameters
        ----------
        per_query : pandas.DataFrame, optional
            The per-topic scores of the accuracy measure (long frame ``name, qid, measure,
            value``), for the rank intervals; checked: the same systems as the board (else a
            :class:`DataError` naming the difference), the accuracy measure among its measures
            (found by :func:`accuracy_measure`), and each system's mean equal to its accuracy to
            within :data:`MEAN_TOLERANCE` x max(1, |mean|).
        """
        if not isinstance(df, pd.DataFrame):
            raise ArgumentTypeError(f"expected a DataFrame, got {type(df).__name__}")
        results = df.set_index(name) if name is not None else df.copy()
        if len(results) < 2:
            raise DataError(f"a leaderboard needs at least 2 systems, got {len(results)}")
        return cls(results, columns={"accuracy": accuracy, "latency": latency, "cost": cost}, directions=directions,
                   per_query=per_query)

    @classmethod
    def read_csv(cls, path: Union[str, os.PathLike], accuracy: Optional[str] = None, latency: Optional[str] = None,
                 cost: Optional[str] = None, name: Optional[str] = None,
                 per_query: Optional[pd.DataFrame] = None) -> Leaderboard:
        """A board from a CSV file: one row per system, a name column and numeric columns.

        Columns not given are found the way the project writes them: the ``columns`` of an
        ``environment.json`` beside the file (what :meth:`save` writes, so the demo's
        ``leaderboard/results.csv`` needs no arguments); else columns named ``accuracy``,
        ``latency``, ``cost``; else a measured board's ``latency_p50_ms``,
        ``usd_per_1M_q_from_qps`` (or ``latency_ms``, ``usd``) and its first other numeric
        column as accuracy; a role no column plays is an :class:`InputError` that says how to
        name it. ``name`` defaults to the column ``name``, else the first column; system names
        are read as text, whatever they look like (``1.10``, ``+3``, ``NA``).

        Parameters
        ----------
        per_query : pandas.DataFrame, optional
            Per-topic scores of the accuracy measure, checked as in :meth:`from_frame`. Without
            it, the per-topic scores :meth:`save` wrote beside the file (``per_query.csv``, named
            in ``environment.json``) are read, and kept if they hold the accuracy measure.
        """
        path = Path(path)
        if path.is_dir():
            inside = " (board.save() wrote results.csv inside it: give that)" if (path / "results.csv").is_file() else ""
            raise InputError(f"{path} is a directory, not a CSV file{inside}")
        if not path.is_file():
            raise MissingFileError(2, "CSV file not found", str(path))
        try:
            head = pd.read_csv(path, nrows=0)
            columns = [csv_unescape(str(c)) for c in head.columns]
            name = name or ("name" if "name" in columns else (columns[0] if columns else "name"))
            if name not in columns:
                raise InputError(f"{path}: no column {name!r} (columns: {', '.join(columns)})")
            # system names are text, always: 1.10 stays 1.10 (not 1.1), +3 stays +3, NA stays NA
            raw = str(head.columns[columns.index(name)])
            df = pd.read_csv(path, dtype={raw: str}, keep_default_na=False,
                             na_values={str(c): list(_NA_STRINGS) for c in head.columns if str(c) != raw})
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as ex:
            raise InputError(f"malformed CSV file {path}: {' '.join(str(ex).split())}") from None
        df.columns = columns
        df[name] = df[name].map(csv_unescape)          # board.save() escapes names a spreadsheet would run
        empty = [i for i, v in enumerate(df[name]) if not v.strip()]
        if empty:
            raise InputError(f"{path}:{empty[0] + 2}: empty system name in column {name!r}; every system needs one")
        saved: dict = {}
        saved_scores: Optional[str] = None
        meta = path.with_name("environment.json")
        if meta.is_file():
            saved, saved_scores = _read_environment(meta)
        found: dict[str, Any] = {"accuracy": accuracy, "latency": latency, "cost": cost}
        defaults = {"latency": [LATENCY_STATS["p50"], "latency_ms"], "cost": [COST_BASES["throughput"], "usd"]}
        known = set(LATENCY_STATS.values()) | set(COST_BASES.values()) | {"qps", "usd_per_hour", name}
        numeric = [c for c in df.select_dtypes("number").columns if c not in known]
        for alias in ALIASES:
            if found[alias] is None:
                candidates = [saved.get(alias), alias, *defaults.get(alias, [])]
                if alias == "accuracy" and numeric:
                    candidates.append(numeric[0])
                candidates = [c for c in dict.fromkeys(candidates) if c is not None]
                hit = next((c for c in candidates if c in df.columns), None)
                if hit is None:
                    raise InputError(f"{path}: no {alias} column (looked for {', '.join(map(repr, candidates))}; "
                                     f"columns: {', '.join(map(str, df.columns))}); name it with --{alias} COLUMN "
                                     f"(read_csv({alias}=...) in Python)")
                found[alias] = hit
            elif found[alias] not in df.columns:
                raise InputError(f"{path}: no column {found[alias]!r} for {alias} "
                                 f"(columns: {', '.join(map(str, df.columns))})")
        if per_query is None and isinstance(saved_scores, str) and path.with_name(saved_scores).is_file():
            scores = _read_saved_per_query(path.with_name(saved_scores))
            if accuracy_measure(list(dict.fromkeys(scores["measure"])), found["accuracy"]) is not None:
                per_query = scores
        return cls.from_frame(df, name=name, per_query=per_query, **found)

    # ------------------------------------------------------------------ views

    @property
    def measure(self) -> str:
        """Name of the column that plays accuracy (the measure, for a measured board)."""
        return self.columns["accuracy"]

    def _column_of(self, measure: Any) -> str:
        """The column of a measure given as a column name, a measure name or a measure object."""
        if isinstance(measure, str) and measure in self.results.columns:
            return measure
        from ir_cwla.measures import parse_measure

        try:
            return str(parse_measure(measure))
        except (ValueError, SyntaxError, TypeError):
            return str(measure)

    def using(self, accuracy: Optional[str] = None, latency: Optional[str] = None,
              cost: Optional[str] = None) -> Leaderboard:
        """The same measurements with other columns in the roles of accuracy, latency or cost.

        ``accuracy`` names a measure (string or object) or column; ``latency`` and ``cost`` also accept the short names of :meth:`run`
        (``'mean'``, ``'p95'``, ...; ``'throughput'``, ``'latency'``). Nothing is re-run.
        """
        columns = dict(self.columns)
        if accuracy is not None:
            columns["accuracy"] = self._column_of(accuracy)
        if latency is not None:
            columns["latency"] = LATENCY_STATS.get(latency, latency)
        if cost is not None:
            columns["cost"] = COST_BASES.get(cost, cost)
        per_query = self.per_query
        if per_query is not None and columns["accuracy"] != self.columns["accuracy"] and \
                accuracy_measure(list(dict.fromkeys(per_query["measure"])), columns["accuracy"], fallback=False) is None:
            per_query = None                    # no per-topic scores of the new accuracy column
        return Leaderboard(self.results, columns=columns, directions=self.directions,
                           environment=self.environment, latencies=self.latencies, throughputs=self.throughputs,
                           per_query=per_query)

    def metrics(self) -> pd.DataFrame:
        """The numeric columns, with ``accuracy``, ``latency`` and ``cost`` under those names.

        This is the view the rankings are computed on; what they return carries the board's own
        column names (:meth:`named`).
        """
        numeric = self.results.select_dtypes("number")
        out = pd.DataFrame({alias: self.results[col] for alias, col in self.columns.items()},
                           index=self.results.index)
        extra = numeric.drop(columns=[c for c in self.columns.values() if c in numeric.columns])
        return pd.concat([out, extra.drop(columns=[c for c in ALIASES if c in extra.columns])], axis=1)

    def named(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` (of :meth:`metrics`' columns) with its roles named as the board's columns are.

        ``accuracy``, ``latency`` and ``cost`` get the board's names (``nDCG@10``,
        ``latency_p50_ms``, ...): the rankings keep the names the user gave.
        """
        renamed = frame.rename(columns=dict(self.columns))
        out = renamed.loc[:, ~renamed.columns.duplicated()]       # one column playing two roles: once
        out.attrs = dict(frame.attrs)
        return out

    def role_of(self, name: str) -> str:
        """``name`` as :meth:`metrics` calls it.

        A role stays as it is (``accuracy``), the column playing one becomes the role (``nDCG@10``
        -> ``accuracy``), and another column stays as it is.
        """
        if name in self.columns:
            return name
        roles = [alias for alias, column in self.columns.items() if column == name]
        return roles[0] if roles else name

    def _weights(self, weights: Optional[Mapping[str, float]]) -> dict[str, float]:
        """Weights keyed by roles or by the board's column names, as :meth:`metrics` names them."""
        out: dict[str, float] = {}
        for key, weight in dict(weights or DEFAULT_WEIGHTS).items():
            alias = self.role_of(str(key))
            if alias in out:
                raise ParameterError(f"weight given twice for {alias} ({key!r} is the {alias} column)")
            out[alias] = weight
        return out

    def _directions(self, frame: pd.DataFrame) -> dict[str, int]:
        found = {c: default_direction(c) for c in frame.columns}     # roles: latency and cost -1, accuracy +1
        found.update({self.role_of(k): v for k, v in self.directions.items() if self.role_of(k) in frame.columns})
        return found

    def dynascore_inputs(self, weights: Optional[Mapping[str, float]] = None
                         ) -> tuple[pd.DataFrame, dict[str, float], dict[str, int]]:
        """What :meth:`dynascore` computes on: the metrics frame, the weights and the directions.

        The frame is that of :meth:`metrics` (roles ``accuracy``, ``latency``, ``cost`` and the other
        numeric columns); the weights and directions are keyed as its columns are. For
        :func:`ir_cwla.comparison.dynascore_rank_uncertainty`, with ``perf='accuracy'``.
        """
        frame = self.metrics()
        return frame, self._weights(weights), self._directions(frame)

    def dynascore(self, weights: Optional[Mapping[str, float]] = None,
                  offsets: Optional[Mapping[str, float]] = None, **kwargs) -> pd.DataFrame:
        """Dynascore ranking (default weights ``{accuracy: 0.5, cost: 0.25, latency: 0.25}``).

        Weights name the dimensions ``accuracy``, ``latency``, ``cost`` or the columns that play
        them, or any other numeric column. Returns the numeric columns (under the board's own
        names) with ``dynascore`` and ``rank``, best first; ``attrs['amrs']`` and
        ``attrs['weights']`` are keyed by those names too.
        """
        frame = self.metrics()
        offsets = {self.role_of(k): v for k, v in dict(offsets or {}).items()}
        scores = dynascore(frame, weights=self._weights(weights), directions=self._directions(frame),
                           offsets=offsets or None, perf="accuracy", **kwargs)
        out = self.named(scores)
        for key in ("amrs", "weights"):
            out.attrs[key] = {self.columns.get(k, k): v for k, v in scores.attrs.get(key, {}).items()}
        return out

    def table(self, weights: Optional[Mapping[str, float]] = None) -> pd.DataFrame:
        """All results with ``dynascore`` and ``rank`` columns, best Dynascore first."""
        scores = self.dynascore(weights)
        out = self.results.loc[scores.index].copy()
        out["dynascore"] = scores["dynascore"]
        out["rank"] = scores["rank"]
        out.attrs = dict(scores.attrs)
        return out

    def within_budget(self, latency: Optional[float] = None, cost: Optional[float] = None,
                      by: str = "accuracy") -> pd.DataFrame:
        """Strategy 1: systems with latency <= ``latency`` and cost <= ``cost``, by accuracy.

        ``by`` (a role or a column) orders them. Columns under the board's own names; no system
        within the budget gives an empty frame.
        """
        budget = {k: v for k, v in {"latency": latency, "cost": cost}.items() if v is not None}
        return self.named(strategies.rank_within_budget(self.metrics(), budget, by=self.role_of(by)))

    def above_accuracy(self, min_accuracy: float, by: str = "cost") -> pd.DataFrame:
        """Strategy 2: systems with accuracy >= ``min_accuracy``, best ``by`` first.

        ``by`` is cost/latency, or a column. Columns under the board's own names.
        """
        frame = self.metrics()
        by = self.role_of(by)
        return self.named(strategies.rank_above_accuracy(frame, min_accuracy, by=by,
                                                         ascending=self._directions(frame).get(by, 1) < 0))

    def pareto(self, x: str = "latency") -> pd.DataFrame:
        """Systems no other system beats on both accuracy and ``x``.

        ``x`` is latency or cost, or their columns. Columns under the board's own names.
        """
        return self.named(strategies.pareto_frontier(self.metrics(), x=self.role_of(x), y="accuracy"))

    def winner_map(self, metrics: tuple[str, ...] = ("accuracy", "latency", "cost"),
                   step: float = 0.02) -> pd.DataFrame:
        """The Dynascore winner for every weighting on a ``step`` grid over the simplex."""
        frame = self.metrics()
        return winner_map(frame, metrics=metrics, directions=self._directions(frame), step=step)

    def per_query_latency(self) -> pd.DataFrame:
        """Every timed call: ``name, qid, pass, ms`` (measured boards only)."""
        if not self.latencies:
            raise DataError("this board was built from precomputed numbers; no per-query times")
        return pd.concat([r.per_query().assign(name=n) for n, r in self.latencies.items()],
                         ignore_index=True)[["name", "qid", "pass", "ms"]]

    # ------------------------------------------------------------------ figures

    def _label(self, alias: str) -> str:
        column = self.columns[alias]
        return column if alias == "accuracy" or column == alias else f"{alias} ({column})"

    def plot_frontier(self, x: str = "latency", ax: Any = None, **kwargs) -> Any:
        """Accuracy against latency (or ``x='cost'``) with the Pareto frontier."""
        return plots.plot_frontier(self.metrics(), x=x, y="accuracy", ax=ax, xlabel=self._label(x),
                                   ylabel=self._label("accuracy"), **kwargs)

    def plot_weight_map(self, step: float = 0.01, ax: Any = None, **kwargs) -> Any:
        """Which system wins for each weighting (Santhanam et al. 2023, Fig. 2(a))."""
        return plots.plot_weight_map(self.winner_map(step=step), x="latency", y="accuracy", ax=ax, **kwargs)

    # ------------------------------------------------------------------ output

    def save(self, directory: str) -> None:
        """Writes the board to ``directory``, for :meth:`read_csv` to read back.

        The files are ``results.csv``, ``environment.json``, (if measured)
        ``latency_per_query.csv`` and (with per-topic scores) ``per_query.csv``; :meth:`read_csv`
        of ``results.csv`` reads the board back, per-topic scores included.
        """
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        csv_safe(self.results).to_csv(out / "results.csv")
        meta: dict[str, Any] = {"measure": self.measure, "columns": self.columns, "environment": self.environment}
        if self.per_query is not None:
            meta["per_query"] = "per_query.csv"
            csv_safe(self.per_query).to_csv(out / "per_query.csv", index=False)
        (out / "environment.json").write_text(json.dumps(meta, indent=2, default=str))
        if self.latencies:
            self.per_query_latency().to_csv(out / "latency_per_query.csv", index=False)

    def __repr__(self) -> str:
        cols = ", ".join(f"{k}={v!r}" for k, v in self.columns.items())
        return f"Leaderboard({len(self.results)} systems; {cols})"
