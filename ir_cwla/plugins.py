"""Plugins: packages that add browsing models, aggregations or criteria, found by entry point.

A distribution declares, in its metadata, entry points of the group :data:`GROUP`::

    [options.entry_points]                      # setup.cfg of the plugin
    ir_cwla.plugins =
        half = my_package.cwla:register

Each entry point names a callable, run once when ``ir_cwla`` is imported (after the
built-in models and aggregations are registered), which registers what it brings with
:func:`ir_cwla.register_browsing_model`, :func:`ir_cwla.register_aggregation` or
:func:`ir_cwla.meta.register_criterion`; from then on they work everywhere, the ``ir-cwla``
command included. A plugin that fails to load gives one :class:`~ir_cwla.errors.PluginWarning`
naming it and is skipped: a broken plugin never stops ir_cwla from working. ``ir-cwla
--version`` lists the plugins loaded (:data:`LOADED`).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

from ir_cwla.errors import PluginWarning

GROUP = "ir_cwla.plugins"


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin: its entry point's name and value and the distribution that declares it."""

    name: str
    value: str
    distribution: str
    version: str

    def __str__(self) -> str:
        return f"{self.name} ({self.distribution} {self.version})"


#: The plugins loaded, in load order (entry points sorted by distribution and name).
LOADED: list[Plugin] = []
_DONE = False


def load() -> list[Plugin]:
    """Runs every entry point of :data:`GROUP` once (later calls do nothing); returns :data:`LOADED`."""
    global _DONE
    if _DONE:
        return LOADED
    _DONE = True
    from importlib.metadata import entry_points

    found = entry_points(group=GROUP)
    def key(ep):  # noqa: ANN001, ANN202  (sorted: the order never depends on the file system)
        dist = getattr(ep, "dist", None)
        return (getattr(dist, "name", "") or "", ep.name, ep.value)

    for ep in sorted(found, key=key):
        dist = getattr(ep, "dist", None)
        where = f"plugin {ep.name!r} ({ep.value}" + (f", from {dist.name} {dist.version})" if dist else ")")
        try:
            ep.load()()
        except Exception as ex:   # a broken plugin is skipped, never a crash
            warnings.warn(f"{where} could not be loaded and is skipped: {type(ex).__name__}: {ex}", PluginWarning,
                          stacklevel=2)
            continue
        LOADED.append(Plugin(ep.name, ep.value, dist.name if dist else "?", dist.version if dist else "?"))
    return LOADED
