"""``ir-cwla cwl``: cwl_eval's command, printing cwl_eval's table.

Accepts cwl_eval's arguments (``GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE]
[-b BIB_FILE] [-n] [-r] [--max_gain] [--min_gain] [--max_cost] [--min_cost]
[--max_depth]``), its metrics-file syntax (one ``ClassName(arg, ...)`` per line, positional
arguments as in its classes, an argument with a '.' a float, else an int) and its default 16
metrics, and prints its table: per ranking and metric, EU, ETU, EC, ETC and ED, and with
``-r`` their residuals (best case minus worst case), to four decimals. The output is cwl_eval
1.0.12's byte for byte (the tests check it on real DL19 runs, for every metric class, with and
without ``-r`` and a cost file); one option is ir_cwla's own, ``--order``.

Every input (gain, result, cost and metrics file) may be a path, ``-`` (standard input, for
one of them), ``/dev/stdin``, a process substitution or a FIFO, plain or compressed (gzip,
bzip2, xz), and is read once (:mod:`ir_cwla.textstream`); an error names the file and line.
A result file that no rule of :mod:`ir_cwla.io` has anything to say about (a regular TREC file
:mod:`ir_cwla.trec_text` takes) is read without pandas, as the gain, cost and metrics files
always are: the command then never imports pandas (:func:`evaluate_table`, :class:`CwlTable`);
any other result file (a stream, a comment line, CRLF, a doc_id listed twice under ``--order
trec``, ...) is read by :func:`ir_cwla.io.read_trec_run`, which applies the rule, and the table
is the same.

**The ranking.** ``--order file`` (the default) takes the result file's line order, as cwl_eval
does: the lines of a topic are its ranking in the order they come, the rank and score
fields are not read for it, a doc_id listed twice is ranked (and counted) twice, and a topic
whose lines are not contiguous is several rankings, each reported where it starts. A file
whose line order is not its score order (a line scored above the line before it, scores
compared in float32 as trec_eval does) gets one :class:`ir_cwla.errors.LineOrderWarning`,
which also names topics split in several blocks; a doc_id repeated within a ranking gets one
:class:`ir_cwla.errors.InputWarning`. ``--order trec`` ranks each topic by score instead, as
trec_eval and the rest of ir_cwla do (score descending compared in float32, ties by doc_id
descending; a doc_id listed twice keeps its best-scored line), one ranking per topic, in the
order the topics first appear.

cwl_eval's conventions, reproduced (Azzopardi, Thomas & Moffat 2019):

- the gain file's fourth column is a real-valued gain, checked against ``--min_gain`` and
  ``--max_gain``; a (topic, doc_id) listed twice keeps its last line; the run's second column
  is the element type the cost file prices;
- every ranking is cut or padded to ``--max_depth`` (1000) documents; in the worst case an
  unjudged or missing document has gain 0 and costs ``--max_cost``, an element type the cost
  file does not price costs ``--max_cost``; in the best case (for ``-r``) they have gain
  ``--max_gain`` and cost ``--min_cost``; R (TrAP's denominator) is the number of documents
  of the topic with a gain > 0 (best case: at least those of the ranking);
- every ranking of the run is reported, those of topics the gain file does not judge too;
- the numbers are computed by :mod:`ir_cwla.app.cwl_kernel`, which repeats cwl_eval's
  floating-point operations in its order, so that the rounding of the printed digits is
  cwl_eval's too (a residual whose exact value is 0 prints ``0.0000`` or ``-0.0000`` as in
  cwl_eval). Each column is the C/W/L measure of :mod:`ir_cwla.cwl_models` that
  :meth:`CwlMetric.measure` names (EU = ``CWLA(A='ERG')@D``, EC, ED = ``A='EI'``; ETU and ETC
  ``A='ETG'``, ``'ETC'`` up to the users cwl_eval drops at rank D), which the tests check to 1e-9;
- the metrics cwl_eval computes differently from the papers are computed as cwl_eval does,
  since the command prints cwl_eval's table: BPM-Dynamic's cost budget K never moves (cwl_eval
  updates T in its cost loop, see :mod:`ir_cwla.cwl_models`), so ``hc`` has no effect (one
  :class:`ir_cwla.errors.InputWarning` says so; ``CWLA(C='BPMD', hc=...)`` of ``ir-cwla eval`` is
  Zhang et al.'s model); TrAP's columns are cwl_eval's, whose W is not a distribution (its ETU
  can be negative); the U-measure gives its last rank no weight.

Where ``ir-cwla cwl`` differs from cwl_eval, deliberately (the tables of the inputs both
accept are the same; these are inputs cwl_eval reads differently, stops on with a Python error,
or answers with numbers that mean nothing):

- a cost file's ``* COST`` line prices every element type the file does not list, and the
  missing documents past a ranking's end, in both cases (cwl_eval reads ``*`` as one more
  element type), as in ``CWLA(costs='type:PATH')``;
- an empty gain file, an empty result file and an empty metrics file are errors (cwl_eval
  stops with an AttributeError on an empty result file and prints zeros for an empty gain file);
- input lines are checked: a gain file line has 4 fields, a result line 6 with a finite
  number as its score (cwl_eval does not read it, but ``--order trec`` and the line-order
  warning do); a gain must lie in [--min_gain, --max_gain] (NaN too) and --min_gain >= 0;
  blank lines, and ``#`` comments of a metrics file, are skipped;
- costs, ``--max_cost`` and ``--min_cost`` lie in [:data:`ir_cwla.costs.MIN_COST`,
  :data:`ir_cwla.costs.MAX_COST`] = [2^-40, 2^40], so that no sum of costs overflows to ``inf``
  or ``nan`` (cwl_eval prints them, exit 0), and --min_cost <= --max_cost;
  ``PrecisionCWLMetric(k)`` needs k <= --max_depth + 1 and the U-measure --max_depth >= 2 (cwl_eval
  stops with a numpy error); a metric's parameters are checked as ``CWLA``'s (RBP's theta in
  (0, 1), ...); a C/W/L exponential that overflows is read as infinite (cwl_eval stops with an
  OverflowError).
"""
from __future__ import annotations

