# The two commands a fresh machine needs: `make demo` and `make test`.
# Both create their virtual environments on first use and reuse them afterwards.

SHELL := /bin/bash
# Find an interpreter by version even where pyenv shims are not activated.
find_py = $(firstword $(foreach p,$(1) $(wildcard $(HOME)/.pyenv/versions/$(2)*/bin/$(1)) $(wildcard /usr/bin/$(1) /usr/local/bin/$(1)),$(shell $(p) -c 'import sys; print("$(p)") if sys.version_info[:2]==tuple(map(int,"$(2)".split("."))) else None' 2>/dev/null | grep -v None)))
PY312 ?= $(call find_py,python3.12,3.12)
PY311 ?= $(call find_py,python3.11,3.11)
# The lowest Python the helpers support (pyproject requires-python): the wheel smoke test runs on it.
PY310 ?= $(call find_py,python3.10,3.10)

VENV        := .venv
LEGACY      := .venv-legacy
# A fresh venv holding only the built wheel and its core dependencies (no torch, no megatron-core).
WHEEL_VENV  := build/wheel-smoke
MCORE       := megatron-core==0.19.2
MCORE_OLD   := megatron-core==0.16.1
TORCH_OLD   := torch==2.13.0
PIP_QUIET   := -q --disable-pip-version-check

.PHONY: demo test test-gpu lint wheel-smoke clean-venvs

$(VENV)/.installed: pyproject.toml
	@test -n "$(PY312)" || { echo "python3.12 not found: install it (pyenv install 3.12) or pass PY312=/path/to/python3.12"; exit 2; }
	@test -x $(VENV)/bin/python || $(PY312) -m venv $(VENV)
	$(VENV)/bin/pip install $(PIP_QUIET) -e '.[dev,oracle]' '$(MCORE)'
	@touch $@

# The package itself, not editable: its dependencies come from pyproject.toml on Python 3.11.
# The tests still run the checkout (PYTHONPATH in `test`), so a code change needs no reinstall.
$(LEGACY)/.installed: pyproject.toml
	@test -n "$(PY311)" || { echo "python3.11 not found: install it or pass PY311=/path/to/python3.11"; exit 2; }
	@test -x $(LEGACY)/bin/python || $(PY311) -m venv $(LEGACY)
	$(LEGACY)/bin/pip install $(PIP_QUIET) '$(TORCH_OLD)' '$(MCORE_OLD)' '.[dev,oracle]'
	@touch $@

demo: $(VENV)/.installed
	@PATH=$(CURDIR)/$(VENV)/bin:$$PATH bash scripts/demo.sh

test: $(VENV)/.installed $(LEGACY)/.installed wheel-smoke
	$(VENV)/bin/skill-tools lint
	$(VENV)/bin/python -m pytest -q
	PYTHONPATH=$(CURDIR) $(LEGACY)/bin/python -m pytest -q -m legacy -p no:cacheprovider

# On a GPU host (with Transformer Engine installed): every capture path for real, about 10 minutes.
test-gpu: $(VENV)/.installed
	$(VENV)/bin/python -m pytest -q -m gpu -rs

# The way users install it: build the wheel, install it with its core dependencies only into a
# fresh venv on the lowest supported Python, run every subcommand from outside the checkout.
wheel-smoke:
	@test -n "$(PY310)" || { echo "python3.10 not found: install it (pyenv install 3.10) or pass PY310=/path/to/python3.10"; exit 2; }
	rm -rf $(WHEEL_VENV)
	$(PY310) -m venv $(WHEEL_VENV)/venv
	$(WHEEL_VENV)/venv/bin/pip wheel $(PIP_QUIET) --no-deps -w $(WHEEL_VENV)/dist .
	$(WHEEL_VENV)/venv/bin/pip install $(PIP_QUIET) $(WHEEL_VENV)/dist/*.whl
	$(WHEEL_VENV)/venv/bin/python scripts/wheel_smoke.py --repo .

lint: $(VENV)/.installed
	$(VENV)/bin/skill-tools lint

clean-venvs:
	rm -rf $(VENV) $(LEGACY) $(WHEEL_VENV)
