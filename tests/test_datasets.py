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


# ------------------------------------------------------------------------- any ir_datasets id, offline

LOCAL_ID = "ir-cwla-test/dl19-local"
LOCAL = r"""
import contextlib, io, json, sys, warnings
import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import TrecQrels, TrecScoredDocs, TsvQueries
from ir_datasets.util import LocalDownload

qrels_path, run_path, topics_path, dataset_id = sys.argv[1:5]
ir_datasets.registry.register(dataset_id, Dataset(
    TrecQrels(LocalDownload(qrels_path), {0: "not", 1: "related", 2: "highly", 3: "perfectly"}),
    TrecScoredDocs(LocalDownload(run_path)), TsvQueries(LocalDownload(topics_path))))

import ir_measures, pyterrier as pt
import ir_cwla
from ir_cwla import CWLA, meta
from ir_cwla.app.cli import main

ID = "irds:" + dataset_id
RBP = CWLA(C="RBP", A="max") @ 10
out = {}
frame = meta.evaluate({"run": ID}, ID, [ir_measures.nDCG @ 10, RBP], progress=False)
out["meta.evaluate"] = frame.groupby("measure").value.mean().to_dict()
out["provider"] = {str(m): v for m, v in ir_cwla.PROVIDER.calc_aggregate([RBP], ID, ID).items()}
from ir_cwla import datasets
loaded = datasets.load_qrels(ID)
out["load_qrels"] = {"columns": list(loaded.columns), "dtype": str(loaded.relevance.dtype),
                     "equal": sorted(loaded.itertuples(index=False, name=None))
                     == sorted(ir_cwla.io.read_trec_qrels(qrels_path).itertuples(index=False, name=None))}


def cli(*argv):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        code = main(list(argv))
    return {"code": code, "out": o.getvalue(), "err": e.getvalue()}


out["eval"] = cli("eval", ID, ID, "-m", "nDCG@10", "RBP_max@10")
out["measures"] = cli("measures", dataset_id, run_path, "nDCG@10", "RBP_max@10")
ds = pt.get_dataset(ID)
run = pd_run = ds.get_results() if hasattr(ds, "get_results") else None
import pandas as pd
run = pd.DataFrame(ir_datasets.load(dataset_id).scoreddocs_iter()).rename(columns={"query_id": "qid", "doc_id": "docno"})
topics = ds.get_topics()
res = pt.Experiment([pt.Transformer.from_df(run)], topics, ds.get_qrels(), eval_metrics=[ir_measures.nDCG @ 10, RBP],
                    names=["run"])
out["pt.Experiment"] = {str(k): float(res[str(k)].iloc[0]) for k in (ir_measures.nDCG @ 10, RBP)}
out["offline"] = cli("eval", "irds:msmarco-passage/trec-dl-2019/judged", run_path, "-m", "nDCG@10")
out["offline_measures"] = cli("measures", "msmarco-passage/trec-dl-2019/judged", run_path, "nDCG@10")
import os
out["home"] = os.environ["IR_DATASETS_HOME"]

# raw Cranfield qrels (PyTerrier's) with graded measures: one warning pointing to cranfield_qrels()
from ir_cwla import datasets
datasets.ensure_cranfield()
raw = pt.get_dataset("irds:cranfield").get_qrels()
cran_run = pd.DataFrame({"qid": raw.qid, "docno": raw.docno, "score": 1.0})
cases = {"graded": (raw, [RBP]), "binary only": (raw, ["P@10", CWLA(C="RBP", A="max", rel=1) @ 10]),
         "remapped": (datasets.cranfield_qrels(), [RBP])}
out["cranfield"] = {}
for case, (qrels, measures) in cases.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        meta.evaluate({"r": cran_run}, qrels, measures, progress=False)
    out["cranfield"][case] = [str(w.message) for w in caught if w.category.__name__ == "RawCranfieldWarning"]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    pt.Experiment([pt.Transformer.from_df(cran_run)], pt.get_dataset("irds:cranfield").get_topics(), raw,
                  eval_metrics=[RBP])
out["cranfield"]["pt.Experiment"] = [str(w.message) for w in caught if w.category.__name__ == "RawCranfieldWarning"]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def local_dataset(tmp_path_factory, dl19_dir, dl19_qrels_path) -> dict:
    import gzip

    tmp = tmp_path_factory.mktemp("irds-local")
    run = tmp / "run.txt"
    run.write_bytes(gzip.decompress((dl19_dir / "runs" / "input.ICT-BERT2.gz").read_bytes()))
    proc = run_offline_code(LOCAL, tmp, str(dl19_qrels_path), str(run), str(dl19_dir / "topics.dl19-passage.txt"),
                            LOCAL_ID, timeout=1200)
    result = json.loads(proc.stdout.splitlines()[-1])
    result["run_path"] = str(run)
    return result


@pytest.mark.slow   # shares an offline child process running PyTerrier
def test_a_local_ir_datasets_id_works_on_every_path(local_dataset, dl19_dir, dl19_qrels_path):
    """A dataset registered from local files (not Cranfield) through ``irds:<id>``.

    The Python API, ir-measures with our provider, the command line and pt.get_dataset
    all give the numbers ir-measures computes from the files themselves.
    """
    import ir_measures

    import ir_cwla
    from ir_cwla import CWLA

    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    run = ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.ICT-BERT2.gz")
    rbp = CWLA(C="RBP", A="max") @ 10
    expected = {str(m): v for m, v in ir_measures.calc_aggregate([ir_measures.nDCG @ 10, rbp], qrels, run).items()}
    assert round(expected["nDCG@10"], 4) == 0.6650
    for path in ("meta.evaluate", "pt.Experiment"):
        assert local_dataset[path] == pytest.approx(expected, abs=1e-12), path
    assert local_dataset["provider"] == pytest.approx({str(rbp): expected[str(rbp)]}, abs=1e-12)
    # load_qrels on an irds: id gives the checked frame the TREC reader gives for the file
    assert local_dataset["load_qrels"] == {"columns": ["query_id", "doc_id", "relevance"], "dtype": "int64",
                                           "equal": True}
    lines = [f"{'runid':<22}\tall\tirds:{LOCAL_ID}", f"{'nDCG@10':<22}\tall\t{expected['nDCG@10']:.4f}",
             f"{'RBP_max@10':<22}\tall\t{expected[str(rbp)]:.4f}"]
    assert local_dataset["eval"] == {"code": 0, "out": "\n".join(lines) + "\n", "err": ""}
    assert local_dataset["measures"] == {"code": 0, "err": "", "out": f"nDCG@10\t{expected['nDCG@10']:.4f}\n"
                                         f"{rbp}\t{expected[str(rbp)]:.4f}\n"}


@pytest.mark.slow   # shares an offline child process running PyTerrier
def test_a_failed_download_is_one_line_that_says_what_to_do(local_dataset):
    target = Path(local_dataset["home"]) / "msmarco-passage" / "trec-dl-2019" / "qrels"
    for case, prog, spec in (("offline", "eval", "irds:msmarco-passage/trec-dl-2019/judged"),
                             ("offline_measures", "measures", "irds:msmarco-passage/trec-dl-2019/judged")):
        got = local_dataset[case]
        assert got["code"] == 1 and got["out"] == ""
        assert got["err"] == (
            f"ir-cwla {prog}: error: {spec}: ir_datasets could not download the qrels of "
            "'msmarco-passage/trec-dl-2019/judged' from https://trec.nist.gov/data/deep/2019qrels-pass.txt "
            f"(ConnectionError). Offline, pass a TREC qrels file instead of {spec}, or place the file at {target} "
            "(ir_datasets then reads it without downloading)\n")


@pytest.mark.slow   # shares an offline child process running PyTerrier
def test_raw_cranfield_qrels_with_graded_measures_warn(local_dataset):
    warned = local_dataset["cranfield"]
    assert len(warned["graded"]) == 1 and "use ir_cwla.datasets.cranfield_qrels()" in warned["graded"][0]
    assert "look like the raw Cranfield judgments (grade -1 once per topic" in warned["graded"][0]
    assert warned["binary only"] == [] and warned["remapped"] == []
    assert len(warned["pt.Experiment"]) == 1            # through ir-measures' provider too


def test_raw_cranfield_signature():
    frame = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "c", "d"],
                          "relevance": [-1, 2, -1, 4]})
    assert datasets.looks_raw(frame)
    assert not datasets.looks_raw(frame.assign(relevance=[-1, 2, 0, 4]))      # topic 2 lacks its -1
    assert not datasets.looks_raw(frame.assign(relevance=[-1, 5, -1, 4]))     # a grade Cranfield never has
    assert not datasets.looks_raw(datasets.remap_cranfield_grades(frame))
