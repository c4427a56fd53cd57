# labelguard's developer commands. `make test` is the one command that runs every test.

VENV ?= .venv
PY := $(VENV)/bin/python
export CARGO_TERM_COLOR ?= never

.PHONY: test lint venv bench docs example

## venv: the Python environment of the tests (torch from PyPI; pip's cache keeps reruns fast)
venv: $(VENV)/.installed
$(VENV)/.installed: requirements-dev.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements-dev.txt
	touch $@

## test: Rust unit, fixture and CLI tests, then the Python tests (the differential test against PyTorch)
test: venv
	cargo test --workspace
	cargo build --release -p labelguard-cli
	LABELGUARD_BIN=$(CURDIR)/target/release/labelguard $(PY) -m pytest -q tests/python

## lint: formatting and clippy, as CI runs them
lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings

## docs: regenerate docs/rules.md from the rules' doc comments
docs:
	cargo run -q -p labelguard-cli -- rules --format markdown > docs/rules.md

## bench: the range-scan benchmark (labelguard vs numpy vs torch, and memory bandwidth)
bench: venv
	cargo build --release -p labelguard-bench
	$(PY) bench/range_scan.py --bin target/release/labelguard-bench
