"""Run Python in a fresh process: a private ir_datasets cache, sockets disabled.

ir_datasets reads ``IR_DATASETS_HOME`` once, when it is imported (and importing it, which
pyterrier-pisa does, already creates directories there), so tests that touch its cache run
in a child process whose ``IR_DATASETS_HOME`` is a temporary directory: CI machines are
clean and a developer's ``~/.ir_datasets`` is never written. A ``sitecustomize`` on the
child's path replaces socket connections and DNS look-ups with an error, so any attempt
to download fails loudly instead of silently succeeding on a connected machine.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NO_NETWORK_MESSAGE = "network access attempted in an offline test"
SITECUSTOMIZE = f'''
import socket

def _refuse(*args, **kwargs):
    raise OSError({NO_NETWORK_MESSAGE!r})

socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
'''


def offline_env(tmp: Path) -> dict[str, str]:
    """Environment of an offline child: ``IR_DATASETS_HOME=tmp/irds``, the blocker on its path."""
    site = tmp / "offline-site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ)
    env["IR_DATASETS_HOME"] = str(tmp / "irds")
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["MPLBACKEND"] = "Agg"
    env.pop("IR_DATASETS_OFFLINE", None)
    return env


def run_offline(args: list[str], tmp: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    """``python ARGS`` offline (see the module docstring), from the repository root."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=offline_env(tmp), capture_output=True,
                          text=True, timeout=timeout)


def run_offline_code(code: str, tmp: Path, *argv: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Runs ``code`` offline with ``sys.argv[1:] = argv``; raises with the child's stderr if it fails."""
    proc = run_offline(["-c", code, *argv], tmp, timeout)
    if proc.returncode != 0:
        raise AssertionError(f"offline child failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc
