"""Shared fixtures: the synthetic collection (every clone) and the real TREC data of ../shared/data.

Two kinds of test data:

- the seeded synthetic collection of :mod:`tests.synthetic` (``synthetic_collection`` as
  frames, ``synthetic_files`` as TREC files), always there;
- the real TREC DL 2019 passage qrels and runs and the raw Cranfield files, which NIST's and
  Glasgow's terms keep out of the repository. They are looked for in ``../shared/data`` beside
  the clone, or wherever ``IR_CWLA_SHARED_DATA`` points (the README says where to get them).

Every test that needs the real data gets it through the fixtures of :data:`REAL_DATA_FIXTURES`
and is marked ``realdata`` automatically (``pytest -m "not realdata"`` leaves them out); where the
data is absent it is skipped with a reason naming the path and ``IR_CWLA_SHARED_DATA``. A test
that picks its data by parameter (``request.getfixturevalue``) marks its real-data parameters
with ``pytest.mark.realdata`` itself; an unmarked test that skips for missing data fails, so a
fresh clone skips nothing but ``realdata`` tests.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import synthetic

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data"))
DL19 = SHARED_DATA / "trec-dl-2019-passage"
CRANFIELD = SHARED_DATA / "cranfield"
LLM_JUDGMENTS = SHARED_DATA / "llm-judgments"
DL21 = LLM_JUDGMENTS / "dl21"
IMAGE_SEARCH = SHARED_DATA / "user-satisfaction" / "image-search"
REAL_DATA_FIXTURES = frozenset({"dl19_dir", "dl19_qrels_path", "dl19_run_paths", "dl19_files", "cranfield_dir",
                                "dl21_dir", "image_search_dir", "image_search", "llm_dir"})
MISSING = "real data not found at"
#: Where a skip for missing real data sends the reader: (page, heading), checked by tests/test_docs.py.
DATA_SECTION = ("docs/data.md", "The real data of the tests")

# nothing in the suite depends on the machine being idle (issue 19): Hypothesis' per-example
# deadline and its "generation too slow" health check are time limits, off for every test
settings.register_profile("ir_cwla", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ir_cwla")

os.environ.setdefault("MPLBACKEND", "Agg")
# ir_datasets reads IR_DATASETS_HOME once, at import (pyterrier-pisa imports it): keep the
# tests' cache out of the user's ~/.ir_datasets, on every machine, before anything imports it
os.environ["IR_DATASETS_HOME"] = tempfile.mkdtemp(prefix="ir_cwla-tests-irds-")


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{MISSING} {path} (a fresh clone has no ../shared/data; set "
                    f"IR_CWLA_SHARED_DATA=/path/to/shared/data, see '{DATA_SECTION[1]}' in {DATA_SECTION[0]})")
    return path


COLLECTED = pytest.StashKey[list]()

# How ``make test`` shares the suite between two workers (``-n 2 --dist loadfile
# --no-loadscope-reorder``): a test file is one unit of work, which keeps its module fixtures
# (a demo run, a cluster, an index) on one worker, and the longest files go first, so that no
# worker is left alone at the end with one of them (longest processing time first; xdist's
# default order puts the files with the most tests first, whatever their length). The order comes
# from ``--durations`` on two cores with the real data, 2026-12-02, longest first. (xdist's
# ``loadgroup``, which could split a file, does not work with pytest 9: it renames ``_nodeid``,
# which pytest 9 no longer reads.)
SCHEDULE_FIRST = ("test_docs_pages.py", "test_cwl_command.py", "test_demo.py", "test_findings.py",
                  "test_docs.py", "test_compare_dl19.py", "test_trec_eval_measures.py", "test_kernel_reference.py", "test_costs.py",
                  "test_sharding_dask.py", "test_leaderboard_example.py", "test_cli_judges.py", "test_unjudged.py",
                  "test_reports_browser.py", "test_meta_dask.py", "test_cli_eval.py", "test_output_formats.py",
                  "test_hashseed.py", "test_readers.py", "test_meta_disjoint.py", "test_llm_judges_findings.py")


@pytest.hookimpl(tryfirst=True)       # before pytest and xdist read the order
def pytest_collection_modifyitems(config, items):
    """Marks ``realdata`` every test whose fixtures (direct or indirect) include a real-data one.

    And puts the longest files first (:data:`SCHEDULE_FIRST`), the order within a file kept.
    """
    first = {name: rank for rank, name in enumerate(SCHEDULE_FIRST)}
    for item in items:
        if REAL_DATA_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.realdata)
    items.sort(key=lambda item: first.get(item.path.name, len(first)))     # (a stable sort)
    config.stash[COLLECTED] = list(items)     # for tests/test_test_data.py


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test skipped for missing real data must be marked ``realdata``: fail it otherwise."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and MISSING in str(report.longrepr) and item.get_closest_marker("realdata") is None:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} needs the real data but is not marked realdata: request it through "
                           f"the fixtures of tests/conftest.py or mark its parameter pytest.mark.realdata")


# -- the synthetic collection (every clone) ------------------------------------------------------

@pytest.fixture(scope="session")
def synthetic_collection() -> synthetic.Collection:
    """The seeded synthetic collection (:func:`tests.synthetic.make_collection`) as frames."""
    return synthetic.make_collection(synthetic.SEED)


@pytest.fixture(scope="session")
def synthetic_files(synthetic_collection, tmp_path_factory) -> synthetic.Files:
    """The synthetic collection as TREC files (half the runs gzipped)."""
    return synthetic_collection.write(tmp_path_factory.mktemp("synthetic"))


# -- trec_eval, built from its source (tests/trec_eval_build.py) ------------------------------------

@pytest.fixture(scope="session", params=[10, 9], ids=["trec_eval10", "trec_eval9"])
def trec_eval_build(request) -> tuple[int, Path]:
    """``(version, binary)`` of trec_eval 10.0 and 9.0.8.

    The binary named by ``IR_CWLA_TREC_EVAL`` (10.0) or ``IR_CWLA_TREC_EVAL_9`` (9.0.8) where it
    is set; otherwise the one built from the source in tests/data/trec_eval with the system's
    ``make`` and C compiler, into build/tests/ (once, then reused: :mod:`tests.trec_eval_build`).
    Where it cannot be built (no ``make``, no compiler, a failed build) the test is skipped,
    saying why.
    """
    from tests.trec_eval_build import Unavailable, trec_eval

    try:
        return request.param, trec_eval(request.param)
    except Unavailable as exc:
        pytest.skip(exc.says("see tests/data/trec_eval/README.md"))


# -- the real data (skipped where absent) --------------------------------------------------------

@pytest.fixture(scope="session")
def dl19_dir() -> Path:
    """Directory of the TREC DL 2019 passage qrels and its 37 official runs."""
    return _require(DL19)


@pytest.fixture(scope="session")
def dl21_dir() -> Path:
    """Directory of TREC DL 2021 passage: NIST's qrels (53 topics) and the 63 official runs (``runs/*.gz``)."""
    return _require(DL21 / "qrels.nist.txt").parent


