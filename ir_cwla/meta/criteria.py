"""Meta-evaluation criteria, each declared once and run, reported and swept by one loop.

A :class:`Criterion` says what a criterion answers, what it needs (a per-query frame, or the
runs and qrels themselves, or alternative qrels), its options (defaults, help, checks), how
to compute it, the table that sums it up and the section of a report (text, figures and
tables, as layer-neutral :class:`Text`, :class:`Figure` and :class:`Table` blocks that the
HTML report renders). :data:`CRITERIA` lists them in report order; ``ir-cwla meta`` builds its
``--criteria`` choices and options from it, and the HTML report, the demo and
:func:`ir_cwla.meta.sweep` iterate it, so adding a criterion is one module (its analysis and
its declaration, :func:`register_criterion`) plus its test. A plugin may register one too
(:mod:`ir_cwla.plugins`)::

    run = criteria.run(["consistency", "discriminative_power"], Inputs(per_query), {"trials": 500})
    run.results["consistency"].table(); run.summaries["consistency"]; run.seconds
"""
from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import pandas as pd

from ir_cwla.analysis import naming
from ir_cwla.analysis.frame import Groups
from ir_cwla.errors import ParameterError, RegistrationError
from ir_cwla.measures import _registry as registry

#: What a criterion may need: the per-query frame (always there), the runs and qrels they were
#: scored with (the robustness criteria re-score them), alternative qrels (assessor variation),
#: users' ratings, the result pages they rated (``qid, rank, gain``: the user model is fitted by
#: scoring them again) and users' preferences between pages (the user criteria); per-query scores
#: of the same systems under other assessors (judges whose runs or qrels are not at hand: disjoint
#: agreement, judge bias) and the models each run's pipeline used (judge bias).
NEEDS = ("per_query", "runs", "qrels", "alternatives", "satisfaction", "gains", "preferences",
         "alternative_scores", "run_models")


@dataclass(frozen=True)
class Option:
    """One option of a criterion.

    Parameters
    ----------
    name : str
        The keyword of the criterion's function (``trials``).
    default : Any
        Its default.
    help : str
        What it sets, for ``--help`` and the documentation.
    cli : str, optional
        The command line's name for it (``--test-trials`` for ``test_trials``; default
        ``name``). Criteria that declare the same ``cli`` name share one command-line option,
        so they must declare the same default and reader.
    parse : callable, optional
        Reads the command line's text (default: the type of ``default``).
    check : callable, optional
        ``check(value, what)`` validates (and may normalise) a value before any work, raising
        :class:`~ir_cwla.errors.ParameterError` that names it ``what`` (the flag on the command
        line, the keyword otherwise); returns the value to use.
    metavar : str, optional
        The value's placeholder in ``--help``.
    """

    name: str
    default: Any
    help: str
    cli: Optional[str] = None
    parse: Optional[Callable[[str], Any]] = None
    check: Optional[Callable[[Any, str], Any]] = None
    metavar: Optional[str] = None

    @property
    def key(self) -> str:
        """The command line's name (``cli`` or ``name``): ``--`` + key with ``-`` for ``_``."""
        return self.cli or self.name

    @property
    def flag(self) -> str:
        """The option's command-line flag (``--key-name``)."""
        return "--" + self.key.replace("_", "-")

    def reader(self) -> Callable[[str], Any]:
        """The function that reads the option's command-line text (by default, the type of its default)."""
        return self.parse if self.parse is not None else type(self.default)


@dataclass(frozen=True)
class Text:
    """A paragraph of a report section."""

    text: str


@dataclass(frozen=True)
class Figure:
    """A figure of a report section: ``make()`` returns a matplotlib figure (or axes)."""

    make: Callable[[], Any]
    caption: str
    filename: str


@dataclass(frozen=True)
class Table:
    """A table of a report section (written to ``filename`` as CSV too)."""

    frame: pd.DataFrame
    caption: str
    filename: str
    precision: int = 3
    index: bool = False


Block = Union[Text, Figure, Table]


