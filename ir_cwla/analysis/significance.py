"""The statistical tests, each declared once: the registry that compare, meta and the CLI read.

A test is a :class:`StatisticalTest`: its name (with the aliases it also answers to), the short
label of the tables, the phrase of the captions, its kind, whether it is randomised, its docs
text (formula and source) and one callable. :data:`TESTS` holds them in the order they are
shown; :func:`ir_cwla.compare` (``test=``), :func:`ir_cwla.meta.discriminative_power`
(``test=``, and so the ``discriminative_power`` criterion and ``ir-cwla meta``), the ``--test``
choices of ``ir-cwla compare``, the documentation's table of tests (docs/_tools) and the HTML
report all look tests up here, so a test registered once with :func:`register_test` (in a script,
or by a plugin) reaches every one of them::

    from ir_cwla.analysis import significance

    def my_test(sample: significance.Sample) -> significance.Outcome:
        d = sample.diffs                                        # (M, T, P): system - baseline
        stat = d.mean(axis=1)
        return significance.Outcome(statistic=stat, p_value=...)

    significance.register_test(significance.StatisticalTest(
        "my-test", "my test", "my paired test (paired over topics)", "paired", False, my_test,
        doc="What it computes, and its source."))
    ir_cwla.compare(per_query, baseline="BM25", test="my-test")

**The callable.** ``fn(sample: Sample) -> Outcome``. The :class:`Sample` holds the scores of
every measure ``values (M, T, S)``, the pairs to test (column ``other[p]`` against column
``base[p]``; differences are ``other - base``), each measure's tie tolerance, and for a
randomised test the number of trials, the seed, the executor and the first trial. The
:class:`Outcome` gives the statistic of every pair ``(M, P)`` and either its exact p-value
(``p_value``) or, for a randomised test, how many of the sample's trials reached the observed
statistic (``counts``): the p-value ``(count + 1) / (trials + 1)`` and its Monte-Carlo error are
then computed here, by the one rule of :mod:`ir_cwla.analysis.pvalues`, and a randomised test
can be continued with more trials (:func:`extend`) to exactly the counts of a single run.

``test=`` also takes a plain function of two score arrays, as ``pt.Experiment(test=...)``
does: ``fn(baseline_scores, system_scores)`` returning ``(statistic, p_value)`` or an object
with ``.statistic`` and ``.pvalue`` (``scipy.stats.ttest_rel``, ``scipy.stats.wilcoxon``); it
is called once per pair and measure on the scores as given (:func:`as_test`).

**Kinds.** ``'paired'``: one test per pair, the p-values adjusted over the family by a
correction; ``'all-pairs'``: the test compares all pairs of a measure at once and adjusts over
them itself (the Tukey HSD tests); ``'omnibus'``: one p-value per measure for "do the systems
differ at all" (``Outcome`` of shape ``(M, 1)``), which the comparison of pairs does not take.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Optional, Union

import numpy as np

from ir_cwla.analysis import anova, oneway, paired, pairwise, pvalues, tukey
from ir_cwla.errors import ArgumentTypeError, DataError, ParameterError, RegistrationError
from ir_cwla.measures import _registry as registry

Kind = Literal["paired", "all-pairs", "omnibus"]
KINDS: tuple[str, ...] = ("paired", "all-pairs", "omnibus")
#: A test's name: what ``test=`` and ``--test`` take.
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class Sample:
    """What a test is given (see the module docstring).

    Attributes
    ----------
    values : ``(M, T, S)`` float64 scores (measures, topics, systems), as given: a test that is
        invariant to a constant added to every score centres them itself
        (:func:`ir_cwla.analysis.frame.centred`).
    base, other : ``(P,)`` column indices: pair ``p`` tests system ``other[p]`` against
        ``base[p]``.
    tolerance : ``(M,)`` each measure's tie tolerance (a difference within it is a tie).
    trials : random trials of a randomised test (its ``counts`` are over these).
    seed : the ``SeedSequence`` of every random stream.
    executor : where the chunks of trials run (:func:`ir_cwla.analysis.executors.get_executor`).
    start : the first trial (0, or the trials an earlier run of the same test already counted).
    progress : show progress bars.
    """

    values: np.ndarray
    base: np.ndarray
    other: np.ndarray
    tolerance: np.ndarray
    trials: int = 0
    seed: Any = None
    executor: Any = None
    start: int = 0
    progress: bool = False

    @property
    def diffs(self) -> np.ndarray:
        """``(M, T, P)`` paired differences ``values[:, :, other] - values[:, :, base]``."""
        return self.values[:, :, self.other] - self.values[:, :, self.base]

    @property
    def shape(self) -> tuple[int, int]:
        """``(M, P)``: the shape of an outcome's arrays."""
        return self.values.shape[0], len(self.base)


