"""Progress bars: shown when asked for and only where a person watches (one rule).

``progress=True`` draws a tqdm bar on stderr when stderr is a terminal (or in a Jupyter
notebook, where tqdm draws a widget); written to a log file or a pipe it draws nothing, so
logs keep only the lines a program prints. ``progress=False`` never draws one.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, Optional

from tqdm.auto import tqdm


def progress_bar(iterable: Optional[Iterable] = None, *, progress: bool = True, **kwargs: Any) -> tqdm:
    """``tqdm(iterable, **kwargs)``, disabled unless ``progress`` and stderr is a terminal."""
    return tqdm(iterable, disable=None if progress else True, **kwargs)


def on_terminal(progress: bool) -> bool:
    """True when a bar would be drawn: for libraries that take ``verbose=`` (``pt.Experiment``)."""
    return bool(progress) and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
