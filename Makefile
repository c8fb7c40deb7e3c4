# One target per habit. `make demo` and `make test` are the README's quick start;
# `make ci` is what .ci/run runs after installing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP_INSTALL := $(BIN)/pip install --disable-pip-version-check -q -c requirements/constraints.txt

.PHONY: install demo serve test test-fast lint typecheck template mutations mutations-check eval ci bench clean

$(BIN)/family-memory: pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip
	$(PIP_INSTALL) -e ".[dev,local]"
	@touch $@

install: $(BIN)/family-memory

demo: install  ## the walk-through on the embedded local default
	$(BIN)/family-memory walkthrough

serve: install  ## the HTTP API on this machine (docs/api.md)
	$(BIN)/family-memory serve

test: install  ## every test (unit, contract on both adapter sets, integration under moto)
	$(BIN)/python -m pytest

test-fast: install  ## skip the slow crash-at-every-step and concurrency tests
	$(BIN)/python -m pytest -m "not slow"

lint: install
	$(BIN)/ruff check shared functions tests
	$(BIN)/ruff format --check shared functions tests

typecheck: install
	$(BIN)/mypy

template: install  ## offline validation of the SAM template
	$(BIN)/cfn-lint template.yaml

mutations: install  ## break each invariant clause in a scratch copy; every break must be caught (~5 min)
	$(BIN)/python tests/invariants/mutations.py

eval: install  ## the section-13 harness on eval/families; fails only on a target eval/ratchet.json enforces
	mkdir -p build && $(BIN)/family-memory eval --ratchet eval/ratchet.json --json build/eval.json

ci: lint typecheck template mutations-check test eval

mutations-check: install
	$(BIN)/python tests/invariants/mutations.py --check

bench: install
	$(BIN)/family-memory bench all

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .family-memory .aws-sam build

# --- SAM: the shared layer, built without Docker ------------------------------
# Wheels for the Lambda platform (Python 3.13 on arm64), then the project itself.
# Lambda python3.13 runs on Amazon Linux 2023 (glibc 2.34): any of these manylinux tags fits.
LAMBDA_PLATFORMS ?= manylinux2014_aarch64 manylinux_2_28_aarch64 manylinux_2_34_aarch64
LAMBDA_PYTHON ?= 3.13
build-FamilyMemoryLayer:
	rm -rf build/layer-wheels && mkdir -p build/layer-wheels
	$(PYTHON) -m pip wheel --no-deps -q -w build/layer-wheels .
	$(PYTHON) -m pip install -q --target "$(ARTIFACTS_DIR)/python" \
		$(foreach p,$(LAMBDA_PLATFORMS),--platform $(p)) --implementation cp --python-version $(LAMBDA_PYTHON) \
		--only-binary=:all: -c requirements/constraints.txt build/layer-wheels/*.whl
