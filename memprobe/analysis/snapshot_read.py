"""A CUDA memory snapshot taken elsewhere, read into plain figures: the levels of its history, every group of blocks
alive at its peak, and on request its timeline. The record of them (:mod:`memprobe.analysis.user_snapshot`) is made
from these figures wherever they were read: a verb reads the snapshot in a forked process while it imports what
renders it (:func:`read_snapshot` needs neither the record's types nor pydantic), and the timeline of a long history
is followed in parts, each on a core of its own (:func:`timeline_series`).

The user's script called ``torch.cuda.memory._record_memory_history()`` and ``_dump_snapshot()``; memprobe recorded
nothing of that run: no compiled graphs, no phase markers, no tensor registry. So every block is named from its
allocation stack alone:

- **its category**, by the first rule of :data:`_RULES` its frames match (a library workspace, FSDP2's storages, the
  optimizer's state and temporaries, what backward allocated, a compiled graph's buffers, the model's parameters
  and buffers, eager code of the user's), else ``other``;
- **its frame**: the innermost frame of the user's code, ``file.py:line in function``: a Python file that is neither
  the standard library's nor an installed package's (torch's, ...) nor code Inductor generated; where no frame is
  the user's, the innermost Python frame in parentheses.

The snapshot is read by :func:`~memprobe.analysis.snapshot.load_snapshot` (bounded, nothing executed, streamed from
the file); its history is replayed, each a plain loop over the events: once for the peak (the timeline's replay finds
it too), once up to it for what is alive there. What a stack says is worked out once per distinct frame list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..forked import forked_map, part_count
from ..vocab import Category
from .frames import is_library, short_path
from .snapshot import PerStack, Snapshot, blocks_before, collector_paused, free_action_of, load_snapshot, trace_events

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


def _alive_after(
    trace: list[dict], live: dict[int, int | dict], free_action: str, start: int, index: int
) -> dict[int, int | dict]:
    """The blocks alive right after event ``index``, replayed from those ``live`` right before event ``start``:
    address -> the index of its allocation in the trace, or its block of
    :func:`~memprobe.analysis.snapshot.blocks_before`."""
    live = dict(live)
    _replay_into(live, trace, free_action, start, index + 1)
    return live


def _replay_into(live: dict[int, int | dict], trace: list[dict], free_action: str, start: int, end: int) -> None:
    """``live`` (address -> an allocation's index, or a block alive before the recording) changed by the events
    ``start`` to ``end`` (``end`` excluded): an allocation is alive at its address from its event on (one at an
    address still alive replaces that block), a free ends the block alive at its address."""
    for i in range(start, end):
        ev = trace[i]
        action = ev["action"]
        if action == "alloc":
            live[ev["addr"]] = i
        elif action == free_action:
            live.pop(ev["addr"], None)


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
    return total


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


# -- one snapshot -----------------------------------------------------------------------------------------------


@dataclass
class Series:
    """A history's timeline as plain figures: points ``[t_us, bytes]`` in total and by category (each thinned to the
    first, lowest and highest point of its buckets), and its peak."""

    total: list[list]
    categories: dict[str, list[list]]
    peak_t_us: float
    peak_bytes: int
    events: int


@dataclass
class Read:
    """A snapshot read, in plain figures: its device (of ``devices`` with a trace), its events, the levels of its
    history, when its peak came (microseconds after the first event), the bytes its segments reserve, every group
    alive at its peak (``(category, frame) -> [bytes, blocks, evidence]``) and, when asked for, its timeline."""

    file_bytes: int
    device: int
    devices: int
    events: int
    history: _History
    peak_t_us: float | None
    reserved_bytes: int
    groups: dict[tuple[str, str], list]
    timeline: Series | None = None


# the snapshots read with ``hold``: never freed (the process that read them leaves without its teardown)
_HELD: list[Snapshot] = []


def read_snapshot(path: str | Path, *, with_timeline: bool = False, workers: int | None = None, hold: bool = False) -> Read:
    """Read the snapshot at ``path`` (a file the user named: a symbolic link is followed) into its figures;
    SnapshotError (exit 2) in one line when it is not one memprobe reads. The cyclic collector stays off throughout
    (millions of plain dicts: nothing for it to find). ``workers``: see :func:`timeline_series`. ``hold``: the
    snapshot's data is kept, never freed, for a process that leaves once it has sent its figures (freeing the millions
    of objects one by one takes a quarter of the reading)."""
    with collector_paused():
        snap = load_snapshot(path, follow=True)
        if hold:
            _HELD.append(snap)
        return read_loaded(snap, with_timeline=with_timeline, workers=workers)


def read_loaded(snap: Snapshot, *, with_timeline: bool = False, workers: int | None = None) -> Read:
    """:func:`read_snapshot` of a snapshot already loaded."""
    device, devices = _pick_device(snap)
    trace = trace_events(snap, device)
    before, free_action = blocks_before(snap, device), free_action_of(snap, device)
    named = PerStack(_named)
    # the timeline's replay finds the peak as _replay does: one pass over the history, not two
    series, history, starts = (
        timeline_series(trace, before, free_action, named, workers=workers) if with_timeline else (None, None, {})
    )
    history = history or _replay(trace, before, free_action)
    # what is alive at the peak: replayed from the last state the timeline's parts started from before it
    first = max((i for i in starts if i <= history.peak_index), default=0)
    alive = _alive_after(trace, starts.get(first, before), free_action, first, history.peak_index)
    t0 = trace[0].get("time_us") if trace else None
    peak_t = _elapsed(t0, trace[history.peak_index].get("time_us")) if history.peak_index >= 0 else None
    return Read(
        file_bytes=snap.file_bytes or 0,
        device=device,
        devices=devices,
        events=len(trace),
        history=history,
        peak_t_us=peak_t,
        reserved_bytes=_reserved(snap, device),
        groups=_groups(alive, trace, named),
        timeline=series,
    )


def _elapsed(t0, t) -> float | None:
    """Microseconds from ``t0`` to ``t`` (each a time as the trace records it), None without both."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (t0, t)):
        return None
    return float(t - t0)


