"""TREC run files of real systems on the bundled Cranfield collection, offline, without Java.

Writes one run file per system (``OUT/NAME.run``, 1000 documents per topic) and the Cranfield
qrels with ir_cwla's conventions (``OUT/../cranfield.qrels``: grades remapped so that larger is
more relevant, grade -1 judged non-relevant; see ``ir_cwla.datasets.cranfield_qrels``), to try
``ir-cwla eval``, ``meta``, ``compare`` and ``cwl`` on. The systems are those of
``ir_cwla.app.systems`` (pyterrier-pisa and bm25s).

Run:  python examples/cranfield_runs.py [OUT] [--systems PISA-BM25,PISA-DPH,bm25s-bm25l]
      (needs: pip install 'ir-cwla[systems]'; OUT defaults to runs/)
"""
import argparse
import tempfile
from pathlib import Path

import pyterrier as pt

from ir_cwla import datasets
from ir_cwla.app import systems

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("out", nargs="?", default="runs", help="directory of the run files (default runs/)")
parser.add_argument("--systems", default="PISA-BM25,PISA-DPH,bm25s-bm25l",
                    help="comma-separated names of ir_cwla.app.systems.SYSTEMS (default: three)")
args = parser.parse_args()

out = Path(args.out)
out.mkdir(parents=True, exist_ok=True)
datasets.ensure_cranfield()
topics = pt.get_dataset("irds:cranfield").get_topics()
qrels = datasets.cranfield_qrels()
qrels_path = out.resolve().parent / "cranfield.qrels"
qrels.assign(iteration="0")[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
    qrels_path, sep=" ", header=False, index=False)
with tempfile.TemporaryDirectory() as workdir:
    for name, system in systems.cranfield_systems(workdir, args.systems.split(",")).items():
        pt.io.write_results(system.transform(topics), str(out / f"{name}.run"))
        print(f"{out / (name + '.run')}")
print(qrels_path.relative_to(Path.cwd()) if qrels_path.is_relative_to(Path.cwd()) else qrels_path)
