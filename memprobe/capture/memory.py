"""Per-phase memory of the measured step.

CPU: the profiler's memory events (``profile_memory=True``); their running
``Total Allocated`` covers Inductor's C++ allocations too. Profiling starts at
the step's start, so figures are bytes above the step's starting level
(everything allocated before, such as parameters and optimizer state, is the
baseline; ``persistent_bytes`` says how large it is).

CUDA: the caching allocator's statistics, peaks reset at each phase boundary;
figures are absolute bytes allocated / reserved on the device.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time

import torch

from ..rundir import records as R
from ..vocab import Category, MemorySource, Phase, PhaseEdge
from .saved_outside import storages_of

PHASES = tuple(Phase)
_PREFIX = "memprobe::"


def snapshot_stacks() -> str:
    """The stacks a snapshot records: ``python`` unless MEMPROBE_SNAPSHOT_STACKS says ``all``. torchtitan found that
    ``all`` crashes torch's C++ unwinder on compiler-generated frames, leaving empty pickles (its PR #2991), and took
    ~461 s to dump against ~4 s with ``python`` on DeepSeek-V3 16B (PR #3628)."""
    from ..settings import SNAPSHOT_STACKS

    return "all" if os.environ.get(SNAPSHOT_STACKS.name, "").strip().lower() == "all" else "python"


class CudaPhases:
    """Allocator statistics per phase, on the current CUDA device.

    With ``snapshot_path`` the measured step also records the allocator's history
    (Python stacks; C++ ones too with MEMPROBE_SNAPSHOT_STACKS=all: :func:`snapshot_stacks`) and dumps it as a snapshot
    that pytorch.org/memory_viz opens.
    Phase boundaries are marked in that history by one tiny allocation each, made from
    :func:`_phase_marker` (``markers`` lists them in order).
    """

    source = MemorySource.CUDA_ALLOCATOR

    def __init__(self, device: torch.device, snapshot_path=None, registry=None, max_entries: int = 200_000):
        self.device = device
        self.phases: dict[str, R.PhaseMemory] = {}
        self.snapshot_path = snapshot_path
        self.registry = registry  # callable -> {data_ptr: {...}} of tensors alive before the step
        self.max_entries = max_entries
        self.markers: list[list[str]] = []
        self.tensor_registry: dict[str, R.RegistryEntry] | None = None
        self.recording = False
        self.peak_reserved_before: int | None = None  # the process's peak before the measured step (build, compile)
        self.dump_s: float | None = None  # seconds the snapshot took to write

    def start_history(self) -> None:
        """Record allocation stacks from now on (call before the model is built, so blocks
        that outlive the warm-up steps, such as library workspaces, carry their stacks too)."""
        if self.snapshot_path is None:
            return
        self._record(clear=False)
        self.recording = True

    def _record(self, clear: bool) -> None:
        import inspect

        record = torch.cuda.memory._record_memory_history
        kwargs = {"context": "all", "stacks": snapshot_stacks(), "max_entries": self.max_entries}
        params = inspect.signature(record).parameters
        if "compile_context" in params:
            kwargs["compile_context"] = True
        if "device" in params:
            kwargs["device"] = self.device
        if clear and "clear_history" in params:
            kwargs["clear_history"] = True
        elif clear:
            record(enabled=None)
        record(enabled="all", **kwargs)

    @contextlib.contextmanager
    def step(self):
        # reserved figures of the measured step start from the blocks in use, not from whatever the first
        # step's compilation and autotuning left cached (which differs from process to process)
        torch.cuda.synchronize(self.device)
        self.peak_reserved_before = torch.cuda.max_memory_reserved(self.device)
        torch.cuda.empty_cache()
        if self.snapshot_path is not None:
            self.tensor_registry = self.registry() if self.registry else None
            # the trace covers the measured step only; blocks keep the stacks recorded earlier
            self._record(clear=True)
            self.recording = True
        try:
            yield self
        finally:
            if self.recording:
                self.dump_history()

    def stop(self) -> None:
        """Stop recording without writing a snapshot (the run failed before the measured step)."""
        if self.recording:
            torch.cuda.memory._record_memory_history(enabled=None)
            self.recording = False

    def keep_history(self) -> str | None:
        """After a failure: the allocator history recorded so far, written as the snapshot (best effort: the device
        may be what failed); its file name, or None when there is none."""
        if not self.recording or self.snapshot_path is None:
            return None
        try:
            self.dump_history()
        except Exception:
            return None
        return self.snapshot_path.name

    def dump_history(self) -> None:
        """Write the allocator history recorded so far as the snapshot, and stop recording."""
        torch.cuda.synchronize(self.device)
        path = self.snapshot_path
        tmp = path.with_name(f".{path.name}.tmp")
        t0 = time.perf_counter()
        try:
            torch.cuda.memory._dump_snapshot(str(tmp))  # symbolizes the recorded C++ frames
            os.replace(tmp, path)
        finally:
            torch.cuda.memory._record_memory_history(enabled=None)
            self.recording = False
            self.dump_s = time.perf_counter() - t0

    @contextlib.contextmanager
    def phase(self, name: str):
        torch.cuda.synchronize(self.device)
        torch.cuda.reset_peak_memory_stats(self.device)
        start = torch.cuda.memory_allocated(self.device)
        start_reserved = torch.cuda.memory_reserved(self.device)
        if self.recording:
            _phase_marker(self.device)
            self.markers.append([name, PhaseEdge.START])
        yield
        if self.recording:
            _phase_marker(self.device)
            self.markers.append([name, PhaseEdge.END])
        torch.cuda.synchronize(self.device)
        stats = torch.cuda.memory_stats(self.device)
        self.phases[name] = R.PhaseMemory(
            start_bytes=start,
            peak_bytes=stats.get("allocated_bytes.all.peak", 0),
            end_bytes=stats.get("allocated_bytes.all.current", 0),
            peak_active_bytes=stats.get("active_bytes.all.peak", 0),
            start_reserved_bytes=start_reserved,
            peak_reserved_bytes=stats.get("reserved_bytes.all.peak", 0),
            end_reserved_bytes=stats.get("reserved_bytes.all.current", 0),
        )

    def result(self) -> R.Memory:
        snapshot = None
        if self.snapshot_path is not None:
            snapshot = R.SnapshotMeta(
                file=self.snapshot_path.name, phase_markers=self.markers, tensor_registry=self.tensor_registry
            )
        return R.Memory(
            source=self.source,
            baseline="absolute bytes allocated on the device (reserved: from a cache emptied at the step's start)",
            phases=self.phases,
            events=None,
            # what the process reserved at most, from its first allocation to the measured step's end
            process_peak_reserved_bytes=max(
                [self.peak_reserved_before or 0, *(p.peak_reserved_bytes for p in self.phases.values())]
            ),
            snapshot=snapshot,
        )


def _phase_marker(device) -> None:
    """One 1-byte allocation, freed at once: a phase boundary in the allocator's history."""
    marker = torch.empty(1, dtype=torch.uint8, device=device)
    del marker


class CpuPhases:
    """Profiler memory events per phase, relative to the step's start."""

    source = MemorySource.CPU_PROFILER

    def __init__(self, quiet: bool = True):
        self.quiet = quiet
        self.phases: dict[str, R.PhaseMemory] = {}
        self.events: list[list[float]] = []
        self.annotations: list[list] = []
        self.ops: list[list] = []
        self.windows: dict[str, tuple[float, float]] = {}

    @contextlib.contextmanager
    def step(self):
        from torch.profiler import ProfilerActivity, profile

        with _silenced_stderr(self.quiet):
            with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
                yield self
            fd, path = tempfile.mkstemp(suffix=".json", prefix="memprobe-trace-")
            os.close(fd)
            try:
                prof.export_chrome_trace(path)
                del prof  # the profiler's own events: freed before the trace is read
                _check_trace(path)
                with open(path) as f:
                    trace = json.load(f)
            finally:
                os.unlink(path)
        self._read_trace(trace["traceEvents"])

    def stop(self) -> None:
        """Nothing to stop: the profiler runs only inside the measured step."""

    def keep_history(self) -> None:
        """The CPU profiler keeps no history beyond the measured step: nothing to write after a failure."""
        return None

    @contextlib.contextmanager
    def phase(self, name: str):
        from torch.profiler import record_function

        with record_function(_PREFIX + name):
            yield

    def _read_trace(self, events: list[dict]) -> None:
        self.events = _memory_rows(events)
        self.annotations = _annotations(events)
        self.ops += _outermost_ops(events)
        for name, t0, t1 in self.annotations:
            if name.startswith(_PREFIX) and name[len(_PREFIX) :] in PHASES:
                self.windows[name[len(_PREFIX) :]] = (t0, t1)
        for name, (t0, t1) in self.windows.items():
            self.phases[name] = _phase_of(self.events, t0, t1)

    def result(self) -> R.Memory:
        return R.Memory(
            source=self.source,
            baseline="bytes above the measured step's start (CPU profiler 'Total Allocated')",
            phases={p: self.phases[p] for p in PHASES if p in self.phases},
            events=R.CpuEvents(
                columns=["ts_us", "bytes", "total_allocated", "addr"],
                rows=self.events,
                phase_windows_us=self.windows,
                annotations=self.annotations,
                ops=self.ops,
            ),
        )


# what json.load of a profiler trace holds, for each byte of the file (2.9 measured: a 100 MiB trace of 383,190
# events, torch 2.13 on x86_64)
TRACE_LOAD_FACTOR = 3
# how much of the memory available when the trace is read its reading may take
TRACE_LOAD_SHARE = 0.8
_FEWER_OPS = "measure a step of fewer ops (a shorter sequence, fewer layers, fewer calls of an optimizer's closure)"


def _check_trace(path: str) -> None:
    """RunFailed, before it is read, for a profiler trace of the measured step that memprobe could not read: more
    allocation events than a report.json may hold (the bound on events memprobe reads in one file), or a trace whose
    reading would take more memory than is available (a step of millions of small ops, such as an LBFGS closure run
    20 times over a 1,000-step recurrent loop: a 2.5 GB trace, killed by the out-of-memory killer while it was read).
    Counted in the file's bytes, without parsing it."""
    from ..errors import RunFailed
    from ..rundir.read import WORK_LIMITS, work_limit
    from ..units import fmt_bytes
    from .fits import host_available_bytes

    size = os.path.getsize(path)
    allocations, events = _occurrences(path, (b'"[memory]"', b'"ph"'))
    limit = work_limit("events")
    if allocations > limit:
        raise RunFailed(
            f"the measured step made {allocations:,} allocations and frees on the CPU ({events:,} profiler events), more "
            f"than memprobe records for one step (at most {limit:,}; {WORK_LIMITS['events'][1]} raises it): {_FEWER_OPS}"
        )
    needed, available = TRACE_LOAD_FACTOR * size, host_available_bytes()
    if available is not None and needed > TRACE_LOAD_SHARE * available:
        raise RunFailed(
            f"reading the measured step's CPU profile ({events:,} events, {fmt_bytes(size)} of trace) needs about "
            f"{fmt_bytes(needed)} of memory and {fmt_bytes(available)} is available: {_FEWER_OPS}, or measure it on a "
            "machine with more memory"
        )


def _occurrences(path: str, needles: tuple[bytes, ...], chunk: int = 1 << 24) -> list[int]:
    """How often each of ``needles`` occurs in the file at ``path``, read a chunk at a time (an occurrence across two
    chunks counted once: each chunk is searched with the tail of the one before it, shorter than any needle)."""
    counts = [0] * len(needles)
    keep = max(len(n) for n in needles) - 1
    tail = b""
    with open(path, "rb") as f:
        while block := f.read(chunk):
            data = tail + block
            for i, needle in enumerate(needles):
                # what lies wholly in the tail was counted with the chunk before
                counts[i] += data.count(needle) - tail.count(needle)
            tail = data[-keep:] if keep else b""
    return counts


def _memory_rows(events: list[dict]) -> list[list]:
    """The host's allocations and frees, in time order: ``[ts_us, bytes, total_allocated, addr]``."""
    mem = sorted(
        (e["ts"], e["args"]["Bytes"], e["args"]["Total Allocated"], e["args"].get("Addr", 0))
        for e in events
        if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type", 0) == 0
    )
    return [[float(ts), int(b), int(total), int(addr)] for ts, b, total, addr in mem]


def _annotations(events: list[dict]) -> list[list]:
    """Every ``user_annotation`` range, by its start: ``[name, start_us, end_us]``."""
    ranges = (
        [e["name"], float(e["ts"]), float(e["ts"]) + float(e["dur"])]
        for e in events
        if e.get("cat") == "user_annotation" and e.get("ph") == "X"
    )
    return sorted(ranges, key=lambda a: a[1])


def _outermost_ops(events: list[dict]) -> list[list]:
    """The outermost aten ops (what the step ran, for the trace): ``[name, start_us, duration_us]``; nested ops are
    left out."""
    ops, end = [], float("-inf")
    for e in sorted((e for e in events if e.get("cat") == "cpu_op" and e.get("ph") == "X"), key=lambda e: float(e["ts"])):
        ts, dur = float(e["ts"]), float(e.get("dur", 0))
        if ts >= end:
            ops.append([e["name"], ts, dur])
            end = ts + dur
    return ops


def _phase_of(rows: list[list], t0: float, t1: float) -> R.PhaseMemory:
    """A phase's figures from the memory rows inside its window ``[t0, t1]``."""
    before = [row[2] for row in rows if row[0] < t0]
    inside = [row[2] for row in rows if t0 <= row[0] <= t1]
    start = before[-1] if before else 0
    return R.PhaseMemory(
        start_bytes=start, peak_bytes=max([start, *inside]), end_bytes=inside[-1] if inside else start, events=len(inside)
    )


_NOISE = ("USDT:", "Memory block of unknown size", "profiler_start", "profiler_stop")


@contextlib.contextmanager
def _silenced_stderr(enabled: bool):
    """Hide the profiler's C++ chatter on fd 2 (kineto start/stop lines); keep everything else, shown once the
    profiler stops, but memprobe's protocol lines, which go to the hidden stderr as they are said."""
    if not enabled:
        yield
        return
    import sys

    from .protocol import speak_through

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        speak_through(saved)  # memprobe's own lines to its parent are not hidden, nor held back to the end
        try:
            yield
        finally:
            sys.stderr.flush()
            speak_through(None)
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            for line in tmp.read().decode(errors="replace").splitlines():
                if line.strip() and not any(n in line for n in _NOISE):
                    print(line, file=sys.stderr)


def persistent_bytes(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> R.Persistent:
    """Bytes of the state that lives across steps: parameters (as stored) and optimizer state."""

    seen: set[int] = set()

    def count(tensors):
        total = 0
        for t in tensors:
            for address, nbytes in storages_of(t.to_local() if hasattr(t, "to_local") else t):
                if address not in seen:
                    seen.add(address)
                    total += nbytes
        return total

    params = count(model.parameters())
    opt_tensors = [v for state in optimizer.state.values() for v in state.values() if isinstance(v, torch.Tensor)]
    return R.Persistent(parameters_bytes=params, optimizer_state_bytes=count(opt_tensors))


def gradient_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Bytes of the gradients of the optimizer's parameters, as stored (a rank's shards under FSDP2)."""
    seen: set[int] = set()
    total = 0
    for group in optimizer.param_groups:
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            for address, nbytes in storages_of(grad.to_local() if hasattr(grad, "to_local") else grad):
                if address not in seen:
                    seen.add(address)
                    total += nbytes
    return total


def tensor_registry(model: torch.nn.Module, optimizer: torch.optim.Optimizer, batch) -> dict[str, R.RegistryEntry]:
    """Device addresses of the tensors alive before the measured step, by what they are.

    Keys are data pointers as decimal strings (JSON keys); a snapshot block whose address
    is one of them is that tensor's storage.
    """
    from ..names import user_name

    reg: dict[str, R.RegistryEntry] = {}

    def add(t, category, name):
        # a float8 weight's data and scale each (torchao's wrappers hold no storage of their own)
        for address, nbytes in storages_of(t.to_local() if hasattr(t, "to_local") else t):
            if address and str(address) not in reg:
                reg[str(address)] = R.RegistryEntry(category=category, name=name, bytes=nbytes)

    names = {id(p): user_name(n) for n, p in model.named_parameters()}
    for p in model.parameters():
        add(p, Category.SHARDED_PARAMETER, names[id(p)])
    for p, state in optimizer.state.items():
        for k, v in state.items():
            if isinstance(v, torch.Tensor) and v.numel() > 1:
                add(v, Category.OPTIMIZER_STATE, f"{names.get(id(p), '?')}:{k}")
    for i, t in enumerate(batch if isinstance(batch, (tuple, list)) else (batch,)):
        if isinstance(t, torch.Tensor):
            add(t, Category.INPUT_BATCH, "batch" if i == 0 else f"batch[{i}]")
    return reg
