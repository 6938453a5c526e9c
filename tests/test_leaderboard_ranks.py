"""Rank intervals on the leaderboard (issue 20, items 5 and 7).

The per-topic scores a board keeps, the ``rank_low``/``rank_high`` columns of its tables,
``ir-cwla leaderboard --per-query`` and the page.

The intervals are checked against a direct :func:`ir_cwla.comparison.dynascore_rank_uncertainty`
call and against their definition written out here: on each bootstrap resample of the topics (the
documented stream of :func:`ir_cwla.comparison.effects.bootstrap_means`), the Dynascore of
:func:`ir_cwla.leaderboard.dynascore` on the resampled mean accuracy, its "min" ranks, and their
2.5% and 97.5% quantiles (``inverted_cdf``).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ir_cwla import leaderboard as lb
from ir_cwla.app import report
from ir_cwla.app.cli import main
from ir_cwla.comparison import dynascore_rank_uncertainty
from ir_cwla.errors import ArgumentTypeError, DataError, InputError

NAMES = ["BM25", "DPH", "=QLD", "RM3", "SPLADE", "monoT5"]     # '=QLD': a name a spreadsheet would run


@pytest.fixture(scope="module")
def scores() -> pd.DataFrame:
    """Per-topic nDCG@10 of six systems on 60 topics, close enough that some ranks are uncertain."""
    rng = np.random.default_rng(7)
    base = rng.uniform(0.1, 0.8, 60)
    rows = []
    for k, name in enumerate(NAMES):
        values = np.clip(base + 0.025 * k + rng.normal(0, 0.08, 60), 0, 1)
        rows += [(name, f"q{t}", "nDCG@10", v) for t, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


@pytest.fixture(scope="module")
def published(scores) -> pd.DataFrame:
    means = scores.groupby("name")["value"].mean()
    return pd.DataFrame({"name": NAMES, "nDCG@10": means.loc[NAMES].to_numpy(),
                         "latency_ms": [1.0, 1.2, 1.1, 4.0, 30.0, 90.0], "usd": [0.01, 0.01, 0.02, 0.05, 0.4, 1.2]})


def board_of(published: pd.DataFrame, per_query=None) -> lb.Leaderboard:
    return lb.Leaderboard.from_frame(published, accuracy="nDCG@10", latency="latency_ms", cost="usd", name="name",
                                     per_query=per_query)


def by_definition(published: pd.DataFrame, scores: pd.DataFrame, resamples: int, seed: int, level: float = 0.95):
    """The rank intervals written out: the documented resamples, lb.dynascore on each, min ranks, quantiles."""
    from ir_cwla.analysis import streams
    from ir_cwla.analysis.paired import BOOTSTRAP_INTERVAL_STREAM

    matrix = scores.pivot(index="qid", columns="name", values="value").sort_index()
    n = len(matrix)
    draws = np.concatenate([streams.chunk_rng(seed, BOOTSTRAP_INTERVAL_STREAM, i).integers(0, n, size=(s, n))
                            for i, s in enumerate(streams.chunk_sizes(resamples))])
    table = published.set_index("name").rename(columns={"latency_ms": "latency", "usd": "cost"})[["latency", "cost"]]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for idx in draws:
            ranked = lb.dynascore(table.assign(accuracy=matrix.to_numpy()[idx].mean(axis=0)[
                [list(matrix.columns).index(s) for s in table.index]]))
            rows.append(ranked["dynascore"].rank(method="min", ascending=False).reindex(table.index))
    ranks = np.array(rows)
    lo, hi = (1 - level) / 2, (1 + level) / 2
    return {name: (np.quantile(ranks[:, k], lo, method="inverted_cdf"), np.quantile(ranks[:, k], hi,
                                                                                    method="inverted_cdf"))
            for k, name in enumerate(table.index)}


# ----------------------------------------------------------------------------------- the tables

def test_interval_columns_equal_a_direct_call_and_the_definition(published, scores):
    board = board_of(published, scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lb.RankingWarning)
        tables = report.leaderboard_tables(board, resamples=300, seed=4)
    frame = tables[0].frame
    assert list(frame.columns[:5]) == ["nDCG@10", "dynascore", "rank", "rank_low", "rank_high"]
    assert tables[0].key[:5] == ["nDCG@10", "dynascore", "rank", "rank_low", "rank_high"]
    metrics = published.set_index("name").rename(columns={"nDCG@10": "accuracy", "latency_ms": "latency",
                                                          "usd": "cost"})
    direct = dynascore_rank_uncertainty(metrics, scores, "nDCG@10", weights={"accuracy": 0.5, "cost": 0.25,
                                                                              "latency": 0.25},
                                        directions={"latency": -1, "cost": -1}, resamples=300, seed=4)
    expected = direct.systems.set_index("system").loc[frame.index]
    assert frame["rank_low"].tolist() == expected["rank_low"].tolist()
    assert frame["rank_high"].tolist() == expected["rank_high"].tolist()
    defined = by_definition(published, scores, 300, 4)
    assert {n: (frame.loc[n, "rank_low"], frame.loc[n, "rank_high"]) for n in frame.index} == defined
    assert not (frame["rank_low"] == frame["rank_high"]).all()          # the data leave some ranks uncertain
    assert (frame["rank_low"] <= frame["rank_high"]).all()
    # the sentence under the table: the summary and the pairs separable
    sentence = tables[0].notes[0]
    assert sentence.startswith(direct.summary())
    separable = direct.adjacent[direct.adjacent["separable"]]
    for upper, lower in zip(separable["upper"], separable["lower"]):
        assert f"{upper} above {lower}" in sentence
    assert tables[0].text().splitlines()[-1] == sentence
    assert tables[0].text().splitlines()[0].split()[:6] == ["system", "nDCG@10", "dynascore", "rank", "rank_low",
                                                            "rank_high"]


def test_the_default_is_2000_resamples_from_seed_0(published, scores):
    board = board_of(published, scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lb.RankingWarning)
        ranks = report.leaderboard_tables(board)[0].ranks
    assert (ranks.resamples, ranks.seed, ranks.level, ranks.n_topics) == (2000, 0, 0.95, 60)
    frame, weights, directions = board.dynascore_inputs()
    direct = dynascore_rank_uncertainty(frame, board.accuracy_per_query(), "nDCG@10", weights=weights,
                                        directions=directions)
    pd.testing.assert_frame_equal(ranks.systems, direct.systems)


def test_without_per_query_scores_the_tables_are_unchanged(published, scores):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lb.RankingWarning)
        plain = report.leaderboard_tables(board_of(published), budget={"latency": 2.0})
        intervals = report.leaderboard_tables(board_of(published, scores), budget={"latency": 2.0})
    assert "rank_low" not in plain[0].frame.columns and plain[0].notes == [] and plain[0].ranks is None
    pd.testing.assert_frame_equal(plain[0].frame, intervals[0].frame.drop(columns=["rank_low", "rank_high"]))
    pd.testing.assert_frame_equal(plain[1].frame, intervals[1].frame)
    assert plain[0].text() == report.text_table(plain[0].frame[plain[0].key], plain[0].precision)


def test_seeded_and_independent_of_the_row_order(published, scores):
    def ranks(per_query, seed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", lb.RankingWarning)
            return report.leaderboard_tables(board_of(published, per_query), resamples=200, seed=seed)[0].ranks

    first, again = ranks(scores, 11), ranks(scores, 11)
    shuffled = ranks(scores.sample(frac=1.0, random_state=3), 11)
    for other in (again, shuffled):
        pd.testing.assert_frame_equal(first.systems, other.systems)
        pd.testing.assert_frame_equal(first.adjacent, other.adjacent)
    assert not first.adjacent["share_above"].equals(ranks(scores, 12).adjacent["share_above"])


# ----------------------------------------------------------------------------------- the board

def test_bad_per_query_scores_are_refused_naming_the_difference(published, scores):
    with pytest.raises(DataError, match=r"different systems \(only in the board: \['monoT5'\]\)"):
        board_of(published, scores[scores["name"] != "monoT5"])
    renamed = scores.replace({"name": {"BM25": "bm25"}})
    with pytest.raises(DataError, match=r"only in the per-query scores: \['bm25'\]; only in the board: \['BM25'\]"):
        board_of(published, renamed)
    with pytest.raises(DataError, match="no scores of the accuracy measure 'nDCG@10' .they have AP"):
        board_of(published, scores.assign(measure="AP"))
    shifted = scores.assign(value=np.where(scores["name"] == "RM3", scores["value"] + 0.01, scores["value"]))
    with pytest.raises(DataError, match="nDCG@10 of system 'RM3' is .* on the board but the mean of its per-query"):
        board_of(published, shifted)
    with pytest.raises(InputError, match=r"lack columns \['value'\]"):
        board_of(published, scores.drop(columns="value"))
    with pytest.raises(ArgumentTypeError, match="per_query must be a DataFrame"):
        board_of(published, "scores.csv")
    rounded = published.assign(**{"nDCG@10": published["nDCG@10"].round(3)})     # published with 3 decimals: fine
    assert board_of(rounded, scores).accuracy_per_query() is not None


def test_per_query_scores_survive_save_and_read_csv(published, scores, tmp_path):
    board = board_of(published, scores)
    board.save(str(tmp_path))
    assert (tmp_path / "per_query.csv").is_file()
    back = lb.Leaderboard.read_csv(tmp_path / "results.csv")
    pd.testing.assert_frame_equal(back.per_query, board.per_query)             # '=QLD' read back as it was
    assert "=QLD" in set(back.per_query["name"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lb.RankingWarning)
        pd.testing.assert_frame_equal(report.leaderboard_tables(back)[0].frame,
                                      report.leaderboard_tables(board)[0].frame)
    assert board_of(published).per_query is None


def test_using_keeps_the_scores_of_the_accuracy_measure_only(published, scores):
    both = pd.concat([scores, scores.assign(measure="AP", value=scores["value"] / 2)], ignore_index=True)
    table = published.assign(AP=published["nDCG@10"] / 2)
    board = lb.Leaderboard.from_frame(table, accuracy="nDCG@10", latency="latency_ms", cost="usd", name="name",
                                      per_query=both)
    assert set(board.accuracy_per_query()["measure"]) == {"nDCG@10"}
    assert set(board.using(accuracy="AP").accuracy_per_query()["measure"]) == {"AP"}
    assert board.using(accuracy="latency_ms").accuracy_per_query() is None


def test_a_measured_board_keeps_the_per_topic_scores_of_pt_experiment():
    import pyterrier as pt
    from ir_measures import RR, nDCG

    from tests.test_leaderboard_board import GOOD, POOR, QRELS, TOPICS

    systems = {"good": pt.Transformer.from_df(GOOD), "poor": pt.Transformer.from_df(POOR)}
    board = lb.Leaderboard.run(systems, TOPICS, QRELS, accuracy=[RR(rel=2)@10, nDCG@10], instance="m5.large",
                               warmup=0, repeats=1)
    expected = pt.Experiment([GOOD, POOR], TOPICS, QRELS, eval_metrics=[RR(rel=2)@10, nDCG@10],
                             names=["good", "poor"], perquery=True)
    got = board.per_query.set_index(["name", "qid", "measure"])["value"].sort_index()
    want = expected.set_index(["name", "qid", "measure"])["value"].sort_index()
    pd.testing.assert_series_equal(got, want)
    # RR(rel=2)@10 by hand (tests/test_leaderboard_board.py): good 1, 1, 0, 1; poor 1/2, 1/2, 0, 0
    rr = board.accuracy_per_query().set_index(["name", "qid"])["value"]
    assert rr.loc["good"].tolist() == [1, 1, 0, 1] and rr.loc["poor"].tolist() == [0.5, 0.5, 0, 0]
    means = board.per_query.groupby(["name", "measure"])["value"].mean().unstack()
    assert means.loc[list(board.results.index), "RR(rel=2)@10"].tolist() == board.results["RR(rel=2)@10"].tolist()


# ----------------------------------------------------------------------------------- the command line

@pytest.fixture(scope="module")
def eval_files(synthetic_files, tmp_path_factory):
    """A per-query file as ``ir-cwla eval -q --format csv`` writes it, and a board CSV of its systems.

    The per-query file holds nDCG@10 and RBP_ERG@10 of the six synthetic runs; the board names its
    accuracy by the short name RBP_ERG@10.
    """
    import contextlib
    import io

    tmp = tmp_path_factory.mktemp("ranks-cli")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["eval", str(synthetic_files.qrels), *map(str, synthetic_files.runs.values()), "-q", "-n",
                     "--format", "csv", "-m", "nDCG@10", "CWLA(C='RBP', A='ERG')@10"])
    assert code == 0
    per_query = tmp / "per_query.csv"
    per_query.write_text(buffer.getvalue())
    frame = pd.read_csv(per_query, dtype={"name": str, "qid": str})
    assert {"name", "qid", "measure", "value", "short"} <= set(frame.columns)
    rbp = frame[frame["short"] == "RBP_ERG@10"].groupby("name")["value"].mean()
    names = sorted(rbp.index)
    board = pd.DataFrame({"name": names, "RBP_ERG@10": rbp.loc[names].to_numpy(),
                          "latency": np.linspace(2.0, 40.0, len(names)), "cost": np.linspace(0.1, 0.9, len(names))})
    board_path = tmp / "board.csv"
    board.to_csv(board_path, index=False)
    return board_path, per_query, frame[frame["short"] == "RBP_ERG@10"]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_per_query_prints_the_intervals_and_the_sentence(capsys, eval_files):
    board_path, per_query, rbp = eval_files
    code, out, err = _run(capsys, "leaderboard", board_path, "--per-query", per_query, "--resamples", "500",
                          "--seed", "5")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["system", "RBP_ERG@10", "dynascore", "rank", "rank_low", "rank_high", "latency",
                                "cost"]
    table = pd.read_csv(board_path).set_index("name").rename(columns={"RBP_ERG@10": "accuracy"})
    direct = dynascore_rank_uncertainty(table, rbp, "CWLA(C='RBP',A='ERG')@10", resamples=500, seed=5)
    expected = direct.systems.set_index("system")
    for line in lines[1:1 + len(table)]:
        name, *fields = line.split()
        assert (int(fields[3]), int(fields[4])) == (expected.loc[name, "rank_low"], expected.loc[name, "rank_high"])
    assert lines[1 + len(table)].startswith(direct.summary())
    assert "(500 bootstrap resamples of" in out
    again = _run(capsys, "leaderboard", board_path, "--per-query", per_query, "--resamples", "500", "--seed", "5")
    assert again[1] == out                                       # the same seed: the same output


@pytest.mark.parametrize("case, message", [
    ("other-measure", "no scores of the accuracy measure 'RBP_ERG@10'"),
    ("fewer-systems", "different systems (only in the board:"),
    ("seed-alone", "--seed sets the bootstrap intervals of the ranks, which need the per-topic accuracy scores"),
    ("no-resamples", "--resamples must be a positive number"),
    ("no-file", "not found"),
])
def test_cli_bad_per_query_input_fails_on_one_line(capsys, tmp_path, eval_files, case, message):
    board_path, per_query, _ = eval_files
    frame = pd.read_csv(per_query, dtype={"name": str, "qid": str})
    argv = ["leaderboard", board_path, "--per-query", per_query]
    if case == "other-measure":
        frame[frame["short"] == "nDCG@10"].to_csv(tmp_path / "ndcg.csv", index=False)
        argv[3] = tmp_path / "ndcg.csv"
    elif case == "fewer-systems":
        frame[frame["name"] != frame["name"].iloc[0]].to_csv(tmp_path / "fewer.csv", index=False)
        argv[3] = tmp_path / "fewer.csv"
    elif case == "seed-alone":
        argv = ["leaderboard", board_path, "--seed", "1"]
    elif case == "no-resamples":
        argv += ["--resamples", "0"]
    else:
        argv[3] = tmp_path / "absent.csv"
    code, out, err = _run(capsys, *argv)
    assert code == 1 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
    if case in ("other-measure", "fewer-systems"):
        assert err.startswith(f"ir-cwla leaderboard: error: --per-query {argv[3]} does not fit {board_path}:")


@pytest.mark.slow
def test_cli_page_shows_the_intervals_in_a_browser(capsys, tmp_path, eval_files, browser, artifacts):
    from tests.browser import check_report, table_by_caption, visible_columns

    board_path, per_query, _ = eval_files
    out = tmp_path / "report"
    code, stdout, err = _run(capsys, "leaderboard", board_path, "--per-query", per_query, "--seed", "2",
                             "--resamples", "400", "--out", out)
    assert code == 0, err
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "over 400 resamples of the " in html and "seed 2)" in html and "the 0.95 percentile bootstrap" in html
    csv = pd.read_csv(out / "leaderboard.csv", index_col="system")
    pairs = pd.read_csv(out / "rank_separability.csv")
    assert list(pairs.columns) == ["system", "next", "share_above", "separable"] and len(pairs) == len(csv) - 1
    tables = check_report(browser, out / "index.html", "leaderboard-ranks", artifacts)
    for width, found in tables.items():
        board = table_by_caption(found, "leaderboard")
        assert visible_columns(board, width)[:6] == ["system", "RBP_ERG@10", "dynascore", "rank", "rank_low",
                                                     "rank_high"]
        assert [r[0] for r in board["rows"]] == list(csv.index)
        for column in ("rank_low", "rank_high"):
            k = board["head"].index(column)
            assert [int(r[k]) for r in board["rows"]] == csv[column].tolist()
        shown = table_by_caption(found, "adjacent pairs of the ranking")
        assert [r[0] for r in shown["rows"]] == pairs["system"].tolist()
        k = shown["head"].index("share_above")
        assert [float(r[k]) for r in shown["rows"]] == pytest.approx(pairs["share_above"].tolist(), abs=5e-5)


def test_resamples_without_a_dynascore_are_left_out_and_said(published, scores):
    """Resamples on which the Dynascore is undefined are left out, and the result says so.

    'monoT5b' is monoT5 but on one topic: on the resamples that miss that topic the two are equally
    accurate, and cost, which only monoT5b has higher, then has no rate of substitution: lb.dynascore
    refuses such a table, and those resamples are left out (the definition below skips them too).
    """
    twin = scores[scores["name"] == "monoT5"].copy()
    twin["name"] = "monoT5b"
    twin.loc[twin.index[0], "value"] += 0.05
    both = pd.concat([scores, twin], ignore_index=True)
    table = pd.concat([published.assign(usd=0.01), pd.DataFrame({"name": ["monoT5b"], "nDCG@10": [
        twin["value"].mean()], "latency_ms": [95.0], "usd": [0.02]})], ignore_index=True)
    board = board_of(table, both)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lb.RankingWarning)
        tables = report.leaderboard_tables(board, resamples=300, seed=1)
    ranks = tables[0].ranks
    left_out = 300 - ranks.resamples
    assert 50 < left_out < 200                                  # (59/60)^60 = 37% of them miss the topic
    assert tables[0].notes[1] == (f"{left_out} of 300 resamples left out: on them a weighted metric differs only "
                                  "between systems whose resampled accuracies are equal, so no Dynascore is defined.")
    from ir_cwla.analysis import streams
    from ir_cwla.analysis.paired import BOOTSTRAP_INTERVAL_STREAM

    matrix = both.pivot(index="qid", columns="name", values="value").sort_index()
    draws = np.concatenate([streams.chunk_rng(1, BOOTSTRAP_INTERVAL_STREAM, i).integers(0, 60, size=(s, 60))
                            for i, s in enumerate(streams.chunk_sizes(300))])
    metrics = table.set_index("name").rename(columns={"latency_ms": "latency", "usd": "cost"})[["latency", "cost"]]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for idx in draws:
            accuracy = pd.Series(matrix.to_numpy()[idx].mean(axis=0), index=matrix.columns)
            try:
                ranked = lb.dynascore(metrics.assign(accuracy=accuracy.loc[metrics.index].to_numpy()))
            except DataError:
                continue
            rows.append(ranked["dynascore"].rank(method="min", ascending=False).reindex(metrics.index))
    assert len(rows) == ranks.resamples
    sample = np.array(rows)
    got = tables[0].frame
    for k, name in enumerate(metrics.index):
        lo, hi = np.quantile(sample[:, k], [0.025, 0.975], method="inverted_cdf")
        assert (got.loc[name, "rank_low"], got.loc[name, "rank_high"]) == (lo, hi)
