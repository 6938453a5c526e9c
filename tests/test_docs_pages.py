"""Every code block of the documentation and of the README runs and prints its output block.

Every code block of every page of the documentation and of the README runs, in page order, and
prints what its output block shows (the rules: tests/docs_blocks.py; the helpers: tests/test_docs.py).

A file of its own so that ``pytest -n 2 --dist loadfile`` runs the pages beside the site's build
and browser checks (the first file a worker takes: tests/conftest.py, SCHEDULE_FIRST).
"""
from __future__ import annotations

import pytest

from tests import docs_blocks
from tests.test_docs import PAGES, _param, page, run_page


@pytest.mark.parametrize("name", [_param(n) for n in PAGES])
def test_page_code_blocks_run_and_print_what_the_page_shows(name, request, tmp_path):
    found = page(name)
    dl19 = request.getfixturevalue("dl19_dir") if found.shared_data else None
    run_page(found, tmp_path, dl19)


REAL_DATA_PAGE = """<!-- test: needs shared-data -->
A DL19 run scored as ir_measures scores it (`ir_measures` gives nDCG@10 0.6650 for these files):

```bash
zcat input.ICT-BERT2.gz | ir-cwla eval qrels.dl19-passage.txt - -m nDCG@10 RBP_max@10
ls runs | wc -l
```

```text title="output"
runid                 \tall\tICT-BERT2
nDCG@10               \tall\t0.6650
RBP_max@10            \tall\t0.8228
37
```
"""


def test_a_page_marked_shared_data_runs_among_the_dl19_files(dl19_dir, tmp_path):
    found = docs_blocks.parse("shared.md", REAL_DATA_PAGE)
    assert found.shared_data and not found.slow
    run_page(found, tmp_path, dl19_dir)
