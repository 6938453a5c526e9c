"""Bulk meta-evaluation: many measures, parameter grids and several collections in one call.

``sweep(qrels, runs, measures, analyses)`` evaluates every run of every collection under
every measure (one task per run file and block of measures) and runs the requested analyses
on each collection, all on one executor (in-process, ``n_jobs`` local processes, or a Dask
cluster). :func:`grid` builds the measures of a parameter grid::

    measures = meta.grid(CWLA, C="RBP", A=["ERG", "ETG", "avg", "max", "fin", "PE"],
                         p=[0.5, 0.6, 0.7, 0.8, 0.9], cutoff=10)
    result = meta.sweep({"dl19": qrels19, "dl20": qrels20}, {"dl19": runs19, "dl20": runs20},
                        measures, ["consistency", "discriminative_power"], scheduler="tcp://host:8786")
    result.table()
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import pandas as pd

from ir_cwla.errors import ParameterError
from ir_cwla.meta import naming
from ir_cwla.meta.consistency import Consistency, consistency
from ir_cwla.meta.discriminative_power import DiscriminativePower, discriminative_power
from ir_cwla.meta.evaluation import evaluate_collections
from ir_cwla.meta.executors import get_executor
from ir_cwla.meta.frame import Groups
from ir_cwla.meta.similarity import Similarity, similarity

ANALYSES = ("similarity", "consistency", "discriminative_power")
Analyses = Union[Sequence[str], Mapping[str, Mapping[str, Any]]]


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
        m = measure(**kwargs)
        try:
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
    """Per-query frames and analysis results, per collection."""

    per_query: dict[Hashable, pd.DataFrame]
    similarity: dict[Hashable, Similarity] = field(default_factory=dict)
    consistency: dict[Hashable, Consistency] = field(default_factory=dict)
    discriminative_power: dict[Hashable, DiscriminativePower] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """One row per collection and measure (in the canonical order): mean consistency tau and
        discriminative power."""
        rows = []
        for key, frame in self.per_query.items():
            part = pd.DataFrame({"measure": naming.canonical_order(frame["measure"].astype(str))})
            part.insert(0, "collection", key)
            if key in self.consistency:
                cons = self.consistency[key]
                part["label"] = part["measure"].map(cons.labels)
                part["group"] = part["measure"].map({m: g for g, ms in cons.groups.items() for m in ms})
                part["mean_tau"] = part["measure"].map(cons.mean_tau)
                beats = cons.outperforms()
                part["outperforms"] = part["measure"].map(lambda m, beats=beats: len(beats[m]))
            if key in self.discriminative_power:
                disc = self.discriminative_power[key]
                sig = disc.pairs.assign(sig=disc.pairs["p_value"] < disc.alpha).groupby("measure", sort=False)["sig"]
                part["label"] = part["measure"].map(disc.labels)
                part["group"] = part["measure"].map({m: g for g, ms in disc.groups.items() for m in ms})
                part["significant"] = part["measure"].map(sig.sum()).astype(int)
                part["share"] = part["measure"].map(sig.mean())
            rows.append(part)
        return pd.concat(rows, ignore_index=True)


def _is_collections(qrels: Any, runs: Any) -> bool:
    """Several collections: both are mappings with the same keys, qrels' values being qrels inputs."""
    if not (isinstance(qrels, Mapping) and isinstance(runs, Mapping)) or not qrels:
        return False
    return set(qrels) == set(runs) and all(isinstance(v, (str, os.PathLike, pd.DataFrame)) for v in qrels.values())


def sweep(qrels: Any, runs: Any, measures: Sequence[Any], analyses: Analyses = ANALYSES, *,
          groups: Groups = None, seed: int = 0, alpha: float = 0.05, executor: Any = None,
          n_jobs: Optional[int] = None, scheduler: Optional[str] = None, progress: bool = True) -> Sweep:
    """Evaluates and meta-evaluates many measures on one or several collections at once.

    Parameters
    ----------
    qrels, runs: one collection as for :func:`ir_cwla.meta.evaluate`, or several as two
        mappings with the same keys, ``{collection: qrels}`` and ``{collection: runs}``.
    measures: ir-measures measures (e.g. from :func:`grid` or ``ir_cwla.table1()``).
    analyses: names among ``'similarity'``, ``'consistency'``, ``'discriminative_power'``, or
        a mapping from those names to keyword arguments (e.g. ``{'consistency': {'trials': 500}}``).
    groups, seed, alpha: passed to every analysis (a mapping entry overrides them).
    executor, n_jobs, scheduler: one executor for evaluation and analyses (default in-process).
    """
    if isinstance(analyses, str):
        analyses = [analyses]
    options = {a: {} for a in analyses} if not isinstance(analyses, Mapping) else {a: dict(o) for a, o in analyses.items()}
    unknown = sorted(set(options) - set(ANALYSES))
    if unknown:
        raise ParameterError(f"unknown analyses {unknown}; choose among {list(ANALYSES)}")
    collections = ({k: (runs[k], qrels[k]) for k in qrels} if _is_collections(qrels, runs)
                   else {"collection": (runs, qrels)})
    run = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    frames = evaluate_collections(collections, measures, run, progress)
    result = Sweep(per_query=frames)
    for key, frame in frames.items():
        if "similarity" in options:
            result.similarity[key] = similarity(frame, **{"groups": groups, **options["similarity"]})
        if "consistency" in options:
            kwargs = {"groups": groups, "seed": seed, "alpha": alpha, **options["consistency"]}
            result.consistency[key] = consistency(frame, executor=run, progress=progress, **kwargs)
        if "discriminative_power" in options:
            kwargs = {"groups": groups, "seed": seed, "alpha": alpha, **options["discriminative_power"]}
            result.discriminative_power[key] = discriminative_power(frame, executor=run, progress=progress, **kwargs)
    return result
