"""The generated parts of the documentation: built from the registries and parsers at every build.

A page asks for a generated part with a directive on a line of its own::

    <!-- generated: browsing-models -->

and :func:`expand` replaces it with Markdown built from the code (``docs/_tools/hooks.py`` does
it for ``mkdocs build``; ``tests/test_docs.py`` does it before running a page's code blocks and
checks every registered model, aggregation, parameter, criterion and option against the
output). Nothing here lists a model, an option or a criterion by hand.

Directives: ``measure-params``, ``browsing-models``, ``aggregations``, ``measure-names``,
``criteria``, ``criterion NAME``, ``compare-options``, ``statistical-tests``, ``cli-reference``,
``cwl-metrics``, ``trec-eval-conformance``.
"""
from __future__ import annotations

import argparse
import os
import re
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
DIRECTIVE = re.compile(r"^<!-- generated: ([a-z-]+)(?: ([A-Za-z0-9_]+))? -->$", re.MULTILINE)
#: Generated code blocks are text, never run: they carry the marker tests/test_docs.py reads.
NORUN = "<!-- test: norun (generated from the code) -->"


def _cell(text: Any) -> str:
    """Text for a Markdown table cell (one line, pipes escaped)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: Any) -> str:
    text = str(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _doc(text: str) -> str:
    """A registry entry's docstring as one paragraph (continuation lines dedented)."""
    lines = (text or "").strip().splitlines()
    if not lines:
        return ""
    return " ".join(" ".join(line.split()) for line in [lines[0], *textwrap.dedent("\n".join(lines[1:])).splitlines()]
                    if line.strip()).replace("``", "`")


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:g}"
    return repr(value) if not isinstance(value, float) else f"{value:g}"


def _where(fn: Callable[..., Any]) -> str:
    """``module.function`` of a registered callable."""
    module = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
    return f"{module}.{name}" if module else name


def _param_rows(params: dict[str, Any]) -> list[str]:
    rows = ["| parameter | default | admissible values | meaning |", "|---|---|---|---|"]
    for name, param in params.items():
        rows.append(f"| `{name}` | `{_number(param.default)}` | {_cell(param.describe())} | {_cell(param.doc)} |")
    return rows


# -- measures ------------------------------------------------------------------------------------

def measure_params() -> str:
    """The parameters every C/W/L/A measure takes (the measure's own, not a model's)."""
    import ir_cwla
    from ir_cwla.measures import MEASURE_PARAMS

    supported = ir_cwla.CWLA.SUPPORTED_PARAMS
    rows = ["| parameter | default | meaning |", "|---|---|---|"]
    for name in MEASURE_PARAMS:
        info = supported[name]
        default = getattr(info, "default", None)
        shown = "none" if default is None or not isinstance(default, (str, int, float)) else _code(repr(default))
        label = "`@k`" if name == "cutoff" else f"`{name}`"
        rows.append(f"| {label} | {shown} | {_cell(info.desc)} |")
    declared = sorted({p for m in ir_cwla.BROWSING_MODELS.values() for p in m.params}
                      | {p for a in ir_cwla.AGGREGATIONS.values() for p in a.params})
    rows.append(f"| {', '.join(f'`{p}`' for p in declared)} | per model | the parameters of the browsing models and "
                "aggregations, below |")
    return "\n".join(rows)


def browsing_models() -> str:
    """One section per registered browsing model: formula and source, properties, parameters."""
    import ir_cwla

    out = []
    for name, model in ir_cwla.BROWSING_MODELS.items():
        facts = []
        if model.requires_cutoff:
            facts.append("needs a cutoff (`@k`)")
        if model.uses_costs:
            facts.append("reads document costs (`costs=`)")
        if not model.gain_dependent:
            facts.append("C ignores the gains (A = ERR is rejected)")
        if model.never_stops_on_zero:
            facts.append("never stops on a zero gain (A = ERG is rejected under `tail='pad'`)")
        facts.append(f"default gain `{model.default_gain}`")
        facts.append("closed-form tail" if model.tail is not None else "tail summed numerically")
        if model.reads_total:
            facts.append("its tail reads R, the topic's total judged gain" if model.reads_total is True
                         else "its tail reads R, the topic's number of relevant documents")
        section = [f"### {name}", "", _doc(model.doc) or "(no docstring)", "",
                   f"`CWLA(C='{name}')`: {'; '.join(facts)}. Defined in `{_where(model.continuation)}`.", ""]
        if model.params:
            section += [*_param_rows(dict(model.params)), ""]
        out.append("\n".join(section))
    return "\n".join(out).rstrip()


