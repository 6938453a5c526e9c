"""Reading runs and qrels: TREC files and streams, DataFrames, dicts, namedtuples, named sources.

The engine's first room. Everything that enters ir_cwla passes through here and leaves checked
by one set of rules, as a pandas DataFrame with the ir-measures column names (``query_id, doc_id,
score`` for a run, ``query_id, doc_id, relevance`` for qrels; :func:`read_trec_run`,
:func:`read_trec_qrels`, :func:`as_run_frame`, :func:`as_qrels_frame`) or as checked numpy
columns (:class:`RunColumns`, :class:`QrelsColumns`), before any backend (ours or trec_eval
through ir-measures) sees it:

* **One read.** A TREC input is a path, ``-`` (stdin), ``/dev/stdin``, a process
  substitution or a FIFO, plain or compressed (gzip, bzip2, xz: recognised from its first
  bytes, not its name), read exactly once, as a stream, in blocks of lines (:func:`open_input`);
  an error names the file (``<stdin>`` for ``-``) and the line. Parquet and Arrow files are read
  as tables.
* **Lines.** A run line has 6 whitespace-separated fields ``qid Q0 docno rank score tag``
  (any after the sixth are ignored, as trec_eval ignores them), a qrels line exactly 4 ``qid
  iter docno grade`` (the format of trec_eval and ir-measures); blank lines are skipped; text is UTF-8. Scores are finite numbers, grades
  integers in the int64 range (:func:`grades_as_int64`). A run's second field (``Q0``, the
  element type cwl_eval's cost files price) is kept only when asked for (``element_type``). Topic
  ids are non-empty, contain no whitespace and are not ``all``, the summary row of trec_eval and
  ir-measures (:func:`check_topic_ids`). Each of these rules is declared once, its check and its message
  together, in :mod:`ir_cwla.io._rules`, which every reader asks.
* **Duplicates, one policy for every backend.** A doc_id listed twice for a topic in a run
  keeps its best-scored line (score compared in float32 as trec_eval does, then the larger
  float64 score, then the earlier line), with one warning naming the run, the count and the
  first case (:func:`drop_duplicate_docs`). A (topic, doc_id) judged twice keeps its last
  line, as trec_eval does; judgments that disagree get one warning naming the qrels
  (:func:`drop_duplicate_judgments`).
* **trec_eval's ranking order** (:func:`trec_order`, :func:`compared_scores`, ``ties=``): the
  rule every path ranks a run by.
* **No silent zero** (:func:`topic_coverage`): a run that shares no topic with the qrels is an
  error, one that misses some a warning.
* **Named sources.** ``irds:ID`` and other prefixes are read by the readers registered with
  :func:`register_source`; qrels checks that only a data set knows about (e.g. the raw
  Cranfield grades) are registered with :func:`register_qrels_check`. The engine itself
  knows no data set.
* **Runs in shards** (:func:`shards`, :func:`read_shard`): a stored run too large for one
  machine, read a shard of whole topics at a time.
* **Cost files** (:func:`read_cost_file`): cwl_eval's ``element_type cost`` lines and
  ``doc_id cost`` lines.

The readers that need pandas (and pyarrow) are imported when first used: ``import ir_cwla``
does not load them. What trec_eval can take (its grade limit, :func:`ir_cwla.provider.check_grades_for_backends`)
is the ir-measures provider's rule, in :mod:`ir_cwla.provider`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ir_cwla import _facade
from ir_cwla.io._columns import (
    METADATA_ATTR,
    MISSING_COUNTED,
    RUN_TAG_ATTR,
    SOURCE_ATTR,
    QrelsColumns,
    RunColumns,
    check_topics,
    qrels_dict,
    run_dict,
    topic_coverage,
)
from ir_cwla.io._cost_files import ANY, MAX_COST, MIN_COST, read_cost_file
from ir_cwla.io._ordering import (
    TIES,
    check_ties,
    compared_scores,
    float32_scores,
    rank_score_values,
    trec_order,
)
from ir_cwla.io._rules import SUMMARY_QID
from ir_cwla.io._sources import (
    QRELS_CHECKS,
    SOURCES,
    QrelsCheck,
    Source,
    is_named_source,
    register_qrels_check,
    register_source,
)
from ir_cwla.io._textstream import STDIN, TABLE_FORMATS, input_name, natural_key, open_input

if TYPE_CHECKING:
    from ir_cwla.io._frames import (
        ELEMENT_TYPE,
        QREL_COLUMNS,
        RUN_COLUMNS,
        as_qrels_frame,
        as_run_frame,
        check_run,
        check_topic_ids,
        drop_duplicate_docs,
        drop_duplicate_judgments,
        grades_as_int64,
        is_checked_frame,
        is_checked_run,
        rank_scores,
        read_trec_qrels,
        read_trec_run,
        source_name,
        top_ranked,
    )
    from ir_cwla.io._sharding import DEFAULT_SHARD_BYTES, Piece, Shard, Shards, read_shard, shards

#: The names whose module needs pandas (or reads shards), imported on first use: name -> module.
_LAZY = {
    **dict.fromkeys(("ELEMENT_TYPE", "QREL_COLUMNS", "RUN_COLUMNS", "as_qrels_frame", "as_run_frame", "check_run",
                     "check_topic_ids", "drop_duplicate_docs", "drop_duplicate_judgments", "grades_as_int64",
                     "is_checked_frame", "is_checked_run", "rank_scores", "read_trec_qrels", "read_trec_run",
                     "source_name", "top_ranked"), "ir_cwla.io._frames"),
    **dict.fromkeys(("DEFAULT_SHARD_BYTES", "Piece", "Shard", "Shards", "read_shard", "shards"), "ir_cwla.io._sharding"),
}


def __getattr__(name: str) -> Any:
    return _facade.attribute(__name__, name, _LAZY)


__all__ = [
    # reading runs and qrels into checked frames
    "read_trec_run", "read_trec_qrels", "as_run_frame", "as_qrels_frame", "is_checked_frame", "is_checked_run",
    "source_name", "RUN_COLUMNS", "QREL_COLUMNS", "ELEMENT_TYPE",
    # the rules shared by every input
    "grades_as_int64", "check_topic_ids", "check_run", "drop_duplicate_docs", "drop_duplicate_judgments",
    # trec_eval's ranking order
    "TIES", "check_ties", "compared_scores", "float32_scores", "trec_order", "rank_score_values", "rank_scores",
    "top_ranked",
    # checked columns and the topics a run answers
    "RunColumns", "QrelsColumns", "run_dict", "qrels_dict", "topic_coverage", "check_topics", "MISSING_COUNTED",
    "RUN_TAG_ATTR", "METADATA_ATTR", "SOURCE_ATTR",
    # one read of an input
    "open_input", "input_name", "natural_key", "STDIN", "SUMMARY_QID", "TABLE_FORMATS",
    # named sources and qrels checks
    "register_source", "register_qrels_check", "is_named_source", "SOURCES", "QRELS_CHECKS", "Source", "QrelsCheck",
    # cost files
    "read_cost_file", "ANY", "MIN_COST", "MAX_COST",
    # runs in shards
    "shards", "read_shard", "Shards", "Shard", "Piece", "DEFAULT_SHARD_BYTES",
]
