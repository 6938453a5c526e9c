"""A self-contained HTML report: tables and figures in one file that needs no network.

Figures are embedded as base64 PNG (``data:`` URIs), the stylesheet is inline, and there
is no script. Every piece of text that reaches the page (a run name, a topic, a measure, a
caption, a table cell or header) goes through :func:`html.escape`, so a run named
``<script>`` is shown as text and never interpreted.

The page fits a window from 800 px wide up: a table wider than the page scrolls sideways in
its own box with its first column (the system or measure) kept in view, numbers are
right-aligned with one format per column, and figures shrink to the page. A report is
written whole or not at all (:func:`staged`): into a temporary directory, moved into place
at the end; rewriting a report replaces only the files it wrote (its :data:`MARKER` file
lists them) and keeps anything else in its directory::

    with staged("report") as directory:
        report = HtmlReport("Cranfield demo", directory=directory)
        report.section("Effectiveness")
        report.table(means, caption="Mean over 225 topics", filename="means.csv")
        report.figure(ax, caption="Kendall's tau between measures", filename="tau.png")
        report.write()                       # directory/index.html, then moved to report/
"""
from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime
import html
import io
import json
import math
import numbers
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla._text import csv_safe
from ir_cwla.errors import ArgumentTypeError, OutputError, OutputWarning, ParameterError
from ir_cwla.leaderboard.dynascore import DEFAULT_WEIGHTS

STYLE = """
*, *::before, *::after { box-sizing: border-box; }
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1150px;
       margin: 1.5em auto; padding: 0 16px; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; font-size: 1.8em; }
h2 { margin-top: 2em; border-bottom: 1px solid #bbb; }
p, li, figcaption, .caption { overflow-wrap: anywhere; }
.table { margin: .6em 0 1.6em; }
.caption { font-style: italic; margin: .3em 0; }
.scroll { display: inline-block; vertical-align: top; overflow-x: auto; max-width: 100%; border: 1px solid #ccc; }
table { border-collapse: separate; border-spacing: 0; font-size: 13px; width: max-content; }
th, td { border-right: 1px solid #ddd; border-bottom: 1px solid #ddd; padding: 3px 8px; white-space: nowrap;
         background: #fff; }
th { background: #f0f0f0; text-align: left; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; }
th:first-child, td:first-child { position: sticky; left: 0; z-index: 1; box-shadow: inset -1px 0 0 #aaa;
                                 white-space: normal; min-width: 6em; max-width: 22em; overflow-wrap: anywhere; }
tr.best td { font-weight: bold; background: #fff6d5; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-style: italic; font-size: 14px; }
pre { background: #f6f6f6; padding: .7em; overflow-x: auto; font-size: 13px; }
.note { color: #555; font-size: 14px; }
.warning { background: #fff4e0; border-left: 4px solid #e8a33c; padding: .4em .9em; margin: .8em 0; }
.warning ul { margin: .2em 0; padding-left: 1.2em; }
nav ul { columns: 2; }
@media (max-width: 700px) { nav ul { columns: 1; } }
"""
_NUM = ' class="num"'
_NOTE = ' class="note"'
#: An empty file of this name marks a directory as a report ir_cwla wrote (and may replace).
MARKER = ".ir-cwla-report"


def escape(value: Any) -> str:
    """``html.escape`` of ``str(value)`` (quotes included)."""
    return html.escape(str(value), quote=True)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def column_formatter(values: Sequence[Any], precision: int = 4) -> Callable[[Any], str]:
    """One format for a whole column, so that its numbers line up.

    Integers as integers; other numbers with ``precision`` decimals, or, when the largest
    magnitude is below ``10**-precision`` (it would print as 0) or at least 1e7, all in
    scientific notation with 3 significant digits. NaN is an empty cell; text as it is.
    """
    numbers_ = [float(v) for v in values if _is_number(v)]
    finite = [abs(v) for v in numbers_ if math.isfinite(v)]
    integral = all(isinstance(v, numbers.Integral) for v in values if _is_number(v))
    largest = max(finite, default=0.0)
    scientific = largest != 0 and (largest < 10 ** -precision or largest >= 1e7)

    def fmt(value: Any) -> str:
        if value is None or (_is_number(value) and math.isnan(float(value))):
            return ""
        if isinstance(value, (bool, np.bool_)) or not _is_number(value):
            return str(value)
        if integral:
            return str(int(value))
        return f"{float(value):.2e}" if scientific else f"{float(value):.{precision}f}"

    return fmt


Precision = Union[int, Mapping[str, int]]


def _formatters(df: pd.DataFrame, precision: Precision) -> list[Callable[[Any], str]]:
    default = precision if isinstance(precision, int) else 4
    per_column = precision if isinstance(precision, Mapping) else {}
    return [column_formatter(df.iloc[:, k].tolist(), per_column.get(str(c), default))
            for k, c in enumerate(df.columns)]


