"""Open the HTML reports the project writes in a real browser: headless Chromium via playwright.

The system's Chromium is driven (Debian's ``chromium``, ``/usr/bin/chromium``, or
``IR_CWLA_CHROMIUM``); no browser is ever downloaded. Where playwright or the browser is
missing, the tests that need it skip and say why (``.ci/run`` installs both).

:func:`check_report` opens a page at 1280 and 800 px wide and asserts what a reader needs:
nothing wider than the window (a wide table scrolls inside its own box, first column
sticky), every image loaded, no request leaving the file. It keeps a screenshot of the first
screen and of the whole page of each width in the artifact directory
(``IR_CWLA_TEST_ARTIFACTS``, default a pytest temporary directory) and returns the tables
as the browser shows them, for comparison with the CSV files written beside the page.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Optional

import pytest

CHROMIUM = os.environ.get("IR_CWLA_CHROMIUM", "/usr/bin/chromium")
#: Without the background-networking flags, a closed network makes chromium's own requests fail loudly.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTHS = (1280, 800)

_TABLES_JS = """() => Array.from(document.querySelectorAll('div.table')).map(div => {
  const table = div.querySelector('table');
  const caption = div.querySelector('.caption');
  return {
    caption: caption ? caption.textContent : '',
    head: Array.from(table.querySelectorAll('thead th')).map(th => th.textContent),
    rows: Array.from(table.querySelectorAll('tbody tr')).map(tr => Array.from(tr.children).map(td => td.textContent)),
    scrolls: div.querySelector('.scroll').scrollWidth > div.querySelector('.scroll').clientWidth,
    boxRight: div.querySelector('.scroll').getBoundingClientRect().right,
    firstSticky: getComputedStyle(table.querySelector('tbody td, tbody th')).position === 'sticky',
    headRights: Array.from(table.querySelectorAll('thead th')).map(th => th.getBoundingClientRect().right),
  };
})"""


#: playwright's time limits (30 s by default) for launching, loading and screenshots: generous, so
#: that a busy machine slows the browser tests down without failing them (issue 19).
BUSY_MS = 600_000


def browser_or_skip() -> Any:
    """A launched playwright Chromium (the caller closes it), or ``pytest.skip`` with the reason."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install 'ir-cwla[test]'); "
                    "the reports are not checked in a browser")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set IR_CWLA_CHROMIUM); "
                    "the reports are not checked in a browser")
    manager = sync_playwright().start()
    try:
        browser = manager.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=BUSY_MS)
    except Error as ex:
        manager.stop()
        pytest.skip(f"Chromium at {CHROMIUM} does not start: {' '.join(str(ex).split())[:300]}")
    browser._ir_cwla_manager = manager          # stopped by close_browser
    return browser


def close_browser(browser: Any) -> None:
    browser.close()
    browser._ir_cwla_manager.stop()


def artifact_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``IR_CWLA_TEST_ARTIFACTS`` if set, else a pytest temporary directory."""
    given = os.environ.get("IR_CWLA_TEST_ARTIFACTS")
    path = Path(given) if given else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def check_report(browser: Any, page_path: Path, name: str, artifacts: Path, section: Optional[str] = None
                 ) -> dict[int, list[dict]]:
    """Checks the HTML report page at every width of :data:`WIDTHS`, with screenshots.

    Opens ``page_path`` at every width of :data:`WIDTHS`, asserts the layout and the images,
    saves screenshots (``NAME-WIDTH.png`` first screen, ``NAME-WIDTH-full.png``, and
    ``NAME-WIDTH-section.png``, the screen that starts at the heading ``section``) and returns
    ``{width: tables}`` as the browser shows them (caption, head, rows of cell texts, ...).
    """
    found = {}
    for width in WIDTHS:
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.set_default_timeout(BUSY_MS)
        requests: list[str] = []
        page.on("request", lambda request, seen=requests: seen.append(request.url))
        page.goto(page_path.resolve().as_uri(), wait_until="load")
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= width, f"{name} at {width} px: the page is {scroll_width} px wide"
        images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.alt])")
        assert images, f"{name}: no figure"
        broken = [alt for complete, natural, alt in images if not (complete and natural > 0)]
        assert not broken, f"{name} at {width} px: images not loaded: {broken}"
        wide = page.evaluate("""() => Array.from(document.body.querySelectorAll('*'))
            .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5 && !e.closest('.scroll'))
            .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 40))""")
        assert not wide, f"{name} at {width} px: elements past the right edge: {wide[:5]}"
        tables = page.evaluate(_TABLES_JS)
        for table in tables:
            assert table["firstSticky"], f"{name}: the first column of {table['caption']!r} is not sticky"
            assert table["boxRight"] <= width, f"{name}: the box of {table['caption']!r} overflows"
        external = [u for u in requests if not u.startswith(("file:", "data:"))]
        assert not external, f"{name}: requests leave the page: {external}"
        page.screenshot(path=str(artifacts / f"{name}-{width}.png"))
        page.screenshot(path=str(artifacts / f"{name}-{width}-full.png"), full_page=True)
        if section is not None:
            heading = page.get_by_role("heading", name=section, exact=True)
            heading.evaluate("h => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 8)")
            page.screenshot(path=str(artifacts / f"{name}-{width}-section.png"))
        found[width] = tables
        page.close()
    return found


def table_by_caption(tables: list[dict], start: str) -> dict:
    """The table whose caption starts with ``start``."""
    matches = [t for t in tables if t["caption"].startswith(start)]
    assert len(matches) == 1, f"{len(matches)} tables captioned {start!r}: {[t['caption'] for t in tables]}"
    return matches[0]


def visible_columns(table: dict, width: int) -> list[str]:
    """The headers whose right edge lies within a window ``width`` px wide (before scrolling)."""
    return [h for h, right in zip(table["head"], table["headRights"]) if right <= width]
