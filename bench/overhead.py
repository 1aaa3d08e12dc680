"""Overhead: `memprobe run` against the bare repro, same configuration, no capture.

The bare run is ``python -m memprobe.capture.bare`` (torch.compile with Inductor, per-op SAC, FSDP2,
float8, the same dims and steps); memprobe adds its compile backend, graph recording, the
memory meter on the measured step, the analysis and the run directory. Each pair runs
back to back, alternating, as separate processes with a shared warm Inductor cache
(filled by an untimed run of each first); ``--cold`` also times pairs with an empty cache.
Wall time and peak RSS (os.wait4) per process; the ratio memprobe / bare is what matters.

    python bench/overhead.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _proc import measure  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01", "--steps", "2"]


def pair(cache: str | None) -> dict:
    """One bare run and one memprobe run; ``cache`` None: each gets its own empty Inductor cache."""
    out = tempfile.mkdtemp(prefix="memprobe-overhead-")
    try:
        result = {}
        for name, cmd in (
            ("bare", [sys.executable, "-m", "memprobe.capture.bare", *FLAGS, "--device", "cpu"]),
            ("memprobe", [sys.executable, "-m", "memprobe", "run", *FLAGS, "--device", "cpu", "--out", f"{out}/r", "-q"]),
        ):
            own = tempfile.mkdtemp(prefix="inductor-cold-", dir=out) if cache is None else cache
            result[name] = measure(cmd, env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": own}, cwd=str(ROOT))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return result


def summarize(pairs: list[dict]) -> dict:
    out = {}
    for metric in ("seconds", "peak_rss_bytes"):
        bare = statistics.median(p["bare"][metric] for p in pairs)
        probe = statistics.median(p["memprobe"][metric] for p in pairs)
        out[metric] = {"bare": bare, "memprobe": probe, "ratio": probe / bare}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="also time pairs with an empty Inductor cache each")
    a = ap.parse_args()
    results = {"configuration": FLAGS, "repeats": a.repeats}
    warm = tempfile.mkdtemp(prefix="inductor-warm-")
    pair(warm)  # fill the cache for both (untimed)
    results["warm"] = summarize([pair(warm) for _ in range(a.repeats)])
    if a.cold:
        results["cold"] = summarize([pair(None) for _ in range(a.repeats)])
    shutil.rmtree(warm, ignore_errors=True)
    print(f"configuration: {' '.join(FLAGS)} (default dims), {a.repeats} paired runs, medians")
    print(f"{'cache':<6} {'bare (s)':>9} {'memprobe (s)':>13} {'ratio':>6}   {'bare RSS':>9} {'memprobe RSS':>13} {'ratio':>6}")
    for cache in ("warm", "cold"):
        if cache in results:
            r = results[cache]
            s, m = r["seconds"], r["peak_rss_bytes"]
            print(
                f"{cache:<6} {s['bare']:>9.1f} {s['memprobe']:>13.1f} {s['ratio']:>5.2f}x   {m['bare'] / 2**20:>7.0f}Mi "
                f"{m['memprobe'] / 2**20:>11.0f}Mi {m['ratio']:>5.2f}x"
            )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
