"""The application on top of the library: the ``ir-cwla`` command line, the report, the demo.

* :mod:`.cli` -- argument parsing and printing only;
* :mod:`.evaluate` -- what ``ir-cwla eval`` does, as functions (score runs, format results);
* :mod:`.report` -- the self-contained HTML report;
* :mod:`.systems` -- the 15 PISA / bm25s retrieval systems of the demo;
* :mod:`.demo` -- the offline end-to-end demo on Cranfield (``make demo``).

Nothing in :mod:`ir_cwla` below this folder imports from it.
"""