import dataclasses
import inspect
import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from ir_cwla.app import cwl_kernel
from ir_cwla.app.evaluate import check_stdin_once
from ir_cwla.errors import InputError, InputWarning, LineOrderWarning, ParameterError
from ir_cwla.io import RunColumns, input_name
from ir_cwla.io import _hashing as hashing
from ir_cwla.io import _ordering as ordering
from ir_cwla.io._cost_files import ANY, cost_problem, field_lines, read_cost_file
from ir_cwla.io._textstream import text_lines
from ir_cwla.measures import CWLA

if TYPE_CHECKING:
    import pandas as pd

# pandas and the general reader (ir_cwla.io) are imported by the functions that need them: on
# clean files (ir_cwla.trec_text) the command reads, scores and prints without pandas

QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED")
HEADER = "Topic\tMetric\t" + "\t".join(QUANTITIES)
RESIDUAL_HEADER = "\t" + "\t".join(f"Res{q}" for q in QUANTITIES)
#: The orders a ranking can be read in: the file's line order (cwl_eval's, the default) or
#: trec_eval's score order.
ORDERS = ("file", "trec")
#: Rankings evaluated at once: about this many cells (rankings x --max_depth) per matrix.
CHUNK_CELLS = 1 << 20
#: The deepest ``--max_depth``: every ranking is padded to it, a few float64 matrices of one ranking
#: x ``--max_depth`` at a time (10^7: some 80 MB each).
MAX_DEPTH = 10 ** 7


@dataclass(frozen=True)
class CwlMetric:
    """One cwl_eval metric.

    Its printed name, its class and positional arguments in cwl_eval (what
    :mod:`ir_cwla.app.cwl_kernel` computes), and the C/W/L model of ir_cwla its columns equal
    (:meth:`measure`: the model, its parameters, tail and depth relative to --max_depth).
    """

    name: str
    model: str
    params: dict = field(default_factory=dict)
    tail: str = "stop"
    depth_offset: int = 0       # U-measure: cwl_eval gives its last rank no weight
    cls: str = ""
    args: tuple = ()

    def depth(self, max_depth: int) -> int:
        """The ranking depth the metric looks at under ``--max_depth`` (at least 1)."""
        return max(max_depth + self.depth_offset, 1)

    def measure(self, max_depth: int = 1000, A: str = "ERG") -> Any:
        """The CWLA measure of one of its columns, on rankings of ``max_depth``.

        ``A='ERG'`` is EU, ``'EC'`` EC, ``'EI'`` ED; ``'ETG'`` and ``'ETC'`` are ETU and ETC up
        to the users the model would send past rank ``max_depth``, whom cwl_eval drops (none for
        P, DCG, AP, TBG, U, NERR8, NERR9, SET). TrAP: EU only.
        """
        own = {k: v for k, v in self.params.items() if k != "cutoff"}
        extra = {"tail": self.tail} if self.tail != "stop" else {}
        return CWLA(C=self.model, A=A, **own, **extra) @ int(self.params.get("cutoff") or self.depth(max_depth))


def _fmt(value: Any) -> str:
    return str(value)


