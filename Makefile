# Every target builds the project virtual environment first (PEP 668-safe: nothing is installed
# into the system Python). Plain equivalents of each target are listed in README.md.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: play test lint typecheck check bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,dev]'
	touch $(STAMP)

# Ctrl-C ends the game (status 130) with its own last line; make then adds no "Error 130"
play: $(STAMP)
	@trap : INT; $(BIN)/onecard play || [ $$? -eq 130 ]

test: $(STAMP)
	$(BIN)/python -m pytest -n auto

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/endings.py
	$(BIN)/python bench/fairness.py
	$(BIN)/python bench/server.py
	$(BIN)/python bench/attack.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