@dataclass(frozen=True)
class Outcome:
    """What a test returns: the statistic of every pair and its exact p-value, or its counts."""

    statistic: np.ndarray
    p_value: Optional[np.ndarray] = None
    counts: Optional[np.ndarray] = None


@dataclass(frozen=True)
class StatisticalTest:
    """One statistical test, declared once (module docstring).

    Parameters
    ----------
    name : the name ``test=`` and ``--test`` take (lower case, no spaces).
    label : the short label of the tables (``'t-test'``, ``'randomised Tukey HSD (two-way)'``).
    description : the phrase of the captions, naming the design (e.g. ``"Student's paired
        t-test (paired over topics)"``); ``{trials:,}`` is replaced by the trials of a randomised test.
    kind : ``'paired'``, ``'all-pairs'`` or ``'omnibus'``.
    randomised : whether it draws random trials (its outcome gives ``counts``).
    fn : ``fn(sample: Sample) -> Outcome``.
    doc : the documentation's text: what it computes, its formula, its source.
    aliases : other names it answers to.
    statistic : what its statistic column holds.
    permutes_t : whether its statistic is the paired t statistic that Westfall & Young's MaxT
        procedures permute (they are offered with such tests only).
    blocked : whether it compares the systems within each topic (topics as blocks: a paired or
        two-way test); the one-way test does not.
    order : where it is listed (ascending; registration order within).
    """

    name: str
    label: str
    description: str
    kind: Kind
    randomised: bool
    fn: Callable[[Sample], Outcome]
    doc: str = ""
    aliases: tuple[str, ...] = ()
    statistic: str = "statistic"
    permutes_t: bool = False
    blocked: bool = True
    order: int = 100

    def describe(self, trials: int = 0) -> str:
        """The caption's phrase, with the number of trials of a randomised test."""
        return self.description.format(trials=trials)


#: The registered tests by name, in the order they are listed.
TESTS: dict[str, StatisticalTest] = {}
#: Names that could mean two tests: refused with a message naming both.
AMBIGUOUS: dict[str, str] = {
    "tukey_hsd": "'tukey-hsd' (Tukey's HSD after a two-way ANOVA, topics as blocks) or 'tukey-hsd-one-way' "
                 "(scipy.stats.tukey_hsd and ranx's 'tukey': topics ignored)",
}


def _key(name: str) -> str:
    return name.strip().lower()


def aliases() -> dict[str, str]:
    """Every alias of a registered test and the test's name."""
    return {_key(alias): test.name for test in TESTS.values() for alias in test.aliases}


