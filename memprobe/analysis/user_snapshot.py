"""A CUDA memory snapshot taken elsewhere, read alone: what is alive at the peak of its history, by category and by
the innermost frame of the user's own code, and what one snapshot holds at its peak that another does not.

The user's script called ``torch.cuda.memory._record_memory_history()`` and ``_dump_snapshot()``; memprobe recorded
nothing of that run: no compiled graphs, no phase markers, no tensor registry. So every block is named from its
allocation stack alone (:data:`SCOPE` says so wherever the figures are shown):

- **its category**, by the first rule of :data:`_RULES` its frames match (a library workspace, FSDP2's storages, the
  optimizer's state and temporaries, what backward allocated, a compiled graph's buffers, the model's parameters
  and buffers, eager code of the user's), else ``other``;
- **its frame**: the innermost frame of the user's code, ``file.py:line in function``: a Python file that is neither
  the standard library's nor an installed package's (torch's, ...) nor code Inductor generated; where no frame is
  the user's, the innermost Python frame in parentheses.

The snapshot is read by :func:`~memprobe.analysis.snapshot.load_snapshot` (bounded, nothing executed, streamed from
the file); its history is replayed twice, each a plain loop over the events: once for the peak, once up to it for
what is alive there. What a stack says is worked out once per distinct frame list. A diff reads one snapshot, keeps
its figures and lets its data go before it reads the other.
"""

from __future__ import annotations

import gc
import math
from dataclasses import dataclass
from pathlib import Path

from ..rundir import schema as S
from ..units import fmt_bytes, fmt_delta
from ..vocab import AttributionSource, Category, DiffStatus
from .frames import is_library, short_path
from .peaks import summarize_alive, within_bounds
from .snapshot import (
    PerStack,
    Snapshot,
    blocks_before,
    collector_paused,
    free_action_of,
    load_snapshot,
    trace_events,
)

SCOPE = (
    "from the allocator's history alone: categories and frames come from the allocation stacks; no phases, no "
    "compiled graphs, no saved-for-backward table (`memprobe run` records those)"
)
TOP = 50  # groups a record keeps (the console shows fewer; --wide all of these)
WHERE = "the snapshot's allocator history"
BEFORE_RECORDING = "(allocated before the recording began)"
NO_PYTHON_FRAME = "(no Python frame)"


# -- what a stack says --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Stack:
    """A stack's frames as the rules read them: the Python files, the functions (C++ ones too)."""

    files: str  # every Python file of the stack, space-separated
    names: frozenset[str]
    cpp: str  # the C++ frames' functions, space-separated


def _file_and_name(part: str, *names: str):
    return lambda st: part in st.files and not st.names.isdisjoint(names)


# (the test on a stack, its category, the evidence): the first rule that holds names the block
_RULES = (
    (lambda st: "Workspace" in st.cpp, Category.LIBRARY_WORKSPACE, "a workspace allocation in the C++ stack"),
    (
        _file_and_name("_fsdp_param.py", "_init_sharded_param", "reset_sharded_param"),
        Category.SHARDED_PARAMETER,
        "FSDP2 sharding a parameter (_fsdp_param.py)",
    ),
    (lambda st: "_fsdp_param.py" in st.files, Category.FSDP_UNSHARDED_PARAMETER, "_fsdp_param.py in stack"),
    (lambda st: "_fsdp_collectives.py" in st.files, Category.FSDP_COLLECTIVE_BUFFER, "_fsdp_collectives.py in stack"),
    (_file_and_name("torch/optim/", "_init_group"), Category.OPTIMIZER_STATE, "the optimizer creating its state (_init_group)"),
    (lambda st: "torch/optim/" in st.files, Category.OPTIMIZER_TEMPORARY, "torch/optim in stack"),
    (
        lambda st: (
            "torch::autograd::Engine::" in st.cpp
            or not st.names.isdisjoint(("_engine_run_backward", "run_backward", "_backward_impl"))
        ),
        Category.BACKWARD_GRAPH_OR_AUTOGRAD,
        "allocated while backward ran (the autograd engine in stack)",
    ),
    (lambda st: "torch/_inductor/" in st.files or "<inductor>" in st.files, Category.COMPILED_GRAPH, "Inductor's code in stack"),
    (
        _file_and_name("torch/nn/", "_apply", "reset_parameters", "__init__", "to_empty"),
        Category.MODEL_STATE,
        "a module built or moved to the device (torch/nn in stack)",
    ),
)
EAGER = (Category.EAGER_AUTOGRAD, "allocated by the user's eager code")
UNNAMED = (Category.OTHER, "no rule matched")
UNKNOWN = (Category.OTHER, "allocated before the recording began: no stack")


