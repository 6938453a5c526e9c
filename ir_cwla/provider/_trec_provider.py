"""The ir-measures provider of trec_eval's measures ir-measures lacks, and the switch between trec_eval 9 and 10.

:class:`TrecEvalProvider` computes, with the kernels of :mod:`ir_cwla.scoring._trec_kernels`, the
measures of :mod:`ir_cwla.measures._trec_measures`, ir-measures' graded ``RBP`` (trec_eval's ``rbp``),
the counts ``NumQ``, ``NumRel`` (at any relevance level; pytrec_eval takes only 1) and
``NumRet``, ``nDCG(gains={...})`` over the whole ranking (trec_eval's ``ndcg.1=3,2=9,4=4.5``:
real gains, which pytrec_eval refuses), and, as trec_eval 10 (``version=10``), ``IPrec``. As ir-measures' own providers
do, it converts the qrels once and each run when it is scored, and yields
``Metric(query_id, measure, value)`` for every qrels topic.

A qrels topic the run does not answer scores 0, except ``NumQ`` (1) and ``NumRel`` (its
relevant documents): trec_eval's ``-c``, which ir-cwla's means follow (they count every qrels
topic), in both versions.

:func:`evaluator` is the one switch between the versions (``ir-cwla eval --trec-eval``,
:func:`ir_cwla.meta.evaluate`): the measures this provider computes go to it, the others to
ir-measures' pipeline (pytrec_eval for trec_eval's other measures), which is given the run
ranked as the version ranks it (:func:`ir_cwla.io.rank_score_values` where scores tie
in float32 but not in float64).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional

import ir_measures
import numpy as np
from ir_measures import providers
from ir_measures.measures.base import Measure
from ir_measures.providers.base import NOT_PROVIDED
from ir_measures.util import Metric

from ir_cwla.errors import MeasureError, ParameterError
from ir_cwla.measures import _trec_measures as tm

if TYPE_CHECKING:
    from ir_cwla.scoring._trec_kernels import ResRels

# the kernels (ir_cwla.scoring) are imported when a run is first scored: import ir_cwla loads no scoring

#: Measure names (ir-measures' NAME) this provider computes in both versions.
COMPUTED = frozenset(m.NAME for m in tm.MEASURES) | {"RBP", "NumQ", "NumRel", "NumRet", "nDCG"}
#: ... and those it computes only as trec_eval 10 (which changed how they are computed).
COMPUTED_10 = frozenset({"IPrec"})


VERSIONS = (9, 10)
"""The trec_eval versions (:data:`ir_cwla.scoring._trec_kernels.VERSIONS`, here without loading the kernels)."""


def _version(version: int) -> int:
    if version not in VERSIONS or isinstance(version, bool):
        raise ParameterError(f"trec_eval version must be 9 (9.0.8, as pytrec_eval and ir-measures) or 10 (10.0), "
                             f"got {version!r}")
    return int(version)


def _columns(qrels_or_run: Any, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(topics, docs, values)`` of ir-measures' qrels or run in any form it takes."""
    value_column = "relevance" if kind == "qrels" else "score"
    columns = getattr(qrels_or_run, "columns", None)
    if columns is not None and {"query_id", "doc_id", value_column} <= set(columns):       # a frame: its columns
        frame = qrels_or_run
        return (frame["query_id"].astype(str).to_numpy(dtype=object), frame["doc_id"].astype(str).to_numpy(dtype=object),
                frame[value_column].to_numpy(dtype=np.int64 if kind == "qrels" else np.float64))
    convert = ir_measures.util.QrelsConverter if kind == "qrels" else ir_measures.util.RunConverter
    as_dict = convert(qrels_or_run).as_dict_of_dict()
    topics: list[str] = []
    docs: list[str] = []
    values: list[float] = []
    for qid, row in as_dict.items():
        topics.extend([qid] * len(row))
        docs.extend(row.keys())
        values.extend(row.values())
    out_t = np.empty(len(topics), dtype=object)
    out_t[:] = topics
    out_d = np.empty(len(docs), dtype=object)
    out_d[:] = docs
    return out_t, out_d, np.asarray(values, dtype=np.int64 if kind == "qrels" else np.float64)


class TrecEvalEvaluator(providers.Evaluator):
    """Scores runs against one set of qrels for the measures of a :class:`TrecEvalProvider`."""

    def __init__(self, measures: Iterable[Measure], qrels: Any, version: int = 9):
        self.version = _version(version)
        self.qrels = _columns(qrels, "qrels")
        self.topics = sorted(set(self.qrels[0].tolist()))
        super().__init__(list(measures), set(self.topics))

    def res_rels(self, run: Any) -> ResRels:
        """The run's :class:`~ir_cwla.scoring._trec_kernels.ResRels` over every qrels topic (ranked as the version ranks)."""
        return self._res_rels(_columns(run, "run"))

    def _res_rels(self, run: tuple[np.ndarray, np.ndarray, np.ndarray]) -> ResRels:
        from ir_cwla.scoring import _trec_kernels as kernels

        return kernels.res_rels(*self.qrels, *run, ties=kernels.ties_of(self.version), topics=self.topics)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        columns = _columns(run, "run")
        rr = self._res_rels(columns)
        answered = np.isin(rr.topics, np.unique(columns[0])).tolist() if len(columns[0]) else [False] * len(rr.topics)
        qids = rr.topics.tolist()
        for measure, values in scores(rr, list(self.measures), self.version).items():
            fill = missing_values(measure, rr).tolist()
            for qid, value, has, other in zip(qids, values.tolist(), answered, fill):
                yield Metric(query_id=qid, measure=measure, value=value if has else other)