def register_test(test: StatisticalTest, replace: bool = False) -> StatisticalTest:
    """Registers ``test`` in :data:`TESTS` (``replace=True`` to replace a test of the same name).

    Raises :class:`~ir_cwla.errors.RegistrationError` for a name or alias already taken (by
    another test's name or alias), an unknown kind, or a callable that is not one.
    """
    if not isinstance(test, StatisticalTest):
        raise RegistrationError(f"register_test takes a StatisticalTest, got {type(test).__name__}")
    if test.kind not in KINDS:
        raise RegistrationError(f"test {test.name!r}: kind must be one of {', '.join(KINDS)}, got {test.kind!r}")
    if not callable(test.fn):
        raise RegistrationError(f"test {test.name!r}: fn must be callable, got {type(test.fn).__name__}")
    if not isinstance(test.name, str) or not NAME.match(test.name):
        raise RegistrationError(f"a test's name is lower-case letters, digits, '-' and '_' (as --test takes it), "
                                f"got {test.name!r}")
    if test.name in TESTS and not replace:
        raise RegistrationError(f"statistical test {test.name!r} is already registered (pass replace=True)")
    if registry.refused(TESTS, "statistical test", test.name, replace):     # a plugin never bends a built-in
        return TESTS[test.name]
    names = [_key(test.name)] + [_key(a) for a in test.aliases]
    if len(set(names)) != len(names):
        raise RegistrationError(f"test {test.name!r} lists a name twice among its aliases: {list(test.aliases)}")
    taken = {_key(t.name): t.name for t in TESTS.values() if t.name != test.name}
    taken.update({a: n for a, n in aliases().items() if n != test.name})
    clash = [n for n in names if n in taken or n in AMBIGUOUS]
    if clash:
        owner = taken.get(clash[0], "(ambiguous)")
        raise RegistrationError(f"test {test.name!r}: the name {clash[0]!r} is taken by the test {owner!r}")
    TESTS[test.name] = test
    ordered = sorted(TESTS.values(), key=lambda t: t.order)
    TESTS.clear()
    TESTS.update((t.name, t) for t in ordered)
    return test


def names(kinds: Sequence[str] = KINDS) -> list[str]:
    """The names of the registered tests of ``kinds``, in order."""
    return [name for name, test in TESTS.items() if test.kind in kinds]


def get_test(test: Union[str, StatisticalTest, Callable[..., Any]], kinds: Sequence[str] = KINDS,
             what: str = "test") -> StatisticalTest:
    """The :class:`StatisticalTest` that ``test`` names (name or alias, any case), is, or wraps (:func:`as_test`).

    A name of another kind than ``kinds`` is a :class:`~ir_cwla.errors.ParameterError` that
    says what the test is and which tests fit.
    """
    if isinstance(test, StatisticalTest):
        found = test
    elif isinstance(test, str):
        key = _key(test)
        if key in AMBIGUOUS:
            raise ParameterError(f"{what} {test!r} could mean {AMBIGUOUS[key]}: name one")
        key = aliases().get(key, key)
        if key not in TESTS:
            raise ParameterError(f"unknown {what} {test!r}: valid ones are {', '.join(names(kinds))}")
        found = TESTS[key]
    elif callable(test):
        found = as_test(test)
    else:
        raise ArgumentTypeError(f"{what} must be a test's name (one of {', '.join(names(kinds))}), a "
                                f"StatisticalTest, or a function fn(x, y) -> (statistic, p_value); got {test!r}")
    if found.kind not in kinds:
        raise ParameterError(f"{what} {found.name!r} is an {found.kind} test; this takes {' or '.join(kinds)} tests "
                             f"({', '.join(names(kinds))})")
    return found


# -- running a test ------------------------------------------------------------------------------

@dataclass(frozen=True)
class TestResult:
    """A test's statistic and p-value of every pair, with the trials behind them.

    ``counts`` and ``trials`` are those of a randomised test (``None`` and 0 for an exact one);
    :attr:`mc_sd` is the Monte-Carlo standard deviation of each p-value (0 for an exact test).
    """

    test: StatisticalTest
    statistic: np.ndarray
    p_value: np.ndarray
    counts: Optional[np.ndarray] = None
    trials: int = 0
    seconds: float = field(default=0.0, compare=False)

    @property
    def mc_sd(self) -> np.ndarray:
        """The Monte-Carlo standard deviation of every p-value (:func:`ir_cwla.analysis.pvalues.monte_carlo_sd`)."""
        return pvalues.monte_carlo_sd(self.p_value, self.trials)


