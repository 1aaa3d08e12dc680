# The one test entry: `make check` is what CI runs (.ci/run) and what the README tells a newcomer to run.
#
#   make check     install (Chromium, memprobe with every extra), lint, the whole suite with the fuzz at 2,000
#                  examples per file kind in the same session, then the project's own memory gate
#   make test      the whole suite: both lanes in one session (the slowest tests first, the others around them); the
#                  fuzz at its default count (20 per kind) unless MEMPROBE_FUZZ_EXAMPLES says more
#   make fast      the fast lane: no model compiled (CliRunner, the committed run directories, the fuzz at its
#                  default count)
#   make e2e       the end-to-end lane: real CPU compiles
#   make lint      ruff check + ruff format --check
#   make fuzz      the fuzz alone at FUZZ_EXAMPLES (default 2000, about 2 min on 2 cores; 10000 about 8 min)
#   make gate      `memprobe gate` on the committed budget file (memprobe.toml, docs/gate.md)
#   make install   the browser, then `pip install -e` with every extra (constrained by constraints-cpu.txt) into the
#                  interpreter PYTHON names (a virtualenv's or the system's), then byte-compiles what it installed
#                  on every core
#   make browser   Chromium, for the HTML tests (scripts/install_browser.sh): nothing if a chromium is on PATH; else, as
#                  root, Debian's `chromium` and the libraries it needs, without its recommended packages, removing
#                  nothing, and only if apt would upgrade no installed package (MEMPROBE_BROWSER_UPGRADES=1 allows it:
#                  .ci/run, on a throwaway machine); apt-get update only when the package lists do not know chromium
#
# PYTHON picks the interpreter (default: the `python` on PATH, an activated virtualenv's). PYTEST_ARGS passes
# more to pytest (e.g. PYTEST_ARGS="-n 0" to run in one process). docs/benchmarks.md has the lanes' times.

PYTHON ?= python
# the extras users install; the test extra brings pytest, hypothesis, ruff, pytest-xdist
EXTRAS ?= test,hf,mcp,torchtitan,remat
# 2,000 per kind keeps make check within its 20 minutes on 2 cores (docs/benchmarks.md); a longer fuzz is
# `make fuzz FUZZ_EXAMPLES=10000`
FUZZ_EXAMPLES ?= 2000
# two workers on the 2-core machine: a probe process leaves a core partly idle (docs/benchmarks.md measures it)
WORKERS ?= 2
PYTEST_ARGS ?=
PYTEST = $(PYTHON) -m pytest -n $(WORKERS) --dist worksteal $(PYTEST_ARGS)

.NOTPARALLEL:
.PHONY: check install browser lint test fast e2e fuzz gate

check: export MEMPROBE_REQUIRE_BROWSER = 1
check: export MEMPROBE_REQUIRE_TORCHTITAN = 1
check: export MEMPROBE_REQUIRE_HF = 1
check: export MEMPROBE_REQUIRE_REMAT = 1
# the fuzz's 2,000 per kind in the suite's session: its workers and server are started once, and its examples fill the
# gaps the end-to-end lane's processes leave (a session of its own after the suite took 110 to 120 s, 20 of them its
# start and its longest kind alone at the end)
check: export MEMPROBE_FUZZ_EXAMPLES = $(FUZZ_EXAMPLES)
check: install lint test gate

# install byte-compiles once: where PYTHONDONTWRITEBYTECODE is set each process the suite starts would compile its
# imports again. pip's own byte-compiling, one module after another, took 74 s of a 158 s install on 2 cores:
# scripts/compile_installed.py compiles the same modules on every core (39.5 s); an editable install leaves
# memprobe's sources as they are, compiled after (not tests/data/: run directories, read as data)
install: browser
	$(PYTHON) -m pip install --no-compile -c constraints-cpu.txt -e ".[$(EXTRAS)]"
	$(PYTHON) scripts/compile_installed.py "memprobe[$(EXTRAS)]"
	$(PYTHON) -m compileall -q -x 'tests/data/' memprobe repros tests

browser:
	bash scripts/install_browser.sh

lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .

test:
	$(PYTEST)

fast:
	$(PYTEST) -m "not e2e"

e2e:
	$(PYTEST) -m e2e

fuzz:
	MEMPROBE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PYTEST) tests/test_untrusted.py -k test_no_input_makes_an_internal_error

gate:
	$(PYTHON) -m memprobe gate --budget memprobe.toml --out "$$(mktemp -d)/gate" --force
