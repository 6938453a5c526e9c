"""Shared fixtures: the real TREC data of ../shared/data (skipped where absent)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("IR_CWLA_SHARED_DATA", ROOT.parent / "shared" / "data"))
DL19 = SHARED_DATA / "trec-dl-2019-passage"
CRANFIELD = SHARED_DATA / "cranfield"

os.environ.setdefault("MPLBACKEND", "Agg")
# ir_datasets reads IR_DATASETS_HOME once, at import (pyterrier-pisa imports it): keep the
# tests' cache out of the user's ~/.ir_datasets, on every machine, before anything imports it
os.environ["IR_DATASETS_HOME"] = tempfile.mkdtemp(prefix="ir_cwla-tests-irds-")


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real data not found at {path} (a user's clone has no ../shared/data; "
                    "set IR_CWLA_SHARED_DATA to point at it)")
    return path


@pytest.fixture(scope="session")
def dl19_dir() -> Path:
    """Directory of the TREC DL 2019 passage qrels and its 37 official runs."""
    return _require(DL19)


@pytest.fixture(scope="session")
def dl19_qrels_path(dl19_dir) -> Path:
    return dl19_dir / "qrels.dl19-passage.txt"


@pytest.fixture(scope="session")
def dl19_run_paths(dl19_dir) -> list[Path]:
    return sorted((dl19_dir / "runs").glob("input.*.gz"))


@pytest.fixture(scope="session")
def cranfield_dir() -> Path:
    return _require(CRANFIELD)


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
