"""The documentation as a reader meets it.

Every code block runs, the references match the code, the site builds strictly,
offline, and reads well in a browser.

- every fenced block of every page (``docs/``, the fallbacks of the pages others write, the
  README) is Python, shell, an output block or marked not run (``tests/docs_blocks.py`` says how);
- each page's blocks run in page order, on the bundled Cranfield data or on data an earlier
  block made (pages marked ``needs shared-data``: on the real DL19 files, skipped where absent),
  and every output block matches what its block printed;
- the generated references list every registered browsing model, aggregation and parameter,
  every criterion and every sub-command and option of ``ir-cwla``, compared with the registries
  and the parser themselves;
- ``mkdocs build --strict`` passes, and the built HTML loads nothing from another host;
- in headless Chromium, served over HTTP on 127.0.0.1: the home page and three deep pages at
  1280 and 800 px are no wider than the window and load every image, the navigation reaches every
  page, and the built-in search finds "discriminative power" and "RBP".
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import pytest

from tests import docs_blocks

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def _load_reference():
    spec = importlib.util.spec_from_file_location("ir_cwla_docs_reference", DOCS / "_tools" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


def _pages() -> dict[str, Path]:
    """Every page the site has (by its path under docs/) and the README."""
    return {**{name: path for name, path in reference.page_sources(DOCS).items()}, "README.md": README}


PAGES = _pages()


def page(name: str) -> docs_blocks.Page:
    """The page as the site shows it: generated parts expanded."""
    return docs_blocks.parse(name, reference.expand(PAGES[name].read_text(encoding="utf-8")))


def _param(name: str):
    raw = docs_blocks.parse(name, PAGES[name].read_text(encoding="utf-8"))
    marks = []
    if raw.slow:
        marks.append(pytest.mark.slow)
    if raw.shared_data:
        marks.append(pytest.mark.realdata)
    return pytest.param(name, marks=marks, id=name)


# -- every block is classified -------------------------------------------------------------------

def test_every_block_is_python_shell_output_or_marked_not_run(record_property):
    problems, counts = [], {}
    for name in PAGES:
        found = page(name)
        problems += found.problems
        counts[name] = (len(found.runnable), len(found.not_run))
    assert not problems, "\n".join(problems)
    run = sum(r for r, _ in counts.values())
    not_run = sum(n for _, n in counts.values())
    record_property("blocks_run", run)
    record_property("blocks_not_run", not_run)
    assert run > 3 * not_run // 2, f"{run} blocks run, {not_run} not run: {counts}"
    # the README and every guide run code; only generated references and the changelog may not
    silent = [n for n, (r, _) in counts.items() if r == 0 and not n.startswith("api/")
              and n not in ("cli-reference.md", "changelog.md", "glossary.md", "semantics.md", "benchmarks.md",
                            "findings.md", "findings-assessors.md", "llm-judges.md")]
    assert not silent, f"pages without a block that runs: {silent}"


def test_output_blocks_match_by_the_stated_rules():
    assert docs_blocks.matches("a  \nb\n", "\na\nb   \n\n")
    assert docs_blocks.matches("x = ...\n...\nend", "x = 12.5 s\nline\nline\nend\n")
    assert docs_blocks.matches("x\n...\nend", "x\nend\n")
    assert not docs_blocks.matches("x = 1", "x = 2")
    assert not docs_blocks.matches("a\nb", "a\nb\nc")
    assert not docs_blocks.matches("a\tb", "a b")


def test_a_block_that_is_neither_run_nor_marked_is_refused():
    found = docs_blocks.parse("p.md", "```ini\n[x]\n```\n\n<!-- test: norun -->\n```ini\n[y]\n```\n\n"
                                      "```text title=\"output\"\nz\n```\n")
    assert len(found.problems) == 3, found.problems
    found = docs_blocks.parse("p.md", "<!-- test: norun (a snippet of setup.cfg) -->\n```ini\n[x]\n```\n\n"
                                      "```python\nprint(1)\n```\n\n```text title=\"output\"\n1\n```\n")
    assert not found.problems and [b.kind for b in found.blocks] == ["norun", "python", "output"]
    assert found.blocks[1].output is found.blocks[2]


# -- every block runs ----------------------------------------------------------------------------

def _link_shared_data(workdir: Path, dl19: Path) -> None:
    study = dl19.parent / "user-satisfaction" / "image-search"        # the user study, where it is there too
    if study.is_dir():
        (workdir / "image-search").symlink_to(study, target_is_directory=True)
    for name in ("qrels.dl19-passage.txt", "topics.dl19-passage.txt"):
        if (dl19 / name).exists():
            (workdir / name).symlink_to(dl19 / name)
    (workdir / "runs").symlink_to(dl19 / "runs", target_is_directory=True)
    for run in sorted((dl19 / "runs").glob("input.*.gz")):
        (workdir / run.name).symlink_to(run)


def run_page(found: docs_blocks.Page, tmp_path: Path, dl19: Optional[Path] = None) -> None:
    """Runs the blocks of ``found`` in page order in a fresh directory and checks every output block."""
    assert not found.problems, "\n".join(found.problems)
    blocks = found.runnable
    if not blocks:
        return
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    if found.shared_data:
        assert dl19 is not None, f"{found.name} needs the real data"
        _link_shared_data(workdir, dl19)
    (tmp_path / "blocks.json").write_text(json.dumps([{"kind": b.kind, "code": b.code, "where": b.where}
                                                      for b in blocks]))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg", "COLUMNS": "100", "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, str(Path(docs_blocks.__file__)), str(tmp_path / "blocks.json"),
                           str(tmp_path / "results.json")], cwd=workdir, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())
    for block, result in zip(blocks, results):
        shown = result["output"].replace(str(workdir) + "/", "").replace(str(workdir), ".")
        assert result["error"] is None, (f"{block.where}: the {block.kind} block fails:\n{block.code}\n"
                                         f"--- output ---\n{shown[-4000:]}\n--- error ---\n{result['error'][-4000:]}")
        if block.output is not None:
            assert docs_blocks.matches(block.output.code, shown), (
                f"{block.where}: the output differs from {block.output.where}\n--- the page shows ---\n"
                f"{docs_blocks.normalise(block.output.code)}\n--- the block printed ---\n{docs_blocks.normalise(shown)}")
    assert len(results) == len(blocks)


# -- the references are the code's ---------------------------------------------------------------

def _sections(markdown: str, level: str) -> dict[str, str]:
    """``{heading: body}`` of the headings of ``level`` (``'###'``) in ``markdown``."""
    parts = re.split(rf"^{level} (.+)$", markdown, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def test_measure_reference_lists_every_model_aggregation_and_parameter():
    import ir_cwla
    from ir_cwla.measures import MEASURE_PARAMS

    text = reference.expand("<!-- generated: measure-params -->\n## C\n<!-- generated: browsing-models -->\n"
                            "## A\n<!-- generated: aggregations -->\n")
    head, models, aggregations = re.split(r"^## [CA]$", text, flags=re.MULTILINE)
    for name in MEASURE_PARAMS:
        assert ("`@k`" if name == "cutoff" else f"| `{name}` |") in head, name
    for registry, body in ((ir_cwla.BROWSING_MODELS, models), (ir_cwla.AGGREGATIONS, aggregations)):
        sections = _sections(body, "###")
        assert list(sections) == list(registry)
        for name, entry in registry.items():
            section = sections[name]
            first_line = " ".join(entry.doc.split("\n")[0].split()).replace("``", "`")
            assert first_line in section, name
            for pname, param in entry.params.items():
                row = f"| `{pname}` | `{reference._number(param.default)}` | {reference._cell(param.describe())} |"
                assert row in section, (name, pname)
            assert "Defined in `" in section
    declared = {p for m in ir_cwla.BROWSING_MODELS.values() for p in m.params} | \
        {p for a in ir_cwla.AGGREGATIONS.values() for p in a.params}
    for p in declared:
        assert f"`{p}`" in head


def test_measures_page_uses_the_generated_reference():
    text = PAGES["measures.md"].read_text()
    for directive in ("measure-params", "browsing-models", "aggregations"):
        assert f"<!-- generated: {directive} -->" in text


def _walk(parser: argparse.ArgumentParser, prefix: str = "ir-cwla"):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{prefix} {name}")


def test_cli_reference_lists_every_command_and_option():
    from ir_cwla.app.cli import build_parser

    text = PAGES["cli-reference.md"].read_text()
    assert "<!-- generated: cli-reference -->" in text
    sections = _sections(reference.expand(text), "##")
    commands = dict(_walk(build_parser()))
    assert set(commands) <= set(sections), set(commands) - set(sections)
    for command, parser in commands.items():
        body = sections[command]
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            names = action.option_strings or [action.metavar or action.dest]
            for option in names:
                assert f"`{option}`" in body, (command, option)
            if action.help:
                assert reference._cell(action.help) in body, (command, names)
            if action.choices is not None:
                assert all(str(c) in body for c in action.choices), (command, names)


def test_meta_evaluation_page_lists_every_criterion():
    from ir_cwla import meta

    raw = PAGES["meta-evaluation.md"].read_text()
    assert "<!-- generated: criteria -->" in raw
    text = reference.expand(raw)
    for name, criterion in meta.CRITERIA.items():
        assert f"<!-- generated: criterion {name} -->" in raw, f"no section for criterion {name}"
        assert criterion.question in text
        for option in criterion.options:
            assert option.flag in text, (name, option.flag)


def test_the_zoo_file_names_every_cwl_eval_metric_class():
    from ir_cwla.app import cwl

    lines = [line for line in (ROOT / "examples" / "zoo.txt").read_text().splitlines() if line.strip()]
    used = {line.split("(")[0].strip() for line in lines}
    assert used == set(cwl.METRIC_CLASSES)
    for line in lines:
        cwl.parse_metric(line).measure(A="ERG")


def test_readme_is_short_and_starts_with_what_install_and_a_command():
    lines = README.read_text().split("\n")
    assert len(lines) <= 200, len(lines)
    top = "\n".join(lines[:24])
    assert "pip install" in top
    found = docs_blocks.parse("README.md", top + "\n```\n" if top.count("```") % 2 else top)
    assert any(b.kind == "shell" for b in found.blocks), "no command that runs in the first 24 lines"
    for link in re.findall(r"\]\((docs/[^)#]+)", README.read_text()):
        assert (ROOT / link).exists(), link


def test_the_skip_message_for_missing_real_data_names_a_section_that_exists():
    from tests import conftest

    page_name, heading = conftest.DATA_SECTION
    headings = re.findall(r"^#+ (.+)$", (ROOT / page_name).read_text(), flags=re.MULTILINE)
    assert heading in headings, f"the real-data skip message points to '{heading}' in {page_name}: {headings}"


def test_readme_first_screen_is_the_project_and_the_demo_at_80_columns():
    """``less README.md`` in an 80 x 24 terminal: what the project is, how to install it, the demo command.

    No line is wider than 80 columns (tabs at 8), so the first 24 lines are the first screen; in it,
    the demo's command in a block that runs (closed on the screen), no raw HTML comment (a
    ``<!-- test: ... -->`` marker reads as noise in a terminal) and nowhere a placeholder URL.
    """
    text = README.read_text()
    lines = text.split("\n")
    wide = [(i + 1, len(line.expandtabs(8))) for i, line in enumerate(lines) if len(line.expandtabs(8)) > 80]
    assert not wide, f"README lines wider than 80 columns (line, width): {wide}"
    screen = "\n".join(lines[:24])
    assert "<!--" not in screen, "a raw HTML comment on the README's first screen"
    assert "pip install" in screen
    demo = [b for b in docs_blocks.parse("README.md", screen).blocks if b.kind == "shell" and "ir-cwla demo" in b.code]
    assert demo, "the demo command is not on the first screen, in a block that runs"
    assert not re.search(r"<[^<>\n]*(?:URL|url)[^<>\n]*>|git\+<", text), "a placeholder URL in the README"
    runnable = docs_blocks.parse("README.md", text)
    assert not runnable.problems and runnable.runnable[0].code.startswith("ir-cwla demo"), \
        "the demo is the README's first block, and every block is run or marked"


# -- the site: built strictly, offline, read in a browser ----------------------------------------

REMOTE = re.compile(r"<(?:script|link|img|iframe|source|video|audio)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.I)


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    """``mkdocs build --strict`` of the repository's docs into a temporary directory."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")
    site = tmp_path_factory.mktemp("site") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    assert "WARNING" not in done.stderr, done.stderr
    site.joinpath(".build-seconds").write_text(f"{time.perf_counter() - started:.1f}")
    return site


