"""Time to answer: `memprobe diff bf16 fp8` on the CPU at the default dimensions.

Whole CLI processes, cold (an empty Inductor cache each) and warm (a cache filled by an
untimed diff first), for the full diff (both sides compiled, run and measured) and for
``--analysis-only`` (both sides traced and partitioned, no kernels generated; the ranked
saved values, no measured phases). Targets: 60 s cold and 20 s warm on 2 cores.

Each side runs in a process of its own (one probe, one process). What the extra processes would cost
is mostly hidden: the second side's process imports torch and warms the compiler while the first side
runs, and a finished probe leaves without tearing its interpreter down (measured: 0.87 s saved).

    python bench/time_to_answer.py --repeats 1
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
DIFF = ["diff", "bf16", "fp8", "--ac-policy", "torchtitan-2025-01", "--device", "cpu", "-q"]


def timed(extra: list[str], cache: str) -> float:
    out = tempfile.mkdtemp(prefix="memprobe-tta-")
    try:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache}
        return measure([sys.executable, "-m", "memprobe", *DIFF, *extra, "--out", f"{out}/d"], env=env, cwd=str(ROOT))["seconds"]
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=1)
    a = ap.parse_args()
    modes = {"full": [], "analysis-only": ["--analysis-only"]}
    rows = {m: {"cold": [], "warm": []} for m in modes}
    warm = tempfile.mkdtemp(prefix="inductor-warm-")
    timed([], warm)  # fill the warm cache (untimed)
    for _ in range(a.repeats):
        for mode, extra in modes.items():
            cold = tempfile.mkdtemp(prefix="inductor-cold-")
            rows[mode]["cold"].append(timed(extra, cold))
            shutil.rmtree(cold, ignore_errors=True)
            rows[mode]["warm"].append(timed(extra, warm))
    shutil.rmtree(warm, ignore_errors=True)
    print(f"memprobe {' '.join(DIFF)}  ({a.repeats} run(s) each, median; targets: cold <= 60 s, warm <= 20 s)")
    result = {"command": DIFF, "repeats": a.repeats}
    for mode in modes:
        c, w = statistics.median(rows[mode]["cold"]), statistics.median(rows[mode]["warm"])
        print(
            f"{mode:<14} cold {c:6.1f} s {'(met)' if c <= 60 else '(MISSED)':<9} warm {w:6.1f} s {'(met)' if w <= 20 else '(MISSED)'}"
        )
        result[mode] = {"cold_s": rows[mode]["cold"], "warm_s": rows[mode]["warm"]}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
