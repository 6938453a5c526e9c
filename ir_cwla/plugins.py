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
from typing import Any

from ir_cwla.errors import PluginWarning

__all__ = ["GROUP", "Plugin", "LOADED", "load"]

GROUP = "ir_cwla.plugins"
"""The entry-point group of plugins (a distribution's ``[options.entry_points]`` section ``ir_cwla.plugins``)."""


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin: its entry point's name and value and the distribution that declares it."""

    name: str
    value: str
    distribution: str
    version: str

    def __str__(self) -> str:
        return f"{self.name} ({self.distribution} {self.version})"


LOADED: list[Plugin] = []
"""The plugins loaded, in load order (entry points sorted by distribution and name)."""
_DONE = False


def load() -> list[Plugin]:
    """Runs every entry point of :data:`GROUP` once (later calls do nothing); returns :data:`LOADED`."""
    global _DONE
    if _DONE:
        return LOADED
    _DONE = True
    for name, value, dist, version in sorted(_entry_points(GROUP), key=lambda e: (e[2], e[0], e[1])):
        # (sorted: the order never depends on the file system)
        where = f"plugin {name!r} ({value}" + (f", from {dist} {version})" if dist else ")")
        try:
            _resolve(value)()
        except Exception as ex:   # a broken plugin is skipped, never a crash
            warnings.warn(f"{where} could not be loaded and is skipped: {type(ex).__name__}: {ex}", PluginWarning,
                          stacklevel=2)
            continue
        LOADED.append(Plugin(name, value, dist or "?", version or "?"))
    return LOADED


def _resolve(value: str) -> Any:
    """The object an entry point's value names (``module:attr.attr``, extras ignored)."""
    import importlib

    module, _, attrs = value.split("[")[0].strip().partition(":")
    obj = importlib.import_module(module.strip())
    for attr in filter(None, attrs.strip().split(".")):
        obj = getattr(obj, attr)
    return obj


def _entry_points(group: str) -> list[tuple[str, str, str, str]]:
    """Every entry point of ``group``, found by reading ``entry_points.txt`` files only.

    ``(name, value, distribution, version)`` of every entry point of ``group``, found as
    ``importlib.metadata.entry_points(group=...)`` finds them (the first distribution of each name
    along ``sys.path``), by reading only the ``entry_points.txt`` files: importlib.metadata parses
    the METADATA of every installed distribution first, a third of ``import ir_cwla``'s own time.
    (Where ``sys.path`` holds a zip file, importlib.metadata itself is asked.)
    """
    import os
    import sys

    if any(os.path.isfile(entry) for entry in sys.path if entry):
        from importlib.metadata import entry_points

        return [(ep.name, ep.value, getattr(ep.dist, "name", "") or "", getattr(ep.dist, "version", "") or "")
                for ep in entry_points(group=group)]
    header = f"[{group}]"
    seen: set[str] = set()
    out: list[tuple[str, str, str, str]] = []
    for entry in sys.path:
        folder = entry or "."
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for info in names:
            if not info.endswith((".dist-info", ".egg-info")):
                continue
            dist = _normal(info.rsplit(".", 1)[0].split("-")[0])
            if dist in seen:
                continue
            seen.add(dist)
            try:
                with open(os.path.join(folder, info, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if header not in text:
                continue
            name, version = _name_version(os.path.join(folder, info))
            out.extend((key, value, name, version) for key, value in _section(text, group))
    return out


def _normal(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "_", name).lower()


def _name_version(info: str) -> tuple[str, str]:
    import os

    fields: dict[str, str] = {}
    for filename in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(info, filename), encoding="utf-8") as f:
                for line in f:
                    if not line.strip():
                        break
                    key, sep, value = line.partition(":")
                    if sep and key in ("Name", "Version"):
                        fields.setdefault(key, value.strip())
        except OSError:
            continue
        break
    return fields.get("Name", ""), fields.get("Version", "")


def _section(text: str, group: str) -> list[tuple[str, str]]:
    import configparser

    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]   # entry point names keep their case
    parser.read_string(text)
    return list(parser.items(group)) if parser.has_section(group) else []
