"""What the package's facades share: names imported on first use, and the paths that moved.

Each room of the engine (:mod:`ir_cwla.io`, :mod:`ir_cwla.measures`, :mod:`ir_cwla.scoring`,
:mod:`ir_cwla.provider`) is a package whose ``__init__`` is its facade: it re-exports, in
``__all__``, what is public and documented, from private modules (``ir_cwla/io/_frames.py``, ...),
as httpx does. Two things all of them need live here:

- **names imported on first use** (:func:`attribute`): a facade whose module needs pandas
  (``ir_cwla.io.read_trec_run``) imports it only when the name is first asked for, so that
  ``import ir_cwla`` stays light;
- **the paths of before the rooms** (issue 30; :data:`MOVED`): ``ir_cwla.gains``,
  ``ir_cwla.kernel``, ... are no modules any more. Importing one still works (a finder,
  :func:`install`, makes a stand-in module), and each name taken from it, or from a facade that no
  longer exports it (``ir_cwla.io.check_grades_for_backends``), is the object it was, with an
  :class:`~ir_cwla.errors.IrCwlaDeprecationWarning` naming where it is now. No file is left at an
  old path, so that git follows every moved module.

This module imports no room (it is the base): it finds the new places by their names.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Mapping
from typing import Any, Optional

from ir_cwla.errors import IrCwlaDeprecationWarning

#: The public modules of the engine, whose ``__all__`` is what is documented: a name one of them
#: exports is named by that path in a deprecation message (the first that has it).
FACADES = ("ir_cwla.io", "ir_cwla.measures", "ir_cwla.scoring", "ir_cwla.provider", "ir_cwla.errors",
           "ir_cwla.plugins", "ir_cwla")

#: Every engine module of before the rooms (and every facade that no longer exports all it did):
#: the modules its names are in now, looked up in this order.
MOVED: dict[str, tuple[str, ...]] = {
    # the reading room
    "ir_cwla.io": ("ir_cwla.io._frames", "ir_cwla.io._textstream", "ir_cwla.provider._backends", "ir_cwla.errors",
                   "ir_cwla._text"),
    "ir_cwla.textstream": ("ir_cwla.io._textstream", "ir_cwla.errors"),
    "ir_cwla.trec_text": ("ir_cwla.io._trec_text", "ir_cwla.io._columns", "ir_cwla.io._textstream"),
    "ir_cwla.columns": ("ir_cwla.io._columns", "ir_cwla.io._textstream", "ir_cwla.errors"),
    "ir_cwla.sources": ("ir_cwla.io._sources",),
    "ir_cwla.hashing": ("ir_cwla.io._hashing", "ir_cwla.errors"),
    "ir_cwla.ordering": ("ir_cwla.io._ordering", "ir_cwla.errors"),
    "ir_cwla.sharding": ("ir_cwla.io._sharding", "ir_cwla.errors"),
    # what a measure is
    "ir_cwla.browsing": ("ir_cwla.measures._browsing", "ir_cwla.measures._params", "ir_cwla.errors"),
    "ir_cwla.cwl_models": ("ir_cwla.measures._cwl_models", "ir_cwla.measures._browsing", "ir_cwla.measures._params",
                           "ir_cwla.errors"),
    "ir_cwla.aggregation": ("ir_cwla.measures._aggregation", "ir_cwla.measures._params", "ir_cwla.errors"),
    "ir_cwla.params": ("ir_cwla.measures._params", "ir_cwla.errors", "ir_cwla._text"),
    "ir_cwla.registry": ("ir_cwla.measures._registry", "ir_cwla.errors"),
    "ir_cwla.measure": ("ir_cwla.measures._measure", "ir_cwla.measures._gains", "ir_cwla.measures._costs",
                        "ir_cwla.measures._browsing", "ir_cwla.measures._aggregation", "ir_cwla.measures._params",
                        "ir_cwla.errors", "ir_cwla._text"),
    "ir_cwla.names": ("ir_cwla.measures._names", "ir_cwla.measures._measure", "ir_cwla.measures._gains",
                      "ir_cwla.measures._costs", "ir_cwla.measures._browsing", "ir_cwla.measures._aggregation",
                      "ir_cwla.errors"),
    "ir_cwla.table1": ("ir_cwla.measures._table1", "ir_cwla.measures._measure", "ir_cwla.measures._names"),
    "ir_cwla.costs": ("ir_cwla.measures._costs", "ir_cwla.io._cost_files", "ir_cwla.scoring._cell_costs",
                      "ir_cwla.scoring._gains", "ir_cwla.io._textstream", "ir_cwla.errors"),
    # scoring
    "ir_cwla.gains": ("ir_cwla.scoring._gains", "ir_cwla.measures._gains", "ir_cwla.io._columns",
                      "ir_cwla.io._ordering", "ir_cwla.errors"),
    "ir_cwla.kernel": ("ir_cwla.scoring._kernel", "ir_cwla.measures._browsing", "ir_cwla.measures._aggregation",
                       "ir_cwla.measures._params", "ir_cwla.errors"),
    "ir_cwla.scoring": ("ir_cwla.scoring._scoring", "ir_cwla.scoring._gains", "ir_cwla.measures", "ir_cwla.io",
                        "ir_cwla.errors"),
    # the ir-measures provider
    "ir_cwla.provider": ("ir_cwla.provider._provider", "ir_cwla.measures"),
    "ir_cwla.backends": ("ir_cwla.provider._backends", "ir_cwla.io._columns", "ir_cwla.errors"),
    "ir_cwla.per_topic": ("ir_cwla.provider._per_topic", "ir_cwla.scoring", "ir_cwla.io"),
    # the base
    "ir_cwla.text": ("ir_cwla._text",),
    "ir_cwla.progress": ("ir_cwla._progress",),
    # the analysis room (issue 29): randomisation, executors and names under meta and comparison
    **{f"ir_cwla.meta.{name}": (f"ir_cwla.analysis.{name}",)
       for name in ("anova", "executors", "frame", "montecarlo", "naming", "pairwise", "streams", "tukey")},
    "ir_cwla.comparison.paired": ("ir_cwla.analysis.paired",),
}

#: The packages whose old submodules (``ir_cwla.meta.naming``, ...) are in :data:`MOVED`: their
#: ``__getattr__`` gives the stand-in for ``package.name`` (:func:`old_submodule`).
OLD_SUBMODULES = {old.rpartition(".")[0] for old in MOVED if old.count(".") == 2}

#: Old module paths that are also a name of ``ir_cwla`` (``ir_cwla.table1()``, the function): the
#: stand-in module, which importing sets as that name, calls it.
CALLABLE = {"ir_cwla.table1": ("ir_cwla.measures", "table1")}


def public_path(obj: Any, name: str) -> Optional[str]:
    """The documented path of ``obj`` (``ir_cwla.scoring.Qrels``): the first facade exporting it, or None."""
    for facade in FACADES:
        module = importlib.import_module(facade)
        if name in getattr(module, "__all__", ()) and getattr(module, name, None) is obj:
            return f"{facade}.{name}"
    return None


def moved(old: str, name: str, stacklevel: int = 3) -> Any:
    """The object ``old.name`` was, with a deprecation warning naming where it is now.

    :class:`AttributeError` if none of :data:`MOVED`'s modules for ``old`` holds it.
    """
    for module in MOVED.get(old, ()):
        holder = importlib.import_module(module)
        if name in vars(holder) or (name in getattr(holder, "__all__", ()) and hasattr(holder, name)):
            obj = getattr(holder, name)
            public = public_path(obj, name) if not name.startswith("_") else None
            if public is None and not any(part.startswith("_") for part in f"{module}.{name}".split(".")):
                public = f"{module}.{name}"          # a public module's name (ir_cwla.analysis.naming.label)
            now = public or f"{module}.{name} (private: it may change without notice)"
            warnings.warn(f"{old}.{name} is now {now}; {old}.{name} still works for a while, but will go "
                          f"({'the analysis room' if module.startswith('ir_cwla.analysis') else 'the engine moved into rooms'}, "
                          "docs/changelog.md)", IrCwlaDeprecationWarning,
                          stacklevel=stacklevel)
            return obj
    raise AttributeError(f"module {old!r} has no attribute {name!r}")


def attribute(package: str, name: str, lazy: Mapping[str, str]) -> Any:
    """What a facade's module ``__getattr__`` returns for ``name``.

    A name of ``lazy`` (name -> the module holding it) imported on first use and kept in the
    facade; else a name the facade's old module had (:func:`moved`, with a warning); else
    :class:`AttributeError`.
    """
    module = lazy.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value
    if name.startswith("_") or package not in MOVED:     # (no search for dunders: tools probe them)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return moved(package, name, stacklevel=4)


def old_submodule(package: str, name: str) -> types.ModuleType:
    """The stand-in of ``package.name``, an old submodule path (:data:`MOVED`), imported; AttributeError else."""
    if f"{package}.{name}" not in MOVED:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return importlib.import_module(f"{package}.{name}")


class _OldModule(types.ModuleType):
    """A stand-in for a module of before the rooms: each name it is asked for, from where it is now.

    A module setting assigned through the old path (``ir_cwla.meta.montecarlo.WARN_AFTER_SECONDS =
    60``) is set where the name is now, with the same warning, so that it is never silently lost.
    """

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = moved(self.__name__, name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("__"):
            for module in MOVED.get(self.__name__, ()):
                holder = importlib.import_module(module)
                if name in vars(holder):
                    moved(self.__name__, name)          # the warning
                    setattr(holder, name, value)
                    return
        super().__setattr__(name, value)


class _CallableOldModule(_OldModule):
    """:class:`_OldModule` of a path that is also a function of ``ir_cwla`` (``ir_cwla.table1``), which it calls."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        facade, name = CALLABLE[self.__name__]
        return getattr(importlib.import_module(facade), name)(*args, **kwargs)


class OldPaths:
    """The finder (and loader) of the old module paths (:data:`MOVED`): each is imported as an :class:`_OldModule`.

    (A meta path finder and loader by their methods: ``importlib.abc`` is not imported for them, as it
    imports ``importlib.resources``, which ``import ir_cwla`` would pay for.)
    """

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        """A spec of the stand-in for an old module path, None for any other name."""
        if fullname not in MOVED or fullname in FACADES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)  # type: ignore[arg-type]

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        """The stand-in module (callable for :data:`CALLABLE` paths)."""
        kind = _CallableOldModule if spec.name in CALLABLE else _OldModule
        module = kind(spec.name, f"Moved (issue 30): its names are in {', '.join(MOVED[spec.name])}.")
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the stand-in finds each name when asked for it."""
        return None


def install() -> None:
    """Puts :class:`OldPaths` first on ``sys.meta_path`` (once).

    First, so that a file an older install left at an old path is never imported instead.
    """
    if not any(isinstance(f, OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, OldPaths())
