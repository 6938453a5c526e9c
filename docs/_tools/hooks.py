"""mkdocs hooks: the generated parts of the pages, and the pages other engineers may write.

- ``on_config``: the optional pages (``reference.OPTIONAL_PAGES``) that have neither a page in
  docs/ nor a fallback leave the navigation, so that the strict build accepts their absence;
- ``on_files``: an optional page absent from docs/ is served from docs/_tools/fallback/;
- ``on_page_markdown``: every ``<!-- generated: NAME -->`` directive is replaced by Markdown
  built from the registries and parsers (docs/_tools/reference.py);
- ``on_post_build``: ``404.html``, which mkdocs links root-absolute (``/assets/...``, for a
  server that shows it at any depth), gets links relative to the site's root, where it lies,
  so that it works opened from disk (``file://``) too; over HTTP a ``<base href="/">`` it writes
  first thing keeps them resolving from the root, and from ``file://`` an inline script points
  the theme's configuration (search index, search worker) at the page's own folder.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from mkdocs.structure.files import File

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("ir_cwla_docs_reference", _HERE / "reference.py")
reference = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = reference
_spec.loader.exec_module(reference)


def _prune(nav, keep):
    out = []
    for item in nav:
        if isinstance(item, dict):
            pruned = {}
            for title, value in item.items():
                if isinstance(value, list):
                    value = _prune(value, keep)
                    if value:
                        pruned[title] = value
                elif keep(value):
                    pruned[title] = value
            if pruned:
                out.append(pruned)
        elif keep(item):
            out.append(item)
    return out


def on_config(config):
    pages = reference.page_sources(Path(config["docs_dir"]))
    optional = set(reference.OPTIONAL_PAGES)
    config["nav"] = _prune(config["nav"], lambda path: path not in optional or path in pages)
    return config


def on_files(files, config):
    docs = Path(config["docs_dir"])
    for name, source in reference.page_sources(docs).items():
        if name in reference.OPTIONAL_PAGES and not (docs / name).exists():
            files.append(File.generated(config, name, content=source.read_text(encoding="utf-8")))
    return files


def on_page_markdown(markdown, page, config, files):
    return reference.expand(markdown)


#: ``href="/..."`` / ``src="/..."`` (not ``//host``): root-absolute links.
_ROOT_LINK = re.compile(r'\b(href|src)="/(?!/)')
_BASE = """<script>if (location.protocol !== "file:") document.write('<base href="/">')</script>"""
_FILE_CONFIG = ("<script>if (location.protocol === \"file:\") { var c = document.getElementById(\"__config\"), "
                "j = JSON.parse(c.textContent); j.base = \".\"; j.search = j.search.replace(/^\\//, \"\"); "
                "c.textContent = JSON.stringify(j); }</script>")


def relative_404(html: str) -> str:
    """``404.html`` with root-relative links that work from ``file://`` and over HTTP (module docstring)."""
    html = _ROOT_LINK.sub(r'\1="', html)
    html = html.replace("<head>", "<head>\n    " + _BASE, 1)
    config_end = html.index("</script>", html.index('id="__config"')) + len("</script>")
    return html[:config_end] + _FILE_CONFIG + html[config_end:]


def on_post_build(config):
    page = Path(config["site_dir"]) / "404.html"
    if page.exists():
        page.write_text(relative_404(page.read_text(encoding="utf-8")), encoding="utf-8")
