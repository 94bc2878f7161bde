# Hearth: one-command setup, run, test and benchmarks.
# Everything lands in .venv (created with the stock python3) and models/ (fetched, verified).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.hearth-installed
BENCH_STAMP := $(VENV)/.hearth-bench-installed

.PHONY: setup models run lint check test bench package screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

models: $(STAMP)
	$(BIN)/python tools/fetch_models.py

setup: $(STAMP) models
	bash tools/ensure_qt_libs.sh

run: setup
	bash tools/ensure_qt_libs.sh --window
	$(BIN)/hearth-desktop

# The linter, the type checker and the layer contracts (all configured in pyproject.toml);
# `make test` runs them first.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# The inner loop: lint and the fast tier (no model server, PostgreSQL, child processes or test
# over a second: tests/support/tiers.py), under 3 minutes on 2 cores. CI runs `make test`.
check: setup lint
	$(BIN)/python -m pytest -n auto --dist loadfile -m "not integration"

# One worker per core; each test file stays on one worker, so its module fixtures are built once.
test: setup lint
	bash tools/ensure_test_tools.sh
	$(BIN)/python -m pytest -n auto --dist loadfile

# The benchmarks also install the bench extra (pyproject.toml): the engines that
# benchmarks/fulltext_engines.py compares with FTS5. `make test` never installs it.
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

bench: setup $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

# One-folder bundle of the desktop app in dist/hearth (see packaging/README.md);
# packaging/install.sh installs it with its menu entry, icon and models.
package: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[package]'
	$(BIN)/pyinstaller packaging/hearth.spec --noconfirm --distpath dist --workpath build/pyinstaller

screenshots: setup
	QT_QPA_PLATFORM=offscreen $(BIN)/python tools/screenshots.py docs/screenshots
	QT_QPA_PLATFORM=offscreen $(BIN)/python tools/screenshots.py docs/screenshots/dark --theme dark

clean:
	rm -rf $(VENV) models
