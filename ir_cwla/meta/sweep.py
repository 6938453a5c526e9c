"""Bulk meta-evaluation: many measures, parameter grids and several collections in one call.

``sweep(runs, qrels, measures, criteria)`` evaluates every run of every collection under every
measure (one task per run file and block of measures) and runs the requested criteria
(:data:`ir_cwla.meta.CRITERIA`) on each collection, all on one executor (in-process,
``n_jobs`` local processes, or a Dask cluster). :func:`grid` builds the measures of a
parameter grid::

    measures = meta.grid(CWLA, C="RBP", A=["ERG", "ETG", "avg", "max", "fin", "PE"],
                         p=[0.5, 0.6, 0.7, 0.8, 0.9], cutoff=10)
    result = meta.sweep({"dl19": runs19, "dl20": runs20}, {"dl19": qrels19, "dl20": qrels20},
                        measures, ["consistency", "discriminative_power"], scheduler="tcp://host:8786")
    result.table()
"""
from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import pandas as pd

from ir_cwla.analysis import naming
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups
from ir_cwla.errors import IrCwlaDeprecationWarning, ParameterError
from ir_cwla.meta import criteria as _criteria
from ir_cwla.meta.evaluation import evaluate_collections

Criteria = Union[None, Sequence[str], Mapping[str, Mapping[str, Any]]]


def grid(measure: Any, *, skip_invalid: bool = True, **params: Any) -> list[Any]:
    """The measures of a parameter grid: ``measure(**p)`` for every combination ``p`` of ``params``.

    A parameter given as a list (or tuple, range, array) is varied, a scalar is fixed; the
    order is that of ``itertools.product`` over the parameters in the order given.
    Combinations the measure rejects (e.g. ``CWLA(C='RBP', A='ERR')``, constant) are skipped,
    or raise if ``skip_invalid=False``.
    """
    names = list(params)
    values = [list(v) if isinstance(v, Iterable) and not isinstance(v, str) else [v] for v in params.values()]
    out = []
    for combo in itertools.product(*values):
        kwargs = {k: (v.item() if hasattr(v, "item") else v) for k, v in zip(names, combo)}
        try:      # (a C/W/L/A measure refuses a bad combination when it is made; others when validated)
            m = measure(**kwargs)
            m.validate_params()
        except ValueError:
            if not skip_invalid:
                raise
            continue
        out.append(m)
    if not out:
        raise ParameterError(f"the grid {params} has no valid measure")
    return out


@dataclass
class Sweep:
    """Per-query frames and criteria results, per collection.

    ``results[criterion][collection]`` is a criterion's result (``result.consistency`` is
    ``results['consistency']``, for every criterion), ``summaries`` the same for their summary tables.
    """

    per_query: dict[Hashable, pd.DataFrame]
    results: dict[str, dict[Hashable, Any]] = field(default_factory=dict)
    summaries: dict[str, dict[Hashable, pd.DataFrame]] = field(default_factory=dict)

    def __getattr__(self, name: str) -> dict[Hashable, Any]:
        if name in _criteria.CRITERIA:
            return self.__dict__.get("results", {}).get(name, {})
        raise AttributeError(f"'Sweep' object has no attribute {name!r}")

    def table(self) -> pd.DataFrame:
        """One row per collection and measure (in the measure order, named by its label, the short name).

        The summary tables of the criteria that have one row per measure, side by side (a column that
        two criteria both have and that differs is prefixed with the criterion's name).
        """
        rows = []
        for key, frame in self.per_query.items():
            names = naming.measure_order(frame["measure"].astype(str))
            part = pd.DataFrame({"collection": key, "measure": [naming.label(n) for n in names]})
            for name, by_collection in self.summaries.items():
                if not _criteria.CRITERIA[name].per_measure or key not in by_collection:
                    continue
                summary = by_collection[key].drop_duplicates("measure")
                indexed = part.set_index("measure")
                for c in [c for c in summary.columns if c in part.columns and c != "measure"]:
                    same = indexed[c].reindex(summary["measure"]).tolist() == summary[c].tolist()
                    summary = summary.drop(columns=c) if same else summary.rename(columns={c: f"{name}_{c}"})
                part = part.merge(summary, on="measure", how="left")
            rows.append(part)
        return pd.concat(rows, ignore_index=True)


def _is_collections(runs: Any, qrels: Any) -> bool:
    """Several collections: both are mappings with the same keys, qrels' values being qrels inputs."""
    if not (isinstance(qrels, Mapping) and isinstance(runs, Mapping)) or not qrels:
        return False
    return set(qrels) == set(runs) and all(isinstance(v, (str, os.PathLike, pd.DataFrame)) for v in qrels.values())


