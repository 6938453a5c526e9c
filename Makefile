# Two commands on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export MPLBACKEND := Agg

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.demo-installed: $(BIN)/python setup.cfg
	$(BIN)/python -m pip install --quiet -e '.[systems]'
	touch $@

$(VENV)/.test-installed: $(BIN)/python setup.cfg
	$(BIN)/python -m pip install --quiet -e '.[test,systems,dask]'
	touch $@

demo: $(VENV)/.demo-installed
	$(BIN)/ir-cwla demo --out report

lint: $(VENV)/.test-installed
	$(BIN)/ruff check ir_cwla tests examples benchmarks

test: $(VENV)/.test-installed
	$(BIN)/ruff check ir_cwla tests examples benchmarks
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=15

bench: $(VENV)/.test-installed
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) report build *.egg-info
