"""``ir-cwla cwl``: cwl_eval's command, on the ir_cwla engine.

Accepts cwl_eval's arguments (``GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE]
[-b BIB_FILE] [-n] [-r] [--max_gain] [--min_gain] [--max_cost] [--min_cost]
[--max_depth]``), its metrics-file syntax (one ``ClassName(arg, ...)`` per line, positional
arguments as in its classes) and its default 16 metrics, and prints the same columns to the
same precision: per topic and metric, EU, ETU, EC, ETC and ED (EI), and with ``-r`` their
residuals (best case minus worst case).

cwl_eval's conventions, reproduced here (Azzopardi, Thomas & Moffat 2019):

- the gain file's fourth column is a real-valued gain, checked against ``--min_gain`` and
  ``--max_gain``; the run's second column is the element type the cost file prices;
- every ranking is cut or padded to ``--max_depth`` (1000) documents; in the worst case an
  unjudged or missing document has gain 0 and costs ``--max_cost``, an element type the cost
  file does not price costs ``--max_cost``; in the best case (for ``-r``) they have gain
  ``--max_gain`` and cost ``--min_cost``;
- EU = sum_i W(i) r_i, EC = sum_i W(i) c_i and ED = V+ over those D documents, the
  ``CWLA(A='ERG' | 'EC' | 'EI')@D`` of ir_cwla under tail='stop'; ETU = sum_i L(i) CG(i) and
  ETC = sum_i L(i) CC(i) with L(D) = V(D) (1 - C(D)): the users the model would send past
  rank D are dropped, which ir_cwla's 'stop' would count at rank D (ETG and ETC minus
  V(D) C(D) CG(D) or CC(D); not for TBG and U, whose C(D) cwl_eval sets to 0);
- every topic of the run is reported, those the gain file does not judge included.

Where ir_cwla differs, deliberately: the ranking is by score (trec_eval's order, score desc
in float32, ties by doc_id desc), not the file's line order, and a doc_id repeated within a
topic keeps its best-scored line (cwl_eval keeps both and splits a topic whose lines are not
contiguous into several rankings); BPM-Dynamic moves its cost budget K with ``hc`` (cwl_eval
moves T instead, see :mod:`ir_cwla.cwl_models`); TrAP's EU is cwl_eval's, its other columns
are those of the C/W/L model ``CWLA(C='TrAP', tail='pad')``, as cwl_eval's W for TrAP is not
a distribution (its ETU can be negative).
"""
from __future__ import annotations

import inspect
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla import io, scoring
from ir_cwla.browsing import get_browsing_model
from ir_cwla.costs import ANY, CostSpec, read_cost_file, read_fields
from ir_cwla.errors import InputError, MissingFileError
from ir_cwla.gains import PADDING, UNJUDGED, GainSpec, Qrels, Rankings, rank_run
from ir_cwla.measure import CWLA

QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED")
#: The gain file's gains, used as they are (x / 1).
RAW_GAINS = GainSpec("lin", max_rel=1.0)
HEADER = "Topic\tMetric\t" + "\t".join(QUANTITIES)
RESIDUAL_HEADER = "\t" + "\t".join(f"Res{q}" for q in QUANTITIES)


@dataclass(frozen=True)
class CwlMetric:
    """One cwl_eval metric as a browsing model of ir_cwla: its printed name, the model, the
    model's parameters, and how it is evaluated (tail, depth relative to --max_depth)."""

    name: str
    model: str
    params: dict = field(default_factory=dict)
    tail: str = "stop"
    depth_offset: int = 0       # U-measure: cwl_eval gives its last rank no weight
    stops_at_depth: bool = False   # cwl_eval's C at the last rank is 0 (TBG, U): nobody is dropped

    def depth(self, max_depth: int) -> int:
        return max(max_depth + self.depth_offset, 1)

    def measure(self, max_depth: int = 1000, A: str = "ERG") -> Any:
        """The CWLA measure of one of its columns: ``A='ERG'`` (EU), ETG (ETU, under 'stop' up
        to the users cwl_eval drops), EC, ETC or EI (ED), on rankings of ``max_depth``."""
        own = {k: v for k, v in self.params.items() if k != "cutoff"}
        extra = {"tail": self.tail} if self.tail != "stop" else {}
        return CWLA(C=self.model, A=A, **own, **extra) @ int(self.params.get("cutoff") or self.depth(max_depth))


def _fmt(value: Any) -> str:
    return str(value)


