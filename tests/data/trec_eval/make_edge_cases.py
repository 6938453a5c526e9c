"""The edge cases of the trec_eval conformance test: their inputs, and trec_eval 10.0's answers.

Usage::

    python tests/data/trec_eval/make_edge_cases.py --trec-eval /path/to/trec_eval-10/trec_eval

writes, under ``edge/`` beside this file, each case's inputs (made from trec_eval's own test
files here, by the deterministic edits below: no randomness), ``cases.json`` (each case: its
trec_eval command line, what it checks, the issue item it comes from) and ``<case>.out``,
trec_eval's stdout; where trec_eval fails, ``<case>.err`` holds its exit status and stderr.
trec_eval 10.0 is built from its source: ``git clone https://github.com/usnistgov/trec_eval;
git checkout v10.0; make`` (its ``make quicktest`` passes). Run it again after changing a case;
the conformance test (tests/test_trec_eval_conformance.py) reads what it writes.
"""
from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
EDGE = HERE / "edge"


def lines(name: str) -> list[list[str]]:
    return [line.split() for line in (HERE / name).read_text().splitlines() if line.strip()]


def write(name: str, rows: list[list[str]], sep: str = " ") -> str:
    (EDGE / name).write_text("".join(sep.join(r) + "\n" for r in rows))
    return f"edge/{name}"


def top(rows: list[list[str]], k: int) -> list[list[str]]:
    """Each topic's k best-scored lines (score descending, doc_id descending: trec_eval's order), in file order."""
    by_topic: dict[str, list[list[str]]] = {}
    for r in rows:
        by_topic.setdefault(r[0], []).append(r)
    keep = set()
    for topic_rows in by_topic.values():
        ranked = sorted(topic_rows, key=lambda r: (-float(r[4]), tuple(-ord(c) for c in r[2])))
        keep.update(id(r) for r in ranked[:k])
    return [r for r in rows if id(r) in keep]


def make_inputs() -> dict[str, str]:
    """Writes the derived inputs; returns {key: path relative to this directory}."""
    EDGE.mkdir(exist_ok=True)
    run, qrels, graded = lines("results.test"), lines("qrels.test"), lines("qrels.rel_level")
    run100 = top(run, 100)
    files = {
        "qrels": "qrels.test", "run": "results.test", "graded": "qrels.rel_level",
        "qrels302": "qrels-302.test", "run302": "results-302.test",
    }
    # a run that does not answer topic 302 (six fields: the extra-field rule is its own case)
    files["no302"] = write("results.no302", [r for r in run100 if r[0] != "302"], "\t")
    # comment lines in both files, and a doc_id holding '#' (trec_eval 10 reads a '#' of qrels as a comment
    # only at the start of a line, and not two such lines in a row; in runs also after blanks)
    q301 = [r for r in qrels if r[0] == "301"][:400]
    commented_qrels = [["#", "qrels", "of", "topic", "301"], *q301[:200], ["#comment"], *q301[200:]]
    files["qrels_hash"] = write("qrels.hash", commented_qrels)
    r301 = [r for r in run100 if r[0] == "301"]
    r301[5] = [r301[5][0], "Q0", "DOC#with#hashes", *r301[5][3:]]
    files["run_hash"] = write("results.hash", [["#", "run:", "bm25", "k1=0.9"], *r301[:50], ["\t#", "after", "50"],
                                              *r301[50:]], "\t")
    # scores that tie in float32 but not in float64, each group with relevant and non-relevant documents
    tied = []
    for i, r in enumerate(run100):
        group, within = divmod(i, 4)
        tied.append([*r[:4], repr(1.0 + group * 1e-3 + within * 1e-12), r[5]])
    files["ties64"] = write("results.ties64", tied, "\t")
    # exactly tied integer scores: ranked by doc_id, descending
    files["ties"] = write("results.ties", [[*r[:4], str(int(float(r[4]) * 2)), r[5]] for r in run100], "\t")
    # fields after the sixth, which trec_eval ignores
    files["extra"] = write("results.extra", [[*r, "extra", "fields"] for r in run100], "\t")
    # topic ids whose text order is not their numeric order (trec_eval prints topics as strcmp sorts them)
    rename = {"301": "9", "302": "10", "303": "100"}
    files["qrels_order"] = write("qrels.order", [[rename[r[0]], *r[1:]] for r in qrels])
    files["run_order"] = write("results.order", [[rename[r[0]], *r[1:]] for r in run100], "\t")
    # three documents per topic: shorter than every cut-off
    files["short"] = write("results.short", top(run, 3), "\t")
    # a topic with judgments but no relevant document
    files["norel"] = write("qrels.norel", [[*r[:3], "0"] if r[0] == "302" else r for r in qrels])
    # graded qrels (0-4 and -1) for the top 100 of each topic
    files["run100"] = write("results.top100", run100, "\t")
    del graded
    return files


