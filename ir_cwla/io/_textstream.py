"""One read of a text input: a path, ``-`` (stdin), a pipe, a FIFO, plain or compressed.

:func:`open_input` opens an input once and recognises gzip, bzip2 and xz from its first
bytes (read, then given back to the stream, so pipes work like files; zstd and zip are
named with the command that converts them), and Parquet and Arrow files, which it hands over
unread. :func:`line_blocks` cuts the decompressed
bytes into blocks of whole lines, numbered so that a parser can name the line of an error;
:func:`check_utf8` names the line of the first byte that is not UTF-8 text. Nothing here
knows what the lines mean: :mod:`ir_cwla.io` parses them as TREC runs and qrels.
"""
from __future__ import annotations

import bz2
import io
import lzma
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from ir_cwla.errors import InputError

STDIN = "-"
"""The input spec that reads standard input (named ``<stdin>`` in messages)."""

BLOCK_BYTES = 8 << 20
"""About how many bytes :func:`line_blocks` hands over at once (whole lines). pandas parses
8 MB as fast per byte as a whole file; a block's transient strings and buffers are part of the
peak memory of reading a run, so blocks stay this small."""

MAX_LINE_BYTES = 1 << 20
"""A longer line is an error (a binary file without newlines is not held in memory)."""


#: (magic bytes, name, opener of a decompressing binary stream)
_COMPRESSIONS: tuple[tuple[bytes, str, Callable[[BinaryIO], Any]], ...] = (
    (b"\x1f\x8b", "gzip", lambda f: _Gunzip(f)),
    (b"BZh", "bzip2", lambda f: bz2.BZ2File(f)),
    (b"\xfd7zXZ\x00", "xz", lambda f: lzma.LZMAFile(f)))
_UNSUPPORTED = ((b"\x28\xb5\x2f\xfd", "zstd-compressed", "zstd -dc FILE | ir-cwla ... -"),
                (b"PK\x03\x04", "a zip archive", "unzip -p FILE | ir-cwla ... -"))
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

TABLE_FORMATS = {"parquet": "a Parquet file", "arrow": "an Arrow IPC (Feather) file",
                 "arrow-stream": "an Arrow IPC stream", "feather-v1": "a Feather (version 1) file"}
"""The columnar formats :func:`open_input` recognises (by their first bytes) and hands over
unread, as they are, for a table reader: name -> how messages call them."""
_TABLES = ((b"PAR1", "parquet"), (b"ARROW1", "arrow"), (b"\xff\xff\xff\xff", "arrow-stream"),
           (b"FEA1", "feather-v1"))


def input_name(spec: Any) -> str:
    """How messages name an input: ``<stdin>`` for ``-``, else the path as given."""
    return "<stdin>" if spec == STDIN else str(spec)