@dataclass(frozen=True)
class Inputs:
    """What the criteria are computed from, and the settings they all share.

    ``per_query``: the long frame ``name, qid, measure, value``; ``measures``: the measures
    it holds (parsed); ``runs``/``qrels``: what it was scored from (None for a per-query
    file); ``alternatives``: ``{name: qrels}`` judged by other assessors; ``groups``: the
    families compared within (e.g. :func:`ir_cwla.meta.browsing_model`); ``seed``, ``alpha``,
    ``executor``, ``progress`` as in every analysis of :mod:`ir_cwla.meta`; ``satisfaction``: the
    users' ratings (:func:`ir_cwla.meta.ratings.read_ratings`), ``gains``: the result pages they
    rated (:func:`ir_cwla.score_gains`), ``preferences``: their preferences between pages
    (:func:`ir_cwla.meta.preference_agreement`);
    ``alternative_scores``: ``{name: per-query frame}`` of the same systems under other assessors
    (e.g. ``trec_eval -q`` files read by :func:`ir_cwla.meta.read_score_files`); ``run_models``:
    ``{run: [models its pipeline used]}`` (:func:`ir_cwla.meta.read_run_models`).
    """

    per_query: pd.DataFrame
    measures: Sequence[Any] = ()
    runs: Optional[Mapping[str, Any]] = None
    qrels: Any = None
    alternatives: Optional[Mapping[str, Any]] = None
    groups: Groups = None
    seed: Any = 0
    alpha: float = 0.05
    executor: Any = None
    progress: bool = False
    satisfaction: Any = None
    gains: Any = None
    preferences: Any = None
    alternative_scores: Optional[Mapping[str, pd.DataFrame]] = None
    run_models: Optional[Mapping[str, Sequence[str]]] = None

    def has(self, need: str) -> bool:
        """True if the inputs hold ``need``."""
        return getattr(self, need) is not None

    def available(self) -> set[str]:
        """The inputs there are (of :data:`NEEDS`)."""
        return {n for n in NEEDS if self.has(n)}


@dataclass(frozen=True)
class Criterion:
    """A meta-evaluation criterion, declared once (see the module docstring).

    Parameters
    ----------
    name : str
        Its name (an identifier): ``--criteria`` choices, result keys, file names.
    title : str
        Its heading in reports and tables (``"discriminative power"``).
    question : str
        What it answers, in one sentence (reports and documentation).
    compute : callable
        ``compute(inputs, **options) -> result`` (the result object, e.g. :class:`Consistency`).
    summary : callable
        ``summary(result, inputs, **options) -> DataFrame``: the table that sums it up (printed
        by ``ir-cwla meta``, first in its report section). One row per measure if ``per_measure``.
    section : callable
        ``section(result, summary) -> list of Text, Figure, Table``: its report section.
    needs : tuple of str
        Inputs it reads beyond the per-query frame (``('runs', 'qrels')``, ...; see :data:`NEEDS`).
    options : tuple of Option
        Its options (the keywords of ``compute`` beyond the shared settings of :class:`Inputs`).
    precision : int
        Decimals of the summary table in the terminal.
    per_measure : bool
        The summary has one row per measure (a ``measure`` column): :meth:`Sweep.table` joins it.
    order : int
        Its place in reports (the built-in ones are 10, 20, ...; a criterion of a plugin comes
        after them by default), then registration order.
    best : (str, bool), optional
        The summary's column that ranks the measures and whether higher is better
        (``('mean_tau', True)``), for the report's summary of the best measure of each family
        (:func:`best_measures`); None for a criterion that ranks nothing (similarity).
    needs_any : tuple of str
        Inputs of which it needs at least one (``('preferences', 'satisfaction')``: preference
        pairs, or ratings to derive them from).
    applies : callable, optional
        ``applies(inputs) -> bool``: whether the inputs, which hold what it needs, suit it (e.g.
        disjoint agreement takes alternatives on other topics than the reference's). Consulted
        when the criteria are chosen for the inputs (:func:`resolve` without names); default: always.
    """

    name: str
    title: str
    question: str
    compute: Callable[..., Any]
    summary: Callable[..., pd.DataFrame]
    section: Callable[[Any, pd.DataFrame], list]
    needs: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    precision: int = 3
    per_measure: bool = True
    order: int = 1000
    best: Optional[tuple[str, bool]] = None
    needs_any: tuple[str, ...] = ()
    applies: Optional[Callable[[Any], bool]] = None

    def allowed(self, available: Collection[str]) -> bool:
        """True if the inputs ``available`` (of :data:`NEEDS`) hold everything the criterion needs."""
        return not self.missing(available)

    def missing(self, available: Collection[str]) -> list[str]:
        """What the inputs ``available`` lack: needs, and ``'A or B'`` for ``needs_any``.

        A criterion that declares no needs needs the per-query frame (which every input but
        qrels compared on their labels alone gives).
        """
        out = [n for n in self.needs or ("per_query",) if n not in available]
        if self.needs_any and not any(n in available for n in self.needs_any):
            out.append(" or ".join(self.needs_any))
        return out

    def defaults(self) -> dict[str, Any]:
        """The criterion's options with their default values."""
        return {o.name: o.default for o in self.options}


