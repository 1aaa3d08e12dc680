"""What is alive at the peaks of a CPU run, from the profiler's memory events.

The CPU profiler gives each allocation's address, size and time, but no stack. An
allocation is named by the annotated region it happened in: a compiled graph call
(``memprobe::call gN``, matched statement by statement against the simulated output
code), FSDP's own regions (``FSDP::pre_forward`` all-gathers, ``FSDP::post_backward_*``
reduce-scatters), the optimizer step, the cast of the inputs. Sizes and times are
measured; the categories are inferred from those regions.
"""

from __future__ import annotations

from ..vocab import AttributionSource, Category
from .peaks import summarize_alive
from .saved import prefix_block


def _category_for(annotation: str | None) -> str:
    if annotation is None:
        return Category.OTHER
    if annotation.startswith("FSDP::pre_forward") or annotation.startswith("FSDP::pre_backward") or "prefetch" in annotation:
        return Category.FSDP_UNSHARDED_PARAMETER
    if annotation.startswith("FSDP::post_backward"):
        return Category.GRADIENT
    if annotation.startswith("FSDP::cast_forward_inputs") or annotation.startswith("FSDP::root_pre_forward"):
        return Category.INPUT_BATCH
    if annotation.startswith("Optimizer."):
        return Category.OPTIMIZER_TEMPORARY
    if annotation == "memprobe::backward":
        return Category.BACKWARD_GRAPH_OR_AUTOGRAD
    return Category.OTHER


def _innermost(annotations: list[list], ts: float) -> str | None:
    best = None
    for name, t0, t1 in annotations:
        if t0 <= ts <= t1 and (best is None or (t1 - t0) < (best[2] - best[1])):
            best = (name, t0, t1)
    return best[0] if best else None


def name_cpu_events(report: dict) -> tuple[list, list, dict[int, dict]] | None:
    """The profiler's memory events, the annotated regions, and a name for each allocation event
    that a compiled graph call made (index -> {"category", "item"}); None without events."""
    mem = report.get("memory") or {}
    ev = mem.get("events")
    if not ev or "addr" not in (ev.get("columns") or []):
        return None
    rows = ev["rows"]
    annotations = [
        a
        for a in ev.get("annotations") or []
        if not a[0].startswith("memprobe::") or a[0].startswith("memprobe::call") or a[0] == "memprobe::backward"
    ]
    gm = {g["graph_id"]: g for g in report.get("graph_memory") or [] if "allocations" in g}
    invocations = report.get("invocations") or []
    calls = [a for a in annotations if a[0].startswith("memprobe::call g")]

    # name each allocation event
    names: dict[int, dict] = {}
    for k, (name, t0, t1) in enumerate(calls):
        graph = f"{name.split()[-1]}.forward"
        sim = gm.get(graph)
        block = invocations[k]["block"] if k < len(invocations) else None
        expected = list(sim["allocations"]) if sim else []
        roles = {r["storage"]: r for r in (sim or {}).get("returned", []) if r.get("storage") and not r.get("is_input")}
        window = [i for i, row in enumerate(rows) if t0 <= row[0] <= t1]
        freed_in_call = set()
        alive: dict[int, int] = {}
        for i in window:
            if rows[i][1] > 0:
                alive[rows[i][3]] = i
            elif rows[i][3] in alive:
                freed_in_call.add(alive.pop(rows[i][3]))
        allocs = [i for i in window if rows[i][1] > 0]
        pos = 0
        for _line, storage, nbytes in expected:
            # the wrapper's allocations come in statement order; a returned storage outlives the call,
            # a temporary does not. Allocations that match neither came from inside a kernel.
            returned = storage in roles
            for k in range(pos, len(allocs)):
                i = allocs[k]
                if rows[i][1] == nbytes and (i not in freed_in_call) == returned:
                    pos = k + 1
                    ret = roles.get(storage)
                    if ret is None:
                        names[i] = {"category": Category.INDUCTOR_TEMPORARY, "item": f"{storage} ({graph})"}
                    elif ret["role"] == "saved":
                        names[i] = {
                            "category": Category.SAVED_FOR_BACKWARD,
                            "item": _with_block(ret.get("expr") or ret["fx_node"], block),
                        }
                    else:
                        names[i] = {
                            "category": Category.GRAPH_OUTPUT,
                            "item": _with_block(ret.get("expr") or ret["fx_node"], block),
                        }
                    break
        for i in allocs:
            names.setdefault(i, {"category": Category.INDUCTOR_TEMPORARY, "item": f"allocated inside a kernel of {graph}"})

    return rows, annotations, names


def category_of(row: list, index: int, annotations: list, names: dict[int, dict]) -> dict:
    """The name of allocation event ``index``: from a graph call, else from its innermost region."""
    return names.get(index) or {"category": _category_for(_innermost(annotations, row[0])), "item": None}


def attribute_cpu(report: dict, top: int = 15) -> dict | None:
    named_events = name_cpu_events(report)
    if named_events is None:
        return None
    rows, annotations, names = named_events
    ev = report["memory"]["events"]

    def live_at(index: int) -> dict[int, int]:
        live: dict[int, int] = {}
        for i, row in enumerate(rows[: index + 1]):
            addr, nbytes = row[3], row[1]
            if nbytes > 0:
                live[addr] = i
            else:
                live.pop(addr, None)
        return live

    def at(index: int) -> dict:
        def named():
            for _addr, i in live_at(index).items():
                row = rows[i]
                n = category_of(row, i, annotations, names)
                yield n["category"], n["item"] or n["category"], row[1], None

        return {"event_index": index, **summarize_alive(named(), top)}

    def peak_index(t0: float = float("-inf"), t1: float = float("inf")) -> tuple[int, int]:
        best, best_i = None, -1
        for i, row in enumerate(rows):
            if t0 <= row[0] <= t1 and (best is None or row[2] > best):
                best, best_i = row[2], i
        return best_i, best if best is not None else 0

    step_i, step_peak = peak_index()
    windows = ev.get("phase_windows_us") or {}
    phases = {}
    for name, (t0, t1) in windows.items():
        i, peak = peak_index(t0, t1)
        if i >= 0:
            end = at(max((k for k, row in enumerate(rows) if row[0] <= t1), default=-1))
            phases[name] = {
                "peak_bytes": peak,
                **at(i),
                "at_end": {k: end[k] for k in ("event_index", "alive_bytes", "by_category_bytes", "top_items")},
            }
    step = at(step_i) if step_i >= 0 else at(-1)
    peak_phase = next((n for n, (t0, t1) in windows.items() if step_i >= 0 and t0 <= rows[step_i][0] <= t1), None)
    return {
        "source": AttributionSource.CPU_PROFILER,
        "events": len(rows),
        "peak_bytes": step_peak,
        "peak_phase": peak_phase,
        **{k: step[k] for k in ("alive_bytes", "named_fraction", "by_category_bytes", "top_items", "saved_for_backward")},
        "alive_at_peak_bytes": step["alive_bytes"],
        "phases": phases,
        "baseline": "bytes allocated since the measured step began (earlier allocations are not seen)",
        "measured": ["allocation sizes, addresses and times (profiler memory events)"],
        "inferred": [
            "categories from the annotated region an allocation happened in (FSDP::*, Optimizer.*, memprobe::call gN)",
            "saved-for-backward / graph-output / temporary: allocations in a graph call matched in order and size"
            " to the output code's empty_strided statements",
        ],
    }


def _with_block(expr: str, block: str | None) -> str:
    return prefix_block(expr, block) if block else expr