def _nav(site_root: Path) -> list[str]:
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)   # !!python/name tags etc.
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)
    pages = [p for p in reference.nav_pages(config["nav"]) if p in PAGES]
    return [p[:-3] + ".html" for p in pages]


@pytest.mark.slow
def test_site_builds_strictly_and_loads_nothing_remote(built_site):
    for html in _nav(built_site):
        assert (built_site / html).exists(), html
    remote = {p.relative_to(built_site).as_posix(): REMOTE.findall(p.read_text(errors="replace"))
              for p in built_site.rglob("*.html")}
    remote = {k: v for k, v in remote.items() if v}
    assert not remote, remote
    measures = (built_site / "measures.html").read_text()
    import ir_cwla

    headings = re.findall(r"<h3 id=\"[^\"]+\">([^<]+)<a class=\"headerlink\"", measures)
    assert headings == list(ir_cwla.BROWSING_MODELS) + list(ir_cwla.AGGREGATIONS)


@pytest.fixture(scope="module")
def served_site(built_site):
    """The built site over HTTP on 127.0.0.1 (Material's search needs http, not file:)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(built_site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait(timeout=10)


DEEP_PAGES = ("measures.html", "meta-evaluation.html", "cli-reference.html")


@pytest.mark.slow
def test_site_in_a_browser_fits_loads_navigates_and_searches(served_site, built_site, browser, artifacts):

    for path in ("index.html", *DEEP_PAGES):
        for width in (1280, 800):
            page_ = browser.new_page(viewport={"width": width, "height": 900})
            requests: list[str] = []
            page_.on("request", lambda r, seen=requests: seen.append(r.url))
            page_.goto(served_site + path, wait_until="load")
            wide = page_.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, f"{path} at {width} px is {wide} px wide"
            images = page_.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.src])")
            broken = [src for complete, natural, src in images if not (complete and natural > 0)]
            assert not broken, f"{path} at {width} px: images not loaded: {broken}"
            outside = [u for u in requests if not u.startswith((served_site, "data:", "blob:"))]
            assert not outside, f"{path}: requests leave the site: {outside}"
            name = path[:-5].replace("/", "-")
            page_.screenshot(path=str(artifacts / f"docs-{name}-{width}.png"))
            page_.close()
    # every page of the navigation is reachable from the home page's navigation
    page_ = browser.new_page(viewport={"width": 1280, "height": 900})
    page_.goto(served_site + "index.html", wait_until="load")
    links = page_.evaluate("Array.from(document.querySelectorAll('nav.md-nav--primary a.md-nav__link[href]'))"
                           ".map(a => a.href)")
    reached = {link.split("#")[0][len(served_site):] or "index.html" for link in links
               if link.startswith(served_site)}
    expected = set(_nav(built_site))
    assert expected <= reached, f"not in the navigation: {sorted(expected - reached)}"
    for path in sorted(expected):
        response = page_.goto(served_site + path, wait_until="load")
        assert response is not None and response.status == 200, path
    # the built-in search (lunr, in a web worker, on the locally served index)
    for query, expected_page in (("discriminative power", "meta-evaluation.html"), ("RBP", "measures.html")):
        page_.goto(served_site + "index.html", wait_until="load")
        hits = _search(page_, query)
        assert any(expected_page in h for h in hits), (query, hits[:10])
        page_.screenshot(path=str(artifacts / f"docs-search-{query.split()[0]}.png"))
    # 404.html as a server shows it for a missing page at any depth: its links, relative since the
    # build's hook, still resolve from the site's root (its <base href="/"> over HTTP)
    missing = served_site + "no/such/page.html"
    body = (built_site / "404.html").read_text(encoding="utf-8")
    page_.route(missing, lambda route: route.fulfill(status=404, body=body, content_type="text/html"))
    page_.goto(missing, wait_until="load")
    assert page_.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky"
    linked = page_.evaluate("Array.from(document.querySelectorAll('link[href], script[src]')).map(e => e.href || e.src)")
    assert linked and all(u.startswith(served_site) and "/no/such/" not in u for u in linked), linked
    page_.close()


def _search(page_, query: str) -> list[str]:
    """Types ``query`` into the site's search until it answers; the hits.

    The query is typed again until lunr, which builds its index in a web worker, answers (a busy
    machine takes its time; no tight timeout).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    toggle = "label.md-header__button[for='__search']"
    if page_.is_visible(toggle):            # narrow windows hide the search field behind a button
        page_.click(toggle)
    for _ in range(60):
        page_.click("input.md-search__input")
        page_.fill("input.md-search__input", "")
        page_.type("input.md-search__input", query)
        try:
            page_.wait_for_selector(".md-search-result__item", timeout=5_000)
            break
        except PlaywrightTimeout:
            continue
    return page_.evaluate("Array.from(document.querySelectorAll('.md-search-result__item a')).map(a => a.href)")


