"""The user's own training script, measured from inside its process (``memprobe run -- python train.py``).

memprobe starts the user's command with the directory of :mod:`memprobe.capture.script_boot` first on its path: its
``sitecustomize`` calls :func:`boot` before the script's first import. Nothing of torch is imported then; when the
script imports torch, the hooks go in:

- each ``torch.compile`` of the script reaches Inductor's ``compile_fx`` with the options the script gave it: memprobe
  records the partitioned graphs, their output code and the partitioner's decisions there (:class:`GraphCapture`,
  AOTAutograd's cache off, so that every graph is partitioned where it can be seen);
- the steps are the optimizer's: a step is what happens between two ``step()`` calls of the first optimizer that
  steps (global hooks on ``torch.optim.Optimizer``); within the last of ``--steps`` steps, forward runs until the first
  ``backward``, backward until the optimizer's step, and the optimizer's step to its end: the meter (the CPU
  profiler's memory events, or the CUDA allocator's statistics and history) measures each phase, a pack hook counts
  what autograd saves outside the compiled graphs, and the compiled calls are recorded;
- after that step the run directory is written and the script is stopped (``SystemExit(0)`` from the optimizer's
  step: its ``finally`` blocks run). A script that ends first, never steps an optimizer, or raises is a failed run
  saying so, with the run directory as far as it got.

Hooks act in the process memprobe started only: a worker the script forks or spawns (data loading) records nothing;
under torchrun only the ranks do (not the launcher). The standard library, torch, and memprobe's own stdlib-only
modules: no pydantic here.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from .. import settings
from ..config import ProbeConfig
from ..errors import RunFailed, oom_headline
from ..rundir import records as R
from ..rundir.write import RunDir
from ..vocab import DeviceType, Phase, RunStatus
from .imports import when_imported
from .protocol import END, ERROR, INTERNAL, PROGRESS, say
from .record import RunRecord

SPEC_VAR = settings.SCRIPT.name  # the job, as JSON: {"config": ..., "out": ..., "verbose": ...}


class _Measured(SystemExit):
    """The measured step is recorded: the script is stopped (exit 0)."""

    def __init__(self):
        super().__init__(0)


def _ours(hook):
    """A hook of memprobe's in the script's process: a failure of its own is memprobe's bug (exit 70, said in one
    line), never the script's."""
    import functools

    @functools.wraps(hook)
    def run(*args, **kwargs):
        try:
            return hook(*args, **kwargs)
        except _Measured:
            raise
        except Exception as e:
            say(INTERNAL + f"memprobe's hook {hook.__name__} failed in the script's process: {type(e).__name__}: {e}")
            sys.stderr.flush()
            os._exit(70)

    return run


def boot() -> None:
    """Install the hooks in the process memprobe started (called before the script's first import)."""
    raw = os.environ.get(SPEC_VAR)
    if not raw:
        return
    import multiprocessing

    spec = json.loads(raw)
    if multiprocessing.parent_process() is not None:  # a worker the script spawned
        return
    if spec.get("ranks") and "LOCAL_RANK" not in os.environ:  # torchrun's launcher: only its ranks record
        return
    # this process records; a process it starts does not (a launcher's child Python got the job from its environment,
    # and wrote its own "ended without importing torch" over the child's record), nor reads the token of the run's end
    del os.environ[SPEC_VAR]
    run = ScriptRun(spec)
    run.start()
    when_imported("torch", run.torch_imported)
    when_imported("torch._dynamo", run.dynamo_imported)
    when_imported("torch._inductor.compile_fx", run.inductor_imported)
    from .remat_names import name_regions

    when_imported("torch_remat", name_regions)  # a region's name onto the nodes it traces


