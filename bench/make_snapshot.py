"""Synthetic CUDA allocator snapshots of any size, in the real format.

Tiles the allocator history recorded on the H200 (tests/data/cuda/rowwise-legacy/snapshot.pickle,
414 trace entries of a real FSDP2 + compile + float8 step, ~55 stack frames each) until the
trace holds ``--entries`` entries: every copy is the same program's step again, at shifted
addresses and times, with the frame objects shared as torch shares them (so the pickle has the
real shape and size per entry). Only the last copy keeps the phase markers: it is the measured
step, the copies before it are history. Each copy shares the source's stack lists too, unless
``--own-lists``: then each event has a list of its own holding the shared frames, as a real
dump of a long history has them (a real H200 snapshot of 1,475 events held 970 lists of 384
frame objects), which is what memprobe's per-stack work has to find again.

    python bench/make_snapshot.py --entries 1000000 --out /tmp/snapshot-1e6.pickle [--own-lists]
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "cuda" / "rowwise-legacy"


def make(entries: int, own_lists: bool = False) -> dict:
    from memprobe.analysis.snapshot import _is_marker, load_snapshot

    snap = load_snapshot(SOURCE / "snapshot.pickle")
    device = max(range(len(snap["device_traces"])), key=lambda i: len(snap["device_traces"][i]))
    base = snap["device_traces"][device]
    span = (base[-1].get("time_us", 0) - base[0].get("time_us", 0)) + 1
    plain = sum(1 for ev in base if not _is_marker(ev))
    copies = max(1, -(-entries // plain) + 1)
    trace = []
    for c in range(copies):
        last = c == copies - 1
        shift = (copies - 1 - c) * (1 << 36)  # earlier copies at other addresses: no collision with the last one
        for ev in base:
            if not last and _is_marker(ev):
                continue
            e = dict(ev)
            e["addr"] = ev["addr"] + shift if not last else ev["addr"]
            if "time_us" in ev:
                e["time_us"] = ev["time_us"] - (copies - 1 - c) * span
            if own_lists and isinstance(ev.get("frames"), list):
                e["frames"] = list(ev["frames"])
            trace.append(e)
    # the most recent entries, as a ring buffer of that size would keep them
    trace = trace[-entries:]
    traces = [[] for _ in snap["device_traces"]]
    traces[device] = trace
    return {**snap, "device_traces": traces}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--own-lists", action="store_true", help="each event a stack list of its own (a real dump's shape)")
    a = ap.parse_args()
    snap = make(a.entries, a.own_lists)
    with open(a.out, "wb") as f:
        pickle.dump(snap, f, protocol=pickle.HIGHEST_PROTOCOL)
    n = sum(len(t) for t in snap["device_traces"])
    print(f"wrote {a.out}: {n} trace entries, {a.out.stat().st_size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