def _looks_like_qrels(x: Any) -> bool:
    """A qrels input rather than runs: a frame with grades, or a file (not a directory) of 4 fields a line."""
    if isinstance(x, pd.DataFrame):
        return bool({"relevance", "label"} & set(x.columns))
    if isinstance(x, (str, os.PathLike)) and os.path.isfile(x):
        try:
            from ir_cwla import io

            with io.open_input(x, "qrels") as (stream, _, _):
                first = next((line for line in stream.read(1 << 16).splitlines() if line.strip()), b"")
            return len(first.split()) == 4
        except (OSError, ValueError):
            return False
    return False


def _swapped(runs: Any, qrels: Any) -> bool:
    if isinstance(runs, Mapping) and isinstance(qrels, Mapping) and set(runs) == set(qrels) and runs:
        return all(_looks_like_qrels(v) for v in runs.values()) and not any(_looks_like_qrels(v) for v in qrels.values())
    return _looks_like_qrels(runs) and not _looks_like_qrels(qrels)


def sweep(runs: Any, qrels: Any, measures: Sequence[Any], criteria: Criteria = None, *,
          groups: Groups = None, seed: int = 0, alpha: float = 0.05, executor: Any = None,
          n_jobs: Optional[int] = None, scheduler: Optional[str] = None, progress: bool = True,
          analyses: Criteria = None) -> Sweep:
    """Evaluates and meta-evaluates many measures on one or several collections at once.

    Parameters
    ----------
    runs, qrels : runs and qrels inputs
        One collection as for :func:`ir_cwla.meta.evaluate` (the same order: runs first), or
        several as two mappings with the same keys, ``{collection: runs}`` and ``{collection: qrels}``.
    measures : sequence of measures
        ir-measures measures (e.g. from :func:`grid` or ``ir_cwla.table1()``).
    criteria : sequence of str or mapping, optional
        Names among :data:`ir_cwla.meta.CRITERIA`, or a mapping from those names to keyword
        arguments (e.g. ``{'consistency': {'trials': 500}}``); default: every criterion that
        needs only the per-query frames (similarity, consistency, discriminative power, ...).
    groups, seed, alpha : shared settings
        Passed to every criterion (:class:`ir_cwla.meta.Inputs`).
    executor, n_jobs, scheduler : executor
        One executor for evaluation and criteria (default in-process).
    progress : bool
        Show progress bars.
    analyses : deprecated
        The old name of ``criteria`` (a :class:`~ir_cwla.errors.IrCwlaDeprecationWarning`).

    Returns
    -------
    Sweep
        Per-query frames, and every criterion's result per collection.
    """
    if analyses is not None:
        warnings.warn("sweep(analyses=...) is now sweep(criteria=...)", IrCwlaDeprecationWarning, stacklevel=2)
        criteria = analyses
    if _swapped(runs, qrels):
        warnings.warn("sweep(qrels, runs, ...) takes the runs first now, as meta.evaluate and the robustness "
                      "criteria do: sweep(runs, qrels, measures, ...)", IrCwlaDeprecationWarning, stacklevel=2)
        runs, qrels = qrels, runs
    if isinstance(criteria, str):
        criteria = [criteria]
    if criteria is None:
        criteria = [n for n, c in _criteria.CRITERIA.items() if not c.needs and not c.needs_any]
    options = ({name: {} for name in criteria} if not isinstance(criteria, Mapping)
               else {name: dict(o) for name, o in criteria.items()})
    unknown = sorted(set(options) - set(_criteria.CRITERIA))
    if unknown:
        raise ParameterError(f"unknown criteria {unknown}; choose among {list(_criteria.CRITERIA)}")
    for name, kwargs in options.items():           # every option checked before any work
        bad = sorted(set(kwargs) - {o.name for o in _criteria.CRITERIA[name].options})
        if bad:
            raise ParameterError(f"criterion {name!r} has no option {bad}; its options: "
                                 f"{[o.name for o in _criteria.CRITERIA[name].options]}")
        _criteria.options_of(name, kwargs, by="name")
    collections = ({k: (runs[k], qrels[k]) for k in qrels} if _is_collections(runs, qrels)
                   else {"collection": (runs, qrels)})
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    frames = evaluate_collections(collections, measures, workers, progress)
    result = Sweep(per_query=frames)
    for key, frame in frames.items():
        inputs = _criteria.Inputs(frame, list(measures), collections[key][0], collections[key][1], groups=groups,
                                 seed=seed, alpha=alpha, executor=workers, progress=progress)
        done = _criteria.run(list(options), inputs, options)
        for name in done.results:
            result.results.setdefault(name, {})[key] = done.results[name]
            result.summaries.setdefault(name, {})[key] = done.summaries[name]
    return result
