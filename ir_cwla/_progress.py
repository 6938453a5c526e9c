"""Progress bars: shown when asked for and only where a person watches (one rule).

``progress=True`` draws a tqdm bar on stderr when stderr is a terminal (or in a Jupyter
notebook, where tqdm draws a widget); written to a log file or a pipe it draws nothing, so
logs keep only the lines a program prints. ``progress=False`` never draws one (and does not
import tqdm: a command that shows no bar does not pay for it).
"""
from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, Optional

#: tqdm.auto's ``tqdm``, imported by the first bar that may be drawn.
tqdm: Any = None


class _NoBar:
    """What a bar that is never drawn does: iterate, count, open and close."""

    def __init__(self, iterable: Optional[Iterable] = None):
        self.iterable = iterable
        self.n = 0

    def __iter__(self) -> Any:
        return iter(self.iterable if self.iterable is not None else ())

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        return None


def progress_bar(iterable: Optional[Iterable] = None, *, progress: bool = True, **kwargs: Any) -> Any:
    """A tqdm progress bar, shown only when asked for and stderr is a terminal.

    ``tqdm(iterable, **kwargs)``, disabled unless ``progress`` and stderr is a terminal (a
    silent stand-in without tqdm if not ``progress``).
    """
    global tqdm
    if not progress:
        return _NoBar(iterable)
    if tqdm is None:
        from tqdm.auto import tqdm
    return tqdm(iterable, disable=None, **kwargs)


def on_terminal(progress: bool) -> bool:
    """True when a bar would be drawn: for libraries that take ``verbose=`` (``pt.Experiment``)."""
    return bool(progress) and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
