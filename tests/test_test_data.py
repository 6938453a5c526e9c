"""The test data rules of tests/conftest.py hold.

Only conftest knows where the real data lives, and every test that uses it is marked
realdata (so a fresh clone skips nothing else).
"""
from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import COLLECTED

HERE = Path(__file__).resolve().parent
WHERE_THE_DATA_IS = re.compile(r"SHARED_DATA|[\"']shared[\"']|/shared/data|trec-dl-2019-passage[\"'/]")


def test_only_conftest_knows_where_the_real_data_is():
    offenders = [f"{path.name}:{n}" for path in sorted(HERE.glob("*.py")) if path.name not in ("conftest.py", Path(__file__).name)
                 for n, line in enumerate(path.read_text().splitlines(), start=1) if WHERE_THE_DATA_IS.search(line)]
    assert not offenders, f"read the real data through the fixtures of tests/conftest.py: {offenders}"


def test_tests_parametrised_with_real_data_are_marked(request):
    items = request.config.stash[COLLECTED]
    real = [item for item in items if re.search(r"\[(dl19|cranfield)\b", item.name)]
    assert all(item.get_closest_marker("realdata") for item in real), \
        [item.nodeid for item in real if not item.get_closest_marker("realdata")]
    synthetic = [item for item in items if re.search(r"\[synthetic", item.name)]
    assert not [item.nodeid for item in synthetic if item.get_closest_marker("realdata")]


def test_the_schedule_names_test_files_that_exist(request):
    """The files conftest schedules first exist, each once, and come first in the run's order."""
    from tests.conftest import SCHEDULE_FIRST

    assert len(set(SCHEDULE_FIRST)) == len(SCHEDULE_FIRST)
    missing = [name for name in SCHEDULE_FIRST if not (HERE / name).is_file()]
    assert not missing, f"tests/conftest.py schedules test files that do not exist: {missing}"
    order = [item.path.name for item in request.config.stash[COLLECTED]]
    ranks = [SCHEDULE_FIRST.index(n) if n in SCHEDULE_FIRST else len(SCHEDULE_FIRST) for n in order]
    assert ranks == sorted(ranks)
