"""The registries' one rule: what registering a browsing model or an aggregation sets off.

:func:`ir_cwla.register_browsing_model` and :func:`ir_cwla.register_aggregation` put their
entry in a table through :func:`add`, which then runs every listener registered with
:func:`on_change`: the measure's supported parameters, the ``MODEL_AGG`` names known to
ir-measures and the caches of parsed names are rebuilt from the tables, so a model
registered at any time (in a script, or by a plugin) is known everywhere at once. A
listener that refuses the new entry (e.g. its ``MODEL_AGG`` name collides with an
ir-measures measure) raises :class:`~ir_cwla.errors.RegistrationError`, and the table is
left as it was.

While a plugin loads (:mod:`ir_cwla.plugins` sets :data:`loading`), :func:`add` refuses to
replace a built-in entry (one registered by ir_cwla itself): a :class:`~ir_cwla.errors.PluginWarning`
names the plugin, and the built-in is kept (:func:`refused`).
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import MutableMapping
from typing import Any, Callable, TypeVar

from ir_cwla import plugins
from ir_cwla.errors import PluginWarning, RegistrationError

T = TypeVar("T")

#: Incremented by every change of a registry: caches derived from them compare it.
generation = 0

#: The tables whose changes the listeners follow (what measures are made of); another table
#: registered through :func:`add` (e.g. ``ir_cwla.meta.CRITERIA``) gets the same checks of its
#: names, but changes nothing a listener derives (and does not rebuild the ``MODEL_AGG`` names).
MEASURE_KINDS = ("browsing model", "aggregation")

_LISTENERS: list[Callable[[], None]] = []

#: ``(id(table), name)`` of every entry ir_cwla registered itself: what no plugin may replace.
_BUILT_IN: set[tuple[int, str]] = set()


def refused(table: MutableMapping[str, Any], kind: str, name: str, replace: bool, depth: int = 2) -> bool:
    """True (with a warning naming the plugin) if a plugin, loading, would replace the built-in ``name``.

    Otherwise records whether ``name`` is a built-in: registered from a module of ir_cwla (the
    caller of the caller of this function, ``depth`` frames up) or while no plugin loads.
    """
    loading = plugins.loading
    if loading is not None and replace and name in table and (id(table), name) in _BUILT_IN:
        warnings.warn(f"{loading} may not replace the built-in {kind} {name!r}: refused, the built-in is kept "
                      f"(a plugin adds {kind}s under names of its own)", PluginWarning, stacklevel=depth + 1)
        return True
    module = str(sys._getframe(depth).f_globals.get("__name__", ""))
    if loading is None or module == "ir_cwla" or module.startswith("ir_cwla."):
        _BUILT_IN.add((id(table), name))
        _TABLES.setdefault(id(table), (table, kind))
    return False


#: Every table holding a built-in, by id: what :func:`_guard` watches while a plugin loads.
_TABLES: dict[int, tuple[MutableMapping[str, Any], str]] = {}


def _guard() -> Callable[[str], list[str]]:
    """Before a plugin loads: the check that puts back every built-in it replaced or removed behind the registry's back."""
    kept = [(table, kind, dict(table)) for table, kind in _TABLES.values()]

    def check(where: str) -> list[str]:
        out = []
        for table, kind, before in kept:
            for key, entry in before.items():
                if table.get(key) is not entry and (id(table), key) in _BUILT_IN:
                    add(table, kind, key, entry, replace=True)
                    out.append(f"{where} changed the built-in {kind} {key!r}: refused, the built-in is kept "
                               f"(a plugin adds {kind}s under names of its own)")
        return out

    return check


plugins.GUARDS.append(_guard)


def on_change(listener: Callable[[], None]) -> Callable[[], None]:
    """Runs ``listener()`` after every change of a registry.

    Runs ``listener()`` after every change of a registry (once per listener, however often
    its module is imported or reloaded: a listener replaces one of the same qualified name).
    """
    key = f"{listener.__module__}.{listener.__qualname__}"
    _LISTENERS[:] = [f for f in _LISTENERS if f"{f.__module__}.{f.__qualname__}" != key]
    _LISTENERS.append(listener)
    return listener


def add(table: MutableMapping[str, T], kind: str, name: str, entry: T, replace: bool = False) -> T:
    """Puts ``entry`` in ``table`` under ``name`` and runs the listeners.

    Puts ``entry`` in ``table`` under ``name`` and runs the listeners (for a table of
    :data:`MEASURE_KINDS`); undone if one refuses it.
    """
    global generation
    if not isinstance(name, str) or not name.isidentifier():
        raise RegistrationError(f"a {kind} name must be an identifier (letters, digits, _), got {name!r}")
    if name in table and not replace:
        raise RegistrationError(f"{kind} {name!r} is already registered (pass replace=True)")
    if refused(table, kind, name, replace, depth=3):
        return table[name]
    previous: Any = table.get(name, _ABSENT)
    table[name] = entry
    generation += 1
    if kind not in MEASURE_KINDS:
        return entry
    try:
        for listener in list(_LISTENERS):
            listener()
    except Exception:
        if previous is _ABSENT:
            remove(table, name)
        else:
            table[name] = previous
            _changed()
        raise
    return entry


def remove(table: MutableMapping[str, Any], name: str) -> None:
    """Takes ``name`` out of ``table`` (if it is there) and tells the listeners, as :func:`add` does.

    What :func:`add` undoes with, and what a test that registered an entry of its own cleans up with.
    """
    if name in table:
        del table[name]
        _changed()


def _changed() -> None:
    """A table changed: a new :data:`generation`, and every listener runs."""
    global generation
    generation += 1
    for listener in list(_LISTENERS):
        listener()


_ABSENT = object()
