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

What a plugin cannot do:

- break a command: a malformed ``entry_points.txt`` (a line without ``=``, a key twice, bytes
  that are not UTF-8) is one warning naming the distribution and the file, and its plugins are
  skipped; a plugin that raises anything at load (``SystemExit`` included) is one warning
  naming it, and is skipped. (A ``KeyboardInterrupt`` while plugins load ends ``ir-cwla`` as
  Ctrl-C does, on one line with status 130, and is raised on in a program.)
- bend a built-in's numbers: a plugin that registers a browsing model, an aggregation, a
  criterion or a statistical test under a built-in's name (``replace=True``), or puts one in
  :data:`ir_cwla.BROWSING_MODELS` or :data:`ir_cwla.AGGREGATIONS` itself, is refused with a
  warning naming it, and the built-in is kept: ``RBP_ERG@10`` means the same wherever ir_cwla
  is installed. (A plugin adds measures under names of its own.)
- speak out of turn: what a plugin warns (``warnings.warn``) is a :class:`PluginWarning` naming
  it, on one line of stderr like every warning of ``ir-cwla``;
- delay every command without a word: a plugin that takes more than :data:`SLOW` seconds to
  load is named with its time.

To start without plugins, set the environment variable ``IR_CWLA_NO_PLUGINS=1`` (a program, a
script, ``ir-cwla``), or give ``ir-cwla`` the option ``--no-plugins`` before the command
(``ir-cwla --no-plugins eval ...``).
"""
from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ir_cwla.errors import PluginWarning

__all__ = ["GROUP", "Plugin", "LOADED", "SLOW", "DISABLE_ENV", "load", "disabled"]

GROUP = "ir_cwla.plugins"
"""The entry-point group of plugins (a distribution's ``[options.entry_points]`` section ``ir_cwla.plugins``)."""


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin: its entry point's name and value and the distribution that declares it."""

    name: str
    value: str
    distribution: str
    version: str
    seconds: float = 0.0
    """How long it took to load (importing its module and running its callable)."""

    def __str__(self) -> str:
        return f"{self.name} ({self.distribution} {self.version})"


LOADED: list[Plugin] = []
"""The plugins loaded, in load order (entry points sorted by distribution and name)."""
SLOW = 1.0
"""A plugin that takes longer than this many seconds to load is named, with its time, in a warning."""
DISABLE_ENV = "IR_CWLA_NO_PLUGINS"
"""The environment variable that, set to anything but ``''`` or ``'0'``, starts ir_cwla without plugins."""
NO_PLUGINS_OPTION = "--no-plugins"
"""``ir-cwla``'s global option that starts the command without plugins."""
PENDING: list[str] = []
"""The warnings of plugin loading not yet shown: in the ``ir-cwla`` process, the command shows them
in its one-line form (:func:`ir_cwla.app.cli.main`); elsewhere they are warned at once."""
loading: Optional[str] = None
"""The plugin being loaded (how warnings name it), None between plugins: a registry refuses to let it
replace a built-in (:func:`ir_cwla.measures._registry.refused`)."""
GUARDS: list[Callable[[], Callable[[str], list[str]]]] = []
"""Called before each plugin loads, each returns a check called after it with the plugin's description,
which undoes what the plugin changed behind the registries' back and returns the warnings of it."""
_DONE = False


def disabled() -> bool:
    """True if plugins are not to be loaded.

    True if :data:`DISABLE_ENV` is set (not to ``''`` or ``'0'``), or this process is the
    ``ir-cwla`` command and was given ``--no-plugins`` before its command.
    """
    if os.environ.get(DISABLE_ENV, "").strip() not in ("", "0"):
        return True
    argv = _command_line()
    return argv is not None and NO_PLUGINS_OPTION in global_options(argv)


def global_options(argv: Sequence[str]) -> list[str]:
    """The words of ``argv`` before the command (the first word that is not an option)."""
    out = []
    for arg in argv:
        if not arg.startswith("-"):
            break
        out.append(arg)
    return out


def _command_line() -> Optional[list[str]]:
    """The arguments of the ``ir-cwla`` command if this process is it (its script or ``python -m ir_cwla``), else None."""
    if os.path.basename(sys.argv[0] if sys.argv else "").split(".")[0] == "ir-cwla":
        return list(sys.argv[1:])
    orig = list(getattr(sys, "orig_argv", []))
    for i, arg in enumerate(orig[1:-1], 1):
        if arg == "-m" and orig[i + 1] == "ir_cwla":
            return orig[i + 2:]
        if not arg.startswith("-"):
            break
    return None


def load() -> list[Plugin]:
    """Runs every entry point of :data:`GROUP` once (later calls do nothing); returns :data:`LOADED`.

    Nothing is loaded if :func:`disabled`. In the ``ir-cwla`` process the warnings of loading
    wait in :data:`PENDING` for the command to show them.
    """
    global _DONE
    if _DONE:
        return LOADED
    _DONE = True
    if disabled():
        return LOADED
    command = _command_line() is not None
    try:
        _load_all(command)
    finally:
        if not command:
            shown, PENDING[:] = list(PENDING), []
            for text in shown:
                warnings.warn(text, PluginWarning, stacklevel=3)
    return LOADED


def _load_all(command: bool) -> None:
    global loading
    entries, problems = _entry_points(GROUP)
    PENDING.extend(problems)
    for name, value, dist, version in sorted(entries, key=lambda e: (e[2], e[0], e[1])):
        # (sorted: the order never depends on the file system)
        where = f"plugin {name!r} ({value}" + (f", from {dist} {version})" if dist else ")")
        checks = [guard() for guard in GUARDS]
        started = time.perf_counter()
        failed: Optional[BaseException] = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loading = where
            try:
                _resolve(value)()
            except KeyboardInterrupt:
                if command:         # Ctrl-C while plugins load: as during the command
                    print(f"ir-cwla: interrupted (loading {where})", file=sys.stderr)
                    sys.exit(130)
                raise
            except BaseException as ex:   # noqa: BLE001   a broken plugin is skipped, never a crash (SystemExit too)
                failed = ex
            finally:
                loading = None
        seconds = time.perf_counter() - started
        for w in caught:
            text = " ".join(str(w.message).split())
            PENDING.append(text if issubclass(w.category, PluginWarning)
                           else f"{where} warns: {text} ({w.category.__name__})")
        for check in checks:
            PENDING.extend(check(where))
        if seconds > SLOW:
            PENDING.append(f"{where} took {seconds:.1f} s to load (every command waits for it; "
                           f"{DISABLE_ENV}=1 or ir-cwla {NO_PLUGINS_OPTION} starts without plugins)")
        if failed is not None:
            text = " ".join(str(failed).split())
            PENDING.append(f"{where} could not be loaded and is skipped: {type(failed).__name__}"
                           + (f": {text}" if text else ""))
            continue
        LOADED.append(Plugin(name, value, dist or "?", version or "?", seconds))


def _resolve(value: str) -> Any:
    """The object an entry point's value names (``module:attr.attr``, extras ignored)."""
    import importlib

    module, _, attrs = value.split("[")[0].strip().partition(":")
    obj = importlib.import_module(module.strip())
    for attr in filter(None, attrs.strip().split(".")):
        obj = getattr(obj, attr)
    return obj


def _entry_points(group: str) -> tuple[list[tuple[str, str, str, str]], list[str]]:
    """Every entry point of ``group``, found by reading ``entry_points.txt`` files only; and what was wrong.

    ``(name, value, distribution, version)`` of every entry point of ``group``, and the warnings
    of the ``entry_points.txt`` files that declare some but cannot be read (skipped), found as
    ``importlib.metadata.entry_points(group=...)`` finds them (the first distribution of each name
    along ``sys.path``), by reading only the ``entry_points.txt`` files: importlib.metadata parses
    the METADATA of every installed distribution first, a third of ``import ir_cwla``'s own time.
    (Where ``sys.path`` holds a zip file, importlib.metadata itself is asked.)
    """
    if any(os.path.isfile(entry) for entry in sys.path if entry):
        from importlib.metadata import entry_points

        try:
            return [(ep.name, ep.value, getattr(ep.dist, "name", "") or "", getattr(ep.dist, "version", "") or "")
                    for ep in entry_points(group=group)], []
        except Exception as ex:   # noqa: BLE001   a malformed distribution never stops ir_cwla
            return [], [f"the entry points of group {group!r} could not be read, no plugin is loaded: "
                        f"{type(ex).__name__}: {' '.join(str(ex).split())}"]
    header = f"[{group}]".encode()
    seen: set[str] = set()
    out: list[tuple[str, str, str, str]] = []
    problems: list[str] = []
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
            path = os.path.join(folder, info, "entry_points.txt")
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if header not in data:
                continue
            name, version = _name_version(os.path.join(folder, info))
            try:
                entries = _section(data.decode("utf-8"), group)
            except Exception as ex:   # noqa: BLE001   (UnicodeDecodeError, configparser's errors)
                problems.append(f"the plugins of {name or info} ({path}) are skipped: its entry_points.txt cannot be "
                                f"read: {_why(ex)}")
                continue
            out.extend((key, value, name, version) for key, value in entries)
    return out, problems


def _why(ex: Exception) -> str:
    """A reading error of ``entry_points.txt`` on one line (configparser's messages span several)."""
    import configparser

    if isinstance(ex, UnicodeDecodeError):
        return f"not UTF-8 (byte {ex.object[ex.start]:#x} at offset {ex.start})"
    if isinstance(ex, configparser.DuplicateOptionError):
        return f"the entry point {ex.option!r} is declared twice in [{ex.section}]"
    if isinstance(ex, configparser.ParsingError):
        lines = ", ".join(str(line) for _, line in ex.errors[:3])
        return f"a line without '=' in [{GROUP}]: {lines}"
    return f"{type(ex).__name__}: {' '.join(str(ex).split())}"


def _normal(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "_", name).lower()


def _name_version(info: str) -> tuple[str, str]:
    fields: dict[str, str] = {}
    for filename in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(info, filename), encoding="utf-8", errors="replace") as f:
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
    lines, inside = [], False
    for line in text.splitlines():      # the group's section alone: what other sections hold is not ours
        if line.strip().startswith("["):
            inside = line.strip() == f"[{group}]"
        if inside:
            lines.append(line)
    parser.read_string("\n".join(lines))
    return list(parser.items(group)) if parser.has_section(group) else []