# cwl_eval class name -> (its positional parameters with defaults, builder of the CwlMetric)
def _precision(k=10):
    return CwlMetric(f"P@{_fmt(k)}", "P", {"cutoff": int(k)})


def _rbp(theta=0.9):
    return CwlMetric(f"RBP@{_fmt(theta)}", "RBP", {"p": float(theta)})


def _ndcg(k):
    return CwlMetric(f"NDCG-k@{_fmt(k)}", "DCG", {"cutoff": int(k)})


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
    return CwlMetric(f"TBG-H@{_fmt(halflife)} ", "TBG", {"halflife": float(halflife)}, stops_at_depth=True)


def _umeasure(L=1000):
    return CwlMetric(f"U-L@{_fmt(L)} ", "U", {"L": float(L)}, depth_offset=-1, stops_at_depth=True)


def _bpm(T=1.0, K=10):
    return CwlMetric(f"BPM-Static-T={_fmt(T)}-K={_fmt(K)}", "BPM", {"T": float(T), "K": float(K)})


def _bpmd(T=1, K=10, hb=1.0, hc=1.0, gain_med=0.5):
    return CwlMetric(f"BPM-Dynamic-T={_fmt(T)}-K={_fmt(K)}-hb={_fmt(hb)}-hc={_fmt(hc)}", "BPMD",
                     {"T": float(T), "K": float(K), "hb": float(hb), "hc": float(hc), "gain_med": float(gain_med)})


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
    return CwlMetric(f"NERR-EQ8@k={_fmt(k)}", "NERR8", {"cutoff": int(k)})


def _nerr9(k):
    return CwlMetric(f"NERR-EQ9@k={_fmt(k)}", "NERR9", {"cutoff": int(k)})


def _nerr10(phi=0.9):
    return CwlMetric(f"NERR-EQ10@phi={_fmt(phi)}", "NERR10", {"phi": float(phi)})


def _nerr11(T=1.0):
    return CwlMetric(f"NERR-EQ11@T={_fmt(T)}", "NERR11", {"T": float(T)})


def _npv(rate=0.1):
    return CwlMetric(f"NPV-r@{_fmt(rate)}", "NPV", {"discount": float(rate)})


def _set(beta=0.5, k=10):
    return CwlMetric(f"SET-k@{_fmt(k)}-b@{_fmt(beta)}", "SET", {"exponent": float(beta), "cutoff": int(k)})


METRIC_CLASSES: dict[str, Callable[..., Any]] = {
    "PrecisionCWLMetric": _precision, "RBPCWLMetric": _rbp, "NDCGCWLMetric": _ndcg, "RRCWLMetric": _rr,
    "APCWLMetric": _ap, "TrAPCWLMetric": _trap, "INSTCWLMetric": _inst, "INSQCWLMetric": _insq,
    "TBGCWLMetric": _tbg, "UMeasureCWLMetric": _umeasure, "BPMCWLMetric": _bpm, "BPMDCWLMetric": _bpmd,
    "IFTGoalCWLMetric": _ift_goal, "IFTRateCWLMetric": _ift_rate, "IFTGoalRateCWLMetric": _ift,
    "NERReq8CWLMetric": _nerr8, "NERReq9CWLMetric": _nerr9, "NERReq10CWLMetric": _nerr10,
    "NERReq11CWLMetric": _nerr11, "NPVCWLMetric": _npv, "SETCWLMetric": _set,
}
"""cwl_eval's metric classes, by the name its metrics files use."""

#: cwl_eval's default metrics (its CWLRuler), when no metrics file is given.
DEFAULT_METRICS = [_precision(k) for k in (1, 2, 3, 4, 5, 10)] + [_rbp(p) for p in (0.2, 0.4, 0.8)] + \
    [_ndcg(5), _ndcg(10), _rr(), _ap()] + [_inst(T) for T in (1.0, 2.0, 3.0)]

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
    metric = builder(*args)
    try:
        metric.measure().validate_params()
    except ValueError as ex:
        raise InputError(f"{where}: {line.strip()}: {ex}") from None
    return metric