def _inductor_file(filename: str) -> bool:
    """Code Inductor generated: ``<cache>/<ab>/c<ab>....py``, a file named after its own hash."""
    parts = filename.rsplit("/", 2)
    name = parts[-1]
    return len(parts) == 3 and name.startswith("c") and len(name) > 40 and name[1:3] == parts[1] and name.endswith(".py")


def _users(filename: str) -> bool:
    """A file of the user's own code: Python, neither the standard library's nor an installed package's, nor code
    Inductor generated."""
    return filename.endswith(".py") and not is_library(filename) and not _inductor_file(filename)


def _frame_text(f: dict, library: bool) -> str:
    where = f"{short_path(f['filename']) if library else f['filename']}:{f.get('line')} in {f['name']}"
    return f"({where})" if library else where


def _stack(frames: list[dict], python: list[dict]) -> _Stack:
    return _Stack(
        files=" ".join("<inductor>" if _inductor_file(f["filename"]) else f["filename"] for f in python),
        names=frozenset(f["name"] for f in frames),
        cpp=" ".join(f["name"] for f in frames if not f["filename"].endswith(".py")),
    )


def _frame(python: list[dict]) -> tuple[str, bool]:
    """``(frame, whether it is the user's)``: the innermost frame of the user's code, else the innermost Python frame
    (a library's, in parentheses)."""
    user = next((f for f in python if _users(f["filename"])), None)
    if user is not None:
        return _frame_text(user, False), True
    return (_frame_text(python[0], True) if python else NO_PYTHON_FRAME), False


def _named(frames: list[dict]) -> tuple[str, str, str]:
    """``(category, evidence, frame)`` of a block allocated with ``frames`` (innermost first)."""
    python = [f for f in frames if f["filename"].endswith(".py")]
    stack = _stack(frames, python)
    frame, users = _frame(python)
    for test, category, evidence in _RULES:
        if test(stack):
            return category, evidence, frame
    return (*(EAGER if users else UNNAMED), frame)


# -- the replay -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _History:
    """A device's history replayed: the levels at its start, peak and end."""

    start: int
    peak: int
    peak_index: int
    end: int


def _sizes_before(before: dict[int, dict]) -> dict[int, int]:
    return {addr: b["size"] for addr, b in before.items()}


def _replay(trace: list[dict], before: dict[int, dict], free_action: str) -> _History:
    """The level of bytes allocated after each event, its highest point and where: an allocation adds its size (one at
    an address still alive replaces that block: the trace lost its free), a free subtracts the size of the block alive
    at its address (a free of no block alive is none)."""
    live = _sizes_before(before)
    start = total = peak = sum(live.values())
    peak_index = -1
    for i, ev in enumerate(trace):
        action = ev["action"]
        if action == "alloc":
            size = ev["size"]
            total += size - live.get(ev["addr"], 0)
            live[ev["addr"]] = size
            if total > peak:
                peak, peak_index = total, i
        elif action == free_action:
            total -= live.pop(ev["addr"], 0)
    return _History(start, peak, peak_index, total)