_LINKED = """() => Array.from(document.querySelectorAll('link[href], script[src], img[src], a[href]'))
    .map(e => e.href || e.src).filter(u => u.startsWith('file:'))"""


@pytest.mark.slow
def test_site_opened_from_disk_searches_and_its_404_page_links_resolve(built_site, browser, artifacts):
    """``site/index.html`` opened from ``file://``, as the README says: search answers, nothing remote.

    Material's search runs in a web worker, which browsers refuse to ``file://`` pages: the offline
    plugin and the locally served iframe-worker shim make it work. ``404.html`` (root-absolute
    links, made relative by docs/_tools/hooks.py) finds its stylesheets, scripts and pages from
    ``file://`` too, and its search answers there.
    """
    from pathlib import PurePosixPath
    from urllib.parse import unquote, urlsplit

    for start, width in (("index.html", 1280), ("404.html", 1280), ("measures.html", 390)):
        page_ = browser.new_page(viewport={"width": width, "height": 900})
        requests: list[str] = []
        page_.on("request", lambda r, seen=requests: seen.append(r.url))
        page_.goto((built_site / start).as_uri(), wait_until="load")
        linked = page_.evaluate(_LINKED)
        missing = sorted({u for u in linked if not Path(unquote(urlsplit(u).path)).exists()})
        assert not missing, f"{start} from file://: links to files that do not exist: {missing[:5]}"
        assert page_.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky", \
            f"{start} from file://: the theme's stylesheet is not applied"
        hits = _search(page_, "discriminative power")
        assert any(PurePosixPath(urlsplit(h).path).name == "meta-evaluation.html" for h in hits), (start, hits[:10])
        outside = [u for u in requests if not u.startswith(("file:", "data:", "blob:", "about:"))]
        assert not outside, f"{start} from file://: requests leave the disk: {outside}"
        page_.screenshot(path=str(artifacts / f"docs-file-search-{start[:-5]}-{width}.png"))
        page_.close()