def _checked(test: StatisticalTest, sample: Sample, out: Any) -> Outcome:
    shape = (sample.values.shape[0], 1) if test.kind == "omnibus" else sample.shape
    if not isinstance(out, Outcome):
        raise DataError(f"test {test.name!r} returned {type(out).__name__}, not an Outcome")
    arrays = {"statistic": out.statistic, "p_value": out.p_value, "counts": out.counts}
    for what, value in arrays.items():
        if value is not None and np.shape(value) != shape:
            raise DataError(f"test {test.name!r} returned {what} of shape {np.shape(value)}, expected {shape} "
                            "(measures, pairs)")
    if test.randomised:
        if out.counts is None:
            raise DataError(f"the randomised test {test.name!r} returned no counts (how many trials reached the "
                            "observed statistic)")
        counts = np.asarray(out.counts)
        if counts.dtype.kind not in "iu" or (counts < 0).any() or (counts > sample.trials).any():
            raise DataError(f"test {test.name!r} returned counts outside 0..{sample.trials}")
    else:
        if out.p_value is None:
            raise DataError(f"test {test.name!r} returned no p-values")
        p = np.asarray(out.p_value, dtype=np.float64)
        if not ((p >= 0) & (p <= 1)).all():
            raise DataError(f"test {test.name!r} returned p-values outside [0, 1] (e.g. {p[~((p >= 0) & (p <= 1))][0]})")
    return out


def run(test: StatisticalTest, sample: Sample) -> TestResult:
    """Runs ``test`` on ``sample``: the statistic and p-value of every pair (module docstring)."""
    import time

    begin = time.perf_counter()
    out = _checked(test, sample, test.fn(replace(sample, start=0)))
    seconds = time.perf_counter() - begin
    statistic = np.asarray(out.statistic, dtype=np.float64)
    if not test.randomised:
        return TestResult(test, statistic, np.asarray(out.p_value, dtype=np.float64), seconds=seconds)
    counts = np.asarray(out.counts, dtype=np.int64)
    return TestResult(test, statistic, pvalues.monte_carlo_p(counts, sample.trials), counts, sample.trials, seconds)


def extend(result: TestResult, sample: Sample, trials: int) -> TestResult:
    """``result`` of a randomised test continued to ``trials`` trials in all.

    The trials ``result.trials, ..., trials - 1`` of the test's streams are counted and added:
    the counts, hence the p-values, are exactly those of a single run of ``trials`` trials.
    """
    if not result.test.randomised or trials <= result.trials:
        return result
    more = replace(sample, trials=trials - result.trials, start=result.trials)
    out = _checked(result.test, more, result.test.fn(more))
    assert result.counts is not None
    counts = result.counts + np.asarray(out.counts, dtype=np.int64)
    return replace(result, p_value=pvalues.monte_carlo_p(counts, trials), counts=counts, trials=trials)


# -- a user's function as a test -----------------------------------------------------------------

def as_test(fn: Callable[..., Any]) -> StatisticalTest:
    """A per-pair function ``fn(baseline_scores, system_scores) -> (statistic, p_value)`` as a paired test.

    The function is called once per measure and pair with the two systems' scores over the
    topics (as given, in topic order), as ``pt.Experiment(test=fn)`` calls it; it may return a
    pair or an object with ``statistic`` and ``pvalue`` (scipy's results).
    """
    if not callable(fn):
        raise ArgumentTypeError(f"test must be callable, got {type(fn).__name__}")
    name = getattr(fn, "__name__", None) or type(fn).__name__
    module = getattr(fn, "__module__", "") or ""
    where = f"{module}.{name}" if module and module != "builtins" else name

    def per_pair(sample: Sample) -> Outcome:
        n_m, n_p = sample.shape
        stat, p = np.empty((n_m, n_p)), np.empty((n_m, n_p))
        for m in range(n_m):
            x = sample.values[m]
            for j in range(n_p):
                got = fn(x[:, sample.base[j]], x[:, sample.other[j]])
                if hasattr(got, "pvalue"):
                    stat[m, j], p[m, j] = float(getattr(got, "statistic", np.nan)), float(got.pvalue)
                else:
                    try:
                        stat[m, j], p[m, j] = (float(v) for v in got)
                    except (TypeError, ValueError) as ex:
                        raise DataError(f"test {where} must return (statistic, p_value) or an object with "
                                        f".statistic and .pvalue; got {got!r}") from ex
        return Outcome(stat, p_value=p)

    try:
        inspect.signature(fn).bind(np.zeros(2), np.zeros(2))
    except TypeError as ex:
        raise ArgumentTypeError(f"test {where} must take two arrays (baseline scores, system scores): {ex}") from ex
    except ValueError:                          # a builtin without a signature: try it as it is
        pass
    return StatisticalTest(name, name, f"the test {where} (paired over topics, per pair)", "paired", False,
                           per_pair, doc=(inspect.getdoc(fn) or "").split("\n\n")[0], statistic="statistic")


