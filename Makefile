# Every target builds the project virtual environment first (PEP 668-safe: nothing is installed
# into the system Python). Plain equivalents of each target are listed in README.md. Tools run
# as modules of the venv's Python, which is bin/python on POSIX and Scripts/python.exe on Windows.
PY ?= python3
VENV := .venv
VPY := $(VENV)/$(if $(filter Windows_NT,$(OS)),Scripts/python.exe,bin/python)
STAMP := $(VENV)/.installed-stamp

.PHONY: play test lint typecheck check dist wheels bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -e '.[test,dev]'
	touch $(STAMP)

# Ctrl-C ends the game (status 130) with its own last line; make then adds no "Error 130"
play: $(STAMP)
	@trap : INT; $(VPY) -m onecard play || [ $$? -eq 130 ]

test: $(STAMP)
	$(VPY) -m pytest -n auto

lint: $(STAMP)
	$(VPY) -m ruff check .
	$(VPY) -m ruff format --check .

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
	$(VPY) bench/server.py
	$(VPY) bench/attack.py
	$(VPY) bench/cli_startup.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis dist
