"""The bundled Cranfield: placed in a fresh ir_datasets cache offline, and its two pitfalls.

Everything that touches the ir_datasets cache runs once, in a child process with a
temporary ``IR_DATASETS_HOME`` and sockets disabled (see ``tests/offline.py``); the
assertions compare what it wrote with independent parses of the raw Cranfield files of
the real data (the ``cranfield_dir`` fixture of tests/conftest.py).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from ir_cwla import datasets
from tests.offline import NO_NETWORK_MESSAGE, run_offline_code

PROBE = r"""
import json, socket, sys
from pathlib import Path
out = Path(sys.argv[1])
try:
    socket.create_connection(("example.org", 80))
    blocked = ""
except OSError as ex:
    blocked = str(ex)
from ir_cwla import datasets
first = datasets.ensure_cranfield()
mtime = first.stat().st_mtime_ns
second = datasets.ensure_cranfield()
import ir_datasets
import pyterrier as pt
n_docs = sum(1 for _ in ir_datasets.load("cranfield").docs_iter())
p = pt.get_dataset("irds:cranfield")
p.get_topics().to_csv(out / "pt_topics.csv", index=False)
p.get_qrels().to_csv(out / "pt_qrels.csv", index=False)
for convention in ("nonrel", "drop", "max"):
    datasets.cranfield_qrels(convention).to_csv(out / f"qrels_{convention}.csv", index=False)
datasets.load_qrels("irds:cranfield").to_csv(out / "load_qrels.csv", index=False)
datasets.cranfield_topics().to_csv(out / "topics.csv", index=False)
json.dump({"blocked": blocked, "archive": str(first), "same_path": first == second,
           "untouched": second.stat().st_mtime_ns == mtime, "n_docs": n_docs}, open(out / "info.json", "w"))
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("cranfield-offline")
    out = tmp / "out"
    out.mkdir()
    run_offline_code(PROBE, tmp, str(out))
    return out


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"query_id": str, "doc_id": str, "qid": str, "docno": str})


def _raw_cranqrel(cranfield_dir: Path) -> list[tuple[str, str, int]]:
    rows = []
    for line in (cranfield_dir / "cranqrel").read_text().splitlines():
        if line.strip():
            q, d, g = line.split()
            rows.append((q, d, int(g)))
    return rows


def test_archive_is_placed_in_a_fresh_cache_without_network(probe, tmp_path_factory):
    info = json.loads((probe / "info.json").read_text())
    assert NO_NETWORK_MESSAGE in info["blocked"]             # the child really had no network
    archive = Path(info["archive"])
    assert archive == probe.parent / "irds" / "cranfield" / "cran.tar.gz"
    assert archive.read_bytes() == datasets.bundled_cranfield_archive().read_bytes()
    assert info["same_path"] and info["untouched"]           # a second call leaves the copy alone
    assert info["n_docs"] == 1400
    assert len(_read(probe / "pt_topics.csv")) == 225        # pt.get_dataset('irds:cranfield') works
    assert len(_read(probe / "pt_qrels.csv")) == 1837
    assert not list(archive.parent.glob(".cran.*.tmp"))      # no temporary copy left behind


def test_bundled_archive_is_the_shared_one(cranfield_dir):
    digest = [hashlib.md5(p.read_bytes()).hexdigest()
              for p in (datasets.bundled_cranfield_archive(), cranfield_dir / "cran.tar.gz")]
    assert digest[0] == digest[1]


def test_qrels_are_remapped_with_grade_minus_one_non_relevant(probe, cranfield_dir):
    expected = {(q, d, {1: 4, 2: 3, 3: 2, 4: 1, -1: 0}[g]) for q, d, g in _raw_cranqrel(cranfield_dir)}
    got = _read(probe / "qrels_nonrel.csv")
    assert list(got.columns) == ["query_id", "doc_id", "relevance"]
    assert len(got) == 1837
    assert set(got.itertuples(index=False, name=None)) == expected
    assert got.relevance.value_counts().to_dict() == {0: 225, 1: 363, 2: 734, 3: 387, 4: 128}
    # the CLI's route (load_qrels on an irds: id) applies the same conventions
    pd.testing.assert_frame_equal(_read(probe / "load_qrels.csv"), got)


def test_other_grade_minus_one_conventions(probe, cranfield_dir):
    raw = _raw_cranqrel(cranfield_dir)
    minus_one = {(q, d) for q, d, g in raw if g == -1}
    assert len(minus_one) == 225 and len({q for q, _ in minus_one}) == 225   # one per query
    dropped = _read(probe / "qrels_drop.csv")
    assert len(dropped) == 1837 - 225
    assert not minus_one & set(zip(dropped.query_id, dropped.doc_id))
    top = _read(probe / "qrels_max.csv")
    assert set(top[top.relevance == 4][["query_id", "doc_id"]].itertuples(index=False, name=None)) == \
        minus_one | {(q, d) for q, d, g in raw if g == 1}


def test_binary_relevance_is_the_same_as_ir_datasets(probe):
    """The remap only reorders grades 1..4, so rel >= 1 is the set ir_datasets' raw qrels give."""
    raw = _read(probe / "pt_qrels.csv")
    ours = _read(probe / "qrels_nonrel.csv")
    assert set(raw[raw.label >= 1][["qid", "docno"]].itertuples(index=False, name=None)) == \
        set(ours[ours.relevance >= 1][["query_id", "doc_id"]].itertuples(index=False, name=None))


def test_topics_match_cran_qry(probe, cranfield_dir):
    blocks = (cranfield_dir / "cran.qry").read_text().split(".I ")[1:]
    texts = [" ".join(b.split(".W", 1)[1].split()) for b in blocks]
    topics = _read(probe / "topics.csv")
    assert list(topics.columns) == ["qid", "query"]
    assert topics.qid.tolist() == [str(i) for i in range(1, 226)]   # ir_datasets renumbers 1..225
    assert [" ".join(t.split()) for t in topics["query"]] == texts


def test_remap_rejects_unknown_grades_and_conventions(cranfield_dir):
    raw = pd.DataFrame(_raw_cranqrel(cranfield_dir), columns=["query_id", "doc_id", "relevance"])
    remapped = datasets.remap_cranfield_grades(raw)
    assert (remapped.relevance + raw.relevance == 5)[raw.relevance > 0].all()
    with pytest.raises(ValueError, match=r"not Cranfield grades .*\[5\]"):
        datasets.remap_cranfield_grades(raw.assign(relevance=raw.relevance.replace(4, 5)))
    with pytest.raises(ValueError, match="minus_one must be one of"):
        datasets.remap_cranfield_grades(raw, minus_one="zero")


def test_load_qrels_reads_trec_files_unchanged(dl19_qrels_path):
    rows = [line.split() for line in dl19_qrels_path.read_text().splitlines() if line.strip()]
    got = datasets.load_qrels(str(dl19_qrels_path))
    assert list(got.itertuples(index=False, name=None)) == [(q, d, int(g)) for q, _, d, g in rows]


def test_dataset_ids():
    assert datasets.dataset_id("irds:cranfield") == "cranfield"
    assert datasets.dataset_id("irds:msmarco-passage/trec-dl-2019/judged") == "msmarco-passage/trec-dl-2019/judged"
    assert datasets.dataset_id("cranfield") is None