class ScriptRun:
    """The run of one script (or of one rank of it): its record, its hooks, its measured step."""

    def __init__(self, spec: dict):
        self.cfg = ProbeConfig.from_dict(spec["config"])
        rank = os.environ.get("RANK") if spec.get("ranks") else None
        out = Path(spec["out"]) / (f"rank{rank}" if rank is not None else "")
        out.mkdir(parents=True, exist_ok=True)
        self.run_dir = RunDir(out)
        self.record = RunRecord(self.cfg, self.run_dir, analysis_only=False)
        self.verbose = bool(spec.get("verbose"))
        self.token = str(spec.get("token") or "")  # said with the run's end: the script's own code has it not
        self.where = out.name if rank is not None else ""
        self.started = time.perf_counter()
        self.optimizer = None  # the first optimizer that steps: its steps are the script's
        self.steps = 0
        self.measuring: _MeasuredStep | None = None
        self.capture = None
        self.coverage = None
        self.ended = False
        self.torch_seen = False

    @property
    def report(self) -> R.Report:
        return self.record.report

    def mine(self) -> bool:
        """Whether this is the process memprobe started (not a worker the script forked), and its run goes on: only
        then does a hook act, and only its process writes the run directory (:meth:`RunDir.ours`)."""
        return self.run_dir.ours() and not self.ended

    def start(self) -> None:
        self.record.write()
        atexit.register(self._at_exit)
        previous = sys.excepthook

        def excepthook(kind, value, tb):
            if self.mine():
                self._failed(value)
            previous(kind, value, tb)

        sys.excepthook = excepthook
        say(PROGRESS + f"running {self.cfg.target.summary().removeprefix('script: ')}")

    # -- the hooks -------------------------------------------------------------------------------------
    def torch_imported(self, torch) -> None:
        self.torch_seen = True
        import torch._functorch.config as functorch_config
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        from ..compat.quiet import quiet_logs

        quiet_logs(self.verbose)
        functorch_config.enable_autograd_cache = False  # a hit hands no graph to record
        register_optimizer_step_pre_hook(self._before_step)
        register_optimizer_step_post_hook(self._after_step)
        backward = torch.autograd.backward

        @_ours
        def backward_starts():
            if self.mine() and self.measuring is not None:
                self.measuring.backward_starts()

        def backward_hooked(*args, **kwargs):
            backward_starts()
            return backward(*args, **kwargs)

        torch.autograd.backward = backward_hooked

    def dynamo_imported(self, _module) -> None:
        """What Dynamo compiles of the script and where it graph-breaks: recorded from here to the process's end."""
        from .coverage import Coverage

        self.coverage = Coverage()
        self.coverage.start()

    def inductor_imported(self, module) -> None:
        import functools

        from .compile_hooks import GraphCapture

        original = module.compile_fx
        self.capture = GraphCapture(codegen=True, records=None, decisions=None)
        busy = []

        def compile_fx(gm, example_inputs, **kwargs):
            # Inductor's own recursion (a compile with config patches calls compile_fx again) and other processes
            # compile as they would without memprobe
            if busy or not self.mine():
                return original(gm, example_inputs, **kwargs)
            kwargs.pop("inner_compile", None)  # memprobe's records the graphs, then runs Inductor's own
            busy.append(True)
            try:
                return self.capture(gm, example_inputs, compile_fx=functools.partial(original, **kwargs))
            finally:
                busy.pop()

        module.compile_fx = compile_fx

    @_ours
    def _before_step(self, optimizer, _args, _kwargs) -> None:
        if self.mine() and optimizer is self._main(optimizer) and self.measuring is not None:
            self.measuring.optimizer_starts()

    @_ours
    def _after_step(self, optimizer, _args, _kwargs) -> None:
        if not self.mine() or optimizer is not self._main(optimizer):
            return
        self.steps += 1
        if self.measuring is not None:
            try:
                self.measuring.ends()
            except RunFailed as e:
                self._unmeasurable(e)
            self._complete()
            raise _Measured()
        say(PROGRESS + f"step {self.steps}/{self.cfg.steps}" + (" (compiled)" if self.capture else ""))
        if self.steps == self.cfg.steps - 1:
            self.measuring = _MeasuredStep(self, optimizer)
            say(PROGRESS + f"step {self.cfg.steps}/{self.cfg.steps} (measured)")

    def _main(self, optimizer):
        if self.optimizer is None:
            self.optimizer = optimizer
        return self.optimizer

    # -- the run's end ---------------------------------------------------------------------------------
    def _complete(self) -> None:
        self.ended = True
        m = self.measuring
        report = self.report
        self._keep(m)
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            from .runner import rank_info

            report.distributed = rank_info()
        report.timings_s.total = round(time.perf_counter() - self.started, 3)
        self.record.ended(RunStatus.COMPLETE)
        self.record.close()
        say(f"{END}{self.token} {self.where}".rstrip())
        say(PROGRESS + "the measured step is recorded: the script is stopped")

    def _keep(self, m: _MeasuredStep) -> None:
        """What the measured step recorded, into the report: its graphs, the values they and eager code saved, its
        memory and the model's shape (at its end, or at the out-of-memory error that stopped it)."""
        from ..compat import versions
        from .step import graph_entries

        report = self.report
        report.device = R.Device(type=m.device.type)
        report.versions = R.from_data(R.Versions, versions(m.device))
        report.graphs = graph_entries(self.capture, self.run_dir) if self.capture is not None else []
        if self.coverage is not None and m.root is not None:
            from .coverage import module_names

            report.compile_coverage = self.coverage.record(module_names(m.root))
        report.invocations = m.invocations
        report.memory = m.memory
        report.saved_outside = m.saved_outside
        report.model = m.model_shape

    def _failed(self, error: BaseException) -> None:
        """The script raised (or was interrupted): the run failed, as far as it got."""
        if isinstance(error, _Measured):
            return
        self.ended = True
        from .runner import is_oom

        if not isinstance(error, KeyboardInterrupt) and is_oom(error):
            self._out_of_memory(error)
            return
        if self.measuring is not None:
            self.measuring.abandon()
        if isinstance(error, KeyboardInterrupt):
            self.record.ended(RunStatus.INTERRUPTED)
            self.record.close()
            return
        from .model import innermost_cause

        cause = innermost_cause(error)
        self.record.ended(RunStatus.FAILED, cause)
        self.record.close()
        say(ERROR + f"the script failed after {self.steps} optimizer step(s): {cause}; partial report in {self.run_dir.path}")

    def _unmeasurable(self, error: RunFailed) -> None:
        """memprobe cannot take in what it measured of the step (a CPU profile too large to read): the run failed,
        with what the step recorded besides, and the script is stopped (exit 3)."""
        self.ended = True
        self._keep(self.measuring)
        self._stop_failed(str(error), error.exit_code)

    def _out_of_memory(self, error: BaseException) -> None:
        """The script ran out of memory: the run is ``oom``, with where (the phase of the measured step, or the step
        it was in before) and, inside the measured step, what it held there: the values its compiled graphs and eager
        code had saved so far, each phase's peak so far, on CUDA the allocator's history to the error."""
        m, step = self.measuring, self.steps + 1
        phase = m.phase if m is not None else None
        if m is not None:
            m.stopped()
            self._keep(m)
        self.report.oom = R.FailurePoint(phase=phase, step=step) if phase else R.FailurePoint(step=step)
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        self.record.ended(RunStatus.OOM, f"{type(error).__name__}: {first}")
        self.record.close()
        short = oom_headline(first)
        at = f"{phase} of step {step}" if phase else f"step {step} (before the measured step: nothing measured)"
        say(ERROR + f"out of memory during {at}: {short}; partial report in {self.run_dir.path} (status: oom)")

    def _at_exit(self) -> None:
        if not self.mine():
            return
        self.ended = True
        if not self.torch_seen:
            why = "the command ended without importing torch: memprobe measures a PyTorch training step in it"
        elif self.optimizer is None:
            why = "the script ended without stepping a torch.optim optimizer: memprobe measures a step between two of its step() calls"
        else:
            fewer = f"pass --steps {self.steps} or fewer, or let the script train longer"
            if self.steps < 2:  # the fewest memprobe measures: "pass --steps 2 or fewer" asked for what it had
                fewer = "let the script train 2 steps at least (the fewest memprobe measures: the first compiles)"
            measured = f"memprobe measures the last of --steps {self.cfg.steps}"
            why = f"the script ended after {self.steps} optimizer step(s); {measured}: {fewer}"
        if self.measuring is not None:
            self.measuring.abandon()
        self._stop_failed(why, 3)

    def _stop_failed(self, why: str, code: int) -> None:
        """The run failed for ``why``: written, said in one line, and the script's process ended with ``code``."""
        self.record.ended(RunStatus.FAILED, why)
        self.record.close()
        say(ERROR + f"{why}; partial report in {self.run_dir.path}")
        sys.stderr.flush()
        os._exit(code)


