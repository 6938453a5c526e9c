"""``python -m ir_cwla ...`` is the ``ir-cwla`` command (see :mod:`ir_cwla.app.cli`)."""
import sys

from ir_cwla.app.cli import run

if __name__ == "__main__":
    sys.exit(run())
