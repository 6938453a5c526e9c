"""Strings numbered by hashing: what the engine needs of ``pd.factorize`` and ``pd.Index``, without pandas.

The engine numbers topic ids, doc ids and element types (:mod:`ir_cwla.scoring._gains`) and looks them
up; this module is the one place that does it, with Python's own hash table (a ``dict``), so
that scoring a run needs no pandas (``ir-cwla eval`` starts in the time of ``ir_measures``).
The numbering is pandas': :func:`factorize` numbers values by first appearance
(``pd.factorize``), or in sorted order with ``sort=True``; :class:`StringIndex` is a
``pd.Index`` of distinct values for :meth:`~StringIndex.get_indexer` (-1 where absent). On
object arrays of Python strings a ``dict`` is as fast as pandas' hash table (2 million
lookups: 1.9 s against 2.7 s for ``pd.Index(...).get_indexer``, this machine), since both
hash and compare the same Python objects.

Ids may also come *compact* (:func:`compact`): an ASCII bytes array (numpy ``'S'``), one
fixed-width cell per id instead of a Python str object and its pointer (9 MB in place of 72 MB
for the doc ids of a run of 1.1 million lines). This module is the one place that knows the
form: every function here takes it, and gives str back (the distinct values, the index's
values); :func:`strings` turns it back into str for anyone else. A compact array is only
ever made from str that it gives back exactly (ASCII, no NUL, a trailing one of which ``'S'``
would drop), and for ASCII, byte order is str order, so sorting, comparing and looking up the bytes
is sorting, comparing and looking up the strings.
"""
from __future__ import annotations

from itertools import repeat
from typing import Any, Optional

import numpy as np

from ir_cwla.errors import ParameterError

#: Values :func:`compact` checks at a time.
COMPACT_BLOCK = 1 << 17
#: Bytes a Python str of ASCII characters costs besides them (its header, 49, and the array's pointer, 8),
#: rounded down: what :func:`compact` weighs a fixed width against.
STR_OVERHEAD = 56


def compact(values: np.ndarray) -> np.ndarray:
    """An object array of str as a compact ASCII array (``'S'``), when it gives them back exactly and is smaller.

    Else ``values`` as given: any value not a str (``str.join`` refuses it), not ASCII or
    holding a NUL (``'S'`` pads with NUL, so it would drop a trailing one), and values so
    unequal in length that the fixed width costs more than the objects (each a pointer and
    about :data:`STR_OVERHEAD` bytes besides its characters).
    """
    if not isinstance(values, np.ndarray) or values.dtype != object or values.ndim != 1 or not len(values):
        return values
    total = width = 0
    for a in range(0, len(values), COMPACT_BLOCK):      # (no list nor text as long as the values: peak memory)
        items = values[a:a + COMPACT_BLOCK].tolist()
        try:
            text = "".join(items)
        except TypeError:
            return values
        if not text.isascii() or "\0" in text:
            return values
        total += len(text)
        if not a:
            width = len(max(items, key=len))        # the first block's widest: most often every one's
    def smaller(w: int) -> bool:          # the fixed width against the objects' bytes
        return w * len(values) <= total + STR_OVERHEAD * len(values)

    out = values.astype(f"S{max(width, 1)}") if smaller(width) else None
    # no value holds a NUL, so the array holds every character unless a value was cut to the width
    if out is None or np.count_nonzero(out.view(np.uint8)) != total:
        width = len(max(values.tolist(), key=len))
        if not smaller(width):
            return values
        out = values.astype(f"S{max(width, 1)}")
    return out


def is_compact(values: Any) -> bool:
    """True for ids in the compact form (:func:`compact`)."""
    return isinstance(values, np.ndarray) and values.dtype.kind == "S"


def strings(values: Any) -> Any:
    """Ids as str: a compact array (:func:`compact`) decoded to an object array of str, anything else as it is."""
    if not is_compact(values):
        return values
    return _objects([v.decode("ascii") for v in values.tolist()])


def _items(values: Any) -> Any:
    """The values to go through once: a 1-D object array itself, another array's ``tolist()``, else a list.

    (An object array is not copied to a list as long as it: peak memory, issue 28.) A compact
    array gives bytes (its callers decode what they keep).
    """
    if isinstance(values, np.ndarray):
        return values if values.dtype == object and values.ndim == 1 else values.tolist()
    return list(values)


def factorize(values: Any, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, uniques)``: each value's number (int64) and the distinct values (object array).

    Values are numbered by first appearance, as ``pd.factorize`` does, or, with ``sort``, in
    sorted order (``pd.factorize(sort=True)``: the code of a value is its rank among the
    distinct values). The distinct values of a compact array (:func:`compact`) are str.
    """
    if sort:
        return _sorted_codes(values)
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)     # (gone through twice)
    numbers: dict[Any, int] = {}
    for v in items:
        if v not in numbers:
            numbers[v] = len(numbers)
    get = numbers.__getitem__
    codes = np.fromiter(map(get, items), dtype=np.int64, count=len(items))
    return codes, _uniques(list(numbers), is_compact(values))


def _sorted_codes(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`factorize` with ``sort``: one sort of the values, and a value's code its rank among the distinct ones.

    No hash table: the values sorted (Python's ``<``, as ``sorted``), each a new code where it differs
    (``!=``) from the one before; of equal values the first in the input is the one kept.
    """
    if is_compact(values):          # sorted as bytes: for ASCII, str order (:func:`compact`)
        objects = values
    else:
        items = _items(values)
        objects = items if isinstance(items, np.ndarray) else _objects(items)
    order = np.argsort(objects, kind="stable")
    ranked = objects[order]
    new = np.ones(len(ranked), dtype=bool)
    new[1:] = ranked[1:] != ranked[:-1]
    codes = np.empty(len(ranked), dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes, strings(ranked[new])


def unique(values: Any) -> np.ndarray:
    """The distinct values in order of first appearance (``pd.unique``), as an object array."""
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    return _uniques(list(dict.fromkeys(items)), is_compact(values))


class StringIndex:
    """Distinct values and their positions: ``pd.Index(values).get_indexer`` without pandas."""

    def __init__(self, values: Any):
        values = strings(values)
        items = values.tolist() if isinstance(values, np.ndarray) else list(values)
        self._positions = {v: i for i, v in enumerate(items)}
        if len(self._positions) != len(items):
            raise ParameterError(f"StringIndex values must be distinct ({len(items) - len(self._positions)} repeated)")
        self.values = _objects(items)
        self._ascii_positions: Optional[dict[bytes, int]] = None

    def __len__(self) -> int:
        return len(self._positions)

    def __getitem__(self, positions: Any) -> Any:
        """The values at ``positions`` (as ``pd.Index[...]``, here an object array or one value)."""
        return self.values[positions]

    def get_indexer(self, values: Any) -> np.ndarray:
        """The position of each value (int64), -1 where it is not in the index.

        A compact array (:func:`compact`) is looked up as bytes, among the index's ASCII values
        encoded (no other value can equal one of its ids).
        """
        items = _items(values)
        if is_compact(values):
            if self._ascii_positions is None:
                self._ascii_positions = {v.encode("ascii"): i for v, i in self._positions.items()
                                         if isinstance(v, str) and v.isascii()}
            get = self._ascii_positions.get
        else:
            get = self._positions.get
        return np.fromiter(map(get, items, repeat(-1, len(items))), dtype=np.int64, count=len(items))


def _uniques(items: list, encoded: bool) -> np.ndarray:
    """Distinct values as an object array, decoded to str if they are a compact array's bytes."""
    return _objects([v.decode("ascii") for v in items] if encoded else items)


def _objects(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out