class _MeasuredStep:
    """The phases of the measured step, as the script's own calls delimit them."""

    def __init__(self, run: ScriptRun, optimizer):
        import torch

        from .memory import CpuPhases, CudaPhases, tensor_registry
        from .saved_outside import SavedOutside

        self.run = run
        params = [p for g in optimizer.param_groups for p in g["params"]]
        self.device = params[0].device if params else torch.device("cpu")
        self.root, compiled = _models(params)
        if self.device.type == DeviceType.CUDA:
            snapshot = run.run_dir.path / "snapshot.pickle"
            run.run_dir.record("snapshot.pickle")
            self.meter = CudaPhases(
                self.device, snapshot_path=snapshot, registry=lambda: tensor_registry(self.root, optimizer, ())
            )
        else:
            self.meter = CpuPhases(quiet=not run.verbose)
        running = run.capture.graph_running if run.capture is not None else None
        self.outside = SavedOutside(self.root, list(compiled.values()), running) if self.root is not None else None
        if run.capture is not None:
            run.capture.track_blocks(compiled)
            run.capture.invocations.clear()
            run.capture.recording = True
        self.stack = ExitStack()
        self.phase_stack: ExitStack | None = None
        self.phase: str | None = None
        self.stack.enter_context(self.meter.step())
        self.invocations: list = []
        self.memory = None
        self.saved_outside = None
        self.model_shape = _model_shape(self.root, compiled)
        self._enter(Phase.FORWARD)

    def _enter(self, phase: str) -> None:
        if self.phase_stack is not None:
            self.phase_stack.close()
        self.phase_stack = ExitStack()
        self.phase_stack.enter_context(self.meter.phase(phase))
        if phase == Phase.FORWARD and self.outside is not None:
            self.counting = self.phase_stack.enter_context(self.outside.counting())
        self.phase = phase

    def backward_starts(self) -> None:
        if self.phase != Phase.FORWARD:
            return  # a second backward in the step (gradient accumulation): still backward
        self._forward_ends()
        self._enter(Phase.BACKWARD)

    def _forward_ends(self) -> None:
        from .step import runtime_saved

        capture = self.run.capture
        if capture is not None:
            capture.recording = False
            self.invocations = [
                R.Invocation(dynamo_graph=inv.dynamo_graph, block=inv.block, runtime_saved=runtime_saved(inv.grad_fn))
                for inv in capture.invocations
            ]
            capture.invocations.clear()

    def optimizer_starts(self) -> None:
        if self.phase == Phase.FORWARD:  # no backward through torch.autograd.backward seen
            self._forward_ends()
        if self.phase != Phase.OPTIMIZER:
            self._enter(Phase.OPTIMIZER)

    def ends(self) -> None:
        self.phase_stack.close()
        if self.outside is not None:
            self.saved_outside = self.outside.record(checkpointed_eager=False)
        self.stack.close()  # the meter's step: its history written
        self.memory = self.meter.result()
        from .memory import persistent_bytes

        if self.root is not None:
            self.memory.persistent = persistent_bytes(self.root, self.run.optimizer)

    def stopped(self) -> None:
        """An out-of-memory error stopped the step: what it had saved so far is kept (the compiled graphs' values of
        a forward it was in, the eager count while the error's frames still hold them), then the measuring stops."""
        if self.phase == Phase.FORWARD:
            self._forward_ends()
        self.abandon()
        if self.outside is not None:
            self.saved_outside = self.outside.record(checkpointed_eager=False)

    def abandon(self) -> None:
        """The script failed inside the measured step: stop measuring (the CUDA history is written as far as it got)."""
        try:
            if self.phase_stack is not None:
                self.phase_stack.close()
            self.stack.close()
            self.memory = self.meter.result()
            self.run.report.memory = self.memory
        except Exception:
            pass


