"""Runs stored in shards of whole topics (ir_cwla.sharding, ir_cwla.meta.sharded).

Every layout is described without being read, each shard is read with every rule of ir_cwla.io, and
the per-topic values of a sharded run are bit for bit those of the run scored whole, in one process
(the reference is ``meta.evaluate`` of the run as one frame). The executors:
tests/test_sharding_dask.py.
"""
from __future__ import annotations

import gzip
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA, meta
from ir_cwla.errors import InputError
from ir_cwla.io import _sharding as sharding
from ir_cwla.meta import sharded
from tests import shards as layouts

#: Table 1 and what stresses the layout: whole rankings (no cutoff: ragged widths), 'pad' tails
#: (INST's series, AP's R), a cutoff deeper than most rankings, condensed lists, residuals, and
#: measures computed by trec_eval (pytrec_eval through ir-measures).
MEASURES = list(ir_cwla.table1()) + [
    CWLA(C="AP", A="ERG", tail="pad"), CWLA(C="INST", A="avg", tail="pad"), CWLA(C="RBP", A="ERG", tail="pad"),
    CWLA(C="ERR", A="max"), CWLA(C="DCG", A="ETG") @ 100, CWLA(C="RBP", A="ERG", unjudged="condense") @ 10,
    CWLA(C="INST", A="PE", unjudged="residual") @ 20, "nDCG@10", "AP", "P@5", "RR",
]


@pytest.fixture(scope="module")
def runs(synthetic_collection):
    return synthetic_collection.runs


@pytest.fixture(scope="module")
def qrels(synthetic_collection):
    return synthetic_collection.qrels