def _whole(value: Any, name: str = "k") -> int:
    """A rank cutoff given to a cwl_eval class, which must be a whole number (``PrecisionCWLMetric(10.5)`` is not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not float(value).is_integer():
        raise ParameterError(f"{name} is a rank cutoff and must be a whole number (got {name}={value!r})")
    return int(value)


# cwl_eval class name -> (its positional parameters with defaults, builder of the CwlMetric)
def _precision(k=10):
    return CwlMetric(f"P@{_fmt(k)}", "P", {"cutoff": _whole(k)})


def _rbp(theta=0.9):
    return CwlMetric(f"RBP@{_fmt(theta)}", "RBP", {"p": float(theta)})


def _ndcg(k):
    return CwlMetric(f"NDCG-k@{_fmt(k)}", "DCG", {"cutoff": _whole(k)})


def _rr():
    return CwlMetric("RR", "RR")


def _ap():
    return CwlMetric("AP", "AP")


def _trap():
    return CwlMetric("TrAP", "TrAP", tail="pad")


def _inst(T=1.0):
    return CwlMetric(f"INST-T={_fmt(T)}", "INST", {"T": float(T)})


def _insq(T=1.0):
    return CwlMetric(f"INSQ-T={_fmt(T)}", "INSQ", {"T": float(T)})


def _tbg(halflife=224):
    return CwlMetric(f"TBG-H@{_fmt(halflife)} ", "TBG", {"halflife": float(halflife)})


def _umeasure(L=1000):
    return CwlMetric(f"U-L@{_fmt(L)} ", "U", {"L": float(L)}, depth_offset=-1)


def _bpm(T=1.0, K=10):
    return CwlMetric(f"BPM-Static-T={_fmt(T)}-K={_fmt(K)}", "BPM", {"T": float(T), "K": float(K)})


def _bpmd(T=1, K=10, hb=1.0, hc=1.0, gain_med=0.5):
    # cwl_eval's K never moves (its cost loop updates T): its numbers are BPMD's with hc = 0
    return CwlMetric(f"BPM-Dynamic-T={_fmt(T)}-K={_fmt(K)}-hb={_fmt(hb)}-hc={_fmt(hc)}", "BPMD",
                     {"T": float(T), "K": float(K), "hb": float(hb), "hc": 0.0, "gain_med": float(gain_med)})


def _ift_goal(T, b1, R1):
    return CwlMetric(f"IFT-C1-T={_fmt(T)}-b1={_fmt(b1)}-R1={_fmt(R1)}", "IFTgoal",
                     {"T": float(T), "b1": float(b1), "R1": float(R1)})


def _ift_rate(A, b2, R2):
    return CwlMetric(f"IFT-C2-A={_fmt(A)}-b2={_fmt(b2)}-R2={_fmt(R2)}", "IFTrate",
                     {"rate": float(A), "b2": float(b2), "R2": float(R2)})


def _ift(T, b1, R1, A, b2, R2):
    return CwlMetric(f"IFT-C1-C2-T={_fmt(T)}-b1={_fmt(b1)}-R1={_fmt(R1)}-A={_fmt(A)}-b2={_fmt(b2)}-R2={_fmt(R2)}",
                     "IFT", {"T": float(T), "b1": float(b1), "R1": float(R1), "rate": float(A), "b2": float(b2),
                             "R2": float(R2)})


def _nerr8(k):
    return CwlMetric(f"NERR-EQ8@k={_fmt(k)}", "NERR8", {"cutoff": _whole(k)})


def _nerr9(k):
    return CwlMetric(f"NERR-EQ9@k={_fmt(k)}", "NERR9", {"cutoff": _whole(k)})


def _nerr10(phi=0.9):
    return CwlMetric(f"NERR-EQ10@phi={_fmt(phi)}", "NERR10", {"phi": float(phi)})


def _nerr11(T=1.0):
    return CwlMetric(f"NERR-EQ11@T={_fmt(T)}", "NERR11", {"T": float(T)})


def _npv(rate=0.1):
    return CwlMetric(f"NPV-r@{_fmt(rate)}", "NPV", {"discount": float(rate)})


def _set(beta=0.5, k=10):
    return CwlMetric(f"SET-k@{_fmt(k)}-b@{_fmt(beta)}", "SET", {"exponent": float(beta), "cutoff": _whole(k)})


METRIC_CLASSES: dict[str, Callable[..., Any]] = {
    "PrecisionCWLMetric": _precision, "RBPCWLMetric": _rbp, "NDCGCWLMetric": _ndcg, "RRCWLMetric": _rr,
    "APCWLMetric": _ap, "TrAPCWLMetric": _trap, "INSTCWLMetric": _inst, "INSQCWLMetric": _insq,
    "TBGCWLMetric": _tbg, "UMeasureCWLMetric": _umeasure, "BPMCWLMetric": _bpm, "BPMDCWLMetric": _bpmd,
    "IFTGoalCWLMetric": _ift_goal, "IFTRateCWLMetric": _ift_rate, "IFTGoalRateCWLMetric": _ift,
    "NERReq8CWLMetric": _nerr8, "NERReq9CWLMetric": _nerr9, "NERReq10CWLMetric": _nerr10,
    "NERReq11CWLMetric": _nerr11, "NPVCWLMetric": _npv, "SETCWLMetric": _set,
}
"""cwl_eval's metric classes, by the name its metrics files use."""


def make_metric(cls: str, *args: Any) -> CwlMetric:
    """The metric ``cls(*args)`` of cwl_eval (arguments as its metrics file casts them)."""
    return dataclasses.replace(METRIC_CLASSES[cls](*args), cls=cls, args=tuple(args))


#: cwl_eval's default metrics (its CWLRuler), when no metrics file is given.
DEFAULT_METRICS = [make_metric("PrecisionCWLMetric", k) for k in (1, 2, 3, 4, 5, 10)] + \
    [make_metric("RBPCWLMetric", p) for p in (0.2, 0.4, 0.8)] + \
    [make_metric("NDCGCWLMetric", 5), make_metric("NDCGCWLMetric", 10), make_metric("RRCWLMetric"),
     make_metric("APCWLMetric")] + [make_metric("INSTCWLMetric", T) for T in (1.0, 2.0, 3.0)]

_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*\((.*)\)\s*$")


def _cast(text: str, where: str) -> Any:
    """An argument as cwl_eval casts it: a float if it has a '.', else an int."""
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        raise InputError(f"{where}: argument {text.strip()!r} is not a number") from None


