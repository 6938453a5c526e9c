"""``ir-cwla meta`` with LLM judges (issue 32): many judges' qrels at once, id maps, per-topic scores.

- ``QRELS --alt-qrels DIR``: the labels alone (no runs), every file of the directory a judge; a grade
  outside the scale names file and line unless ``--grade-map`` maps it; the LLMJudge ids mapped to
  DL23's by ``--alt-topic-map``/``--alt-doc-map`` (without them: an error that shows both schemes);
- a directory of ``trec_eval -q`` files as the input, ``--alt-scores`` and ``--run-models``: the
  criteria disjoint_agreement and judge_bias give the numbers of the functions;
- what the inputs cannot give is refused before any work, saying which option gives it.
"""
from __future__ import annotations

import warnings

import pandas as pd
import pytest

from ir_cwla import meta
from ir_cwla.app.cli import main
from ir_cwla.errors import InputWarning, UndefinedStatisticWarning


def _main(capsys, *argv) -> tuple[int, str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_many_judges_labels_alone(capsys, tmp_path, llm_dir):
    folder = llm_dir / "llmjudge-dl23"
    out = tmp_path / "judges"
    code, _, err = _main(capsys, "meta", folder / "human.txt", "--alt-qrels", folder / "labels", "--label-trials", 20,
                         "--out", out)
    assert code == 1 and "RMITIR-llama70B.txt, line 2449: grade 5 of topic q0 doc p3021" in err
    assert "--grade-map 5=3" in err
    code, stdout, err = _main(capsys, "meta", folder / "human.txt", "--alt-qrels", folder / "labels", "--label-trials",
                              20, "--grade-map", "5=3,10=3", "--out", out)
    assert code == 0, err
    assert "label agreement of other assessors (judges):" in stdout and "system ranking similarity" not in stdout
    table = pd.read_csv(out / "judges.csv")
    assert len(table) == 33 and table.at[0, "rank"] == 1
    assert (out / "judges.png").read_bytes().startswith(b"\x89PNG") and not (out / "means.csv").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)          # three judges never give grade 3: said
        direct = meta.judge_ranking(meta.label_agreement(folder / "human.txt", meta.read_judges(folder / "labels"),
                                                         trials=20, seed=0, grade_map={5: 3, 10: 3}, level=0.95))
    pd.testing.assert_series_equal(table["kappa_quadratic"], direct.table()["kappa_quadratic"], check_exact=False,
                                   atol=1e-9)


def test_id_maps_on_the_command_line(capsys, tmp_path, llm_dir):
    folder = llm_dir / "llmjudge-dl23"
    nist = llm_dir / "dl23" / "qrels.nist.txt"
    judge = folder / "labels" / "Olz-gpt4o.txt"
    code, _, err = _main(capsys, "meta", nist, "--alt-qrels", judge, "--label-trials", 10, "--out", tmp_path / "x")
    assert code == 1 and "no topic id in common" in err and "'q0'" in err
    code, stdout, err = _main(capsys, "meta", nist, "--alt-qrels", judge, "--alt-topic-map", folder / "qid_to_qidx.txt",
                              "--alt-doc-map", folder / "docid_to_docidx.txt", "--label-trials", 10, "--out",
                              tmp_path / "y")
    assert code == 0, err
    assert pd.read_csv(tmp_path / "y" / "label_agreement.csv").at[0, "judged_both"] == 4423
    code, _, err = _main(capsys, "meta", nist, "--alt-topic-map", folder / "qid_to_qidx.txt", "--out", tmp_path / "z")
    assert code == 1 and "give them" in err


