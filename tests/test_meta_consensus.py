"""Consensus qrels from several assessors (issue 21, item 3), against a slow loop written here.

The loop reads every qrels by hand (``tests.reference.read_qrels`` for files), collects the
grades of each (topic, doc_id) pair in the order of the list, and applies the documented rules
with ``collections.Counter`` and exact ``fractions.Fraction`` arithmetic; it shares no code with
the package's numpy kernels. Checked on the real DL19 re-annotations and on random qrels with
many ties.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from ir_cwla import io, meta
from ir_cwla.errors import ArgumentTypeError, DataError, InputError, ParameterError
from tests.reference import read_qrels

CASES = [("majority", "lower"), ("majority", "higher"), ("majority", "first"), ("mean", "lower"),
         ("mean", "higher"), ("median", "lower"), ("median", "higher"), ("first", "lower")]


def rounded(value: Fraction, ties: str) -> int:
    low = math.floor(value)
    rest = value - low
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and ties == "higher"):
        return low + 1
    return low


def slow_combine(qrels: list[dict], method: str, ties: str, pairs: str = "union") -> dict:
    """{(qid, doc): grade} by the documented rules, one pair at a time."""
    votes: dict[tuple[str, str], list[int]] = {}
    for q in qrels:
        for qid, docs in q.items():
            for doc, grade in docs.items():
                votes.setdefault((qid, doc), []).append(grade)     # in list order: first qrels first
    out = {}
    for key, grades in votes.items():
        if pairs == "intersection" and len(grades) < len(qrels):
            continue
        if method == "first":
            out[key] = grades[0]
        elif method == "majority":
            counts = Counter(grades)
            top = max(counts.values())
            tied = [g for g in counts if counts[g] == top]
            out[key] = min(tied) if ties == "lower" else max(tied) if ties == "higher" else \
                next(g for g in grades if g in tied)
        elif method == "mean":
            out[key] = rounded(Fraction(sum(grades), len(grades)), ties)
        else:
            s = sorted(grades)
            n = len(s)
            middle = Fraction(s[n // 2]) if n % 2 else Fraction(s[n // 2 - 1] + s[n // 2], 2)
            out[key] = rounded(middle, ties)
    return out


def as_dict(frame: pd.DataFrame) -> dict:
    return {(q, d): int(g) for q, d, g in zip(frame["query_id"], frame["doc_id"], frame["relevance"])}


def frame_to_qrels(frame: pd.DataFrame) -> dict:
    out: dict = {}
    for q, d, g in zip(frame["query_id"], frame["doc_id"], frame["relevance"]):
        out.setdefault(q, {})[d] = int(g)
    return out


def assert_checked_form(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == ["query_id", "doc_id", "relevance"]
    assert frame["relevance"].dtype == np.int64
    keys = list(zip(frame["query_id"], frame["doc_id"]))
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert io.as_qrels_frame(frame) is frame                        # already checked: returned as it is


@pytest.fixture(scope="module")
def group1(dl19_qrels_path, dl19_dir):
    folder = dl19_dir / "reannotation"
    return [dl19_qrels_path, folder / "group1-assessor-a.txt", folder / "group1-assessor-b.txt"]


@pytest.mark.parametrize("method,ties", CASES)
def test_against_the_slow_loop_on_dl19(group1, method, ties):
    nist, a, b = group1
    by_hand = [read_qrels(p) for p in group1]
    for order, hand in (([nist, a, b], by_hand), ([a, b, nist], [by_hand[1], by_hand[2], by_hand[0]])):
        got = meta.combine_qrels(order, method, ties=ties)
        assert_checked_form(got)
        assert as_dict(got) == slow_combine(hand, method, ties)
    shared = meta.combine_qrels({"a": a, "b": b}, method, ties=ties, pairs="intersection")
    assert as_dict(shared) == slow_combine(by_hand[1:], method, ties, pairs="intersection")


def test_first_is_nist_if_present_or_the_reannotation_where_present(group1):
    nist, a, b = group1
    grades_n, grades_a, grades_b = ({(q, d): g for q, docs in read_qrels(p).items() for d, g in docs.items()}
                                    for p in group1)
    by_nist = meta.combine_qrels([nist, a, b], "first")
    assert as_dict(by_nist) == grades_n                                    # every re-annotated pair is NIST's
    by_a = as_dict(meta.combine_qrels([a, b, nist], "first"))
    assert len(by_a) == len(grades_n)
    assert all(by_a[k] == grades_a[k] for k in grades_a)
    assert all(by_a[k] == grades_b[k] for k in grades_b if k not in grades_a)
    assert all(by_a[k] == grades_n[k] for k in grades_n if k not in grades_a and k not in grades_b)
    assert any(by_a[k] != grades_n[k] for k in grades_a)


def random_qrels(seed: int, n: int = 4) -> list[pd.DataFrame]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        rows = [(f"q{t}", f"d{d}", int(rng.integers(0, 4))) for t in range(5) for d in range(30) if rng.random() < 0.7]
        out.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]))
    return out


@pytest.mark.parametrize("method,ties", CASES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_against_the_slow_loop_on_random_qrels(method, ties, n):
    frames = random_qrels(n, n)
    got = meta.combine_qrels(frames, method, ties=ties)
    assert_checked_form(got)
    assert as_dict(got) == slow_combine([frame_to_qrels(f) for f in frames], method, ties)
    shuffled = meta.combine_qrels([f.sample(frac=1, random_state=i) for i, f in enumerate(frames)], method, ties=ties)
    pd.testing.assert_frame_equal(got, shuffled)


@pytest.mark.filterwarnings("ignore::ir_cwla.errors.RawCranfieldWarning")    # the negative grades
def test_the_documented_rules_by_hand():
    def one(*grades, method, ties="lower"):
        frames = [pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": [g]}) for g in grades]
        return int(meta.combine_qrels(frames, method, ties=ties)["relevance"].iloc[0])

    assert one(1, 2, method="majority") == 1 and one(1, 2, method="majority", ties="higher") == 2
    assert one(2, 1, method="majority", ties="first") == 2 and one(3, 1, 1, method="majority", ties="higher") == 1
    assert one(0, 2, 3, method="majority", ties="first") == 0 and one(3, 2, 0, method="majority", ties="first") == 3
    assert one(1, 2, method="mean") == 1 and one(1, 2, method="mean", ties="higher") == 2
    assert one(0, 1, 1, method="mean") == 1 and one(0, 0, 1, method="mean", ties="higher") == 0
    assert one(-1, -2, method="mean") == -2 and one(-1, -2, method="mean", ties="higher") == -1
    assert one(0, 2, method="median") == 1 and one(0, 0, 3, 3, method="median") == 1
    assert one(0, 0, 3, 3, method="median", ties="higher") == 2 and one(0, 3, 3, method="median") == 3
    assert one(2, 0, 3, method="first") == 2
    big = 2 ** 62
    assert one(big, big, big + 1, method="mean") == big and one(big, big + 1, method="median", ties="higher") == big + 1


def test_bad_input_gives_clear_errors():
    frames = random_qrels(0, 2)
    with pytest.raises(ParameterError, match="method"):
        meta.combine_qrels(frames, "vote")
    with pytest.raises(ParameterError, match="ties"):
        meta.combine_qrels(frames, "mean", ties="first")
    with pytest.raises(ParameterError, match="ties"):
        meta.combine_qrels(frames, ties="random")
    with pytest.raises(ParameterError, match="pairs"):
        meta.combine_qrels(frames, pairs="common")
    with pytest.raises(ParameterError, match="at least one"):
        meta.combine_qrels([])
    with pytest.raises(ArgumentTypeError):
        meta.combine_qrels(frames[0])
    with pytest.raises(InputError, match="not an integer"):
        meta.combine_qrels([frames[0], frames[1].assign(relevance=0.5)])
    elsewhere = frames[1].assign(query_id=frames[1]["query_id"] + "-elsewhere")
    with pytest.raises(DataError, match="judged by all"):
        meta.combine_qrels([frames[0], elsewhere], pairs="intersection")
