# Hearth: one-command setup, run, test and benchmarks.
# Everything lands in .venv (created with the stock python3) and models/ (fetched, verified).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.hearth-installed

.PHONY: setup models run test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

models: $(STAMP)
	$(BIN)/python tools/fetch_models.py

setup: $(STAMP) models

run: setup
	$(BIN)/hearth status

test: setup
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) models
