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

import torch

PHASES = ("forward", "backward", "optimizer")
_PREFIX = "memprobe::"


class CudaPhases:
    """Allocator statistics per phase, on the current CUDA device."""

    source = "cuda-allocator"

    def __init__(self, device: torch.device):
        self.device = device
        self.phases: dict[str, dict] = {}

    @contextlib.contextmanager
    def step(self):
        yield self

    @contextlib.contextmanager
    def phase(self, name: str):
        torch.cuda.synchronize(self.device)
        torch.cuda.reset_peak_memory_stats(self.device)
        start = torch.cuda.memory_allocated(self.device)
        start_reserved = torch.cuda.memory_reserved(self.device)
        yield
        torch.cuda.synchronize(self.device)
        stats = torch.cuda.memory_stats(self.device)
        self.phases[name] = {
            "start_bytes": start,
            "peak_bytes": stats.get("allocated_bytes.all.peak", 0),
            "end_bytes": stats.get("allocated_bytes.all.current", 0),
            "peak_active_bytes": stats.get("active_bytes.all.peak", 0),
            "start_reserved_bytes": start_reserved,
            "peak_reserved_bytes": stats.get("reserved_bytes.all.peak", 0),
            "end_reserved_bytes": stats.get("reserved_bytes.all.current", 0),
        }

    def result(self) -> dict:
        return {
            "source": self.source,
            "baseline": "absolute bytes allocated on the device",
            "phases": self.phases,
            "events": None,
        }


class CpuPhases:
    """Profiler memory events per phase, relative to the step's start."""

    source = "cpu-profiler"

    def __init__(self, quiet: bool = True):
        self.quiet = quiet
        self.phases: dict[str, dict] = {}
        self.events: list[list[float]] = []
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
                with open(path) as f:
                    trace = json.load(f)
            finally:
                os.unlink(path)
        self._read_trace(trace["traceEvents"])

    @contextlib.contextmanager
    def phase(self, name: str):
        from torch.profiler import record_function

        with record_function(_PREFIX + name):
            yield

    def _read_trace(self, events: list[dict]) -> None:
        mem = sorted(
            (e["ts"], e["args"]["Bytes"], e["args"]["Total Allocated"])
            for e in events
            if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type", 0) == 0
        )
        self.events = [[float(ts), int(b), int(total)] for ts, b, total in mem]
        for e in events:
            name = e.get("name", "")
            if name.startswith(_PREFIX) and e.get("ph") == "X":
                self.windows[name[len(_PREFIX):]] = (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
        for name, (t0, t1) in self.windows.items():
            before = [total for ts, _, total in self.events if ts < t0]
            inside = [total for ts, _, total in self.events if t0 <= ts <= t1]
            start = before[-1] if before else 0
            self.phases[name] = {
                "start_bytes": start,
                "peak_bytes": max([start, *inside]),
                "end_bytes": inside[-1] if inside else start,
                "events": len(inside),
            }

    def result(self) -> dict:
        return {
            "source": self.source,
            "baseline": "bytes above the measured step's start (CPU profiler 'Total Allocated')",
            "phases": {p: self.phases[p] for p in PHASES if p in self.phases},
            "events": {"columns": ["ts_us", "bytes", "total_allocated"], "rows": self.events, "phase_windows_us": self.windows},
        }


_NOISE = ("USDT:", "Memory block of unknown size", "profiler_start", "profiler_stop")


@contextlib.contextmanager
def _silenced_stderr(enabled: bool):
    """Hide the profiler's C++ chatter on fd 2 (kineto start/stop lines); keep everything else."""
    if not enabled:
        yield
        return
    import sys

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            for line in tmp.read().decode(errors="replace").splitlines():
                if line.strip() and not any(n in line for n in _NOISE):
                    print(line, file=sys.stderr)


def persistent_bytes(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict:
    """Bytes of the state that lives across steps: parameters (as stored) and optimizer state."""

    seen: set[int] = set()

    def count(tensors):
        total = 0
        for t in tensors:
            storage = (t.to_local() if hasattr(t, "to_local") else t).untyped_storage()
            if storage.data_ptr() and storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
        return total

    params = count(model.parameters())
    opt_tensors = [v for state in optimizer.state.values() for v in state.values() if isinstance(v, torch.Tensor)]
    return {"parameters_bytes": params, "optimizer_state_bytes": count(opt_tensors)}