def read_metrics_file(path: str) -> list[CwlMetric]:
    """The metrics of a cwl_eval metrics file (blank lines and ``#`` comments skipped)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(parse_metric(line, f"{path}:{lineno}"))
    if not out:
        raise InputError(f"{path}: no metric")
    return out


def read_gain_file(path: str, min_gain: float = 0.0, max_gain: float = 1.0) -> pd.DataFrame:
    """A TREC qrels file whose fourth column is a real-valued gain in [min_gain, max_gain]."""
    rows = []
    for where, (topic, _, doc, text) in read_fields(path, ("topic", "unused", "doc_id", "gain"), InputError):
        try:
            gain = float(text)
        except ValueError:
            raise InputError(f"{where}: gain {text!r} is not a number") from None
        if not (min_gain <= gain <= max_gain):
            raise InputError(f"{where}: gain {gain:g} lies outside [{min_gain:g}, {max_gain:g}] (--min_gain, --max_gain)")
        rows.append((topic, doc, gain))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def _topic_order(run: pd.DataFrame) -> list[str]:
    return pd.unique(run["query_id"].astype(str)).tolist()


@dataclass
class _Case:
    """The gain and cost matrices of one case (worst: 'zero', best: 'max') over D ranks."""

    gains: np.ndarray
    costs: np.ndarray
    relevant: np.ndarray       # per row: TrAP's R (relevant documents, as cwl_eval counts them)


#: The doc_id of the one judgment a topic the gain file does not judge gets (grade 0): a TREC
#: line cannot hold an empty field, so no ranked document is this one. cwl_eval reports every
#: topic of the run, judged or not; the engine's rows are the qrels' topics.
NO_DOCUMENT = ""


def with_every_run_topic(qrels: pd.DataFrame, topics: Sequence[str]) -> pd.DataFrame:
    """The gain file's judgments, and a grade-0 judgment of :data:`NO_DOCUMENT` for every run
    topic it does not judge (no gain, no relevant document: its rows score as unjudged)."""
    absent = sorted(set(topics) - set(qrels["query_id"].astype(str)))
    if not absent:
        return qrels
    extra = pd.DataFrame({"query_id": absent, "doc_id": NO_DOCUMENT, "relevance": 0.0})
    return pd.concat([qrels, extra], ignore_index=True)


def case_costs(cost_file: Optional[str], unpriced: float) -> CostSpec:
    """The costs of one case: the cost file's prices by element type (cwl_eval's ``-c``), and
    ``unpriced`` (``--max_cost`` in the worst case, ``--min_cost`` in the best) for every element
    type it does not price and for padding, unless the file prices those itself (a ``* COST`` line)."""
    table = {ANY: float(unpriced), **(read_cost_file(cost_file) if cost_file is not None else {})}
    return CostSpec("type", table=tuple(sorted(table.items())))


def _cases(ranked: Rankings, depth: int, costs: dict[str, CostSpec], max_gain: float
           ) -> tuple[dict[str, _Case], np.ndarray]:
    """The worst ('zero') and best ('max') case matrices of every row over ``depth`` ranks (rows
    stacked group after group; their positions in ``ranked`` are returned too)."""
    groups = ranked.groups(depth, pad_to=depth)
    rows = np.concatenate([g.rows for g in groups]) if groups else np.zeros(0, dtype=np.int64)
    judged_relevant = ranked.qrels.relevant_count(RAW_GAINS)[ranked.topic_rows[rows]]
    out = {}
    for case in ("zero", "max"):
        gains, cost = [], []
        for g in groups:
            unknown = (g.judgments == UNJUDGED) | (g.judgments == PADDING)   # cwl_eval: not in the gain file
            gains.append(np.where(unknown, max_gain if case == "max" else 0.0, g.grades))
            priced = costs[case].cell_costs(ranked, g, "zero", 0.0)
            cost.append(np.ones(g.grades.shape) if priced is None else priced)
        gains_m = np.concatenate(gains) if gains else np.zeros((0, depth))
        cost_m = np.concatenate(cost) if cost else np.zeros((0, depth))
        relevant = judged_relevant if case == "zero" else \
            np.maximum((gains_m > 0).sum(axis=1), judged_relevant).astype(np.float64)
        out[case] = _Case(gains_m, cost_m, relevant)
    return out, rows


def _dropped(metric: CwlMetric, b: Any, gains: np.ndarray, costs: np.ndarray, depth: int) -> np.ndarray:
    """V(D) C(D), with the model's own C(D): the users ir_cwla's 'stop' stops at D although the
    model would send them on, whom cwl_eval drops from its expected totals (0 for a row that looks
    at nothing)."""
    measure = metric.measure()
    model = get_browsing_model(metric.model)
    params = measure.model_params()
    c = model.continuation(gains, params, costs) if model.uses_costs else model.continuation(gains, params)
    c = np.asarray(c, dtype=np.float64)
    return b.V[:, depth - 1] * c[:, depth - 1] if gains.shape[1] >= depth else np.zeros(len(gains))


def _expectations(metric: CwlMetric, case: _Case, max_depth: int) -> np.ndarray:
    """(topics x 5) EU, ETU, EC, ETC, ED of one metric in one case, cwl_eval's way."""
    depth = metric.depth(max_depth)
    gains, costs = case.gains[:, :depth], case.costs[:, :depth]
    n = gains.shape[0]
    d = np.full(n, depth, dtype=np.int64)
    measures = {q: metric.measure(max_depth, A) for q, A in (("EU", "ERG"), ("ETU", "ETG"), ("EC", "EC"),
                                                            ("ETC", "ETC"))}
    b = scoring.browse(measures["EU"], gains, d, costs=costs, pad_cost=1.0, total_gain=case.relevant)
    out = np.empty((n, 5))
    for k, m in enumerate(measures.values()):
        out[:, k] = scoring.aggregate(m, b, costs=costs if m["A"] in ("EC", "ETC") else None)
    out[:, 4] = b.vplus
    if metric.tail == "stop" and not metric.stops_at_depth:     # cwl_eval drops users sent past D
        dropped = _dropped(metric, b, gains, costs, depth)
        out[:, 1] -= dropped * gains.sum(axis=1)
        out[:, 3] -= dropped * costs.sum(axis=1)
    return out


