"""The registries' one rule: what registering a browsing model or an aggregation sets off.

:func:`ir_cwla.register_browsing_model` and :func:`ir_cwla.register_aggregation` put their
entry in a table through :func:`add`, which then runs every listener registered with
:func:`on_change`: the measure's supported parameters, the ``MODEL_AGG`` names known to
ir-measures and the caches of parsed names are rebuilt from the tables, so a model
registered at any time (in a script, or by a plugin) is known everywhere at once. A
listener that refuses the new entry (e.g. its ``MODEL_AGG`` name collides with an
ir-measures measure) raises :class:`~ir_cwla.errors.RegistrationError`, and the table is
left as it was.
"""
from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Callable, TypeVar

from ir_cwla.errors import RegistrationError

T = TypeVar("T")

#: Incremented by every change of a registry: caches derived from them compare it.
generation = 0

#: The tables whose changes the listeners follow (what measures are made of); another table
#: registered through :func:`add` (e.g. ``ir_cwla.meta.CRITERIA``) gets the same checks of its
#: names, but changes nothing a listener derives (and does not rebuild the ``MODEL_AGG`` names).
MEASURE_KINDS = ("browsing model", "aggregation")

_LISTENERS: list[Callable[[], None]] = []


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
            del table[name]
        else:
            table[name] = previous
        generation += 1
        for listener in list(_LISTENERS):
            listener()
        raise
    return entry


_ABSENT = object()