def _alive_after(trace: list[dict], before: dict[int, dict], free_action: str, index: int) -> dict[int, int | dict]:
    """The blocks alive right after event ``index``: address -> the index of its allocation in the trace, or its
    block of :func:`~memprobe.analysis.snapshot.blocks_before`."""
    live: dict[int, int | dict] = dict(before)
    for i in range(index + 1):
        ev = trace[i]
        action = ev["action"]
        if action == "alloc":
            live[ev["addr"]] = i
        elif action == free_action:
            live.pop(ev["addr"], None)
    return live


def _pick_device(snap: dict) -> tuple[int, int]:
    """``(device, devices)``: the device with the most events, and how many have any."""
    sizes = [len(t) if isinstance(t, list) else 0 for t in snap["device_traces"]]
    device = max(range(len(sizes)), key=lambda i: sizes[i]) if sizes else 0
    return device, sum(1 for n in sizes if n)


def _reserved(snap: dict, device: int) -> int:
    """The bytes of the device's segments (what was reserved from it when the snapshot was taken)."""
    total = 0
    for seg in snap["segments"]:
        if isinstance(seg, dict) and seg.get("device", device) == device:
            size = seg.get("total_size")
            total += size if type(size) is int and 0 <= size < 2**63 else 0
    return within_bounds(total, "the segments' reserved bytes", WHERE)


# -- one snapshot -----------------------------------------------------------------------------------------------


@dataclass
class Analysed:
    """A snapshot read: its record, every group alive at its peak (``(category, frame) -> [bytes, blocks]``, which a
    diff compares whole), when asked for its timeline, and when asked to keep it, the snapshot's data itself."""

    summary: S.SnapshotSummary
    groups: dict[tuple[str, str], list[int]]
    timeline: S.Timeline | None = None
    data: Snapshot | None = None


def analyse_snapshot(path: str | Path, *, with_timeline: bool = False, top: int = TOP, keep: bool = False) -> Analysed:
    """Read the snapshot at ``path`` (a file the user named: a symbolic link is followed) and say what is alive at the
    peak of its history; SnapshotError (exit 2) in one line when it is not one memprobe reads. ``keep``: the result
    holds the snapshot's data, not freed when this returns (freeing the millions of objects of a large one takes a
    quarter of its reading; a verb that ends once it has printed leaves without freeing them: cli/main.py), and the
    cyclic collector no longer walks them (``gc.freeze``: every object alive then is left to reference counting)."""
    with collector_paused():  # millions of plain dicts: nothing for the cyclic collector to find
        snap = load_snapshot(path, follow=True)
        read = analyse_loaded(snap, path, with_timeline=with_timeline, top=top)
        if keep:  # held until the process leaves: out of the collector's sight, or its next full pass walks them all
            read.data = snap
            gc.freeze()  # (0.4 s for a 53 MB snapshot, measured)
        del snap
    return read


def analyse_loaded(snap: Snapshot, path: str | Path, *, with_timeline: bool = False, top: int = TOP) -> Analysed:
    """:func:`analyse_snapshot` of a snapshot already loaded from ``path``."""
    device, devices = _pick_device(snap)
    trace = trace_events(snap, device)
    before, free_action = blocks_before(snap, device), free_action_of(snap, device)
    named = PerStack(_named)
    # the timeline's replay finds the peak as _replay does: one pass over the history, not two
    timeline, history = _timeline(trace, before, free_action, named) if with_timeline else (None, None)
    history = history or _replay(trace, before, free_action)
    groups = _groups(_alive_after(trace, before, free_action, history.peak_index), trace, named)
    replayed = _Replayed(device, devices, trace, history, groups)
    return Analysed(_summary(Path(path), snap, replayed, top), groups, timeline)


@dataclass(frozen=True)
class _Replayed:
    """One device's history replayed: the device (of ``devices`` with a trace), its events, its levels, and the groups
    alive at its peak."""

    device: int
    devices: int
    trace: list[dict]
    history: _History
    groups: dict[tuple[str, str], list]


