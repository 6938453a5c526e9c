"""The commands' shape (issue 30): one module per command, each building a checked plan, then executing it.

Every ``ir-cwla`` command is a module of :mod:`ir_cwla.app.commands` with ``add_parser``, a
frozen ``Plan``, ``plan(args)`` (every option checked before any file is read) and
``execute(plan)``; ``eval`` has one plan and one function whatever reads its files, the reader
chosen by asking the readers, and ``compare`` scores its runs through ``eval``'s plan.
"""
from __future__ import annotations

import dataclasses

import pytest

from ir_cwla.app import evaluate
from ir_cwla.app.cli import build_parser, main
from ir_cwla.app.commands import COMMANDS, command_module
from ir_cwla.app.commands import compare as compare_command
from ir_cwla.app.commands import eval as eval_command
from ir_cwla.errors import NotFoundError
from ir_cwla.io import _trec_text as trec_text

#: The commands of ``ir-cwla --help``, in its order.
LISTED = ["eval", "measures", "meta", "leaderboard", "cwl", "demo", "compare"]


def _subcommands(parser):
    return parser._subparsers._group_actions[0].choices


def test_every_command_is_one_module_of_one_shape():
    assert list(COMMANDS) == LISTED == list(_subcommands(build_parser()))
    for name in COMMANDS:
        module = command_module(name)
        assert module.NAME == name and module.__name__ == f"ir_cwla.app.commands.{name}"
        assert dataclasses.is_dataclass(module.Plan) and module.Plan.__dataclass_params__.frozen, name
        sub = _subcommands(build_parser(name))[name]
        assert sub.get_default("plan") is module.plan and sub.get_default("execute") is module.execute, name
        assert sub.format_help() == _subcommands(build_parser())[name].format_help()     # built whole either way
        others = [n for n in COMMANDS if n != name]    # the commands that do not run: their names and help alone
        assert all(_subcommands(build_parser(name))[n].get_default("plan") is None for n in others)


def test_an_unknown_command_has_no_module():
    with pytest.raises(NotFoundError, match="no ir-cwla command 'nope' \\(eval, measures, meta"):
        command_module("nope")


def test_a_plan_cannot_be_changed_once_made(tmp_path):
    args = build_parser("eval").parse_args(["eval", "qrels.txt", "run.txt", "-m", "nDCG@10", "-M", "5"])
    plan = eval_command.plan(args)
    assert plan.runs == ("run.txt",) and plan.names == ("run",) and plan.depth == 5 and plan.needs_frames
    assert [str(m) for m in plan.measures] == ["nDCG@10"] and not plan.on_workers
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.depth = 10          # type: ignore[misc]


MISSING = "no-such-file.txt"

#: A bad option beside inputs that do not exist: the option's error, not the missing file's (every
#: option is checked before anything is read).
BAD_OPTIONS = [
    (["eval", MISSING, MISSING, "-n"], "-n/--no-summary needs -q/--per-query"),
    (["eval", MISSING, MISSING, "--n-jobs", "2", "-M", "5"], "-M/--depth is not available with --scheduler/--n-jobs"),
    (["eval", MISSING, MISSING, "--n-jobs", "2", "--judged", "5"], "--judged is not available with"),
    (["eval", MISSING, MISSING, "--n-jobs", "2"], "--scheduler/--n-jobs read runs from files or directories"),
    (["eval", MISSING, MISSING, "-J", "-m", "RBP_ERG[unjudged=max]@10"],
     "-J (judged documents only) cannot apply to RBP_ERG[unjudged=max]@10"),
    (["eval", MISSING, MISSING, "-R", "prefs"], "-R prefs: ir-cwla eval reads TREC qrels only"),
    (["eval", MISSING, MISSING, "-c", "-a"], "-c (every qrels topic counts) and -a"),
    (["eval", MISSING, MISSING, "--trec-eval", "10", "--ties", "float32"], "contradicts trec_eval=10"),
    (["eval", MISSING, MISSING, "-l", "0"], "relevance level must be >= 1"),
    (["eval", "-", "-"], "standard input can be read only once"),
    (["measures", MISSING, MISSING, "nDCG@10", "-n"], "--no_summary (-n) only supported with --by_query (-q)"),
    (["measures", MISSING, MISSING, "NoSuch@10"], "unknown measure 'NoSuch@10'"),
    (["meta", MISSING, MISSING, "--criteria", "nope"], "--criteria: unknown 'nope'"),
    (["meta", MISSING, MISSING, "--alpha", "2"], "alpha must lie in (0, 1)"),
    (["meta", MISSING, "-m", "NoSuch@10"], "unknown measure 'NoSuch@10'"),
    (["leaderboard", MISSING, "--level", "2"], "--level must lie in (0, 1)"),
    (["leaderboard", MISSING, "--weights", "x"], "bad weight 'x'"),
    (["leaderboard", MISSING, "--max-cost", "inf"], "--max-cost must be a finite number"),
    (["compare", MISSING, MISSING], "compare needs at least two runs"),
    (["compare", MISSING, MISSING, "other.txt", "-m", "NoSuch@10"], "unknown measure 'NoSuch@10'"),
    (["cwl", "-", "-"], "standard input can be read only once"),
]


