"""Run a probe: build the target, train a few steps, record graphs, output code and memory.

The first step compiles; later steps are measured, the last one under the memory meter (CPU
profiler or CUDA allocator statistics). A probe records what it measured (:mod:`.record`); what
that means (the saved table, findings, the verdict) is derived by whoever reads the run directory
(:mod:`memprobe.analysis.run`), in memprobe's own environment.

A probe in parts: the report's lifecycle (:mod:`.record`), the build in torchtitan's order
(:mod:`.build`), the training step (:mod:`.step`), and :class:`Probe`, which runs them under a
:class:`~.guard.RunGuard` (signals are interruptions; the user's code cannot end the process).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from ..compat.quiet import quiet_logs
from ..config import ProbeConfig
from ..errors import Interrupted
from ..rundir import records as R
from ..rundir.write import RunDir
from ..vocab import DeviceType, RunStatus
from .caches import use_compile_cache
from .guard import RunGuard, describe_exit
from .process_info import process_age_s, waited_s
from .record import RunRecord
from .step import Training

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Recording:
    """What a probe records besides its configuration's step."""

    analysis_only: bool = False  # trace and partition the graphs, generate no kernels (--analysis-only)
    measure: bool | None = None  # train every step and measure the last (None: unless analysis_only)
    cuda_snapshot: bool = True  # on CUDA, the allocator's history of the measured step (snapshot.pickle)
    measure_calls: bool = False  # on CUDA, allocator statistics around each compiled forward call


