"""The HTML report: self-contained (no network, no script) and every name escaped."""
from __future__ import annotations

import base64
import gzip
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ir_cwla.app import report
from tests.html_checks import external_references, parse_tags

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HOSTILE = ['<script>alert("run")</script>', "<img src=x onerror=alert(1)>", "a&b \"quoted\" 'single'"]


@pytest.fixture
def dl19_means(dl19_run_paths) -> pd.DataFrame:
    """A real table: the number of lines of three DL19 runs, named by hostile names."""
    rows = {name: {"lines": sum(1 for _ in gzip.open(path, "rt")), "score": 0.5 + k / 10}
            for k, (name, path) in enumerate(zip(HOSTILE, dl19_run_paths[:3]))}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("<th>system</th>")


def test_every_name_is_escaped(dl19_means):
    page = report.HtmlReport("<title>demo", "sub <b>title</b>")
    page.section("<h2>section</h2>").text(HOSTILE[0]).bullets(HOSTILE).code(HOSTILE[1])
    page.table(dl19_means, caption="<caption>", highlight={HOSTILE[0]})
    html = page.render()
    assert "<script" not in html and "<img" not in html and "<b>" not in html and "<th>system" not in html
    assert {tag for tag, _ in parse_tags(html)} <= {"html", "head", "meta", "title", "style", "body", "h1", "p",
                                                    "h2", "nav", "ul", "li", "a", "pre", "table", "caption",
                                                    "thead", "tbody", "tr", "th", "td"}
    assert html.count("&lt;script&gt;alert(&quot;run&quot;)&lt;/script&gt;") == 3   # text, bullet, table row
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "a&amp;b &quot;quoted&quot; &#x27;single&#x27;" in html
    assert "&lt;title&gt;demo" in html and "&lt;th&gt;system&lt;/th&gt;" in html
    assert html.count('class="best"') == 1
    assert not external_references(html)


def test_figures_are_embedded_as_png_and_saved(tmp_path):
    fig, ax = plt.subplots()
    ax.plot(np.arange(5), np.arange(5) ** 2, label="<script>")
    ax.legend()
    page = report.HtmlReport("figures", directory=tmp_path)
    page.figure(ax, caption="squares <i>", filename="squares.png")
    html = page.render()
    data = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html).group(1)
    png = base64.b64decode(data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert (tmp_path / "squares.png").read_bytes() == png
    assert 'alt="squares &lt;i&gt;"' in html
    assert not plt.fignum_exists(fig.number)                   # closed after embedding
    path = page.write()
    assert path == tmp_path / "index.html"
    assert 'alt="squares &lt;i&gt;"' in path.read_text(encoding="utf-8")


def test_tables_format_numbers_and_save_csv(tmp_path, dl19_means):
    page = report.HtmlReport("tables", directory=tmp_path)
    frame = dl19_means.assign(tiny=[1e-7, np.nan, 2.5e8])
    page.table(frame, precision=3, filename="t.csv")
    html = page.render()
    cells = re.findall(r'<td class="num">([^<]*)</td>', html)
    assert cells[1:3] == ["0.500", "1e-07"] and "" in cells and "2.5e+08" in cells
    assert cells[0] == str(dl19_means.iloc[0, 0])               # integers stay integers
    saved = pd.read_csv(tmp_path / "t.csv", index_col=0)
    assert saved.index.tolist() == HOSTILE and saved["lines"].tolist() == dl19_means["lines"].tolist()


def test_format_cell():
    assert report.format_cell(0.123456) == "0.1235"
    assert report.format_cell(np.float32(2.0), precision=2) == "2.00"
    assert report.format_cell(np.int64(7)) == "7"
    assert report.format_cell(float("nan")) == ""
    assert report.format_cell(None) == ""
    assert report.format_cell(True) == "True"
    assert report.format_cell("<x>") == "<x>"                   # escaping is the table's job


def test_write_needs_a_path_or_directory():
    with pytest.raises(ValueError, match="give a path"):
        report.HtmlReport("x").write()
