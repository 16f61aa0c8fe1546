# Every target builds the project virtual environment first (PEP 668-safe: nothing is installed
# into the system Python). `make play` installs only what the game needs (the runtime
# dependencies, its own stamp); every other target installs the test and dev extras too (a
# second stamp; made straight from a fresh venv, so CI's first target installs once). Plain
# equivalents of each target are listed in README.md. Tools run as modules of the venv's Python,
# which is bin/python on POSIX and Scripts/python.exe on Windows (lint-imports, which has no
# module entry point, as the venv's script).
PY ?= python3
VENV := .venv
VPY := $(VENV)/$(if $(filter Windows_NT,$(OS)),Scripts/python.exe,bin/python)
SCRIPTS := $(VENV)/$(if $(filter Windows_NT,$(OS)),Scripts,bin)
PIP := $(VPY) -m pip install --quiet --disable-pip-version-check
RUNTIME_STAMP := $(VENV)/.runtime-stamp
STAMP := $(VENV)/.installed-stamp

.PHONY: play test lint typecheck check dist wheels bench clean

# the game and nothing else: onecard and its runtime dependencies
$(RUNTIME_STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(PIP) -e .
	touch $(RUNTIME_STAMP)

# everything: the runtime, the test extras (pytest, hypothesis, ...) and the dev tools
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(PIP) -e '.[test,dev]'
	touch $(STAMP) $(RUNTIME_STAMP)

# Ctrl-C ends the game (status 130) with its own last line; make then adds no "Error 130"
play: $(RUNTIME_STAMP)
	@trap : INT; $(VPY) -m onecard play || [ $$? -eq 130 ]

# The suite starts some 360 `onecard` processes (hosts, clients, bots): the project's bytecode
# is compiled first, so none of them compiles it again where Python may not write it
# (PYTHONDONTWRITEBYTECODE, a read-only checkout): on a clean clone that saved a quarter of
# the suite's CPU time.
test: $(STAMP)
	$(VPY) -m compileall -q host client net protocol onecard
	$(VPY) -m pytest -n auto

# ruff (style, complexity), ruff format (layout), import-linter (the layer contracts in
# pyproject.toml); then the sizes of the largest modules and functions, printed, never a failure
lint: $(STAMP)
	$(VPY) -m ruff check .
	$(VPY) -m ruff format --check .
	$(SCRIPTS)/lint-imports --no-logo
	@$(VPY) .ci/sizes.py

typecheck: $(STAMP)
	$(VPY) -m mypy

check: lint typecheck test

# sdist and wheel as a packager builds them (isolated: hatchling from the package index)
dist: $(STAMP)
	rm -rf dist
	$(VPY) -m build --outdir dist .
	$(VPY) -m twine check --strict dist/*

# the wheel installed in a fresh venv per Python 3.11-3.13 found here, played from elsewhere
wheels: dist
	$(VPY) .ci/wheels.py dist

bench: $(STAMP)
	$(VPY) bench/engine.py
	$(VPY) bench/endings.py
	$(VPY) bench/fairness.py
	$(VPY) bench/masking.py
	$(VPY) bench/private.py
	$(VPY) bench/server.py
	$(VPY) bench/attack.py
	$(VPY) bench/cli_startup.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache .hypothesis dist