#: The registered criteria, in report order.
CRITERIA: dict[str, Criterion] = {}


def register_criterion(criterion: Criterion, replace: bool = False) -> Criterion:
    """Registers a criterion.

    ``ir-cwla meta``, the HTML report, the demo and :func:`ir_cwla.meta.sweep` know it from
    then on. An option shared with another criterion (the same command-line name) must have
    the same default.
    """
    unknown = [n for n in criterion.needs + criterion.needs_any if n not in NEEDS]
    if unknown:
        raise RegistrationError(f"criterion {criterion.name!r}: unknown needs {unknown}; choose from {NEEDS}")
    for option in criterion.options:
        for other in CRITERIA.values():
            if other.name == criterion.name:
                continue
            for o in other.options:
                if o.key == option.key and o.default != option.default:
                    raise RegistrationError(f"criterion {criterion.name!r}: option {option.flag} (default "
                                            f"{option.default!r}) is also {other.name!r}'s, with default {o.default!r}")
    registry.add(CRITERIA, "criterion", criterion.name, criterion, replace)
    ordered = sorted(CRITERIA.values(), key=lambda c: c.order)      # stable: registration order within
    CRITERIA.clear()
    CRITERIA.update((c.name, c) for c in ordered)
    return criterion


def get_criterion(name: str) -> Criterion:
    """The criterion registered as ``name``, else a :class:`ParameterError` naming the valid ones."""
    try:
        return CRITERIA[name]
    except KeyError:
        raise ParameterError(f"unknown criterion {name!r}; choose from {', '.join(CRITERIA)}") from None


def command_line_options() -> dict[str, Option]:
    """Every criterion's options by command-line name (shared ones once), in registration order."""
    out: dict[str, Option] = {}
    for criterion in CRITERIA.values():
        for option in criterion.options:
            out.setdefault(option.key, option)
    return out


def resolve(names: Optional[Sequence[str]], inputs: Union[Inputs, Collection[str]]) -> list[str]:
    """The criteria to run, in report order.

    ``names`` (None: every one the inputs allow), each checked to exist and to have what it
    needs (``inputs``: the :class:`Inputs`, or the names of the inputs there are).
    """
    available = inputs.available() if isinstance(inputs, Inputs) else set(inputs)
    if names is None:
        return [n for n, c in CRITERIA.items() if c.allowed(available)
                and (c.applies is None or not isinstance(inputs, Inputs) or c.applies(inputs))]
    asked = list(dict.fromkeys(names))
    for name in asked:
        criterion = get_criterion(name)
        missing = criterion.missing(available)
        if missing:
            raise ParameterError(f"criterion {name!r} needs {' and '.join(missing)} ({criterion.question.lower()})")
    return [n for n in CRITERIA if n in asked]


def options_of(name: str, options: Mapping[str, Any], by: str = "cli") -> dict[str, Any]:
    """The checked keyword arguments of criterion ``name``.

    The keyword arguments of criterion ``name`` from ``options`` (keyed by command-line name,
    ``by='cli'``, or by keyword, ``by='name'``), defaults for the others, each checked.
    """
    out = {}
    for option in get_criterion(name).options:
        key = option.key if by == "cli" else option.name
        value = options.get(key, option.default)
        what = option.flag if by == "cli" else option.name
        out[option.name] = option.check(value, what) if option.check is not None else value
    return out


@dataclass
class Run:
    """The results of :func:`run`: per criterion, its result, its summary table and its wall time."""

    results: dict[str, Any] = field(default_factory=dict)
    summaries: dict[str, pd.DataFrame] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def describe(name: str, options: Mapping[str, Any]) -> str:
    """What criterion ``name`` is about to do, in one line.

    Its title and each option as its flag, its value and what it sets (``system ranking
    consistency: --trials 1000 (random splits of the topics into two halves), --test-trials 2000
    (permutations of the randomised Tukey HSD tests)``): a value beside the words of its help read
    as one phrase (``1 - the power of the test 0.2``); ``options`` by keyword, as
    :func:`options_of` returns them.
    """
    criterion = get_criterion(name)

    def shown(value: Any) -> str:
        if isinstance(value, (list, tuple)):
            return ",".join(shown(v) for v in value)
        return f"{value:g}" if isinstance(value, float) else str(value)

    def what(option: Option) -> str:           # an option's help may start with the criterion's title
        text = option.help
        return text[len(criterion.title) + 2:] if text.startswith(criterion.title + ": ") else text

    parts = [f"{o.flag} {shown(options.get(o.name, o.default))} ({what(o)})" for o in criterion.options]
    return criterion.title + (": " + ", ".join(parts) if parts else "")


