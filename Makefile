# Two commands work from a fresh clone with only Python 3.11: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test venv bench clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/otel-trajectory demo

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) bench/throughput.py

clean:
	rm -rf $(VENV) otel-trajectory-data
