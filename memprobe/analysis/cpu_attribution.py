"""What is alive at the peaks of a CPU run, from the profiler's memory events.

The CPU profiler gives each allocation's address, size and time, but no stack. An
allocation is named by the annotated region it happened in: a compiled graph call
(``memprobe::call gN``, matched statement by statement against the simulated output
code), FSDP's own regions (``FSDP::pre_forward`` all-gathers, ``FSDP::post_backward_*``
reduce-scatters), the optimizer step, the cast of the inputs. Sizes and times are
measured; the categories are inferred from those regions.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace

from ..names import block_prefix
from ..rundir import schema as S
from ..rundir.read import check_work
from ..vocab import AttributionSource, Category, Phase, ReturnRole
from .peaks import Alive, StepFigures, step_attribution, summarize_alive
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


def _innermost(annotations: list[tuple], times: list[float]) -> list[str | None]:
    """For each time, the name of the innermost region holding it (``t0 <= t <= t1``): the shortest, the first listed
    of those as short. One sweep in time order with the regions begun in a heap: not every region per event."""
    opening = sorted(range(len(annotations)), key=lambda k: annotations[k][1])
    begun: list[tuple[float, int, float]] = []  # (duration, listed as, end)
    names: list[str | None] = [None] * len(times)
    j = 0
    for i in sorted(range(len(times)), key=times.__getitem__):
        t = times[i]
        while j < len(opening) and annotations[opening[j]][1] <= t:
            _name, t0, t1 = annotations[opening[j]]
            heapq.heappush(begun, (t1 - t0, opening[j], t1))
            j += 1
        while begun and begun[0][2] < t:  # ended before t (one below it that ended goes when it surfaces)
            heapq.heappop(begun)
        names[i] = annotations[begun[0][1]][0] if begun else None
    return names


@dataclass(frozen=True)
class Named:
    """What an allocation is: its category and, when a rule gives one, its item."""

    category: str
    item: str | None
    graph: str | None = None  # the compiled graph whose output code allocated it (matched to a statement)
    storage: str | None = None  # that statement's buffer
    call: int | None = None  # the invocation it belongs to


@dataclass
class CpuEvents:
    """The profiler's memory events, the annotated regions, and a name for each allocation a compiled graph call
    made (by event index)."""

    rows: list[tuple]  # (ts_us, bytes, total_allocated, addr)
    annotations: list[tuple]  # (name, start_us, end_us)
    names: dict[int, Named]
    innermost: list[str | None] | None = field(default=None, repr=False)  # each row's innermost region, once asked
    # what autograd saved outside the compiled graphs: the allocation event of each such storage (the last one in
    # forward at its address and not freed before forward ended), and the module that saved it
    saved_outside: dict[int, str] = field(default_factory=dict)

    def category_of(self, index: int) -> Named:
        """The name of allocation event ``index``: from a graph call; a storage autograd saved outside the graphs
        (allocated in forward at its address: an eager step's saved activations); else from its innermost region."""
        named = self.names.get(index)
        if named is not None:
            return named
        module = self.saved_outside.get(index)
        if module is not None:
            return Named(Category.SAVED_FOR_BACKWARD, f"saved by {module}")
        if self.innermost is None:
            self.innermost = _innermost(self.annotations, [row[0] for row in self.rows])
        return Named(_category_for(self.innermost[index]), None)


def name_cpu_events(report: S.Report) -> CpuEvents | None:
    """The run's memory events with each allocation named; None without events."""
    ev = report.memory.events if report.memory else None
    if not ev or "addr" not in (ev.columns or []):
        return None
    annotations = [a for a in ev.annotations or [] if _kept_region(a[0])]
    calls = [a for a in annotations if a[0].startswith("memprobe::call g")]
    forward = (ev.phase_windows_us or {}).get(Phase.FORWARD)
    saved = _saved_outside_addresses(report.saved_outside)
    rows = allocator_rows(ev.rows)
    return CpuEvents(
        rows,
        annotations,
        _graph_call_names(report, rows, calls),
        saved_outside=_saved_allocations(rows, saved, forward[1]) if forward and saved else {},
    )


def allocator_rows(rows: list[tuple]) -> list[tuple]:
    """The memory events of what the CPU allocator counts, the figure the phases' peaks are read from (its 'Total
    Allocated'): an allocation the profiler reports with a total of 0 is memory the allocator does not count (a batch
    a DataLoader worker sent through shared memory: how many arrive within the step depends on the workers' timing,
    and an A/A diff of minGPT's chargpt differed by 192 KiB of them); it is left out with its free, and so is a free
    of a block not allocated in the step (the profiler reports none of the allocator's: such frees are of the same
    shared memory)."""
    live: set[int] = set()
    kept = []
    for row in rows:
        nbytes, total, addr = row[1], row[2], row[3]
        if nbytes > 0:
            if total == 0:
                continue
            live.add(addr)
        elif addr in live:
            live.discard(addr)
        else:
            continue
        kept.append(row)
    return kept


def _saved_outside_addresses(outside: S.SavedOutside | None) -> dict[int, str]:
    """The module that saved each storage autograd saved outside the compiled graphs, by its address."""
    return {a: m.module for m in (outside.modules if outside else []) for a in m.addresses or []}


def _saved_allocations(rows: list[tuple], saved: dict[int, str], forward_end_us: float) -> dict[int, str]:
    """The allocation event of each saved storage, by its address: the last allocation there up to forward's end that
    was not freed before it (an earlier block at a reused address, an unsharded parameter freed in forward, is not
    it), with the module that saved it."""
    alive: dict[int, int] = {}
    for i, row in enumerate(rows):
        ts, nbytes, _total, addr = row[:4]
        if ts > forward_end_us:
            break
        if addr not in saved:
            continue
        if nbytes > 0:
            alive[addr] = i
        elif nbytes < 0:
            alive.pop(addr, None)
    return {i: saved[addr] for addr, i in alive.items()}


def _kept_region(name: str) -> bool:
    """An annotated region that names allocations: every one but memprobe's own, except its graph calls and backward."""
    return not name.startswith("memprobe::") or name.startswith("memprobe::call") or name == "memprobe::backward"


def _graph_call_names(report: S.Report, rows: list[tuple], calls: list[tuple]) -> dict[int, Named]:
    """The allocations the graph calls (``calls``: their annotated regions, in call order) made, named from their
    output code, by event index."""
    gm = {g.graph_id: g for g in report.graph_memory or [] if g.allocations is not None}
    names: dict[int, Named] = {}
    by_time = sorted(range(len(rows)), key=lambda i: rows[i][0])  # a call's events are a range of these: bisected
    times = [rows[i][0] for i in by_time]
    spans = [(bisect_left(times, t0), bisect_right(times, t1)) for _name, t0, t1 in calls]
    # calls that overlap (no probe records them so) would span the events again and again: bounded before the work
    spanned = sum(max(0, hi - lo) for lo, hi in spans)
    what = "memory events spanned by the graph calls of memory.events.annotations (an event counted for each call)"
    check_work("report.json", "events", spanned, what)
    forward_calls = 0
    whole = report.model.whole_model if report.model else None
    for (name, _t0, _t1), (lo, hi) in zip(calls, spans):
        graph, k = call_of(name, forward_calls)
        forward_calls += graph.endswith(".forward")
        # the names a value's op chain is under: its block's, none for the whole model's (as the saved table's)
        block = block_prefix(report.invocations[k].block, whole) if 0 <= k < len(report.invocations) else None
        named = _call_names(rows, sorted(by_time[lo:hi]), graph, gm.get(graph), block)
        names.update({i: replace(n, call=k) if n.storage else n for i, n in named.items()})
    return names


def call_of(annotation: str, forward_calls: int) -> tuple[str, int]:
    """The graph and invocation of a graph call's range: ``memprobe::call g1`` is the forward of the next call
    (``forward_calls`` came before it), ``memprobe::call g1.backward 3`` the backward of call 3."""
    words = annotation.split()
    if words[1].endswith(".backward") and len(words) == 3 and words[2].isdigit():
        return words[1], int(words[2])
    return f"{words[1]}.forward", forward_calls


def _call_names(rows: list[tuple], window: list[int], graph: str, sim: S.GraphMemory | None, block: str | None) -> dict:
    """The allocations of one graph call (the events of its ``window``, in order) matched to its output code's: the
    wrapper's allocations come in statement order; a returned storage outlives the call, a temporary does not.
    Allocations that match neither came from inside a kernel."""
    expected = list(sim.allocations) if sim else []
    roles = {r.storage: r for r in (sim.returned if sim else None) or [] if r.storage and not r.is_input}
    allocs = [i for i in window if rows[i][1] > 0]
    of_kind = _by_size_and_fate(rows, allocs, _freed_in_call(rows, window))
    names: dict[int, Named] = {}
    pos = 0
    for _line, storage, nbytes in expected:
        candidates = of_kind.get((nbytes, storage in roles), [])
        j = bisect_left(candidates, pos)
        if j < len(candidates):
            pos = candidates[j] + 1
            names[allocs[candidates[j]]] = replace(
                _returned_name(roles.get(storage), storage, graph, block), graph=graph, storage=storage
            )
    for i in allocs:
        names.setdefault(i, Named(Category.INDUCTOR_TEMPORARY, f"allocated inside a kernel of {graph}"))
    return names


def _freed_in_call(rows: list[tuple], window: list[int]) -> set[int]:
    """The allocations of a call's ``window`` that the call also freed (by event index)."""
    freed = set()
    alive: dict[int, int] = {}
    for i in window:
        if rows[i][1] > 0:
            alive[rows[i][3]] = i
        elif rows[i][3] in alive:
            freed.add(alive.pop(rows[i][3]))
    return freed


def _by_size_and_fate(rows: list[tuple], allocs: list[int], freed: set[int]) -> dict[tuple, list[int]]:
    """(size, outlives the call) -> the positions in ``allocs`` of the allocations of that size and fate, in order.
    Each statement takes the first allocation after the last one taken that has its size and fate: found by
    bisection among these, not by a scan of the rest of the call per statement."""
    of_kind: dict[tuple, list[int]] = {}
    for k, i in enumerate(allocs):
        of_kind.setdefault((rows[i][1], i not in freed), []).append(k)
    return of_kind


def _returned_name(ret: S.ReturnedValue | None, storage: str, graph: str, block: str | None) -> Named:
    if ret is None:
        return Named(Category.INDUCTOR_TEMPORARY, f"{storage} ({graph})")
    category = Category.SAVED_FOR_BACKWARD if ret.role == ReturnRole.SAVED else Category.GRAPH_OUTPUT
    return Named(category, _with_block(ret.expr or ret.fx_node, block))


def attribute_cpu(report: S.Report, top: int = 15) -> S.Attribution | None:
    events = name_cpu_events(report)
    if events is None:
        return None
    rows = events.rows

    def live_at(index: int) -> dict[int, int]:
        live: dict[int, int] = {}
        for i, row in enumerate(rows[: index + 1]):
            addr, nbytes = row[3], row[1]
            if nbytes > 0:
                live[addr] = i
            else:
                live.pop(addr, None)
        return live

    def at(index: int) -> Alive:
        def named():
            for _addr, i in live_at(index).items():
                n = events.category_of(i)
                yield n.category, n.item or n.category, rows[i][1], None

        return summarize_alive(named(), index, "report.json's memory.events (the profiler's memory events)", top)

    def peak_index(t0: float = float("-inf"), t1: float = float("inf")) -> tuple[int, int]:
        best, best_i = None, -1
        for i, row in enumerate(rows):
            if t0 <= row[0] <= t1 and (best is None or row[2] > best):
                best, best_i = row[2], i
        return best_i, best if best is not None else 0

    step_i, step_peak = peak_index()
    windows = report.memory.events.phase_windows_us or {}
    phases = {}
    for name, (t0, t1) in windows.items():
        i, peak = peak_index(t0, t1)
        if i >= 0:
            end = at(max((k for k, row in enumerate(rows) if row[0] <= t1), default=-1))
            phases[name] = at(i).at_peak(peak).model_copy(update={"at_end": end.at_end()})
    step = at(step_i) if step_i >= 0 else at(-1)
    peak_phase = next((n for n, (t0, t1) in windows.items() if step_i >= 0 and t0 <= rows[step_i][0] <= t1), None)
    return step_attribution(
        AttributionSource.CPU_PROFILER,
        step,
        StepFigures(
            events=len(rows),
            peak_bytes=step_peak,
            peak_phase=peak_phase,
            phases=phases,
            baseline="bytes allocated since the measured step began (earlier allocations are not seen)",
            measured=["allocation sizes, addresses and times (profiler memory events)"],
            inferred=[
                "categories from the annotated region an allocation happened in (FSDP::*, Optimizer.*, memprobe::call gN)",
                *(
                    ["saved-for-backward outside the graphs: a forward allocation at the address of a storage autograd saved"]
                    if events.saved_outside
                    else []
                ),
                "saved-for-backward / graph-output / temporary: allocations in a graph call matched in order and size"
                " to the output code's empty_strided statements",
            ],
        ),
    )


def _with_block(expr: str, block: str | None) -> str:
    return prefix_block(expr, block) if block else expr