def run(names: Optional[Sequence[str]], inputs: Inputs, options: Optional[Mapping[str, Any]] = None,
        by: str = "cli", log: Optional[Callable[[str], None]] = None) -> Run:
    """Computes the criteria ``names`` (None: all the inputs allow) and their summaries.

    ``options`` maps option names (command-line names with ``by='cli'``, keywords with
    ``by='name'``; a mapping ``{criterion: {keyword: value}}`` also works) to values; every option
    of every criterion is checked before any work starts. ``log``, if given, is called with one
    line (:func:`describe`) as each criterion starts (``ir-cwla meta`` prints it on stderr).
    """
    chosen = resolve(names, inputs)
    options = dict(options or {})
    per: dict[str, dict[str, Any]] = {}
    for name in chosen:
        nested = options.get(name)
        per[name] = options_of(name, nested, "name") if isinstance(nested, Mapping) else options_of(name, options, by)
    out = Run()
    for k, name in enumerate(chosen, start=1):
        criterion = CRITERIA[name]
        if log is not None:
            log(f"criterion {k}/{len(chosen)}, {describe(name, per[name])}")
        clock = time.perf_counter()
        result = criterion.compute(inputs, **per[name])
        out.results[name] = result
        out.summaries[name] = criterion.summary(result, inputs, **per[name])
        out.seconds[name] = time.perf_counter() - clock
    return out


def numbers(kind: type) -> Callable[[str], list]:
    """A reader of comma-separated numbers (``'0.1,0.5'``) for an option's command line."""
    def read(text: str) -> list:
        try:
            values = [kind(part) for part in str(text).split(",") if part.strip()]
        except ValueError:
            raise ParameterError(f"expected comma-separated numbers, got {text!r}") from None
        if not values:
            raise ParameterError("expected at least one number")
        return values
    read.__name__ = f"{kind.__name__}s"
    return read


def shared_settings(inputs: Inputs) -> dict[str, Any]:
    """The settings of :class:`Inputs` every analysis takes (``groups``, ``seed``, ``alpha``, ...)."""
    return {"groups": inputs.groups, "seed": inputs.seed, "alpha": inputs.alpha, "executor": inputs.executor,
            "progress": inputs.progress}


def best_measures(run: Run, tolerance: float = 1e-12) -> pd.DataFrame:
    """The best measure of each family under each criterion of ``run`` that ranks measures.

    One row per family (in the summaries' order), one column per criterion with a
    :attr:`Criterion.best` column (named by the criterion's name, ``pooling bias``), in report
    order: the measure with the best value of that
    column, every measure whose value equals it joined by ``' = '`` (the same value to within
    ``tolerance`` of its size: ERG and ETG under P rank alike), then the value. A C/W/L/A measure
    is named by its aggregation where its family is one browsing model (the row says which:
    ``ERG* = ETG (0.816)``, ``*``: the canonical measure of the model), any other by its label. The
    *nominal* best: whether it beats the others significantly is the criterion's own table's
    ``outperforms`` (the report says so). A family with one measure has nothing to compare and
    stays empty.
    """
    rows: dict[str, dict[str, str]] = {}
    columns = []
    for name in [c for c in CRITERIA if c in run.summaries and CRITERIA[c].best is not None]:
        criterion = CRITERIA[name]
        column, higher = criterion.best  # type: ignore[misc]
        table = run.summaries[name]
        if not len(table) or column not in table or "group" not in table:
            continue
        title = name.replace("_", " ")          # short: the table has a column per criterion
        columns.append(title)
        for group, part in table.groupby("group", sort=False):
            values = pd.to_numeric(part[column], errors="coerce")
            if len(part) < 2 or values.isna().all():
                rows.setdefault(str(group), {})
                continue
            best = values.max() if higher else values.min()
            tied = part["measure"][(values - best).abs() <= tolerance * max(1.0, abs(float(best)))]
            shown = f"{best:.3f}" if not float(best).is_integer() else f"{best:.0f}"
            names = [str(m) for m in tied]
            aggregations = [naming.aggregation(m) for m in part["measure"].astype(str)]
            models = {naming.browsing_model(m) for m in part["measure"].astype(str)}
            if None not in aggregations and len(models) == 1:          # one browsing model: its aggregations
                names = [str(naming.aggregation(m)) + ("*" if naming.is_canonical(m) else "") for m in names]
            rows.setdefault(str(group), {})[title] = " = ".join(names) + f" ({shown})"
    frame = pd.DataFrame([{"family": g, **{c: r.get(c, "") for c in columns}} for g, r in rows.items()])
    return frame