class Probe:
    """One configuration, built and run in this process."""

    def __init__(
        self,
        cfg: ProbeConfig,
        run_dir: RunDir,
        progress: Progress | None = None,
        verbose: bool = False,
        recording: Recording = Recording(),
    ):
        self.cfg = cfg
        analysis_only = self.analysis_only = recording.analysis_only
        # analysis-only runs stop after the first step (it holds the graphs and the table) unless asked to measure
        self.measure = (not analysis_only) if recording.measure is None else recording.measure
        self.current_phase: str | None = None
        self.current_step: int | None = None
        self.cuda_snapshot = recording.cuda_snapshot
        self.measure_calls = recording.measure_calls
        self.run_dir = run_dir
        self.progress = progress or (lambda msg: None)
        self.verbose = verbose
        self.record = RunRecord(self.cfg, run_dir, analysis_only=analysis_only)
        self.guard = RunGuard(phase=lambda: self.current_phase)

    @property
    def report(self) -> R.Report:
        return self.record.report

    # -- the report's lifecycle ------------------------------------------------------------------------
    def run(self) -> R.Report:
        """The probe, start to end: its report (what it recorded), or the error the user reads (the report says
        how the run ended either way)."""
        # the run directory is consistent from the first moment: report.json says "running" before anything
        # is imported or built, and a signal at any later point marks it interrupted
        try:
            with self.guard:
                try:
                    self.record.write()
                    use_compile_cache()  # before torch is imported: Inductor's compile workers inherit it
                    quiet_logs(self.verbose)
                    self._run_on(self._device())
                    self.guard.check()
                    self.record.ended(RunStatus.COMPLETE)
                except BaseException as e:
                    self._leave_if_forked(e)
                    error = self._ended_by(e)
                    if error is e:
                        raise
                    raise error from (None if isinstance(error, Interrupted) else e)
        finally:
            if self.run_dir.ours():
                self.record.close()
        self._leave_if_forked(None)
        return self.report

    def _leave_if_forked(self, e: BaseException | None) -> None:
        """In a process the user's code forked from the probe (a worker that raised, or returned, instead of calling
        ``os._exit``): it is not the probe, and records nothing. Its failure is said on stderr, in a line of its own
        that is none of the probe's protocol, and the process ends here (it would go on as a second probe, and as the
        verb after it)."""
        if self.run_dir.ours():
            return
        if e is not None:
            forked = f"memprobe (a process the model forked, pid {os.getpid()})"
            sys.stderr.write(f"{forked} {describe_exit(e)}; it is not the probe: nothing of it is recorded\n")
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(0 if e is None else 1)

    def _ended_by(self, e: BaseException) -> BaseException:
        """The run's status for the exception that ended it, and the error to raise."""
        # a signal is an interruption whatever the library it hit made of it (BackendCompilerFailed)
        stop = self.guard.interruption(e)
        if stop is not None:
            self.record.ended(RunStatus.INTERRUPTED)
            return Interrupted(
                f"{stop}; what was recorded is in {self.run_dir.path} (status: interrupted)", exit_code=stop.exit_code
            )
        return self.record.failed(e, getattr(e, "phase", None) or self.current_phase, is_oom(e))

    def _device(self):
        from ..compat import versions
        from .build import check_runnable, resolve_device, start_compile_workers

        device = resolve_device(self.cfg.device)
        self.report.device = R.Device(type=device.type)
        self.report.versions = R.from_data(R.Versions, versions(device))
        self.record.write()
        check_runnable(self.cfg, device)
        if self.cfg.compile and device.type == DeviceType.CUDA and not self.analysis_only:
            start_compile_workers()
        return device

    # -- the probe itself ------------------------------------------------------------------------------
    def _run_on(self, device) -> None:
        import torch

        from .caches import GraphRecords
        from .compile_hooks import GraphCapture
        from .coverage import Coverage
        from .remat_names import when_imported

        when_imported()  # torch_remat's regions (--ac remat, or the model's own) name the nodes they trace
        torch._dynamo.reset()
        state = Training()
        meter = self._meter(device, state)
        decisions: dict = {}
        capture = GraphCapture(
            measure_calls=self.measure_calls and device.type == DeviceType.CUDA,
            codegen=not self.analysis_only,
            records=GraphRecords.here() if self.cfg.compile else None,
            decisions=decisions,
        )
        coverage = Coverage()
        built = None
        try:
            t0 = self._started()
            # memprobe builds this stack: a side effect in a checkpointed block is let through (and said) while it runs
            with coverage.recording(skip_side_effects=self.cfg.compile):
                built = self._build(device, capture, decisions, state)
                self.report.timings_s.build = round(time.perf_counter() - t0, 3)
                runtime_total = self._train(device, capture, meter, state, coverage)
            self._recorded(meter, state, runtime_total, decisions)
            self.report.timings_s.total = round(time.perf_counter() - t0, 3)
        except BaseException as e:
            self._keep_partial(e, meter)
            raise
        finally:
            meter.stop()
            if built is not None and built.created_process_group:
                import torch.distributed as dist

                dist.destroy_process_group()

    def _meter(self, device, state: Training):
        from .memory import CpuPhases, CudaPhases, tensor_registry

        if device.type != DeviceType.CUDA:
            return CpuPhases(quiet=not self.verbose)
        import torch

        torch.cuda.set_device(device)
        snapshot = self.cuda_snapshot and not self.analysis_only
        if snapshot:
            self.run_dir.record("snapshot.pickle")  # torch writes it: into the manifest first
        meter = CudaPhases(
            device,
            snapshot_path=self.run_dir.path / "snapshot.pickle" if snapshot else None,
            registry=lambda: tensor_registry(state.model, state.optimizer, state.batch),
        )
        meter.start_history()
        return meter

    def _started(self) -> float:
        """The probe's clock starts: the process's own startup before it (time held back apart) is recorded."""
        age = process_age_s()
        timings = self.report.timings_s
        if age is not None:  # interpreter, imports, device: before anything is built
            timings.startup = round(age - waited_s(), 3)
            if waited_s():
                timings.held = round(waited_s(), 3)
        return time.perf_counter()

    def _build(self, device, capture, decisions: dict, state: Training):
        import torch

        from .build import build
        from .fits import check_built, check_planned
        from .stack import float8_coverage

        self.progress(f"building {self.cfg.summary()} on {device.type}")
        # a model too large to train here is refused now, counted on the meta device, before its real weights are made
        counted = check_planned(self.cfg, device)
        self.guard.reclaim()  # the model's import and factory ran, on the meta device: as after the build, below
        self.guard.check()  # a Ctrl-C the meta build's failure swallowed
        built = build(self.cfg, device, capture, decisions)
        self.guard.reclaim()  # the model's import and factory may have set SIGINT/SIGTERM to SIG_IGN
        target = built.target
        self.report.model = built.described
        self.report.notes += target.notes
        converter = "torchtitan" if target.float8_done else "torchao"
        self.report.float8 = float8_coverage(built.model, target.blocks_attr, self.cfg.recipe, converter)
        capture.track_blocks({f"{target.blocks_attr}.{name}": block for name, block in built.blocks.named_children()})
        if torch.distributed.is_initialized():
            self.report.distributed = rank_info(self.cfg.fake_world_line())
        state.model, state.blocks, state.batch = built.model, built.blocks, built.batch
        if not counted:  # the meta device could not build it
            check_built(self.cfg, built.model, built.blocks, device)
        state.optimizer = torch.optim.AdamW(built.model.parameters(), lr=self.cfg.lr)
        state.optimizer.register_step_pre_hook(lambda optimizer, args, kwargs: _count_gradients(state, optimizer))
        return built

    def _train(self, device, capture, meter, state: Training, coverage) -> int | None:
        """The steps: the first compiles (its graphs are written), the last is measured."""
        from .caches import cache_counters

        steps = self.cfg.steps if self.measure else 1
        before = cache_counters() if self.cfg.compile else None  # a held process's warm-up compiled too
        runtime_total = None
        with capture.cache_config():
            for step in range(steps):
                self.current_step = step
                last = step == steps - 1
                metered = last and self.measure
                ts = time.perf_counter()
                self.guard.reclaim()
                self.progress(self._step_line(step, steps, metered))
                with meter.step() if metered else nullcontext():
                    runtime_total = self._step(state, capture, meter if metered else None, record=step > 0 or not self.measure)
                if step == 0:
                    self._first_step_done(device, capture, before, time.perf_counter() - ts, coverage, state)
                if last:
                    self._measured_step_done(meter, time.perf_counter() - ts)
                self.guard.check()  # a Ctrl-C a library swallowed during the step stops the run here
        return runtime_total

    def _step_line(self, step: int, steps: int, metered: bool) -> str:
        first = ""
        if step == 0 and self.cfg.compile:
            first = " (tracing)" if self.analysis_only else " (compiling)"
        return f"step {step + 1}/{steps}" + first + (" (measured)" if metered else "")

    def _step(self, state: Training, capture, meter, record: bool) -> int | None:
        from .saved_outside import SavedOutside
        from .step import inspectable, train_step

        compiled = list(state.blocks.children()) if self.cfg.compile else []
        state.outside = SavedOutside(state.model, compiled, capture.graph_running) if record else None

        def enter(phase: str) -> None:
            self.current_phase = phase

        def forwarded(invocations: list[R.Invocation]) -> None:
            self.report.invocations = invocations

        return train_step(
            state, capture, meter, record=record, inspectable=inspectable(self.cfg), enter=enter, forwarded=forwarded
        )

    def _first_step_done(self, device, capture, before: R.CompileCache | None, seconds: float, coverage, state) -> None:
        """What the first step compiled: the graphs written, the compile caches' part, what Dynamo compiled and what
        it ran eagerly, a note on CPU attention."""
        from ..policies import cpu_attention_note
        from .coverage import module_names, side_effect_note
        from .step import compile_cache, graph_entries

        timings = self.report.timings_s
        timings.first_step = round(seconds, 3)
        if self.cfg.compile:
            self.report.compile_cache, how = compile_cache(capture, before, analysis_only=self.analysis_only)
            self.progress(f"compile cache {self.report.compile_cache.state}: {how} ({timings.first_step:.1f} s)")
            self.report.compile_coverage = coverage.record(module_names(state.model))
            note = side_effect_note(self.report.compile_coverage)
            self.report.notes += [note] if note else []
        self.report.graphs = graph_entries(capture, self.run_dir)
        self.record.write()
        note = cpu_attention_note(device.type, {n.original_aten for d in capture.dynamo_graphs for g in d.aot for n in g.nodes})
        self.report.notes += [note] if note else []

    def _measured_step_done(self, meter, seconds: float) -> None:
        timings = self.report.timings_s
        timings.measured_step = round(seconds, 3)
        if getattr(meter, "dump_s", None) is not None:
            timings.snapshot_dump = round(meter.dump_s, 3)  # inside the measured step's figure

    def _recorded(self, meter, state: Training, runtime_total: int | None, decisions: dict) -> None:
        """The measured step's memory, the state that lives across steps, and the policy's decisions."""
        from .memory import persistent_bytes

        memory = (
            meter.result()
            if self.measure
            else R.Memory(source=None, phases={}, events=None, baseline="not measured (analysis-only)")
        )
        memory.persistent = persistent_bytes(state.model, state.optimizer)
        memory.gradients_bytes = state.gradients
        memory.autograd_saved_bytes = runtime_total
        self.report.memory = memory
        self.report.policy_decisions = decisions or None
        if state.outside is not None:  # the measured (latest recorded) forward's
            self.report.saved_outside = state.outside.record(checkpointed_eager=self.cfg.mode.eager_regions(self.cfg))

    def _keep_partial(self, e: BaseException, meter) -> None:
        """Keep what a failure left: where it happened, the phases measured so far, and the allocator history up to
        the failure (CUDA). The reader derives the saved table of the last recorded forward."""
        stopped = R.FailurePoint(phase=self.current_phase, step=self.current_step)
        if is_oom(e):
            self.report.oom = stopped
        else:
            self.report.failed_at = stopped
        if self.report.memory is None and self.measure:
            self.report.memory = meter.result()
            self.report.memory.partial = True
        snapshot = meter.keep_history()
        if snapshot is not None:
            memory = self.report.memory
            memory.snapshot = memory.snapshot or R.SnapshotMeta()
            memory.snapshot.file = snapshot