# -- the timeline (the HTML page's chart and the trace) -----------------------------------------------------------------

# a history of at least this many events per core is followed in parts, each on a core of its own (fewer: forking
# costs more than it saves)
EVENTS_PER_PART = 40_000


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


@dataclass
class _Part:
    """One part of a history's timeline: its points in total and by category, its highest level after one of its
    events (bytes, time, event index: the first event at that level; None where no event of the part changed the
    level), and its level at its end."""

    total: list[list]
    categories: dict[str, list[list]]
    peak: tuple[int, float, int] | None
    end: int


def timeline_series(
    trace: list[dict], before: dict[int, dict], free_action: str, named: PerStack, limit: int = 3000, workers: int | None = None
) -> tuple[Series, _History, dict[int, dict]]:
    """Allocated bytes over the whole history, in total and by category, thinned to about ``limit`` points (and as
    many per category); times in microseconds after the first event (its index where events carry no time). With
    the history's levels, as :func:`_replay` finds them, and the blocks alive where each part started (by its first
    event's index).

    A long history is followed in parts of whole buckets, each in a forked process of its own (``workers`` at most:
    by default one per core, up to :data:`~memprobe.forked.MAX_PARTS`, each of at least :data:`EVENTS_PER_PART` events): one
    pass over the history finds the blocks alive where each part starts, then each part replays its events from
    there. Each bucket lies in one part and the levels are absolute, so the parts' points, joined, are the points
    of one pass, to the byte (tests/test_user_snapshots.py)."""
    per = max(1, -(-3 * len(trace) // limit))
    starts = _part_starts(len(trace), 4 * per, workers)
    alive = _alive_at(trace, before, free_action, starts)
    t0 = trace[0].get("time_us") if trace else None
    ends = [*starts[1:], len(trace)]
    calls = [(trace, alive[k], free_action, named, (start, end, per, t0)) for k, (start, end) in enumerate(zip(starts, ends))]
    parts = forked_map(_part, calls) if len(calls) > 1 else [_part(*calls[0])]
    start_bytes = sum(_sizes_before(before).values())
    peak_bytes, peak_t, peak_index = start_bytes, 0.0, -1
    for part in parts:
        if part.peak is not None and part.peak[0] > peak_bytes:
            peak_bytes, peak_t, peak_index = part.peak
    categories: dict[str, list[list]] = {}
    for part in parts:
        for c, points in part.categories.items():
            categories.setdefault(c, []).extend(points)
    series = Series(
        total=[p for part in parts for p in part.total],
        categories=dict(sorted(categories.items())),
        peak_t_us=round(peak_t, 1),
        peak_bytes=peak_bytes,
        events=len(trace),
    )
    return series, _History(start_bytes, peak_bytes, peak_index, parts[-1].end), dict(zip(starts, alive))


def _part_starts(events: int, bucket: int, workers: int | None) -> list[int]:
    """The first event (its index) of each part of a history of ``events``: parts of whole buckets of ``bucket``
    events (event ``i`` is the trace's ``i - 1``th: the first part also holds the start), as many as ``workers``."""
    if workers is None:
        workers = part_count(events, EVENTS_PER_PART)
    buckets = -(-(events + 1) // bucket)
    parts = max(1, min(workers, buckets))
    return [0] + [(buckets * k // parts) * bucket - 1 for k in range(1, parts)]


def _alive_at(trace: list[dict], before: dict[int, dict], free_action: str, starts: list[int]) -> list[dict]:
    """The blocks alive right before each event of ``starts`` (ascending): address -> the index of its allocation,
    or its block of :func:`~memprobe.analysis.snapshot.blocks_before`; one pass."""
    live: dict[int, int | dict] = dict(before)
    out, i = [], 0
    for start in starts:
        _replay_into(live, trace, free_action, i, start)
        out.append(dict(live))
        i = start
    return out


def _part(trace: list[dict], alive: dict, free_action: str, named: PerStack, span: tuple) -> _Part:
    """The timeline of the events ``start`` to ``end`` (indices) of ``span = (start, end, per, t0)``, from the blocks
    ``alive`` before ``start`` (the first part adds the start's own points)."""
    start, end, per, t0 = span
    levels = _Levels(trace, alive, named, per, first=start == 0)
    # each event's change to the levels written out, names bound locally: the hot loop of a report's page
    sizes, category_of, level, by_category = levels.sizes, levels.category, levels.level, levels.by_category
    add_total, total = levels.series.add, levels.total
    peak_bytes, peak = -1, None
    for i in range(start + 1, end + 1):
        ev = trace[i - 1]
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
            peak_bytes, peak = total, (total, t, i - 1)
    return _Part(levels.series.done(), {c: s.done() for c, s in by_category.items()}, peak, total)


class _Levels:
    """The bytes allocated where a part of a history starts, in total and by category, from the blocks alive there
    (an allocation's index in the trace, or a block alive before the recording began); :func:`_part` changes them
    event by event (the series thinned as they come). The first part's series start with these levels."""

    def __init__(self, trace: list[dict], alive: dict, named: PerStack, per: int, first: bool):
        self.sizes, self.category = {}, {}
        for addr, where in alive.items():
            block = trace[where] if type(where) is int else where
            self.sizes[addr] = block["size"]
            known = type(where) is int or block.get("frames")
            self.category[addr] = named(block)[0] if known else UNKNOWN[0]
        self.level: dict[str, int] = {}
        for addr, category in self.category.items():
            self.level[category] = self.level.get(category, 0) + self.sizes[addr]
        self.total = sum(self.sizes.values())
        self.series = _Bucketed(per)
        self.by_category: dict[str, _Bucketed] = {}
        if first:
            self.series.add(0, 0.0, self.total)
            self.by_category = {c: _Bucketed(4 * per) for c in self.level}
            for c, series in self.by_category.items():
                series.add(0, 0.0, self.level[c])
