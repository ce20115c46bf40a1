# Mapwright: the README's two quick-start commands.
#   make run   - create .venv, install Mapwright, open the designer on the bundled sample
#   make test  - create .venv if needed, install the test extras, run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test check-python check-java lint clean

run: $(VENV)/.installed
	$(BIN)/mapwright designer $(MODEL)

test: $(VENV)/.installed-test check-java
	$(BIN)/python -m pytest $(PYTEST_ARGS)

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "Mapwright needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1)." >&2; exit 1; }

check-java: $(VENV)/.installed
	@$(BIN)/python -m engine.java

$(VENV)/.installed: pyproject.toml | check-python
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $@

lint: $(VENV)/.installed-test
	$(BIN)/ruff check engine designer tests
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
