# Every target installs first: a fresh clone needs only `make demo` or `make test`.
SHELL := /bin/bash
# uv from PATH when present; otherwise the one pip installs, run as a module wherever pip put it
UV ?= $(shell command -v uv 2>/dev/null || echo python3 -m uv)
VENV := .venv
PY := $(VENV)/bin/python
DEMO_DIR ?= demo-data

.PHONY: install install-spark demo demo-kafka test lint typecheck pytest bench fuzz clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml uv.lock
	@$(UV) --version >/dev/null 2>&1 || python3 -m pip install --quiet uv
	$(UV) sync --frozen --quiet --inexact
	@touch $@

# the optional extra spark (pyspark, dagster-pyspark) for the tests and benchmarks of
# `uth reaudit --engine spark`; the default install and `make demo` need no JVM (install
# syncs --inexact: it leaves the extra in place when pyproject.toml changed since)
install-spark: $(VENV)/.installed-spark

$(VENV)/.installed-spark: $(VENV)/.installed
	$(UV) sync --frozen --quiet --extra spark
	@touch $@

lint: install
	$(VENV)/bin/ruff check events pipeline dashboards tests

typecheck: install
	$(VENV)/bin/mypy

pytest: install-spark
	$(VENV)/bin/pytest -q

test: lint typecheck pytest

demo: install
	$(VENV)/bin/uth demo --dir $(DEMO_DIR)

demo-kafka: install
	$(VENV)/bin/uth demo --dir $(DEMO_DIR)-kafka --kafka

bench: install-spark
	$(PY) -m tests.bench.run_all

fuzz: install
	HYPOTHESIS_PROFILE=fuzz $(VENV)/bin/pytest -q tests -k fuzz

clean:
	rm -rf $(VENV) build $(DEMO_DIR) $(DEMO_DIR)-kafka .pytest_cache .mypy_cache .ruff_cache
