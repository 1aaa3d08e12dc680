"""Snapshot analysis throughput: memprobe's analyses against ``pickle.load`` of the same file (issue 41).

For each size, fresh processes read the same synthetic snapshot (bench/make_snapshot.py), one after the other:

- ``pickle.load``: the file loaded by the standard library, as a user's script would (the reference);
- ``pickle.load, no gc``: the same with Python's cyclic collector off (where the time of a plain load goes);
- ``run``: memprobe's attribution of a run's snapshot (the bounded loader, the trace replay, the peak of the step and
  of every phase, what is alive there named by the run's output code): what ``memprobe run`` and ``report`` do;
- ``show``: a snapshot taken elsewhere read alone (``memprobe show SNAPSHOT.pickle``: its peak by category and frame);
- ``report``: the same with its timeline (``memprobe report SNAPSHOT.pickle``: the page's chart and the trace).

Each process reports its wall time, its CPU time (user + system: what a machine shared with other work changes
least), its peak resident memory (VmHWM, /proc) and that peak above what it held before loading. Ratios are memprobe / ``pickle.load``; the goal is at most 1.5x in time at 100 MB and 1 GB, and memory bounded
(reported against the file's size and against pickle.load's peak). A file over the per-file bounds of work (2,000,000
events; 100,000,000 frames counted at each use) is refused by memprobe unless MEMPROBE_MAX_EVENTS / MEMPROBE_MAX_FRAMES
raise them: the bench raises them, for the memprobe processes, only where the file needs it, and says so.

    python bench/snapshot_speed.py --entries 1350000 14000000 --json-out bench/results/snapshot-speed.json

(1,350,000 entries make a 99 MiB file, 14,000,000 a 1.0 GiB one; a 1 GiB run needs about 7 GB of memory free.)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = ("pickle", "pickle-nogc", "run", "show", "report")
LABEL = {"pickle": "pickle.load", "pickle-nogc": "pickle.load, no gc", "run": "run", "show": "show", "report": "report"}

_MEASURE = r"""
import json, sys, time
def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
mode, path, report_path = sys.argv[1:4]
if mode == 'run':
    from pathlib import Path
    from memprobe.analysis.snapshot import attribute_peak, load_snapshot
    from memprobe.rundir.load import load_report
    report = load_report(Path(report_path).parent)
elif mode in ('show', 'report'):
    from memprobe.analysis.snapshot_read import read_snapshot
    from memprobe.analysis.user_snapshot import analysed
else:
    import gc, pickle
import resource
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
rss0 = status('VmRSS:')
c0 = cpu()
t0 = time.perf_counter()
if mode == 'run':
    result = attribute_peak(load_snapshot(path), report)
    summary = {'peak_bytes': result.peak_bytes, 'events': result.events, 'named_fraction': result.named_fraction}
elif mode in ('show', 'report'):
    # the verbs' reading (its data held, its timeline in parts), here rather than in a forked process: its memory is this one's
    read = analysed(read_snapshot(path, with_timeline=mode == 'report', hold=True), path)
    summary = {'peak_bytes': read.summary.peak_bytes, 'events': read.summary.events, 'groups': read.summary.groups}
else:
    if mode == 'pickle-nogc':
        gc.disable()
    with open(path, 'rb') as f:
        snap = pickle.load(f)
    summary = {'entries': sum(len(t) for t in snap['device_traces'])}
dt, dc = time.perf_counter() - t0, cpu() - c0
print(json.dumps({'seconds': dt, 'cpu_seconds': dc, 'peak_rss_bytes': status('VmHWM:'), 'peak_extra_bytes': status('VmHWM:') - rss0, **summary}))
"""


def measure(mode: str, path: Path, report: Path, env: dict) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, mode, str(path), str(report)], capture_output=True, text=True, cwd=ROOT, env=env
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def bounds_env(entries: int) -> tuple[dict, str | None]:
    """The environment of memprobe's processes: the per-file bounds raised only where the file is over them."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    if entries <= 2_000_000 and entries * 60 <= 100_000_000:
        return env, None
    raised = {"MEMPROBE_MAX_EVENTS": str(2 * entries), "MEMPROBE_MAX_FRAMES": str(120 * entries)}
    return {**env, **raised}, " ".join(f"{k}={v}" for k, v in raised.items())


