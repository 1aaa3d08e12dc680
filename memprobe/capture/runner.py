"""Run a probe: build the repro, train a few steps, record graphs, output code and memory.

The first step compiles; later steps are measured, the last one under the
memory meter (CPU profiler or CUDA allocator statistics). The saved-for-backward
table is derived from the recorded graphs by :mod:`memprobe.analysis.saved`
and cross-checked against the tensors the autograd graph really holds.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path

from .. import SCHEMA_VERSION, __version__
from ..analysis.cpu_attribution import attribute_cpu
from ..analysis.findings import checks, find
from ..analysis.output_code import simulate_run
from ..analysis.rundir import graph_pairs
from ..analysis.saved import build_saved_table, saved_totals
from ..analysis.snapshot import attribute_peak, load_snapshot
from ..analysis.verdict import run_verdict
from ..compat import versions
from ..compat.torchao import require as require_float8
from ..config import ProbeConfig
from ..errors import ConfigError, InternalError, Interrupted, OutOfMemory, RunFailed
from ..vocab import MemorySource
from .caches import use_compile_cache
from .guard import RunGuard, describe_exit
from .process_info import process_age_s, process_record, user_command, waited_s
from .quiet import quiet_logs
from .rundir import RunDir

Progress = Callable[[str], None]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def resolve_device(requested: str):
    import torch

    if requested == "auto":
        requested = "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda":
        if not torch.cuda.is_available():
            raise ConfigError(
                "--device cuda: no CUDA device is available (this torch build or machine has none); use --device cpu"
            )
        if "LOCAL_RANK" in os.environ:  # one GPU per rank under torchrun
            return torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def check_float8_support(recipe: str, device) -> None:
    import torch

    if recipe == "bf16":
        return
    if device.type == "cpu":
        from ..compat.torch import why_no_cpu_float8

        why = why_no_cpu_float8(recipe)
        if why:
            raise ConfigError(why)
        return
    if device.type != "cuda":
        return
    cap = torch.cuda.get_device_capability(device)
    if cap < (8, 9):
        name = torch.cuda.get_device_name(device)
        raise ConfigError(
            f"float8 recipe {recipe!r} needs a GPU of compute capability 8.9 or newer; {name} is {cap[0]}.{cap[1]}:"
            " use --recipe bf16 or --device cpu"
        )


def start_compile_workers() -> None:
    """Start Inductor's pool of compile worker processes now, while the model is built and traced: it takes
    seconds to start. torch's own ``inductor`` backend starts it when Dynamo first calls it; memprobe's
    backend calls ``compile_fx`` itself, so without this the pool would start at the first kernel, and the
    kernels before it were ready would compile one by one in this process."""
    try:
        from torch._inductor.async_compile import maybe_warm_pool
    except ImportError:  # a torch without it: the pool starts at the first kernel
        return
    maybe_warm_pool()


def _runtime_saved(grad_fn) -> list[dict] | None:
    """Shape, dtype and storage size of each tensor a CompiledFunction node saved."""
    import torch

    if grad_fn is None:
        return None
    out = []
    for t in grad_fn.saved_tensors:
        if not isinstance(t, torch.Tensor):
            continue
        st = t.untyped_storage()
        out.append(
            {
                "shape": list(t.shape),
                "dtype": str(t.dtype).replace("torch.", ""),
                "storage_bytes": int(st.nbytes()),
                "storage_id": int(st.data_ptr()) if st.nbytes() else None,
            }
        )
    return out


class Probe:
    """One configuration, built and run in this process."""

    def __init__(
        self,
        cfg: ProbeConfig,
        run_dir: RunDir,
        progress: Progress | None = None,
        verbose: bool = False,
        cuda_snapshot: bool = True,
        measure_calls: bool = False,
        analysis_only: bool = False,
        measure: bool | None = None,
    ):
        self.cfg = cfg.validated()
        self.analysis_only = analysis_only
        # analysis-only runs stop after the first step (it holds the graphs and the table) unless asked to measure
        self.measure = (not analysis_only) if measure is None else measure
        self.current_phase: str | None = None
        self.current_step: int | None = None
        self.cuda_snapshot = cuda_snapshot
        self.measure_calls = measure_calls
        self.run_dir = run_dir
        self.guard = RunGuard()
        self.progress = progress or (lambda msg: None)
        self.verbose = verbose
        self.report: dict = {}
        self._cache_before: dict | None = None  # the compile-cache counters before the first step

    # -- report scaffolding --------------------------------------------------------------------
    def _write(self) -> None:
        self.run_dir.write_report(self.report)

    def run(self) -> dict:
        cfg = self.cfg
        # the run directory is consistent from the first moment: report.json says "running" before anything
        # is imported or built, and a signal at any later point marks it interrupted
        self.report = {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "memprobe", "version": __version__},
            "status": "running",
            "created_utc": _now(),
            "command": user_command(),
            "process": process_record(),
            "config": cfg.to_dict(),
            # analysis-only: graphs traced and partitioned as for Inductor, then run uncompiled (no output
            # code); the saved table is the full run's, measured temporaries are not the kernels'
            "mode": "analysis-only" if self.analysis_only else "full",
            "device": {"type": None},  # until torch says which
            "versions": {"memprobe": __version__, "python": platform.python_version()},
            "policy": cfg.policy().to_dict() if cfg.ac == "op" else None,
            "graphs": [],
            "invocations": [],
            "saved_tensors": [],
            "saved_totals": None,
            "findings": [],
            "notes": [],  # what memprobe changed in the model, or where this device differs from another: one line each
            "memory": None,
            "timings_s": {},
        }
        guard = self.guard = RunGuard().__enter__()
        try:
            self._write()
            use_compile_cache()  # before torch is imported: Inductor's compile workers inherit it
            quiet_logs(self.verbose)
            device = resolve_device(cfg.device)
            self.report["device"] = {"type": device.type}
            self.report["versions"] = versions(device)
            self._write()
            from ..compat import torch as torch_compat

            if why := torch_compat.why_unavailable():  # an API a probe uses
                raise ConfigError(why)
            check_float8_support(cfg.recipe, device)
            require_float8(cfg.recipe)
            if cfg.fsdp and device.type == "cpu" and (why := torch_compat.why_no_cpu_fsdp()):
                raise ConfigError(why)
            if cfg.compile and device.type == "cuda" and not self.analysis_only:
                start_compile_workers()
            self._run(device)
            guard.check()
            self.report["status"] = "complete"
        except BaseException as e:
            # a signal is an interruption whatever the library it hit made of it (BackendCompilerFailed)
            stop = guard.interruption(e)
            if stop is not None:
                self.report["status"] = "interrupted"
                raise Interrupted(
                    f"{stop}; what was recorded is in {self.run_dir.path} (status: interrupted)", exit_code=stop.exit_code
                ) from None
            self._failed(e)
        finally:
            guard.__exit__(None, None, None)
            self.report["finished_utc"] = _now()
            self.report["verdict"] = run_verdict(self.report)  # once the status is known
            self._write()
        return self.report

    def _failed(self, e: BaseException):
        """Mark the report failed (or oom) and raise the error the user reads."""
        if isinstance(e, (ConfigError, InternalError)):
            self.report["status"] = "failed"
            self.report["error"] = f"{type(e).__name__}: {e}"
            raise e
        if not isinstance(e, Exception):  # sys.exit, os._exit or a BaseException of the user's code
            self.report["status"] = "failed"
            self.report["error"] = f"the model {describe_exit(e)}"
            raise RunFailed(
                f"the run failed: the model {describe_exit(e)} during {self.current_phase or 'the run'}; "
                f"partial report in {self.run_dir.path}"
            ) from e
        # a failure inside torch: keep what was recorded
        first = str(e).splitlines()[0] if str(e) else ""
        self.report["error"] = f"{type(e).__name__}: {first}"
        if _is_oom(e):
            self.report["status"] = "oom"
            # "CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has ..." -> its first two sentences
            short = ". ".join(first.split(". ")[:2]).rstrip(".")
            raise OutOfMemory(
                f"out of memory during {self.report.get('oom', {}).get('phase') or 'the run'}: {short}; "
                f"partial report in {self.run_dir.path} (status: oom)"
            ) from e
        self.report["status"] = "failed"
        from .target import innermost_cause

        cause = innermost_cause(e)
        self.report["error"] = cause
        raise RunFailed(f"the run failed: {cause}; partial report in {self.run_dir.path}") from e

    # -- the probe itself ------------------------------------------------------------------------
    def _run(self, device) -> None:
        import torch

        from repros import common

        from ..policies import INSTALLED, cpu_attention_note, cpu_attention_ops, make_context_fn, resolve_op
        from .caches import GraphRecords, cache_counters
        from .compile_hooks import GraphCapture
        from .memory import CpuPhases, CudaPhases, persistent_bytes, tensor_registry
        from .target import build_target, cast_batch, describe

        cfg = self.cfg
        torch._dynamo.reset()
        model = optimizer = x = None
        if device.type == "cuda":
            torch.cuda.set_device(device)
            if self.cuda_snapshot and not self.analysis_only:
                self.run_dir.record("snapshot.pickle")  # torch writes it: into the manifest first
            meter = CudaPhases(
                device,
                snapshot_path=self.run_dir.path / "snapshot.pickle" if self.cuda_snapshot and not self.analysis_only else None,
                registry=lambda: tensor_registry(model, optimizer, x),
            )
            meter.start_history()
        else:
            meter = CpuPhases(quiet=not self.verbose)
        created_pg = False
        decisions: dict = {}
        capture = GraphCapture(
            measure_calls=self.measure_calls and device.type == "cuda",
            codegen=not self.analysis_only,
            records=GraphRecords.here() if cfg.compile else None,
            decisions=decisions,
        )
        t0 = time.perf_counter()
        timings = self.report["timings_s"]
        try:
            age = process_age_s()
            if age is not None:  # interpreter, imports, device: before anything is built (time held back apart)
                timings["startup"] = round(age - waited_s(), 3)
                if waited_s():
                    timings["held"] = round(waited_s(), 3)
            self.progress(f"building {cfg.summary()} on {device.type}")
            target = build_target(cfg, device)
            model, blocks, x = target.model, target.blocks, target.batch
            self.report["model"] = describe(target)
            self.report["notes"] += target.notes
            context_fn = apply_ac_fn = None
            if cfg.ac == "op" and cfg.ac_policy == INSTALLED:  # torchtitan's own SelectiveAC wraps the blocks
                from ..integrations.torchtitan import apply_selective_ac

                add = frozenset(resolve_op(o) for o in cfg.save_ops)
                drop = frozenset(resolve_op(o) for o in cfg.recompute_ops)

                def apply_ac_fn(blocks):
                    apply_selective_ac(blocks, add, drop, base_fqn=target.blocks_attr, parity=cpu_attention_ops())
            elif cfg.ac == "op":
                context_fn = make_context_fn(cfg.policy(), decisions)
            created_pg = common.apply_stack(
                model,
                blocks,
                recipe=cfg.recipe,
                ac=cfg.ac,
                context_fn=context_fn,
                compile=cfg.compile,
                compile_backend=capture,
                fsdp=cfg.fsdp,
                reshard_after_forward=cfg.reshard_after_forward,
                device=device,
                float8_done=target.float8_done,
                apply_ac_fn=apply_ac_fn,
                memory_budget=cfg.memory_budget,
            )
            self.report["float8"] = common.float8_coverage(
                model, target.blocks_attr, cfg.recipe, "torchtitan" if target.float8_done else "torchao"
            )
            capture.track_blocks({f"{target.blocks_attr}.{name}": block for name, block in blocks.named_children()})
            if torch.distributed.is_initialized():
                self.report["distributed"] = _rank_info()
            if not cfg.fsdp:
                x = cast_batch(x, torch.bfloat16)
            optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
            runtime_total = None
            steps = cfg.steps if self.measure else 1
            timings["build"] = round(time.perf_counter() - t0, 3)
            self._cache_before = cache_counters() if cfg.compile else None  # a held process's warm-up compiled too
            with capture.cache_config():
                for step in range(steps):
                    self.current_step = step
                    measured = step > 0 or not self.measure
                    last = step == steps - 1
                    meter_here = last and self.measure
                    ts = time.perf_counter()
                    self.progress(
                        f"step {step + 1}/{steps}"
                        + ((" (tracing)" if self.analysis_only else " (compiling)") if step == 0 and cfg.compile else "")
                        + (" (measured)" if meter_here else "")
                    )
                    with meter.step() if meter_here else nullcontext():
                        runtime_total = self._step(model, optimizer, x, capture, meter if meter_here else None, record=measured)
                    if step == 0:
                        timings["first_step"] = round(time.perf_counter() - ts, 3)
                        if cfg.compile:
                            self._compile_cache(capture)
                        self._write_graphs(capture)
                        note = cpu_attention_note(device.type, (n for d in capture.dynamo_graphs for g in d.aot for n in g.nodes))
                        self.report["notes"] += [note] if note else []
                    if last:
                        timings["measured_step"] = round(time.perf_counter() - ts, 3)
                        if getattr(meter, "dump_s", None) is not None:
                            timings["snapshot_dump"] = round(meter.dump_s, 3)  # inside the measured step's figure
                    self.guard.check()  # a Ctrl-C a library swallowed during the step stops the run here
            self.report["memory"] = {
                **(
                    meter.result()
                    if self.measure
                    else {"source": None, "phases": {}, "events": None, "baseline": "not measured (analysis-only)"}
                ),
                "persistent": persistent_bytes(model, optimizer),
                "autograd_saved_bytes": runtime_total,
            }
            self.report["policy_decisions"] = decisions or None
            ta = time.perf_counter()
            try:
                self._analyse()
            except Exception as e:  # the step succeeded: a failure here is memprobe's own bug
                raise InternalError(
                    f"analysing the recorded run failed: {type(e).__name__}: {e}; what was recorded is in {self.run_dir.path}"
                ) from e
            timings["analysis"] = round(time.perf_counter() - ta, 3)
            timings["total"] = round(time.perf_counter() - t0, 3)
        except BaseException as e:
            # keep what the failure left: where it happened, the phases measured so far, the allocator
            # history up to the failure (CUDA), and the saved table if the graphs and calls were recorded
            self.report["oom" if _is_oom(e) else "failed_at"] = {"phase": self.current_phase, "step": self.current_step}
            if self.report.get("memory") is None and self.measure:
                self.report["memory"] = {**meter.result(), "partial": True}
            if isinstance(meter, CudaPhases) and meter.recording and meter.snapshot_path is not None:
                try:
                    meter._dump_history()
                    self.report["memory"].setdefault("snapshot", {})["file"] = meter.snapshot_path.name
                except Exception:  # the snapshot is best effort once the device has failed
                    pass
            if self.report.get("graphs") and not self.report.get("saved_tensors") and not isinstance(e, InternalError):
                try:
                    self._analyse()
                except Exception as analysis_error:  # recorded, never hidden: the run's own failure is raised
                    self.report["analysis_error"] = f"{type(analysis_error).__name__}: {analysis_error}"
            raise
        finally:
            if isinstance(meter, CudaPhases):
                meter.stop()
            if created_pg:
                import torch.distributed as dist

                dist.destroy_process_group()

    def _step(self, model, optimizer, x, capture, meter, record: bool):
        from repros import common

        def phase(name: str):
            self.current_phase = name
            return meter.phase(name) if meter is not None else nullcontext()

        capture.invocations.clear()
        capture.recording = record
        with phase("forward"):
            out = model(*x)
            loss = common.loss_fn(out)
        capture.recording = False
        invocations = [
            {
                "dynamo_graph": inv.dynamo_graph,
                "block": inv.block,
                "runtime_saved": _runtime_saved(inv.grad_fn),
                **({"measured": inv.measured} if inv.measured is not None else {}),
                **({"input_ids": inv.input_ids} if inv.input_ids is not None else {}),
            }
            for inv in capture.invocations
        ]
        capture.invocations.clear()  # drop the autograd references before backward
        if invocations:  # the latest recorded forward: a failure later in the step still has its table
            self.report["invocations"] = invocations
        # eager checkpointed regions would be consumed by inspecting them: only compiled or AC-free runs
        inspectable = self.cfg.compile or self.cfg.ac == "none"
        runtime_total = common.saved_tensor_bytes(loss) if record and inspectable else None
        with phase("backward"):
            loss.backward()
        with phase("optimizer"):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        del out, loss
        return runtime_total

    def _compile_cache(self, capture) -> None:
        """What the compile caches gave the first step: recorded in the report and said in a progress line."""
        from .caches import cache_counters, inductor_cache_dir

        capture.find_loaded_paths()
        written = capture.save_records()
        before = self._cache_before or {}
        counts = {
            cache: {k: n - before.get(cache, {}).get(k, 0) for k, n in figures.items()}
            for cache, figures in cache_counters().items()
        }
        graphs = len(capture.dynamo_graphs)
        from_records = sum(1 for d in capture.dynamo_graphs if any(g.from_record for g in d.aot))
        fx = counts["fx_graph"]
        traced = "traced" if self.analysis_only else "traced and compiled"
        if graphs and from_records == graphs:
            state, how = "warm", f"all {graphs} graph(s) from the cache, none traced"
        elif not self.analysis_only and fx["hit"] and not fx["miss"]:
            state, how = "warm", f"the kernels of all {graphs} graph(s) from the cache, {graphs - from_records} traced again"
        elif not fx["hit"] and not from_records:
            state, how = "cold", f"{graphs} graph(s) {traced}"
            if self.analysis_only:  # why a second analysis-only run is no faster, where a warm full run would be
                how += "; analysis-only generates no kernels, so it leaves no cache entry: a full run of this configuration fills the cache for both kinds of run"
        else:
            state, how = "partly warm", f"{from_records} of {graphs} graph(s) from the cache, the others {traced}"
        self.report["compile_cache"] = {
            "dir": str(inductor_cache_dir()),
            "state": state,
            **counts,
            "graphs_from_records": from_records,
            "records_written": written,
        }
        self.progress(f"compile cache {state}: {how} ({self.report['timings_s']['first_step']:.1f} s)")

    def _write_graphs(self, capture) -> None:
        entries = []
        for dyn in capture.dynamo_graphs:
            for g in dyn.aot:
                files = self.run_dir.write_graph(g.graph_id, g.readable, g.nodes, g.output_code)
                entries.append(
                    {
                        "graph_id": g.graph_id,
                        "dynamo_graph": g.dynamo_graph,
                        "kind": g.kind,
                        "nodes": len(g.nodes),
                        "files": files,
                        "output_code_loaded_from": g.output_code_path,
                        "inputs": dyn.inputs,
                    }
                )
        self.report["graphs"] = entries
        self._write()

    def _analyse(self) -> None:
        # the analysis reads the recorded artifacts, exactly as a later command would
        pairs = graph_pairs(self.run_dir.path, self.report)
        rows = build_saved_table(pairs, self.report["invocations"], self.report["policy"], self.report.get("model"))
        totals = saved_totals(rows)
        self.report["saved_tensors"] = rows
        self.report["saved_totals"] = totals
        self.report["memory"]["saved_for_backward_bytes"] = {
            "graph": totals["graph_bytes"],
            "runtime": totals["runtime_bytes"],
        }
        self.report["graph_memory"] = simulate_run(self.run_dir.path, self.report, pairs)
        snapshot = self.run_dir.path / "snapshot.pickle"
        if self.analysis_only:
            self.report["attribution"] = None  # the uncompiled graphs' allocations are not the kernels'
        elif snapshot.is_file():
            self.report["attribution"] = attribute_peak(load_snapshot(snapshot, trusted=True), self.report)
        elif self.report["memory"]["source"] == MemorySource.CPU_PROFILER:
            self.report["attribution"] = attribute_cpu(self.report)
        self.report["findings"] = find(
            rows,
            totals,
            self.report["config"],
            policy=self.report["policy"],
            attribution=self.report.get("attribution"),
            float8=self.report.get("float8"),
        )
        self.report["checks"] = checks()


def _rank_info() -> dict:
    import torch.distributed as dist

    return {"rank": dist.get_rank(), "world_size": dist.get_world_size(), "backend": str(dist.get_backend())}


def _is_oom(e: BaseException) -> bool:
    import torch

    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom is not None and isinstance(e, oom)) or "out of memory" in str(e).lower()


def run_probe(
    cfg: ProbeConfig,
    out: Path,
    *,
    progress: Progress | None = None,
    verbose: bool = False,
    cuda_snapshot: bool = True,
    measure_calls: bool = False,
    analysis_only: bool = False,
    measure: bool | None = None,
    nnodes: str | None = None,
    rdzv_endpoint: str | None = None,
) -> dict:
    """Run one configuration into ``out``: in this process, or through torchrun when it has several ranks."""
    from .launch import launched_by_torchrun

    if cfg.nproc > 1 and not launched_by_torchrun():
        from .launch import run_distributed

        return run_distributed(
            cfg,
            Path(out),
            progress=progress,
            verbose=verbose,
            analysis_only=analysis_only,
            nnodes=nnodes,
            rdzv_endpoint=rdzv_endpoint,
        )
    return Probe(
        cfg,
        RunDir(out),
        progress=progress,
        verbose=verbose,
        cuda_snapshot=cuda_snapshot,
        measure_calls=measure_calls,
        analysis_only=analysis_only,
        measure=measure,
    ).run()
