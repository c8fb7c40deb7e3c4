# One target per habit. `make demo` and `make test` are the README's quick start;
# `make ci` is what CI runs: .ci/run makes a fresh venv (`make install`) and then runs `make ci`,
# so the two cannot drift apart.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP_INSTALL := $(BIN)/pip install --disable-pip-version-check -q -c requirements/constraints.txt

.PHONY: install demo serve test test-fast lint format typecheck template mutations mutations-check eval ci bench clean layer coldstart sam-validate

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

SOURCES := shared functions tests layers

lint: install
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)

format: install  ## rewrite the sources as lint wants them (import order, fixable rules, layout)
	$(BIN)/ruff check --fix $(SOURCES)
	$(BIN)/ruff format $(SOURCES)

typecheck: install  ## mypy --strict over the package, every Lambda handler and the tests (pyproject.toml)
	$(BIN)/mypy

template: install  ## offline validation of the SAM template
	$(BIN)/cfn-lint template.yaml

mutations: install  ## break each invariant clause in a scratch copy; every break must be caught (~5 min)
	$(BIN)/python tests/invariants/mutations.py

eval: install  ## the section-13 harness on eval/families; fails only on a target eval/ratchet.json enforces
	mkdir -p build && $(BIN)/family-memory eval --ratchet eval/ratchet.json --json build/eval.json

# What CI runs, in order, each step under its own heading; the first that fails stops the run.
CI_STEPS := lint typecheck template mutations-check test eval

ci: install
	@start=$$(date +%s); for step in $(CI_STEPS); do \
		echo "== $$step"; $(MAKE) --no-print-directory $$step || exit $$?; \
	done; echo "== CI passed in $$(( $$(date +%s) - start ))s"

mutations-check: install  ## every invariant mutation's snippet is still in the code, once
	$(BIN)/python tests/invariants/mutations.py --check

bench: install
	$(BIN)/family-memory bench all

clean:
	rm -rf $(VENV) .venv-sam .pytest_cache .mypy_cache .ruff_cache .family-memory .aws-sam build

# --- SAM: the shared layer, built without Docker ------------------------------
# sam build runs layers/family-memory/Makefile (the layer's ContentUri); `make layer`
# builds the same into build/layer/ to look at.
layer:
	$(MAKE) -f layers/family-memory/Makefile build-FamilyMemoryLayer ARTIFACTS_DIR=$(abspath build/layer) PYTHON=$(abspath $(BIN)/python)

# aws-sam-cli pins boto3 and pydantic below this project's pins, so it gets a venv of its own.
sam-validate:  ## sam validate --lint, offline (placeholder credentials: nothing is called)
	test -x .venv-sam/bin/sam || ($(PYTHON) -m venv .venv-sam && .venv-sam/bin/pip install -q aws-sam-cli)
	SAM_CLI_TELEMETRY=0 AWS_ACCESS_KEY_ID=placeholder AWS_SECRET_ACCESS_KEY=placeholder \
		.venv-sam/bin/sam validate --lint --region us-east-1 --template template.yaml

coldstart: install  ## import and init time of each handler with only the layer's closure (docs/benchmarks.md)
	$(BIN)/family-memory bench coldstart