def machine() -> dict:
    load = os.getloadavg()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": commit,
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "cpu": cpu,
        "load_average": [round(x, 2) for x in load],
    }


def one_size(n: int, repeats: int, tmp: Path, report: Path, modes: tuple[str, ...] = MODES, own_lists: bool = False) -> dict:
    path = tmp / f"snapshot-{n}.pickle"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "make_snapshot.py"), "--entries", str(n), "--out", str(path)]
        + (["--own-lists"] if own_lists else []),
        check=True,
        capture_output=True,
        env=bounds_env(n)[0],
    )
    env, raised = bounds_env(n)
    runs = []
    for _ in range(repeats):  # each repeat measures every mode once, in turn, so that the machine's load is shared
        runs.append({m: measure(m, path, report, env) for m in modes})
    row = {"entries": n, "own_lists": own_lists, "file_bytes": path.stat().st_size, "bounds_raised": raised, "runs": runs}
    path.unlink()
    mid = len(runs) // 2
    for m in modes:  # the medians over the repeats; each ratio to pickle.load in the same repeat
        ratios = sorted(r[m]["seconds"] / r["pickle"]["seconds"] for r in runs)
        cpu_ratios = sorted(r[m]["cpu_seconds"] / r["pickle"]["cpu_seconds"] for r in runs)
        row[m] = {
            "seconds": sorted(r[m]["seconds"] for r in runs)[mid],
            "cpu_seconds": sorted(r[m]["cpu_seconds"] for r in runs)[mid],
            "time_ratio": ratios[mid],
            "cpu_ratio": cpu_ratios[mid],
            "peak_rss_bytes": max(r[m]["peak_rss_bytes"] for r in runs),
            "peak_extra_bytes": max(r[m]["peak_extra_bytes"] for r in runs),
        }
    return row


def print_row(row: dict) -> None:
    size, base = row["file_bytes"], row["pickle"]
    print(
        f"\n{row['entries']} entries, {size / 2**20:.1f} MiB"
        + (f" (bounds raised: {row['bounds_raised']})" if row["bounds_raised"] else "")
    )
    print(f"  {'':<20} {'wall s':>7} {'x pickle':>9} {'CPU s':>7} {'x pickle':>9} {'peak RSS':>10} {'x file':>7} {'x pickle':>9}")
    for m in (m for m in MODES if m in row):
        r = row[m]
        print(
            f"  {LABEL[m]:<20} {r['seconds']:>7.2f} {r['time_ratio']:>8.2f}x {r['cpu_seconds']:>7.2f} {r['cpu_ratio']:>8.2f}x "
            f"{r['peak_rss_bytes'] / 2**20:>8.0f}Mi "
            f"{r['peak_rss_bytes'] / size:>6.2f}x {r['peak_rss_bytes'] / base['peak_rss_bytes']:>8.2f}x",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, nargs="+", default=[1_350_000])
    ap.add_argument("--repeats", type=int, default=1, help="repeats per size (the median is reported)")
    ap.add_argument("--json-out", type=Path, default=None, help="also write the figures, with the machine, here")
    ap.add_argument(
        "--modes",
        nargs="+",
        choices=MODES,
        default=list(MODES),
        help="what to measure (pickle is always measured: the ratios' base); an older memprobe has only run",
    )
    ap.add_argument("--own-lists", action="store_true", help="each event a stack list of its own (make_snapshot.py)")
    a = ap.parse_args()
    report = ROOT / "tests" / "data" / "cuda" / "rowwise-legacy" / "report.json"
    result = {"machine": machine(), "sizes": []}
    print(json.dumps(result["machine"]))
    with tempfile.TemporaryDirectory() as d:
        for n in a.entries:
            row = one_size(n, a.repeats, Path(d), report, tuple(dict.fromkeys(["pickle", *a.modes])), a.own_lists)
            result["sizes"].append(row)
            print_row(row)
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    if a.json_out is not None:
        a.json_out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
