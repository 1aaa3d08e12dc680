"""The whole test suite as a multiple of the fresh-process import of torch, Dynamo and Inductor, measured in one run.

    python bench/suite_ratio.py                     # the whole suite, as `make test` runs it
    python bench/suite_ratio.py --fast              # then the fast lane too (`make fast`)
    python bench/suite_ratio.py -- -k test_house    # pytest arguments after `--` (both runs get them)

In one run on one machine:

1. the import of ``torch, torch._dynamo, torch._inductor.compile_fx`` in a fresh ``python -c`` process: wall
   seconds, the median of 5 processes one after the other;
2. the whole suite as the Makefile's ``make test`` runs it: the same pytest command
   (``python -m pytest -n WORKERS --dist worksteal ARGS``, two workers unless ``--workers``), its output streamed;
3. the import again, 5 fresh processes, right after the suite (a machine that slowed or sped up meanwhile shows);
4. with ``--fast``, the fast lane: the same command with ``-m "not e2e"``.

It prints the figures and writes them as JSON (``bench/results/suite-ratio-<UTC time>.json`` unless ``--out``): the
import's samples and median before and after, each pytest run's wall seconds, exit code and summary line, the
ratio suite / import by each import median, the machine (cores, CPU model, load average before and after), the
Python and torch versions, the checkout's commit and the date. Goals (docs/benchmarks.md): the whole suite within
45 times the import, the fast lane within 2 minutes. Exits with the first failing pytest run's code (its figures
written all the same), else 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import deque
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORT = "import torch, torch._dynamo, torch._inductor.compile_fx"
SUITE_GOAL = 45  # the whole suite, at most this many times the import
FAST_GOAL_S = 120  # the fast lane, at most this many seconds


def time_import(repeats: int = 5) -> dict:
    """Wall seconds of ``repeats`` fresh processes that import torch, Dynamo and Inductor, and their median."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", IMPORT], check=True, cwd=ROOT)
        samples.append(round(time.perf_counter() - started, 3))
    return {"median_s": statistics.median(samples), "samples_s": samples}


def _is_summary(line: str) -> bool:
    """pytest's last line: ``==== 625 passed, 2 skipped in 401.23s (0:06:41) ====`` (or no tests ran)."""
    return line.startswith("=") and (" in " in line or "no tests ran" in line)


def run_pytest(args: list[str], workers: int) -> dict:
    """One pytest run as `make test` starts it, its output streamed: wall seconds, exit code, summary line."""
    cmd = [sys.executable, "-m", "pytest", "-n", str(workers), "--dist", "worksteal", *args]
    print("$", " ".join(cmd), flush=True)
    tail: deque[str] = deque(maxlen=50)
    started = time.perf_counter()
    with subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace") as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            tail.append(line.rstrip("\n"))
    wall = round(time.perf_counter() - started, 1)
    summary = next((line.strip("= ") for line in reversed(tail) if _is_summary(line)), None)
    return {"command": cmd, "wall_s": wall, "exit_code": proc.returncode, "summary": summary}


def cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine() -> dict:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "arch": platform.machine(),
        "system": platform.platform(),
    }


def versions() -> dict:
    def version(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    return {"python": platform.python_version(), "torch": version("torch"), "pytest": version("pytest")}


def commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+changes" if dirty else "")


def ratios(suite_s: float, before: dict, after: dict) -> dict:
    return {
        "by_import_before": round(suite_s / before["median_s"], 1),
        "by_import_after": round(suite_s / after["median_s"], 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers, as the Makefile's WORKERS (default 2)")
    parser.add_argument("--fast", action="store_true", help="also run the fast lane (-m 'not e2e') after the whole suite")
    parser.add_argument("--repeats", type=int, default=5, help="fresh import processes each time (default 5)")
    parser.add_argument("--out", type=Path, help="the JSON result (default bench/results/suite-ratio-<UTC time>.json)")
    parser.add_argument("pytest_args", nargs="*", help="pytest arguments, after --")
    args = parser.parse_args(argv)

    started = datetime.now(UTC)
    result = {
        "kind": "suite-ratio",
        "date_utc": started.isoformat(timespec="seconds"),
        "machine": machine(),
        "versions": versions(),
        "commit": commit(),
        "load_average_before": os.getloadavg(),
        "goals": {"suite_by_import_at_most": SUITE_GOAL, "fast_lane_s_at_most": FAST_GOAL_S},
    }
    print(f"import ({args.repeats} fresh processes): {IMPORT}", flush=True)
    result["import_before"] = before = time_import(args.repeats)
    print(f"import, median of {args.repeats}: {before['median_s']} s {before['samples_s']}", flush=True)
    result["suite"] = suite = run_pytest(args.pytest_args, args.workers)
    result["import_after"] = after = time_import(args.repeats)
    print(f"import after the suite, median of {args.repeats}: {after['median_s']} s {after['samples_s']}", flush=True)
    result["ratio"] = ratios(suite["wall_s"], before, after)
    if args.fast:
        result["fast_lane"] = run_pytest(["-m", "not e2e", *args.pytest_args], args.workers)
    result["load_average_after"] = os.getloadavg()

    out = args.out or ROOT / "bench" / "results" / f"suite-ratio-{started.strftime('%Y%m%dT%H%MZ')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    r = result["ratio"]
    print(f"\nwhole suite: {suite['wall_s']} s ({suite['summary']}, exit {suite['exit_code']})")
    print(f"import: {before['median_s']} s before, {after['median_s']} s after (medians of {args.repeats})")
    print(f"suite / import: {r['by_import_before']} (by the import before), {r['by_import_after']} (after); goal <= {SUITE_GOAL}")
    if args.fast:
        fast = result["fast_lane"]
        print(f"fast lane: {fast['wall_s']} s ({fast['summary']}, exit {fast['exit_code']}); goal <= {FAST_GOAL_S} s")
    print(f"written: {out}")
    failed = [run["exit_code"] for run in (suite, result.get("fast_lane")) if run and run["exit_code"] != 0]
    return failed[0] if failed else 0


if __name__ == "__main__":
    sys.exit(main())