def cases(f: dict[str, str]) -> list[dict]:
    """Each case: name, trec_eval's arguments (files by key), optional stdin, what it checks, its issue item."""
    return [
        {"name": "iprec_302", "args": ["-q", "-m", "iprec_at_recall", f["qrels302"], f["run302"]],
         "checks": "IPrec's recall cut-offs rounded as trec_eval 10 rounds them", "item": "wrong number 1"},
        {"name": "level2_counts", "args": ["-q", "-l2", "-m", "num_q", "-m", "num_ret", "-m", "num_rel",
                                           "-m", "num_rel_ret", f["graded"], f["run"]],
         "checks": "-l 2: num_ret counts every retrieved document, num_rel_ret and num_rel the grades >= 2",
         "item": "wrong number 2"},
        {"name": "missing_topic_c", "args": ["-q", "-c", "-m", "all_trec", f["qrels"], f["no302"]],
         "checks": "-c with a run that misses a qrels topic: num_q 3, the topic's num_rel counted, printed with -q",
         "item": "wrong number 3"},
        {"name": "judged_only_negative", "args": ["-q", "-J", "-m", "map", "-m", "P.10", "-m", "ndcg", "-m", "bpref",
                                                  "-m", "infAP", "-m", "num_ret", "-m", "num_rel", "-m", "set_recall",
                                                  "-m", "recip_rank", f["graded"], f["run100"]],
         "checks": "-J with grades -1: negative grades are unjudged and dropped, for every measure",
         "item": "wrong number 4"},
        {"name": "depth_M", "args": ["-q", "-M", "10", "-m", "official", f["qrels"], f["run"]],
         "checks": "-M 10", "item": "-M"},
        {"name": "depth_M_judged", "args": ["-M", "50", "-J", "-m", "all_trec", f["graded"], f["run"]],
         "checks": "-M then -J", "item": "-M -J"},
        {"name": "level2_measures", "args": ["-q", "-l2", "-m", "ndcg", "-m", "map", "-m", "P.5,10", "-m", "recip_rank",
                                             "-m", "bpref", "-m", "Rprec", "-m", "set_F", "-m", "infAP",
                                             "-m", "success", "-m", "recall.10,100", f["graded"], f["run"]],
         "checks": "-l 2 for nDCG, map, P, RR, bpref, Rprec, set_F, infAP, success, recall", "item": "-l2"},
        {"name": "level3_all_trec", "args": ["-l3", "-m", "all_trec", f["graded"], f["run"]],
         "checks": "-l3 for every measure of all_trec", "item": "-l3"},
        {"name": "per_query_no_summary", "args": ["-q", "-n", "-m", "official", f["qrels"], f["run100"]],
         "checks": "-q -n: the topics' lines only", "item": "-q -n"},
        {"name": "comment_lines", "args": ["-q", "-m", "official", f["qrels_hash"], f["run_hash"]],
         "checks": "# comment lines in qrels and run (indented in the run); a doc_id with # in it", "item": "# comment lines"},
        {"name": "run_on_stdin", "args": ["-m", "official", f["qrels"], "-"], "stdin": f["run100"],
         "checks": "the run read from standard input", "item": "a run on stdin"},
        {"name": "ties_float32_not_float64", "args": ["-q", "-m", "official", "-m", "ndcg_cut.5,10", f["qrels"],
                                                      f["ties64"]],
         "checks": "scores equal in float32 but not in float64 rank apart (trec_eval 10 holds doubles)",
         "item": "exact ties under --ties float64"},
        {"name": "exact_ties", "args": ["-q", "-m", "official", "-m", "ndcg_cut.5,10", f["qrels"], f["ties"]],
         "checks": "exactly tied scores ranked by doc_id, descending", "item": "ties"},
        {"name": "glued_options", "args": ["-q", "-c", "-M100", "-l2", "-mP.5", "-mndcg_cut.10", "-mnum_rel_ret",
                                           f["graded"], f["run"]],
         "checks": "trec_eval's glued options -M100 -l2 -mP.5, and -c", "item": "command lines"},
        {"name": "parameter_syntax", "args": ["-q", "-m", "P.5,7,3", "-m", "iprec_at_recall..10,.20",
                                              "-m", "ndcg.1=3,2=9,4=4.5", "-m", "relstring.20", f["graded"], f["run"]],
         "checks": "P.5,7,3, iprec_at_recall..10,.20, ndcg.1=3,2=9,4=4.5, relstring.20", "item": "parameter syntax"},
        {"name": "first_parameters_win", "args": ["-m", "official", "-m", "P.5", "-m", "P.10", f["qrels"], f["run"]],
         "checks": "a measure's parameters are those of the first -m that gives some (P_5 only)",
         "item": "command lines"},
        {"name": "extra_fields", "args": ["-q", "-m", "official", f["qrels"], f["extra"]],
         "checks": "run lines with fields after the sixth: ignored", "item": "fields after the sixth"},
        {"name": "topic_order", "args": ["-q", "-m", "map", "-m", "P.5", "-m", "num_rel", f["qrels_order"],
                                         f["run_order"]],
         "checks": "topics printed in strcmp order (10, 100, 9)", "item": "line order"},
        {"name": "short_rankings", "args": ["-q", "-m", "all_trec", f["qrels"], f["short"]],
         "checks": "rankings shorter than every cut-off", "item": "all_trec"},
        {"name": "graded_trec10_measures", "args": ["-q", "-m", "rbp", "-m", "rbp_resid", "-m", "unj", "-m", "G",
                                                    "-m", "Rndcg", "-m", "ndcg_rel", "-m", "binG", "-m", "11pt_avg",
                                                    f["graded"], f["run"]],
         "checks": "rbp, rbp_resid, unj (trec_eval 10), G, Rndcg, ndcg_rel, binG, 11pt_avg on grades 0-4 and -1",
         "item": "the missing all_trec measures"},
        {"name": "topic_without_relevant", "args": ["-q", "-m", "all_trec", f["norel"], f["run100"]],
         "checks": "a qrels topic without a relevant document", "item": "all_trec"},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", required=True, help="trec_eval 10.0's binary")
    args = parser.parse_args()
    files = make_inputs()
    found = cases(files)
    (EDGE / "cases.json").write_text(json.dumps(found, indent=1) + "\n")
    for case in found:
        stdin = (HERE / case["stdin"]).read_bytes() if case.get("stdin") else None
        done = subprocess.run([args.trec_eval, *case["args"]], cwd=HERE, input=stdin, capture_output=True)
        (EDGE / f"{case['name']}.out").write_bytes(done.stdout)
        err = EDGE / f"{case['name']}.err"
        if done.returncode:
            err.write_text(f"exit status {done.returncode}\n{done.stderr.decode()}")
        elif err.exists():
            err.unlink()
        print(f"{case['name']}: exit {done.returncode}, {len(done.stdout.splitlines())} lines")


if __name__ == "__main__":
    main()
