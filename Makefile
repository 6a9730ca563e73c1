# Everything a developer or CI needs starts here; only Python 3.11+ is assumed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test lint typecheck unit play bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP) lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check protocol server client tests bench
	$(BIN)/ruff format --check protocol server client tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

play: $(STAMP)
	$(BIN)/ballroom play

bench: $(STAMP)
	$(BIN)/python bench/engine.py

# The race server under load, next to its baselines (docs/performance.md); a few minutes.
.PHONY: bench-load
bench-load: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.race_load

# Ten minutes of steady racing on two nodes, then every race replayed and
# checked (docs/reliability.md). SOAK_ARGS passes options, e.g. --seconds 60.
.PHONY: soak
soak: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.soak $(SOAK_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
