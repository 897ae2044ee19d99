# Two commands work from a fresh clone with only Python 3.11: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test check venv bench clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,check]'
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/otel-trajectory demo

test: $(STAMP)
	$(PY) -m pytest

check: $(STAMP)
	PYTHON=$(PY) scripts/check

bench: $(STAMP)
	$(PY) bench/throughput.py

clean:
	rm -rf $(VENV) .venv-e2e otel-trajectory-data

# End-to-end tests against Arize Phoenix, a third-party OTLP/gRPC backend, in a virtualenv of their own.
E2E_VENV := .venv-e2e
E2E_PY := $(E2E_VENV)/bin/python
E2E_STAMP := $(E2E_VENV)/.installed

.PHONY: e2e

$(E2E_STAMP): pyproject.toml requirements-e2e.txt
	@test -x $(E2E_PY) || $(PYTHON) -m venv $(E2E_VENV)
	$(E2E_PY) -m pip install --quiet --upgrade pip
	$(E2E_PY) -m pip install --quiet -r requirements-e2e.txt -e '.[test]'
	$(E2E_PY) -m pip check
	@touch $(E2E_STAMP)

e2e: $(E2E_STAMP)
	OTEL_TRAJECTORY_E2E=1 $(E2E_PY) -m pytest -p no:phoenix -m e2e tests/e2e