def test_score_files_alternative_scores_and_run_models(capsys, tmp_path, llm_dir):
    folder = llm_dir / "dl23"
    out = tmp_path / "scores"
    args = ["meta", folder / "per-topic" / "TREC-DLs-results", "-m", "AP", "RR", "--alt-scores",
            f"SynDL={folder / 'per-topic' / 'SynDL-full-results'}", "--run-models", folder / "run-models.csv",
            "--criteria", "disjoint_agreement,judge_bias", "--disjoint-bootstrap", 50, "--null-trials", 50,
            "--bias-trials", 200, "--bias-bootstrap", 50, "--seed", 4, "--out", out]
    code, stdout, err = _main(capsys, *args)
    assert code == 0, err
    assert "agreement of topic-disjoint collections:" in stdout and "judge bias towards its model family:" in stdout
    nist = meta.read_score_files(folder / "per-topic" / "TREC-DLs-results")
    syn = meta.read_score_files(folder / "per-topic" / "SynDL-full-results")
    nist, syn = nist[nist["measure"].isin(["AP", "RR"])], syn[syn["measure"].isin(["AP", "RR"])]
    direct = meta.disjoint_agreement(nist, {"SynDL": syn}, bootstrap=50, null_trials=50, seed=4,
                                     reference_name="reference")
    written = pd.read_csv(out / "disjoint.csv")
    pd.testing.assert_series_equal(written["tau_low"], direct.table()["tau_low"], check_exact=False, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        bias = meta.judge_bias(nist, syn, meta.runs_using(folder / "run-models.csv", "GPT.*"), trials=200,
                               bootstrap=50, seed=4)
    pd.testing.assert_series_equal(pd.read_csv(out / "judge_bias.csv")["p_rank"], bias.table()["p_rank"],
                                   check_exact=False, atol=1e-9)


def test_what_the_inputs_cannot_give_is_refused_first(capsys, tmp_path, llm_dir):
    folder = llm_dir / "dl23" / "per-topic"
    base = ["meta", folder / "TREC-DLs-results", "--out", tmp_path / "r"]
    code, _, err = _main(capsys, *base, "--criteria", "judge_bias", "--alt-scores", folder / "SynDL-full-results")
    assert code == 1 and "needs run_models: give the models of each run's pipeline with --run-models" in err
    code, _, err = _main(capsys, *base, "--criteria", "disjoint_agreement")
    assert code == 1 and "--alt-scores" in err
    code, _, err = _main(capsys, *base, "--criteria", "disjoint_agreement", "--alt-scores",
                         f"x={folder / 'TREC-DLs-results'}", "-m", "AP")
    assert code == 1 and "the inputs do not suit it" in err
    code, _, err = _main(capsys, *base, "--run-models", tmp_path / "missing.csv")
    assert code == 1 and "--run-models: no file" in err
    code, _, err = _main(capsys, *base, "-m", "nDCG@10")
    assert code == 1 and "the score files have no nDCG@10" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _main(capsys, "meta", folder / "TREC-DLs-results", "--alt-qrels", empty, "--out", tmp_path / "s")
    assert code == 1 and "holds no file" in err


@pytest.mark.parametrize("spec", ["=x", "x="])
def test_named_arguments_are_checked(capsys, tmp_path, llm_dir, spec):
    code, _, err = _main(capsys, "meta", llm_dir / "dl23" / "qrels.nist.txt", "--alt-qrels", spec, "--out",
                         tmp_path / "r")
    assert code == 1 and "write NAME=FILE or FILE" in err


def test_the_judges_reports_in_a_browser(capsys, tmp_path, llm_dir, browser, artifacts):
    from tests.browser import check_report

    folder = llm_dir / "llmjudge-dl23"
    out = tmp_path / "judges-report"
    code, _, err = _main(capsys, "meta", folder / "human.txt", "--alt-qrels", folder / "labels", "--label-trials", 20,
                         "--grade-map", "5=3,10=3", "--out", out)
    assert code == 0, err
    tables = check_report(browser, out / "index.html", "judges-report", artifacts,
                          section="Meta-evaluation 1: label agreement of other assessors (judges)")
    assert any(len(t["rows"]) == 33 for t in next(iter(tables.values())))
    scores = llm_dir / "dl23" / "per-topic"
    out = tmp_path / "scores-report"
    code, _, err = _main(capsys, "meta", scores / "TREC-DLs-results", "-m", "AP", "RR", "--alt-scores",
                         f"SynDL={scores / 'SynDL-full-results'}", "--run-models", llm_dir / "dl23" / "run-models.csv",
                         "--criteria", "disjoint_agreement,judge_bias", "--disjoint-bootstrap", 30, "--null-trials", 30,
                         "--bias-trials", 100, "--bias-bootstrap", 30, "--out", out)
    assert code == 0, err
    check_report(browser, out / "index.html", "scores-report", artifacts,
                 section="Meta-evaluation 2: judge bias towards its model family")
