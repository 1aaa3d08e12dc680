"""A Chrome trace (Perfetto, chrome://tracing) of the measured step.

Tracks: the phases; the annotated regions (FSDP's all-gathers and reduce-scatters, each
compiled graph call, the optimizer); the outermost aten ops (CPU profiler; the CUDA
allocator history has no kernel timing); and counter tracks of allocated bytes, in total
and by category, from :func:`memprobe.analysis.timeline.timeline`. Times are
microseconds from the start of the measured step.
"""

from __future__ import annotations

from ..rundir import schema as S
from ..rundir.load import dump

PID = 1
TRACKS = {"phases": 1, "regions": 2, "ops": 3}


def chrome_trace(report: S.Report, timeline: S.Timeline) -> dict:
    """The trace of ``report``'s measured step, from its ``timeline`` (:func:`memprobe.analysis.timeline.timeline`), in
    the Chrome trace format (its own JSON, not one of memprobe's records)."""
    return timeline_trace(timeline, f"memprobe {report.config.probe().summary()}", report.created_utc)


def snapshot_trace(summary: S.SnapshotSummary, timeline: S.Timeline) -> dict:
    """The trace of a snapshot taken elsewhere: its whole history, from its ``timeline``
    (:func:`memprobe.analysis.user_snapshot.analyse_snapshot`)."""
    return timeline_trace(timeline, f"memprobe snapshot {summary.file}", summary.file)


def timeline_trace(timeline: S.Timeline, process: str, run: str | None) -> dict:
    """A ``timeline`` as a Chrome trace: the process named ``process``; ``run``: what it was read from."""
    events: list[dict] = [
        {"ph": "M", "pid": PID, "name": "process_name", "args": {"name": process}},
    ]
    for name, tid in TRACKS.items():
        events.append({"ph": "M", "pid": PID, "tid": tid, "name": "thread_name", "args": {"name": name}})
    events += [_span(p, "phases", "phase") for p in timeline.phases]
    events += [_span(r, "regions", "region") for r in timeline.regions]
    for o in timeline.ops:
        events.append(
            {"ph": "X", "pid": PID, "tid": TRACKS["ops"], "name": o.name, "cat": "op", "ts": o.start_us, "dur": o.dur_us}
        )
    for t, b in timeline.total:
        events.append({"ph": "C", "pid": PID, "name": "allocated bytes", "ts": t, "args": {"total": b}})
    for cat, points in timeline.categories.items():
        for t, b in points:
            events.append({"ph": "C", "pid": PID, "name": f"allocated: {cat}", "ts": t, "args": {"bytes": b}})
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {
            "memprobe": {
                "source": str(timeline.source),
                "baseline": timeline.baseline,
                "peak": dump(timeline.peak),
                "run": run,
            }
        },
    }


def _span(span: S.TimeSpan, track: str, cat: str) -> dict:
    """A phase or a region as a complete event on its track."""
    return {
        "ph": "X",
        "pid": PID,
        "tid": TRACKS[track],
        "name": span.name,
        "cat": cat,
        "ts": span.start_us,
        "dur": max(0.0, span.end_us - span.start_us),
    }
