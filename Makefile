# The two commands of the quick start are `make demo` and `make test`; both install what they need.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test test-slow lint system-deps golden bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(PY) -m pip install -q --no-deps apache-otava==0.8.0  # history change points (docs/history.md)
	touch $@

# Debian packages the tests need (Go, Google Benchmark, hyperfine, Chromium, podman, ...).
system-deps:
	bash scripts/install-system-deps.sh

# The demo's benchmarks run in the sandbox when bubblewrap can be installed here (as root, as
# `make test` installs it); otherwise scripts/demo.sh runs them unsandboxed on purpose and says so.
demo: $(STAMP)
	-bash scripts/install-system-deps.sh bwrap
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

# PYTHONDONTWRITEBYTECODE is unset for the tests: with it every xdist worker rewrites and compiles
# every test file again, and every `ordertrap-gate` subprocess compiles gate/ again (about 10 s
# of CPU per worker and 0.3 s per subprocess here; docs/development.md).
#
# `make test` runs every test but those marked `slow` (real toolchain builds and runs, the
# container, the demo end to end, SIGKILL-and-resume runs: the marks are on the tests), so that it
# finishes in a few minutes on a 2-core machine; `make test-slow` runs those, and CI (.ci/run)
# runs both (docs/development.md, "How long make test takes").
PYTEST := PATH="$(CURDIR)/$(VENV)/bin:$$PATH" env -u PYTHONDONTWRITEBYTECODE \
	  $(PY) -m pytest -q -n 4 --dist loadgroup --no-loadscope-reorder

test: $(STAMP) system-deps
	$(PYTEST) -m "not slow"
	@echo "make test leaves out the tests marked slow: make test-slow runs them (CI runs both)"

test-slow: $(STAMP) system-deps
	$(PYTEST) -m slow

lint: $(STAMP)
	$(VENV)/bin/ruff check gate tests scripts eval benchmarks
	$(VENV)/bin/ruff format --check gate tests scripts eval benchmarks
	$(VENV)/bin/mypy
	$(PY) scripts/lint_actions.py
	$(VENV)/bin/hadolint Dockerfile

# Regenerate the golden files of everything a person reads (comments, summaries, CLI output):
# the golden tests write what they render instead of comparing (tests/README.md).
golden: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m pytest -q --update-golden -k test_golden tests/unit

clean:
	rm -rf demo-output build *.egg-info