def missing_values(measure: Measure, rr: ResRels) -> np.ndarray:
    """A measure's value on each qrels topic, were the run not to answer it: trec_eval 10's ``-c``.

    0, except ``NumQ`` (1) and ``NumRel`` (the topic's relevant documents).
    """
    if measure.NAME == "NumQ":
        return np.ones(len(rr.topics))
    if measure.NAME == "NumRel":
        return rr.num_rel(measure["rel"]).astype(np.float64)
    return np.full(len(rr.topics), float(measure.DEFAULT))


def scores(rr: ResRels, measures: Sequence[Measure], version: int = 9) -> dict[Measure, np.ndarray]:
    """Per-topic values (in ``rr.topics``' order) of each measure :class:`TrecEvalProvider` computes.

    Measures of one kind that trec_eval computes in one pass (IPrec at several recalls) are
    computed together.
    """
    from ir_cwla.scoring import _trec_kernels as kernels

    out: dict[Measure, np.ndarray] = {}
    batches: dict[tuple, list[Measure]] = {}
    for m in measures:
        if m.NAME in ("IPrec", "RprecMult", "RelP", "Unjudged"):
            batches.setdefault((m.NAME, m.params.get("rel", 1), bool(m.params.get("judged_only", False))),
                               []).append(m)
        else:
            out[m] = _one(rr, m, version)
    for (name, rel, judged_only), group in batches.items():
        source = rr.judged_only() if judged_only else rr
        at = [m[m.AT_PARAM] for m in group]
        if name == "IPrec":
            order = np.argsort(at, kind="stable")
            values = np.empty((len(rr.topics), len(at)))
            values[:, order] = kernels.iprec_at_recall(source, [at[i] for i in order], rel, version)
        elif name == "RprecMult":
            values = kernels.rprec_mult(source, at, rel, version)
        elif name == "RelP":
            values = kernels.relative_p(source, at, rel)
        else:
            values = kernels.unjudged(source, at)
        for j, m in enumerate(group):
            out[m] = values[:, j]
    return {m: out[m] for m in measures}


def _gains(measure: Measure) -> Optional[dict[int, float]]:
    gains = measure.params.get("gains")
    if gains is None or gains is NOT_PROVIDED:
        return None
    try:
        return {int(k): float(v) for k, v in gains.items()}
    except (TypeError, ValueError):
        raise MeasureError(f"{measure}: gains map whole grades to numbers, e.g. {{1: 3, 2: 9}}") from None


def _one(rr: ResRels, m: Measure, version: int) -> np.ndarray:
    from ir_cwla.scoring import _trec_kernels as kernels

    rel = m.params.get("rel", 1)
    name = m.NAME
    compute: dict[str, Callable[[], np.ndarray]] = {
        "GMAP": lambda: kernels.average_precision(rr, rel),
        "GMBpref": lambda: kernels.bpref(rr, rel),
        "Utility": lambda: kernels.utility(rr, [m["a"], m["b"], m["c"], m["d"]], rel, m["docs"]),
        "IPrecAvg": lambda: kernels.ipr_avg(rr, tm.points(m), rel, version),
        "BinG": lambda: kernels.bin_g(rr, rel),
        "G": lambda: kernels.g(rr, _gains(m)),
        "nDCGRel": lambda: kernels.ndcg_rel(rr, _gains(m)),
        "RnDCG": lambda: kernels.rndcg(rr, _gains(m), m["rel"]),
        "NumNonRelJudgedRet": lambda: rr.counts(rel)["num_nonrel_judged_ret"].astype(np.float64),
        "RBPResidual": lambda: kernels.rbp_residual(rr, m["p"]),
        "RBP": lambda: kernels.rbp(rr, m["p"]),
        "nDCG": lambda: kernels.ndcg(rr, _gains(m)),
        "NumQ": lambda: np.ones(len(rr.topics)),
        "NumRel": lambda: rr.num_rel(m["rel"]).astype(np.float64),
        "NumRet": lambda: (rr.num_ret if m.params.get("rel", NOT_PROVIDED) is NOT_PROVIDED
                           else rr.counts(m["rel"])["num_rel_ret"]).astype(np.float64),
    }
    if name not in compute:
        raise MeasureError(f"{m} is not computed by ir-cwla's trec_eval kernels")
    return compute[name]()


