"""Runs stored in shards that each hold whole topics: scoring a run larger than one machine.

A run of 10^9 lines (MS MARCO scale) does not fit in one machine's memory, but every measure
scores each topic on its own, so a run can be scored shard by shard if no topic is split
between two shards. :func:`shards` describes how a stored run splits, without reading it:

- **a directory of run files partitioned by topic** (TREC text, plain or compressed, Parquet or
  Arrow; each file holds some topics whole): one piece per file;
- **a Hive-partitioned Parquet dataset** (``run/query_id=19335/part-0.parquet``, as
  ``pyarrow.dataset.write_dataset(..., partitioning=["query_id"], partitioning_flavor="hive")``
  and Spark write it; ``qid=`` is read too): one piece per partition, its topic from the name;
- **a Parquet file whose row groups follow the topics** (written sorted by topic): one piece per
  row group, the groups whose topic statistics touch kept together;
- **a plain TREC file whose lines are grouped by topic** (as every run file is written): byte
  ranges cut at a change of topic, found by reading a few lines at each cut;
- anything else (a compressed file, an Arrow file): one piece, the whole file.

Pieces are gathered into :class:`Shard` s of about ``shard_bytes`` bytes on disk, the unit one
task reads (:func:`read_shard`: every rule of :mod:`ir_cwla.io` applies, errors name the file and
its line or row). Whether a topic really lies in one shard only is checked when the shards have
been read (:func:`ir_cwla.meta.evaluate` refuses a run whose topic appears in two shards).
"""
from __future__ import annotations

import io as _io
import os
import re
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from ir_cwla.errors import InputError, MissingFileError, ParameterError

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_SHARD_BYTES = 64 << 20
"""About how many bytes (on disk) one shard holds: small enough that a worker holds a few at
once in a few hundred MB, large enough that reading dominates the cost of a task."""

#: Names of a Hive partition key that is the topic id.
PARTITION_KEYS = ("query_id", "qid")
#: How many bytes are read at a time when looking for a change of topic after a cut.
SCAN_BYTES = 1 << 16


@dataclass(frozen=True)
class Piece:
    """One stored part of a run.

    A whole file, a Hive partition directory, some row groups of a Parquet file,
    or a byte range (whole lines) of a plain TREC file.
    """

    path: str
    kind: str                           # 'file', 'partition', 'row_groups' or 'bytes'
    size: int                           # bytes on disk
    start: int = 0                      # 'bytes': [start, stop) of the file
    stop: int = 0
    row_groups: tuple[int, ...] = ()    # 'row_groups': their numbers, and the rows before the first
    first_row: int = 0
    topic: Optional[str] = None         # 'partition': the topic id its name gives
    key: str = "query_id"               # 'partition': the key's name

    def __str__(self) -> str:
        if self.kind == "bytes":
            return f"{self.path} (bytes {self.start}-{self.stop})"
        if self.kind == "row_groups":
            first, last = self.row_groups[0], self.row_groups[-1]
            return f"{self.path} (row group{'s' if last > first else ''} {first}{f'-{last}' if last > first else ''})"
        return self.path


@dataclass(frozen=True)
class Shard:
    """Pieces read by one task, holding whole topics (see :func:`read_shard`)."""

    pieces: tuple[Piece, ...]
    index: int = 0

    @property
    def size(self) -> int:
        """The bytes the shard's pieces hold."""
        return sum(p.size for p in self.pieces)

    @property
    def topics(self) -> Optional[tuple[str, ...]]:
        """The topics, where the pieces' names give them (Hive partitions), else None."""
        if all(p.kind == "partition" for p in self.pieces):
            return tuple(str(p.topic) for p in self.pieces)
        return None

    def __str__(self) -> str:
        shown = ", ".join(map(str, self.pieces[:2]))
        return f"shard {self.index} ({shown}{f' and {len(self.pieces) - 2} more' if len(self.pieces) > 2 else ''})"


@dataclass(frozen=True)
class Shards(Sequence[Shard]):
    """A stored run split into shards that each hold whole topics (:func:`shards`).

    Pass it as a run to :func:`ir_cwla.meta.evaluate` (``{name: shards}``, or the object alone):
    each task then reads one shard and nothing holds the whole run.
    """

    source: str
    shards: tuple[Shard, ...]
    layout: str                         # 'files', 'partitions', 'row_groups', 'byte_ranges' or 'file'
    name: Optional[str] = field(default=None)   # None: named by the path (ir_cwla.meta.run_name)

    def __len__(self) -> int:
        return len(self.shards)

    def __getitem__(self, index: Any) -> Any:
        return self.shards[index]

    def __iter__(self) -> Iterator[Shard]:
        return iter(self.shards)

    @property
    def size(self) -> int:
        """Bytes on disk of the whole run."""
        return sum(s.size for s in self.shards)

    def __repr__(self) -> str:
        return f"Shards({self.source!r}, {len(self.shards)} shards of {self.layout}, {self.size:,} bytes)"


