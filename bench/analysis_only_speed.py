"""Speed: `memprobe run --analysis-only` against a full run of the same configuration.

Both are timed as whole CLI processes, paired and alternated, in one invocation of this
script; "cold" gives every process a fresh, empty Inductor cache, "warm" shares one cache
that an untimed full run filled first. The ratio full / analysis-only is what matters.

    python bench/analysis_only_speed.py --repeats 2 -- --recipe rowwise --ac-policy torchtitan-2025-01
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(args: list[str], cache: str) -> float:
    out = tempfile.mkdtemp(prefix="memprobe-bench-")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "memprobe", "run", *args, "--out", out, "--force", "-q", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"memprobe run failed:\n{proc.stderr[-2000:]}")
    report = json.loads(proc.stdout)
    shutil.rmtree(out, ignore_errors=True)
    return dt, report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=2, help="paired repeats (the median is reported)")
    ap.add_argument("run_flags", nargs="*", help="flags for memprobe run (after --)")
    a = ap.parse_args()
    flags = a.run_flags or ["--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01"]
    rows = {"cold": {"full": [], "analysis": []}, "warm": {"full": [], "analysis": []}}
    tables = []
    warm_cache = tempfile.mkdtemp(prefix="inductor-warm-")
    timed(flags, warm_cache)  # fill the warm cache (untimed)
    for _ in range(a.repeats):
        for mode in ("full", "analysis"):
            extra = ["--analysis-only"] if mode == "analysis" else []
            cold = tempfile.mkdtemp(prefix="inductor-cold-")
            dt, rep = timed(flags + extra, cold)
            shutil.rmtree(cold, ignore_errors=True)
            rows["cold"][mode].append(dt)
            # the table without run-time addresses, which differ from process to process
            tables.append((mode, [{k: v for k, v in r.items() if k != "runtime_storage_id"} for r in rep["saved_tensors"]]))
            dt, _ = timed(flags + extra, warm_cache)
            rows["warm"][mode].append(dt)
    same = all(t == tables[0][1] for _, t in tables)
    if not same:
        for mode, t in tables:
            for x, y in zip(t, tables[0][1]):
                if x != y:
                    print(f"first difference ({mode}):", {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)})
                    break
    print(f"configuration: memprobe run {' '.join(flags)}")
    print(f"{'cache':<6} {'full (s)':>10} {'analysis-only (s)':>18} {'ratio':>7}")
    result = {"flags": flags, "repeats": a.repeats, "saved_tables_identical": same}
    for cache in ("cold", "warm"):
        f, an = statistics.median(rows[cache]["full"]), statistics.median(rows[cache]["analysis"])
        print(f"{cache:<6} {f:>10.1f} {an:>18.1f} {f / an:>6.2f}x")
        result[cache] = {"full_s": rows[cache]["full"], "analysis_only_s": rows[cache]["analysis"], "ratio": f / an}
    print(f"saved tables identical in every run: {same}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
