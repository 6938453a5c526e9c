"""A seeded generator of TREC-like test collections, so that the reference checks run on every clone.

The real TREC DL 2019 data may not be copied into the project (see ``tests/conftest.py``), so
the slow loop reference and the equivalence checks also run on a synthetic collection that
packs every awkward case of real runs into a few thousand lines:

- graded qrels over ``n_topics`` topics, grades 0-4 (4 occurs), a few judgments of -1 (graded
  0), a topic whose judgments are all 0 (no relevant document) and one judged on a single
  document;
- runs of different kinds (:data:`RUN_KINDS`), each answering most qrels topics: every run
  leaves some qrels topics out, answers two topics absent from the qrels, ranks unjudged
  documents next to judged ones, has rankings of very different lengths (1 to ``max_depth``),
  and is written in a shuffled line order (the ranking is by score, not by line);
- doc_ids ``D<n>`` without zero padding, so string order (trec_eval's tie-break) differs from
  numeric order.

:func:`make_collection` is exactly reproducible with its seed (numpy's ``default_rng``);
:meth:`Collection.write` writes TREC files, half the runs gzipped, half plain.
"""
from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20190
"""The seed of the collection the tests share (``synthetic_collection`` in conftest)."""

RUN_KINDS = {
    "graded": "distinct float64 scores that follow the grades, with noise",
    "ties": "integer scores 0-5: large groups of exactly tied scores, ordered by doc_id",
    "float32_ties": "groups of scores equal in float32 but not in float64, the float64 order the "
                    "reverse of the doc_id order, and documents of different grades within a group",
    "duplicates": "some doc_ids listed twice within a topic, the repeat scored higher or lower",
    "short": "1-4 documents per topic (shorter than any cutoff)",
    "deep": "long rankings (up to twice max_depth), mostly unjudged past the pool",
}
"""The run names of a collection and what each exercises."""

GRADE_PROBABILITIES = (0.42, 0.22, 0.16, 0.12, 0.08)   # grades 0..4


@dataclass
class Files:
    """A collection written as TREC files."""

    qrels: Path
    runs: dict[str, Path]
    topics: Path


@dataclass
class Collection:
    """A synthetic collection: qrels, runs and topics as DataFrames.

    Qrels (``query_id, doc_id, relevance``), runs (``query_id, doc_id, score``, file order)
    and topics (``qid, query``, PyTerrier's topics frame) as DataFrames.
    """

    qrels: pd.DataFrame
    runs: dict[str, pd.DataFrame]
    topics: pd.DataFrame

    def write(self, directory: Path) -> Files:
        """``qrels.txt``, ``topics.tsv`` and ``runs/input.NAME[.gz]`` (every other run gzipped)."""
        directory = Path(directory)
        (directory / "runs").mkdir(parents=True, exist_ok=True)
        qrels_path = directory / "qrels.txt"
        write_trec_qrels(self.qrels, qrels_path)
        topics_path = directory / "topics.tsv"
        self.topics.to_csv(topics_path, sep="\t", header=False, index=False)
        paths = {}
        for i, (name, run) in enumerate(self.runs.items()):
            paths[name] = directory / "runs" / (f"input.{name}.gz" if i % 2 == 0 else f"input.{name}")
            write_trec_run(run, paths[name], name)
        return Files(qrels_path, paths, topics_path)


def write_trec_run(run: pd.DataFrame, path: Path, name: str = "synthetic") -> None:
    """Writes a TREC run file in the frame's row order.

    A TREC run file (``qid Q0 docno rank score runid``) in the frame's row order, gzipped
    if ``path`` ends in ``.gz``; scores written with ``repr`` (exact round trip).
    """
    rank = run.groupby("query_id", sort=False).cumcount() + 1
    lines = [f"{q} Q0 {d} {r} {s!r} {name}\n"
             for q, d, r, s in zip(run["query_id"], run["doc_id"], rank, run["score"].astype(float))]
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt") as f:
        f.writelines(lines)


def write_trec_qrels(qrels: pd.DataFrame, path: Path) -> None:
    """A TREC qrels file (``qid 0 docno grade``)."""
    with open(path, "w") as f:
        f.writelines(f"{q} 0 {d} {int(g)}\n" for q, d, g in qrels.itertuples(index=False))


def deduplicated(run: pd.DataFrame) -> pd.DataFrame:
    """The run with each (query_id, doc_id) kept once, on its best-scored line (file order kept).

    For comparisons with other tools: trec_eval keeps the *last* line of a repeated doc_id
    and ir_cwla the best-scored one, so both are given the same deduplicated run.
    """
    best = run.sort_values("score", ascending=False, kind="stable").drop_duplicates(["query_id", "doc_id"])
    return run.loc[sorted(best.index)].reset_index(drop=True)


