"""The application on top of the library: the ``ir-cwla`` command line, the report, the demo.

* :mod:`.cli` -- the ``ir-cwla`` parser and :func:`~ir_cwla.app.cli.main`;
* :mod:`.commands` -- one module per command: its options, its plan, the function that executes it;
* :mod:`.evaluate` -- what ``ir-cwla eval`` does, as functions (score runs, format results);
* :mod:`.report` -- the self-contained HTML report;
* :mod:`.systems` -- the 15 PISA / bm25s retrieval systems of the demo;
* :mod:`.demo` -- the offline end-to-end demo on Cranfield (``make demo``).

Nothing in :mod:`ir_cwla` below this folder imports from it.
"""
