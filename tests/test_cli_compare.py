"""``ir-cwla compare`` end to end.

Run files (plain and gzip), standard input, a per-query CSV written by ``ir-cwla eval
-q --format csv``; the same numbers as ``ir_cwla.compare``.
"""
from __future__ import annotations

import io
import shlex
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.app.cli import main
from tests.offline import ROOT

MEASURES = ["nDCG@10", "RBP_max@10"]


def _main(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(synthetic_files):
    runs = synthetic_files.runs
    return synthetic_files.qrels, [runs["graded"], runs["ties"], runs["deep"]]     # gzip, plain, plain


@pytest.fixture(scope="module")
def expected(files):
    qrels, runs = files
    measures = ir_cwla.parse_measures(MEASURES)
    per_query = meta.evaluate({meta.run_name(p): p for p in runs}, qrels, measures, progress=False,
                              missing_topics="ignore")
    return ir_cwla.compare(per_query, baseline="graded", trials=500, resamples=300).table()


def _read_csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), dtype={"measure": str, "baseline": str, "system": str})


def test_run_files_plain_and_gzip(capsys, files, expected):
    qrels, runs = files
    code, out, err = _main(capsys, "compare", qrels, *runs, "-m", *MEASURES, "--baseline", "graded",
                           "--trials", 500, "--resamples", 300, "--format", "csv")
    assert code == 0, err
    got = _read_csv(out)
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12, check_dtype=False)


def test_per_query_csv_of_ir_cwla_eval(capsys, files, expected, tmp_path):
    qrels, runs = files
    code, out, err = _main(capsys, "eval", qrels, *runs, "-m", *MEASURES, "-q", "--format", "csv")
    assert code == 0, err
    path = tmp_path / "per_query.csv"
    path.write_text(out)
    code, out, err = _main(capsys, "compare", path, "--baseline", "graded", "--trials", 500, "--resamples", 300,
                           "--format", "csv")
    assert code == 0, err
    pd.testing.assert_frame_equal(_read_csv(out), expected, check_exact=False, rtol=1e-12, check_dtype=False)
    # -m selects measures of the file
    code, out, err = _main(capsys, "compare", path, "-m", "nDCG@10", "--format", "csv", "--resamples", 100)
    assert code == 0, err
    assert set(_read_csv(out)["measure"]) == {"nDCG@10"}


def test_formats_and_report(capsys, files, tmp_path):
    qrels, runs = files
    base = ["compare", qrels, *runs, "-m", *MEASURES, "--baseline", "graded", "--resamples", 100]
    code, out, err = _main(capsys, *base)
    assert code == 0, err
    assert "Holm's correction" in out and "family of hypotheses" in out and "p_adjusted" in out
    code, out, err = _main(capsys, *base, "--format", "markdown")
    assert code == 0 and out.startswith("| ") and "†" in out
    code, out, err = _main(capsys, *base, "--format", "latex", "--correction", "bonferroni")
    assert code == 0 and r"\begin{table}" in out and "Bonferroni" in out
    report = tmp_path / "report"
    code, out, err = _main(capsys, *base, "--out", report, "--test", "wilcoxon")
    assert code == 0, err
    page = (report / "index.html").read_text()
    assert "Comparison of systems" in page and "Wilcoxon" in page and "data:image/png;base64," in page
    assert (report / "comparison.csv").exists() and (report / "comparison_differences.png").exists()


def test_errors(capsys, files):
    qrels, runs = files
    code, out, err = _main(capsys, "compare", qrels, runs[0])
    assert code == 1 and "at least two runs" in err
    code, out, err = _main(capsys, "compare", qrels, *runs, "--baseline", "nope", "-m", "nDCG@10")
    assert code == 1 and "'nope' not in the per-query frame" in err
    code, out, err = _main(capsys, "compare", qrels, *runs, "--test", "anova", "-m", "nDCG@10")
    assert code == 1 and "unknown test 'anova': valid ones are t, wilcoxon, sign" in err
    code, out, err = _main(capsys, "compare", qrels, *runs, "--alpha", "2", "-m", "nDCG@10")
    assert code == 1 and "alpha must lie in (0, 1)" in err
    with pytest.raises(SystemExit) as exit_:
        main(["compare", str(qrels), *map(str, runs), "--format", "html"])
    assert exit_.value.code == 2 and "invalid choice: 'html'" in capsys.readouterr().err


