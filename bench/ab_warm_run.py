"""Two checkouts of memprobe, back to back: a warm `memprobe run`, alternated, with what its report says.

Each checkout runs from its own root (PYTHONPATH) with its own compile cache, filled by one untimed run first; then
the timed runs alternate A, B, A, B, ... Whole CLI processes (MEMPROBE_FORKSERVER=off: no resident server); for each,
its wall time, report.json's ``timings_s`` (startup, build, first step with its compile, ...) and ``compile_cache``
(what the caches gave: AOTAutograd's hits, misses and bypasses).

    python bench/ab_warm_run.py /tmp/base /work/wt-h6 --repeats 2 -- --recipe rowwise --ac-policy torchtitan-2025-01 \\
        --dim 256 --hidden 1024 --seq 64 --device cpu
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


def timed(root: Path, cache: Path, flags: list[str]) -> dict:
    out = tempfile.mkdtemp(prefix="memprobe-abr-")
    env = checkout_env(root, cache, MEMPROBE_FORKSERVER="off")
    try:
        seconds = measure([sys.executable, "-m", "memprobe", "run", *flags, "-q", "--out", f"{out}/r"], env=env, cwd=str(root))
        report = json.loads(Path(f"{out}/r/report.json").read_text())
        cache_record = report.get("compile_cache") or {}
        return {
            "seconds": round(seconds["seconds"], 2),
            "timings_s": report.get("timings_s"),
            "compile_cache": {k: cache_record.get(k) for k in ("state", "aot_autograd", "fx_graph", "graphs_from_records")},
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path, help="the first checkout (e.g. before the change)")
    ap.add_argument("b", type=Path, help="the second checkout")
    ap.add_argument("--repeats", type=int, default=2)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a, flags = ap.parse_args(argv[:cut]), argv[cut + 1 :]  # `memprobe run`'s flags after --
    roots = {"a": a.a.resolve(), "b": a.b.resolve()}
    runs = alternate(roots, lambda root, cache: timed(root, cache, flags), a.repeats)
    med = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items()}
    print(f"warm `memprobe run {' '.join(flags)}`, alternated {a.repeats} times")
    for k in roots:
        print(f"  {k} {roots[k]}: median {med[k]:.1f} s  {[r['seconds'] for r in runs[k]]}")
        print(f"     first step {[r['timings_s'].get('first_step') for r in runs[k]]}, cache {runs[k][-1]['compile_cache']}")
    print(json.dumps({"flags": flags, "roots": {k: str(v) for k, v in roots.items()}, "runs": runs, "median_s": med}))


if __name__ == "__main__":
    main()
