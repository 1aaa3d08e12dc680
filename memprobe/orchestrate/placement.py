"""Where probes run at once on CUDA: one GPU each when several are visible, several on one GPU when they fit.

Each probe is a process of its own, so its allocator statistics and history are its own: two
probes at once on one GPU measure what they measure one after the other (every allocated
figure; the GPU's memory is shared, not the counters). What they share is the GPU's memory, so
probes go onto one GPU together only when the memory each may need, summed, fits in what the GPU
has free (``nvidia-smi``; the verb's process never imports torch):

- a probe's need is, when an earlier probe of the same configuration, side settings and Python
  recorded its peak on this machine, 1.25 x that peak reserved (the whole process: build,
  compile and measured steps) plus :data:`PROCESS_OVERHEAD_BYTES`;
- otherwise, for the repros (``--repro ffn`` / ``transformer``, one rank), a bound derived from
  the configuration (:func:`config_bound`): :data:`STATE_BYTES_PER_PARAMETER` bytes per parameter,
  the activations of every block at once in fp32, three times over, and the overhead;
- otherwise (``--model``, ``--repro torchtitan``, several ranks) it is not known, and the probes
  run one after another;
- the probes fit when the needs of those that may be on a GPU at once, summed, are at most
  :data:`FIT_FRACTION` of the GPU's free memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import ProbeConfig
from ..vocab import MemorySource

if TYPE_CHECKING:  # the record's types: a CPU probe's verb places nothing, and forks before importing them
    from ..rundir import schema as S

FIT_FRACTION = 0.9
# a CUDA process's memory outside the caching allocator's counters: its context, NCCL's buffers,
# cuBLAS/cuDNN workspaces, Triton's autotuning (an estimate, not a measurement)
PROCESS_OVERHEAD_BYTES = 2 * 2**30
# fp32 parameters 4, fp32 gradients 4, AdamW state 8, unsharded bf16 parameters and gradients 4,
# fp32 reduce-scatter 4, float8 casts of the weights and what SAC may save of them 8, optimizer
# temporaries 16: an upper bound on what one parameter costs a probe of one rank
STATE_BYTES_PER_PARAMETER = 48
PEAK_MARGIN = 1.25
PEAKS_FILE = "gpu-peaks.json"


@dataclass(frozen=True)
class Gpu:
    """A visible GPU as a probe's ``CUDA_VISIBLE_DEVICES`` names it, and its memory (None: unknown)."""

    id: str
    total_bytes: int | None = None
    free_bytes: int | None = None


def query_gpus(environ=None) -> list[Gpu]:
    """The GPUs a probe may be given (``CUDA_VISIBLE_DEVICES`` entries, in order, or all of nvidia-smi's),
    with their memory from nvidia-smi. Without nvidia-smi: the listed ids, memory unknown."""
    environ = os.environ if environ is None else environ
    rows = _nvidia_smi()
    listed = environ.get("CUDA_VISIBLE_DEVICES")
    if listed is None:
        return [Gpu(index, total, free) for index, _, total, free in rows]
    gpus = []
    for entry in (d.strip() for d in listed.split(",")):
        if not entry or entry.startswith("-"):  # CUDA stops at the first invalid entry
            break
        row = next((r for r in rows if entry == r[0] or (entry.startswith("GPU-") and r[1].startswith(entry))), None)
        gpus.append(Gpu(entry, row[2], row[3]) if row else Gpu(entry))
    return gpus


def _nvidia_smi() -> list[tuple[str, str, int | None, int | None]]:
    """(index, uuid, total bytes, free bytes) of each GPU nvidia-smi lists; [] when it cannot be run."""
    try:
        proc = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,uuid,memory.total,memory.free", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if proc.returncode != 0:
        return []
    rows = []
    for line in proc.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 4 or not parts[0].isdigit():
            continue
        rows.append((parts[0], parts[1], _mib(parts[2]), _mib(parts[3])))
    return rows


def _mib(text: str) -> int | None:
    return int(text) * 2**20 if text.isdigit() else None  # "[N/A]" on some devices (MIG)


def config_bound(cfg: ProbeConfig) -> int | None:
    """An upper bound on the GPU memory a probe of one rank needs, from its configuration alone (None where its
    family does not say: a user's model, torchtitan's, a Hugging Face config)."""
    target = cfg.target
    params, per_token, tokens = target.parameter_count(), target.activations_per_token(), target.tokens()
    if params is None or per_token is None or tokens is None or cfg.nproc > 1:
        return None
    # + batch and loss in fp32, and the logits (bf16, their fp32 copy for the loss, its gradient and their temporaries)
    activations = 3 * 4 * target.layers * tokens * per_token + 4 * 4 * tokens * (target.dim + target.outside_per_token())
    return STATE_BYTES_PER_PARAMETER * params + activations + PROCESS_OVERHEAD_BYTES


# -- peaks recorded by earlier probes --------------------------------------------------------------


