"""Snapshot analysis throughput: memprobe's attribution against ``pickle.load`` of the same file.

For each size, two fresh processes read the same synthetic snapshot (bench/make_snapshot.py):
one only ``pickle.load``s it, the other runs memprobe's whole attribution (the restricted
loader, the trace replay, the peak of the step and of every phase, and the naming of what is
alive there). Each reports its wall time and its peak memory above what it held before
loading (VmHWM - VmRSS, /proc). Ratios are memprobe / pickle.load; target <= 2x at 1e6 entries.

    python bench/snapshot_speed.py --entries 100000 1000000 3000000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_MEASURE = r"""
import json, sys, time
def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
mode, path, report_path = sys.argv[1:4]
if mode == 'memprobe':
    from pathlib import Path
    from memprobe.analysis.snapshot import attribute_peak, load_snapshot
    from memprobe.rundir.load import load_report
    report = load_report(Path(report_path).parent)
else:
    import pickle
rss0 = status('VmRSS:')
t0 = time.perf_counter()
if mode == 'memprobe':
    result = attribute_peak(load_snapshot(path), report)
    summary = {'peak_bytes': result.peak_bytes, 'events': result.events, 'named_fraction': result.named_fraction}
else:
    with open(path, 'rb') as f:
        snap = pickle.load(f)
    summary = {'entries': sum(len(t) for t in snap['device_traces'])}
dt = time.perf_counter() - t0
print(json.dumps({'seconds': dt, 'peak_extra_bytes': status('VmHWM:') - rss0, **summary}))
"""


def measure(mode: str, path: Path, report: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, mode, str(path), str(report)], capture_output=True, text=True, cwd=ROOT
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, nargs="+", default=[100_000, 1_000_000, 3_000_000])
    ap.add_argument("--repeats", type=int, default=1, help="paired repeats per size (the median is reported)")
    a = ap.parse_args()
    report = ROOT / "tests" / "data" / "cuda" / "rowwise-legacy" / "report.json"
    results = []
    print(
        f"{'entries':>9} {'MiB':>7} {'pickle.load':>12} {'memprobe':>9} {'time x':>7} {'pickle mem':>11} {'memprobe mem':>13} {'mem x':>6}"
    )
    with tempfile.TemporaryDirectory() as d:
        for n in a.entries:
            path = Path(d) / f"snapshot-{n}.pickle"
            subprocess.run(
                [sys.executable, str(ROOT / "bench" / "make_snapshot.py"), "--entries", str(n), "--out", str(path)],
                check=True,
                capture_output=True,
            )
            runs = [(measure("pickle", path, report), measure("memprobe", path, report)) for _ in range(a.repeats)]
            runs.sort(key=lambda r: r[1]["seconds"] / r[0]["seconds"])
            base, ours = runs[len(runs) // 2]
            row = {
                "entries": n,
                "file_bytes": path.stat().st_size,
                "pickle_load": base,
                "memprobe": ours,
                "time_ratio": ours["seconds"] / base["seconds"],
                "memory_ratio": ours["peak_extra_bytes"] / base["peak_extra_bytes"],
            }
            results.append(row)
            print(
                f"{n:>9} {row['file_bytes'] / 2**20:>7.1f} {base['seconds']:>11.2f}s {ours['seconds']:>8.2f}s "
                f"{row['time_ratio']:>6.2f}x {base['peak_extra_bytes'] / 2**20:>9.0f}Mi {ours['peak_extra_bytes'] / 2**20:>11.0f}Mi "
                f"{row['memory_ratio']:>5.2f}x",
                flush=True,
            )
            path.unlink()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