def text_table(df: pd.DataFrame, precision: Precision = 4, index: bool = True) -> str:
    r"""``df`` as aligned plain text for the terminal, numbers formatted as in the HTML tables.

    Control characters of a cell, a label or a column name (a newline in a system name) are
    written as escapes (``a\nb``, :func:`ir_cwla._text.escape_name`): one row stays one line.
    """
    from ir_cwla._text import escape_name

    formats = _formatters(df, precision)
    cells = [[escape_name(fmt(v)) for fmt, v in zip(formats, row)] for row in df.itertuples(index=False, name=None)]
    head = [escape_name(str(c)) for c in df.columns]
    right = [any(_is_number(v) and not isinstance(v, (bool, np.bool_)) for v in df.iloc[:, k])
             for k in range(df.shape[1])]
    columns = list(zip(*cells)) if cells else [()] * len(head)
    if index:
        head = [escape_name(str(df.index.name or ""))] + head
        columns = [tuple(escape_name(str(v)) for v in df.index)] + columns
        right = [False] + right
    widths = [max([len(h)] + [len(v) for v in col]) for h, col in zip(head, columns)]

    def line(items: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(items, widths, right)).rstrip()

    return "\n".join([line(head)] + [line(row) for row in zip(*columns)]) if columns else line(head)