def parse_metric(line: str, where: str = "metric") -> CwlMetric:
    """``'RBPCWLMetric(0.8)'`` -> the metric (cwl_eval's metrics-file syntax)."""
    m = _LINE.match(line)
    if not m:
        raise InputError(f"{where}: expected ClassName(arg, ...), got {line.strip()!r}")
    name, body = m.group(1), m.group(2)
    builder = METRIC_CLASSES.get(name)
    if builder is None:
        raise InputError(f"{where}: unknown metric class {name!r}; known: {', '.join(METRIC_CLASSES)}")
    args = [_cast(a.strip(), where) for a in body.split(",") if a.strip()]
    try:
        inspect.signature(builder).bind(*args)
    except TypeError:
        params = ", ".join(str(p) for p in inspect.signature(builder).parameters.values())
        raise InputError(f"{where}: {name} takes ({params}), got {len(args)} argument(s)") from None
    try:
        metric = make_metric(name, *args)
        metric.measure().validate_params()
    except ValueError as ex:
        raise InputError(f"{where}: {line.strip()}: {ex}") from None
    return metric


def read_metrics_file(source: Any) -> list[CwlMetric]:
    """The metrics of a cwl_eval metrics file (blank lines and ``#`` comments skipped)."""
    out = [parse_metric(line, f"{name}:{number}") for name, number, line in text_lines(source, "metrics")
           if line.strip() and not line.lstrip().startswith("#")]
    if not out:
        raise InputError(f"metrics file {input_name(source)}: no metric")
    return out


GAIN_FIELDS = ("topic", "unused", "doc_id", "gain")
"""The fields of a gain file line (cwl_eval's: a TREC qrels line whose fourth field is a real gain)."""


def _gain_columns(source: Any, min_gain: float, max_gain: float) -> tuple[list[str], list[str], list[float]]:
    """Topic ids, doc_ids and gains of every judgment line of a gain file, in file order, each checked."""
    topics: list[str] = []
    docs: list[str] = []
    gains: list[float] = []
    for name, number, (topic, _, doc, text) in field_lines(source, GAIN_FIELDS, InputError, kind="gain"):
        try:
            gain = float(text)
        except ValueError:
            raise InputError(f"{name}:{number}: gain {text!r} is not a number") from None
        if not (min_gain <= gain <= max_gain):
            raise InputError(f"{name}:{number}: gain {gain:g} lies outside [{min_gain:g}, {max_gain:g}] "
                             "(--min_gain, --max_gain)")
        topics.append(topic)
        docs.append(doc)
        gains.append(gain)
    if not gains:
        raise InputError(f"gain file {input_name(source)} holds no judgments")
    return topics, docs, gains


def read_gains(source: Any, min_gain: float = 0.0, max_gain: float = 1.0) -> dict[str, dict[str, float]]:
    """A gain file as ``{topic: {doc_id: gain}}``, without pandas (what :func:`read_gain_file` holds).

    Lines are checked as :func:`read_gain_file` checks them; a (topic, doc_id) listed twice keeps
    its last line.
    """
    topics, docs, gains = _gain_columns(source, min_gain, max_gain)
    judged: dict[str, dict[str, float]] = {}
    ids = np.empty(len(topics), dtype=object)
    ids[:] = topics
    bounds = [0, *(np.flatnonzero(ids[1:] != ids[:-1]) + 1).tolist(), len(topics)]
    for a, b in zip(bounds, bounds[1:]):          # the lines of a topic, a block at a time
        block = dict(zip(docs[a:b], gains[a:b]))
        of_topic = judged.get(topics[a])
        if of_topic is None:
            judged[topics[a]] = block
        else:                                     # a topic whose lines are not contiguous: later lines win
            of_topic.update(block)
    return judged


def read_gain_file(source: Any, min_gain: float = 0.0, max_gain: float = 1.0) -> pd.DataFrame:
    """A qrels file of real-valued gains (cwl_eval's gain file).

    A TREC qrels file whose fourth column is a real-valued gain in [min_gain, max_gain]
    (``query_id, doc_id, relevance``; a (topic, doc_id) listed twice keeps its last line).
    """
    import pandas as pd

    topics, docs, gains = _gain_columns(source, min_gain, max_gain)
    frame = pd.DataFrame({"query_id": topics, "doc_id": docs, "relevance": gains},
                         columns=["query_id", "doc_id", "relevance"])
    return frame.drop_duplicates(["query_id", "doc_id"], keep="last").reset_index(drop=True)


def check_limits(max_gain: float, min_gain: float, max_cost: float, min_cost: float, max_depth: int) -> None:
    """Refuses gain, cost and depth limits that cwl_eval could not use, naming the options."""
    if not (math.isfinite(min_gain) and math.isfinite(max_gain) and 0 <= min_gain <= max_gain):
        raise InputError(f"--min_gain {min_gain:g} and --max_gain {max_gain:g}: need 0 <= min_gain <= max_gain "
                         "(ir_cwla reads negative gains as 0)")
    if not (math.isfinite(max_cost) and math.isfinite(min_cost) and 0 < min_cost <= max_cost):
        raise InputError(f"--min_cost {min_cost:g} and --max_cost {max_cost:g}: need 0 < min_cost <= max_cost")
    for option, value in (("--max_cost", max_cost), ("--min_cost", min_cost)):
        problem = cost_problem(value)
        if problem:
            raise InputError(f"{option} {value:g}: {problem}")
    if max_depth < 1:
        raise InputError(f"--max_depth must be >= 1 (got {max_depth})")
    if max_depth > MAX_DEPTH:
        raise InputError(f"--max_depth must be at most {MAX_DEPTH:,} (every ranking is padded to it; "
                         f"ir_cwla.app.cwl.MAX_DEPTH), got {max_depth:,}")


