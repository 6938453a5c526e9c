"""The one measure grammar: measures to names and names back to measures.

Every place that reads a measure written by a person or by ir_cwla itself (the command
line, :func:`ir_cwla.meta.evaluate`, a per-query CSV read back into :mod:`ir_cwla.meta`,
the leaderboard) goes through :func:`parse_measure`, which reads

- ir-measures syntax: ``nDCG@10``, ``AP(rel=2)``, ``CWLA(C='RBP', A='max', p=0.9)@10``
  (and ``str(measure)`` of any measure, which is that syntax);
- the short names that :func:`short_name` prints for C/W/L/A measures: ``RBP_max@10``,
  ``INST(T=3)_PE(beta=0.3)@10``, ``RBP(p=0.9)_max@10``, ``AP_ERG[pad]``,
  ``RBP_ERG[bin>=2,pad]@10``, ``RBP_ERG[residual]@10``, ``AP_ERG[unjudged=max,pad]``;
- trec_eval names, as ir-measures reads them: ``ndcg_cut_10``, ``map``, ``P.5,10``.

so that ``parse_measure(short_name(m)) == m`` and ``parse_measure(str(m)) == m`` for every
measure (a property test checks both). Families of measures (the aggregations of one
browsing model, compared with each other by the meta-evaluation) come from the measure's
own parameters (:func:`family`), never from splitting a printed name.

Short-name grammar::

    SHORT   := MODEL [ "(" PARAMS ")" ] "_" AGG [ "(" PARAMS ")" ] [ "[" EXTRAS "]" ] [ "@" CUTOFF ]
    PARAMS  := NAME "=" NUMBER { "," NAME "=" NUMBER }        (non-default p, T / beta)
    EXTRAS  := EXTRA { "," EXTRA }
    EXTRA   := "lin" | "exp" | "bin" | "bin>=" NUMBER | "stop" | "pad" | "residual" | "condense"
             | NAME "=" VALUE                                   (e.g. unjudged=max)
    CUTOFF  := ASCII decimal digits

In every grammar a cutoff is a whole number written in ASCII decimal digits (``@10``, not
``@0x10``, ``@True`` or ``@١٠``), a parameter is given once (two values for one parameter, e.g.
``[pad,stop]``, ``p=0.8,p=0.9`` or ``cutoff=5)@10``, are an error naming both), and a grade
threshold (``rel``, ``bin>=``, ``max_rel``) must mean the same grades as the float it is
held in (``rel=9007199254740993`` would become 9007199254740992).
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any, Optional, Union

import ir_measures
from ir_measures.measures import Measure

from ir_cwla.errors import (
    ArgumentTypeError,
    IrCwlaError,
    MeasureError,
    MeasureSyntaxError,
    ParameterError,
    RegistrationError,
)
from ir_cwla.measures import _registry as registry
from ir_cwla.measures._aggregation import AGGREGATIONS
from ir_cwla.measures._browsing import BROWSING_MODELS, PLUGINS_HELP, TAILS
from ir_cwla.measures._costs import CostSpec
from ir_cwla.measures._gains import GAIN_NAMES
from ir_cwla.measures._measure import CWLA, THRESHOLDS, is_cwla, threshold_problem

MeasureLike = Union[str, Measure]

#: Unjudged-document policies written as bare words in brackets (``RBP_ERG[residual]@10``);
#: 'max' is written ``unjudged=max`` (a bare 'max' would read as the aggregation).
UNJUDGED_KEYWORDS = ("residual", "condense")


def format_number(value: float) -> str:
    """A number as it is written in names: ``3`` for 3.0, else the shortest exact repr (``0.95``)."""
    v = float(value)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def _params_part(measure: Measure, names: Iterable[str]) -> str:
    shown = [f"{k}={format_number(measure.params[k])}" for k in names if k in measure.params]
    return f"({','.join(shown)})" if shown else ""


def _model_param_names(model: Any) -> list[str]:
    return [k for k in model.params if k != "cutoff"]


def _extras(measure: Measure) -> list[str]:
    params = measure.params
    extra = []
    if "rel" in params:
        extra.append(f"bin>={format_number(params['rel'])}")
    elif "gain" in params:
        extra.append(str(params["gain"]))
    if "max_rel" in params:
        extra.append(f"max_rel={format_number(params['max_rel'])}")
    if params.get("tail", "stop") != "stop":
        extra.append(str(params["tail"]))
    if "costs" in params:
        extra.append(f"costs={params['costs']}")
    unjudged = params.get("unjudged", "zero")
    if unjudged in UNJUDGED_KEYWORDS:
        extra.append(unjudged)
    elif unjudged != "zero":
        extra.append(f"unjudged={unjudged}")
    return extra


def _decorate(name: str, measure: Measure) -> str:
    extra = _extras(measure)
    if extra:
        name += f"[{','.join(extra)}]"
    if "cutoff" in measure.params:
        name += f"@{measure.params['cutoff']}"
    return name


def short_name(measure: Any) -> str:
    """A readable name for tables and plots: ``RBP_max@10``, ``INST(T=3)_PE(beta=0.3)@10``.

    Non-default parameters are shown next to the part they belong to; a non-default gain,
    ``max_rel``, ``tail='pad'`` and an unjudged policy are appended in brackets. :func:`parse_measure` reads the
    name back to the same measure. Other measures keep their ir-measures name.
    """
    if not is_cwla(measure):
        return str(measure)
    model, agg = measure.browsing_model, measure.aggregation
    name = (f"{model.name}{_params_part(measure, _model_param_names(model))}"
            f"_{agg.name}{_params_part(measure, agg.params)}")
    return _decorate(name, measure)


def family(measure: Any) -> str:
    """The family of a measure: the measures that differ only in their aggregation.

    C/W/L/A measures: the browsing model with its parameters, gain, tail and cutoff, i.e.
    the short name without the aggregation (``RBP@10``, ``INST(T=3)@10``,
    ``RBP(p=0.9)[pad]@10``); other ir-measures measures: the measure itself, with its
    parameters and cutoff (``nDCG@10``, ``AP``, ``AP@10``, ``P(rel=2)@5``: ``AP`` and ``AP@10``
    are different families, as ``RBP@10`` and ``RBP@20`` are). Built from the measure's
    parameters, so a registered model ``my_rbp`` is its own family.
    """
    if not is_cwla(measure):
        return str(measure)
    model = measure.browsing_model
    return _decorate(f"{model.name}{_params_part(measure, _model_param_names(model))}", measure)


# -- parsing --------------------------------------------------------------------------------

_PARAM = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=\s*([^=]+?)\s*$")


def _number(text: str, where: str) -> float:
    text = text.strip()
    if not text.isascii() or "_" in text:
        raise MeasureSyntaxError(f"{where}: {text!r} is not a number written in ASCII digits (e.g. 0.9)")
    try:
        v = float(text)
    except ValueError:
        raise MeasureSyntaxError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(v):
        raise MeasureSyntaxError(f"{where}: {text!r} is not a finite number")
    return v


def _param_list(text: str, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    written: dict[str, str] = {}
    for part in text.split(","):
        m = _PARAM.match(part)
        if not m:
            raise MeasureSyntaxError(f"{where}: expected NAME=NUMBER, got {part.strip()!r}")
        key, value = m.group(1), _number(m.group(2), where)
        problem = threshold_problem(key, m.group(2), value) if key in THRESHOLDS else None
        if problem:
            raise MeasureSyntaxError(f"{where}: {problem}")
        if key in out and out[key] != value:
            raise MeasureSyntaxError(f"{where}: {key}={written[key]} and {key}={m.group(2).strip()} contradict each "
                                     "other; give the parameter once")
        out[key], written[key] = value, m.group(2).strip()
    return out


def _extra(item: str, where: str) -> dict[str, Any]:
    item = item.strip()
    if item in GAIN_NAMES:
        return {"gain": item}
    if item in TAILS:
        return {"tail": item}
    if item in UNJUDGED_KEYWORDS:
        return {"unjudged": item}
    if item.startswith("bin>="):
        rel = _number(item[len("bin>="):], where)
        problem = threshold_problem("rel", item[len("bin>="):], rel)
        if problem:
            raise MeasureSyntaxError(f"{where}: {problem}")
        return {"rel": rel}
    m = _PARAM.match(item)
    if m:
        key, value = m.group(1), m.group(2)
        info = CWLA.SUPPORTED_PARAMS.get(key)
        if info is not None and info.dtype is str:
            return {key: value.strip("'\"")}
        number = _number(value, where)
        problem = threshold_problem(key, value, number) if key in THRESHOLDS else None
        if problem:
            raise MeasureSyntaxError(f"{where}: {problem}")
        return {key: number}
    raise MeasureSyntaxError(f"{where}: unknown option {item!r} in brackets (gain lin/exp/bin, bin>=REL, "
                             f"tail stop/pad, {'/'.join(UNJUDGED_KEYWORDS)}, or NAME=VALUE)")


def _registered_prefix(text: str, names: Iterable[str], follow: str) -> Optional[str]:
    """The longest registered name that ``text`` starts with, followed by a char in ``follow`` or the end."""
    for name in sorted(names, key=len, reverse=True):
        if text.startswith(name) and (len(text) == len(name) or text[len(name)] in follow):
            return name
    return None


def _split_params(text: str, where: str) -> tuple[dict[str, Any], str]:
    """``'(p=0.9)_max'`` -> ({'p': 0.9}, '_max'); no parentheses -> ({}, text)."""
    if not text.startswith("("):
        return {}, text
    end = text.find(")")
    if end < 0:
        raise MeasureSyntaxError(f"{where}: unclosed parenthesis")
    return _param_list(text[1:end], where), text[end + 1:]


_SHORT_TAIL = re.compile(r"^(?P<body>.*?)(?:\[(?P<extras>[^\]]*)\])?(?:@(?P<cutoff>[0-9]+))?$")


def _merge(params: dict[str, Any], shown: dict[str, str], new: dict[str, Any], source: str, where: str) -> None:
    """Adds ``new`` (written as ``source``) to ``params``.

    A parameter given twice with two values is an error naming both
    (``[pad,stop]``, ``RBP(p=0.8)_ERG[p=0.9]``).
    """
    for key, value in new.items():
        if key in params and params[key] != value:
            raise MeasureSyntaxError(f"{where}: {shown[key]} and {source} contradict each other (both set {key}); "
                                     "give the option once")
        params[key] = value
        shown.setdefault(key, source)


def parse_short_name(text: str) -> Optional[Measure]:
    """A short name (``RBP(p=0.9)_max[pad]@10``) as a CWLA measure; None if ``text`` is not one.

    Raises :class:`MeasureSyntaxError` when ``text`` starts like a short name (a registered
    browsing model followed by ``_`` and an aggregation) but is malformed.
    """
    text = text.strip()
    m = _SHORT_TAIL.match(text)
    if not m:
        return None
    body = m.group("body")
    model = _registered_prefix(body, BROWSING_MODELS, "(_")
    if model is None:
        return None
    params, rest = _split_params(body[len(model):], text)
    if not rest.startswith("_"):
        return None
    rest = rest[1:]
    agg = _registered_prefix(rest, AGGREGATIONS, "(")
    if agg is None:
        return None
    agg_params, rest = _split_params(rest[len(agg):], text)
    if rest:
        raise MeasureSyntaxError(f"{text}: unexpected {rest!r} after the aggregation")
    shown = {k: f"{k}={format_number(v)}" for k, v in params.items()}
    for key, value in agg_params.items():
        _merge(params, shown, {key: value}, f"{key}={format_number(value)}", text)
    if m.group("extras") is not None:
        for item in m.group("extras").split(","):
            _merge(params, shown, _extra(item, text), f"[{item.strip()}]", text)
    if m.group("cutoff") is not None:
        params["cutoff"] = int(m.group("cutoff"))
    return CWLA(C=model, A=agg, **params)


def _trec_eval(text: str) -> list[Measure]:
    """The measures a trec_eval name selects (:func:`ir_cwla.measures._trec_names.parse_name`); [] if it is not one."""
    from ir_cwla.measures import _trec_names as trec_names

    if not trec_names.is_trec_name(text):
        return []
    selected = trec_names.parse_name(text)        # a name trec_eval knows and ir-cwla cannot compute: why
    found = [s.measure for s in selected if s.measure is not None]
    if not found:
        raise MeasureSyntaxError(f"{text}: trec_eval's {selected[0].line} is a line of its output, not a measure "
                                 "(ir-cwla eval prints it in the trec formats)")
    return found


SYNTAX_HELP = ("ir-measures syntax (nDCG@10, AP(rel=2), CWLA(C='RBP', A='max')@10), a short name "
               "(RBP_max@10, RBP(p=0.9)_max[pad]@10) or a trec_eval name (ndcg_cut_10, map)")


def _top_level(text: str) -> tuple[list[str], Optional[str]]:
    """The ``NAME=VALUE`` arguments and the ``@`` suffix of a measure name.

    The ``NAME=VALUE`` arguments of the first parenthesised list of ``text`` (split on its
    top-level commas) and the text after its last top-level ``@`` (None without one); quotes,
    brackets and nested parentheses are skipped.
    """
    args: list[str] = []
    at: Optional[str] = None
    buf: list[str] = []
    depth, quote, seen_list = 0, None, False
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
            if depth == 1 and ch == "(" and not seen_list:
                buf = []
                continue
        elif ch in ")]":
            depth -= 1
            if depth == 0 and ch == ")" and not seen_list:
                args.append("".join(buf))
                seen_list = True
                continue
        elif depth == 0 and ch == "@":
            at = text[i + 1:]
        if depth == 1 and ch == "," and not seen_list:
            args.append("".join(buf))
            buf = []
            continue
        if depth >= 1 and not seen_list:
            buf.append(ch)
    return [a for a in args if a.strip()], at


_CUTOFF_TEXT = re.compile(r"[0-9]+")
_AT_NUMBER_TEXT = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def _at_param(token: str) -> str:
    """The parameter ``@`` sets for the measure ``token`` names (ir-measures' AT_PARAM; ``cutoff`` unless registered otherwise)."""
    name = re.match(r"\s*([A-Za-z_][A-Za-z_0-9]*)", token)
    found = ir_measures.measures.registry.get(name.group(1)) if name else None
    return getattr(found, "AT_PARAM", "cutoff") or "cutoff"


def _float_at_param(measure: Measure) -> Measure:
    """A measure whose ``@`` parameter is a float (IPrec's recall) with the whole number written there as a float."""
    key = measure.AT_PARAM
    info = measure.SUPPORTED_PARAMS.get(key)
    value = measure.params.get(key)
    if key != "cutoff" and info is not None and info.dtype is float and isinstance(value, int) \
            and not isinstance(value, bool):
        return measure(**{key: float(value)})
    return measure


def _check_literals(token: str) -> dict[str, str]:
    """The rules every grammar shares (see the module docstring), checked on the text itself.

    ir-measures' parser would read ``@0x10`` as 16, ``@True`` as 1 and ``p=0.8, p=0.9`` as 0.9.
    Returns the ``NAME=VALUE`` arguments as written.
    """
    args, at = _top_level(token)
    given: dict[str, str] = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier():
            continue
        if key in given and given[key] != value:
            raise MeasureSyntaxError(f"{token}: {key}={given[key]} and {key}={value} contradict each other; "
                                     "give the parameter once")
        given[key] = value
        if key == "cutoff" and not _CUTOFF_TEXT.fullmatch(value):
            raise MeasureSyntaxError(f"{token}: the cutoff must be a whole number written in ASCII decimal digits "
                                     f"(e.g. @10), got cutoff={value}")
    at_param = _at_param(token)
    if at is not None and at_param != "cutoff":          # IPrec@0.1 (recall), RprecMult@0.2 (mult)
        if not _AT_NUMBER_TEXT.fullmatch(at.strip()):
            raise MeasureSyntaxError(f"{token}: the {at_param} after '@' must be a number written in ASCII decimal "
                                     f"digits (e.g. @0.5), got @{at.strip()}")
    elif at is not None:
        cutoff = at.strip()
        if not _CUTOFF_TEXT.fullmatch(cutoff):
            raise MeasureSyntaxError(f"{token}: the cutoff after '@' must be a whole number written in ASCII decimal "
                                     f"digits (e.g. @10), got @{cutoff}")
        if "cutoff" in given and int(given["cutoff"]) != int(cutoff):
            raise MeasureSyntaxError(f"{token}: cutoff={given['cutoff']} and @{cutoff} contradict each other; "
                                     "give the cutoff once")
    return given


def _check_thresholds(token: str, given: dict[str, str]) -> None:
    """Checks that grade thresholds in ir-measures syntax mean the grades their float holds.

    A grade threshold of a C/W/L/A measure written in ir-measures syntax must mean the same
    grades as the float it is held in (:func:`ir_cwla.measures._measure.threshold_problem`).
    """
    for key in THRESHOLDS:
        value = given.get(key)
        if value is None or not value.isascii():
            continue
        try:
            held = float(value)
        except ValueError:
            continue
        problem = threshold_problem(key, value, held)
        if problem:
            raise MeasureSyntaxError(f"{token}: {problem}")


def _lacks_required(measure: Measure) -> bool:
    """True for an ir-measures measure without a parameter it requires (``P`` without a cutoff)."""
    return any(info.required and key not in measure.params for key, info in measure.SUPPORTED_PARAMS.items())


def _parse_all(text: MeasureLike) -> list[Measure]:
    """Every measure ``text`` names (a trec_eval name may name several, e.g. ``P``)."""
    if isinstance(text, Measure):
        return [text]
    if not isinstance(text, str):
        raise ArgumentTypeError(f"a measure is a string or an ir-measures Measure, got {type(text).__name__}")
    token = text.strip()
    huge = re.search(r"@\s*\+?(\d{20,})", token)         # (MAX_CUTOFF = 2^62 has 19 digits)
    if huge:
        digits = huge.group(1)
        raise MeasureSyntaxError(f"measure {token[:huge.start()][:60]!r}: the cutoff @{digits[:6]}... "
                                 f"({len(digits):,} digits) exceeds 2^62, the largest cutoff")
    given = _check_literals(token)
    short_error: Optional[MeasureSyntaxError] = None
    try:
        short = parse_short_name(token)
    except MeasureSyntaxError as ex:      # e.g. AP(rel=2,judged_only=True)@10 is ir-measures' AP
        short, short_error = None, ex
    if short is not None:
        return [short]
    try:
        parsed = ir_measures.parse_measure(token)
    except IrCwlaError as ex:             # read as a C/W/L/A measure, which refuses its parameters (or costs)
        raise MeasureSyntaxError(f"measure {token!r}: {ex}") from None
    except (NameError, ValueError, SyntaxError, TypeError):
        pass
    else:
        if is_cwla(parsed):
            _check_thresholds(token, given)
        elif _lacks_required(parsed):          # ``P``: trec_eval's name of P@5 ... P@1000
            found = _trec_eval(token)
            if found:
                return found
        return [_float_at_param(parsed)]
    found = _trec_eval(token)
    if found:
        return found
    if short_error is not None:
        raise short_error
    raise MeasureSyntaxError(f"unknown measure {token!r}: write {SYNTAX_HELP}; {PLUGINS_HELP}")


def parse_measure(text: MeasureLike) -> Measure:
    """One measure from its name in any of the accepted grammars (see the module docstring).

    A Measure object is returned as it is. A name that names several measures (the trec_eval
    name ``P`` names P@5 ... P@1000) is an error; :func:`parse_measures` expands it.
    """
    found = _parse_all(text)
    if len(found) != 1:
        raise MeasureSyntaxError(f"{text!r} names {len(found)} measures ({', '.join(map(str, found))}); "
                                 "name one, or use parse_measures")
    return found[0]


def named_measures(measures: Union[MeasureLike, Sequence[MeasureLike]]) -> tuple[list[Measure], list[str]]:
    """Measures as ir-measures objects, with the names a per-query frame carries.

    Measures as ir-measures objects (names read by :func:`parse_measure`), with the names a
    per-query frame carries (PyTerrier's rule: a measure given as a string keeps that string,
    an object gets ``str(measure)``); none, or the same measure twice, is a ParameterError.
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    parsed, names = [], []
    for m in measures:
        if isinstance(m, str):
            parsed.append(parse_measure(m))
            names.append(m)
        elif isinstance(m, Measure):
            parsed.append(m)
            names.append(str(m))
        else:
            raise ArgumentTypeError(f"not a measure: {m!r}")
    if not parsed:
        raise ParameterError("no measures given")
    if len(set(parsed)) != len(parsed):
        raise ParameterError(f"duplicate measures in {names}")
    return parsed, names


#: A parameter of a trec_eval name after a comma (``ndcg_cut.10,20``, ``utility.1,-1,0,0``,
#: ``ndcg.1=3,2=9``): it continues the list before it rather than starting a measure.
_TREC_PARAM = re.compile(r"[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?|[+-]?[A-Za-z0-9_]+=[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?")


def split_measure_list(text: str) -> list[str]:
    """Splits a list of measures on spaces and on commas outside parentheses and quotes.

    A comma followed by a number or a ``NAME=NUMBER`` pair continues the trec_eval parameter
    list before it (``ndcg_cut.10,20``, ``utility.1,-1,0,0`` and ``ndcg.1=3,2=9`` are one token each;
    ``ndcg_cut_10,map`` is two).
    """
    tokens: list[str] = []
    buf: list[str] = []
    depth, quote = 0, None

    def flush(sep: str) -> None:
        if buf:
            tokens.append("".join(buf))
            buf.clear()
        if sep == "," and tokens:
            tokens.append(",")

    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and (ch.isspace() or ch == ","):
            flush(ch)
            continue
        buf.append(ch)
    flush("")
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if tok == ",":
            continue
        if i > 0 and tokens[i - 1] == "," and out and _TREC_PARAM.fullmatch(tok):
            out[-1] += "," + tok
        else:
            out.append(tok)
    return out


def parse_measures(texts: Union[MeasureLike, Sequence[MeasureLike]]) -> list[Measure]:
    """Measures from names or objects.

    A string may hold several (``'nDCG@10 RBP_max@10'``, ``'ndcg_cut_10,map'``). Every
    name is read whole (nothing is dropped), each measure validated, and a measure
    named twice is kept once, in order of first mention.
    """
    if isinstance(texts, (str, Measure)):
        texts = [texts]
    out: list[Measure] = []
    for text in texts:
        tokens = split_measure_list(text) if isinstance(text, str) else [text]
        for token in tokens:
            for m in _parse_all(token):
                try:
                    m.validate_params()
                except (AssertionError, ValueError, KeyError, TypeError) as ex:
                    raise MeasureSyntaxError(f"measure {token!r}: {ex}") from None
                if m not in out:
                    out.append(m)
    return out


def named_cost_files(texts: Union[MeasureLike, Sequence[MeasureLike]]) -> list[str]:
    """The cost files that measure names name, found without opening anything.

    The cost files (``costs='type:PATH'``, ``'doc:PATH'``) that measure names name, without
    validating the measures or opening anything: what a caller that vouches for the names (the
    command line, for measures its user typed) passes to :func:`ir_cwla.allow_cost_files`.
    Names that do not parse are left to :func:`parse_measures` to report.
    """
    if isinstance(texts, (str, Measure)):
        texts = [texts]
    out: list[str] = []
    for text in texts:
        for token in split_measure_list(text) if isinstance(text, str) else [text]:
            try:
                found = _parse_all(token)
            except (MeasureError, AssertionError, ValueError, KeyError, TypeError):
                continue
            for m in found:
                costs = getattr(m, "params", {}).get("costs") if is_cwla(m) else None
                try:
                    path = CostSpec.parse(costs).path if costs is not None else None
                except MeasureError:
                    continue
                if path is not None and path not in out:
                    out.append(path)
    return out


#: Whether :func:`register_aliases` put the ``MODEL_AGG`` names into ir-measures (``import
#: ir_cwla`` does): from then on every registration keeps them in step.
_ALIASES_REGISTERED = False


def alias_names() -> dict[str, Measure]:
    """The ``MODEL_AGG`` names the grammar accepts, each with its measure.

    The ``MODEL_AGG`` names the grammar accepts, each with its measure (``RBP_max`` ->
    ``CWLA(C='RBP', A='max')``): every registered pair except those no cutoff makes a measure
    (``RBP_ERR``: C ignores the gains, so A='ERR' is a constant).
    """
    out = {}
    for model_name in BROWSING_MODELS:
        for agg_name in AGGREGATIONS:
            try:      # (a measure is checked when it is made; a cutoff only when it is evaluated)
                measure = CWLA(C=model_name, A=agg_name)
            except MeasureError:
                continue
            out[f"{model_name}_{agg_name}"] = measure
    return out


def register_aliases() -> None:
    """Registers every ``MODEL_AGG`` name the grammar accepts with ir-measures.

    Registers every ``MODEL_AGG`` pair the grammar accepts (:func:`alias_names`) with
    ir-measures, so that ``ir_measures.parse_measure`` reads the plain short names too
    (``RBP_max@10``, ``INST_PE(beta=0.3)@10``).

    ``ir_cwla.register()`` calls it; afterwards every model or aggregation registered keeps
    the names in step (a listener of :mod:`ir_cwla.measures._registry`). A name that an ir-measures
    measure already has (``P_IA``, ``AP_IA``: an aggregation named ``IA``) is refused with
    :class:`~ir_cwla.errors.RegistrationError`, and the registration that brought it is undone.
    """
    global _ALIASES_REGISTERED
    table = ir_measures.measures.registry
    wanted = alias_names()
    clashes = sorted(name for name in wanted if name in table and not is_cwla(table[name]))
    if clashes:
        raise RegistrationError(f"the short name(s) {', '.join(clashes)} of C/W/L/A measures would replace "
                                "ir-measures' measure(s) of that name; register the model or aggregation "
                                "under another name")
    for name in [k for k, v in table.items() if is_cwla(v) and k != CWLA.NAME and k not in wanted]:
        del table[name]                        # a pair no longer accepted (or no longer registered)
    table.update(wanted)
    _ALIASES_REGISTERED = True


@registry.on_change
def _keep_aliases_in_step() -> None:
    if _ALIASES_REGISTERED:
        register_aliases()
