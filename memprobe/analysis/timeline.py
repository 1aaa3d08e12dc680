"""Memory over the measured step, by category: the data behind the HTML chart and the trace.

From the CUDA allocator history (snapshot.pickle: every alloc/free with its stack) or the
CPU profiler's memory events (report.json). Each allocation is named as the attribution
names it at the peaks (:mod:`.snapshot` / :mod:`.cpu_attribution`), so the categories
over time and at the peak agree. Times are microseconds from the start of the measured
step; bytes are what was allocated (not reserved).
"""

from __future__ import annotations

from pathlib import Path

from ..rundir import schema as S
from ..rundir.read import inside, kind_of
from ..vocab import AttributionSource, Category


def _downsample(points: list[list], limit: int) -> list[list]:
    """At most ``limit`` points, keeping each bucket's first, lowest and highest point (peaks survive)."""
    if len(points) <= limit:
        return points
    per = max(1, (3 * len(points)) // limit)
    out: list[list] = []
    for k in range(0, len(points), per):
        bucket = points[k : k + per]
        keep = {0, min(range(len(bucket)), key=lambda j: bucket[j][1]), max(range(len(bucket)), key=lambda j: bucket[j][1])}
        out.extend(bucket[j] for j in sorted(keep))
    return out


def timeline(report: S.Report, run_dir: str | Path, limit: int = 3000) -> S.Timeline | None:
    """Allocated bytes over the measured step, in total and by category (at most ``limit`` points, peaks kept), with
    its phases, regions and ops; None when the run measured no memory events (analysis-only, or an older run)."""
    snap_meta = report.memory.snapshot if report.memory else None
    snap_path = (
        inside(Path(run_dir), snap_meta.file, f"{Path(run_dir) / 'report.json'}: memory.snapshot.file")
        if snap_meta and snap_meta.file
        else None
    )
    if snap_path is not None and kind_of(snap_path) != "missing":  # one that cannot be read is an error, said so
        return _cuda_timeline(report, snap_path, limit)
    return _cpu_timeline(report, limit)


def _series(events, limit: int) -> dict:
    """events: (t_us, category, signed bytes) in time order, t relative to the step start: the fields of the
    :class:`~memprobe.rundir.schema.Timeline` they make (``total``, ``categories``, ``peak``, ``events``)."""
    total = 0
    per_cat: dict[str, int] = {}
    total_pts: list[list] = []
    cat_pts: dict[str, list[list]] = {}
    peak = S.TimelinePeak(t_us=0.0, bytes=0)
    n = 0
    for t, cat, delta in events:
        n += 1
        total += delta
        per_cat[cat] = per_cat.get(cat, 0) + delta
        total_pts.append([round(t, 1), total])
        cat_pts.setdefault(cat, []).append([round(t, 1), per_cat[cat]])
        if total > peak.bytes:
            peak = S.TimelinePeak(t_us=round(t, 1), bytes=total)
    return dict(
        total=_downsample(total_pts, limit),
        categories={c: _downsample(p, max(200, limit // 4)) for c, p in sorted(cat_pts.items())},
        peak=peak,
        events=n,
    )


def _cpu_timeline(report: S.Report, limit: int) -> S.Timeline | None:
    from .cpu_attribution import name_cpu_events

    named = name_cpu_events(report)
    if named is None:
        return None
    rows = named.rows
    ev = report.memory.events
    windows = ev.phase_windows_us or {}
    t0 = min([w[0] for w in windows.values()] + ([rows[0][0]] if rows else [0.0]))
    cat_of_addr: dict[int, str] = {}

    def events():
        for i, row in enumerate(rows):
            ts, nbytes, _total, addr = row[:4]
            if nbytes > 0:
                cat = named.category_of(i).category
                cat_of_addr[addr] = cat
            else:
                cat = cat_of_addr.pop(addr, Category.OTHER)
            yield ts - t0, cat, nbytes

    return S.Timeline(
        source=AttributionSource.CPU_PROFILER,
        baseline="bytes allocated since the measured step began",
        phases=[S.TimeSpan(name=n, start_us=round(a - t0, 1), end_us=round(b - t0, 1)) for n, (a, b) in windows.items()],
        regions=[
            S.TimeSpan(name=name, start_us=round(a - t0, 1), end_us=round(b - t0, 1))
            for name, a, b in ev.annotations or []
            if not name.startswith("memprobe::") or name.startswith("memprobe::call")
        ],
        ops=[S.TimedOp(name=name, start_us=round(ts - t0, 1), dur_us=round(dur, 1)) for name, ts, dur in ev.ops or []],
        **_series(events(), limit),
    )


def _cuda_timeline(report: S.Report, snap_path: Path, limit: int) -> S.Timeline:
    from .snapshot import (
        Classifier,
        call_ordinals,
        load_snapshot,
        output_code_line_map,
        replay,
        step_start,
        trace_events,
        walk_trace,
    )

    snap = load_snapshot(snap_path)
    meta = report.memory.snapshot
    rep = replay(snap, phase_names=meta.phase_markers)
    trace = trace_events(snap, None)
    phases = rep["phases"]
    starts = [ph["start_index"] for ph in phases.values()]
    ends = [ph.get("end_index", len(trace) - 1) for ph in phases.values()]
    first, last = (min(starts), max(ends)) if starts else (0, len(trace) - 1)
    classifier = Classifier(report, output_code_line_map(report.graph_memory or []))
    ordinals = call_ordinals(snap, classifier)
    t0 = trace[first].get("time_us", 0) if trace else 0

    def t_of(i: int) -> float:
        return float(trace[i].get("time_us", i) - t0) if "time_us" in trace[i] else float(i - first)

    def category(addr: int, block: dict) -> str:
        if "index" in block:
            block = {**block, "call_ordinal": ordinals.get(block["index"])}
        return classifier.classify(addr, block).category

    cat_of_addr: dict[int, str] = {}
    start_by_cat: dict[str, int] = {}

    def events():
        # from the measured step's first marker, where replay() left its state (else from the beginning)
        for i, ev, marker, live, _total in walk_trace(snap, None, step_start(snap, None)):
            if ev is None:  # what is alive when the step starts: its starting level, by category
                for addr, block in live.items():
                    cat = cat_of_addr[addr] = category(addr, block)
                    start_by_cat[cat] = start_by_cat.get(cat, 0) + block["size"]
                continue
            if marker:
                continue
            if i > last:
                break
            if ev["action"] == "alloc":
                cat = cat_of_addr[ev["addr"]] = category(ev["addr"], live[ev["addr"]])
                delta = ev["size"]
            elif ev["addr"] in cat_of_addr and ev["addr"] not in live:
                cat = cat_of_addr.pop(ev["addr"])
                delta = -ev["size"]
            else:
                continue
            yield t_of(i), cat, delta

    items = list(events())
    seed = [(0.0, c, b) for c, b in sorted(start_by_cat.items()) if b]
    spans = [
        S.TimeSpan(name=name, start_us=round(t_of(ph["start_index"]), 1), end_us=round(t_of(ph.get("end_index", last)), 1))
        for name, ph in phases.items()
    ]
    # the allocator history has no kernel timing: no ops
    return S.Timeline(
        source=AttributionSource.CUDA_SNAPSHOT,
        baseline="absolute bytes allocated on the device",
        phases=spans,
        regions=[],
        ops=[],
        **_series(seed + items, limit),
    )