@pytest.fixture(scope="session")
def dl19_qrels_path(dl19_dir) -> Path:
    return dl19_dir / "qrels.dl19-passage.txt"


@pytest.fixture(scope="session")
def dl19_run_paths(dl19_dir) -> list[Path]:
    return sorted((dl19_dir / "runs").glob("input.*.gz"))


@pytest.fixture(scope="session")
def dl19_files(dl19_dir, dl19_qrels_path, dl19_run_paths) -> synthetic.Files:
    """DL19 in the shape of :class:`tests.synthetic.Files` (runs by run id)."""
    runs = {p.name[len("input."):-len(".gz")]: p for p in dl19_run_paths}
    return synthetic.Files(dl19_qrels_path, runs, dl19_dir / "topics.dl19-passage.txt")


@pytest.fixture(scope="session")
def cranfield_dir() -> Path:
    return _require(CRANFIELD)


@pytest.fixture(scope="session")
def image_search_dir() -> Path:
    """Shao et al.'s (TOIS 2019) image-search user study: satisfaction and row grades of 1,119 queries."""
    return _require(IMAGE_SEARCH)


@pytest.fixture(scope="session")
def image_search(image_search_dir):
    """``(pages, ratings)`` of the image-search study (:func:`ir_cwla.datasets.image_search.read_image_search`)."""
    from ir_cwla.datasets.image_search import read_image_search

    return read_image_search(image_search_dir)


@pytest.fixture(scope="session")
def llm_dir() -> Path:
    """The LLM judgments of ../shared/data/llm-judgments.

    DL21 (runs, NIST's and GPT-4's qrels of disjoint topics), DL23 (NIST's and GPT-4's grades of the
    same pairs, per-topic scores of 35 runs) and the LLMJudge challenge's label sets.
    """
    return _require(LLM_JUDGMENTS)


@pytest.fixture(scope="module")
def dask_client():
    """A 2-worker Dask ``LocalCluster`` and its client, one per test module.

    One thread per worker process, loopback only; the Dask tests kill workers, so a module's
    cluster is its own.
    """
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address="127.0.0.1:0", silence_logs=50)
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium (the system's, driven by playwright); skips where there is none."""
    from tests.browser import browser_or_skip, close_browser

    launched = browser_or_skip()
    yield launched
    close_browser(launched)


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory) -> Path:
    """Directory for screenshots and other test artifacts (``IR_CWLA_TEST_ARTIFACTS``)."""
    from tests.browser import artifact_dir

    return artifact_dir(tmp_path_factory)


@pytest.fixture
def allow_tmp_cost_files(tmp_path_factory, monkeypatch):
    """Lets measure strings read the cost files the tests write under pytest's tmp directory.

    Lets measure strings read the cost files the tests write under pytest's temporary
    directory (a measure names a file only with an opt-in: ir_cwla.costs).
    """
    from ir_cwla.measures._costs import COST_FILES_ENV

    monkeypatch.setenv(COST_FILES_ENV, str(tmp_path_factory.getbasetemp()))