def evaluate(gain_file: str, result_file: str, metrics: Sequence[CwlMetric], cost_file: Optional[str] = None,
             residuals: bool = False, max_gain: float = 1.0, min_gain: float = 0.0, max_cost: float = 1.0,
             min_cost: float = 1.0, max_depth: int = 1000) -> pd.DataFrame:
    """cwl_eval's table: one row per (topic, metric) in the run's topic order, columns
    ``Topic, Metric, EU, ETU, EC, ETC, ED`` (and ``ResEU``... with ``residuals``)."""
    check_limits(max_gain, min_gain, max_cost, min_cost, max_depth)
    for path, what in ((gain_file, "gain"), (result_file, "result"), (cost_file, "cost")):
        if path is not None and not os.path.isfile(path):
            raise MissingFileError(f"{what} file not found: {path}")
    qrels = read_gain_file(gain_file, min_gain, max_gain)
    run = io.read_trec_run(result_file, element_type=True)
    order = _topic_order(run)
    prepared = Qrels(with_every_run_topic(qrels, order))
    ranked = rank_run(run, prepared, max_depth, name=result_file)
    costs = {"zero": case_costs(cost_file, max_cost), "max": case_costs(cost_file, min_cost)}
    cases, rows = _cases(ranked, max_depth, costs, max_gain)
    topics = ranked.topics[rows]
    position = {t: i for i, t in enumerate(topics)}
    blocks = []
    for metric in metrics:
        worst = _expectations(metric, cases["zero"], max_depth)
        values = [worst]
        if residuals:
            values.append(_expectations(metric, cases["max"], max_depth) - worst)
        blocks.append(np.concatenate(values, axis=1))
    index = [position[t] for t in order]
    records = []
    for t in index:
        for metric, block in zip(metrics, blocks):
            records.append((topics[t], metric.name, *block[t]))
    columns = ["Topic", "Metric", *QUANTITIES] + ([f"Res{q}" for q in QUANTITIES] if residuals else [])
    return pd.DataFrame(records, columns=columns)


def check_limits(max_gain: float, min_gain: float, max_cost: float, min_cost: float, max_depth: int) -> None:
    if not (math.isfinite(min_gain) and math.isfinite(max_gain) and 0 <= min_gain <= max_gain):
        raise InputError(f"--min_gain {min_gain:g} and --max_gain {max_gain:g}: need 0 <= min_gain <= max_gain "
                       "(ir_cwla reads negative gains as 0)")
    if not (math.isfinite(max_cost) and math.isfinite(min_cost) and 0 < min_cost <= max_cost):
        raise InputError(f"--min_cost {min_cost:g} and --max_cost {max_cost:g}: need 0 < min_cost <= max_cost")
    if max_depth < 1:
        raise InputError(f"--max_depth must be >= 1 (got {max_depth})")


def format_table(table: pd.DataFrame, colnames: bool = False) -> str:
    """cwl_eval's output: tab-separated, four decimals, an optional header line."""
    lines = []
    if colnames:
        lines.append(HEADER + (RESIDUAL_HEADER if "ResEU" in table.columns else ""))
    numbers = table.columns[2:]
    for row in table.itertuples(index=False):
        lines.append("\t".join([str(row[0]), str(row[1])] + [f"{v:.4f}" for v in row[2:2 + len(numbers)]]))
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