def table_html(df: pd.DataFrame, caption: Optional[str] = None, index: bool = True, precision: Precision = 4,
               highlight: Optional[set] = None) -> str:
    """An escaped HTML table of ``df``, inside a box that scrolls sideways when it is wider than the page.

    The index is the first column when ``index``; when the box scrolls, the first column stays put.

    Numbers are right-aligned with one format per column (:func:`column_formatter`;
    ``precision`` is an int or a mapping column -> decimals). Rows whose index label is in
    ``highlight`` are emphasised.
    """
    highlight = highlight or set()
    formats = _formatters(df, precision)
    numeric = [any(_is_number(v) for v in df.iloc[:, k]) for k in range(df.shape[1])]
    head = ([f"<th>{escape(df.index.name or '')}</th>"] if index else []) + \
        [f"<th{_NUM if num else ''}>{escape(c)}</th>" for c, num in zip(df.columns, numeric)]
    rows = []
    for label, values in zip(df.index, df.itertuples(index=False, name=None)):
        cells = [f"<td>{escape(label)}</td>"] if index else []
        for fmt, v in zip(formats, values):
            num = _is_number(v) and not isinstance(v, (bool, np.bool_))
            cells.append(f"<td{_NUM if num else ''}>{escape(fmt(v))}</td>")
        cls = ' class="best"' if label in highlight else ""
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    cap = f'<p class="caption">{escape(caption)}</p>' if caption else ""
    return (f'<div class="table">{cap}<div class="scroll"><table><thead><tr>{"".join(head)}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div></div>")


def figure_png(fig: Any, dpi: int = 110) -> bytes:
    """The PNG bytes of a matplotlib Figure (or of the Figure of an Axes)."""
    fig = getattr(fig, "figure", fig)
    buf = io.BytesIO()
    with np.errstate(over="ignore"):        # matplotlib's log transforms near the floats' ends (1e300)
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


# ------------------------------------------------------------------------- writing whole reports

#: First line of the :data:`MARKER` file; the files the report wrote follow as a JSON list.
_MARKER_HEAD = "written by ir_cwla; rewriting this report replaces the files listed below and keeps anything else"


def check_output(out: Union[str, Path], inputs: Sequence[Union[str, Path]] = ()) -> Path:
    """The report directory ``out``, checked before any work starts.

    ``out`` may be new, an empty directory, or a report ir_cwla wrote before (it holds the
    :data:`MARKER` file; :func:`staged` replaces the report's own files and keeps anything
    else). Refused: a file, a directory of other things, a directory that holds one of the
    ``inputs`` or the current directory (it would be deleted), or a place where no directory
    can be created.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out} is a file; give a directory for the report")
    resolved = out.resolve()
    if resolved == Path.cwd().resolve() or resolved in Path.cwd().resolve().parents:
        raise OutputError(f"--out {out} is the current directory (or holds it); give a directory of its own")
    for item in inputs:
        path = Path(item).resolve()
        if path == resolved or resolved in path.parents:
            raise OutputError(f"--out {out} contains the input {item}; writing the report there would delete it")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise OutputError(f"--out {out} is a directory that holds other files (not a report ir_cwla wrote); "
                         "give a new or empty directory")
    parent = resolved.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"--out {out}: cannot create a directory in {parent}")
    try:            # (os.access says yes to root, and on a read-only file system or /proc: try)
        os.rmdir(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".probe", dir=parent))
    except OSError as ex:
        raise OutputError(f"--out {out}: cannot create a directory in {parent} ({ex.strerror or ex})") from None
    return out


def _signature(path: Path) -> Optional[list[int]]:
    """What tells a file the report wrote from one changed since: its size and modification time.

    None for a directory.
    """
    if path.is_dir() and not path.is_symlink():
        return None
    info = path.lstat()
    return [info.st_size, info.st_mtime_ns]


def _tree(root: Path) -> dict[str, Optional[list[int]]]:
    """Every file and directory under ``root`` (not following links), with its :func:`_signature`.

    The keys are relative POSIX paths, directories with a trailing ``/``.
    """
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        signature = _signature(path)
        out[rel + "/" if signature is None else rel] = signature
    return dict(sorted(out.items()))


def _listed(out: Path) -> Optional[dict[str, Optional[list[int]]]]:
    """The files and directories the report in ``out`` wrote, as its :data:`MARKER` lists them.

    None for a report of an older ir_cwla, whose marker lists nothing.
    """
    try:
        head, _, body = (out / MARKER).read_text(encoding="utf-8").partition("\n")
        files = json.loads(body) if head == _MARKER_HEAD else None
    except (OSError, ValueError):
        return None
    if isinstance(files, dict) and all(isinstance(f, str) for f in files):
        return files
    return None


def report_files(out: Union[str, Path]) -> Optional[list[str]]:
    """The files and directories the report in ``out`` wrote, as its :data:`MARKER` lists them.

    Directories end with ``/``. None for a report of an older ir_cwla, whose marker lists nothing.
    """
    listed = _listed(Path(out))
    return None if listed is None else sorted(listed)


def _owned(out: Path, written: dict[str, Optional[list[int]]]) -> set[str]:
    """What rewriting the report in ``out`` may replace.

    That is what of ``out`` the earlier report wrote and nobody changed since (same size and
    time). For a report of an older ir_cwla, which lists nothing: the paths the new report
    writes again.
    """
    listed = _listed(out)
    if listed is None:
        return set(written)
    owned = set()
    for rel, signature in listed.items():
        path = out / rel.rstrip("/")
        try:
            if signature is None or _signature(path) == signature:
                owned.add(rel)
        except OSError:
            continue
    return owned


def _foreign(out: Path, owned: set[str]) -> list[str]:
    """What ``out`` holds that is not the report's: the topmost such entries, sorted.

    ``owned`` holds the report's files and directories.
    """
    found = []

    def walk(directory: Path, prefix: str) -> None:
        for path in sorted(directory.iterdir()):
            is_dir = path.is_dir() and not path.is_symlink()
            rel = prefix + path.name + ("/" if is_dir else "")
            if rel.rstrip("/") == MARKER:
                continue
            if rel not in owned:
                found.append(rel)
            elif is_dir:
                walk(path, rel)

    walk(out, "")
    return found


@contextlib.contextmanager
def staged(out: Union[str, Path], inputs: Sequence[Union[str, Path]] = ()) -> Iterator[Path]:
    """Writes a report whole or not at all, and never deletes what the report did not write.

    Yields a new temporary directory beside ``out`` (same file system) to write everything
    into; when the block ends without an error, the directory gets the :data:`MARKER` file
    (listing every file it holds, with its size and time) and replaces ``out``. Of an earlier
    report in ``out``, only the files its marker lists, unchanged since, go (for a report of an
    older ir_cwla, whose marker lists none: those the new report writes again); anything else
    there (a user's file, a file changed since, another report written inside it) is moved
    into the new report as it was. If such a thing has the name of a file of the new report,
    nothing is replaced (:class:`OutputError`). On an error (or Ctrl-C) the temporary directory
    is deleted and ``out`` is left as it was. ``out`` a symbolic link: the report is written where
    it points, and the link stays.
    """
    out = check_output(out, inputs)
    if out.is_symlink():        # a link to the report's directory: the report goes there, the link stays
        out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_staging(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.{os.getpid()}.", suffix=".tmp", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)                 # mkdtemp's 0700 is for secrets, not reports
    moved: list[tuple[Path, Path]] = []           # (where it was in out, where it is in tmp)
    try:
        yield tmp
        written = _tree(tmp)
        (tmp / MARKER).write_text(_MARKER_HEAD + "\n" + json.dumps(written, indent=0) + "\n", encoding="utf-8")
        if not out.exists():
            os.replace(tmp, out)
            return
        listed = _listed(out) or {}
        owned = _owned(out, written)
        for rel in _foreign(out, owned):          # kept: moved into the new report as they are
            target = tmp / rel.rstrip("/")
            if os.path.lexists(target) or any(p.exists() and not p.is_dir() for p in target.parents):
                why = "was changed after this report wrote it" if rel in listed else "was not written by this report"
                raise OutputError(f"{out / rel} {why}, and the new report writes {rel.rstrip('/')} too; move it "
                                  "away, or give another --out")
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(out / rel.rstrip("/"), target)
            moved.append((out / rel.rstrip("/"), target))
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
        os.replace(out, old / out.name)
        try:
            os.replace(tmp, out)
        except BaseException:
            os.replace(old / out.name, out)          # the earlier report back in place, then what was kept
            old.rmdir()
            raise
        moved = []                                    # what was kept is in out now, with the new report
        _remove_owned(old / out.name, owned)
        with contextlib.suppress(OSError):
            old.rmdir()
        if old.exists():
            warnings.warn(f"{old} holds what was added to {out} while the report was written; it was kept",
                          OutputWarning, stacklevel=3)
    except BaseException:
        for source, target in reversed(moved):       # what was not the report's goes back first
            with contextlib.suppress(OSError):
                source.parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, source)
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _remove_stale_staging(out: Path) -> None:
    """Deletes the staging directories of ``out`` that a process which ended without cleaning up left.

    A process killed while it writes a report (SIGKILL, a crash inside a library under
    ``ulimit -v``) cannot delete its staging directory ``.NAME.PID.*.tmp``; the next report
    written to ``out`` deletes those whose process is gone, with an :class:`OutputWarning`.
    """
    import re

    pattern = re.compile(re.escape(f".{out.name}.") + r"(\d+)\.[^/]*\.tmp")
    with contextlib.suppress(OSError):
        for entry in out.parent.iterdir():
            found = pattern.fullmatch(entry.name)
            if not found or not entry.is_dir() or entry.is_symlink():
                continue
            pid = int(found.group(1))
            try:
                os.kill(pid, 0)
                continue                        # its process still runs (or another of that id)
            except ProcessLookupError:
                pass
            except (PermissionError, OverflowError, OSError):
                continue
            shutil.rmtree(entry, ignore_errors=True)
            warnings.warn(f"removed {entry}, the staging directory of a report to {out} whose process (pid {pid}) "
                          "ended without finishing it", OutputWarning, stacklevel=4)


def _remove_owned(root: Path, owned: set[str]) -> None:
    """Deletes what of ``root`` the report owns; anything else stays.

    That is the files and (then empty) directories of ``root`` that ``owned`` lists, the marker,
    and ``root`` itself if that empties it.
    """
    for rel in sorted(owned | {MARKER}, key=lambda r: -r.rstrip("/").count("/")):       # deepest first
        path = root / rel.rstrip("/")
        with contextlib.suppress(OSError):
            if rel.endswith("/") and path.is_dir() and not path.is_symlink():
                path.rmdir()
            elif path.is_file() or path.is_symlink():
                path.unlink()
    with contextlib.suppress(OSError):
        root.rmdir()


class HtmlReport:
    """An HTML page assembled section by section; :meth:`render` returns it as one string.

    With a ``directory``, every table and figure given a ``filename`` is also written there
    (CSV, with spreadsheet-dangerous cells neutralised, and PNG), next to the page that
    :meth:`write` puts at ``directory/index.html``. Write reports with :func:`staged`, so that
    a failure never leaves half a report.
    """

    def __init__(self, title: str, subtitle: Optional[str] = None,
                 directory: Union[str, Path, None] = None):
        self.title = title
        self.subtitle = subtitle
        self.directory = Path(directory) if directory is not None else None
        self._parts: list[str] = []
        self._sections: list[tuple[str, str]] = []

    def _file(self, filename: Optional[str]) -> Optional[Path]:
        if filename is None or self.directory is None:
            return None
        path = self.directory / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def section(self, title: str) -> HtmlReport:
        """Starts a section (an ``h2`` with an anchor listed in the table of contents)."""
        anchor = f"s{len(self._sections) + 1}"
        self._sections.append((anchor, title))
        self._parts.append(f'<h2 id="{anchor}">{escape(title)}</h2>')
        return self

    def text(self, text: str, note: bool = False) -> HtmlReport:
        """A paragraph of plain text (escaped)."""
        self._parts.append(f"<p{_NOTE if note else ''}>{escape(text)}</p>")
        return self

    def bullets(self, items: list[str]) -> HtmlReport:
        """A bulleted list of plain-text items (escaped)."""
        self._parts.append("<ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>")
        return self

    def warnings(self, items: Sequence[str], title: str = "Read with care") -> HtmlReport:
        """A highlighted box of warnings (nothing when ``items`` is empty)."""
        if items:
            self._parts.append(f'<div class="warning"><strong>{escape(title)}</strong><ul>'
                               + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul></div>")
        return self

    def code(self, text: str) -> HtmlReport:
        """Preformatted text (a command, a terminal summary), escaped."""
        self._parts.append(f"<pre>{escape(text)}</pre>")
        return self

    def table(self, df: pd.DataFrame, caption: Optional[str] = None, index: bool = True, precision: Precision = 4,
              highlight: Optional[set] = None, filename: Optional[str] = None) -> HtmlReport:
        """A DataFrame as an escaped table (see :func:`table_html`), also saved as ``filename``.

        The file is a CSV with full precision; text cells that a spreadsheet would run as formulas
        get a leading ``'`` (:func:`ir_cwla.text.csv_safe`).
        """
        self._parts.append(table_html(df, caption, index, precision, highlight))
        path = self._file(filename)
        if path is not None:
            csv_safe(df).to_csv(path, index=index)
        return self

    def figure(self, fig: Any, caption: str, close: bool = True, filename: Optional[str] = None) -> HtmlReport:
        """A matplotlib Figure or Axes, embedded as a base64 PNG (and saved as ``filename``).

        The figure is closed afterwards by default (``close``).
        """
        try:
            png = figure_png(fig)
        finally:
            if close:
                import matplotlib.pyplot as plt

                plt.close(getattr(fig, "figure", fig))
        path = self._file(filename)
        if path is not None:
            path.write_bytes(png)
        data = base64.b64encode(png).decode("ascii")
        self._parts.append(f'<figure><img alt="{escape(caption)}" src="data:image/png;base64,{data}">'
                           f"<figcaption>{escape(caption)}</figcaption></figure>")
        return self

    def render(self) -> str:
        """The whole page."""
        toc = "".join(f'<li><a href="#{a}">{escape(t)}</a></li>' for a, t in self._sections)
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        sub = f"<p>{escape(self.subtitle)}</p>" if self.subtitle else ""
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{escape(self.title)}</title><style>{STYLE}</style></head><body>"
                f"<h1>{escape(self.title)}</h1>{sub}<p class=\"note\">Generated by ir_cwla on {stamp}.</p>"
                + (f"<nav><ul>{toc}</ul></nav>" if toc else "")
                + "\n".join(self._parts) + "</body></html>\n")

    def write(self, path: Union[str, Path, None] = None) -> Path:
        """Writes the page (UTF-8) to ``path`` (default ``directory/index.html``); returns the path."""
        if path is None:
            if self.directory is None:
                raise ParameterError("give a path, or create the report with a directory")
            path = self.directory / "index.html"
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.render(), encoding="utf-8")
        return path


# ------------------------------------------------------------------------- analysis sections

def add_blocks(report: HtmlReport, blocks: Sequence[Any]) -> None:
    """The text, figures and tables of a criterion's section (:mod:`ir_cwla.meta.criteria`)."""
    from ir_cwla.meta import criteria

    for block in blocks:
        if isinstance(block, criteria.Text):
            report.text(block.text)
        elif isinstance(block, criteria.Figure):
            report.figure(block.make(), block.caption, filename=block.filename)
        elif isinstance(block, criteria.Table):
            report.table(block.frame, block.caption, index=block.index, precision=block.precision,
                         filename=block.filename)
        else:
            raise ArgumentTypeError(f"a report section holds Text, Figure and Table blocks, not {type(block).__name__}")


def add_meta_sections(report: HtmlReport, run: Any) -> None:
    """One section per criterion of ``run`` (:func:`ir_cwla.meta.criteria.run`), in report order.

    The order is that of :data:`ir_cwla.meta.CRITERIA`. Each section says what the criterion
    answers, then shows its own text, figures and tables.
    """
    from ir_cwla.meta.criteria import CRITERIA

    for k, name in enumerate([c for c in CRITERIA if c in run.results], start=1):
        criterion = CRITERIA[name]
        report.section(f"Meta-evaluation {k}: {criterion.title}")
        report.text(criterion.question, note=True)
        add_blocks(report, criterion.section(run.results[name], run.summaries[name]))


SUMMARY_TITLE = "Summary: the best measure of each family"


def add_meta_summary(report: HtmlReport, run: Any) -> None:
    """The report's first section: per family (row) and criterion (column), the best measure.

    :func:`ir_cwla.meta.criteria.best_measures` of ``run``: what a reader would otherwise work out
    from the CSV files, with the caveat that a nominal best may be tied within noise.
    """
    from ir_cwla.meta.criteria import best_measures

    table = best_measures(run)
    if not len(table) or table.shape[1] < 2:
        return
    report.section(SUMMARY_TITLE)
    report.text("For each family of measures (rows) and each criterion that ranks measures (columns), the "
                "measure with the best value (most consistent, most discriminative, fewest topics needed, "
                "most robust, least biased), with measures of the same value joined by '='; within a browsing "
                "model a measure is named by its aggregation, * marking the model's canonical measure. The "
                "best is nominal: whether it beats the others significantly is the (k) of the criterion's own "
                "table below.", note=True)
    report.table(table, "the best measure of each family under each criterion (value in brackets)", index=False,
                 filename="summary.csv")


def step_title(step: str) -> str:
    """How run-time tables name a step: a criterion by its title, anything else as it is."""
    from ir_cwla.meta.criteria import CRITERIA

    return CRITERIA[step].title if step in CRITERIA else step


def timings_table(timings: dict[str, float]) -> pd.DataFrame:
    """The wall time of every step of ``ir-cwla meta`` (seconds)."""
    return pd.DataFrame({"step": [step_title(k) for k in timings], "seconds": list(timings.values())})


def add_timings(report: HtmlReport, timings: dict[str, float]) -> None:
    """A section with the run time of every step (the evaluation and each criterion)."""
    report.section("Run times")
    report.table(timings_table(timings), "wall time of every step, in seconds", index=False, precision=2,
                 filename="timings.csv")


@dataclasses.dataclass
class ReportTable:
    """A table as the terminal prints it and the page shows it.

    Attributes
    ----------
    key
        The columns the terminal prints; the page and the CSV file ``filename`` have them all.
    empty
        What to say instead of a table without rows.
    """

    caption: str
    frame: pd.DataFrame
    precision: dict[str, int]
    filename: str
    key: list[str]
    highlight: set = dataclasses.field(default_factory=set)
    empty: str = "no system"
    #: Sentences printed under the table (the leaderboard's: which adjacent ranks are separable).
    notes: list[str] = dataclasses.field(default_factory=list)
    #: The bootstrap rank intervals of the ranking (a :class:`ir_cwla.comparison.RankUncertainty`), if computed.
    ranks: Any = None

    def text(self) -> str:
        """The key columns as aligned text, numbers as on the page, then the :attr:`notes`.

        A sentence (:attr:`empty`) when there is no row.
        """
        if self.frame.empty:
            return self.empty
        return "\n".join([text_table(self.frame[self.key], self.precision), *self.notes])


def score_decimals(scores: Sequence[float], ranks: Sequence[int], start: int = 4, most: int = 8) -> int:
    """The fewest decimals that print every two scores of different rank differently.

    Counted from ``start``, at most ``most``: two systems never look tied unless they share a rank.
    """
    pairs = [(round(float(s), most + 2), r) for s, r in zip(scores, ranks)]
    for decimals in range(start, most + 1):
        shown: dict[str, int] = {}
        if all(shown.setdefault(f"{s:.{decimals}f}", r) == r for s, r in pairs):
            return decimals
    return most


def money_decimals(values: Sequence[float], most: int = 6) -> int:
    """Decimals of a column of dollars: cents (2), or more where a smaller amount needs them.

    Money is printed as money: ``210.00``, never ``210.0000`` (issue 33), with no ``$`` sign in
    a table (the column's name, ``usd_per_...``, says the currency). A column whose smallest
    non-zero amount is below a dime gets as many decimals (at most ``most``) as it takes to show
    that amount with two significant digits (``0.0030``), so that a cheap system never prints as
    free; every amount of the column then has as many, so that they line up.
    """
    amounts = [abs(float(v)) for v in values if _is_number(v) and math.isfinite(float(v)) and float(v) != 0]
    if not amounts:
        return 2
    smallest = min(amounts)
    return int(min(most, max(2, 1 - math.floor(math.log10(smallest)))))


def is_money(column: Any, cost_column: Optional[str] = None) -> bool:
    """Whether a leaderboard column holds dollars: its name starts with ``usd``, or it is the cost role's."""
    return str(column).lower().startswith("usd") or (cost_column is not None and str(column) == cost_column)


def _decimals(column: str, values: Optional[Sequence[float]] = None, money: bool = False) -> int:
    """Decimals of a leaderboard column.

    3 for times in ms, 1 for queries per second, :func:`money_decimals` for dollars, else 4.
    """
    if money:
        return money_decimals(values if values is not None else [])
    return 3 if str(column).endswith("_ms") or column == "latency" else 1 if column == "qps" else 4


def rank_intervals(board: Any, weights: Optional[Mapping[str, float]] = None, *, level: float = 0.95,
                   resamples: int = 2000, seed: Any = 0) -> Any:
    """The bootstrap intervals of the board's Dynascore ranks, or None without per-topic scores.

    :func:`ir_cwla.comparison.dynascore_rank_uncertainty` on the board's metrics, weights and
    directions (:meth:`~ir_cwla.leaderboard.Leaderboard.dynascore_inputs`) and the per-topic scores
    of its accuracy measure; None when the board has none. The warnings of the observed ranking are
    the board's own (:meth:`~ir_cwla.leaderboard.Leaderboard.table` gives them) and are not repeated.
    """
    per_query = board.accuracy_per_query() if hasattr(board, "accuracy_per_query") else None
    if per_query is None:
        return None
    from ir_cwla.comparison import dynascore_rank_uncertainty
    from ir_cwla.errors import ConstantMetricWarning, RankingWarning

    frame, role_weights, directions = board.dynascore_inputs(weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankingWarning)
        warnings.simplefilter("ignore", ConstantMetricWarning)
        return dynascore_rank_uncertainty(frame, per_query, str(per_query["measure"].iloc[0]), weights=role_weights,
                                          directions=directions, perf="accuracy", level=level, resamples=resamples,
                                          seed=seed)


def separable_sentence(ranks: Any) -> str:
    """The summary of a :class:`ir_cwla.comparison.RankUncertainty` and the adjacent pairs it can tell apart.

    Each pair is written ``'A' above 'B'``.
    """
    pairs = ranks.adjacent[ranks.adjacent["separable"].astype(bool)]
    which = "; ".join(f"{u} above {lo}" for u, lo in zip(pairs["upper"], pairs["lower"]))
    return f"{ranks.summary()}" + (f": {which}" if which else "") + "."


def _rank_notes(ranks: Any, resamples: int) -> list[str]:
    """The sentence of separable ranks and, if some resamples had no Dynascore, how many were left out."""
    if ranks is None:
        return []
    notes = [separable_sentence(ranks)]
    left_out = resamples - ranks.resamples
    if left_out:
        notes.append(f"{left_out:,} of {resamples:,} resamples left out: on them a weighted metric differs only "
                     "between systems whose resampled accuracies are equal, so no Dynascore is defined.")
    return notes


def leaderboard_tables(board: Any, weights: Optional[Mapping[str, float]] = None,
                       budget: Optional[Mapping[str, float]] = None,
                       min_accuracy: Optional[float] = None, *, level: float = 0.95, resamples: int = 2000,
                       seed: Any = 0) -> list[ReportTable]:
    """The tables of a leaderboard, for the terminal and the page alike.

    First the Dynascore ranking (key columns first: accuracy, Dynascore, rank, latency, cost and
    every other weighted metric; then every other column; ``frame.attrs['notes']`` holds the
    ranking's warnings), then the systems within ``budget`` (latency/cost -> maximum) by accuracy
    and those above ``min_accuracy`` cheapest first, when asked for (a sentence when no system
    qualifies). Columns keep the board's names. One precision per column across all the tables:
    the most decimals any of them needs, so that the column that ranks tells apart systems of
    different rank (:func:`score_decimals`).

    Where the board has per-topic scores of its accuracy measure, the ranking gets the columns
    ``rank_low`` and ``rank_high`` right after ``rank``: the ``level`` percentile bootstrap
    interval over topics of each system's Dynascore rank (:func:`rank_intervals`, ``resamples``
    resamples from ``seed``), and a sentence under it of which adjacent ranks are separable
    (:func:`separable_sentence`; the table's ``ranks`` keeps the whole result).
    """
    cols = board.columns
    weights = dict(weights or DEFAULT_WEIGHTS)
    table = board.table(weights)
    attrs = dict(table.attrs)
    ranks = rank_intervals(board, weights, level=level, resamples=resamples, seed=seed)
    weighted = [cols.get(k, k) for k in weights if weights[k] > 0]
    interval = ["rank_low", "rank_high"] if ranks is not None else []
    key = list(dict.fromkeys([cols["accuracy"], "dynascore", "rank", *interval, cols["latency"], cols["cost"],
                              *weighted]))
    if ranks is not None:
        by_name = ranks.systems.set_index("system")
        names = [str(n) for n in table.index]
        table = table.assign(rank_low=by_name.loc[names, "rank_low"].to_numpy(),
                             rank_high=by_name.loc[names, "rank_high"].to_numpy())
    frame = table[key + [c for c in table.columns if c not in key]].rename_axis("system")
    frame.attrs = attrs
    precision = {str(c): _decimals(c, frame[c].tolist(), is_money(c, cols["cost"])) for c in frame.columns}
    precision["dynascore"] = score_decimals(frame["dynascore"], frame["rank"])
    out = [ReportTable("leaderboard (best Dynascore first)", frame, precision, "leaderboard.csv", key,
                       set(frame.index[frame["rank"] == 1]),
                       notes=_rank_notes(ranks, resamples), ranks=ranks)]
    roles = list(dict.fromkeys([cols["accuracy"], cols["latency"], cols["cost"]]))

    def strategy(ranked: pd.DataFrame, caption: str, by: str, filename: str, empty: str) -> ReportTable:
        shown = ranked[[*roles, "rank"]].rename_axis("system")
        if len(shown):
            precision[cols[by]] = max(precision[cols[by]], score_decimals(ranked[cols[by]], ranked["rank"]))
        return ReportTable(caption, shown, precision, filename, list(shown.columns), empty=empty)

    if budget:
        limits = ", ".join(f"{k} <= {v:g}" for k, v in budget.items())
        out.append(strategy(board.within_budget(**budget), f"within budget ({limits}), by accuracy", "accuracy",
                            "within_budget.csv", f"no system is within the budget ({limits})"))
    if min_accuracy is not None:
        out.append(strategy(board.above_accuracy(min_accuracy), f"accuracy >= {min_accuracy:g}, cheapest first",
                            "cost", "above_accuracy.csv", f"no system has accuracy >= {min_accuracy:g}"))
    return out                       # every table shares ``precision``: one number of decimals per column


def _add_rank_intervals(report: HtmlReport, ranks: Any, accuracy: str, notes: Sequence[str]) -> None:
    """The rank intervals on the page: what they are, which ranks are separable, the adjacent pairs.

    A note says what ``rank_low`` and ``rank_high`` are, the ``notes`` which adjacent ranks are
    separable, and the table of adjacent pairs is also saved as ``rank_separability.csv``.
    """
    seed = ranks.seed if isinstance(ranks.seed, (int, np.integer)) else repr(ranks.seed)
    report.text(f"rank_low and rank_high: the {ranks.level:g} percentile bootstrap interval of each system's "
                f"Dynascore rank over {ranks.resamples:,} resamples of the {ranks.n_topics} topics (drawn with "
                f"replacement, seed {seed}): on each resample {accuracy} is the mean of the resampled per-topic "
                "scores, latency and cost stay as measured, and the Dynascore is recomputed with the same weights. "
                "Two adjacent systems are separable when the one above scores higher on more than "
                f"{(1 + ranks.level) / 2:.1%} of the resamples (ir_cwla.comparison.dynascore_rank_uncertainty).",
                note=True)
    for note in notes:
        report.text(note)
    pairs = ranks.adjacent.rename(columns={"upper": "system", "lower": "next"})
    report.table(pairs, "adjacent pairs of the ranking: share of resamples in which the system scores above the "
                 "next, and whether the two are separable", index=False, precision={"share_above": 4},
                 filename="rank_separability.csv")


def add_leaderboard_sections(report: HtmlReport, board: Any, weights: Optional[Mapping[str, float]] = None,
                             budget: Optional[Mapping[str, float]] = None, min_accuracy: Optional[float] = None,
                             tables: Optional[list[ReportTable]] = None, *, level: float = 0.95,
                             resamples: int = 2000, seed: Any = 0) -> None:
    """The sections of an efficiency-aware leaderboard (:mod:`ir_cwla.leaderboard`).

    They show the tables of :func:`leaderboard_tables` (or ``tables``, already built), every
    warning about the ranking, the rank intervals (where the board has per-topic scores: what they
    are, their level, resamples and seed, which adjacent ranks are separable, and the table of
    adjacent pairs), the frontier and the winner map.
    """
    from ir_cwla.errors import RankingWarning

    weights = dict(weights or DEFAULT_WEIGHTS)
    if tables is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankingWarning)     # shown in the page instead
            tables = leaderboard_tables(board, weights, budget, min_accuracy, level=level, resamples=resamples,
                                        seed=seed)
    cols = board.columns
    report.section("Efficiency-aware leaderboard")
    shown = ", ".join(f"{k} {v:g}" for k, v in weights.items())
    report.text(f"Systems ranked by Dynascore (Ma et al. 2021; Santhanam et al. 2023) with weights {shown}. "
                f"Accuracy is {cols['accuracy']}; latency is column '{cols['latency']}', cost is column "
                f"'{cols['cost']}'. Tied systems share a rank.")
    report.warnings(tables[0].frame.attrs.get("notes", []))
    for t in tables:
        if t.frame.empty:
            report.text(f"{t.caption}: {t.empty}.")
        else:
            report.table(t.frame, t.caption, precision=t.precision, highlight=t.highlight, filename=t.filename)
        if t.ranks is not None:
            _add_rank_intervals(report, t.ranks, cols["accuracy"], t.notes)
    report.figure(board.plot_frontier(), "accuracy against latency, with the Pareto frontier",
                  filename="frontier.png")
    metrics = board.metrics()[["accuracy", "latency", "cost"]]
    constant = [c for c in metrics.columns if metrics[c].nunique() < 2]
    if constant:
        report.text(f"No winner map: {', '.join(constant)} is the same for every system, so it cannot be weighted "
                    "against the others.", note=True)
    else:
        others = [k for k, v in weights.items() if v > 0 and board.role_of(k) not in ("accuracy", "latency", "cost")]
        left_out = (f"; {', '.join(others)}, also weighted in the ranking, {'is' if len(others) == 1 else 'are'} "
                    "not in the map, which varies three weights") if others else ""
        report.figure(board.plot_weight_map(step=0.02), "Dynascore winner for every weighting of accuracy, "
                      f"latency and cost (x: weightings where systems tie{left_out})", filename="weight_map.png")
    env = getattr(board, "environment", None) or {}
    if env:
        versions = ", ".join(f"{k} {v}" for k, v in (env.get("versions") or {}).items())
        report.text(f"Measured on {env.get('cpu_model', '?')} ({env.get('logical_cores', '?')} logical cores, "
                    f"{env.get('memory_gib', '?')} GiB), {env.get('os', '?')}; {versions}.", note=True)


def add_comparison_section(page: Any, comparison: Any, title: str = "Comparison of systems",
                           intro: Optional[str] = None) -> Any:
    """Renders a :class:`ir_cwla.comparison.Comparison` into an :class:`ir_cwla.app.report.HtmlReport`.

    The section shows the means with significance marks, the caption (test, correction, family),
    every pair's row, and the per-topic differences of the most significant pair of the first
    measure.

    Parameters
    ----------
    page
        The :class:`ir_cwla.app.report.HtmlReport` to add the section to.
    comparison
        The :class:`ir_cwla.comparison.Comparison` to render.
    title
        The section's heading.
    intro
        A note under the heading (what is compared and why).
    """
    from ir_cwla.analysis import naming

    page.section(title)
    if intro:
        page.text(intro, note=True)
    page.text(comparison.caption(bold=False))
    page.table(comparison.marked_means(), "mean scores with significance marks", filename="comparison_means.csv")
    rows = comparison.table()
    page.table(rows, f"every pair: differences (system - baseline) with {comparison.level:g} intervals, effect sizes, "
               "p-values", index=False, filename="comparison.csv")
    if len(rows):
        best = comparison.most_significant()
        fig = comparison.plot_differences(best["baseline"], best["system"], best["measure"])
        page.figure(fig, f"per-topic differences {best['system']} - {best['baseline']} under "
                         f"{naming.label(best['measure'])}, sorted (the most significant pair of this measure)",
                    filename="comparison_differences.png")
    return page