# ------------------------------------------------------------------------- describing the shards

def shards(source: Union[str, os.PathLike[str]], shard_bytes: int = DEFAULT_SHARD_BYTES,
           name: Optional[str] = None) -> Shards:
    """How the run stored at ``source`` splits into shards of whole topics (read lazily).

    Parameters
    ----------
    source : path
        A directory of run files partitioned by topic, a Hive-partitioned Parquet dataset
        (``query_id=.../``), a Parquet file sorted by topic, or a TREC run file (a plain one is
        cut into byte ranges at changes of topic; a compressed one is one shard).
    shard_bytes : int
        About how many bytes on disk each shard holds (default :data:`DEFAULT_SHARD_BYTES`); a
        piece larger than that (a big file, a topic of its own) is a shard of its own.
    name : str, optional
        The run's name in frames (default: what :func:`ir_cwla.meta.run_name` makes of the path).

    Returns
    -------
    Shards
        Nothing is read but the directory listing, the Parquet footers and, for a plain TREC
        file, a few lines after each cut.
    """
    if isinstance(shard_bytes, bool) or not isinstance(shard_bytes, int) or shard_bytes < 1:
        raise ParameterError(f"shard_bytes must be an int >= 1, got {shard_bytes!r}")
    path = Path(os.fspath(source))
    if not path.exists():
        raise MissingFileError(f"run file or directory not found: {path}")
    shown = name
    if path.is_dir():
        pieces, layout = _directory_pieces(path)
        return Shards(str(path), _gather(pieces, shard_bytes), layout, shown)
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(6)
    from ir_cwla.io._textstream import _COMPRESSIONS, _TABLES

    if head.startswith(b"PAR1"):
        return Shards(str(path), _gather_row_groups(_row_group_pieces(path), shard_bytes), "row_groups", shown)
    if any(head.startswith(m) for m, *_ in _COMPRESSIONS) or any(head.startswith(m) for m, _ in _TABLES):
        return Shards(str(path), (Shard((Piece(str(path), "file", size),), 0),), "file", shown)
    return Shards(str(path), _gather(_byte_ranges(path, size, shard_bytes), shard_bytes), "byte_ranges", shown)


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "_")))


def _directory_pieces(folder: Path) -> tuple[list[Piece], str]:
    """The files of a directory (one piece each), or its Hive partitions (``query_id=VALUE/``)."""
    entries = _visible(folder)
    if not entries:
        raise InputError(f"run directory {folder} is empty")
    dirs = [p for p in entries if p.is_dir()]
    if dirs:
        if len(dirs) != len(entries):
            files = [p.name for p in entries if not p.is_dir()]
            raise InputError(f"run directory {folder} mixes partition directories and files ({', '.join(files[:3])}): "
                             "give a directory of run files, or a Hive-partitioned dataset (query_id=.../)")
        pieces = []
        for d in dirs:
            key, sep, value = d.name.partition("=")
            if not sep or key not in PARTITION_KEYS:
                raise InputError(f"run directory {folder}: {d.name}/ is not a Hive partition of the topic "
                                 f"({' or '.join(k + '=TOPIC' for k in PARTITION_KEYS)})")
            held = [f for f in _visible(d) if f.is_file()]
            if not held:
                raise InputError(f"partition {d} holds no file")
            pieces.append(Piece(str(d), "partition", sum(f.stat().st_size for f in held),
                                topic=urllib.parse.unquote(value), key=key))
        return pieces, "partitions"
    return [Piece(str(p), "file", p.stat().st_size) for p in entries], "files"


def _gather(pieces: Sequence[Piece], shard_bytes: int) -> tuple[Shard, ...]:
    """Consecutive pieces gathered into shards of about ``shard_bytes`` (at least one piece each)."""
    out: list[Shard] = []
    current: list[Piece] = []
    size = 0
    for piece in pieces:
        if current and size + piece.size > shard_bytes:
            out.append(Shard(tuple(current), len(out)))
            current, size = [], 0
        current.append(piece)
        size += piece.size
    if current:
        out.append(Shard(tuple(current), len(out)))
    return tuple(out)


