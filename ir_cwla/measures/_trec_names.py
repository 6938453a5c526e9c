"""trec_eval's measure names, read and written as trec_eval 10.0 reads and prints them.

One table, :data:`TREC_MEASURES`, holds every measure trec_eval knows, in the order it prints
them (its ``te_trec_measures``), each with how its parameters are read and how its values are
named and printed (``meas_init.c``, ``meas_print_*.c``), and the ir-measures measure(s) ir-cwla
computes for it. From it:

- :func:`parse_name` reads one name as trec_eval's ``-m`` does: ``map``, ``P.5,10``,
  ``iprec_at_recall..10,.20`` (everything after the first ``.`` is the parameter list),
  ``ndcg.1=3,2=9,4=4.5``, ``relstring.20``, a nickname (``official``, ``set``, ``all_trec``), and
  the names trec_eval prints (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``), which
  :func:`ir_cwla.parse_measure` reads back;
- :func:`select` applies trec_eval's rules for a whole command line: each measure is computed
  once, with the parameters of the first ``-m NAME.PARAMS`` that names it (``-m all_trec -m
  relstring.20`` is relstring_20 alone; a later ``-m P.10`` after ``-m P.5`` is ignored, with a
  warning);
- :func:`trec_name` gives the name, order and number format trec_eval prints a measure with.

Numbers in parameters are read as C's ``atol``/``atof`` read them (``23.4`` as a cut-off is 23;
``.10`` is 0.1); cut-offs are sorted, and a cut-off <= 0 or given twice is refused, as trec_eval
refuses them. ``runid`` and ``relstring`` are lines of the output, not measures
(:class:`Selected` ``.line``).
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import ir_measures
from ir_measures.providers.base import NOT_PROVIDED

from ir_cwla.errors import InputWarning, MeasureSyntaxError
from ir_cwla.measures import _trec_measures as tm

#: The kinds of trec_eval measures, by how they read parameters and name their values.
#: ``cut_long``: long cut-offs, one value each, ``NAME_%ld`` (P, recall, ...); ``cut_double``:
#: double cut-offs, ``NAME_%3.2f`` (iprec_at_recall, Rprec_mult); ``p_double``: a list of doubles
#: in the order given, ``NAME_PARAMS`` (utility, 11pt_avg, set_F, relstring); ``p_pair``:
#: ``name=value`` pairs, ``NAME_PARAMS`` (ndcg, G, rbp, ...); ``plain``: no parameters.
KINDS = ("cut_long", "cut_double", "p_double", "p_pair", "plain")


@dataclass(frozen=True)
class Selected:
    """One value trec_eval prints: its measure (or the line it is, ``runid``/``relstring``), name and place.

    ``order``: ``(position in trec_eval's measure table, cut-off)``: trec_eval prints a measure's
    values by cut-off;
    ``long``: printed as an integer (``%ld``); ``per_query``/``summary``: whether trec_eval prints it
    for each topic (with ``-q``) and in the summary.
    """

    name: str
    measure: Any
    order: tuple[int, float]
    long: bool = False
    per_query: bool = True
    summary: bool = True
    line: Optional[str] = None
    length: int = 10


@dataclass(frozen=True)
class TrecMeasure:
    """A measure of trec_eval's table: name, kind, default parameters, and what ir-cwla computes for it."""

    name: str
    kind: str
    default: Optional[str] = None
    build: Optional[Callable[[Any, Optional[str]], list]] = None
    long: bool = False
    per_query: bool = True
    summary: bool = True
    why: str = ""
    aliases: tuple[str, ...] = field(default=())

    @property
    def supported(self) -> bool:
        """Whether ir-cwla computes it."""
        return self.build is not None


Builder = Callable[[Any, Optional[str]], list]


def _one(measure: Any) -> Builder:
    return lambda params, text: [measure]


def _cuts(make: Callable[[Any], Any]) -> Builder:
    return lambda params, text: [make(v) for v in params]


def _pairs_gains(make: Callable[..., Any]) -> Builder:
    def build(params: Any, text: Optional[str]) -> list:
        gains = {int(k): (int(v) if float(v).is_integer() else v) for k, v in params if _valid_int(k)} if params else {}
        return [make(gains=gains) if gains else make()]
    return build


def _rbp(make: Callable[..., Any]) -> Builder:
    def build(params: Any, text: Optional[str]) -> list:
        p = 0.9
        for k, v in params or ():
            if k == "p":
                p = v
            elif _valid_int(k):
                raise MeasureSyntaxError("rbp's gains (rbp.p=0.8,1=1,2=3): ir-cwla's RBP takes the grades as gains; "
                                         "give p only (rbp.p=0.8)")
        return [make(p=p)]
    return build


def _utility(params: Any, text: Optional[str]) -> list:
    coefficients = list(params) if params else [1.0, -1.0, 0.0, 0.0]
    if len(coefficients) != 4:
        raise MeasureSyntaxError(f"utility takes 4 coefficients (utility.1,-1,0,0), got {len(coefficients)}")
    a, b, c, d = coefficients
    return [tm.Utility(a=a, b=b, c=c, d=d)]


def _set_f(params: Any, text: Optional[str]) -> list:
    beta = params[0] if params else 1.0
    return [ir_measures.SetF(beta=beta) if beta != 1.0 else ir_measures.SetF]


def _ipr_avg(params: Any, text: Optional[str]) -> list:
    return [tm.IPrecAvg if text in (None, tm.ELEVEN_POINTS) else tm.IPrecAvg(points=text)]


def _line(name: str) -> Builder:
    return lambda params, text: [name]


_WHY_PREFS = "needs preference judgments (-R prefs or qrels_prefs), which ir-cwla does not read"
_WHY_JG = "needs judgment groups (-R qrels_jg), which ir-cwla does not read"


def _prefs(name: str) -> TrecMeasure:
    return TrecMeasure(name, "plain", why=_WHY_PREFS)


TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "plain", build=_line("runid"), per_query=False),
    TrecMeasure("num_q", "plain", build=_one(ir_measures.NumQ), long=True, per_query=False),
    TrecMeasure("num_ret", "plain", build=_one(ir_measures.NumRet), long=True),
    TrecMeasure("num_rel", "plain", build=_one(ir_measures.NumRel), long=True),
    TrecMeasure("num_rel_ret", "plain", build=_one(ir_measures.NumRet(rel=1)), long=True),
    TrecMeasure("map", "plain", build=_one(ir_measures.AP)),
    TrecMeasure("gm_map", "plain", build=_one(tm.GMAP), per_query=False),
    TrecMeasure("Rprec", "plain", build=_one(ir_measures.Rprec)),
    TrecMeasure("bpref", "plain", build=_one(ir_measures.Bpref)),
    TrecMeasure("recip_rank", "plain", build=_one(ir_measures.RR)),
    TrecMeasure("iprec_at_recall", "cut_double", "0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1", _cuts(lambda x: ir_measures.IPrec @ x)),
    TrecMeasure("P", "cut_long", "5,10,15,20,30,100,200,500,1000", _cuts(lambda k: ir_measures.P @ k)),
    TrecMeasure("relstring", "p_double", "10", _line("relstring"), summary=False),
    TrecMeasure("recall", "cut_long", "5,10,15,20,30,100,200,500,1000", _cuts(lambda k: ir_measures.R @ k)),
    TrecMeasure("infAP", "plain", build=_one(ir_measures.infAP)),
    TrecMeasure("gm_bpref", "plain", build=_one(tm.GMBpref), per_query=False),
    TrecMeasure("Rprec_mult", "cut_double", "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0", _cuts(lambda x: tm.RprecMult @ x)),
    TrecMeasure("utility", "p_double", "1,-1,0,0", _utility),
    TrecMeasure("11pt_avg", "p_double", tm.ELEVEN_POINTS, _ipr_avg),
    TrecMeasure("binG", "plain", build=_one(tm.BinG)),
    TrecMeasure("G", "p_pair", build=_pairs_gains(tm.G)),
    TrecMeasure("dcg", "p_pair", why="not in all_trec; ir-cwla does not compute it (see nDCG@k, DCG_ERG@k)"),
    TrecMeasure("ideal_dcg", "p_pair", why="not in all_trec; ir-cwla does not compute it"),
    TrecMeasure("ndcg", "p_pair", build=_pairs_gains(ir_measures.nDCG)),
    TrecMeasure("ndcg_rel", "p_pair", build=_pairs_gains(tm.nDCGRel)),
    TrecMeasure("Rndcg", "p_pair", build=_pairs_gains(tm.RnDCG)),
    TrecMeasure("ndcg_cut", "cut_long", "5,10,15,20,30,100,200,500,1000", _cuts(lambda k: ir_measures.nDCG @ k)),
    TrecMeasure("map_cut", "cut_long", "5,10,15,20,30,100,200,500,1000", _cuts(lambda k: ir_measures.AP @ k)),
    TrecMeasure("relative_P", "cut_long", "5,10,15,20,30,100,200,500,1000", _cuts(lambda k: tm.RelP @ k)),
    TrecMeasure("success", "cut_long", "1,5,10", _cuts(lambda k: ir_measures.Success @ k)),
    TrecMeasure("set_P", "plain", build=_one(ir_measures.SetP)),
    TrecMeasure("set_relative_P", "plain", build=_one(ir_measures.SetP(relative=True))),
    TrecMeasure("set_recall", "plain", build=_one(ir_measures.SetR)),
    TrecMeasure("set_map", "plain", build=_one(ir_measures.SetAP)),
    TrecMeasure("set_F", "p_double", "1.0", _set_f),
    TrecMeasure("num_nonrel_judged_ret", "plain", build=_one(tm.NumNonRelJudgedRet), long=True),
    *(_prefs(n) for n in ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
                          "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
                          "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
                          "prefs_avgjg_imp")),
    TrecMeasure("map_avgjg", "plain", why=_WHY_JG),
    TrecMeasure("P_avgjg", "cut_long", "5,10,15,20,30,100,200,500,1000", why=_WHY_JG),
    TrecMeasure("Rprec_mult_avgjg", "cut_double", "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0", why=_WHY_JG),
    TrecMeasure("yaap", "plain", why="not in all_trec; ir-cwla does not compute it"),
    TrecMeasure("rbp", "p_pair", build=_rbp(ir_measures.RBP)),
    TrecMeasure("rbp_resid", "p_pair", build=_rbp(tm.RBPResidual)),
    TrecMeasure("unj", "cut_long", "5,10,20", _cuts(lambda k: tm.Unjudged @ k)),
)
"""trec_eval 10.0's measures, in the order it prints them (measures.c)."""

