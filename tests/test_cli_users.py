"""``ir-cwla meta --satisfaction FILE [--gains FILE] [--preferences FILE]``: a user study's criteria."""
from __future__ import annotations

import pandas as pd
import pytest

from ir_cwla.app.cli import main
from tests.test_meta_users import study


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("study")
    pages, ratings = study()
    pages.to_csv(tmp / "pages.csv", index=False)
    ratings.to_csv(tmp / "ratings.csv", index=False)
    return tmp


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_meta_scores_the_pages_and_runs_the_user_criteria(files, capsys, tmp_path):
    code, out, err = _run(capsys, "meta", "--gains", files / "pages.csv", "--satisfaction", files / "ratings.csv",
                          "--user-trials", "50", "--fit-points", "4", "--fit-repeats", "1", "--out", tmp_path / "r")
    assert code == 0, err
    for title in ("agreement with users' satisfaction:", "agreement with users' preferences:",
                  "the user model fitted to users:"):
        assert title in out
    assert "consistency" not in out                      # the criteria that compare systems do not run on one
    table = pd.read_csv(tmp_path / "r" / "user_agreement.csv")
    assert len(table) == 39 and {"pearson", "kendall_low"} <= set(table.columns)
    assert "scoring the result pages" in err


def test_a_per_query_file_with_ratings(files, capsys, tmp_path):
    import ir_cwla

    per_query = ir_cwla.score_gains(pd.read_csv(files / "pages.csv", dtype={"qid": str}), ["RBP_ERG@10", "P_max@10"])
    per_query.to_csv(tmp_path / "pq.csv", index=False)
    code, out, err = _run(capsys, "meta", tmp_path / "pq.csv", "--satisfaction", files / "ratings.csv",
                          "--criteria", "user_agreement,preference_agreement", "--user-trials", "40",
                          "--out", tmp_path / "r")
    assert code == 0, err
    assert "agreement with users' satisfaction:" in out and "RBP_ERG@10" in out


@pytest.mark.parametrize("argv, message", [
    (["meta", "--gains", "{pages}", "--out", "{out}"], "give them with --satisfaction FILE"),
    (["meta", "--gains", "{pages}", "--satisfaction", "{ratings}", "{pages}"], "in place of QRELS and RUNS"),
    (["meta", "--satisfaction", "{ratings}"], "give QRELS and RUNS, a per-query file, or"),
    (["meta", "--gains", "{dir}/none.csv", "--satisfaction", "{ratings}"], "--gains: file not found"),
    (["meta", "{pq}", "--criteria", "user_agreement"], "needs satisfaction: give the users' ratings with "
                                                       "--satisfaction FILE"),
    (["meta", "{pq}", "--criteria", "user_model_fit", "--satisfaction", "{ratings}"],
     "needs gains: give the result pages"),
    (["meta", "{pq}", "--criteria", "preference_agreement"], "needs preferences or satisfaction"),
])
def test_usage_errors_before_any_work(files, capsys, tmp_path, argv, message):
    pq = tmp_path / "pq.csv"
    pd.DataFrame({"name": "s", "qid": ["1"], "measure": ["P@1"], "value": [1.0]}).to_csv(pq, index=False)
    subst = {"pages": files / "pages.csv", "ratings": files / "ratings.csv", "dir": files, "out": tmp_path / "r",
             "pq": pq}
    code, out, err = _run(capsys, *[a.format(**subst) for a in argv])
    assert code == 1 and message in err, err