# -- Parquet row groups

def _row_group_pieces(path: Path) -> list[tuple[Piece, Optional[str], Optional[str]]]:
    """One piece per row group, with the smallest and largest topic id its statistics give."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path).metadata
    except Exception as ex:      # pyarrow raises several kinds for a damaged footer
        raise InputError(f"run file {path}: cannot read it as a Parquet file ({ex})") from None
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    column = next((names.index(k) for k in PARTITION_KEYS if k in names), None)
    out = []
    first_row = 0
    for i in range(meta.num_row_groups):
        rg = meta.row_group(i)
        low = high = None
        if column is not None:
            stats = rg.column(column).statistics
            if stats is not None and stats.has_min_max:
                low, high = str(stats.min), str(stats.max)
        out.append((Piece(str(path), "row_groups", rg.total_byte_size, row_groups=(i,), first_row=first_row), low, high))
        first_row += rg.num_rows
    return out


def _gather_row_groups(groups: list[tuple[Piece, Optional[str], Optional[str]]], shard_bytes: int
                       ) -> tuple[Shard, ...]:
    """Consecutive row groups in shards of about ``shard_bytes``.

    Two groups whose topic ranges touch (a topic that continues from one into the
    next) never go to different shards.
    """
    out: list[Shard] = []
    current: list[tuple[Piece, Optional[str], Optional[str]]] = []
    size = 0

    def close() -> None:
        first = current[0][0]
        piece = Piece(first.path, "row_groups", size, row_groups=tuple(g for p, _, _ in current for g in p.row_groups),
                      first_row=first.first_row)
        out.append(Shard((piece,), len(out)))

    for group in groups:
        piece, low, _ = group
        touches = bool(current) and current[-1][2] is not None and current[-1][2] == low
        if current and size + piece.size > shard_bytes and not touches:
            close()
            current, size = [], 0
        current.append(group)
        size += piece.size
    if current:
        close()
    return tuple(out)


# -- byte ranges of a plain TREC file

def _topic_of(line: bytes) -> Optional[bytes]:
    """The first field of a line (None for a blank or comment line)."""
    fields = line.split(None, 1)
    if not fields or fields[0].startswith(b"#"):
        return None
    return fields[0]


def _next_topic_start(f: Any, offset: int, size: int) -> int:
    """The offset of the next line that starts a new topic: a cut that splits no topic.

    The offset of the first line at or after ``offset`` (past the line ``offset`` falls in)
    whose topic differs from the line before it: a cut that splits no topic.
    """
    f.seek(max(offset - 1, 0))
    buffer = f.read(SCAN_BYTES)
    pos = max(offset - 1, 0)
    # skip to the start of the next line
    newline = buffer.find(b"\n")
    while newline < 0:
        more = f.read(SCAN_BYTES)
        if not more:
            return size
        pos += len(buffer)
        buffer = more
        newline = buffer.find(b"\n")
    start = pos + newline + 1
    buffer = buffer[newline + 1:]
    current: Optional[bytes] = None
    while True:
        newline = buffer.find(b"\n")
        while newline < 0:
            more = f.read(SCAN_BYTES)
            if not more:
                if buffer and current is not None and _topic_of(buffer) not in (None, current):
                    return start
                return size
            buffer += more
            newline = buffer.find(b"\n")
        topic = _topic_of(buffer[:newline])
        if topic is not None:
            if current is not None and topic != current:
                return start
            current = topic
        start += newline + 1
        buffer = buffer[newline + 1:]


def _byte_ranges(path: Path, size: int, shard_bytes: int) -> list[Piece]:
    """Byte ranges of about ``shard_bytes`` of a plain TREC file, each cut where the topic changes."""
    cuts = [0]
    with open(path, "rb") as f:
        while cuts[-1] + shard_bytes < size:
            cut = _next_topic_start(f, cuts[-1] + shard_bytes, size)
            if cut >= size:
                break
            cuts.append(cut)
    cuts.append(size)
    return [Piece(str(path), "bytes", b - a, start=a, stop=b) for a, b in zip(cuts[:-1], cuts[1:])]


class _Range(_io.RawIOBase):
    """Bytes ``[start, stop)`` of a file, as a stream named by the file's path."""

    def __init__(self, path: str, start: int, stop: int):
        self.name = path
        self._file = open(path, "rb")
        self._file.seek(start)
        self._left = stop - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[: self._left]
        n = self._file.readinto(view) or 0
        self._left -= n
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def _lines_before(path: str, offset: int) -> int:
    """How many lines of the file lie before byte ``offset`` (read only to word an error)."""
    count = 0
    with open(path, "rb") as f:
        left = offset
        while left > 0:
            block = f.read(min(left, 8 << 20))
            if not block:
                break
            count += block.count(b"\n")
            left -= len(block)
    return count