BY_NAME = {m.name: m for m in TREC_MEASURES}
ORDER = {m.name: i for i, m in enumerate(TREC_MEASURES)}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                  "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
"""trec_eval's nicknames (measures.c): the measures each marks."""

LINES = ("runid", "relstring")
"""The names that are lines of trec_eval's output rather than measures."""


# ------------------------------------------------------------------------- C's number reading

_LONG = re.compile(r"\s*[+-]?[0-9]+")
_DOUBLE = re.compile(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def atol(text: str) -> int:
    """C's ``atol``: the integer at the start of ``text`` (0 if none): ``'23.4'`` -> 23."""
    m = _LONG.match(text)
    return int(m.group()) if m else 0


def atof(text: str) -> float:
    """C's ``atof``: the number at the start of ``text`` (0.0 if none): ``'.10'`` -> 0.1."""
    m = _DOUBLE.match(text)
    return float(m.group()) if m else 0.0


def _valid_int(text: str) -> bool:
    """gain_init.c's ``valid_int``: an optional sign and digits only."""
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


def parse_params(trec: TrecMeasure, text: str) -> Any:
    """A parameter list as trec_eval reads it for this kind of measure (meas_init.c).

    ``cut_long``: sorted longs (each > 0, distinct); ``cut_double``: sorted doubles (distinct);
    ``p_double``: doubles in order; ``p_pair``: ``(name, value)`` pairs; ``plain``: None (trec_eval
    ignores them).
    """
    parts = text.split(",")
    where = f"{trec.name}.{text}"
    if trec.kind == "cut_long":
        longs = sorted(atol(p) for p in parts)
        if longs[0] <= 0:
            raise MeasureSyntaxError(f"{where}: a cut-off must be > 0 (trec_eval: Negative cutoff detected)")
        if len(set(longs)) != len(longs):
            raise MeasureSyntaxError(f"{where}: a cut-off is given twice (trec_eval: duplicate cutoffs detected)")
        return longs
    if trec.kind == "cut_double":
        doubles = sorted(atof(p) for p in parts)
        if len(set(doubles)) != len(doubles):
            raise MeasureSyntaxError(f"{where}: a cut-off is given twice (trec_eval: duplicate cutoffs detected)")
        return doubles
    if trec.kind == "p_double":
        return [atof(p) for p in parts]
    if trec.kind == "p_pair":
        if not _well_formed_pairs(text):
            raise MeasureSyntaxError(f"{where}: write NAME=VALUE pairs separated by commas (trec_eval: malformed "
                                     "pair parameters)")
        pairs = []
        for part in parts:
            name, _, value = part.partition("=")
            pairs.append((name, atof(value)))
        return pairs
    return None


def _well_formed_pairs(text: str) -> bool:
    """get_param_pairs' check: no ``,,`` or ``==``, and the text ends in a pair (its last separator is ``=``)."""
    last = ","
    for ch in text:
        if ch == ",":
            if last == ",":
                return False
            last = ","
        elif ch == "=":
            if last == "=":
                return False
            last = "="
    return last == "="


# ------------------------------------------------------------------------- names to measures

def _split_name(text: str) -> Optional[tuple[TrecMeasure, Optional[str]]]:
    """``(measure, parameter text or None)`` of a trec_eval name, or None if ``text`` names none.

    ``NAME`` and ``NAME.PARAMS`` as trec_eval reads them (``-m``); also ``NAME_PARAMS``, the name
    trec_eval prints, for the measures that print their parameters (the longest name that fits).
    """
    name, dot, params = text.partition(".")
    if name in BY_NAME:
        return BY_NAME[name], (params if dot else None)
    if dot and name in NICKNAMES:
        return None
    for trec in sorted(TREC_MEASURES, key=lambda m: len(m.name), reverse=True):
        if trec.kind != "plain" and text.startswith(trec.name + "_") and _PRINTED_PARAMS.fullmatch(text[len(trec.name) + 1:]):
            return trec, text[len(trec.name) + 1:]
    return None


#: The parameters of a name trec_eval prints (``P_5``, ``iprec_at_recall_0.10``, ``ndcg_1=3,2=9``):
#: numbers and ``name=number`` pairs, separated by commas (not ``P_ERG[bin>=2]@10``, a short name).
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_PRINTED_PARAMS = re.compile(rf"(?:{_NUMBER}|[A-Za-z0-9_+-]+={_NUMBER})(?:,(?:{_NUMBER}|[A-Za-z0-9_+-]+={_NUMBER}))*")


def names_of(text: str) -> list[str]:
    """The measures of trec_eval's table a name (or nickname) marks: ``all_trec`` -> its members."""
    text = text.strip()
    head = text.partition(".")[0]
    if head in NICKNAMES:
        return list(NICKNAMES[head])
    found = _split_name(text)
    return [found[0].name] if found else []


def is_trec_name(text: str) -> bool:
    """True if ``text`` is a trec_eval measure name or nickname (in any form :func:`parse_name` reads)."""
    text = text.strip()
    return text.partition(".")[0] in NICKNAMES or _split_name(text) is not None


def _build(trec: TrecMeasure, params: Optional[str], level: int) -> list[Selected]:
    """The values trec_eval prints for one measure of its table (with ``params``, or its defaults)."""
    if not trec.supported:
        raise MeasureSyntaxError(f"trec_eval's {trec.name}: {trec.why}")
    given = params if params not in (None, "") else None
    if params == "":
        raise MeasureSyntaxError(f"{trec.name}.: an empty parameter list (trec_eval: improper measure in parameter)")
    text = given if given is not None else trec.default
    parsed: Any = parse_params(trec, text) if text is not None else None
    assert trec.build is not None
    built = trec.build(parsed, text)
    base = ORDER[trec.name]
    out = []
    for j, m in enumerate(built):
        sub: float = 0
        if trec.kind == "cut_long":
            name, sub = f"{trec.name}_{parsed[j]}", parsed[j]
        elif trec.kind == "cut_double":
            name, sub = f"{trec.name}_{parsed[j]:3.2f}", parsed[j]
        else:
            name = trec.name if given is None else f"{trec.name}_{given}"
        if trec.name == "num_rel_ret":
            m = ir_measures.NumRet(rel=level)
        line = m if isinstance(m, str) else None
        length = int(parsed[0]) if trec.name == "relstring" else 10
        out.append(Selected(name, None if line else m, (base, sub), trec.long, trec.per_query, trec.summary, line,
                            length))
    return out


def _check_nickname(nickname: str) -> None:
    """A nickname naming a measure ir-cwla does not compute (all_prefs, qrels_jg) is an error saying why."""
    missing = [n for n in NICKNAMES[nickname] if not BY_NAME[n].supported]
    if missing:
        raise MeasureSyntaxError(f"trec_eval's {nickname}: {', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''} "
                                 f"{BY_NAME[missing[0]].why}")


def parse_name(text: str, level: int = 1) -> list[Selected]:
    """What one trec_eval name (or nickname) selects, with its default or given parameters.

    ``level``: trec_eval's ``-l`` (it decides the measure ``num_rel_ret`` is, NumRet(rel=level));
    the other measures carry no level here (see :func:`ir_cwla.app.evaluate.with_relevance_level`).
    A name trec_eval knows but ir-cwla does not compute (``prefs_simp``, ``dcg``) is a
    :class:`MeasureSyntaxError` saying why.
    """
    text = text.strip()
    head, dot, params = text.partition(".")
    if head in NICKNAMES:
        _check_nickname(head)
        return [s for name in NICKNAMES[head] for s in _build(BY_NAME[name], None, level)]
    found = _split_name(text)
    if found is None:
        raise MeasureSyntaxError(f"{text!r} is not a trec_eval measure (trec_eval: illegal measure)")
    return _build(found[0], found[1], level)


@dataclass(frozen=True)
class Selection:
    """What a command line's trec_eval names select (:func:`select`): the values in trec_eval's order."""

    values: tuple[Selected, ...]

    @property
    def measures(self) -> list[Any]:
        """The measures (not the lines), in trec_eval's order."""
        return [s.measure for s in self.values if s.measure is not None]

    @property
    def lines(self) -> list[Selected]:
        """The lines (``runid``, ``relstring``)."""
        return [s for s in self.values if s.line is not None]


def select(texts: Sequence[str], level: int = 1) -> Selection:
    """The measures a trec_eval command line's ``-m`` arguments select, by trec_eval's rules.

    Each name (nicknames expanded) is computed once; its parameters are those of the first
    ``-m NAME.PARAMS`` that gives some (trec_eval's ``meas_arg``: a later one is ignored, with an
    :class:`~ir_cwla.errors.InputWarning`). The names trec_eval prints (``P_5``) each select the
    one value they name.
    """
    marked: list[str] = []
    params: dict[str, str] = {}
    exact: list[Selected] = []
    for text in texts:
        text = text.strip()
        head, dot, rest = text.partition(".")
        if head in NICKNAMES:
            _check_nickname(head)
            marked.extend(NICKNAMES[head])
            continue
        found = _split_name(text)
        if found is None:
            raise MeasureSyntaxError(f"{text!r} is not a trec_eval measure (trec_eval: illegal measure)")
        trec, given = found
        if head not in BY_NAME:                        # NAME_PARAMS: the one value that name prints
            exact.extend(_build(trec, given, level))
            continue
        if not trec.supported:
            _build(trec, None, level)
        if dot:
            if trec.name in params and params[trec.name] != rest:
                warnings.warn(f"-m {text}: ignored, as trec_eval ignores it (the parameters of {trec.name} are those "
                              f"of the first -m that gives some: {trec.name}.{params[trec.name]})", InputWarning,
                              stacklevel=2)
            params.setdefault(trec.name, rest)
        marked.append(trec.name)
    values: list[Selected] = []
    for name in dict.fromkeys(marked):
        values.extend(_build(BY_NAME[name], params.get(name), level))
    seen = {s.name for s in values}
    values.extend(s for s in exact if s.name not in seen)
    values.sort(key=lambda s: s.order)
    return Selection(tuple(values))


# ------------------------------------------------------------------------- measures to names

def _fmt(value: float) -> str:
    v = float(value)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def trec_name(measure: Any, level: int = 1) -> Optional[Selected]:
    """The name, place and number format trec_eval prints ``measure`` with under ``-l level``; None if it has none.

    A measure has a trec_eval name when trec_eval computes it: its relevance level (``rel``)
    is ``level`` and it uses no parameter trec_eval lacks (``AP(judged_only=True)`` is trec_eval's
    map only under its ``-J``: the caller decides). Parameter lists are written back as C prints
    them (``%ld``, ``%3.2f``) or, for the kinds that print their text, in the shortest form.
    """
    name = getattr(measure, "NAME", None)
    if name is None:
        return None
    params = {k: v for k, v in measure.params.items() if k != "judged_only"}
    rel = params.pop("rel", None)

    def at(trec_key: str, j: Optional[float] = None, text: Optional[str] = None) -> Selected:
        trec = BY_NAME[trec_key]
        if j is None:
            shown = trec.name if text is None else f"{trec.name}_{text}"
            sub: float = 0
        elif trec.kind == "cut_long":
            shown, sub = f"{trec.name}_{int(j)}", int(j)
        else:
            shown, sub = f"{trec.name}_{float(j):3.2f}", float(j)
        return Selected(shown, measure, (ORDER[trec.name], sub), trec.long, trec.per_query, trec.summary)

    level_ok = (rel is None and level == 1) or rel == level
    cutoff = params.pop("cutoff", None)
    if name == "NumQ":
        return at("num_q")
    if name == "NumRet":
        if rel is None:
            return at("num_ret")
        return at("num_rel_ret") if rel == level else None
    if not level_ok and name not in ("G", "nDCGRel", "nDCG", "RBP", "RBPResidual", "Unjudged"):
        return None
    simple = {"NumRel": "num_rel", "GMAP": "gm_map", "Rprec": "Rprec", "Bpref": "bpref", "RR": "recip_rank",
              "infAP": "infAP", "GMBpref": "gm_bpref", "BinG": "binG", "SetR": "set_recall", "SetAP": "set_map",
              "NumNonRelJudgedRet": "num_nonrel_judged_ret"}
    cuts = {"P": "P", "R": "recall", "RelP": "relative_P", "Success": "success", "Unjudged": "unj"}
    if name in simple and not params and cutoff is None:
        return at(simple[name])
    if name in cuts and cutoff is not None and not params:
        return at(cuts[name], cutoff)
    if name == "AP" and not params:
        return at("map") if cutoff is None else at("map_cut", cutoff)
    if name == "nDCG" and params.get("dcg", "log2") == "log2":
        gains = params.get("gains")
        if cutoff is not None:
            return None if gains else at("ndcg_cut", cutoff)
        return at("ndcg", text=_gains_text(gains) if gains else None)
    if name in ("G", "nDCGRel", "RnDCG"):
        gains = params.get("gains")
        key = {"G": "G", "nDCGRel": "ndcg_rel", "RnDCG": "Rndcg"}[name]
        return at(key, text=_gains_text(gains) if gains else None)
    if name == "IPrec":
        return at("iprec_at_recall", params["recall"])
    if name == "RprecMult":
        return at("Rprec_mult", params["mult"])
    if name == "SetP":
        return at("set_relative_P" if params.get("relative") else "set_P")
    if name == "SetF":
        beta = params.get("beta", 1.0)
        return at("set_F", text=None if beta == 1.0 else _fmt(beta))
    if name == "Utility":
        coefficients = [measure[k] for k in "abcd"]
        if measure["docs"]:
            return None
        return at("utility", text=None if coefficients == [1.0, -1.0, 0.0, 0.0] else ",".join(map(_fmt, coefficients)))
    if name == "IPrecAvg":
        points = measure["points"]
        return at("11pt_avg", text=None if points == tm.ELEVEN_POINTS else points)
    if name in ("RBP", "RBPResidual") and cutoff is None and params.get("rel", NOT_PROVIDED) is NOT_PROVIDED:
        p = measure["p"]
        key = "rbp" if name == "RBP" else "rbp_resid"
        return at(key, text=None if p == 0.9 else f"p={_fmt(p)}")
    return None


def _gains_text(gains: Any) -> str:
    return ",".join(f"{k}={_fmt(v)}" for k, v in sorted(gains.items()))
