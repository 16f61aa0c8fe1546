# Every target builds the project virtual environment first (PEP 668-safe: nothing is installed
# into the system Python). Plain equivalents of each target are listed in README.md. Tools run
# as modules of the venv's Python, which is bin/python on POSIX and Scripts/python.exe on Windows.
PY ?= python3
VENV := .venv
VPY := $(VENV)/$(if $(filter Windows_NT,$(OS)),Scripts/python.exe,bin/python)
STAMP := $(VENV)/.installed-stamp

.PHONY: play test lint typecheck check bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -e '.[test,dev]'
	touch $(STAMP)

play: $(STAMP)
	$(VPY) -m onecard play

test: $(STAMP)
	$(VPY) -m pytest -n auto

lint: $(STAMP)
	$(VPY) -m ruff check .
	$(VPY) -m ruff format --check .

typecheck: $(STAMP)
	$(VPY) -m mypy

check: lint typecheck test

bench: $(STAMP)
	$(VPY) bench/engine.py
	$(VPY) bench/endings.py
	$(VPY) bench/fairness.py
	$(VPY) bench/server.py
	$(VPY) bench/attack.py
	$(VPY) bench/cli_startup.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