def _shifted(ex: InputError, name: str, what: str, offset: int) -> InputError:
    """``ex`` with the line (``what='line'``) or row numbers it gives for ``name`` moved by ``offset``.

    Those of the whole file, not of the piece that was read.
    """
    text = str(ex)
    if what == "line":
        text = re.sub(re.escape(name) + r":(\d+)", lambda m: f"{name}:{int(m.group(1)) + offset}", text)
        text = re.sub(re.escape(name) + r", lines (\d+)-(\d+)",
                      lambda m: f"{name}, lines {int(m.group(1)) + offset}-{int(m.group(2)) + offset}", text)
    else:
        text = re.sub(r", row (\d+)", lambda m: f", row {int(m.group(1)) + offset}", text)
    return InputError(text)


# ------------------------------------------------------------------------- reading a shard

def read_shard(shard: Shard, name: str = "run", element_type: bool = False) -> pd.DataFrame:
    """The run lines of one shard as a checked run frame (:func:`ir_cwla.io.as_run_frame`'s).

    Every rule of :mod:`ir_cwla.io` applies to each piece (errors name the file and its line, or
    its row counted from 1 in the file); duplicates are dropped within a topic, which lies in one
    piece: a topic found in two pieces of the shard is an :class:`InputError`.
    """
    import numpy as np
    import pandas as pd

    from ir_cwla.io import _frames as io

    frames = [_read_piece(piece, name, element_type) for piece in shard.pieces]
    if len(frames) == 1:
        return frames[0]
    seen: dict[str, int] = {}
    for i, frame in enumerate(frames):
        for topic in pd.unique(frame["query_id"]).tolist():
            if topic in seen:
                raise InputError(f"run {name}: topic {topic!r} is in two pieces of {shard}: {shard.pieces[seen[topic]]} "
                                 f"and {shard.pieces[i]}; each topic's lines must lie in one file or partition")
            seen[topic] = i
    out = pd.concat(frames, ignore_index=True)
    out["score"] = out["score"].to_numpy(dtype=np.float64)
    return io._mark_checked(out)


def _read_piece(piece: Piece, name: str, element_type: bool) -> pd.DataFrame:
    from ir_cwla.io import _frames as io

    if piece.kind == "file":
        return io.read_trec_run(piece.path, name=name, element_type=element_type)
    if piece.kind == "bytes":
        stream = _io.BufferedReader(_Range(piece.path, piece.start, piece.stop), buffer_size=1 << 20)
        try:
            return io.read_trec_run(stream, name=name, element_type=element_type)
        except InputError as ex:
            if piece.start == 0:
                raise
            raise _shifted(ex, piece.path, "line", _lines_before(piece.path, piece.start)) from None
        finally:
            stream.close()
    import pyarrow.parquet as pq

    if piece.kind == "row_groups":
        table = pq.ParquetFile(piece.path).read_row_groups(list(piece.row_groups))
        where = str(piece)
        try:
            frame = io._checked_run_table(table.to_pandas(), where, element_type)
        except InputError as ex:
            raise _shifted(ex, where, "row", piece.first_row) from None
        return io._mark_checked(frame)
    if piece.kind == "partition":
        import pandas as pd

        frames = []
        for path in (p for p in _visible(Path(piece.path)) if p.is_file()):
            frame = pq.read_table(path).to_pandas()
            renamed = {"qid": "query_id"}
            present = [c for c in ("query_id", "qid") if c in frame.columns]
            if present:
                ids = frame[present[0]].astype(str)
                if (ids != piece.topic).any():
                    raise InputError(f"run file {path}: topic {ids[ids != piece.topic].iloc[0]!r} in the partition of "
                                     f"topic {piece.topic!r}")
            else:
                frame.insert(0, "query_id", piece.topic)
            frame = frame.rename(columns={k: v for k, v in renamed.items() if k in frame.columns
                                          and v not in frame.columns})
            frames.append(io._checked_run_table(frame, str(path), element_type, dedup=False))
        whole = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        return io._mark_checked(io.drop_duplicate_docs(whole, name))
    raise ParameterError(f"unknown piece kind {piece.kind!r}")