@pytest.fixture(scope="module")
def whole(runs, qrels):
    """Each synthetic run scored whole, in one process: the reference."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: meta.evaluate({name: run}, qrels, MEASURES, progress=False) for name, run in runs.items()}


def evaluate_quietly(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return meta.evaluate(*args, **kwargs)


@pytest.mark.parametrize("layout", [pytest.param(x, marks=pytest.mark.slow) if x == "partitions" else x
                                    for x in layouts.LAYOUTS])   # a Parquet file per topic: ~5 s
def test_a_sharded_run_scores_as_the_whole_run(layout, runs, qrels, whole, tmp_path):
    """A sharded run scores as the whole run.

    Every run kind (ties, float32 ties, duplicates, 1-4 documents, deep rankings, topics without
    qrels, qrels topics without lines), every layout, small shards: identical frames.
    """
    for name, run in runs.items():
        path = layouts.write(run, tmp_path / name, layout, parts=7)
        stored = sharding.shards(path, shard_bytes=sharding.shards(path).size // 5 + 1, name=name)
        assert len(stored) > 1, stored
        got = evaluate_quietly(stored, qrels, MEASURES, progress=False)
        pd.testing.assert_frame_equal(whole[name], got, check_exact=True)


def test_ties_float64_reach_every_measure_of_a_sharded_run(runs, qrels, tmp_path):
    """``ties='float64'`` reaches every measure of a sharded run.

    The C/W/L/A measures and the ir-measures ones (given the ranks of the float64 order) score
    as the whole run does, and unlike the float32 order.
    """
    run = runs["float32_ties"]
    path = layouts.write(run, tmp_path / "f32", "files", parts=7)
    stored = sharding.shards(path, shard_bytes=1, name="f32")
    assert len(stored) > 1
    for ties in ("float32", "float64"):
        want = evaluate_quietly({"f32": run}, qrels, MEASURES, progress=False, ties=ties)
        got = evaluate_quietly(stored, qrels, MEASURES, progress=False, ties=ties)
        pd.testing.assert_frame_equal(want, got, check_exact=True)
    f32, f64 = (evaluate_quietly(stored, qrels, MEASURES, progress=False, ties=t) for t in ("float32", "float64"))
    changed = set(f32.loc[f32["value"] != f64["value"], "measure"])
    assert "nDCG@10" in changed and any(m.startswith("CWLA(") for m in changed), changed


def test_the_shards_hold_whole_topics_and_every_line(runs, tmp_path):
    run = runs["deep"]
    for layout in layouts.LAYOUTS:
        stored = sharding.shards(layouts.write(run, tmp_path, layout, parts=9), shard_bytes=2000)
        frames = [sharding.read_shard(s, "deep") for s in stored]
        topics = [set(f["query_id"].tolist()) for f in frames]
        assert sum(map(len, topics)) == len(set().union(*topics)), layout         # no topic in two shards
        read = pd.concat(frames, ignore_index=True)
        expected = ir_cwla.io.as_run_frame(layouts.by_topic(run), "deep")
        key = ["query_id", "doc_id"]
        assert len(read) == len(expected)
        pd.testing.assert_frame_equal(read.sort_values(key).reset_index(drop=True)[["query_id", "doc_id", "score"]],
                                      expected.sort_values(key).reset_index(drop=True)[["query_id", "doc_id", "score"]],
                                      check_dtype=False, check_exact=True)
    assert {sharding.shards(tmp_path / "hive").layout, sharding.shards(tmp_path / "files").layout,
            sharding.shards(tmp_path / "run.parquet").layout, sharding.shards(tmp_path / "run.trec").layout} == \
        {"partitions", "files", "row_groups", "byte_ranges"}


def test_byte_ranges_are_cut_where_the_topic_changes(runs, tmp_path):
    path = layouts.write(runs["graded"], tmp_path, "byte_ranges")
    data = path.read_bytes()
    stored = sharding.shards(path, shard_bytes=700)
    pieces = [p for s in stored for p in s.pieces]
    assert pieces[0].start == 0 and pieces[-1].stop == len(data) and len(pieces) > 10
    for before, after in zip(pieces, pieces[1:]):
        assert before.stop == after.start and data[after.start - 1:after.start] == b"\n"
        last = data[:after.start].rstrip(b"\n").rsplit(b"\n", 1)[-1].split()[0]
        first = data[after.start:].split(b"\n", 1)[0].split()[0]
        assert last != first


def test_compressed_files_are_one_shard(runs, tmp_path):
    path = tmp_path / "run.gz"
    layouts.synthetic.write_trec_run(layouts.by_topic(runs["graded"]), path)
    assert len(sharding.shards(path, shard_bytes=100)) == 1


def test_parquet_row_groups_of_one_topic_are_never_split(runs, tmp_path):
    """Row groups whose topic statistics touch (a topic continued from one into the next) stay together."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ordered = layouts.by_topic(runs["graded"])[["query_id", "doc_id", "score"]].astype({"doc_id": str})
    topics = sorted(ordered["query_id"].unique())
    fourth = np.flatnonzero((ordered["query_id"] == topics[3]).to_numpy())
    cut, end = int(fourth[len(fourth) // 2]), int(fourth[-1]) + 1
    table = pa.Table.from_pandas(ordered, preserve_index=False)
    with pq.ParquetWriter(tmp_path / "run.parquet", table.schema) as writer:
        for a, b in ((0, cut), (cut, end), (end, len(ordered))):     # topic 4 continues into the second group
            writer.write_table(table.slice(a, b - a))
    stored = sharding.shards(tmp_path / "run.parquet", shard_bytes=1)
    assert [s.pieces[0].row_groups for s in stored] == [(0, 1), (2,)]
    assert stored[1].pieces[0].first_row == end
    held = [set(sharding.read_shard(s)["query_id"].tolist()) for s in stored]
    assert held == [set(topics[:4]), set(topics[4:])]


def test_one_topic_per_shard_is_scored_at_the_widths_of_the_whole_run(runs, qrels, whole, tmp_path, monkeypatch):
    """One topic per shard is scored at the widths of the whole run.

    A topic's value depends in its last bits on the width of the matrix it is scored in, which the
    whole run sets: shards of one topic, scored at their own widths, differ; the second pass at the
    whole run's widths gives the reference.
    """
    again = []
    original = sharded.rescoring

    def recording(results):
        tasks = original(results)
        again.extend(tasks)
        return tasks

    monkeypatch.setattr(sharded, "rescoring", recording)
    path = layouts.write(runs["deep"], tmp_path, "files", parts=10**6)           # one file per topic
    stored = sharding.shards(path, shard_bytes=1, name="deep")
    got = evaluate_quietly(stored, qrels, MEASURES, progress=False)
    pd.testing.assert_frame_equal(whole["deep"], got, check_exact=True)
    assert again, "no shard was scored again: the widths of one-topic shards matched the whole run's"
    # what the first pass alone would have given: some value differs in its last bits
    ctx = meta.evaluation.EvaluationContext(ir_cwla.io.as_qrels_frame(qrels), *meta.evaluation.as_measures(MEASURES))
    block = tuple(range(len(MEASURES)))
    first = [sharded.evaluate_shard({None: ctx}, sharded.ShardTask(None, "deep", s, block)) for s in stored]
    reference = whole["deep"].set_index(["qid", "measure"])["value"]
    differ = sum(int(reference.loc[(t, name)] != value)
                 for r in first for name, values in r.values.items() for t, value in zip(r.topics, values))
    assert differ > 0


def test_a_topic_in_two_shards_is_refused(runs, qrels, tmp_path):
    folder = tmp_path / "split"
    folder.mkdir()
    run = layouts.by_topic(runs["graded"])
    topic = run["query_id"].iloc[0]
    rows = np.flatnonzero((run["query_id"] == topic).to_numpy())
    layouts.synthetic.write_trec_run(run.iloc[: rows[2]], folder / "a.trec")
    layouts.synthetic.write_trec_run(run.iloc[rows[2]:], folder / "b.trec")
    with pytest.raises(InputError, match=f"topic '{topic}' is in two shards.*a.trec.*b.trec"):
        evaluate_quietly(sharding.shards(folder, shard_bytes=1), qrels, ["nDCG@10"], progress=False)
    with pytest.raises(InputError, match=f"topic '{topic}' is in two pieces"):       # the two files in one shard
        evaluate_quietly(sharding.shards(folder), qrels, ["nDCG@10"], progress=False)


def test_errors_name_the_line_and_the_row_of_the_whole_file(runs, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = layouts.write(runs["graded"], tmp_path, "byte_ranges")
    lines = path.read_text().splitlines(keepends=True)
    bad = len(lines) - 3
    lines[bad] = lines[bad].replace(" Q0 ", " ")
    path.write_text("".join(lines))
    stored = sharding.shards(path, shard_bytes=800)
    with pytest.raises(InputError, match=rf"{path}:{bad + 1}: expected 6 whitespace-separated fields"):
        for shard in stored:
            sharding.read_shard(shard)
    ordered = layouts.by_topic(runs["graded"])[["query_id", "doc_id", "score"]].astype({"doc_id": str})
    ordered.loc[len(ordered) - 5, "score"] = np.nan
    table = pa.Table.from_pandas(ordered, preserve_index=False)
    pq.write_table(table, tmp_path / "bad.parquet", row_group_size=200)
    with pytest.raises(InputError, match=rf"row {len(ordered) - 4}: score nan is not finite"):
        for shard in sharding.shards(tmp_path / "bad.parquet", shard_bytes=1):
            sharding.read_shard(shard)


def test_a_partition_holds_its_own_topic_only(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "query_id=7").mkdir()
    pq.write_table(pa.table({"query_id": ["8"], "doc_id": ["d"], "score": [1.0]}), tmp_path / "query_id=7" / "p.parquet")
    with pytest.raises(InputError, match="topic '8' in the partition of topic '7'"):
        sharding.read_shard(sharding.shards(tmp_path)[0])
    (tmp_path / "other").mkdir()
    with pytest.raises(InputError, match="not a Hive partition"):
        sharding.shards(tmp_path)


def test_cli_n_jobs_prints_what_the_whole_file_prints(synthetic_files, tmp_path):
    """``ir-cwla eval QRELS SHARDED --n-jobs 1`` (in-process, shard by shard).

    The same lines as the whole file, per query and summary (--n-jobs 2 and --scheduler:
    tests/test_sharding_dask.py).
    """
    source = synthetic_files.runs["float32_ties"]
    opener = gzip.open if str(source).endswith(".gz") else open
    with opener(source, "rt") as f:
        run = pd.read_csv(f, sep=" ", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                          dtype={"query_id": str, "doc_id": str})
    folder = layouts.write(run, tmp_path, "files")
    measures = ["-m", "nDCG@10", "RBP_max@10", "AP_ERG[pad]", "INST_avg[pad]"]

    def eval_(target, *extra):
        out = subprocess.run([sys.executable, "-m", "ir_cwla", "eval", str(synthetic_files.qrels), str(target), "-q",
                              "--format", "csv", *measures, *extra], capture_output=True, text=True, check=True)
        return pd.read_csv(pd.io.common.StringIO(out.stdout), dtype={"qid": str}).drop(columns="name"), out.stderr

    expected, _ = eval_(source)
    got, stderr = eval_(folder, "--n-jobs", "1")
    pd.testing.assert_frame_equal(expected, got, check_exact=True)
    assert "answers" in stderr                   # the topics are checked once the shards are read


def test_cli_refuses_what_shards_cannot_do(synthetic_files):
    out = subprocess.run([sys.executable, "-m", "ir_cwla", "eval", str(synthetic_files.qrels),
                          str(synthetic_files.runs["graded"]), "--n-jobs", "2", "--judged", "10"],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "--judged is not available with --scheduler/--n-jobs" in out.stderr


def test_to_cube_by_measure_is_a_pivot_of_the_frame():
    """The cube built one measure at a time is a pivot of the frame.

    The cube built one measure at a time against pandas' pivot, on a shuffled frame whose labels
    mix types (``1`` and ``'1'`` are one label).
    """
    rng = np.random.default_rng(4)
    names, topics, measures = ["b", "a", "c"], [1, "2", 10], ["nDCG@10", "AP", "RBP_max@10"]
    rows = [(n, t, m, float(rng.random())) for n in names for t in topics for m in measures]
    frame = pd.DataFrame(rows, columns=["name", "qid", "measure", "value"], dtype=object).sample(frac=1, random_state=1)
    frame["value"] = frame["value"].astype(float)
    cube = meta.to_cube(frame)
    pivot = frame.assign(qid=frame["qid"].astype(str)).pivot_table(index=["measure", "qid"], columns="name",
                                                                   values="value")
    for i, m in enumerate(cube.measures):
        expected = pivot.loc[m].loc[list(cube.topics), list(cube.systems)].to_numpy()
        np.testing.assert_array_equal(cube.values[i], expected)
    assert cube.topics == ("1", "10", "2") and cube.systems == ("a", "b", "c")
