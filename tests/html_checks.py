"""Checks on generated HTML, as a browser parses it: which tags exist, what they load."""
from __future__ import annotations

from html.parser import HTMLParser


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parse_tags(page: str) -> list[tuple[str, dict]]:
    """The start tags of ``page`` as an HTML parser (a browser) sees them."""
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def external_references(page: str) -> list[str]:
    """Script-like tags and any src/href that is not a data: URI or an in-page anchor."""
    found = []
    for tag, attrs in parse_tags(page):
        if tag in ("script", "link", "iframe", "object", "embed", "base"):
            found.append(tag)
        for key in ("src", "href"):
            value = attrs.get(key)
            if value is not None and not value.startswith(("data:image/png;base64,", "#")):
                found.append(f"{tag} {key}={value}")
    return found