def _models(params: list) -> tuple[object, dict[str, object]]:
    """The root module of the optimizer's parameters (the module holding most of them that no other such module
    holds), and the modules torch.compile runs within it, by their names in it."""
    import gc
    import warnings

    import torch

    from ..names import class_name, user_name

    wanted = {id(p) for p in params}
    with warnings.catch_warnings():  # an object's __class__ may warn when asked (a deprecated alias): not the script's
        warnings.simplefilter("ignore")
        modules = [o for o in gc.get_objects() if _is_module(o, torch.nn.Module)]
    holding = [m for m in modules if any(id(p) in wanted for p in m.parameters())]
    if not holding:
        return None, {}
    root = _wrapped(
        max(holding, key=lambda m: (sum(1 for p in m.parameters() if id(p) in wanted), -len(list(m.children())))), holding, torch
    )
    compiled = {}
    for name, m in root.named_modules():
        fqn = user_name(name)
        if _compiled(m, torch) and not any(fqn.startswith(f"{other}.") for other in compiled):
            compiled[fqn or class_name(m)] = m
    return root, compiled


def _wrapped(root, holding: list, torch):
    """`model = torch.compile(Net())`: the root is the wrapper, whose model's saved values are the compiled graph's
    (the model itself, the root, counted them again as saved outside it)."""
    wrapper = next((m for m in holding if getattr(m, "_orig_mod", None) is root), None)
    return wrapper if wrapper is not None and _compiled(wrapper, torch) else root


def _compiled(m, torch) -> bool:
    """Whether torch.compile runs the module: wrapped (``torch.compile(m)``) or compiled in place (``m.compile()``)."""
    return isinstance(m, torch._dynamo.eval_frame.OptimizedModule) or getattr(m, "_compiled_call_impl", None) is not None


def _is_module(o, module_type) -> bool:
    try:
        return isinstance(o, module_type)
    except ReferenceError:  # a weak proxy whose referent is gone
        return False


def _model_shape(root, compiled: dict) -> R.ModelShape | None:
    """The script's model as the report records it: its compiled modules as its blocks."""
    if root is None:
        return None
    inside = {id(p) for m in compiled.values() for p in m.parameters()}
    others = [p.numel() for p in root.parameters() if id(p) not in inside]
    parents = {fqn.rpartition(".")[0] for fqn in compiled}
    return R.ModelShape(
        blocks_attr=parents.pop() if len(parents) == 1 else "",
        blocks=len(compiled),
        block_parameters={fqn: sum(p.numel() for p in m.parameters()) for fqn, m in compiled.items()},
        other_parameters=sum(others),
        other_parameter_numels=others,
        whole_model=next((name for name, m in compiled.items() if m is root), None),
    )
