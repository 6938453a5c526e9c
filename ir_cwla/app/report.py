"""A self-contained HTML report: tables and figures in one file that needs no network.

Figures are embedded as base64 PNG (``data:`` URIs), the stylesheet is inline, and there
is no script. Every piece of text that reaches the page (a run name, a topic, a measure, a
caption, a table cell or header) goes through :func:`html.escape`, so a run named
``<script>`` is shown as text and never interpreted::

    report = HtmlReport("Cranfield demo")
    report.section("Effectiveness")
    report.table(means, caption="Mean over 225 topics")
    report.figure(ax, caption="Kendall's tau between measures")
    report.write("report/index.html")
"""
from __future__ import annotations

import base64
import datetime
import html
import io
import math
import numbers
from pathlib import Path
from typing import Any, Optional, Union

import pandas as pd

from ir_cwla.leaderboard.dynascore import DEFAULT_WEIGHTS

STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1150px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #bbb; }
table { border-collapse: collapse; margin: .6em 0 1.4em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; }
th { background: #f0f0f0; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { font-weight: bold; background: #fff6d5; }
caption { caption-side: top; text-align: left; font-style: italic; padding: .3em 0; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-style: italic; font-size: 14px; }
pre { background: #f6f6f6; padding: .7em; overflow-x: auto; font-size: 13px; }
.note { color: #555; font-size: 14px; }
nav ul { columns: 2; }
"""
_NUM = ' class="num"'
_NOTE = ' class="note"'


def escape(value: Any) -> str:
    """``html.escape`` of ``str(value)`` (quotes included)."""
    return html.escape(str(value), quote=True)


def format_cell(value: Any, precision: int = 4) -> str:
    """A table cell as text: floats with ``precision`` decimals (or 3 significant digits when
    tiny or huge), NaN as an empty cell, everything else as ``str``."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, numbers.Integral):
        return str(value)
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isnan(v):
            return ""
        if v != 0 and (abs(v) < 10 ** -precision or abs(v) >= 1e7):
            return f"{v:.3g}"
        return f"{v:.{precision}f}"
    return str(value)


def table_html(df: pd.DataFrame, caption: Optional[str] = None, index: bool = True, precision: int = 4,
               highlight: Optional[set] = None) -> str:
    """An escaped HTML table of ``df`` (index as the first column when ``index``).

    Rows whose index label is in ``highlight`` are emphasised.
    """
    highlight = highlight or set()
    head = ([escape(df.index.name or "")] if index else []) + [escape(c) for c in df.columns]
    rows = []
    for label, values in zip(df.index, df.itertuples(index=False, name=None)):
        cells = []
        if index:
            cells.append(f"<td>{escape(label)}</td>")
        for v in values:
            num = isinstance(v, numbers.Real) and not isinstance(v, bool)
            cells.append(f"<td{_NUM if num else ''}>{escape(format_cell(v, precision))}</td>")
        cls = ' class="best"' if label in highlight else ""
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f"<table>{cap}<thead><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def figure_png(fig: Any, dpi: int = 110) -> bytes:
    """The PNG bytes of a matplotlib Figure (or of the Figure of an Axes)."""
    fig = getattr(fig, "figure", fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


class HtmlReport:
    """An HTML page assembled section by section; :meth:`render` returns it as one string.

    With a ``directory``, every table and figure given a ``filename`` is also written there
    (CSV and PNG), next to the page that :meth:`write` puts at ``directory/index.html``.
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
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.directory / filename

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

    def code(self, text: str) -> HtmlReport:
        """Preformatted text (a command, a terminal summary), escaped."""
        self._parts.append(f"<pre>{escape(text)}</pre>")
        return self

    def table(self, df: pd.DataFrame, caption: Optional[str] = None, index: bool = True, precision: int = 4,
              highlight: Optional[set] = None, filename: Optional[str] = None) -> HtmlReport:
        """A DataFrame as an escaped table (see :func:`table_html`), also saved as ``filename`` (CSV)."""
        self._parts.append(table_html(df, caption, index, precision, highlight))
        path = self._file(filename)
        if path is not None:
            df.to_csv(path, index=index)
        return self

    def figure(self, fig: Any, caption: str, close: bool = True, filename: Optional[str] = None) -> HtmlReport:
        """A matplotlib Figure or Axes, embedded as a base64 PNG (and saved as ``filename``);
        closed afterwards by default."""
        png = figure_png(fig)
        path = self._file(filename)
        if path is not None:
            path.write_bytes(png)
        data = base64.b64encode(png).decode("ascii")
        self._parts.append(f'<figure><img alt="{escape(caption)}" src="data:image/png;base64,{data}">'
                           f"<figcaption>{escape(caption)}</figcaption></figure>")
        if close:
            import matplotlib.pyplot as plt

            plt.close(getattr(fig, "figure", fig))
        return self

    def render(self) -> str:
        """The whole page."""
        toc = "".join(f'<li><a href="#{a}">{escape(t)}</a></li>' for a, t in self._sections)
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        sub = f"<p>{escape(self.subtitle)}</p>" if self.subtitle else ""
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{escape(self.title)}</title><style>{STYLE}</style></head><body>"
                f"<h1>{escape(self.title)}</h1>{sub}<p class=\"note\">Generated by ir_cwla on {stamp}.</p>"
                + (f"<nav><ul>{toc}</ul></nav>" if toc else "")
                + "\n".join(self._parts) + "</body></html>\n")

    def write(self, path: Union[str, Path, None] = None) -> Path:
        """Writes the page (UTF-8) to ``path`` (default ``directory/index.html``); returns the path."""
        if path is None:
            if self.directory is None:
                raise ValueError("give a path, or create the report with a directory")
            path = self.directory / "index.html"
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.render(), encoding="utf-8")
        return path


# ------------------------------------------------------------------------- analysis sections

def add_meta_sections(report: HtmlReport, similarity: Any, consistency: Any, discriminative_power: Any) -> None:
    """The paper's three analyses (:mod:`ir_cwla.meta`): tables and figures, one section each."""
    report.section("Meta-evaluation 1: system ranking similarity")
    report.text(f"Kendall's tau-b between the system rankings ({similarity.n_systems} systems, by mean score) "
                f"of every two measures of a family, with {similarity.level:.0%} confidence intervals.")
    report.figure(similarity.plot(), "Kendall's tau between the rankings of the measures of each family",
                  filename="similarity.png")
    report.table(similarity.table(), "tau for every pair of measures within a family", index=False,
                 precision=3, filename="similarity.csv")

    report.section("Meta-evaluation 2: system ranking consistency")
    report.text(f"{consistency.trials} random splits of the topics into two halves; for each, tau between the "
                "system rankings on the two halves. Higher is more consistent. 'outperforms': the number of "
                f"measures of the family it beats significantly (randomised Tukey HSD, {consistency.test_trials} "
                f"trials, alpha = {consistency.alpha:g}).")
    report.figure(consistency.plot(), "tau between topic halves, per measure", filename="consistency.png")
    report.table(consistency.table(), "consistency (sorted by mean tau within each family)", index=False,
                 precision=3, filename="consistency.csv")

    report.section("Meta-evaluation 3: discriminative power")
    disc = discriminative_power
    report.text(f"p-values of all system pairs ({disc.test}, {disc.trials} trials) over {disc.n_topics} topics; "
                f"a measure is more discriminative when more pairs differ significantly at alpha = {disc.alpha:g}.")
    report.figure(disc.plot_asl(), "achieved significance level (ASL) curves", filename="discriminative_power.png")
    report.table(disc.table(), "significant system pairs per measure", index=False, precision=4,
                 filename="discriminative_power.csv")


def add_leaderboard_sections(report: HtmlReport, board: Any, weights: Optional[dict] = None) -> None:
    """An efficiency-aware leaderboard (:mod:`ir_cwla.leaderboard`): Dynascore table and figures."""
    weights = weights or dict(DEFAULT_WEIGHTS)
    table = board.table(weights)
    report.section("Efficiency-aware leaderboard")
    shown = ", ".join(f"{k} {v:g}" for k, v in weights.items())
    report.text(f"Systems ranked by Dynascore (Ma et al. 2021; Santhanam et al. 2023) with weights {shown}. "
                f"Accuracy is {board.measure or board.columns['accuracy']}; latency is column "
                f"'{board.columns['latency']}', cost is column '{board.columns['cost']}'.")
    report.table(table, "leaderboard (best Dynascore first)", precision=4, highlight={table.index[0]},
                 filename="leaderboard.csv")
    report.figure(board.plot_frontier(), "accuracy against latency, with the Pareto frontier",
                  filename="frontier.png")
    report.figure(board.plot_weight_map(step=0.02), "Dynascore winner for every weighting of accuracy, "
                  "latency and cost", filename="weight_map.png")
    env = getattr(board, "environment", None) or {}
    if env:
        versions = ", ".join(f"{k} {v}" for k, v in (env.get("versions") or {}).items())
        report.text(f"Measured on {env.get('cpu_model', '?')} ({env.get('logical_cores', '?')} logical cores, "
                    f"{env.get('memory_gib', '?')} GiB), {env.get('os', '?')}; {versions}.", note=True)