class _Rankings:
    """The rankings of a result file.

    One row per line looked at (rank < --max_depth), in ranking order, and per
    ranking its topic.
    """

    __slots__ = ("topics", "row", "rank", "gain", "cost")

    def __init__(self, topics: np.ndarray, row: np.ndarray, rank: np.ndarray, gain: np.ndarray, cost: np.ndarray):
        self.topics = topics        # (rankings,) topic ids
        self.row = row              # (cells,) ranking of each line
        self.rank = rank            # (cells,) 0-based rank of each line
        self.gain = gain            # (cells,) gain, NaN if the gain file does not judge it
        self.cost = cost            # (cells,) cost, NaN if the cost file does not price its type


def _blocks(topics: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts of the runs of equal topic ids (cwl_eval's rankings) and each line's run."""
    change = np.r_[True, topics[1:] != topics[:-1]] if len(topics) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(change)
    return starts, np.cumsum(change) - 1


def _repeated_docs(docs: np.ndarray, starts: np.ndarray) -> tuple[int, int]:
    """How many lines repeat a doc_id of their ranking (an earlier line of it), and the first such line (or -1)."""
    doc_list = docs.tolist()
    bounds = [*starts.tolist(), len(doc_list)]
    count, first = 0, -1
    for a, b in zip(bounds, bounds[1:]):
        ranking = doc_list[a:b]
        if len(set(ranking)) == b - a:
            continue
        seen: set = set()
        for i, doc in enumerate(ranking, a):
            if doc in seen:
                count += 1
                first = i if first < 0 else first
            else:
                seen.add(doc)
    return count, first


def _warn_line_order(topics: np.ndarray, docs: np.ndarray, score: np.ndarray, starts: np.ndarray,
                     block: np.ndarray, name: str) -> None:
    """Warnings for a result file out of score order or with repeated doc_ids.

    One LineOrderWarning for a file whose lines are not in score order (or whose topics are
    split), one InputWarning for doc_ids repeated within a ranking.
    """
    scores = ordering.float32_scores(score, name, warn=False)
    notes = []
    rising = np.flatnonzero((scores[1:] > scores[:-1]) & (block[1:] == block[:-1])) + 1
    if len(rising):
        i = int(rising[0])
        n_rankings = len(np.unique(block[rising]))
        notes.append(f"the lines of {n_rankings} ranking(s) are not in score order (first: topic {topics[i]!r}, "
                     f"document {docs[i]!r} at rank {i - starts[block[i]] + 1} scores "
                     f"{score[i]:g}, above the line before it)")
    seen: set = set()
    split = []                      # topics of the rankings whose topic came before
    for topic in topics[starts].tolist():
        if topic in seen:
            split.append(topic)
        seen.add(topic)
    if split:
        notes.append(f"{len(set(split))} topic(s) come in several blocks of lines (first: {split[0]!r}), each "
                     "block a ranking of its own, reported where it starts")
    if notes:
        warnings.warn(f"{name}: {'; '.join(notes)}. Rankings follow the line order, as in cwl_eval; --order trec "
                      "ranks each topic by score, as trec_eval does", LineOrderWarning, stacklevel=3)
    count, i = _repeated_docs(docs, starts)
    if count:
        warnings.warn(f"{name}: {count} line(s) repeat a doc_id of their ranking (first: topic "
                      f"{topics[i]!r}, document {docs[i]!r}); each line is ranked and counted, as in "
                      "cwl_eval (--order trec keeps the best-scored line)", InputWarning, stacklevel=3)


#: Read result files with :func:`ir_cwla.trec_text.read_run` where it takes them (tests turn it
#: off to compare with the general reader's path).
_CLEAN_READER = True


def read_result_file(source: Any, order: str = "file", element_type: bool = True) -> RunColumns:
    """The lines of a result file as columns, with their element types.

    Every line in file order (``order='file'``: a doc_id listed twice stays twice) or each
    (topic, doc_id) once, its best-scored line (``'trec'``). A clean file
    (:mod:`ir_cwla.trec_text`: a regular TREC file no rule of :mod:`ir_cwla.io` has anything to
    say about) is read without pandas; any other input by :func:`ir_cwla.io.read_trec_run`, which
    applies the rule (its error, warning or repair), its frame taken as it is. ``element_type``
    False leaves out the element types of a clean file (nothing prices them: no cost file);
    what is read, and refused, is the same.
    """
    check = order == "trec"
    if _CLEAN_READER:
        from ir_cwla.io import _trec_text as trec_text

        run = trec_text.read_run(source, element_type=element_type, check=check)
        if run is not None:
            return run
    from ir_cwla import io

    frame = io.read_trec_run(source, check=check, element_type=True)     # (a table file needs the column)
    return RunColumns(frame["query_id"].to_numpy(dtype=object), frame["doc_id"].to_numpy(dtype=object),
                      frame["score"].to_numpy(dtype=np.float64),
                      frame[io.ELEMENT_TYPE].astype(str).to_numpy(dtype=object), dict(frame.attrs))


def read_rankings(result_file: Any, judged: dict[str, dict[str, float]], cost_table: dict, max_depth: int,
                  order: str = "file") -> _Rankings:
    """The rankings of a result file, with the gain and cost of each line.

    The rankings of a result file in ``order`` ('file': cwl_eval's line order; 'trec': score
    order), cut to ``max_depth``, with the gain (``judged``, :func:`read_gains`) and cost
    (``cost_table``, by element type) of each line.
    """
    name = input_name(result_file)
    run = read_result_file(result_file, order, element_type=bool(cost_table))
    if len(run) == 0:
        raise InputError(f"result file {name} is empty: no ranked documents")
    topics, docs = run.query_id, run.doc_id
    types = run.element_type if cost_table else None
    if order == "trec":
        codes, _ = hashing.factorize(topics)
        ranked = ordering.trec_order(codes, ordering.float32_scores(run.score, name), docs)
        topics, docs = topics[ranked], docs[ranked]
        types = None if types is None else types[ranked]
        starts, block = _blocks(codes[ranked])
    else:
        starts, block = _blocks(topics)
        _warn_line_order(topics, docs, run.score, starts, block, name)
    rank = np.arange(len(topics)) - starts[block]
    kept = rank < max_depth
    if not kept.all():
        docs, block, rank = docs[kept], block[kept], rank[kept]
        types = None if types is None else types[kept]
    ranking_topics = topics[starts]
    bounds = np.searchsorted(block, np.arange(len(starts) + 1)).tolist()     # each ranking's lines
    doc_list, unknown = docs.tolist(), repeat(math.nan)
    nothing: dict[str, float] = {}
    gain = np.empty(len(doc_list))
    for k, topic in enumerate(ranking_topics.tolist()):
        a, b = bounds[k], bounds[k + 1]
        gain[a:b] = np.fromiter(map(judged.get(topic, nothing).get, doc_list[a:b], unknown), np.float64, b - a)
    cost = np.full(len(doc_list), np.nan) if types is None else \
        np.fromiter(map(cost_table.get, types.tolist(), unknown), np.float64, len(doc_list))
    return _Rankings(ranking_topics, block, rank, gain, cost)


def _case_matrices(r: _Rankings, rows: slice, n: int, rels: np.ndarray, best: bool, max_gain: float,
                   max_cost: float, min_cost: float, star: Optional[float],
                   like: Optional[cwl_kernel.Case] = None) -> cwl_kernel.Case:
    """Gains, costs and R of the rankings ``rows`` in one case, as cwl_eval's ``Ranking`` builds them.

    Cut or padded to n; unjudged and missing documents gain 0 (worst) or --max_gain (best);
    unpriced and missing ones cost --max_cost (worst) or --min_cost (best), or the cost file's
    ``*`` price. ``like``: the other case of the same rankings (what depends on equal costs is
    shared, :class:`cwl_kernel.Case`).
    """
    count = rows.stop - rows.start
    cells = slice(*np.searchsorted(r.row, [rows.start, rows.stop]))      # rows are in ranking order
    i, j = r.row[cells] - rows.start, r.rank[cells]
    unknown_gain = max_gain if best else 0.0
    unknown_cost = star if star is not None else (min_cost if best else max_cost)
    gains = np.full((count, n), unknown_gain)
    g = r.gain[cells]
    gains[i, j] = np.where(np.isnan(g), unknown_gain, g)
    costs = np.full((count, n), unknown_cost)
    c = r.cost[cells]
    costs[i, j] = np.where(np.isnan(c), unknown_cost, c)
    if best:
        rels = np.maximum(np.sum(np.where(gains > 0.0, 1.0, gains), axis=1), rels)
    return cwl_kernel.Case(gains, costs, rels, like=like)


@dataclass(frozen=True, eq=False)
class CwlTable:
    """cwl_eval's table, without pandas: per ranking and metric, EU, ETU, EC, ETC, ED (and residuals).

    ``topics``: the topic id of each ranking, in the order reported; ``metrics``: the metrics'
    printed names; ``values``: (rankings x metrics x 5, or 10 with residuals). :meth:`rows` and
    :meth:`frame` give the rows of :func:`evaluate`'s frame, :func:`format_table` prints it.
    """

    topics: list[str]
    metrics: list[str]
    values: np.ndarray

    @property
    def residuals(self) -> bool:
        """True if the table holds the residuals (best case minus worst case) too."""
        return self.values.shape[2] == 2 * len(QUANTITIES)

    @property
    def columns(self) -> list[str]:
        """The columns of :func:`evaluate`'s frame: ``Topic, Metric, EU, ETU, EC, ETC, ED`` (and ``ResEU``, ...)."""
        return ["Topic", "Metric", *QUANTITIES] + ([f"Res{q}" for q in QUANTITIES] if self.residuals else [])

    def rows(self) -> list[tuple]:
        """``(topic, metric, EU, ..., ED[, ResEU, ..., ResED])`` per ranking and metric, metrics within rankings."""
        values = self.values.reshape(-1, self.values.shape[2]).tolist()
        keys = [(topic, metric) for topic in self.topics for metric in self.metrics]
        return [(*key, *v) for key, v in zip(keys, values)]

    def frame(self) -> pd.DataFrame:
        """The table as :func:`evaluate` returns it (columns :attr:`columns`)."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=self.columns)


def evaluate_table(gain_file: Any, result_file: Any, metrics: Sequence[CwlMetric], cost_file: Any = None,
                   residuals: bool = False, max_gain: float = 1.0, min_gain: float = 0.0, max_cost: float = 1.0,
                   min_cost: float = 1.0, max_depth: int = 1000, order: str = "file") -> CwlTable:
    """cwl_eval's table as a :class:`CwlTable`, without pandas (what ``ir-cwla cwl`` prints).

    The arguments of :func:`evaluate`. Files the general reader must read (a stream, a comment
    line, a repeated line under ``order='trec'``, ...) are read by it, with pandas
    (:func:`read_result_file`); the table is the same.
    """
    if order not in ORDERS:
        raise ParameterError(f"order must be one of {', '.join(ORDERS)} (got {order!r})")
    check_limits(max_gain, min_gain, max_cost, min_cost, max_depth)
    check_stdin_once([str(s) for s in (gain_file, result_file, cost_file) if isinstance(s, str)])
    metrics = list(metrics)
    for metric in metrics:
        problem = cwl_kernel.check_args(metric.cls, metric.args, max_depth)
        if problem:
            raise InputError(f"{metric.name.strip()}: {problem}")
    moving = [m.name for m in metrics if m.cls == "BPMDCWLMetric" and (list(m.args) + [1, 10, 1.0, 1.0])[3] != 0]
    if moving:
        warnings.warn(f"{moving[0]}: cwl_eval's BPM-Dynamic keeps its cost budget K fixed (its code moves T where "
                      "Zhang et al. move K), so hc has no effect here, as in cwl_eval; CWLA(C='BPMD', hc=...) "
                      "of ir-cwla eval is Zhang et al.'s model", InputWarning, stacklevel=2)
    judged = read_gains(gain_file, min_gain, max_gain)
    cost_table = dict(read_cost_file(cost_file)) if cost_file is not None else {}
    star = cost_table.get(ANY)
    ranked = read_rankings(result_file, judged, cost_table, max_depth, order)
    relevant = {topic: float(sum(gain > 0.0 for gain in of_topic.values())) for topic, of_topic in judged.items()}
    rels = np.array([relevant.get(topic, 0.0) for topic in ranked.topics.tolist()], dtype=np.float64)
    n, count = max_depth, len(ranked.topics)
    width = 10 if residuals else 5
    values = np.empty((count, len(metrics), width))
    step = max(1, CHUNK_CELLS // n)
    for a in range(0, count, step):
        rows = slice(a, min(a + step, count))
        cases = [_case_matrices(ranked, rows, n, rels[rows], False, max_gain, max_cost, min_cost, star)]
        if residuals:
            cases.append(_case_matrices(ranked, rows, n, rels[rows], True, max_gain, max_cost, min_cost, star,
                                        like=cases[0]))
        for k, metric in enumerate(metrics):
            worst = None
            for c, case in enumerate(cases):
                bad = case.shared("gain outside [0, 1]", partial(cwl_kernel.unit_gain_problem, metric.cls, case.gains)) \
                    if metric.cls in cwl_kernel.UNIT_GAIN_CLASSES else None        # (the same for each such class)
                if bad is not None:
                    raise InputError(f"{metric.name.strip()}: cwl_eval's {metric.cls} takes gains in [0, 1], not "
                                     f"{bad:g}" + (" (the best case of -r gives unjudged documents --max_gain)"
                                                   if c else ""))
                out = cwl_kernel.case_expectations(metric.cls, metric.args, case)
                if worst is None:
                    worst = values[rows, k, :5] = out
                else:
                    values[rows, k, 5:] = out - worst
    return CwlTable(ranked.topics.tolist(), [metric.name for metric in metrics], values)


def evaluate(gain_file: Any, result_file: Any, metrics: Sequence[CwlMetric], cost_file: Any = None,
             residuals: bool = False, max_gain: float = 1.0, min_gain: float = 0.0, max_cost: float = 1.0,
             min_cost: float = 1.0, max_depth: int = 1000, order: str = "file") -> pd.DataFrame:
    """cwl_eval's table.

    One row per (ranking, metric), columns ``Topic, Metric, EU, ETU, EC, ETC, ED`` (and
    ``ResEU``... with ``residuals``); ``order`` 'file' (cwl_eval's line order, the default)
    or 'trec' (trec_eval's score order). Inputs are paths, ``-`` or streams. The frame of
    :func:`evaluate_table`'s :class:`CwlTable`.
    """
    return evaluate_table(gain_file, result_file, metrics, cost_file=cost_file, residuals=residuals,
                          max_gain=max_gain, min_gain=min_gain, max_cost=max_cost, min_cost=min_cost,
                          max_depth=max_depth, order=order).frame()


def format_table(table: Union[CwlTable, pd.DataFrame], colnames: bool = False) -> str:
    """cwl_eval's output.

    tab-separated, four decimals (Python's ``%.4f``, as cwl_eval prints), an optional header
    line; of a :class:`CwlTable` or of :func:`evaluate`'s frame (the same text).
    """
    if isinstance(table, CwlTable):
        residual, width = table.residuals, table.values.shape[2]
        values = table.values.reshape(-1, width).tolist()
        keys = [f"{topic}\t{metric}" for topic in table.topics for metric in table.metrics]
    else:
        residual, width = "ResEU" in table.columns, len(table.columns) - 2
        rows = list(table.itertuples(index=False))
        values = [row[2:] for row in rows]
        keys = [f"{row[0]}\t{row[1]}" for row in rows]
    numbers = "\t%.4f" * width
    lines = [HEADER + (RESIDUAL_HEADER if residual else "")] if colnames else []
    lines += [key + numbers % tuple(v) for key, v in zip(keys, values)]
    return "\n".join(lines) + ("\n" if lines else "")


BIBTEX = {
    "cwl_eval": "@inproceedings{azzopardi2019cwl, author = {Azzopardi, Leif and Thomas, Paul and Moffat, Alistair}, "
                "title = {cwl\\_eval: An Evaluation Tool for Information Retrieval}, booktitle = {SIGIR}, year = {2019}}",
    "P": "@misc{rijsbergen:1979:ir, title = {Information Retrieval}, author = {Van Rijsbergen, Cornelis J}, "
         "year = {1979}}",
    "RBP": "@article{Moffat:2008:RPM, author = {Moffat, Alistair and Zobel, Justin}, title = {Rank-biased Precision "
           "for Measurement of Retrieval Effectiveness}, journal = {ACM TOIS}, volume = {27}, year = {2008}}",
    "DCG": "@article{Jarvelin:2002:CGE, author = {J\\\"{a}rvelin, Kalervo and Kek\\\"{a}l\\\"{a}inen, Jaana}, "
           "title = {Cumulated Gain-based Evaluation of IR Techniques}, journal = {ACM TOIS}, year = {2002}}",
    "RR": "@article{kantor2000trec, title = {The TREC-5 Confusion Track}, author = {Kantor, Paul and Voorhees, "
          "Ellen}, journal = {Information Retrieval}, year = {2000}}",
    "AP": "@article{Harman:1992:ESIR, author = {Donna Harman}, title = {Evaluation Issues in Information "
          "Retrieval}, journal = {IP\\&M}, volume = {28}, number = {4}, year = {1992}}",
    "INST": "@inproceedings{Moffat:2015:IAM, author = {Moffat, Alistair and Bailey, Peter and Scholer, Falk and "
            "Thomas, Paul}, title = {INST: An Adaptive Metric for Information Retrieval Evaluation}, "
            "booktitle = {ADCS}, year = {2015}}",
    "INSQ": "@inproceedings{Moffat:2012:MMI, author = {Moffat, Alistair and Scholer, Falk and Thomas, Paul}, "
            "title = {Models and Metrics: IR Evaluation As a User Process}, booktitle = {ADCS}, year = {2012}}",
    "TBG": "@inproceedings{Smucker:2012:TCE, author = {Smucker, Mark D. and Clarke, Charles L.A.}, title = "
           "{Time-based Calibration of Effectiveness Measures}, booktitle = {SIGIR}, year = {2012}}",
    "U": "@inproceedings{Sakai:2013:SRR, author = {Sakai, Tetsuya and Dou, Zhicheng}, title = {Summaries, Ranked "
         "Retrieval and Sessions: A Unified Framework for Information Access Evaluation}, booktitle = {SIGIR}, "
         "year = {2013}}",
    "BPM": "@inproceedings{Zhang:2017:EWS, author = {Zhang, Fan and Liu, Yiqun and Li, Xin and Zhang, Min and Xu, "
           "Yinghui and Ma, Shaoping}, title = {Evaluating Web Search with a Bejeweled Player Model}, "
           "booktitle = {SIGIR}, year = {2017}}",
    "IFT": "@inproceedings{Azzopardi:2018:MUS, author = {Azzopardi, Leif and Thomas, Paul and Craswell, Nick}, "
           "title = {Measuring the Utility of Search Engine Result Pages: An Information Foraging Based Measure}, "
           "booktitle = {SIGIR}, year = {2018}}",
    "NERR": "@inproceedings{Azzopardi:2021:ECE, author = {Azzopardi, Leif and Mackenzie, Joel and Moffat, Alistair}, "
            "title = {{ERR} is not {C/W/L}: Exploring the Relationship Between Expected Reciprocal Rank and Other "
            "Metrics}, booktitle = {ICTIR}, year = {2021}}",
    "SET": "@inproceedings{Azzopardi:2014:MIE, author = {Azzopardi, Leif}, title = {Modelling Interaction with "
           "Economic Models of Search}, booktitle = {SIGIR}, year = {2014}}",
}
_BIB_OF_MODEL = {"P": "P", "RBP": "RBP", "NPV": "cwl_eval", "DCG": "DCG", "RR": "RR", "AP": "AP", "TrAP": "AP",
                 "INST": "INST", "INSQ": "INSQ", "TBG": "TBG", "U": "U", "BPM": "BPM", "BPMD": "BPM",
                 "IFTgoal": "IFT", "IFTrate": "IFT", "IFT": "IFT", "NERR8": "NERR", "NERR9": "NERR",
                 "NERR10": "NERR", "NERR11": "NERR", "SET": "SET"}


def write_bibtex(metrics: Sequence[CwlMetric], path: str) -> None:
    """The BibTeX of cwl_eval and of every metric used (each once), as cwl_eval's ``-b``."""
    keys = ["cwl_eval"] + [_BIB_OF_MODEL[m.model] for m in metrics]
    with open(path, "w", encoding="utf-8") as f:
        for key in dict.fromkeys(keys):
            f.write(BIBTEX[key] + "\n\n")
