"""What Dynamo did with the code torch.compile was asked to run: the frames it compiled into graphs and those it ran
eagerly, each graph break with Dynamo's own reason, the user's frame and the higher-order op it happened in (a
checkpointed region), and the Python side effects it let a checkpointed region keep.

Read from Dynamo's own records, never its log text: each compile's ``CompilationMetrics``
(``torch._dynamo.utils.get_compilation_metrics``: the frame, its compile id, the ops its graph holds, the reasons it
restarted), the exception of each graph break as Dynamo handles it (``InstructionTranslatorBase.log_graph_break``: its
graph-break type, explanation, user frame and higher-order op) and each attribute a checkpointed region sets
on an object from outside it (``SideEffects.store_attr``, with Dynamo's own test of a mutation's scope). A torch that lacks one of these
leaves that part empty, and the record names what could not be read.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

from ..rundir import records as R

# the explanation of a graph break is a paragraph; the record keeps its first sentence's worth
_EXPLANATION_CHARS = 400
# compiles whose metrics Dynamo keeps while memprobe records (its default keeps the last 64)
_METRICS_KEPT = 4096


@dataclass
class _Break:
    compile_id: str | None
    reason: str
    explanation: str | None
    file: str | None
    line: int | None
    function: str | None
    module_id: int | None
    higher_order_op: str | None


@dataclass
class _SideEffect:
    compile_id: str | None
    mutated: str
    frames: list[tuple[str, int, str]]  # (file, line, function), outermost first


@dataclass
class Coverage:
    """Records what Dynamo compiles, breaks on and lets checkpointed regions mutate, in this process, while
    :meth:`recording`; :meth:`record` is what a run's report holds of it."""

    breaks: list[_Break] = field(default_factory=list)
    side_effects: list[_SideEffect] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    first_metric: int = 0
    skips_side_effects: bool = False

    @contextmanager
    def recording(self, skip_side_effects: bool = False):
        """Dynamo's graph breaks and side effects recorded while inside (hooks on its classes, taken out after).
        ``skip_side_effects``: while inside, a checkpointed region may keep a Python side effect under torch.compile
        (Dynamo's ``skip_fwd_side_effects_in_bwd_under_checkpoint``: the compiled forward applies it once, the backward's
        recompute does not replay it); only where memprobe builds the stack, never in a user's script."""
        import torch._dynamo.config as dynamo_config

        undo = self.start()
        allow = skip_side_effects and hasattr(dynamo_config, "skip_fwd_side_effects_in_bwd_under_checkpoint")
        patch = dynamo_config.patch(skip_fwd_side_effects_in_bwd_under_checkpoint=True) if allow else nullcontext()
        self.skips_side_effects = allow
        try:
            with patch:
                yield self
        finally:
            undo()

    def start(self) -> Callable[[], None]:
        """Start recording (for the rest of the process, or until the function returned is called)."""
        import torch._dynamo.utils as dynamo_utils

        if hasattr(dynamo_utils, "set_compilation_metrics_limit"):  # Dynamo keeps the last 64 compiles' by default
            dynamo_utils.set_compilation_metrics_limit(max(_METRICS_KEPT, len(_metrics(dynamo_utils))))
        self.first_metric = len(_metrics(dynamo_utils))
        undo = [
            _wrap(self, "torch._dynamo.symbolic_convert", "InstructionTranslatorBase", "log_graph_break", self._broke),
            _wrap(self, "torch._dynamo.side_effects", "SideEffects", "store_attr", self._stored),
        ]
        return lambda: [u() for u in reversed(undo)] and None

    # -- the hooks ---------------------------------------------------------------------------------------------------
    def _broke(self, tx, _code_options, reason, exc) -> None:
        if getattr(exc, "logged", False):  # Dynamo logs each exception once
            return
        frame = _user_frame(exc)
        self.breaks.append(
            _Break(
                compile_id=_compile_id(),
                reason=str(getattr(exc, "gb_type", None) or type(exc).__name__),
                explanation=_explanation(reason),
                file=frame.filename if frame is not None else None,
                line=frame.lineno if frame is not None else None,
                function=getattr(getattr(tx, "f_code", None), "co_name", None),
                module_id=_module_id(tx),
                higher_order_op=getattr(exc, "_hop_name", None),
            )
        )

    def _stored(self, side_effects, item, name, *_args, **_kwargs) -> None:
        """An attribute set on an object from outside the higher-order op being traced (Dynamo's own test: an existing
        object whose mutation is not side-effect safe in this scope), where Dynamo lets the op keep it."""
        import torch
        from torch._dynamo.side_effects import AttributeMutationExisting, is_side_effect_safe

        allowed = getattr(side_effects, "should_allow_side_effects_in_hop", None)
        if allowed is None or not allowed() or not isinstance(item.mutation_type, AttributeMutationExisting):
            return
        if is_side_effect_safe(item.mutation_type):
            return
        value = getattr(item, "value", None)
        mutated = f"{type(value).__qualname__ if value is not None else type(item).__name__}.{name}"
        stack = torch._guards.TracingContext.extract_stack()
        frames = [(f.filename, f.lineno or 0, f.name) for f in stack]
        self.side_effects.append(_SideEffect(_compile_id(), mutated, frames))

    # -- the record --------------------------------------------------------------------------------------------------
    def record(self, modules: dict[int, str]) -> R.CompileCoverage:
        """What the run's report holds: ``modules`` names the model's modules by ``id`` (the user's names)."""
        import torch._dynamo.utils as dynamo_utils

        metrics = _metrics(dynamo_utils)[self.first_metric :]
        frames: dict[tuple, R.CompiledFrame] = {}
        for m in metrics:
            if getattr(m, "co_name", None) is None:  # a backward's or a compiled autograd's entry: no frame of its own
                continue
            key = (m.co_filename, m.co_firstlineno, m.co_name)
            entry = frames.setdefault(
                key,
                R.CompiledFrame(
                    function=m.co_name, file=m.co_filename, line=m.co_firstlineno, compiles=0, graphs=0, ops=0, eager_compiles=0
                ),
            )
            ops = int(getattr(m, "graph_op_count", 0) or 0)
            entry.compiles += 1
            entry.ops += ops
            if ops:
                entry.graphs += 1
            else:
                entry.eager_compiles += 1
            failed = getattr(m, "fail_reason", None)
            if failed and not entry.failed:
                entry.failed = _first_line(str(failed))
        eager_ids = {
            str(m.compile_id) for m in metrics if getattr(m, "co_name", None) is not None and not getattr(m, "graph_op_count", 0)
        }
        return R.CompileCoverage(
            frames=list(frames.values()),
            graph_breaks=_graph_breaks(self.breaks, modules, eager_ids),
            side_effects=_side_effects(self.side_effects),
            side_effects_skipped_in_recompute=self.skips_side_effects,
            unread=list(self.unread),
        )


