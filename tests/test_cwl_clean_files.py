"""``ir-cwla cwl`` on clean files: read, scored and printed without pandas, the same bytes as the general path.

A result file that :mod:`ir_cwla.trec_text` takes is read without pandas; any other one by
:func:`ir_cwla.io.read_trec_run` (``ir_cwla.app.cwl.read_result_file``). Checked here: the
command loads no pandas on clean files (a fresh interpreter listing ``sys.modules``, as
``tests/test_startup.py``), falls back where a rule of the general reader has something to say
(a comment line, CRLF, a doc_id listed twice under ``--order trec``) with the general path's
output; and on generated inputs (ties in float64 and in float32 only, doc_ids listed twice,
topics in several blocks, unjudged documents, topics the gain file does not judge, rankings cut
and padded, a cost file, ``-r``, both orders) the two paths print the same bytes, and those of
cwl_eval's own command. The kernel's shared and vectorised pieces are checked against what they
replace: one ``np.sum`` per suffix (AP), one ``np.dot`` per ranking, one C library call per cell,
and cwl_eval's metric classes on random rankings.
"""
from __future__ import annotations

import contextlib
import io
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from ir_cwla.app import cwl, cwl_kernel
from ir_cwla.app.cli import main
from ir_cwla.errors import DuplicateWarning, InputWarning, LineOrderWarning
from ir_cwla.io import _trec_text as trec_text
from tests.test_cwl_command import MORE_METRICS, ZOO_FILE
from tests.test_startup import HEAVY, top_level

CWL_EVAL = Path(sys.executable).with_name("cwl-eval")


def _ours(*argv, clean: bool = True) -> tuple[int, str, str]:
    """``ir-cwla cwl ARGV`` in this process; ``clean=False`` reads every result file with the general reader."""
    out, err = io.StringIO(), io.StringIO()
    saved = cwl._CLEAN_READER
    cwl._CLEAN_READER = clean
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["cwl", *map(str, argv)])
    finally:
        cwl._CLEAN_READER = saved
    return code, out.getvalue(), err.getvalue()


