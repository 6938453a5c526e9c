"""The measures and runs whose scores ``dl19_scores.npz`` pins (see ``make_golden.py``)."""
from __future__ import annotations

from ir_cwla import CWLA, table1

#: Plain, tied (UNH_bm25, runid2 in float32), depth 20 and 50, 500, neural, and runs whose
#: topics have 5, 37 and ~1000 documents (TUA1-1, runid2).
GOLDEN_RUNS = ["bm25base_p", "UNH_bm25", "runid2", "ICT-BERT2", "ICT-CKNRM_B50", "idst_bert_p1",
               "TUA1-1", "srchvrs_ps_run2", "p_bert"]

_PAD_OK = [m(tail="pad") for m in table1() if not (m["C"] == "ERR" and m["A"] == "ERG")]

#: Table 1 under both tails, every model over whole rankings (no cutoff), odd parameters.
GOLDEN_MEASURES = list(table1()) + _PAD_OK + [
    CWLA(C=c, A=a, tail=t) for c in ("RBP", "INST", "INSQ", "AP", "ERR", "RR")
    for a in ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR") for t in ("stop", "pad")
    if not (a == "ERR" and c in ("RBP", "INSQ")) and not (t == "pad" and a == "ERG" and c in ("ERR", "RR"))
] + [CWLA(C="RBP", A="avg", p=0.95, tail="pad"), CWLA(C="INST", A="PE", T=0.3, beta=0.2) @ 20,
     CWLA(C="INST", A="avg", T=1.0, tail="pad") @ 5, CWLA(C="ERR", A="max", gain="lin") @ 7,
     CWLA(C="AP", A="ERG", rel=2, tail="pad") @ 30, CWLA(C="RBP", A="ERG", gain="exp", tail="pad") @ 10,
     CWLA(C="DCG", A="ETG", rel=2) @ 5]