def side_effect_note(coverage: R.CompileCoverage) -> str | None:
    """The run's note when memprobe let the checkpointed blocks keep a side effect Dynamo refuses by default."""
    if not coverage.side_effects_skipped_in_recompute or not coverage.side_effects:
        return None
    from ..analysis.frames import short_path

    first = coverage.side_effects[0]
    where = f"{short_path(first.file or '?')}:{first.line}"
    if first.called_from:
        file, _, line = first.called_from.rpartition(":")
        where += f", called from {short_path(file)}:{line}"
    more = f" (and {len(coverage.side_effects) - 1} more)" if len(coverage.side_effects) > 1 else ""
    return (
        f"inside the checkpointed blocks, {first.function or 'the forward'}() sets {first.mutated} ({where}){more}, "
        "which Dynamo refuses inside a checkpoint by default; memprobe set torch._dynamo.config."
        "skip_fwd_side_effects_in_bwd_under_checkpoint: the compiled forward applies it once, the backward's recompute "
        "does not replay it (Python state: the graphs compute and save the same tensors)"
    )


def _graph_breaks(breaks: list[_Break], modules: dict[int, str], eager_ids: set[str]) -> list[R.GraphBreak]:
    """One record per (module, reason, place), with how many times Dynamo hit it."""
    checkpoint_op = _checkpoint_op()
    merged: dict[tuple, R.GraphBreak] = {}
    for b in breaks:
        module = modules.get(b.module_id) if b.module_id is not None else None
        key = (module, b.reason, b.file, b.line)
        if key in merged:
            merged[key].count += 1
            continue
        merged[key] = R.GraphBreak(
            reason=b.reason,
            explanation=b.explanation,
            file=b.file,
            line=b.line,
            function=b.function,
            module=module,
            higher_order_op=b.higher_order_op,
            checkpointed=b.higher_order_op is not None and b.higher_order_op == checkpoint_op,
            ran_eagerly=b.compile_id in eager_ids,
            count=1,
        )
    return list(merged.values())


