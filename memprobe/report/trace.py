"""A Chrome trace (Perfetto, chrome://tracing) of the measured step.

Tracks: the phases; the annotated regions (FSDP's all-gathers and reduce-scatters, each
compiled graph call, the optimizer); the outermost aten ops (CPU profiler; the CUDA
allocator history has no kernel timing); and counter tracks of allocated bytes, in total
and by category, from :func:`memprobe.analysis.timeline.timeline`. Times are
microseconds from the start of the measured step.
"""

from __future__ import annotations

from ..rundir import schema as S

PID = 1
TRACKS = {"phases": 1, "regions": 2, "ops": 3}


def chrome_trace(report: S.Report, timeline: dict) -> dict:
    """The trace of ``report``'s measured step, from its ``timeline`` (:func:`memprobe.analysis.timeline.timeline`)."""
    events: list[dict] = [
        {"ph": "M", "pid": PID, "name": "process_name", "args": {"name": f"memprobe {report.config.probe().summary()}"}},
    ]
    for name, tid in TRACKS.items():
        events.append({"ph": "M", "pid": PID, "tid": tid, "name": "thread_name", "args": {"name": name}})
    for p in timeline.get("phases") or []:
        events.append(
            {
                "ph": "X",
                "pid": PID,
                "tid": TRACKS["phases"],
                "name": p["name"],
                "cat": "phase",
                "ts": p["start_us"],
                "dur": max(0.0, p["end_us"] - p["start_us"]),
            }
        )
    for r in timeline.get("regions") or []:
        events.append(
            {
                "ph": "X",
                "pid": PID,
                "tid": TRACKS["regions"],
                "name": r["name"],
                "cat": "region",
                "ts": r["start_us"],
                "dur": max(0.0, r["end_us"] - r["start_us"]),
            }
        )
    for o in timeline.get("ops") or []:
        events.append(
            {"ph": "X", "pid": PID, "tid": TRACKS["ops"], "name": o["name"], "cat": "op", "ts": o["start_us"], "dur": o["dur_us"]}
        )
    for t, b in timeline["total"]:
        events.append({"ph": "C", "pid": PID, "name": "allocated bytes", "ts": t, "args": {"total": b}})
    for cat, points in (timeline.get("categories") or {}).items():
        for t, b in points:
            events.append({"ph": "C", "pid": PID, "name": f"allocated: {cat}", "ts": t, "args": {"bytes": b}})
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {
            "memprobe": {
                "source": timeline["source"],
                "baseline": timeline["baseline"],
                "peak": timeline["peak"],
                "run": report.created_utc,
            }
        },
    }