def _groups(alive: dict[int, int | dict], trace: list[dict], named: PerStack) -> dict[tuple[str, str], list]:
    """``(category, frame) -> [bytes, blocks, evidence]`` of the blocks alive."""
    groups: dict[tuple[str, str], list] = {}
    for where in alive.values():
        if type(where) is int:
            block = trace[where]
            category, evidence, frame = named(block)
        else:  # alive before the recording began: named by its segment block's stack, where it has one
            block = where
            category, evidence, frame = named(block) if block.get("frames") else (*UNKNOWN, BEFORE_RECORDING)
        group = groups.setdefault((category, frame), [0, 0, evidence])
        group[0] += block["size"]
        group[1] += 1
    return groups


def _summary(path: Path, snap, replayed: _Replayed, top: int) -> S.SnapshotSummary:
    trace, history, groups = replayed.trace, replayed.history, replayed.groups
    ranked = sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0]))
    alive = summarize_alive(((c, f, g[0], g[2]) for (c, f), g in ranked), history.peak_index, WHERE, top)
    t0 = trace[0].get("time_us") if trace else None
    user = sum(g[0] for (_c, f), g in groups.items() if not f.startswith("("))
    summary = S.SnapshotSummary(
        kind="snapshot",
        file=str(path),
        file_bytes=snap.file_bytes or 0,
        scope=SCOPE,
        device=replayed.device,
        devices=replayed.devices,
        events=len(trace),
        start_bytes=within_bounds(history.start, "the level where the history starts", WHERE),
        peak_bytes=within_bounds(history.peak, "the peak", WHERE),
        peak_event=history.peak_index,
        peak_t_us=_elapsed(t0, trace[history.peak_index].get("time_us")) if history.peak_index >= 0 else None,
        end_bytes=within_bounds(history.end, "the level where the history ends", WHERE),
        reserved_bytes=_reserved(snap, replayed.device),
        named_fraction=alive.named_fraction,
        user_code_fraction=user / alive.alive_bytes if alive.alive_bytes else None,
        by_category_bytes=alive.by_category_bytes,
        groups=len(groups),
        top_items=[it.model_copy(update={"blocks": groups[(it.category, it.item)][1]}) for it in alive.top_items],
        verdict=S.Verdict(text=""),
    )
    return summary.model_copy(update={"verdict": snapshot_verdict(summary)})


def _elapsed(t0, t) -> float | None:
    """Microseconds from ``t0`` to ``t`` (each a time as the trace records it), None without both."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (t0, t)):
        return None
    return float(t - t0)


def snapshot_verdict(s: S.SnapshotSummary) -> S.Verdict:
    """The answer first: the peak, and the largest group alive there."""
    at = f"event {s.peak_event + 1} of {s.events}" if s.peak_event >= 0 else "where the history starts"
    head = f"The peak is {fmt_bytes(s.peak_bytes)} allocated ({at})"
    if not s.top_items:
        return S.Verdict(text=head + ": nothing is alive there.", bytes=s.peak_bytes)
    top = s.top_items[0]
    share = f" ({top.bytes / s.peak_bytes:.0%})" if s.peak_bytes else ""
    text = f"{head}: the largest part, {fmt_bytes(top.bytes)}{share}, is {top.category} from {top.item}."
    return S.Verdict(text=text, bytes=s.peak_bytes, total_bytes=top.bytes)


def snapshot_summary(path: str | Path) -> S.SnapshotSummary:
    """`memprobe show SNAPSHOT.pickle`'s record."""
    return analyse_snapshot(path).summary


# -- the timeline (the HTML page's chart and the trace) -----------------------------------------------------------------