def aggregations() -> str:
    """One section per registered aggregation: formula and source, properties, parameters."""
    import ir_cwla

    out = []
    for name, agg in ir_cwla.AGGREGATIONS.items():
        facts = []
        if agg.needs_vplus:
            facts.append("reads V+ (the expected depth)")
        if agg.needs_costs:
            facts.append("reads document costs (`costs=`)")
        if agg.unbounded:
            facts.append("not bounded by 1")
        facts.append("closed-form tail" if agg.tail is not None else "no tail (`tail='pad'` not available)")
        section = [f"### {name}", "", _doc(agg.doc) or "(no docstring)", "",
                   f"`CWLA(A='{name}')`: {'; '.join(facts)}. Defined in `{_where(agg.fn)}`.", ""]
        if agg.params:
            section += [*_param_rows(dict(agg.params)), ""]
        out.append("\n".join(section))
    return "\n".join(out).rstrip()


def measure_names() -> str:
    """The 39 measures of the paper's Table 1 with their short names (canonical ones starred)."""
    import ir_cwla

    measures = ir_cwla.table1()
    rows = ["| short name | measure | canonical |", "|---|---|---|"]
    for m in measures:
        rows.append(f"| `{ir_cwla.short_name(m)}` | `{m}` | {'*' if ir_cwla.is_canonical(m) else ''} |")
    return "\n".join(rows)


# -- meta-evaluation -----------------------------------------------------------------------------

def _options(criterion: Any) -> str:
    return ", ".join(f"`{o.flag}` (`{o.name}=`, default `{_number(o.default)}`)" for o in criterion.options) or "none"


def criteria() -> str:
    """The registered criteria, in report order: what each answers, what it needs, its options."""
    from ir_cwla import meta

    rows = ["| criterion | what it answers | needs | options (`ir-cwla meta` flag, keyword, default) |",
            "|---|---|---|---|"]
    for name, c in meta.CRITERIA.items():
        needs = ", ".join(list(c.needs) + ([" or ".join(c.needs_any)] if c.needs_any else [])) or "the per-query frame"
        rows.append(f"| `{name}`: {_cell(c.title)} | {_cell(c.question)} | {_cell(needs)} | {_cell(_options(c))} |")
    return "\n".join(rows)


def criterion(name: str) -> str:
    """One criterion's declaration: its question, inputs and options."""
    from ir_cwla import meta

    c = meta.CRITERIA[name]
    needs = " and ".join(list(c.needs) + ([" or ".join(c.needs_any)] if c.needs_any else [])) or "only the per-query frame"
    lines = [f"!!! question \"{_cell(c.question)}\"", "",
             f"    `ir-cwla meta --criteria {name}`; needs {needs}; options: "
             f"{_options(c)}."]
    if c.options:
        lines.append("")
    for o in c.options:
        lines.append(f"    - `{o.flag}`: {_cell(o.help)}")
    return "\n".join(lines)


# -- comparisons ---------------------------------------------------------------------------------

def compare_options() -> str:
    """The tests, corrections and families ``ir_cwla.compare`` accepts, with their aliases."""
    from ir_cwla.analysis import significance
    from ir_cwla.comparison import api

    def aliases(table: dict, name: str) -> str:
        other = sorted(a for a, n in table.items() if n == name)
        return f" (also {', '.join(f'`{a}`' for a in other)})" if other else ""

    rows = ["| option | accepted values |", "|---|---|",
            "| `test=` / `--test` | " + ", ".join(f"`{t}`{aliases(significance.aliases(), t)}" for t in api.tests())
            + " (and a function `fn(x, y) -> (statistic, p_value)`) |",
            "| `correction=` / `--correction` | " + ", ".join(f"`{c}`{aliases(api.CORRECTION_ALIASES, c)}"
                                                             for c in api.CORRECTIONS) + " |",
            "| `family=` / `--family` | " + ", ".join(f"`{f}`" for f in api.FAMILIES) + " |"]
    return "\n".join(rows)