class TrecEvalProvider(providers.Provider):
    """trec_eval's measures that ir-measures' providers lack (and ``IPrec`` as trec_eval 10), see the module docstring."""

    def __init__(self, version: int = 9):
        super().__init__()
        self.version = _version(version)
        self.NAME = f"trec_eval{self.version}"

    @property
    def SUPPORTED_MEASURES(self) -> list[Measure]:  # type: ignore[override]  # noqa: N802  (ir-measures' name)
        """The measures it computes (see :meth:`supports`)."""
        return [m for m in (*tm.MEASURES, ir_measures.RBP, ir_measures.NumQ, ir_measures.NumRel, ir_measures.NumRet,
                            ir_measures.IPrec) if self.supports(m)]

    def supports(self, measure: Measure) -> bool:
        """True for the measures this provider computes in its version (their parameters checked)."""
        name = getattr(measure, "NAME", None)
        if name not in COMPUTED and not (self.version == 10 and name in COMPUTED_10):
            return False
        params = measure.params
        if name == "RBP" and (params.get("cutoff", NOT_PROVIDED) is not NOT_PROVIDED
                              or params.get("rel", NOT_PROVIDED) is not NOT_PROVIDED):
            return False            # cut or binary RBP: other providers' (cwl_eval); trec_eval's rbp is graded
        if name == "IPrec" and params.get("recall", NOT_PROVIDED) is NOT_PROVIDED:
            return False
        if name == "nDCG" and (params.get("gains", NOT_PROVIDED) is NOT_PROVIDED
                               or params.get("cutoff", NOT_PROVIDED) is not NOT_PROVIDED
                               or params.get("dcg", "log2") != "log2"):
            return False            # trec_eval's ndcg with gains (real numbers, which pytrec_eval refuses)
        if name != "IPrec" and params.get("judged_only", False):
            return False
        try:
            measure.validate_params()
        except AssertionError:
            return False
        if name == "IPrecAvg":
            tm.points(measure)          # a clear MeasureError for bad points
        return True

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> TrecEvalEvaluator:
        return TrecEvalEvaluator(measures, qrels, self.version)


PROVIDERS = {9: TrecEvalProvider(9), 10: TrecEvalProvider(10)}
"""The provider of each version (``ir_measures.providers.registry['trec_eval10']``, ...)."""


class _Combined(providers.Evaluator):
    """Two evaluators' metrics, the first's then the second's."""

    def __init__(self, parts: Sequence[providers.Evaluator], measures: Sequence[Measure], qrel_qids: Any):
        super().__init__(list(measures), qrel_qids)
        self.parts = list(parts)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        for part in self.parts:
            yield from part.iter_calc(run)


def evaluator(measures: Sequence[Measure], qrels: Any, version: int = 9) -> providers.Evaluator:
    """An ir-measures evaluator of ``measures`` with trec_eval ``version``'s semantics.

    The measures :data:`PROVIDERS` ``[version]`` computes go to it, the others to ir-measures'
    pipeline (``ir_measures.evaluator``). ``qrels`` as ir-measures takes them. The caller gives
    the runs ranked as the version ranks them (:func:`ir_cwla.provider._per_topic.backend_run`).
    """
    provider = PROVIDERS[_version(version)]
    mine = [m for m in measures if provider.supports(m)]
    rest = [m for m in measures if m not in mine]
    parts: list[providers.Evaluator] = []
    if mine:
        parts.append(provider.evaluator(mine, qrels))
    if rest:
        parts.append(ir_measures.evaluator(rest, qrels))
    if len(parts) == 1:
        return parts[0]
    qids = set().union(*(set(p.qrel_qids) for p in parts))
    return _Combined(parts, list(measures), qids)


def relstrings(qrels: Any, run: Any, length: int = 10, ties: str = "float32") -> dict[str, str]:
    """trec_eval's ``relstring`` of each qrels topic: its first ``length`` relevance values as text ('' if none).

    ``qrels`` and ``run`` as ir-measures takes them; the run ranked with scores compared as
    ``ties`` says (see :func:`ir_cwla.scoring._trec_kernels.relstring`).
    """
    from ir_cwla.scoring import _trec_kernels as kernels

    q = _columns(qrels, "qrels")
    rr = kernels.res_rels(*q, *_columns(run, "run"), ties=ties)
    return dict(zip(rr.topics.tolist(), kernels.relstring(rr, length)))


def register() -> None:
    """Registers the measures and the providers with ir-measures; appends the version-9 one to its pipeline.

    In ``ir_measures.DefaultPipeline`` it comes after pytrec_eval, so it computes only what no
    other provider does (trec_eval's measures of :mod:`ir_cwla.measures._trec_measures`, graded RBP,
    NumRel at a level above 1); both providers are in ``ir_measures.providers.registry`` for
    explicit use (``trec_eval10``: every measure it knows, as trec_eval 10).
    """
    tm.register()
    for provider in PROVIDERS.values():
        ir_measures.providers.registry[provider.NAME] = provider
    pipeline = ir_measures.DefaultPipeline
    pipeline.providers[:] = [p for p in pipeline.providers if not isinstance(p, TrecEvalProvider)]
    position = next((i for i, p in enumerate(pipeline.providers) if getattr(p, "NAME", None) == "ir_cwla"),
                    len(pipeline.providers))
    pipeline.providers.insert(position, PROVIDERS[9])