@pytest.mark.slow      # a Python process
def test_standard_input(files, expected):
    qrels, runs = files
    command = (f"{shlex.quote(sys.executable)} -m ir_cwla compare {qrels} {runs[0]} - {runs[2]} "
               f"-m {' '.join(MEASURES)} --baseline graded --trials 500 --resamples 300 --format csv < {runs[1]}")
    proc = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    got = _read_csv(proc.stdout)
    # the run read from stdin is named by its run tag ('ties' in the synthetic files): the same numbers
    assert set(got["system"]) == set(expected["system"])
    got = got.sort_values(["measure", "system"], kind="stable").reset_index(drop=True)
    want = expected.sort_values(["measure", "system"], kind="stable").reset_index(drop=True)
    cols = ["measure", "baseline", "system", "delta", "p_value", "p_adjusted", "wins", "ties", "losses"]
    pd.testing.assert_frame_equal(got[cols], want[cols], check_exact=False, rtol=1e-12, check_dtype=False)


def test_reproducibility_measures_of_reproduced_runs(capsys, files):
    """--reproduced: the reproductions of the runs, in order; a reproduction that is the original is perfect."""
    qrels, runs = files
    code, out, err = _main(capsys, "compare", qrels, runs[0], runs[1], "--reproduced", runs[0], runs[1],
                           "-m", *MEASURES, "--baseline", "graded", "--resamples", 100, "--format", "csv")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert set(table["statistic"]) == {"KTU", "RBO", "RMSE", "nRMSE", "ER", "DRI"}
    exact = table[table["statistic"] != "RBO"]
    assert (exact["value"] - exact["perfect"]).abs().max() < 1e-12
    # RBO normalises over depth (repro_eval's definition): a ranking shorter than depth never reaches 1, even itself
    rbo = table[table["statistic"] == "RBO"]
    assert ((rbo["value"] > 0) & (rbo["value"] <= 1)).all()
    # the reproductions swapped: what the API computes from the two per-query frames and the runs
    code, out, err = _main(capsys, "compare", qrels, runs[0], runs[1], "--reproduced", runs[1], runs[0],
                           "-m", *MEASURES, "--baseline", "graded", "--resamples", 100, "--format", "csv")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    measures = ir_cwla.parse_measures(MEASURES)
    names = [meta.run_name(p) for p in runs[:2]]
    original = meta.evaluate(dict(zip(names, runs[:2])), qrels, measures, progress=False, missing_topics="ignore")
    swapped = meta.evaluate(dict(zip(names, runs[1::-1])), qrels, measures, progress=False, missing_topics="ignore")
    with pytest.warns(ir_cwla.UndefinedStatisticWarning, match="have no KTU"):   # topics one of the runs lacks
        want = ir_cwla.reproducibility(original, swapped, baseline="graded", resamples=100,
                                       runs=(dict(zip(names, runs[:2])), dict(zip(names, runs[1::-1])))).table()
    assert "have no KTU" in err
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12)
    assert (got["value"] != got["perfect"]).any()
    code, out, err = _main(capsys, "compare", qrels, runs[0], runs[1], "--reproduced", runs[0], "-m", "nDCG@10")
    assert code == 1 and "one reproduction per run" in err


def test_max_trials_on_the_command_line(capsys, files):
    qrels, runs = files
    base = ["compare", qrels, *runs, "-m", *MEASURES, "--test", "randomisation", "--resamples", 100,
            "--format", "csv", "--trials", 100]
    code, out, err = _main(capsys, *base)
    assert code == 0, err
    first = pd.read_csv(io.StringIO(out))
    if first["significance_could_flip"].any():
        assert "could flip" in err and "--max-trials" in err
    code, out, err = _main(capsys, *base, "--max-trials", 1600)
    assert code == 0, err
    grown = pd.read_csv(io.StringIO(out))
    assert len(grown) == len(first) and (grown["p_value_mc_sd"] <= first["p_value_mc_sd"] + 1e-12).all() or \
        not first["significance_could_flip"].any()
