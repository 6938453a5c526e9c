"""trec_eval's measures computed by ir-cwla's kernels, against trec_eval itself and against pytrec_eval.

- every kernel (ir_cwla.scoring._trec_kernels, through the provider of ir_cwla.provider._trec_provider) against
  trec_eval 10.0 and 9.0.8 built from their sources in tests/data/trec_eval (``trec_eval_build``,
  tests/trec_eval_build.py: skipped only without make or a C compiler, or if the build fails),
  per topic at trec_eval's printed precision, on the synthetic collection and the 37 DL19 runs,
  under -l, -J and -M;
- where trec_eval 9 and 10 agree, against pytrec_eval (trec_eval 9.0.8 inside ir-measures) to
  1e-12, on every clone;
- the rules around them: trec_eval's names (ir_cwla.measures._trec_names), the 9/10 switch, the values of
  a topic a run does not answer, the -m words of the command line.
"""
from __future__ import annotations

import gzip
import subprocess
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla.app import trec_eval_cli
from ir_cwla.app.evaluate import with_relevance_level
from ir_cwla.errors import InputWarning, MeasureSyntaxError, ParameterError
from ir_cwla.measures import _trec_measures as tm
from ir_cwla.measures import _trec_names as trec_names
from ir_cwla.provider import _trec_provider as trec_provider
from ir_cwla.scoring import _trec_kernels as K
from ir_cwla.scoring import trec_eval_semantics
from tests import synthetic

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"


def _read(path: Path, names: list[str]) -> pd.DataFrame:
    frame = pd.read_csv(path, sep=r"\s+", header=None, comment=None, dtype=str, engine="c").iloc[:, :len(names)]
    frame.columns = names
    return frame


_QRELS: dict[Path, pd.DataFrame] = {}


