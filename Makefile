# Mapwright: the README's two quick-start commands.
#   make run   - create .venv, install Mapwright, open the designer on the bundled sample
#   make test  - create .venv if needed, install the test extras, run the whole test suite
#   make explore - run the property tests ROUNDS times on new random examples (`make test` replays fixed ones)
#   make bench - run every benchmark (not part of `make test`); SIZES=100000,1000000 for B2's full set
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

# Qt's X11 and offscreen platforms need these system libraries; installed when missing and we may (root + apt).
QT_SYSTEM_PACKAGES := libegl1 libgl1 libfontconfig1 libxkbcommon0 libxkbcommon-x11-0 libdbus-1-3 \
	libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-render-util0 libxcb-image0 libxcb-shape0
# The tests start a real PostgreSQL server (initdb/pg_ctl from Debian's package).
TEST_SYSTEM_PACKAGES := postgresql

# B2's sizes (change events); the default finishes in a few minutes on 2 cores.
SIZES ?= 10000

ROUNDS ?= 10

# `make test`'s pytest workers (pytest-xdist). A test waits on a JVM, a run's driver or a server much of its
# time, so two workers keep a 2-core machine busy: the whole suite 986 -> 779 s there (2026-11-26).
TEST_WORKERS ?= 2

.PHONY: run test explore bench check-python check-java spark-classes system-deps test-system-deps lint docs package clean

run: $(VENV)/.installed system-deps
	@$(BIN)/python -m engine.spark.classarchive --background
	@$(BIN)/python -m compileall -q engine designer resources >/dev/null  # what changed since the install
	$(BIN)/mapwright designer $(MODEL)

test: $(VENV)/.installed-test check-java system-deps test-system-deps spark-classes
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

explore: $(VENV)/.installed-test check-java spark-classes
	@for i in $$(seq $(ROUNDS)); do echo "explore: round $$i of $(ROUNDS)"; \
	  MAPWRIGHT_EXPLORE=1 $(BIN)/python -m pytest -q -p no:cacheprovider $$(grep -rl '@given' tests | sort) || exit 1; done

bench: $(VENV)/.installed check-java spark-classes  # results in benchmarks/results/
	$(BIN)/python benchmarks/bench_validation.py
	$(BIN)/python benchmarks/bench_validation.py --b1
	$(BIN)/python benchmarks/bench_designer.py
	$(BIN)/python benchmarks/bench_preview.py
	$(BIN)/python benchmarks/bench_inprocess.py
	$(BIN)/python benchmarks/bench_run.py
	$(BIN)/python -m benchmarks.bench_b2 --sizes $(SIZES)

system-deps:
	@$(call apt_install,$(QT_SYSTEM_PACKAGES),Qt's system libraries,the designer will name what it lacks (tests run offscreen))

test-system-deps:
	@$(call apt_install,$(TEST_SYSTEM_PACKAGES),the PostgreSQL server the tests start,the PostgreSQL tests will say why they cannot start one)

# $(call apt_install,PACKAGES,WHAT,IF-NOT): install the missing PACKAGES when we may (Linux, root, apt); warn otherwise.
apt_install = if [ "$$(uname)" = Linux ] && command -v dpkg >/dev/null && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then echo "installing $(2):$$missing"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } \
	      || echo "could not install$$missing: $(3)"; fi; \
	fi

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "Mapwright needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1)." >&2; exit 1; }

check-java: $(VENV)/.installed
	@$(BIN)/python -m engine.java

# Spark's class archive (engine/spark/classarchive.py): recorded once per Java and Spark, about a minute;
# every later Spark session starts about 3 s sooner. `make run` records it in the background.
spark-classes: $(VENV)/.installed check-java
	@$(BIN)/python -m engine.spark.classarchive

$(VENV)/.installed: pyproject.toml | check-python
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@# the project's own bytecode, once (an editable install compiles none, and where PYTHONDONTWRITEBYTECODE
	@# is set no import writes it): every process of a run, the driver and Spark's Python daemon, imports
	@# the engine about 0.5 s sooner
	$(BIN)/python -m compileall -q -j 0 engine designer
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $@

# the linters CI runs before the tests: ruff, mypy --strict on engine/ and designer/ (pyproject's [tool.mypy]),
# and import-linter's contracts (the engine never imports Qt or the designer)
lint: $(VENV)/.installed-test
	$(BIN)/ruff check engine designer tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

# The documentation site (docs/, MkDocs) in build/site: the validation codes' pages are written from the rule
# registry first (docs/gen_codes.py), and --strict fails on any warning (a broken link or anchor).
docs: $(VENV)/.installed-test
	$(BIN)/python docs/gen_codes.py
	$(BIN)/mkdocs build --strict

# The wheel (dist/mapwright-VERSION-py3-none-any.whl) and the application (dist/mapwright/, PyInstaller, from
# packaging/mapwright.spec), then packaging/smoke.py tries the application as a user would (validate, a run in
# process, the designer's screenshot). Offline once the `package` extra is installed.
package: $(VENV)/.installed-package
	rm -rf build/lib build/bdist.* dist/mapwright dist/mapwright-*.whl  # no module of an earlier build survives
	$(BIN)/python -m build --wheel --no-isolation --outdir dist .
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/mapwright.spec
	$(BIN)/python packaging/smoke.py dist/mapwright/mapwright

$(VENV)/.installed-package: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[package]'
	touch $@

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