# -- the tests of ir_cwla ------------------------------------------------------------------------

def _each_measure(sample: Sample, kernel: Callable[[np.ndarray, float], tuple[np.ndarray, np.ndarray]]) -> Outcome:
    d = sample.diffs
    stat, p = np.empty(sample.shape), np.empty(sample.shape)
    for m in range(len(d)):
        stat[m], p[m] = kernel(d[m], float(sample.tolerance[m]))
    return Outcome(stat, p_value=p)


def _t(sample: Sample) -> Outcome:
    return _each_measure(sample, paired.t_test)


def _wilcoxon(sample: Sample) -> Outcome:
    return _each_measure(sample, paired.wilcoxon_test)


def _sign(sample: Sample) -> Outcome:
    return _each_measure(sample, paired.sign_test)


def _randomisation(sample: Sample) -> Outcome:
    counts = pairwise.stack_counts(sample.values, sample.trials, sample.seed, sample.executor,
                                   pairs=(sample.other, sample.base), start=sample.start,
                                   what="randomisation test", progress=sample.progress)
    return Outcome(sample.diffs.mean(axis=1), counts=counts)


def _bootstrap(sample: Sample) -> Outcome:
    d = sample.diffs
    tol = float(np.max(sample.tolerance)) if len(sample.tolerance) else 0.0
    statistic = np.stack([paired.t_statistics(d[m], float(sample.tolerance[m])) for m in range(len(d))])
    counts = paired.bootstrap_counts(d, sample.trials, sample.seed, sample.executor, tol=tol, start=sample.start,
                                     progress=sample.progress)
    return Outcome(statistic, counts=counts)


def _randomised_tukey(sample: Sample) -> Outcome:
    counts = tukey.stack_counts(sample.values, sample.trials, sample.seed, sample.executor,
                                pairs=(sample.base, sample.other), start=sample.start, what="randomised Tukey HSD",
                                progress=sample.progress)
    return Outcome(sample.diffs.mean(axis=1), counts=counts)


def _per_matrix(sample: Sample, kernel: Callable[..., tuple[np.ndarray, np.ndarray]]) -> Outcome:
    stat, p = np.empty(sample.shape), np.empty(sample.shape)
    for m in range(sample.values.shape[0]):
        stat[m], p[m] = kernel(sample.values[m], (sample.base, sample.other))
    return Outcome(stat, p_value=p)


def _tukey_hsd(sample: Sample) -> Outcome:
    return _per_matrix(sample, anova.tukey_hsd)


def _tukey_hsd_one_way(sample: Sample) -> Outcome:
    return _per_matrix(sample, oneway.tukey_hsd_one_way)