@pytest.mark.slow
def test_cli_reference_options_read_on_a_phone(served_site, browser, artifacts):
    """The command-line reference at 390 px (a phone): nothing wider than the window, options readable.

    Every argument is a term of a definition list (names, value, default) and its description
    below it at nearly the full width, not a cell of a four-column table; no option name breaks
    inside.
    """
    page_ = browser.new_page(viewport={"width": 390, "height": 844})
    page_.goto(served_site + "cli-reference.html", wait_until="load")
    assert page_.evaluate("document.documentElement.scrollWidth") <= 390
    found = page_.evaluate("""() => ({
        tables: document.querySelectorAll('.md-content table').length,
        terms: Array.from(document.querySelectorAll('.md-content dt')).map(dt => ({
            text: dt.textContent,
            right: dt.getBoundingClientRect().right,
            broken: Array.from(dt.querySelectorAll('code')).filter(c => c.getClientRects().length > 1)
                        .map(c => c.textContent)})),
        widths: Array.from(document.querySelectorAll('.md-content dd')).map(dd => dd.getBoundingClientRect().width),
    })""")
    assert found["tables"] == 0, "the options are tables again"
    assert len(found["terms"]) > 50, len(found["terms"])
    for term in found["terms"]:
        assert term["right"] <= 390, f"{term['text']!r} runs past the window"
        assert not [c for c in term["broken"] if c.startswith("-")], f"an option name breaks: {term['broken']}"
    assert min(found["widths"]) >= 250, f"a description column is {min(found['widths']):.0f} px wide"
    page_.screenshot(path=str(artifacts / "docs-cli-reference-390.png"))
    page_.evaluate("window.scrollTo(0, document.querySelectorAll('.md-content dl')[2].getBoundingClientRect().top - 60)")
    page_.screenshot(path=str(artifacts / "docs-cli-reference-390-options.png"))
    page_.close()


def test_the_api_reference_renders_every_public_name_of_meta():
    """Every public name of ``ir_cwla.meta`` is rendered by the API reference.

    Each name of ``ir_cwla.meta.__all__`` (but its submodule ``criteria``) has a ``:::`` directive
    on docs/api/meta.md that resolves to the same object.
    """
    import importlib
    import types

    from ir_cwla import meta

    targets = re.findall(r"^::: (\S+)$", (DOCS / "api" / "meta.md").read_text(), flags=re.MULTILINE)
    resolved = {}
    for target in targets:
        module, _, name = target.rpartition(".")
        resolved[target] = getattr(importlib.import_module(module), name)
    missing = [n for n in meta.__all__ if not isinstance(getattr(meta, n), types.ModuleType)
               and not any(obj is getattr(meta, n) for obj in resolved.values())]
    assert not missing, f"public names of ir_cwla.meta not in docs/api/meta.md: {missing}"