def statistical_tests() -> str:
    """The registered statistical tests: name and aliases, label, kind, randomised, and what each computes."""
    from ir_cwla.analysis import significance

    rows = ["| `test=` / `--test` | label in tables | kind | randomised | what it computes |", "|---|---|---|---|---|"]
    for name, test in significance.TESTS.items():
        also = f" (also {', '.join(_code(a) for a in test.aliases)})" if test.aliases else ""
        rows.append(f"| {_code(name)}{also} | {_cell(test.label)} | {test.kind} | {'yes' if test.randomised else 'no'} "
                    f"| {_cell(_doc(test.doc))} |")
    return "\n".join(rows)


# -- command line --------------------------------------------------------------------------------

def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _usage(parser: argparse.ArgumentParser) -> str:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        return parser.format_usage().strip()
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def _value(action: argparse.Action) -> str:
    """The value an option takes, as Markdown: ``PLACES``, ``MEASURE [MEASURE ...]``, or its choices.

    Choices are listed one code span each (``one of `tsv`, `json` ``) so that a long list wraps
    on a narrow screen instead of running out of it.
    """
    if action.nargs == 0:
        return ""
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return "one of " + ", ".join(_code(c) for c in action.choices)
    metavar = action.metavar or action.dest.upper()
    if action.nargs in ("+", argparse.ONE_OR_MORE):
        return _code(f"{metavar} [{metavar} ...]")
    if action.nargs in ("*", argparse.ZERO_OR_MORE):
        return _code(f"[{metavar} ...]")
    return _code(metavar)


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS) or action.required:
        return ""
    return _code(action.default)


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    """Every argument of ``parser`` as a definition list.

    The term: its names, its value and its default; the definition: its help. A list, not a
    table of four columns, so that it reads on a phone (390 px) as on a desktop:
    ``tests/test_docs.py`` looks at it at that width.
    """
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._SubParsersAction, argparse._HelpAction)):
            continue
        value, default = _value(action), _default(action)
        if action.option_strings:
            term = ", ".join(f"`{o}`" for o in action.option_strings) + (f" {value}" if value else "")
        else:
            name = action.metavar or action.dest
            term = f"`{name}`" + (f" {value}" if value and value != _code(name) else "")
        if default:
            term += f" (default {default})"
        missing = "(no description)" if action.option_strings else "(positional)"
        rows += [term, f":   {_cell(action.help) if action.help else missing}", ""]
    return rows


def cli_reference() -> str:
    """Every sub-command of ``ir-cwla`` with its usage and every argument, from the parser itself."""
    from ir_cwla.app.cli import build_parser

    parser = build_parser()
    helps = _helps(parser)
    out = ["## ir-cwla", "", _cell(parser.description or ""), "", NORUN, "```text", _usage(parser), "```", "",
           *_arguments(parser), "",
           "The commands: " + ", ".join(f"[`{n}`](#ir-cwla-{n})" for n in _subparsers(parser)) + ".", ""]
    for name, sub in _subparsers(parser).items():
        out += [f"## ir-cwla {name}", "", f"*{_cell(helps.get(name, ''))}*", "", _cell(sub.description or ""), "",
                NORUN, "```text", _usage(sub), "```", "", *_arguments(sub), ""]
        if sub.epilog:
            out += [NORUN, "```text", sub.epilog.strip(), "```", ""]
    return "\n".join(out).rstrip()


# -- cwl_eval ------------------------------------------------------------------------------------

def cwl_metrics() -> str:
    """Each line of ``examples/zoo.txt``: cwl_eval's metric, its column name, the CWLA measure of its EU."""
    from ir_cwla.app import cwl

    rows = ["| line of `zoo.txt` | cwl_eval's name | its EU as a CWLA measure |", "|---|---|---|"]
    for line in (ROOT / "examples" / "zoo.txt").read_text().splitlines():
        if not line.strip():
            continue
        metric = cwl.parse_metric(line)
        rows.append(f"| `{line.strip()}` | `{metric.name}` | `{metric.measure(A='ERG')}` |")
    return "\n".join(rows)


# -- trec_eval conformance ------------------------------------------------------------------------

CONFORMANCE = ROOT / "tests" / "data" / "trec_eval" / "conformance.json"


