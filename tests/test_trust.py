"""Trust at the edges (issue 19): no silent zero in meta.evaluate, and the smaller defects.

Each test here failed on the code before its fix (the report of the branch says how that was
checked); the numbers are checked against independent computations where there are numbers.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import io, meta
from ir_cwla.errors import InputError, MissingTopicsWarning, ParameterError

QRELS = pd.DataFrame({"query_id": ["1", "1", "2", "2", "3"], "doc_id": ["a", "b", "a", "c", "d"],
                      "relevance": [1, 0, 2, 1, 1]})


def _run(topics, docs=("a", "b", "c")):
    return pd.DataFrame([(t, d, 10.0 - i) for t in topics for i, d in enumerate(docs)],
                        columns=["query_id", "doc_id", "score"])


# -- meta.evaluate: no silent zero ---------------------------------------------------------------

def test_meta_evaluate_refuses_a_run_that_shares_no_topic_with_the_qrels():
    runs = {"good": _run(["1", "2", "3"]), "zeros": _run(["001", "002", "003"])}
    with pytest.raises(InputError, match=r"run zeros shares no topic with the qrels \(run topics: 001, 002, 003; "
                                         r"qrels topics: 1, 2, 3\).*'001' is not '1'"):
        meta.evaluate(runs, QRELS, ["RBP_ERG@10", "nDCG@10"], progress=False)
    with pytest.raises(InputError, match="run other shares no topic"):          # ir-measures measures alone too
        meta.evaluate({"other": _run(["7"])}, QRELS, ["nDCG@10"], progress=False)
    with pytest.raises(InputError, match="run empty is empty"):
        meta.evaluate({"empty": _run([])}, QRELS, ["RBP_ERG@10"], progress=False)


def test_meta_evaluate_warns_once_per_run_that_misses_topics():
    runs = {"full": _run(["1", "2", "3"]), "partial": _run(["1"]), "half": _run(["2", "3", "9"])}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = meta.evaluate(runs, QRELS, ["RBP_ERG@10", "P_ERG@10", "nDCG@10"], progress=False)
    notes = [str(w.message) for w in caught if issubclass(w.category, MissingTopicsWarning)]
    assert notes == ["run partial answers 1 of the 3 qrels topics; the other 2 (2, 3) count as 0 (the measures' "
                     "default, as in ir-measures and pt.Experiment)",
                     "run half answers 2 of the 3 qrels topics; the other 1 (1) count as 0 (the measures' "
                     "default, as in ir-measures and pt.Experiment)"]
    assert (frame[(frame["name"] == "partial") & (frame["qid"] != "1")]["value"] == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meta.evaluate(runs, QRELS, ["RBP_ERG@10"], progress=False, missing_topics="ignore")
    with pytest.raises(ParameterError, match="missing_topics"):
        meta.evaluate(runs, QRELS, ["RBP_ERG@10"], progress=False, missing_topics="silent")


class _Blocks(meta.InProcess):
    """In-process, but splits the measures into blocks as a pool of three workers would."""

    parallelism = 3


def test_meta_evaluate_warns_once_per_run_whatever_the_blocks_of_measures():
    runs = {"partial": _run(["1", "2"])}
    with pytest.warns(MissingTopicsWarning) as caught:
        meta.evaluate(runs, QRELS, ["RBP_ERG@10", "P_ERG@10", "DCG_ERG@10", "nDCG@10", "P@5", "AP"],
                      executor=_Blocks(), progress=False)
    assert len([w for w in caught if issubclass(w.category, MissingTopicsWarning)]) == 1


def test_the_robustness_analyses_apply_the_same_rule():
    runs = {"a": _run(["1", "2", "3"]), "b": _run(["01", "02"])}
    with pytest.raises(InputError, match="run b shares no topic"):
        meta.incompleteness(runs, QRELS, ["RBP_ERG@10"], trials=2, seed=0, progress=False)


def test_one_rule_for_the_command_line_and_the_library():
    with pytest.raises(InputError, match=r"^run x is empty: no ranked documents$"):
        io.topic_coverage("x", _run([]), QRELS)
    assert io.topic_coverage("x", _run(["1", "2", "3"]), QRELS) is None
    assert io.topic_coverage("x", ["3"], ["1", "2", "3"], "are gone") == \
        "run x answers 1 of the 3 qrels topics; the other 2 (1, 2) are gone"
    from ir_cwla.app.evaluate import check_topics

    with pytest.warns(MissingTopicsWarning, match=r"count as 0 in the means \(--answered-only averages"):
        check_topics("x", _run(["1"]), QRELS)
    with pytest.warns(MissingTopicsWarning, match=r"are left out of the means"):
        check_topics("x", _run(["1"]), QRELS, answered_only=True)
