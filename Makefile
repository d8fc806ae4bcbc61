# Two entry points: `make demo` and `make test` (see README). Everything lives in .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
PIP_FLAGS := --quiet --disable-pip-version-check

.PHONY: demo test install dev cargo-test pytest bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# builds the Rust core (release) and installs collsched, editable, into .venv
install: $(PY)
	$(PIP) install $(PIP_FLAGS) -e .

dev: $(PY)
	$(PIP) install $(PIP_FLAGS) -e '.[dev]'

demo: install
	$(VENV)/bin/collsched demo

cargo-test:
	cargo test --workspace --release

pytest: dev
	$(PY) -m pytest -q

test: dev cargo-test pytest

bench: dev
	@cd benchmarks && for b in bench_*.py; do echo "== $$b"; ../$(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) target python/collsched/_core*.so