class _Rewound(io.RawIOBase):
    """A raw stream that yields ``head`` (bytes already read to sniff the format), then ``rest``."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        readinto = getattr(self._rest, "readinto", None)
        if readinto is not None:            # straight into the caller's buffer: one copy fewer
            return readinto(buffer) or 0
        data = self._rest.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


GZIP_READ_BYTES = 1 << 20
"""How many compressed bytes :class:`_Gunzip` hands zlib at once."""


def _inflater() -> Any:
    """ISA-L's zlib-compatible module where installed, else zlib.

    ISA-L's zlib-compatible module where the ``isal`` package is installed (it inflates gzip
    2.5 times as fast as zlib: 60 ms instead of 150 ms for the 37 DL19 runs), else zlib.
    """
    global _INFLATE
    if _INFLATE is None:
        try:
            from isal import isal_zlib
        except ImportError:
            _INFLATE = zlib
        else:
            _INFLATE = isal_zlib
            _INFLATE_ERRORS.append(isal_zlib.error)  # type: ignore[arg-type]
    return _INFLATE


_INFLATE: Any = None
_INFLATE_ERRORS: list[type[BaseException]] = [EOFError, OSError, zlib.error, lzma.LZMAError, InputError]
"""What a failing decompressor raises (:func:`line_blocks` words them as one error)."""


class _Gunzip:
    """The decompressed bytes of a gzip stream, by ISA-L or zlib.

    The decompressed bytes of a gzip stream (one member or several, concatenated, with the
    zero padding GzipFile tolerates between them), by ISA-L or zlib (:func:`_inflater`), which
    check each member's CRC and length themselves. The standard library's GzipFile reads 8 KiB
    at a time and computes the CRC again in Python: reading a run through it took half again as
    long. Errors are the decompressor's and :class:`InputError` for a truncated stream
    (:func:`line_blocks` says after how many lines).
    """

    def __init__(self, raw: Any):
        self._raw = raw
        self._lib = _inflater()
        self._inflate = self._lib.decompressobj(16 + zlib.MAX_WBITS)
        self._input = b""
        self._member = False        # inside a member
        self._done = False

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            parts: list[bytes] = []
            while True:
                part = self.read(BLOCK_BYTES)
                if not part:
                    return b"".join(parts)
                parts.append(part)
        out: list[bytes] = []
        want = size
        while want > 0 and not self._done:
            if not self._input:
                self._input = self._raw.read(GZIP_READ_BYTES)
                if not self._input:
                    if self._member:
                        raise InputError("compressed file ended before the end-of-stream marker was reached")
                    self._done = True
                    break
            if not self._member:
                self._input = self._input.lstrip(b"\x00")      # padding between members, or at the end
                if not self._input:
                    continue
                self._member = True
            data = self._inflate.decompress(self._input, want)
            if self._inflate.eof:                               # the member's end: another may follow
                self._input = self._inflate.unused_data
                self._inflate = self._lib.decompressobj(16 + zlib.MAX_WBITS)
                self._member = False
            else:
                self._input = self._inflate.unconsumed_tail
            if data:
                out.append(data)
                want -= len(data)
        return b"".join(out)


def _open_error(ex: OSError, path: str, kind: str) -> Exception:
    if isinstance(ex, FileNotFoundError):
        real = os.path.realpath(path)
        if real.startswith(("/proc/self/fd/", f"/proc/{os.getpid()}/fd/")):
            closed = "standard input is closed" if real.endswith("/fd/0") else "it is not open"
            return InputError(f"{kind} file {path} names a file descriptor of this process ({real}), but {closed}")
        if os.path.islink(path):
            return InputError(f"{kind} file {path} is a broken symbolic link (to {os.readlink(path)})")
        return FileNotFoundError(f"{kind} file not found: {path}")
    if isinstance(ex, IsADirectoryError):
        return InputError(f"{kind} path is a directory, not a file: {path}")
    return InputError(f"cannot open {kind} file {path}: {ex.strerror or ex}")


@contextmanager
def open_input(spec: Any, kind: str = "input") -> Iterator[tuple[BinaryIO, str, str]]:
    """Opens a TREC input once, for one pass: ``(binary stream of its text, name, compression)``.

    ``spec`` is a path, ``-`` (stdin) or an open binary file. The compression (``'gzip'``,
    ``'bzip2'``, ``'xz'`` or ``'none'``) is recognised from the first bytes, which are read
    and then given back to the stream, so pipes and FIFOs work like files. A columnar file
    (Parquet, Arrow IPC, Feather: :data:`TABLE_FORMATS`) is recognised the same way and
    handed over as it is, its format in place of the compression.
    """
    name = input_name(spec)
    close = None
    if spec == STDIN:
        raw = getattr(sys.stdin, "buffer", None)
        if raw is None:         # `ir-cwla eval qrels - <&-`: no file descriptor 0
            raise InputError(f"{kind} is - (standard input), but standard input is closed")
    elif hasattr(spec, "read"):
        raw, name = getattr(spec, "buffer", spec), str(getattr(spec, "name", "<stream>"))
        if isinstance(spec, io.TextIOBase) and raw is spec:
            raise InputError(f"{kind} stream {name} is text without a byte buffer: open it in binary mode ('rb')")
    else:
        path = os.fspath(spec)
        try:
            raw = close = open(path, "rb")
        except OSError as ex:
            raise _open_error(ex, path, kind) from None
    try:
        try:
            head = raw.read(6)
            while len(head) < 6:           # a pipe may deliver fewer bytes than asked
                more = raw.read(6 - len(head))
                if not more:
                    break
                head += more
        except IsADirectoryError:
            raise InputError(f"{kind} path is a directory, not a file: {name}") from None
        for magic, what, hint in _UNSUPPORTED:
            if head.startswith(magic):
                raise InputError(f"{kind} file {name} is {what}, which ir_cwla does not read: {hint}")
        stream: BinaryIO = io.BufferedReader(_Rewound(head, raw))  # type: ignore[assignment]
        compression = "none"
        for magic, what, opener in _COMPRESSIONS:
            if head.startswith(magic):
                stream, compression = opener(stream), what
                break
        for magic, table in _TABLES:
            if head.startswith(magic):
                compression = table
        yield stream, name, compression
    finally:
        if close is not None:
            close.close()


def line_blocks(stream: BinaryIO, name: str, compression: str, kind: str) -> Iterator[tuple[int, bytes]]:
    """Blocks of whole lines of the stream, each with the number of its first line.

    Blocks of whole lines of the stream (about :data:`BLOCK_BYTES` each), with the number of
    each block's first line; a truncated or corrupt compressed stream is an :class:`InputError`
    that says after how many lines. (A block's lines are counted only if another block follows:
    a file of one block is never counted.)
    """
    line, rest = 1, b""
    last = b""              # the block handed over last, its lines not counted yet
    while True:
        try:
            data = stream.read(BLOCK_BYTES)
        except tuple(_INFLATE_ERRORS) as ex:
            whole = line - 1 + last.count(b"\n") + rest.count(b"\n")
            raise InputError(f"{kind} file {name}: {compression} data is truncated or corrupt after {whole} "
                             f"complete line(s) ({ex})") from None
        if not data:
            break
        data = rest + data if rest else data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            if len(rest) > MAX_LINE_BYTES:
                long_line = line + last.count(b"\n")
                raise InputError(f"{name}:{long_line}: a line longer than {MAX_LINE_BYTES >> 20} MiB: "
                                 f"not a {kind} file?")
            continue
        block, rest = data[:cut], data[cut:]
        line += last.count(b"\n")
        yield line, block
        last = block
    if rest:
        yield line + last.count(b"\n"), rest


def check_utf8(block: bytes, first_line: int, name: str, what: str) -> None:
    """Refuses a block holding a NUL byte or invalid UTF-8, naming the line.

    :class:`InputError` naming the line of the first NUL byte or invalid UTF-8 sequence
    of a block (UTF-16 text is recognised by its byte-order mark).
    """
    if first_line == 1 and block.startswith(_UTF16_BOMS):
        raise InputError(f"{name}:1: UTF-16 text; {what} files are UTF-8 (convert with iconv -f UTF-16 -t UTF-8)")
    nul = block.find(b"\x00")
    if nul >= 0:
        lineno = first_line + block.count(b"\n", 0, nul)
        raise InputError(f"{name}:{lineno}: binary data (a NUL byte); not a {what} file")
    if block.isascii():         # ASCII is UTF-8 (a test ten times faster than decoding)
        return
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as ex:
        lineno = first_line + block.count(b"\n", 0, ex.start)
        column = ex.start - (block.rfind(b"\n", 0, ex.start) + 1) + 1
        raise InputError(f"{name}:{lineno}: not UTF-8 text (byte 0x{block[ex.start]:02x} at column {column}); "
                         f"{what} files are UTF-8") from None


def text_lines(source: Any, kind: str) -> Iterator[tuple[str, int, str]]:
    """Every line of a text input, read once: ``(name, line number, text)``.

    The input is a path, ``-``, a FIFO or a stream, plain or compressed (:func:`open_input`);
    each block is checked to be UTF-8 (:func:`check_utf8`, naming the input and line) and a
    byte-order mark at the start of the input is dropped. ``kind`` names the input in messages.
    """
    with open_input(source, kind) as (stream, name, compression):
        for first, block in line_blocks(stream, name, compression, kind):
            check_utf8(block, first, name, kind)
            text = block.decode("utf-8")
            if first == 1 and text.startswith("\ufeff"):
                text = text[1:]
            for offset, line in enumerate(text.split("\n")):
                yield name, first + offset, line


def natural_key(qid: str) -> tuple:
    """Sort key of topic ids: numbers by value (``2`` before ``10``), then the others as text."""
    return (0, int(qid), "") if qid.isascii() and qid.isdigit() else (1, 0, qid)