class _Bucketed:
    """A series thinned as it comes: per bucket of ``per`` events, its first, lowest and highest point (peaks
    survive)."""

    def __init__(self, per: int):
        self.per, self.points, self.edge = per, [], 0  # edge: the first event of the next bucket
        self.first = self.low = self.high = None

    def add(self, i: int, t: float, value: int) -> None:
        if i >= self.edge:
            self._flush()
            self.edge = (i // self.per + 1) * self.per
            self.first = self.low = self.high = (t, value)
        elif value < self.low[1]:
            self.low = (t, value)
        elif value > self.high[1]:
            self.high = (t, value)

    def _flush(self) -> None:
        if self.first is not None:
            self.points.extend([round(t, 1), value] for t, value in sorted({self.first, self.low, self.high}))

    def done(self) -> list[list]:
        self._flush()
        self.first = None
        return self.points


class _Levels:
    """The bytes allocated over a history, in total and by category, where it starts (what was alive before the
    recording began); :func:`_timeline` changes them event by event (the series thinned as they come)."""

    def __init__(self, before: dict[int, dict], named: PerStack, per: int):
        self.per = per
        self.sizes = _sizes_before(before)
        self.category = {a: named(b)[0] if b.get("frames") else UNKNOWN[0] for a, b in before.items()}
        self.level: dict[str, int] = {}
        for addr, category in self.category.items():
            self.level[category] = self.level.get(category, 0) + self.sizes[addr]
        self.start = self.total = self.peak_bytes = sum(self.sizes.values())
        self.peak_t, self.peak_index = 0.0, -1
        self.series = _Bucketed(per)
        self.series.add(0, 0.0, self.total)
        self.by_category = {c: _Bucketed(4 * per) for c in self.level}
        for c, series in self.by_category.items():
            series.add(0, 0.0, self.level[c])


def _timeline(
    trace: list[dict], before: dict[int, dict], free_action: str, named: PerStack, limit: int = 3000
) -> tuple[S.Timeline, _History]:
    """Allocated bytes over the whole history, in total and by category, thinned to about ``limit`` points (and as
    many per category); times in microseconds after the first event (its index where events carry no time). With
    the history's levels, as :func:`_replay` finds them."""
    levels = _Levels(before, named, max(1, -(-3 * len(trace) // limit)))
    t0 = trace[0].get("time_us") if trace else None  # a time, checked as the events were (an int or a finite float)
    # each event's change to the levels written out, names bound locally: the hot loop of a report's page
    sizes, category_of, level, by_category, per = levels.sizes, levels.category, levels.level, levels.by_category, levels.per
    add_total, total = levels.series.add, levels.total
    peak_bytes, peak_t, peak_index = levels.peak_bytes, levels.peak_t, levels.peak_index
    for i, ev in enumerate(trace, 1):
        action = ev["action"]
        if action == "alloc":
            addr, delta = ev["addr"], ev["size"]
            old = sizes.get(addr)
            if old is not None:  # a block still alive at its address: replaced (the trace lost its free)
                total -= old
                level[category_of[addr]] -= old
            category = category_of[addr] = named(ev)[0]
            sizes[addr] = delta
        elif action == free_action and ev["addr"] in sizes:
            addr = ev["addr"]
            category, delta = category_of.pop(addr), -sizes.pop(addr)
        else:
            continue
        t = ev.get("time_us")
        t = float(i - 1) if t is None or t0 is None else float(t - t0)
        total += delta
        value = level[category] = level.get(category, 0) + delta
        add_total(i, t, total)
        series = by_category.get(category)
        if series is None:
            series = by_category[category] = _Bucketed(4 * per)
        series.add(i, t, value)
        if total > peak_bytes:
            peak_bytes, peak_t, peak_index = total, t, i - 1
    levels.total, levels.peak_bytes, levels.peak_t, levels.peak_index = total, peak_bytes, peak_t, peak_index
    history = _History(levels.start, levels.peak_bytes, levels.peak_index, levels.total)
    return S.Timeline(
        source=AttributionSource.CUDA_SNAPSHOT,
        baseline="absolute bytes allocated on the device, over the whole recorded history",
        phases=[],
        regions=[],
        ops=[],
        total=levels.series.done(),
        categories={c: s.done() for c, s in sorted(levels.by_category.items())},
        peak=S.TimelinePeak(t_us=round(levels.peak_t, 1), bytes=levels.peak_bytes),
        events=len(trace),
    ), history


# -- two snapshots ----------------------------------------------------------------------------------------------------


def _delta(a: int | None, b: int | None) -> S.Delta:
    return S.Delta(a=a, b=b, delta=b - a if a is not None and b is not None else None)


def _status(bytes_a: int, bytes_b: int) -> DiffStatus:
    if not bytes_a:
        return DiffStatus.ONLY_B
    if not bytes_b:
        return DiffStatus.ONLY_A
    return DiffStatus.GROWN if bytes_b > bytes_a else DiffStatus.SHRUNK


def compare(a: Analysed, b: Analysed, *, top: int = TOP) -> S.SnapshotDiff:
    """Two snapshots read, compared: their figures side by side, the groups that differ ranked (B's excess first)."""
    sa, sb = a.summary, b.summary
    items, unchanged = [], 0
    for key in sorted(set(a.groups) | set(b.groups)):
        ga, gb = a.groups.get(key, (0, 0)), b.groups.get(key, (0, 0))
        if ga[0] == gb[0]:
            unchanged += 1
            continue
        items.append(
            S.SnapshotDiffItem(
                status=_status(ga[0], gb[0]),
                category=key[0],
                frame=key[1],
                bytes_a=ga[0],
                bytes_b=gb[0],
                delta_bytes=gb[0] - ga[0],
                blocks_a=ga[1],
                blocks_b=gb[1],
            )
        )
    items.sort(key=lambda it: (-it.delta_bytes, it.category, it.frame))
    ranked = [it for it in items if it.delta_bytes > 0][:top] + [it for it in reversed(items) if it.delta_bytes < 0][:top]
    categories = sorted(set(sa.by_category_bytes) | set(sb.by_category_bytes))
    result = S.SnapshotDiff(
        kind="snapshot-diff",
        a=sa,
        b=sb,
        scope=SCOPE,
        peak_bytes=_delta(sa.peak_bytes, sb.peak_bytes),
        start_bytes=_delta(sa.start_bytes, sb.start_bytes),
        end_bytes=_delta(sa.end_bytes, sb.end_bytes),
        reserved_bytes=_delta(sa.reserved_bytes, sb.reserved_bytes),
        by_category={c: _delta(sa.by_category_bytes.get(c, 0), sb.by_category_bytes.get(c, 0)) for c in categories},
        items=ranked,
        differences=len(items),
        unchanged=unchanged,
        verdict=S.Verdict(text=""),
    )
    return result.model_copy(update={"verdict": snapshot_diff_verdict(result)})


def snapshot_diff_verdict(d: S.SnapshotDiff) -> S.Verdict:
    """The answer first: how the peaks differ, and the group whose bytes differ most in the peak's direction."""
    pk = d.peak_bytes
    if not d.items:
        return S.Verdict(
            text=f"The peaks are {fmt_bytes(pk.a)} and {fmt_bytes(pk.b)}; nothing alive at them differs.",
            bytes=0,
            total_bytes=pk.delta,
        )
    grew = (pk.delta or 0) >= 0
    lead = next((it for it in d.items if (it.delta_bytes > 0) == grew), d.items[0])
    where = {DiffStatus.ONLY_B: "alive at B's peak only", DiffStatus.ONLY_A: "alive at A's peak only"}.get(
        lead.status, f"{fmt_bytes(lead.bytes_a)} -> {fmt_bytes(lead.bytes_b)}"
    )
    head = (
        f"B's peak is {fmt_bytes(abs(pk.delta))} {'higher' if pk.delta > 0 else 'lower'} than A's"
        f" ({fmt_bytes(pk.a)} -> {fmt_bytes(pk.b)})"
        if pk.delta
        else f"The peaks are the same ({fmt_bytes(pk.a)})"
    )
    text = f"{head}: {fmt_delta(lead.delta_bytes)} of {lead.category} from {lead.frame} ({where})."
    return S.Verdict(text=text, bytes=lead.delta_bytes, total_bytes=pk.delta)
