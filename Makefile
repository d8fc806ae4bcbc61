# Two entry points: `make demo` and `make test` (see README). Everything lives in .venv.
# Each first installs the system packages it needs when missing (scripts/system-deps.sh: Debian, root),
# then the Python packages at the versions of constraints.txt (`make lock` refreshes it).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
PIP_FLAGS := --quiet --disable-pip-version-check
# every pip install takes the locked versions (--constraint; PIP_CONSTRAINT carries them into the isolated
# environment pip builds collsched in, with maturin), and scripts/check_lock.py checks .venv holds exactly them
LOCK := constraints.txt
export PIP_CONSTRAINT := $(CURDIR)/$(LOCK)
UV_VERSION := 0.13.8
# rustup's cargo, where a shell did not put it on PATH
export PATH := $(PATH):$(HOME)/.cargo/bin
# deterministic property tests (tests/conftest.py); HYPOTHESIS_PROFILE=dev explores new examples
HYPOTHESIS_PROFILE ?= ci
DEMO_OUT := out/collsched-demo.html

.PHONY: demo test install dev system-deps system-deps-build cargo-test pytest lock bench clean

system-deps-build:
	@PYTHON=$(PYTHON) bash scripts/system-deps.sh build

system-deps:
	@PYTHON=$(PYTHON) bash scripts/system-deps.sh test

$(PY):
	PIP_CONSTRAINT= $(PYTHON) -m venv $(VENV)

# builds the Rust core (release) and installs collsched, editable, into .venv
install: system-deps-build $(PY)
	$(PIP) install $(PIP_FLAGS) --constraint $(LOCK) -e .
	$(PY) scripts/check_lock.py $(LOCK) --against uv.lock

dev: system-deps $(PY)
	$(PIP) install $(PIP_FLAGS) --constraint $(LOCK) -e '.[dev]'
	$(PY) scripts/check_lock.py $(LOCK) --against uv.lock

demo: install
	@mkdir -p $(dir $(DEMO_OUT))
	$(VENV)/bin/collsched demo -o $(DEMO_OUT)

cargo-test:
	@command -v cargo >/dev/null || { echo "cargo (Rust >= 1.85) is required: install it with rustup"; exit 1; }
	cargo test --workspace --release

pytest: dev
	HYPOTHESIS_PROFILE=$(HYPOTHESIS_PROFILE) $(PY) -m pytest -q

test: dev cargo-test pytest

# newest versions of every Python dependency allowed by pyproject.toml, as of one instant (STAMP), into both locks:
# uv.lock (uv's own, every platform) and constraints.txt (run time, dev and the build's maturin, which pip installs
# with); make install / make dev then check that the two name the same versions (scripts/check_lock.py)
lock: $(PY)
	PIP_CONSTRAINT= $(PIP) install $(PIP_FLAGS) uv==$(UV_VERSION)
	$(eval STAMP := $(shell date -u +%Y-%m-%dT%H:%M:%SZ))
	$(VENV)/bin/uv lock --quiet --upgrade --python 3.11 --exclude-newer $(STAMP)
	$(PY) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' \
	  | $(VENV)/bin/uv pip compile --quiet --upgrade --universal --python-version 3.11 --extra dev \
	      --exclude-newer $(STAMP) --no-header --output-file $(LOCK) pyproject.toml -
	@sed -i '1i # The Python packages `make` installs, every version fixed: `make lock` writes this file (uv pip compile).' $(LOCK)

bench: dev
	@cd benchmarks && for b in bench_*.py; do echo "== $$b"; ../$(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) target python/collsched/_core*.so