def peak_key(cfg: ProbeConfig, env: dict | None = None, python: str | None = None) -> str:
    """What makes two probes the same for their memory: the configuration, the side's settings and Python."""
    text = json.dumps({"config": cfg.to_dict(), "env": env or {}, "python": python}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class PeakRecords:
    """The peak each configuration reached on this machine's GPUs, in memprobe's cache directory
    (``gpu-peaks.json``, :class:`~memprobe.rundir.schema.GpuPeaks`). A file that is not of that shape is
    ignored and left as it is."""

    def __init__(self, path: Path | None = None):
        from ..capture.caches import memprobe_cache_dir

        self.path = path or memprobe_cache_dir() / PEAKS_FILE

    def get(self, key: str) -> int | None:
        from ..rundir.load import load_gpu_peaks

        peaks = load_gpu_peaks(self.path)
        entry = peaks.peaks.get(key) if peaks else None
        return entry.peak_reserved_bytes if entry else None

    def put(self, key: str, peak: int, device_name: str | None) -> None:
        from ..rundir import schema as S
        from ..rundir.load import dump, load_gpu_peaks
        from ..rundir.write import atomic_write_json

        with _PUT:  # probes that end at once are waited for by threads of one process
            peaks = load_gpu_peaks(self.path)
            if peaks is None:
                return
            peaks.peaks[key] = S.GpuPeak(peak_reserved_bytes=int(peak), device_name=device_name)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_json(self.path, dump(peaks))
            except OSError:
                pass


_PUT = threading.Lock()


def recorded_peak(report: S.Report) -> int | None:
    """The peak reserved bytes a finished CUDA probe reached over its whole process (None otherwise)."""
    memory = report.memory
    if memory is None or memory.source != MemorySource.CUDA_ALLOCATOR:
        return None
    peaks = [p.peak_reserved_bytes or 0 for p in (memory.phases or {}).values()]
    peaks.append(memory.process_peak_reserved_bytes or 0)
    return max(peaks) or None


# -- the plan -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Need:
    """The GPU memory one probe may need, and where the figure comes from."""

    label: str
    bytes: int | None
    basis: str  # "recorded peak", "configuration bound", or why it is not known


def probe_need(label: str, cfg: ProbeConfig, env: dict | None = None, python: str | None = None, peaks=None) -> Need:
    peak = (peaks or PeakRecords()).get(peak_key(cfg, env, python))
    if peak is not None:
        return Need(label, int(PEAK_MARGIN * peak) + PROCESS_OVERHEAD_BYTES, "recorded peak")
    bound = config_bound(cfg)
    if bound is not None:
        return Need(label, bound, "configuration bound")
    why = "several ranks" if cfg.nproc > 1 else cfg.target.named_by()
    return Need(label, None, f"not known for {why} before a first run")


@dataclass
class Placement:
    """How many probes run at once and on which GPUs: ``gpus`` holds a GPU once per probe it may hold at once."""

    slots: int
    gpus: list[str] | None
    why: str
    shared: bool = False
    needs: list[Need] = field(default_factory=list)
    free_bytes: dict[str, int | None] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "slots": self.slots,
            "gpus": self.gpus,
            "shared_gpu": self.shared,
            "why": self.why,
            "needs_bytes": {n.label: n.bytes for n in self.needs},
            "needs_basis": {n.label: n.basis for n in self.needs},
            "free_bytes": self.free_bytes,
        }


def place(needs: list[Need], want: int, gpus: list[Gpu]) -> Placement:
    """Up to ``want`` probes at once on ``gpus``: one GPU each while there are enough, then several on a GPU
    while the largest needs that could meet on it fit in :data:`FIT_FRACTION` of its free memory."""
    from ..units import fmt_bytes

    if not gpus:
        return Placement(1, None, "no GPU visible", needs=needs)
    free = {g.id: g.free_bytes for g in gpus}

    def placed(slots: int, why: str, shared: bool = False) -> Placement:
        pool = [gpus[i % len(gpus)].id for i in range(slots)]  # round robin: one GPU each before any shares
        return Placement(slots, pool, why, shared=shared, needs=needs, free_bytes=free)

    want = max(1, want)
    if want <= len(gpus):
        return placed(want, f"one GPU each ({', '.join(g.id for g in gpus[:want])})" if want > 1 else f"GPU {gpus[0].id}")
    unknown = [n for n in needs if n.bytes is None]
    if unknown:
        return placed(len(gpus), f"one probe per GPU: the memory of {unknown[0].label} is {unknown[0].basis}")
    largest = sorted((n.bytes for n in needs), reverse=True)
    shared = _shared_slots(largest, want, gpus)
    if shared is not None:
        return placed(*shared, shared=True)
    have = "unknown" if gpus[0].free_bytes is None else fmt_bytes(gpus[0].free_bytes)
    two = fmt_bytes(sum(largest[:2]))
    return placed(len(gpus), f"one probe per GPU: {two} needed for two at once, {have} free on GPU {gpus[0].id}")


def _shared_slots(largest: list[int], want: int, gpus: list[Gpu]) -> tuple[int, str] | None:
    """The most probes (at most ``want``, more than one per GPU) whose largest needs fit together on every GPU, and
    why; None when no such number fits."""
    from ..units import fmt_bytes

    for slots in range(want, len(gpus), -1):
        at_once = {g.id: (slots + len(gpus) - 1 - i) // len(gpus) for i, g in enumerate(gpus)}
        if all(g.free_bytes is not None and sum(largest[: at_once[g.id]]) <= FIT_FRACTION * g.free_bytes for g in gpus):
            first = largest[: at_once[gpus[0].id]]
            where = f"GPU {gpus[0].id}" if len(gpus) == 1 else f"GPUs {', '.join(g.id for g in gpus)}"
            why = (
                f"{slots} at once on {where}, each in its own process with its own allocator: {fmt_bytes(sum(first))} "
                f"needed at most ({' + '.join(fmt_bytes(b) for b in first)}) <= {FIT_FRACTION:.0%} of "
                f"{fmt_bytes(gpus[0].free_bytes)} free"
            )
            return slots, why
    return None
