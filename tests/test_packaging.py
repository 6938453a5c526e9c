"""Packaging: metadata in setup.cfg, only [build-system] in pyproject.toml.

Packaging: metadata in setup.cfg, pyproject.toml with [build-system] only, a quiet build whose
wheel ships the bundled data (issue 18, item 9).
"""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_layout_the_user_asked_for():
    pyproject = (ROOT / "pyproject.toml").read_text()
    sections = [line.strip() for line in pyproject.splitlines() if line.strip().startswith("[")]
    assert sections == ["[build-system]"]
    setup = (ROOT / "setup.cfg").read_text()
    for section in ("[metadata]", "[options]", "[options.extras_require]", "[options.entry_points]"):
        assert section in setup
    assert "ir-cwla = ir_cwla.app.cli:run" in setup


@pytest.mark.slow
def test_the_wheel_builds_without_a_warning_and_ships_the_data(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "!!" not in done.stderr, done.stderr
    wheel = next(tmp_path.glob("ir_cwla-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "ir_cwla/data/cran.tar.gz" in names and "ir_cwla/data/instance_prices.csv" in names
    assert "ir_cwla/meta/criteria.py" in names and not any(n.startswith("tests/") for n in names)
    # the engine's rooms, their facades and private modules (issue 30)
    assert {"ir_cwla/io/__init__.py", "ir_cwla/io/_frames.py", "ir_cwla/measures/__init__.py",
            "ir_cwla/measures/_measure.py", "ir_cwla/scoring/__init__.py", "ir_cwla/scoring/_kernel.py",
            "ir_cwla/provider/__init__.py", "ir_cwla/provider/_provider.py", "ir_cwla/_facade.py"} <= set(names)
