"""Two checkouts of memprobe, back to back: the warm `memprobe diff bf16 fp8` of bench/time_to_answer.py, alternated.

Each checkout runs from its own root (PYTHONPATH) with its own compile cache, filled by one untimed diff
first; then the timed diffs alternate A, B, A, B, ... so that the load of a shared machine falls on both
alike. Whole CLI processes; the ratio B / A of the medians is what this measures.

    python bench/ab_warm_diff.py /work/main /work/wt/i26 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _proc import alternate, checkout_env, measure  # noqa: E402

DIFF = ["diff", "bf16", "fp8", "--ac-policy", "torchtitan-2025-01", "--device", "cpu", "-q"]


def timed(root: Path, cache: Path, extra: list[str]) -> float:
    out = tempfile.mkdtemp(prefix="memprobe-ab-")
    try:
        cmd = [sys.executable, "-m", "memprobe", *DIFF, *extra, "--out", f"{out}/d"]
        return round(measure(cmd, env=checkout_env(root, cache), cwd=str(root))["seconds"], 2)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path, help="the first checkout (e.g. main)")
    ap.add_argument("b", type=Path, help="the second checkout")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="flags for both diffs")
    a = ap.parse_args()
    roots = {"a": a.a.resolve(), "b": a.b.resolve()}
    times = alternate(roots, lambda root, cache: timed(root, cache, a.extra), a.repeats)
    med = {k: statistics.median(v) for k, v in times.items()}
    result = {
        "command": DIFF + a.extra,
        "roots": {k: str(v) for k, v in roots.items()},
        "warm_s": times,
        "median_s": med,
        "ratio_b_over_a": round(med["b"] / med["a"], 3),
    }
    print(f"warm `memprobe {' '.join(DIFF + a.extra)}`, alternated {a.repeats} times")
    for k in roots:
        print(f"  {k} {roots[k]}: median {med[k]:.1f} s  {times[k]}")
    print(f"  ratio b / a: {result['ratio_b_over_a']:.3f}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
