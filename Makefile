# Two commands on a fresh machine: `make demo` and `make test` (`make test-fast` while working).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export MPLBACKEND := Agg

.PHONY: demo test test-fast lint bench docs clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.demo-installed: $(BIN)/python setup.cfg
	$(BIN)/python -m pip install --quiet -e '.[systems]'
	touch $@

$(VENV)/.docs-installed: $(BIN)/python setup.cfg
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

$(VENV)/.test-installed: $(BIN)/python setup.cfg
	$(BIN)/python -m pip install --quiet -e '.[test,systems,dask]'
	touch $@

demo: $(VENV)/.demo-installed
	$(BIN)/ir-cwla demo --out report

lint: $(VENV)/.test-installed
	$(BIN)/ruff check ir_cwla tests examples benchmarks docs/_tools
	$(BIN)/mypy

# every test; -rs lists each skip with its reason (on a fresh clone: only the realdata tests,
# which need ../shared/data or IR_CWLA_SHARED_DATA, see the README; and, on a machine without
# make or a C compiler, the comparisons with trec_eval, which build it from tests/data/trec_eval)
test: $(VENV)/.test-installed
	$(BIN)/ruff check ir_cwla tests examples benchmarks docs/_tools
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -rs -n 2 --dist loadfile --no-loadscope-reorder --durations=15

# the tier to run while working: everything but the slow tests (mpmath tail sums, the demo,
# Dask, PISA systems); the engine's reference and equivalence checks on the synthetic
# collection included
test-fast: $(VENV)/.test-installed
	$(BIN)/ruff check ir_cwla tests examples benchmarks docs/_tools
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -rs -n 2 --dist loadfile --no-loadscope-reorder -m "not slow"

# the documentation site in site/: strict (any warning fails), offline (no CDN, no web fonts)
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --clean

bench: $(VENV)/.test-installed
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) report build site *.egg-info