def _cwl_eval(*argv, cwd) -> str:
    done = subprocess.run([str(CWL_EVAL), *map(str, argv)], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


# ------------------------------------------------------------------------- generated inputs

def generated(tmp: Path, seed: int, n_topics: int = 9, depth: int = 40) -> dict[str, Path]:
    """A gain file, a result file, a cost file and a metrics file that exercise every reading rule.

    Rankings of 1 to ``depth`` + 15 lines (cut and padded by --max_depth ``depth``); scores with
    ties in float64 and ties in float32 only, listed in float64 order; doc_ids listed twice in a
    ranking; one topic in two blocks of lines; one topic the gain file does not judge and one the
    run does not answer; gains 0, 1/3, 2/3, 1 and a real gain, documents the gain file does not
    judge; element types a, b (priced) and c (unpriced). The result file is clean: what
    :func:`ir_cwla.trec_text.read_run` takes (``check=False``).
    """
    rng = np.random.default_rng(seed)
    topics = [str(100 + 7 * t) for t in range(n_topics)]
    gains, lines = [], []
    for t, topic in enumerate(topics):
        size = int(rng.integers(1, depth + 16))
        docs = [f"d{int(d)}" for d in rng.choice(400, size=size, replace=False)]
        if size > 3 and t % 3 == 0:
            docs[size - 1] = docs[1]                         # listed twice
        scores = np.round(rng.normal(10, 2, size), 1)       # ties in float64
        if size > 5:
            scores[4] = scores[3] * (1 + 2 ** -30)           # tied in float32 only
        scores = -np.sort(-scores, kind="stable")
        if t != 1:                                         # topic 1: no judgment at all
            for d in dict.fromkeys(docs[::2] + [f"d{400 + t}"]):   # half the ranking judged, one extra
                gains.append(f"{topic} 0 {d} {rng.choice(['0', '0.3333', '0.6667', '1', '0.25', '0.0'])}")
        for k, (d, s) in enumerate(zip(docs, scores)):
            lines.append((topic, "abc"[int(rng.integers(3))], d, k + 1, float(s)))
    gains.append("999 0 x 1")                                   # a topic the run does not answer
    # topic 2 in two blocks of lines: its first half before topic 3, the rest after it
    of = {topic: [x for x in lines if x[0] == topic] for topic in topics}
    half = max(1, len(of[topics[2]]) // 2)
    ordered = of[topics[0]] + of[topics[1]] + of[topics[2]][:half] + of[topics[3]] + of[topics[2]][half:] + \
        [x for topic in topics[4:] for x in of[topic]]
    paths = {name: tmp / f"{name}.txt" for name in ("gains", "run", "costs", "metrics")}
    paths["gains"].write_text("".join(g + "\n" for g in gains))
    paths["run"].write_text("".join(f"{q} {e} {d} {k} {s!r} r\n" for q, e, d, k, s in ordered))
    paths["costs"].write_text("a 1.0\nb 2.5\n")
    paths["metrics"].write_text(ZOO_FILE + MORE_METRICS)
    return paths


def _unclean_copy(path: Path, out: Path) -> Path:
    """The same lines with two spaces between the first two fields of the first line.

    :mod:`ir_cwla.trec_text` refuses the file (one separator between fields), the general
    reader and cwl_eval read the same fields.
    """
    lines = path.read_text().splitlines(keepends=True)
    lines[0] = lines[0].replace(" ", "  ", 1)
    out.write_text("".join(lines))
    return out


def test_generated_files_take_the_clean_path(tmp_path):
    """The generated result file is one trec_text reads (the fast path is the one tested), its copy is not."""
    paths = generated(tmp_path, 0)
    assert trec_text.read_run(str(paths["run"]), element_type=True, check=False) is not None
    assert trec_text.read_run(str(paths["run"]), element_type=True, check=True) is None      # doc_ids twice
    assert trec_text.read_run(str(_unclean_copy(paths["run"], tmp_path / "u.txt")), element_type=True,
                              check=False) is None


CONFIGS = {
    "default metrics": [],
    "default metrics, -r -n": ["-r", "-n"],
    "zoo, costs, -r": ["-m", "{metrics}", "-c", "{costs}", "-r"],
    "zoo, costs, min/max cost, max_gain": ["-m", "{metrics}", "-c", "{costs}", "-r", "--max_cost", "3",
                                           "--min_cost", "0.5", "--max_gain", "1.0"],
}


def _argv(paths: dict, extra: list, depth: int) -> list:
    return [paths["gains"], paths["run"], *[e.format(**paths) for e in extra], "--max_depth", str(depth)]


@pytest.mark.parametrize("order", ["file", "trec"])
@pytest.mark.parametrize("seed", [0, 1])
def test_clean_and_general_paths_print_the_same_bytes(seed, order, tmp_path):
    """The pandas-free path and the general reader's give the same output and the same warnings.

    On generated files, every configuration, both orders: the clean file read by trec_text,
    the same file read by the general reader (the reader switched off), and a copy trec_text
    refuses (read by the general reader on the command's own path).
    """
    depth = 40
    paths = generated(tmp_path, seed, depth=depth)
    unclean = dict(paths, run=_unclean_copy(paths["run"], tmp_path / "unclean.txt"))
    for name, extra in CONFIGS.items():
        argv = [*_argv(paths, extra, depth), "--order", order]
        fast = _ours(*argv)
        general = _ours(*argv, clean=False)
        refused = _ours(*[*_argv(unclean, extra, depth), "--order", order])
        assert fast[0] == 0, fast[2]
        assert fast[1] == general[1] == refused[1], name
        assert fast[2] == general[2] == refused[2].replace("unclean.txt", "run.txt"), name
        assert len(fast[1].splitlines()) >= 9
    # the warnings the rules give: line order and doc_ids twice in file order, duplicates dropped in trec order
    _, _, err = _ours(*_argv(paths, [], depth), "--order", order)
    if order == "file":
        assert "several blocks of lines" in err and "repeat a doc_id of their ranking" in err
    else:
        assert "duplicate line(s) of a (topic, doc_id) dropped" in err and "score order" not in err


@pytest.mark.slow      # cwl_eval's command, 8 times
@pytest.mark.parametrize("seed", [0, 1])
def test_both_paths_print_cwl_evals_bytes(seed, tmp_path):
    """Both paths print what cwl_eval's own command prints for the same files, in every configuration.

    ``--order file`` (cwl_eval's line order: doc_ids listed twice ranked twice, topic 2 in two
    rankings, topics in float64 score order with float32 ties as listed).
    """
    depth = 40
    paths = generated(tmp_path, seed, depth=depth)
    for name, extra in CONFIGS.items():
        argv = _argv(paths, extra, depth)
        theirs = _cwl_eval(*argv, cwd=tmp_path)
        for clean in (True, False):
            code, ours, err = _ours(*argv, clean=clean)
            assert code == 0, err
            assert ours == theirs, (name, clean, next((a, b) for a, b in zip(ours.splitlines(), theirs.splitlines())
                                                      if a != b))


@pytest.mark.slow      # cwl_eval's command, 4 times
def test_order_trec_prints_cwl_evals_bytes_on_the_trec_ordered_file(tmp_path):
    """``--order trec`` on both paths: cwl_eval's output on the file sorted as trec_eval ranks it.

    Each topic once, score descending compared in float32, ties by doc_id descending, a doc_id
    listed twice keeping its best-scored line; the sorted file is written here from its own
    sort (not ir_cwla's).
    """
    depth = 40
    paths = generated(tmp_path, 3, depth=depth)
    best: dict[tuple, tuple] = {}           # (topic, doc_id) -> ((float32 score, score), element type)
    for line in paths["run"].read_text().splitlines():
        q, e, d, _, s, _ = line.split()
        key = (np.float32(float(s)), float(s))
        if (q, d) not in best or key > best[(q, d)][0]:
            best[(q, d)] = (key, e)
    topics = list(dict.fromkeys(q for q, _ in best))
    rows = sorted(best.items(), key=lambda kv: kv[0][1], reverse=True)           # doc_id descending, then
    rows = sorted(rows, key=lambda kv: (topics.index(kv[0][0]), -float(kv[1][0][0])))   # float32 score desc
    sorted_run = tmp_path / "sorted.txt"
    sorted_run.write_text("".join(f"{q} {e} {d} {k + 1} 1.0 r\n" for k, ((q, d), (_, e)) in enumerate(rows)))
    for name, extra in list(CONFIGS.items())[1:3]:
        theirs = _cwl_eval(*_argv(dict(paths, run=sorted_run), extra, depth), cwd=tmp_path)
        for clean in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                code, ours, err = _ours(*_argv(paths, extra, depth), "--order", "trec", clean=clean)
            assert code == 0, err
            assert ours == theirs, (name, clean)


# ------------------------------------------------------------------------- no pandas, and the fallback

def _command_in_fresh_interpreter(argv: list) -> tuple[set, str]:
    code = ("import contextlib, io, sys\nfrom ir_cwla.app import cli\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    assert cli.main({[str(a) for a in argv]!r}) == 0\n"
            "sys.stderr.write(out.getvalue())")
    done = subprocess.run([sys.executable, "-c", code + "\nimport json; print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, check=True)
    import json

    return set(json.loads(done.stdout.strip().splitlines()[-1])), done.stderr


@pytest.mark.parametrize("extra", [["-r"], ["-m", "{metrics}", "-c", "{costs}", "-r", "--order", "trec"]])
def test_clean_files_load_no_pandas(extra, tmp_path):
    """``ir-cwla cwl`` on clean files loads neither pandas nor anything else heavy, in either order."""
    paths = generated(tmp_path, 5)
    run = tmp_path / "once.txt"          # --order trec reads a file with each (topic, doc_id) once without pandas
    lines = {}
    for line in paths["run"].read_text().splitlines():
        lines.setdefault(tuple(line.split()[0:3:2]), line)
    run.write_text("".join(line + "\n" for line in lines.values()))
    modules, out = _command_in_fresh_interpreter(["cwl", paths["gains"], run, *[e.format(**paths) for e in extra],
                                                  "--max_depth", "30"])
    assert not top_level(modules) & HEAVY, sorted(top_level(modules) & HEAVY)
    assert "ir_cwla.io._frames" not in modules and "ir_cwla.io._trec_text" in modules
    assert out.count("\n") > 9
    assert out == _ours(paths["gains"], run, *[e.format(**paths) for e in extra], "--max_depth", "30", clean=False)[1]


def _crlf(path: Path, out: Path) -> Path:
    out.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    return out


def _comment(path: Path, out: Path) -> Path:
    out.write_text("# ir_metadata.start\n# a comment line\n" + path.read_text())
    return out


@pytest.mark.parametrize("variant", [_crlf, _comment])
def test_a_file_the_clean_reader_refuses_falls_back_to_the_general_path(variant, tmp_path):
    """A comment line or CRLF line ends: trec_text refuses, the general reader reads, the output is the same.

    Pandas is loaded (the general reader ran), and the table is the clean file's, byte for byte.
    """
    paths = generated(tmp_path, 6)
    other = variant(paths["run"], tmp_path / "variant.txt")
    assert trec_text.read_run(str(other), element_type=True, check=False) is None
    argv = ["-m", paths["metrics"], "-c", paths["costs"], "-r", "--max_depth", "30"]
    modules, out = _command_in_fresh_interpreter(["cwl", paths["gains"], other, *argv])
    assert "pandas" in top_level(modules) and "ir_cwla.io._frames" in modules
    assert out == _ours(paths["gains"], paths["run"], *argv)[1]


def test_a_doc_listed_twice_under_order_trec_falls_back_to_the_general_path(tmp_path):
    """``--order trec`` with a doc_id listed twice: the general reader drops the worse line (one DuplicateWarning).

    The output is that of the file without the dropped line, read on the clean path.
    """
    (tmp_path / "g.txt").write_text("1 0 a 1\n1 0 b 0.5\n2 0 x 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n1 Q0 a 3 1.0 r\n2 Q0 x 1 1.0 r\n")
    (tmp_path / "once.txt").write_text("1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n2 Q0 x 1 1.0 r\n")
    assert trec_text.read_run(str(tmp_path / "r.txt"), element_type=True, check=True) is None
    code, twice, err = _ours(tmp_path / "g.txt", tmp_path / "r.txt", "-r", "--order", "trec", "--max_depth", "12")
    assert code == 0 and "1 duplicate line(s) of a (topic, doc_id) dropped" in err
    assert twice == _ours(tmp_path / "g.txt", tmp_path / "once.txt", "-r", "--order", "trec", "--max_depth", "12")[1]
    with pytest.warns(DuplicateWarning):
        frame = cwl.evaluate(tmp_path / "g.txt", tmp_path / "r.txt", cwl.DEFAULT_METRICS, order="trec", max_depth=12,
                              residuals=True)
    assert cwl.format_table(frame) == twice


def test_evaluate_frame_and_table_print_alike(tmp_path):
    """:func:`cwl.evaluate`'s frame is :func:`cwl.evaluate_table`'s rows, and both print the same text."""
    paths = generated(tmp_path, 7)
    metrics = cwl.read_metrics_file(paths["metrics"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (InputWarning, LineOrderWarning))
        table = cwl.evaluate_table(paths["gains"], paths["run"], metrics, cost_file=paths["costs"], residuals=True,
                                   max_depth=30)
        frame = cwl.evaluate(paths["gains"], paths["run"], metrics, cost_file=paths["costs"], residuals=True,
                             max_depth=30)
    assert list(frame.columns) == table.columns and len(frame) == len(table.topics) * len(metrics)
    assert [tuple(r) for r in frame.itertuples(index=False)] == table.rows()
    for colnames in (False, True):
        assert cwl.format_table(frame, colnames) == cwl.format_table(table, colnames)
    assert cwl.format_table(table, True).splitlines()[0] == cwl.HEADER + cwl.RESIDUAL_HEADER


def test_read_gains_is_read_gain_file(tmp_path):
    """The pandas-free judgments are the frame's: the last line of a pair, topics in several blocks."""
    (tmp_path / "g.txt").write_text("1 0 a 1\n2 0 a 0.5\n1 0 b 0\n1 0 a 0.25\n\n2 0 c 1\n")
    judged = cwl.read_gains(tmp_path / "g.txt")
    frame = cwl.read_gain_file(tmp_path / "g.txt")
    assert judged == {"1": {"a": 0.25, "b": 0.0}, "2": {"a": 0.5, "c": 1.0}}
    assert {(q, d): g for q, d, g in frame.itertuples(index=False)} == \
        {(q, d): g for q, docs in judged.items() for d, g in docs.items()}


# ------------------------------------------------------------------------- the kernel's pieces

@pytest.mark.parametrize("shortcut", [True, False])
@pytest.mark.parametrize("density", [0.03, 0.5, 1.0])
def test_suffix_sums_are_one_np_sum_per_suffix(density, shortcut, monkeypatch):
    """AP's suffix sums, half of them reused, are one pairwise ``np.sum`` per suffix (cwl_eval's), bit for bit.

    Also where numpy would sum otherwise (the check says so: one ``np.sum`` per suffix).
    """
    assert cwl_kernel._pairwise_splits()          # numpy sums as the shortcut relies on (else the loop is used)
    if not shortcut:
        monkeypatch.setattr(cwl_kernel, "_pairwise_splits", lambda: False)
    rng = np.random.default_rng(11)
    for n in [1, 7, 8, 127, 128, 129, 130, 143, 144, 255, 300, 1000, 1001, 2500]:
        gains = rng.random((4, n)) * (rng.random((4, n)) < density)
        rii = gains / np.arange(1, n + 1)
        nonzero = np.flatnonzero((rii != 0).any(axis=0))
        last = int(nonzero[-1]) + 1 if len(nonzero) else 0
        expected = np.zeros((4, n + 1))
        for i in range(last):
            expected[:, i] = [np.sum(row[i:n]) for row in rii]
        np.testing.assert_array_equal(cwl_kernel._suffix_sums(rii, last), expected, err_msg=f"n={n}")


def test_row_dots_are_one_np_dot_per_ranking():
    """One ``np.vecdot`` is one ``np.dot`` (BLAS ddot) per ranking, bit for bit, for a shared vector too."""
    rng = np.random.default_rng(2)
    for n in (1, 3, 17, 999, 1000, 4099):
        a, b = rng.random((6, n)) ** 3, rng.random((6, n))
        np.testing.assert_array_equal(cwl_kernel._rowdot(a, b), [np.dot(x, y) for x, y in zip(a, b)])
        np.testing.assert_array_equal(cwl_kernel._rowdot(a[0], b), [np.dot(a[0], y) for y in b])
        np.testing.assert_array_equal(cwl_kernel._rowdot_loop(a, b), [np.dot(x, y) for x, y in zip(a, b)])


def test_the_c_library_is_called_on_every_cell_as_cwl_eval_calls_it():
    """INST's square, TBG's power of 2 and IFT's terms are Python's own functions of each cell.

    Also where an exponential overflows (IFT: the slow path, cwl_eval's arithmetic read as inf)
    and where C1's cells repeat (computed once per run of equal cells).
    """
    rng = np.random.default_rng(4)
    x = rng.normal(0, 3, (5, 200))
    np.testing.assert_array_equal(cwl_kernel._square(x), [[v ** 2.0 for v in row] for row in x.tolist()])
    runs = np.repeat(x[:, ::10], 10, axis=1)
    for values in (x, runs, np.where(rng.random(x.shape) < 0.1, 800.0, x)):      # 800: e^800 overflows
        for b, goal in ((0.9, True), (0.9, False), (0.0, True), (2, False)):
            expected = [[(1.0 - math.pow(1.0 + (b * _e(v) if b != 0.0 else 0.0), -1.0)) if goal else
                         math.pow(1.0 + (b * _e(v) if b != 0.0 else 0.0), -1.0) for v in row] for row in values.tolist()]
            np.testing.assert_array_equal(cwl_kernel._ift_term(b, values, goal), expected)


def _e(v: float) -> float:
    try:
        return math.pow(math.e, v)
    except OverflowError:
        return math.inf


def _their_metric(line: str):
    from tests.test_cwl_command import _cwl_classes

    name, _, body = line.partition("(")
    args = [cwl._cast(a.strip(), "test") for a in body.rstrip(")").split(",") if a.strip()]
    return _cwl_classes()[name](*args)


def test_each_class_is_cwl_evals_on_random_rankings():
    """Every metric class, every column: cwl_eval's metric objects on the same rankings, exactly.

    Random gains (many zeros, repeats, 1s) and costs over 6 rankings of 300 documents, R per
    ranking as cwl_eval's Ranking holds it; the metrics of one :class:`cwl_kernel.Case` share their
    terms (IFT's C1 and C2 across the three IFT classes) in the order the metrics come.
    """
    from cwl.ruler.ranking import Ranking

    rng = np.random.default_rng(9)
    rows, n = 6, 300
    gains = np.where(rng.random((rows, n)) < 0.7, 0.0, rng.choice([1 / 3, 2 / 3, 1.0, 0.25], (rows, n)))
    costs = rng.choice([1.0, 2.5, 0.7], (rows, n))
    rels = np.array([float((g > 0).sum()) + k for k, g in enumerate(gains)])
    case = cwl_kernel.Case(gains, costs, rels)
    lines = [line for line in (ZOO_FILE + MORE_METRICS).splitlines() if line]
    for line in lines:
        metric = cwl.parse_metric(line)
        ours = cwl_kernel.case_expectations(metric.cls, metric.args, case)
        for r in range(rows):
            ranking = Ranking(str(r), list(gains[r]), list(costs[r]), max_n=n)
            ranking.total_qrel_rels = rels[r]
            theirs = _their_metric(line)
            theirs.residuals = False               # (TrAP's __init__ skips CWLMetric's)
            theirs.measure(ranking)
            np.testing.assert_array_equal(ours[r], theirs.get_scores(), err_msg=f"{line} ranking {r}")
        np.testing.assert_array_equal(ours, cwl_kernel.expectations(metric.cls, metric.args, gains, costs, rels))


def test_cases_of_equal_costs_share_what_depends_on_the_costs_alone():
    """The worst and the best case share TBG's and U's weights where their costs are equal, and only there.

    Every metric's numbers are those of the case computed on its own (nothing shared).
    """
    rng = np.random.default_rng(5)
    worst = np.where(rng.random((4, 150)) < 0.6, 0.0, 1.0)
    best = np.where(rng.random((4, 150)) < 0.5, worst, 1.0)
    costs = rng.choice([1.0, 2.5], (4, 150))
    lines = ["TBGCWLMetric(22)", "UMeasureCWLMetric(100)", "IFTRateCWLMetric(0.2, 0.9, 10)", "APCWLMetric()"]
    for other_costs, shared in ((costs.copy(), True), (np.where(costs == 1.0, 0.5, costs), False)):
        first = cwl_kernel.Case(worst, costs)
        second = cwl_kernel.Case(best, other_costs, like=first)
        for line in lines:
            metric = cwl.parse_metric(line)
            for case, (g, c) in ((first, (worst, costs)), (second, (best, other_costs))):
                np.testing.assert_array_equal(cwl_kernel.case_expectations(metric.cls, metric.args, case),
                                              cwl_kernel.expectations(metric.cls, metric.args, g, c), err_msg=line)
        assert (second.cum_costs is first.cum_costs) == shared
        assert (second.shared_by_costs(("TBG", 22), lambda: None) is first.shared_by_costs(("TBG", 22), lambda: None)) \
            == shared
