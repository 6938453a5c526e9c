"""Named sources of runs and qrels (``irds:ID``, ...) and the checks run on every qrels read.

The registries of :mod:`ir_cwla.io` (re-exported there: ``ir_cwla.io.register_source``), kept in
a module of their own that imports nothing heavy, so that ``import ir_cwla`` registers the
``irds:`` source and the raw-Cranfield check without loading pandas or the readers.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

if TYPE_CHECKING:
    import pandas as pd


Source = Callable[[str, str], "pd.DataFrame"]
"""A reader of a named source: ``reader(spec, kind)`` -> a frame, ``kind`` ``'run'`` or ``'qrels'``."""
SOURCES: dict[str, Source] = {}
"""Readers of named sources, by prefix: ``SOURCES['irds:'](spec, kind)`` with kind 'run' or 'qrels'."""

QrelsCheck = Callable[["pd.DataFrame", str, Optional[Sequence[Any]]], None]
"""A check run on every qrels read: ``check(qrels, source, measures)`` (see :func:`register_qrels_check`)."""
QRELS_CHECKS: dict[str, QrelsCheck] = {}
"""Checks run on every qrels frame, by name (see :func:`register_qrels_check`)."""

NEGATIVE_GRADE_CHECKS = frozenset({"ir_cwla.datasets.cranfield.warn_if_raw_grades"})
"""Registered checks that have nothing to say about qrels without a negative grade (the raw
Cranfield signature is a grade -1 in every topic): qrels read without pandas
(:func:`ir_cwla.app.evaluate.read_clean_files`) skip them, any other check sends the qrels
to the general reader."""


def _lazy(target: Union[str, Callable[..., Any]]) -> Callable[..., Any]:
    """``target``, or a function importing a ``'module:function'`` target on first call.

    ``target``, or for a ``'module:function'`` string a function that imports it on first call
    (so registering a hook imports nothing: ``import ir_cwla`` does not load ``ir_cwla.datasets``).
    """
    if not isinstance(target, str):
        return target
    module, _, name = target.partition(":")
    loaded: list[Callable[..., Any]] = []

    def call(*args: Any) -> Any:
        if not loaded:
            import importlib

            loaded.append(getattr(importlib.import_module(module), name))
        return loaded[0](*args)

    call.__module__, call.__qualname__ = module, name
    return call


def register_source(prefix: str, reader: Union[str, Source]) -> None:
    """Lets every run and qrels argument be a string ``PREFIX...`` read by ``reader(spec, kind)``.

    ``kind`` is ``'run'`` or ``'qrels'``; the reader returns a DataFrame with ir-measures (or
    PyTerrier) column names. ``reader`` may be a ``'module:function'`` string, imported when a
    spec is first read. ``import ir_cwla`` registers ``irds:`` this way
    (``'ir_cwla.datasets.irds:read_source'``), so the engine never needs to know about ir_datasets.
    """
    SOURCES[prefix] = _lazy(reader)


def register_qrels_check(check: Union[str, QrelsCheck]) -> None:
    """Runs ``check(qrels, source, measures)`` on every qrels read (after the rules above).

    ``qrels`` is the checked frame, ``source`` names it, ``measures`` are the measures it
    will be used with (None where unknown, e.g. inside the ir-measures provider). A check
    may warn or raise; it may be a ``'module:function'`` string, imported on the first qrels
    read. Registered under its qualified name, so registering again (or after
    ``importlib.reload``) replaces it. ``import ir_cwla`` registers the raw-Cranfield check
    this way.
    """
    check = _lazy(check)
    QRELS_CHECKS[f"{check.__module__}.{check.__qualname__}"] = check


def is_named_source(spec: Any) -> bool:
    """True if ``spec`` is a string read by a registered source (e.g. ``irds:ID``), not a file."""
    return isinstance(spec, str) and source_of(spec) is not None


def source_of(spec: str) -> Optional[Source]:
    """The reader registered for the prefix ``spec`` starts with, or None (``spec`` is a file)."""
    for prefix, reader in SOURCES.items():
        if spec.startswith(prefix):
            return reader
    return None
