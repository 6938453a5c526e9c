"""The result of :func:`ir_cwla.comparison.compare`.

One row per (measure, baseline, system), and tables a paper can use. Every randomised number
carries its Monte-Carlo standard deviation (``p_value_mc_sd``, ``p_adjusted_mc_sd``,
``boot_low_mc_sd``, ``boot_high_mc_sd``) and says whether a decision could flip within it
(``significance_could_flip``, ``interval_could_flip``; :mod:`ir_cwla.analysis.pvalues`).

Significance marks (``alpha`` on the *adjusted* p-values): against one baseline, a dagger
``†`` marks a system significantly different from the baseline (the sign of the difference is
the reader's: compare the means); with several baselines or all pairs, every system gets a
letter (``a``, ``b``, ..., ``z``, ``aa``, ...) in table order, and a score carries the letters
of the systems it is significantly *better* than, as ranx's reports do. The best score of each
measure is in bold.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import pandas as pd

from ir_cwla.analysis import naming, pvalues, significance
from ir_cwla.analysis.frame import ScoreCube
from ir_cwla.analysis.significance import StatisticalTest
from ir_cwla.errors import NotFoundError

COLUMNS = ("measure", "baseline", "system", "mean_baseline", "mean_system", "delta", "ci_low", "ci_high",
           "boot_low", "boot_high", "boot_low_mc_sd", "boot_high_mc_sd", "d_z", "es_e2", "wins", "ties", "losses",
           "statistic", "p_value", "p_value_mc_sd", "p_adjusted", "p_adjusted_mc_sd", "significant",
           "significance_could_flip", "interval_could_flip")
#: In all-pairs mode no system is a baseline: the table names the two systems of a pair so.
ALL_PAIRS_NAMES = {"baseline": "system_a", "system": "system_b", "mean_baseline": "mean_a", "mean_system": "mean_b"}
CORRECTION_NAMES = {
    "none": "no correction",
    "bonferroni": "Bonferroni's correction",
    "holm": "Holm's correction",
    "bh": "Benjamini & Hochberg's correction (false discovery rate)",
    "by": "Benjamini & Yekutieli's correction (false discovery rate)",
    "maxt": "Westfall & Young's MaxT correction, single step ({trials:,} permutations)",
    "maxt-stepdown": "Westfall & Young's MaxT correction, step-down ({trials:,} permutations)",
}
SUPERSCRIPTS = str.maketrans("abcdefghijklmnopqrstuvwxyz,", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ𐞥ʳˢᵗᵘᵛʷˣʸᶻ˒")
#: What markdown_escape backslash-escapes.
MARKDOWN_SPECIALS = frozenset("\\`*_[]~|")
LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def letters(k: int) -> str:
    """``a``, ..., ``z``, ``aa``, ``ab``, ... for ``k = 0, 1, ...``."""
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(LATEX_SPECIALS.get(c, c) for c in str(text))


def markdown_escape(text: str) -> str:
    """``text`` as literal text of a Markdown table cell.

    HTML's ``&``, ``<`` and ``>`` become entities (no tag, comment or autolink can open), the
    characters of Markdown's inline syntax (backslash, backtick, ``*``, ``_``, ``[``, ``]``,
    ``~``) and the cell separator ``|`` are backslash-escaped (no emphasis, code span, link or
    image, and no cell boundary), and line breaks become spaces (a newline would end the row).
    """
    out = str(text)
    for raw, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        out = out.replace(raw, entity)
    out = "".join("\\" + c if c in MARKDOWN_SPECIALS else c for c in out)
    return " ".join(out.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


@dataclass
class Comparison:
    """Every pair's test, adjusted p-value, effect sizes and intervals (see :func:`ir_cwla.compare`).

    ``pairs`` holds one row per (measure, baseline, system) in the order of the tables: the
    measures and systems as ``compare`` was given them (by default the measures' canonical order
    and the systems by name), baselines in the order given. ``family`` says which hypotheses
    were adjusted together; ``cube`` holds the per-topic scores the numbers come from (measures
    in canonical order, systems by name: no number depends on the order given).
    ``statistical_test`` is the test's declaration (:mod:`ir_cwla.analysis.significance`);
    ``trials`` and ``resamples`` are those behind the numbers (more than ``requested_trials``
    and ``requested_resamples`` where ``max_trials`` / ``max_resamples`` added some).
    """

    pairs: pd.DataFrame
    cube: ScoreCube
    test: str
    correction: str
    family_kind: str
    family: str
    alpha: float
    level: float
    trials: int
    resamples: int
    seed: Any
    baselines: Optional[tuple[str, ...]] = None
    statistical_test: Optional[StatisticalTest] = None
    measure_order: tuple[str, ...] = ()
    system_order: tuple[str, ...] = ()
    requested_trials: int = 0
    requested_resamples: int = 0

    # ------------------------------------------------------------------ numbers

    @property
    def measures(self) -> list[str]:
        """The measures compared, in the tables' order (as given to ``compare``)."""
        return list(self.measure_order or self.cube.measures)

    @property
    def systems(self) -> list[str]:
        """The systems compared, in the tables' order (as given to ``compare``)."""
        return list(self.system_order or self.cube.systems)

    @property
    def declaration(self) -> StatisticalTest:
        """The test's declaration (from the registry when the result was made without one)."""
        return self.statistical_test if self.statistical_test is not None else significance.get_test(self.test)

    def labels(self) -> dict[str, str]:
        """The short label of every measure (``RBP_max@10``, as the command line shows them), unique."""
        labels = {m: naming.label(m) for m in self.measures}
        if len(set(labels.values())) < len(labels):           # two measures of one label: their full names
            return {m: m for m in self.measures}
        return labels

    @property
    def n_topics(self) -> int:
        """The number of topics the comparison is over."""
        return len(self.cube.topics)

    def table(self) -> pd.DataFrame:
        """One row per (measure, baseline, system) with the columns of :data:`COLUMNS`.

        The measure's short label (as ``ir-cwla compare`` shows it), the means, ``delta``
        (system - baseline), its t interval (``ci_low, ci_high``) and percentile bootstrap
        interval (``boot_low, boot_high``) at ``level`` with the Monte-Carlo sd of each bound,
        Cohen's ``d_z``, Sakai's ``es_e2``, the topics the system wins, ties and loses, the test's
        ``statistic``, ``p_value``, ``p_adjusted`` (each with its Monte-Carlo sd, 0 for exact
        numbers) and ``significant`` (``p_adjusted < alpha``), and whether the significance or
        the interval's containing 0 could flip within the Monte-Carlo error. Without a baseline
        (all pairs) the pair's systems are ``system_a`` and ``system_b`` (``delta = system_b -
        system_a``; their means ``mean_a``, ``mean_b``).
        """
        out = self.pairs[list(COLUMNS)].copy()
        out["measure"] = out["measure"].map(self.labels())
        return out.rename(columns=ALL_PAIRS_NAMES) if self.baselines is None else out

    def unstable(self) -> pd.DataFrame:
        """The rows of :meth:`table` where a decision could flip within the Monte-Carlo error."""
        table = self.table()
        return table[table["significance_could_flip"] | table["interval_could_flip"]]

    def row_order(self) -> list[str]:
        """Systems in the order of the paper tables: the baselines first (as given), then the others in order."""
        first = list(self.baselines or ())
        return first + [s for s in self.systems if s not in first]

    def means(self) -> pd.DataFrame:
        """Mean score of every system (rows, :meth:`row_order`) under every measure (columns)."""
        data = self.cube.values.mean(axis=1).T                 # (S, M)
        out = pd.DataFrame(data, index=pd.Index(self.cube.systems, name="system"), columns=list(self.cube.measures))
        return out.loc[self.row_order(), self.measures]

    # ------------------------------------------------------------------ text

    def describe_test(self) -> str:
        """The test in words, as the captions name it (its declaration's description)."""
        return self.declaration.describe(self.trials)

    def describe_correction(self) -> str:
        """The multiple-comparison correction in words, as the captions name it."""
        if self.declaration.kind == "all-pairs":
            return "the test's own adjustment over all pairs of each measure"
        return CORRECTION_NAMES[self.correction].format(trials=self.trials)

    def describe_monte_carlo(self, intervals: bool = True) -> str:
        """What the Monte-Carlo error leaves open, in a sentence ('' when nothing could flip).

        The significance decisions that could flip, and with ``intervals`` the bootstrap intervals
        whose containing 0 could (the captions, whose tables show no interval, leave them out).
        """
        rows = self.pairs
        flips = int(rows["significance_could_flip"].sum())
        n_intervals = int(rows["interval_could_flip"].sum()) if intervals else 0
        if not flips and not n_intervals:
            return ""
        parts = []
        if flips:
            parts.append(f"{flips} significance decision{'s' if flips != 1 else ''} ({self.trials:,} trials)")
        if n_intervals:
            parts.append(f"{n_intervals} bootstrap interval{'s' if n_intervals != 1 else ''} containing 0 or not "
                         f"({self.resamples:,} resamples)")
        return (f"Within {pvalues.FLIP_Z:g} Monte-Carlo standard deviations, {' and '.join(parts)} could flip "
                "with another seed.")

    def caption(self, bold: bool = True) -> str:
        """The caption of the paper tables.

        What is shown, the test, the correction and the family (``bold=False`` leaves out the
        sentence about bold best scores, for plain-text tables).
        """
        marks = ("† marks a system significantly different from the baseline "
                 f"{self.baselines[0]}" if self.baselines is not None and len(self.baselines) == 1 else
                 "superscript letters name the systems a score is significantly better than")
        best = "; the best of each measure in bold" if bold else ""
        test = self.describe_test()
        monte_carlo = self.describe_monte_carlo(intervals=False)
        return (f"Mean scores over {self.n_topics} topics{best}. "
                f"{test[0].upper() + test[1:]}, two-sided, with {self.describe_correction()}; "
                f"family of hypotheses: {self.family}. {marks[0].upper() + marks[1:]} "
                f"(adjusted p < {self.alpha:g}).{' ' + monte_carlo if monte_carlo else ''}")

    def _cells(self, digits: int) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
        """Formatted means, their marks (lists of letters or a dagger) and the system letters."""
        means = self.means()
        order = list(means.index)
        code = {s: letters(k) for k, s in enumerate(order)}
        single = self.baselines is not None and len(self.baselines) == 1
        marks = pd.DataFrame("", index=means.index, columns=means.columns)
        sig = self.pairs[self.pairs["significant"]]
        for measure, base, system, delta in sig[["measure", "baseline", "system", "delta"]].itertuples(index=False):
            if single:
                marks.at[system, measure] = "†"
            elif delta != 0:
                winner, loser = (system, base) if delta > 0 else (base, system)
                marks.at[winner, measure] += code[loser] + " "
        if not single:
            for s in marks.index:
                for m in marks.columns:
                    found = marks.at[s, m].split()
                    found.sort(key=lambda c: order.index(next(k for k, v in code.items() if v == c)))
                    sep = "" if all(len(c) == 1 for c in found) else ","
                    marks.at[s, m] = sep.join(found)
        text = means.map(lambda v: f"{v:.{digits}f}")
        return text, marks, code

    def _best(self, digits: int) -> pd.DataFrame:
        means = self.means().round(digits)
        return means.eq(means.max(axis=0), axis=1)

    def marked_means(self, digits: int = 4) -> pd.DataFrame:
        """The means as text with their significance marks.

        The means as text with their marks (``0.4123†``, or superscript letters ``0.4123ᵃᶜ``), for
        plain-text and HTML tables; the index holds ``letter system`` when letters are used.
        """
        text, marks, code = self._cells(digits)
        single = self.baselines is not None and len(self.baselines) == 1
        out = text.copy()
        for s in text.index:
            for m in text.columns:
                mark = marks.at[s, m]
                out.at[s, m] = text.at[s, m] + (mark if single else mark.translate(SUPERSCRIPTS))
        labels = self.labels()
        out.columns = [labels[m] for m in text.columns]
        if not single:
            out.index = pd.Index([f"{code[s]} {s}" for s in text.index], name="system")
        return out

    def to_markdown(self, digits: int = 4) -> str:
        """A Markdown table (systems x measures) with significance marks (``<sup>``) and the caption.

        Every name and the caption are escaped (:func:`markdown_escape`): a system called
        ``</table><script>`` or ``[x](javascript:...)`` is shown as text, and a newline in a name
        does not split the row. With letters (several baselines or all pairs) the first column
        ``#`` holds each system's letter.
        """
        text, marks, code = self._cells(digits)
        best = self._best(digits)
        single = self.baselines is not None and len(self.baselines) == 1
        labels = self.labels()
        head = ([] if single else ["#"]) + ["System"] + [markdown_escape(labels[m]) for m in self.measures]
        align = ([] if single else ["---"]) + ["---"] + ["---:"] * len(self.measures)
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
        for s in text.index:
            cells = []
            for m in self.measures:
                value = f"**{text.at[s, m]}**" if best.at[s, m] else text.at[s, m]
                mark = marks.at[s, m]
                cells.append(value + (mark if single else (f"<sup>{mark}</sup>" if mark else "")))
            lines.append("| " + " | ".join(([] if single else [code[s]]) + [markdown_escape(s)] + cells) + " |")
        return "\n".join(lines) + "\n\n" + markdown_escape(self.caption()) + "\n"

    def to_latex(self, digits: int = 4, label: str = "tab:comparison") -> str:
        r"""A LaTeX ``table`` (booktabs) of systems x measures with significance marks.

        A LaTeX ``table`` (booktabs) of systems x measures with significance marks and a caption
        naming the test, the correction and the family; needs ``\usepackage{booktabs}``.
        """
        text, marks, code = self._cells(digits)
        best = self._best(digits)
        single = self.baselines is not None and len(self.baselines) == 1
        cols = "l" + ("" if single else "l") + "r" * len(self.measures)
        labels = self.labels()
        head = ([] if single else [r"\#"]) + ["System"] + [latex_escape(labels[m]) for m in self.measures]
        lines = [r"\begin{table}[t]", r"\centering", r"\caption{" + latex_escape(self.caption()).replace("†", r"$^\dagger$")
                 + "}", r"\label{" + label + "}", r"\begin{tabular}{" + cols + "}", r"\toprule",
                 " & ".join(head) + r" \\", r"\midrule"]
        for s in text.index:
            cells = []
            for m in self.measures:
                value = text.at[s, m]
                value = rf"\textbf{{{value}}}" if best.at[s, m] else value
                mark = marks.at[s, m]
                if mark:
                    value += r"$^\dagger$" if single else rf"$^{{\mathrm{{{mark}}}}}$"
                cells.append(value)
            lines.append(" & ".join(([] if single else [code[s]]) + [latex_escape(s)] + cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ figures

    def differences(self, system_a: str, system_b: str, measure: str) -> pd.Series:
        """Per-topic differences ``system_b - system_a`` under ``measure`` (index: topics)."""
        for name in (system_a, system_b):
            if name not in self.systems:
                raise NotFoundError(f"system {name!r} is not in the comparison (systems: {', '.join(self.systems[:8])}"
                                    f"{', ...' if len(self.systems) > 8 else ''})")
        key = self._measure(measure)
        x = self.cube.matrix(key)
        d = x[:, self.systems.index(system_b)] - x[:, self.systems.index(system_a)]
        return pd.Series(d, index=pd.Index(self.cube.topics, name="qid"), name=f"{system_b} - {system_a}")

    def _measure(self, measure: Any) -> str:
        name = str(measure)
        if name in self.measures:
            return name
        for m in self.measures:
            if naming.label(m) == name:
                return m
        raise NotFoundError(f"measure {name!r} is not in the comparison (measures: "
                            f"{', '.join(naming.label(m) for m in self.measures[:8])})")

    def pair_row(self, system_a: str, system_b: str, measure: str) -> Optional[pd.Series]:
        """The row of the pair (in either direction) under ``measure``, or None if it was not tested."""
        key = self._measure(measure)
        rows = self.pairs[(self.pairs["measure"] == key)
                          & (((self.pairs["baseline"] == system_a) & (self.pairs["system"] == system_b))
                             | ((self.pairs["baseline"] == system_b) & (self.pairs["system"] == system_a)))]
        return rows.iloc[0] if len(rows) else None

    def most_significant(self, measure: Optional[str] = None) -> pd.Series:
        """The one row (of the internal ``pairs`` frame) with the smallest adjusted p-value under ``measure``.

        ``measure`` defaults to the first measure; ties go to the first row in table order. For
        every pair by adjusted p-value use :meth:`by_significance`.
        """
        key = self._measure(measure if measure is not None else self.measures[0])
        rows = self.pairs[self.pairs["measure"] == key]
        return rows.iloc[int(rows["p_adjusted"].to_numpy().argmin())]

    def by_significance(self, measure: Optional[str] = None) -> pd.DataFrame:
        """The rows of :meth:`table` (under ``measure``, default all) by adjusted p-value, smallest first.

        Ties keep the table's order.
        """
        table = self.table()
        if measure is not None:
            table = table[(self.pairs["measure"] == self._measure(measure)).to_numpy()]
        return table.sort_values("p_adjusted", kind="stable")

    def plot(self, measure: Optional[str] = None, ax: Any = None):
        """:meth:`plot_differences` of the most significant pair under ``measure`` (default: the first)."""
        row = self.most_significant(measure)
        return self.plot_differences(row["baseline"], row["system"], row["measure"], ax=ax)

    def plot_differences(self, system_a: str, system_b: str, measure: str, ax: Any = None):
        """Per-topic differences ``system_b - system_a`` as sorted bars (the figure papers show).

        Bars are sorted by difference, largest first (ties by topic id), blue where ``system_b``
        wins, red where it loses, grey for ties; the dashed line is the mean difference. The
        order and colours depend only on the scores. Returns the matplotlib Figure.
        """
        from ir_cwla.comparison.plots import plot_differences

        return plot_differences(self, system_a, system_b, measure, ax=ax)


