"""How a verb that runs probes runs them, declared once: :class:`RunOptions`. The command line
(:class:`memprobe.cli.probes.ProbeOptions`) and the MCP server build one and pass it to the verb's function here
(``run_explain``, ``run_diff``, ``run_bisect``, ``run_sweep``, ``run_gate``, ``make_repro``, ``write_budget``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..rundir.write import default_run_dir, prepare_run_dir
from .process import Progress


def no_progress(_line: str) -> None:
    """Progress nobody reads (an MCP call's without a client to tell, a test's)."""


@dataclass(frozen=True)
class RunOptions:
    """Where a verb's probe runs go, how many run at once, and what it says while they run."""

    progress: Progress = no_progress  # each line a verb or its probes say while they work (one line, no newline)
    out: Path | None = None  # --out: the verb's directory (None: memprobe-runs/<UTC time>-<verb>, or none at all)
    force: bool = False  # --force: replace an existing --out directory (only one memprobe wrote)
    verbose: bool = False  # --verbose: the probes' own output and logs go to stderr
    slots: int = 1  # probes at once (--jobs, or one per visible GPU on CUDA: process.slots_for)
    gpus: tuple[str, ...] | None = None  # the GPU of each slot (CUDA_VISIBLE_DEVICES), a GPU once per probe it holds
    python: str | None = None  # --python: the interpreter the probes run with (None: this one; diff and bisect
    # give each side its own, in their SideEnv)

    def directory(self, verb: str) -> Path:
        """The verb's directory, made ready: ``out``, or memprobe-runs/<UTC time>-<verb>; an existing one is replaced
        only with ``force``, and only one memprobe wrote (:func:`~memprobe.rundir.write.prepare_run_dir`)."""
        out = self.out if self.out is not None else default_run_dir(verb)
        prepare_run_dir(out, self.force)
        return out

    def schedule(self) -> dict:
        """The keywords of :func:`~.process.run_jobs` these options set: what it says, and the slots it fills."""
        return {"progress": self.progress, "verbose": self.verbose, "slots": self.slots, "gpus": self.gpus}