for _test in (
    StatisticalTest(
        "t", "t-test", "Student's paired t-test (paired over topics)", "paired", False, _t,
        doc="Student's paired t-test: t = mean(d) / (sd(d) / sqrt(T)) of the differences d over T topics, "
            "p = 2 P(t_{T-1} >= |t|) (the statistic and p-value of scipy.stats.ttest_rel and of pt.Experiment's "
            "default test).",
        aliases=("t-test", "student", "ttest", "paired-t"), statistic="t", permutes_t=True, order=10),
    StatisticalTest(
        "wilcoxon", "Wilcoxon", "Wilcoxon's signed-rank test (paired over topics)", "paired", False, _wilcoxon,
        doc="Wilcoxon's signed-rank test: ties (|d| within the tolerance) dropped, then scipy.stats.wilcoxon with "
            "its defaults (exact for at most 50 differences without ties, else the normal approximation), as "
            "PyTerrier calls it.",
        aliases=("wilcoxon-signed-rank", "signed-rank"), statistic="W", order=20),
    StatisticalTest(
        "sign", "sign test", "the sign test (paired over topics)", "paired", False, _sign,
        doc="The sign test: k wins of the n topics that are not ties, p = min(1, 2 P(Bin(n, 1/2) <= min(k, n - k))) "
            "(scipy.stats.binomtest).",
        statistic="wins", order=30),
    StatisticalTest(
        "randomisation", "randomisation", "Fisher's paired randomisation test ({trials:,} random sign flips)",
        "paired", True, _randomisation,
        doc="Fisher's paired randomisation test (Smucker et al. 2007): the sign of every topic's difference "
            "flipped at random B times (the same flips for every pair and measure), p = (#{|mean of flipped d| >= "
            "|mean d|} + 1) / (B + 1).",
        aliases=("fisher", "permutation", "randomization", "paired-randomisation"), statistic="mean difference",
        permutes_t=True, order=40),
    StatisticalTest(
        "bootstrap", "bootstrap", "Sakai's paired bootstrap test ({trials:,} resamples of the topics)",
        "paired", True, _bootstrap,
        doc="Sakai's paired bootstrap test (Sakai 2006): the differences shifted to mean 0 and resampled over "
            "topics B times, p = (#{|t*| >= |t|} + 1) / (B + 1) with t the paired t statistic.",
        aliases=("paired-bootstrap",), statistic="t", order=50),
    StatisticalTest(
        "randomised-tukey-hsd", "randomised Tukey HSD (two-way)",
        "the randomised Tukey HSD test (two-way: systems permuted within each topic; {trials:,} permutations)",
        "all-pairs", True, _randomised_tukey,
        doc="The randomised Tukey HSD test (Carterette 2012; Sakai 2018, Sec. 7; Sakai's Discpower): the systems' "
            "scores permuted within every topic B times (topics are blocks: a two-way design), every pair's mean "
            "difference compared with the range of the permuted column means, p = (#{range >= |difference|} + 1) "
            "/ (B + 1); controls the family-wise error over all pairs of a measure.",
        aliases=("tukey", "randomised-tukey", "randomized-tukey-hsd", "randomized-tukey"),
        statistic="mean difference", order=60),
    StatisticalTest(
        "tukey-hsd", "Tukey HSD (two-way ANOVA)",
        "Tukey's HSD test after a two-way ANOVA without replication (topics as blocks)", "all-pairs", False,
        _tukey_hsd,
        doc="Tukey's HSD test after a two-way ANOVA without replication (Sakai 2018, Sec. 4.4): q = |mean_a - "
            "mean_b| / sqrt(V_E / T) with V_E the residual variance of systems x topics, p = P(Q(S, (S-1)(T-1)) >= "
            "q) (scipy.stats.studentized_range). Two-way: the topic variance is taken out of V_E.",
        aliases=("tukey-hsd-two-way", "two-way-tukey-hsd"), statistic="q", order=70),
    StatisticalTest(
        "tukey-hsd-one-way", "Tukey HSD (one-way)",
        "Tukey's HSD test after a one-way ANOVA (topics not used as blocks; ranx's 'tukey')", "all-pairs", False,
        _tukey_hsd_one_way,
        doc="Tukey's HSD test after a one-way ANOVA (Tukey 1953): every system's scores an independent sample, "
            "q = |mean_a - mean_b| / sqrt(MS_W / T) with MS_W the within-system mean square, p = P(Q(S, S(T-1)) >= "
            "q): the p-values of scipy.stats.tukey_hsd and of ranx.compare(stat_test='tukey'). The topics are "
            "ignored, so it is far less powerful on paired IR data than the two-way tests.",
        aliases=("one-way-tukey-hsd", "ranx-tukey"), statistic="q", blocked=False, order=80),
):
    register_test(_test, replace=True)

__all__ = ["TESTS", "KINDS", "StatisticalTest", "Sample", "Outcome", "TestResult", "register_test", "get_test",
           "names", "aliases", "as_test", "run", "extend"]
