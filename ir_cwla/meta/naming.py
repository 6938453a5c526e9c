"""Moved to :mod:`ir_cwla.analysis.naming` (issue 29): this old path names the same module object.

Kept so that code written before the move (``from ir_cwla.meta import naming``) keeps working, and
module settings set through either path are the same; new code imports :mod:`ir_cwla.analysis.naming`.
"""
import sys

from ir_cwla.analysis import naming as _moved
from ir_cwla.analysis.naming import *  # noqa: F403 (the names, for type checkers)

sys.modules[__name__] = _moved