def _side_effects(effects: list[_SideEffect]) -> list[R.SideEffect]:
    """One record per (object type, innermost place): the place of the mutation and the user's frame that led to it."""
    merged: dict[tuple, R.SideEffect] = {}
    for e in effects:
        inner = e.frames[-1] if e.frames else ("", 0, "")
        caller = e.frames[-2] if len(e.frames) > 1 else None
        key = (e.mutated, inner[0], inner[1])
        if key in merged:
            merged[key].count += 1
            continue
        merged[key] = R.SideEffect(
            mutated=e.mutated,
            file=inner[0] or None,
            line=inner[1] or None,
            function=inner[2] or None,
            called_from=f"{caller[0]}:{caller[1]}" if caller else None,
            count=1,
        )
    return list(merged.values())


def _checkpoint_op() -> str | None:
    """Dynamo's name of the checkpoint higher-order op (``torch.utils.checkpoint.checkpoint``), as this torch has it."""
    try:
        from torch._dynamo.variables.higher_order_ops import CheckpointHigherOrderVariable
    except ImportError:
        return None
    return getattr(CheckpointHigherOrderVariable, "_HOP_NAME", None)


def _metrics(dynamo_utils) -> list:
    get = getattr(dynamo_utils, "get_compilation_metrics", None)
    return list(get()) if get is not None else []


def _compile_id() -> str | None:
    import torch

    cid = torch._guards.CompileContext.current_compile_id()
    return str(cid) if cid is not None else None


def _user_frame(exc):
    """The user's frame Dynamo names for a graph break (the innermost of the exception's real stack)."""
    stack = getattr(exc, "real_stack", None)
    return stack[-1] if stack else None


def _explanation(reason) -> str | None:
    """Dynamo's explanation of a graph break (what its message says after ``Explanation:``, before its hints), for
    people to read; no rule reads it."""
    text = str(reason)
    _, found, rest = text.partition("Explanation:")
    body = (rest if found else text).split("\n  Hint:", 1)[0].split("\n\n", 1)[0]
    return " ".join(body.split())[:_EXPLANATION_CHARS] or None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:_EXPLANATION_CHARS] if text.strip() else text


def _module_id(tx) -> int | None:
    """The module whose method the frame runs (its first argument), by ``id``."""
    import torch

    code = getattr(tx, "f_code", None)
    f_locals = getattr(tx, "f_locals", None)
    if code is None or not isinstance(f_locals, dict) or not code.co_argcount:
        return None
    first = f_locals.get(code.co_varnames[0])
    if isinstance(first, torch._dynamo.eval_frame.OptimizedModule):
        first = first._orig_mod
    return id(first) if isinstance(first, torch.nn.Module) else None


def _wrap(coverage: Coverage, module: str, cls: str, method: str, hook) -> Callable[[], None]:
    """``module.cls.method`` with ``hook(self, *args)`` called first; returns what takes the wrapper out. Where this
    torch has no such method, nothing is wrapped and the coverage says what it could not read."""
    import importlib

    owner = getattr(importlib.import_module(module), cls, None)
    original = getattr(owner, method, None) if owner is not None else None
    if original is None:
        coverage.unread.append(f"{module}.{cls}.{method}")
        return lambda: None

    def wrapper(self, *args, **kwargs):
        try:
            hook(self, *args, **kwargs)
        except Exception:  # recording must never change what Dynamo does
            pass
        return original(self, *args, **kwargs)

    setattr(owner, method, wrapper)
    return lambda: setattr(owner, method, original)


def module_names(root) -> dict[int, str]:
    """The model's modules by ``id``, by their names in it (compile and checkpoint wrappers left out; a wrapper and
    the module it wraps share the name)."""
    from ..names import class_name, user_name

    names: dict[int, str] = {}
    for name, module in root.named_modules():
        names.setdefault(id(module), user_name(name) or class_name(module))
    return names