def _count_gradients(state: Training, optimizer) -> None:
    """The gradients an optimizer step is given (the last step's are recorded)."""
    from .memory import gradient_bytes

    state.gradients = gradient_bytes(optimizer)


def rank_info(faked: str | None = None) -> R.Distributed:
    """This rank, its world and backend; ``faked``: the line that says a fake world's collectives moved no data."""
    import torch.distributed as dist

    out = R.Distributed(rank=dist.get_rank(), world_size=dist.get_world_size(), backend=str(dist.get_backend()))
    if faked is not None:
        out.faked, out.headline = True, faked
    return out


def is_oom(e: BaseException) -> bool:
    import torch

    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom is not None and isinstance(e, oom)) or "out of memory" in str(e).lower()


def run_probe(
    cfg: ProbeConfig,
    out: Path,
    *,
    progress: Progress | None = None,
    verbose: bool = False,
    recording: Recording = Recording(),
    nnodes: str | None = None,
    rdzv_endpoint: str | None = None,
) -> None:
    """Record one configuration into ``out`` as ``recording`` says: in this process, or through torchrun when it has
    several ranks (each rank its own ``rank<R>/``; the ranks are told ``recording.analysis_only`` alone). What it
    recorded is analysed by whoever reads ``out`` (:func:`memprobe.orchestrate.finish.finish_run`)."""
    from .launch import launched_by_torchrun

    if cfg.nproc > 1 and not launched_by_torchrun():
        from .launch import run_distributed

        run_distributed(
            cfg,
            Path(out),
            progress=progress,
            verbose=verbose,
            analysis_only=recording.analysis_only,
            nnodes=nnodes,
            rdzv_endpoint=rdzv_endpoint,
        )
        return
    Probe(cfg, RunDir(out), progress=progress, verbose=verbose, recording=recording).run()
