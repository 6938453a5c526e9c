"""Moved to :mod:`ir_cwla.analysis.paired` (issue 29): this old path names the same module object.

Kept so that code written before the move (``from ir_cwla.comparison import paired``) keeps working;
new code imports :mod:`ir_cwla.analysis.paired`.
"""
import sys

from ir_cwla.analysis import paired as _moved
from ir_cwla.analysis.paired import *  # noqa: F403 (the names, for type checkers)

sys.modules[__name__] = _moved