def _frames(qrels_path: Path, run_path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    if qrels_path not in _QRELS:
        qrels = _read(qrels_path, ["query_id", "iteration", "doc_id", "relevance"])
        _QRELS[qrels_path] = qrels.assign(relevance=qrels["relevance"].astype("int64"))
    run = _read(run_path, ["query_id", "iteration", "doc_id", "rank", "score"])
    return _QRELS[qrels_path], run.assign(score=run["score"].astype("float64"))


def _trec_eval(binary: Path, args: list[str], qrels: Path, run: Path) -> dict[tuple[str, str], str]:
    out = subprocess.run([str(binary), "-q", *args, str(qrels), str(run)], capture_output=True, text=True, check=True)
    values = {}
    for line in out.stdout.splitlines():
        name, qid, value = line.split("\t")
        values[(name.strip(), qid)] = value
    return values


def _printed(entry: trec_names.Selected, value: float) -> str:
    from ir_cwla.app.trec_eval_format import printed
    return printed(entry, value)


#: trec_eval's measures whose kernels are ir-cwla's (the rest comes from pytrec_eval); unj, rbp and rbp_resid are 10's
KERNEL_MEASURES = (["iprec_at_recall", "11pt_avg", "Rprec_mult", "utility", "gm_map", "gm_bpref", "binG", "G",
                    "ndcg_rel", "Rndcg", "relative_P", "num_nonrel_judged_ret", "num_ret", "num_rel", "num_rel_ret"],
                   ["ndcg.1=3,2=9,4=4.5", "G.1=2,2=5.5", "11pt_avg.0.5,.2,.9", "utility.2,-1,0.5,0",
                    "iprec_at_recall..25,.35,.75", "Rprec_mult.0.3,3", "ndcg_rel.0=1,3=1.5", "Rndcg.2=7"])
KERNEL_MEASURES_10 = (["unj", "rbp", "rbp_resid"], ["rbp.p=0.5", "rbp_resid.p=0.3", "unj.1,3,2000"])


def _compare(version: int, binary: Path, qrels_path: Path, run_path: Path, level: int = 1,
             flags: tuple[str, ...] = ()) -> int:
    """Every kernel's value per topic against trec_eval's (defaults, then given parameters); values compared."""
    return sum(_compare_words(version, binary, qrels_path, run_path, level, flags,
                              KERNEL_MEASURES[i] + (KERNEL_MEASURES_10[i] if version == 10 else [])) for i in (0, 1))


def _compare_words(version: int, binary: Path, qrels_path: Path, run_path: Path, level: int,
                   flags: tuple[str, ...], words: list[str]) -> int:
    selection = trec_names.select(words, level)
    args = [a for w in words for a in ("-m", w)] + [f"-l{level}", "-c", *flags]
    expected = _trec_eval(binary, args, qrels_path, run_path)
    qrels, run = _frames(qrels_path, run_path)
    rr = trec_provider.TrecEvalEvaluator([], qrels, version).res_rels(run)
    if "-M" in flags:
        rr = rr.top(int(flags[flags.index("-M") + 1]))
    if "-J" in flags:
        rr = rr.judged_only()
    measures = [with_relevance_level([s.measure], level)[0] for s in selection.values
                if s.measure is not None]
    values = trec_provider.scores(rr, measures, version)
    answered = set(run["query_id"])
    compared = 0
    for entry, measure in zip([s for s in selection.values if s.measure is not None], measures):
        for qid, value in zip(rr.topics.tolist(), values[measure].tolist()):
            if not entry.per_query or qid not in answered:
                continue
            assert _printed(entry, value) == expected[(entry.name, qid)], (entry.name, qid, measure)
            compared += 1
    return compared


@pytest.fixture(scope="module")
def synthetic_trec_files(synthetic_collection, tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    """The synthetic collection as plain TREC files, each run without repeated doc_ids (trec_eval refuses them)."""
    where = tmp_path_factory.mktemp("synthetic-trec-eval")
    qrels = where / "qrels.txt"
    synthetic.write_trec_qrels(synthetic_collection.qrels, qrels)
    runs = {}
    for name, run in synthetic_collection.runs.items():
        runs[name] = where / f"{name}.run"
        synthetic.write_trec_run(synthetic.deduplicated(run), runs[name], name)
    return qrels, runs


@pytest.mark.parametrize("level, flags", [(1, ()), (2, ()), (1, ("-J",)), (3, ("-M", "20", "-J"))],
                         ids=["l1", "l2", "J", "l3-M20-J"])
def test_kernels_are_trec_evals_on_the_synthetic_collection(trec_eval_build, synthetic_trec_files, level, flags):
    version, binary = trec_eval_build
    qrels, runs = synthetic_trec_files
    assert sum(_compare(version, binary, qrels, run, level, flags) for run in runs.values()) > 1000


@pytest.mark.slow        # 37 runs (every fourth under -J and -M) x 2 versions of trec_eval
@pytest.mark.parametrize("level, flags, every", [(1, (), 1), (2, ("-J",), 4), (1, ("-M", "50"), 4)],
                         ids=["l1", "l2-J", "M50"])
def test_kernels_are_trec_evals_on_dl19(trec_eval_build, dl19_qrels_path, dl19_run_paths, tmp_path, level, flags,
                                        every):
    version, binary = trec_eval_build
    total = 0
    for path in dl19_run_paths[::every]:
        plain = tmp_path / path.name.removesuffix(".gz")
        plain.write_bytes(gzip.open(path).read())
        total += _compare(version, binary, dl19_qrels_path, plain, level, flags)
    assert total > len(dl19_run_paths[::every]) * 43 * 50


# -- against pytrec_eval (trec_eval 9.0.8), on every clone -------------------------------------

def _rr(qrels: pd.DataFrame, run: pd.DataFrame, version: int = 9) -> K.ResRels:
    return trec_provider.TrecEvalEvaluator([], qrels, version).res_rels(run)


@pytest.mark.parametrize("level", [1, 2])
def test_kernels_agree_with_pytrec_eval_where_the_versions_agree(synthetic_collection, level):
    """AP, bpref, IPrec (9's cut-offs), the counts and nDCG: pytrec_eval's values to 1e-12, on every topic."""
    qrels = synthetic_collection.qrels
    recalls = [0.0, 0.1, 0.3, 0.6, 1.0]
    for name, frame in synthetic_collection.runs.items():
        run = synthetic.deduplicated(frame)
        rr = _rr(qrels, run)
        measures = {ir_measures.AP(rel=level): K.average_precision(rr, level),
                    ir_measures.Bpref(rel=level): K.bpref(rr, level),
                    ir_measures.NumRet(rel=level): rr.counts(level)["num_rel_ret"],
                    ir_measures.NumRet: rr.num_ret,
                    ir_measures.nDCG: K.ndcg(rr)}
        ip = K.iprec_at_recall(rr, recalls, level, 9)
        measures.update({ir_measures.IPrec(rel=level) @ x: ip[:, j] for j, x in enumerate(recalls)})
        answered = set(run["query_id"])
        for metric in ir_measures.iter_calc(list(measures), qrels, run):
            if metric.query_id not in answered:
                continue
            t = rr.topics.tolist().index(metric.query_id)
            assert measures[metric.measure][t] == pytest.approx(metric.value, abs=1e-12), (name, metric)


def test_judged_only_is_pytrec_evals_judged_only(synthetic_collection):
    """-J (every document without a grade >= 0 removed) is trec_eval's judged_docs_only_flag."""
    qrels = synthetic_collection.qrels
    for frame in synthetic_collection.runs.values():
        run = synthetic.deduplicated(frame)
        rr = _rr(qrels, run).judged_only()
        ap = K.average_precision(rr)
        answered = set(run["query_id"])
        for metric in ir_measures.iter_calc([ir_measures.AP(judged_only=True)], qrels, run):
            if metric.query_id in answered:
                assert ap[rr.topics.tolist().index(metric.query_id)] == pytest.approx(metric.value, abs=1e-12)


# -- trec_eval 10's rounding, its test files --------------------------------------------------------

def test_iprecs_recall_cut_offs_are_rounded_as_each_version_rounds_them():
    """R = 77: 0.3 R + 0.9 = 23.999999999999996 -> 23 (9), lround(23.1) = 23; 0.6: 47 (9) vs lround(46.2) = 46."""
    cuts = {v: K.relevant_counts([0.3, 0.6, 0.5], np.array([77, 3]), v, "lround") for v in (9, 10)}
    assert cuts[9].tolist() == [[23, 47, 39], [1, 2, 2]]
    assert cuts[10].tolist() == [[23, 46, 39], [1, 2, 2]]            # lround(1.5) = 2, halves away from zero
    assert K._lround(np.array([0.5, 1.5, 2.5, -0.5, 0.49999999999999994])).tolist() == [1, 2, 3, -1, 0]


def test_iprec_of_trec_evals_own_test_files_is_its_value_in_each_version():
    """out.test's iprec_at_recall_0.10 (0.3885, trec_eval 10) and 9.0.8's 0.3884 (pytrec_eval's)."""
    qrels, run = _frames(DATA / "qrels.test", DATA / "results.test")
    for version, want, ties in ((10, 0.3885, "float64"), (9, 0.3884, "float32")):
        got = ir_cwla.meta.evaluate({"run": run}, qrels, [ir_measures.IPrec @ 0.1], progress=False,
                                    trec_eval=version)
        assert f"{got['value'].mean():.4f}" == f"{want:.4f}"
        assert trec_eval_semantics(version) == (version, ties)


def test_the_switch_refuses_a_contradiction():
    assert trec_eval_semantics() == (9, "float32")
    assert trec_eval_semantics(None, "float64") == (9, "float64")       # 9's measures, 10's ranking
    assert trec_eval_semantics(9, "float64") == (9, "float64")
    with pytest.raises(ParameterError, match="contradicts trec_eval=10"):
        trec_eval_semantics(10, "float32")
    with pytest.raises(ParameterError, match="9 .* or 10"):
        trec_eval_semantics(11)


def test_a_topic_the_run_misses_counts_in_num_q_and_num_rel():
    """trec_eval -c: the missing topic is 1 in NumQ and its relevant documents in NumRel, 0 elsewhere."""
    qrels, run = _frames(DATA / "qrels.test", DATA / "edge" / "results.no302")
    got = ir_cwla.meta.evaluate({"run": run}, qrels, ["NumQ", "NumRel", "NumRel(rel=2)", "AP", "GMAP"],
                                progress=False, missing_topics="ignore")
    by = got[got["qid"] == "302"].set_index("measure")["value"]
    assert by.to_dict() == {"NumQ": 1.0, "NumRel": 77.0, "NumRel(rel=2)": 0.0, "AP": 0.0, "GMAP": 0.0}


def test_gains_sort_as_trec_evals_truncating_comparator_sorts_them():
    """Gains less than 1 apart compare equal and keep their order (comp_rel_gain returns an int)."""
    table = [(1, 4.5, 1), (2, 4.2, 1), (0, 0.0, 3), (3, 9.0, 1)]
    assert [lv for lv, _, _ in K._sort_gains(table)] == [0, 1, 2, 3]


def test_geometric_mean_floors_each_topic_and_counts_the_missing_ones():
    assert K.geometric_mean([0.0, 1.0]) == pytest.approx(np.sqrt(1e-5))
    assert K.geometric_mean([1.0], n_topics=2) == pytest.approx(np.sqrt(1e-5))
    agg = tm.GMAP.aggregator()
    for v in (0.0, 1.0):
        agg.add(v)
    assert agg.result() == K.geometric_mean([0.0, 1.0])


def test_relstring_writes_trec_evals_characters():
    rr = K.ResRels(np.array(["1"], dtype=object), np.array([0, 6]), np.array([3, 0, -1, -2, 12, 1]),
                   np.array([0, 2]), np.array([0, 3]))
    assert K.relstring(rr, 5) == ["30-.>"]
    assert K.relstring(rr, 20) == ["30-.>1"]


# -- trec_eval's names ------------------------------------------------------------------------------

def test_every_value_of_all_trec_reads_back_from_the_name_trec_eval_prints():
    """P_5, iprec_at_recall_0.10, ndcg_cut_10, relative_P_5, unj_20 ...: parse_measure(name) is the measure."""
    selection = trec_names.select(["all_trec", "utility.2,-1,0,0", "ndcg.1=3,2=9,4=4.5", "rbp.p=0.5"])
    assert len(selection.values) == 100 and [s.line for s in selection.lines] == ["runid", "relstring"]
    assert {"utility_2,-1,0,0", "ndcg_1=3,2=9,4=4.5", "rbp_p=0.5"} <= {s.name for s in selection.values}
    for entry in selection.values:
        if entry.measure is None:
            continue
        assert ir_cwla.parse_measure(entry.name) == entry.measure, entry.name
        assert trec_names.trec_name(entry.measure).name == entry.name


def test_trec_evals_rules_for_a_command_line():
    """Each measure once, the first parameters given win (a later -m ignored, with a warning), table order."""
    with pytest.warns(InputWarning, match="P.5,7: ignored"):
        chosen = trec_names.select(["P.10", "map", "P.5,7", "official"])
    assert [s.name for s in chosen.values][:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert [s.name for s in chosen.values if s.name.startswith("P_")] == ["P_10"]
    assert [s.name for s in trec_names.select(["all_trec", "relstring.20"]).lines] == ["runid", "relstring_20"]
    assert [s.name for s in trec_names.select(["ndcg_cut.10,20,23.4"]).values] == ["ndcg_cut_10", "ndcg_cut_20",
                                                                                  "ndcg_cut_23"]
    assert trec_names.select(["num_rel_ret"], level=2).measures == [ir_measures.NumRet(rel=2)]


@pytest.mark.parametrize("name, message", [
    ("P.0", "cut-off must be > 0"), ("P.5,5", "given twice"), ("iprec_at_recall.1,1.0", "given twice"),
    ("ndcg.1=2=3", "NAME=VALUE pairs"), ("prefs_simp", "preference judgments"), ("qrels_jg", "judgment groups"),
    ("dcg", "does not compute it"), ("MAP_no", "unknown measure"), ("utility.1,2", "4 coefficients"),
    ("rbp.p=0.8,1=3", "give p only"), ("relstring", "a line of its output"),
])
def test_what_trec_eval_refuses_or_ir_cwla_does_not_compute_is_said(name, message):
    with pytest.raises(MeasureSyntaxError, match=message):
        ir_cwla.parse_measures(name)


def test_ir_measures_syntax_of_recall_measures():
    assert ir_cwla.parse_measure("IPrec@0.1") == ir_measures.IPrec @ 0.1
    assert ir_cwla.parse_measure("IPrec@1") == ir_measures.IPrec @ 1.0
    assert ir_cwla.parse_measure("RprecMult@0.2") == tm.RprecMult @ 0.2
    with pytest.raises(MeasureSyntaxError, match="recall after '@'"):
        ir_cwla.parse_measure("IPrec@0x1")
    assert ir_cwla.parse_measures("P") == [ir_measures.P @ k for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]


def test_dash_m_takes_the_words_that_are_measures_and_not_the_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("qrels", "run"):
        (tmp_path / name).write_text("")
    assert trec_eval_cli.measure_words(["eval", "-m", "all_trec", "qrels", "run"]) == \
        ["eval", "--measure=all_trec", "qrels", "run"]
    assert trec_eval_cli.measure_words(["eval", "qrels", "run", "-m", "nDCG@10", "RBP_max@10", "-q"]) == \
        ["eval", "qrels", "run", "--measure=nDCG@10", "--measure=RBP_max@10", "-q"]
    assert trec_eval_cli.measure_words(["eval", "-mP.5", "map", "qrels", "run"]) == \
        ["eval", "-mP.5", "map", "qrels", "run"]                    # glued: one word, as trec_eval's getopt
    assert trec_eval_cli.measure_words(["eval", "-m", "map", "-", "run"]) == ["eval", "--measure=map", "-", "run"]


def test_the_provider_serves_ir_measures(synthetic_collection):
    """ir_measures' own pipeline computes the measures it lacks through the trec_eval9 provider."""
    qrels = synthetic_collection.qrels
    run = synthetic.deduplicated(synthetic_collection.runs["graded"])
    got = ir_measures.calc_aggregate([tm.GMAP, tm.Utility, tm.RelP @ 5, ir_measures.RBP(p=0.9)], qrels, run)
    assert set(got) == {tm.GMAP, tm.Utility, tm.RelP @ 5, ir_measures.RBP(p=0.9)}
    assert "trec_eval10" in ir_measures.providers.registry and "trec_eval9" in ir_measures.providers.registry
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ir_measures.providers.registry["trec_eval10"].supports(ir_measures.IPrec @ 0.1)
        assert not ir_measures.providers.registry["trec_eval9"].supports(ir_measures.IPrec @ 0.1)


def test_one_switch_for_every_path_the_cwla_measures_take(synthetic_collection):
    """``trec_eval=10`` ranks as ``ties='float64'`` in meta.evaluate, the Scorer and the provider alike."""
    from ir_cwla.provider import CwlaProvider
    from ir_cwla.scoring import Scorer

    run = synthetic_collection.runs["float32_ties"]
    qrels = synthetic_collection.qrels
    measure = ir_cwla.parse_measure("RBP_ERG@10")
    by_version = {}
    for version in (9, 10):
        frame = ir_cwla.meta.evaluate({"r": run}, qrels, [measure], progress=False, missing_topics="ignore",
                                      trec_eval=version)
        provider = CwlaProvider(trec_eval=version).calc_aggregate([measure], qrels, run)[measure]
        scorer = Scorer([measure], qrels, trec_eval=version)
        _, scores = scorer.score_run(run, "r")
        assert scorer.ties == trec_eval_semantics(version)[1]
        assert provider == pytest.approx(frame["value"].mean(), abs=1e-15)
        assert float(scores[measure].sum()) / len(scorer.qrels.topics) == pytest.approx(provider, abs=1e-15)
        by_version[version] = provider
    assert by_version[9] != by_version[10]           # the run's float32 ties rank apart in float64