def trec_eval_conformance() -> str:
    """The table of ``tests/data/trec_eval/conformance.json``, which tests/test_trec_eval_conformance.py checks.

    Each case of trec_eval 10.0's quicktest and each edge case: its command line, trec_eval's
    lines, how many ``ir-cwla eval ... --trec-eval 10 --format trec_eval`` prints identically,
    and why where a case is not run.
    """
    import json

    rows = json.loads(CONFORMANCE.read_text())
    run = [r for r in rows if r["lines"] is not None]
    same = sum(r["identical"] for r in run)
    lines = sum(r["lines"] for r in run)
    identical = sum(r["status"] == "identical" for r in run)
    out = [f"{identical} of the {len(run)} cases ir-cwla runs print trec_eval 10.0's output byte for byte; "
           f"{same:,} of their {lines:,} lines are identical. {len(rows) - len(run)} cases are not run "
           "(the reason is in the table).", ""]
    for source, title in (("quicktest", "trec_eval's own quicktest (its Makefile, in order)"),
                          ("edge", "Edge cases (tests/data/trec_eval/edge, answered by trec_eval 10.0)")):
        out += [f"**{title}**", "", "| case | trec_eval command line | lines | identical | status |", "|---|---|---|---|---|"]
        for r in rows:
            if r["source"] != source:
                continue
            shown = "-" if r["lines"] is None else str(r["lines"])
            ident = "-" if r["identical"] is None else str(r["identical"])
            status = r["status"] + (f": {r['why']}" if r["why"] else "")
            label = r["case"] + (f" ({_cell(r['checks'])})" if r["checks"] else "")
            out.append(f"| {_cell(label)} | {_code(r['command'])} | {shown} | {ident} | {_cell(status)} |")
        out.append("")
    return "\n".join(out)


# -- the directive -------------------------------------------------------------------------------

GENERATORS: dict[str, Callable[..., str]] = {
    "measure-params": measure_params,
    "browsing-models": browsing_models,
    "aggregations": aggregations,
    "measure-names": measure_names,
    "criteria": criteria,
    "criterion": criterion,
    "cli-reference": cli_reference,
    "compare-options": compare_options,
    "statistical-tests": statistical_tests,
    "cwl-metrics": cwl_metrics,
    "trec-eval-conformance": trec_eval_conformance,
}


def expand(markdown: str) -> str:
    """``markdown`` with every ``<!-- generated: NAME [ARG] -->`` line replaced by its Markdown."""
    def one(match: re.Match) -> str:
        name, arg = match.group(1), match.group(2)
        if name not in GENERATORS:
            raise KeyError(f"unknown directive <!-- generated: {name} -->; known: {', '.join(GENERATORS)}")
        return GENERATORS[name](arg) if arg else GENERATORS[name]()
    return DIRECTIVE.sub(one, markdown)


def directives(markdown: str) -> list[tuple[str, Any]]:
    return [(m.group(1), m.group(2)) for m in DIRECTIVE.finditer(markdown)]


#: Pages another part of the project may write; where one is absent, the site uses the
#: fallback of the same name in docs/_tools/fallback/ (so merging theirs never conflicts).
FALLBACK_DIR = Path(__file__).resolve().parent / "fallback"
OPTIONAL_PAGES = ("scale-out.md", "findings.md", "findings-assessors.md")


def page_sources(docs: Path = ROOT / "docs") -> dict[str, Path]:
    """Every page of the site by its path under docs/.

    The hand-written ones, and the fallbacks of the optional pages that are absent
    (an optional page with neither is left out).
    """
    pages = {p.relative_to(docs).as_posix(): p for p in sorted(docs.rglob("*.md"))
             if "_tools" not in p.relative_to(docs).parts}
    for name in OPTIONAL_PAGES:
        if name not in pages and (FALLBACK_DIR / name).exists():
            pages[name] = FALLBACK_DIR / name
    return pages


def nav_pages(nav: Iterable[Any]) -> list[str]:
    """The page paths of an mkdocs ``nav`` (nested lists of ``{title: path or list}``)."""
    out: list[str] = []
    for item in nav:
        if isinstance(item, dict):
            for value in item.values():
                out += nav_pages(value) if isinstance(value, list) else [value]
        elif isinstance(item, list):
            out += nav_pages(item)
        else:
            out.append(item)
    return out
