"""A measure is refused when it is written, not when it is scored (issue 30).

``CWLA(...)``, ``m @ k``, :func:`ir_cwla.parse_measure` and ``ir_measures.parse_measure`` refuse a
bad model, parameter or combination at once (so ``pt.Experiment`` stops before any pipeline runs),
with the messages the command line gives, naming only the chosen model's and aggregation's
parameters. What only an evaluation can decide waits for it: the cutoff a model requires
(``CWLA(C='P')`` waits for its ``@k``) and whether a cost file may be read.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ir_measures
import pytest

import ir_cwla
from ir_cwla import CWLA
from ir_cwla.app.cwl import make_metric, parse_metric
from ir_cwla.errors import InputError, MeasureError, ParameterError

ROOT = Path(__file__).resolve().parents[1]

#: (the measure in ir-measures syntax, the message; the command line gives the same one)
REFUSED = [
    ("CWLA(C='Nope')", r"^unknown browsing model C='Nope'; valid: P, DCG, RBP, INST"),
    ("CWLA(C='RBP', A='Nope')", r"^unknown aggregation A='Nope'; valid: ERG, ETG"),
    ("CWLA(C='RBP', p=1.5)", r"^CWLA: C='RBP': p must lie in \(0, 1\) \(got p=1.5\)$"),
    ("CWLA(C='RBP', A='ERR')", r"^CWLA: C='RBP' with A='ERR' gives the same score for every ranking"),
    ("CWLA(C='INST', T=0.1)", r"^CWLA: C='INST': T=0.1 lets C\(i\) exceed 1"),
    ("CWLA(C='ERR', A='ERG', tail='pad')", r"infinite expected depth V\+"),
    ("CWLA(C='RBP', tail='both')", r"unknown tail='both'"),
    ("CWLA(C='RBP', A='PE', beta=2)", r"^CWLA: A='PE': beta must lie in \[0, 1\] \(got beta=2.0\)$"),
    ("CWLA(C='RBP', T=3)", r"^CWLA: T=3 has no effect with C='RBP' and A='ERG' \(their parameters: p\)$"),
    ("CWLA(C='RBP', A='EC', costs='grade:0:1;0:2')", r"grade 0 is priced twice"),
]


@pytest.mark.parametrize("text, message", REFUSED)
def test_refused_when_written_in_python_and_by_both_parsers(text, message):
    for make in (lambda: eval(text, {"CWLA": CWLA}), lambda: ir_measures.parse_measure(text),
                 lambda: ir_cwla.parse_measure(text), lambda: ir_cwla.parse_measures([text])):
        with pytest.raises(ValueError, match=message.lstrip("^")):
            make()
    with pytest.raises(MeasureError, match=message):        # the message itself, unwrapped
        eval(text, {"CWLA": CWLA})


def test_refused_by_the_short_names_and_by_the_at_operator():
    with pytest.raises(MeasureError, match=r"p must lie in \(0, 1\) \(got p=1.5\)"):
        ir_cwla.parse_measure("RBP(p=1.5)_ERG@10")
    with pytest.raises(MeasureError, match=r"cutoff must be >= 1 \(got @0\)"):
        CWLA(C="RBP") @ 0
    with pytest.raises(MeasureError, match=r"same score for every ranking"):
        CWLA(C="RBP")(A="ERR")                               # a measure called with new parameters


def test_an_unknown_parameter_lists_only_the_chosen_models_and_aggregations():
    with pytest.raises(MeasureError) as info:
        CWLA(C="RBP", A="PE", zz=1)
    message = str(info.value)
    assert message.startswith("CWLA: unknown parameter(s) ['zz']; valid with C='RBP' and A='PE': ")
    valid = message.split(": ", 2)[2].split(", ")
    assert valid == ["cutoff", "C", "A", "p", "beta", "gain", "rel", "max_rel", "tail", "unjudged", "costs"]
    for other in ("T", "discount", "halflife", "gain_med"):        # other models' parameters are not listed
        assert other not in valid


def test_what_waits_for_the_evaluation():
    m = CWLA(C="P")                                  # a measure waiting for its cutoff
    with pytest.raises(MeasureError, match=r"C='P' needs a cutoff, e.g. CWLA\(C='P', A='ERG'\)@10"):
        m.validate_params()
    (m @ 10).validate_params()
    costs = CWLA(C="RBP", A="EC", costs="doc:/no/such/file")   # written now, opened only with an opt-in
    with pytest.raises(ValueError, match="is named inside a measure"):
        costs.validate_params()


def test_the_command_line_gives_the_same_messages(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 1.0 r\n")
    for text, _ in REFUSED[1:5]:
        with pytest.raises(MeasureError) as info:
            eval(text, {"CWLA": CWLA})
        done = subprocess.run([sys.executable, "-m", "ir_cwla", "eval", "-m", text, str(qrels), str(run)],
                              capture_output=True, text=True, cwd=ROOT)
        assert done.returncode != 0 and str(info.value) in done.stderr, done.stderr


def test_pyterrier_experiment_refuses_before_any_pipeline_runs():
    pt = pytest.importorskip("pyterrier")
    ran = []

    def pipeline(topics):
        ran.append(1)
        raise AssertionError("the pipeline ran")

    with pytest.raises(MeasureError, match="p must lie in"):
        pt.Experiment([pt.apply.generic(pipeline)], None, None, [CWLA(C="RBP", p=1.5)])
    assert not ran


@pytest.mark.parametrize("line, message", [
    ("PrecisionCWLMetric(10.5)", r"k is a rank cutoff and must be a whole number \(got k=10.5\)"),
    ("SETCWLMetric(0.5, 2.5)", r"k is a rank cutoff and must be a whole number \(got k=2.5\)"),
    ("NDCGCWLMetric(3.5)", r"must be a whole number"),
    ("RBPCWLMetric(1.5)", r"p must lie in \(0, 1\) \(got p=1.5\)"),
])
def test_cwl_eval_classes_with_bad_arguments_are_clear_errors(line, message):
    with pytest.raises(InputError, match=r"^metrics.txt:3: " + line.replace("(", r"\(").replace(")", r"\)")
                       + ": .*" + message):
        parse_metric(line, "metrics.txt:3")


def test_cwl_eval_classes_take_whole_numbers_written_as_floats():
    assert make_metric("PrecisionCWLMetric", 10.0).params == {"cutoff": 10}
    with pytest.raises(ParameterError, match="whole number"):
        make_metric("PrecisionCWLMetric", 10.5)