def make_collection(seed: int = SEED, n_topics: int = 40, max_depth: int = 120,
                    doc_universe: int = 6000) -> Collection:
    """A synthetic collection: qrels, one run per entry of :data:`RUN_KINDS`, topics.

    The same seed gives the same frames, byte for byte.
    """
    rng = np.random.default_rng(seed)
    topic_ids = [str(t) for t in rng.choice(np.arange(1, 3000), n_topics, replace=False)]
    pools: dict[str, tuple[np.ndarray, np.ndarray]] = {}    # topic -> (judged doc_ids, grades)
    rows = []
    for k, qid in enumerate(topic_ids):
        n_judged = 1 if k == 1 else int(rng.integers(8, 60))
        docs = np.array([f"D{n}" for n in rng.choice(doc_universe, n_judged, replace=False)], dtype=object)
        grades = rng.choice(5, n_judged, p=GRADE_PROBABILITIES)
        if k == 0:
            grades[:] = 0                  # a topic without any relevant document
        elif k == 1:
            grades[:] = 2                  # a topic judged on one document
        elif k == 2:
            grades[0] = 4                  # the maximum grade occurs
        elif k in (3, 4, 5):
            grades[-1] = -1                # a negative grade (graded 0)
        pools[qid] = (docs, grades)
        rows += zip([qid] * n_judged, docs, grades)
    qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]).astype({"relevance": np.int64})

    unjudged_topics = [str(t) for t in rng.choice(np.arange(3000, 4000), 2 * len(RUN_KINDS), replace=False)]
    runs = {}
    for r, kind in enumerate(RUN_KINDS):
        answered = [q for q in topic_ids if rng.random() > 0.1] or topic_ids[:1]
        answered += unjudged_topics[2 * r:2 * r + 2]
        frames = [_ranking(rng, kind, qid, pools.get(qid), max_depth, doc_universe) for qid in answered]
        run = pd.concat(frames, ignore_index=True)
        runs[kind] = run.iloc[rng.permutation(len(run))].reset_index(drop=True)

    words = np.array(["flow", "wing", "heat", "shock", "boundary", "layer", "plate", "supersonic", "load"])
    topics = pd.DataFrame({"qid": topic_ids,
                           "query": [" ".join(rng.choice(words, 3)) for _ in topic_ids]})
    return Collection(qrels, runs, topics)


def _ranking(rng: np.random.Generator, kind: str, qid: str, pool, max_depth: int,
             doc_universe: int) -> pd.DataFrame:
    """One topic's lines of a run of the given kind."""
    judged, grades = pool if pool is not None else (np.array([], dtype=object), np.array([], dtype=np.int64))
    if kind == "short":
        length = int(rng.integers(1, 5))
    elif kind == "deep":
        length = int(rng.integers(max_depth, 2 * max_depth))
    else:
        length = int(rng.integers(1, max_depth + 1))
    n_judged = min(len(judged), int(rng.integers(0, length + 1)) if kind != "deep" else len(judged))
    pick = rng.choice(len(judged), n_judged, replace=False)
    n_other = max(length - n_judged, 0)
    others = {f"D{n}" for n in rng.choice(doc_universe, n_other + 10, replace=False)} - set(judged)
    docs = np.concatenate([judged[pick], np.array(sorted(others)[:n_other], dtype=object)])
    grade = np.concatenate([np.maximum(grades[pick], 0), np.zeros(len(docs) - n_judged)]).astype(float)

    if kind == "ties":
        scores = np.clip(np.round(grade + rng.normal(0, 1.2, len(docs))), 0, 5)
    elif kind == "float32_ties":
        scores = _float32_tie_scores(rng, docs, grade)
    else:
        scores = 2.0 * grade + rng.normal(0, 2.0, len(docs)) - 5.0    # negative scores too
    frame = pd.DataFrame({"query_id": qid, "doc_id": docs, "score": scores})
    if kind == "duplicates" and len(docs) >= 2:
        repeat = frame.sample(n=min(3, len(docs) // 2 + 1), random_state=int(rng.integers(1 << 31)))
        repeat = repeat.assign(score=repeat["score"] + rng.choice([-3.0, 3.0], len(repeat)))
        frame = pd.concat([frame, repeat], ignore_index=True)
    return frame


def _float32_tie_scores(rng: np.random.Generator, docs: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """Scores that tie in float32 but not in float64, in groups of 2-4 documents.

    Scores in groups of 2-4 documents that are equal in float32 (trec_eval's precision) but
    distinct in float64, the highest float64 score on the smallest doc_id, so that ranking by
    float64 reverses trec_eval's doc_id-descending order within a group. Groups are random (so
    most mix grades) and ranked by their mean grade, with noise.
    """
    n = len(docs)
    perm = rng.permutation(n)
    groups = []
    i = 0
    while i < n:
        size = int(rng.integers(2, 5))
        groups.append(perm[i:i + size])
        i += size
    merit = np.array([grade[g].mean() for g in groups]) + rng.normal(0, 0.7, len(groups))
    bases = np.sort(rng.choice(np.arange(1, 100000), len(groups), replace=False))[::-1] / 1000.0
    scores = np.empty(n)
    for base, members in zip(bases, [groups[k] for k in np.argsort(-merit, kind="stable")]):
        b = np.float32(base)
        ulp = float(np.spacing(b))
        by_id = members[np.argsort(docs[members])]           # doc_id ascending
        for j, m in enumerate(by_id):                         # smallest doc_id: largest float64 score
            scores[m] = float(b) + (len(by_id) - 1 - j) * ulp / 8
    return scores
