# Brawl Ladder: every set-up step is a target here, so a fresh machine needs only Python 3.11+.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-slow soak lint typecheck proto proto-check bench clean screenshots

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## run: set up and run the whole service on embedded defaults
run: $(STAMP)
	$(VENV)/bin/brawl run

## test: set up and run lint, type checks and the default test suite
test: $(STAMP)
	bash scripts/test.sh

## test-slow: the long playouts, conformance counts and soaks kept out of the default run (serially)
test-slow: $(STAMP)
	$(PY) -m pytest -m slow -q -p no:cacheprovider

## soak: brawl run with 12 extra bots for 30 minutes (BRAWL_SOAK_MINUTES to change), figures printed
soak: $(STAMP)
	$(PY) -m pytest tests/run/test_soak.py::test_soak_thirty_minutes -q -s -p no:cacheprovider

## screenshots: refresh docs/screenshots/ from the browser tests (real services and Chromium, one file at a time)
screenshots: $(STAMP)
	bash -c '. scripts/services.sh && brawl_services_start && trap brawl_services_stop EXIT && \
	  for f in tests/webapp/test_browser.py tests/webapp/test_browser_flows.py tests/webapp/test_viewer_browser.py \
	    tests/webapp/test_tables_browser.py \
	    "tests/webapp/test_webhooks.py::test_author_registers_a_webhook_and_receives_a_signed_delivery"; do \
	    BRAWL_SCREENSHOTS=docs $(PY) -m pytest -q -p no:cacheprovider "$$f" || exit 1; done'

## lint: the same static checks as make test (ruff, format, mypy, generated code)
lint: $(STAMP)
	VENV=$(VENV) bash scripts/lint.sh

typecheck: $(STAMP)
	$(VENV)/bin/mypy

## proto: regenerate the Python code from proto/**/*.proto
proto: $(STAMP)
	$(PY) -m referee.protogen

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
