# Every target builds .venv itself, so a fresh clone needs only python3 (>= 3.11) and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
REFIND := $(VENV)/bin/refind
DEMO_HOME := $(CURDIR)/.demo-home
STAMP := $(VENV)/.installed

.PHONY: venv demo test lint typecheck format bench fuzz clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@# --upgrade-deps: the pip that installs refind writes the `refind` script as a user's pip does (before 25,
	@# its script imported re at every start).
	$(PYTHON) -m venv --upgrade-deps $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	@# An editable install leaves our modules uncompiled; where bytecode writing is off, every run would
	@# compile them again (~40 ms of each `refind search`).
	$(PY) -m compileall -q refind_cli
	touch $(STAMP)

demo: $(STAMP)
	rm -rf $(DEMO_HOME)
	$(REFIND) --home $(DEMO_HOME) import --tz Europe/Berlin sample_exports
	$(REFIND) --home $(DEMO_HOME) chats --tz Europe/Berlin --sort recent
	$(REFIND) --home $(DEMO_HOME) search "dentist appointment" --tz Europe/Berlin -k 3
	$(REFIND) --home $(DEMO_HOME) search "email reschedule dentist" --source chatgpt --source claude --tz Europe/Berlin -k 1
	$(REFIND) --home $(DEMO_HOME) search "dentist" --timeline --tz Europe/Berlin -k 1
	$(REFIND) --home $(DEMO_HOME) stats --chat team-data --tz Europe/Berlin
	$(REFIND) --home $(DEMO_HOME) ask --offline --tz Europe/Berlin "when did I move the dentist appointment?"

test: $(STAMP)
	$(VENV)/bin/ruff check refind_cli tests bench fuzz
	$(VENV)/bin/ruff format --check refind_cli tests bench fuzz
	$(VENV)/bin/mypy
	@# worksteal: a few tests take a minute each; idle workers take queued tests from the busy one.
	$(PY) -m pytest -q -n auto --maxprocesses 4 --dist worksteal

lint: $(STAMP)
	$(VENV)/bin/ruff check refind_cli tests bench fuzz

typecheck: $(STAMP)
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format refind_cli tests bench fuzz
	$(VENV)/bin/ruff check --fix refind_cli tests bench fuzz

bench: $(STAMP)
	$(PY) bench/import_bench.py
	$(PY) bench/search_bench.py
	$(PY) bench/retrieval_eval.py
	$(PY) bench/startup_bench.py
	$(PY) bench/disk_bench.py
	$(PY) bench/reimport_bench.py

# Coverage-guided fuzzing of every importer (by hand, not in CI): 120 s per target; exits 1 on a finding.
fuzz: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[fuzz]'
	$(PY) fuzz/run.py --seconds 120

clean:
	rm -rf $(VENV) $(DEMO_HOME) .pytest_cache .ruff_cache .mypy_cache