@pytest.mark.parametrize("argv, message", BAD_OPTIONS, ids=[" ".join(a[:1] + a[3:]) for a, _ in BAD_OPTIONS])
def test_every_option_is_checked_before_any_file_is_read(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ir-cwla {argv[0]}: error: ") and message in err, err
    assert "not found" not in err and len(err.splitlines()) == 1


# ------------------------------------------------------------------------- eval: one plan, one function

def _clean_files(tmp_path):
    """Three topics, two runs with distinct scores: clean files (:mod:`ir_cwla.trec_text` takes them)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {(q + d) % 3}\n" for q in (1, 2, 3) for d in range(6)))
    runs = []
    for k, name in enumerate(("a", "b")):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{q} Q0 d{(d + k * q) % 8} {d + 1} {9.5 - d - 0.25 * k} {name}\n"
                                for q in (1, 2, 3) for d in range(7)))
        runs.append(path)
    assert trec_text.read_qrels(str(qrels)) is not None and all(trec_text.read_run(str(p)) is not None for p in runs)
    return qrels, runs


def _output(capsys, argv, monkeypatch, general: bool):
    with monkeypatch.context() as patch:
        if general:                       # the readers refuse every file: the general readers read them
            patch.setattr(trec_text, "read_run", lambda *a, **k: None)
        code = main([str(a) for a in argv])
    return code, *capsys.readouterr()


@pytest.mark.parametrize("options, clean", [([], True), (["-q", "--format", "csv"], True),
                                            (["-q", "--format", "jsonl"], True), (["-M", "3", "-q"], False),
                                            (["--judged", "3", "-q"], False), (["--judged", "3", "--format", "csv"],
                                                                                False)])
def test_eval_asks_the_readers_and_prints_the_same_bytes(options, clean, tmp_path, capsys, monkeypatch):
    """Clean files are read as columns unless a step works on frames (-M, --judged); the bytes never change."""
    qrels, runs = _clean_files(tmp_path)
    argv = ["eval", qrels, *runs, "-m", "nDCG@5", "RBP_max@5", "AP", *options]
    read = []
    real = evaluate.read_clean_files

    def spy(*args, **kwargs):
        read.append(real(*args, **kwargs))
        return read[-1]

    monkeypatch.setattr(evaluate, "read_clean_files", spy)
    fast = _output(capsys, argv, monkeypatch, general=False)
    assert (len(read) == 1 and read[0] is not None) if clean else not read
    general = _output(capsys, argv, monkeypatch, general=True)
    assert fast == general and fast[0] == 0 and fast[1]


def test_compare_scores_its_runs_through_evals_plan(tmp_path, capsys, monkeypatch):
    qrels, runs = _clean_files(tmp_path)
    argv = ["compare", qrels, *runs, "-m", "nDCG@5", "AP", "--format", "csv"]
    args = build_parser("compare").parse_args([str(a) for a in argv])
    plan = compare_command.plan(args)
    assert isinstance(plan.scores, eval_command.Plan) and plan.scores.per_query and not plan.scores.summary
    frame = compare_command.read(plan)
    expected = evaluate.evaluate_runs({p.stem: evaluate.read_run_arg(str(p)) for p in runs},
                                      evaluate.read_qrels_arg(str(qrels)), list(plan.measures), summary=False)
    assert frame.equals(expected[["name", "qid", "measure", "value"]])
    fast = _output(capsys, argv, monkeypatch, general=False)
    assert fast == _output(capsys, argv, monkeypatch, general=True) and fast[0] == 0
