"""Per-op selective activation checkpointing (SAC) policies, by name.

A policy is a list of ops whose outputs are MUST_SAVE, plus a default for every
other op. ``torchtitan`` also carries torchtitan's rule that every second
``aten.mm`` in a block is recomputed instead of saved.

On the CPU, attention runs as ``aten._scaled_dot_product_flash_attention_for_cpu``: every policy that saves
the GPU's fused attention ops saves it too (:func:`with_cpu_attention`), so a CPU probe keeps what a GPU
probe would.

Op names are kept as strings (``aten.abs.default``) so that listing and
validating policies does not need torch; :func:`resolve_op` turns a name into
the torch op when a run needs it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .errors import ConfigError
from .vocab import DeviceType, PolicyDefault


@dataclass(frozen=True)
class Policy:
    name: str
    description: str
    save_ops: tuple[str, ...] = ()
    # recompute: ops not in save_ops are PREFER_RECOMPUTE; save: every op is MUST_SAVE
    # unless it is in recompute_ops.
    default: str = PolicyDefault.RECOMPUTE
    mm_every_second_recomputed: bool = False
    source: str = ""
    recompute_ops: tuple[str, ...] = field(default=())


_TORCHTITAN_TODAY = (
    "aten.mm.default",
    "aten._scaled_dot_product_efficient_attention.default",
    "aten._scaled_dot_product_flash_attention.default",
    "aten._scaled_dot_product_cudnn_attention.default",
    "_c10d_functional.reduce_scatter_tensor.default",
    "aten.max.default",
)

_TORCHTITAN_2025_01 = (
    "aten.mm.default",
    "aten._scaled_dot_product_efficient_attention.default",
    "aten._scaled_dot_product_flash_attention.default",
    "_c10d_functional.reduce_scatter_tensor.default",
    "aten.abs.default",
    "aten.max.default",
)

INSTALLED = "torchtitan-installed"  # the policy whose list and function come from the installed torchtitan

# CPU/GPU parity: on the CPU, scaled_dot_product_attention runs as this op; a policy that saves the GPU's fused
# attention (flash, memory-efficient, cuDNN) saves it too, so a CPU probe keeps what a GPU probe would
CPU_ATTENTION = "aten._scaled_dot_product_flash_attention_for_cpu.default"
GPU_ATTENTION = (
    "aten._scaled_dot_product_flash_attention.default",
    "aten._scaled_dot_product_efficient_attention.default",
    "aten._scaled_dot_product_cudnn_attention.default",
)


def cpu_attention_ops() -> tuple:
    """``(the CPU's attention op, the GPU's fused attention ops)`` as torch ops, for a policy of another project's
    (torchtitan's SelectiveAC) to apply the same parity."""
    return resolve_op(CPU_ATTENTION), frozenset(resolve_op(name) for name in GPU_ATTENTION)


def cpu_attention_note(device_type: str, original_ops) -> str | None:
    """The one line a CPU run's header says when its compiled graphs ran the CPU's attention op (``original_ops``: the
    aten op each recorded graph node was decomposed from), None otherwise."""
    if device_type != DeviceType.CPU or CPU_ATTENTION not in original_ops:
        return None
    return (
        "CPU probe: attention ran as aten._scaled_dot_product_flash_attention_for_cpu, saved or recomputed as the policy"
        " does the GPU's fused attention; on a GPU the small tensors saved beside its output (its logsumexp's layout,"
        " RNG seeds and states) can differ in size"
    )


def with_cpu_attention(ops, removed=()) -> list[str]:
    """``ops`` (op names), with the CPU's attention op added when one of the GPU's is in it (unless ``removed``
    names the CPU op)."""
    ops = list(ops)
    if CPU_ATTENTION not in ops and CPU_ATTENTION not in removed and any(o in ops for o in GPU_ATTENTION):
        ops.append(CPU_ATTENTION)
    return ops


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy(
            name="torchtitan",
            description="today's torchtitan op save list (aten.abs removed); every second aten.mm recomputed",
            save_ops=_TORCHTITAN_TODAY,
            mm_every_second_recomputed=True,
            source="torchtitan models/llama3 parallelize.py _op_sac_save_list",
        ),
        Policy(
            name="torchtitan-2025-01",
            description="torchtitan's list before aten.abs was removed (the rowwise float8 regression); every second aten.mm recomputed",
            save_ops=_TORCHTITAN_2025_01,
            mm_every_second_recomputed=True,
            source="torchtitan before the Feb 2025 fix 'Remove abs from save list for per op AC'",
        ),
        Policy(
            name="torchtitan-installed",
            description="the installed torchtitan's own SelectiveAC: its save list (torch's compute-intensive ops of the "
            "installed torch, torchtitan's entries, communication ops) and its policy function (every "
            "second aten.mm/aten.linear recomputed, device-to-CPU copies saved)",
            mm_every_second_recomputed=True,
            source="torchtitan.distributed.activation_checkpoint.SelectiveAC of the installed torchtitan",
        ),
        Policy(
            name="save-all",
            description="every op's output is MUST_SAVE (upper bound of what SAC can keep)",
            default=PolicyDefault.SAVE,
        ),
        Policy(
            name="recompute-all",
            description="every op is PREFER_RECOMPUTE (the partitioner decides alone)",
        ),
    )
}

_NAME_RE = re.compile(r"^(?:torch\.ops\.)?(?P<ns>[A-Za-z_][\w]*)(?:\.|::)(?P<op>[A-Za-z_]\w*)(?:\.(?P<ov>[A-Za-z_]\w*))?$")


def normalize_op_name(name: str) -> str:
    """``aten.abs`` / ``aten::abs`` / ``torch.ops.aten.abs.default`` -> ``aten.abs.default``.

    Checks only the form; :func:`resolve_op` checks that the op exists.
    """
    m = _NAME_RE.match(name.strip())
    if not m:
        raise ConfigError(f"invalid op name {name!r}: expected a form like aten.abs or torch.ops.aten.abs.default")
    return f"{m['ns']}.{m['op']}.{m['ov'] or 'default'}"


def flag_op(op: str) -> str:
    """``aten.abs.default`` -> ``aten.abs``: how a person writes the op in ``--recompute-op``."""
    return op.removesuffix(".default")


def resolve_op(name: str):
    """The torch OpOverload for a normalized op name; ConfigError if torch has no such op."""
    import torch

    ns, op, overload = normalize_op_name(name).split(".")
    if overload.startswith("_") or op.startswith("__"):
        raise ConfigError(f"unknown op {name!r}: {overload!r} is not an overload name")
    try:
        packet = getattr(getattr(torch.ops, ns), op)
        found = getattr(packet, overload)
    except (AttributeError, RuntimeError):
        raise ConfigError(f"unknown op {name!r}: torch has no torch.ops.{ns}.{op}.{overload}") from None
    if not isinstance(found, torch._ops.OpOverload):  # e.g. aten.abs.overloads, .op: attributes, not overloads
        raise ConfigError(f"unknown op {name!r}: torch.ops.{ns}.{op}.{overload} is not an op overload")
    return found


def resolve_ops(config: dict) -> None:
    """Every ``save_ops``/``recompute_ops`` entry of a configuration (as the user wrote it) is a real op overload
    of the installed torch; ConfigError naming the op and its field otherwise."""
    for field_name in ("save_ops", "recompute_ops"):
        for op in config.get(field_name) or ():
            try:
                resolve_op(op)
            except ConfigError as e:
                e.field = field_name
                raise


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name]
    except KeyError:
        raise ConfigError(f"unknown AC policy {name!r}; choose one of: {', '.join(POLICIES)} (see `memprobe policies`)") from None


@dataclass(frozen=True)
class EffectivePolicy:
    """A named policy after --save-op / --recompute-op edits."""

    name: str
    default: str
    save_ops: tuple[str, ...]
    recompute_ops: tuple[str, ...]
    mm_every_second_recomputed: bool

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "default": self.default,
            "save_ops": list(self.save_ops),
            "recompute_ops": list(self.recompute_ops),
            "mm_every_second_recomputed": self.mm_every_second_recomputed,
        }

    def saves(self, op_name: str) -> bool:
        """Whether the policy's list makes ``op_name`` MUST_SAVE (ignoring the mm parity rule)."""
        if self.default == PolicyDefault.SAVE:
            return op_name not in self.recompute_ops
        return op_name in self.save_ops


def effective_policy(name: str, save_ops=(), recompute_ops=()) -> EffectivePolicy:
    base = get_policy(name)
    add = [normalize_op_name(o) for o in save_ops]
    remove = [normalize_op_name(o) for o in recompute_ops]
    both = sorted(set(add) & set(remove))
    if both:
        raise ConfigError(f"op(s) both saved and recomputed: {', '.join(both)}")
    if base.default == PolicyDefault.SAVE:
        return EffectivePolicy(base.name, PolicyDefault.SAVE, (), tuple(sorted(set(remove))), False)
    base_ops = base.save_ops
    if base.name == INSTALLED:  # read from the installed torchtitan (imports torch and torchtitan)
        from .integrations.torchtitan import installed_save_ops

        base_ops = installed_save_ops()
    ops = [o for o in base_ops if o not in remove]
    ops += [o for o in add if o not in ops]
    ops = with_cpu_attention(ops, remove)
    return EffectivePolicy(
        base.name, PolicyDefault.RECOMPUTE, tuple(ops), tuple(sorted(set(remove))), base.mm_every_second_recomputed
    )


def make_context_fn(policy: EffectivePolicy, decisions: dict | None = None):
    """A ``context_fn`` for ``torch.utils.checkpoint`` implementing ``policy``.

    ``decisions`` (optional) collects ``{op name: {"MUST_SAVE": n, "PREFER_RECOMPUTE": n}}``
    for the forward pass, so a report can say what the policy decided and why.

    It is a ``functools.partial`` of a module-level function over the policy's hash (Dynamo
    accepts a function or a partial), with that hash as its ``cache_hash``: AOTAutograd's cache
    keys a graph with a SAC region by pickling the region's ``context_fn`` and by its
    ``cache_hash``, so the key is the policy and the code that applies it, not a closure that
    would not pickle (every compile would then bypass the cache). ``decisions`` stay out of it.
    """
    from functools import partial

    key = _policy_hash(policy)
    # the n-th context function of this policy in this process records into its own dict (a probe makes one)
    n = sum(1 for k, _ in _REGISTERED if k == key)
    _REGISTERED[(key, n)] = (policy, decisions)
    fn = partial(_policy_context, key, n)
    fn.cache_hash = key
    return fn


# the policies of this process's context functions, by (hash, n), with where each records its decisions
_REGISTERED: dict[tuple[str, int], tuple[EffectivePolicy, dict | None]] = {}


def _policy_context(key: str, n: int):
    from collections import defaultdict

    from torch.utils.checkpoint import create_selective_checkpoint_contexts

    policy, decisions = _REGISTERED[(key, n)]
    rule = _rule(policy)
    mm_count: dict[str, int] = defaultdict(int)

    def _policy(ctx, func, *args, **kwargs):
        decision = rule.decide(func, ctx.is_recompute, mm_count)
        if decisions is not None and not ctx.is_recompute:
            per_op = decisions.setdefault(str(func), {})
            per_op[decision.name] = per_op.get(decision.name, 0) + 1
        return decision

    return create_selective_checkpoint_contexts(_policy)


@functools.cache
def _rule(policy: EffectivePolicy) -> _PolicyRule:
    return _PolicyRule(policy)


class _PolicyRule:
    """What a policy decides for one op call (the save list, its default, torchtitan's mm parity rule)."""

    def __init__(self, policy: EffectivePolicy):
        import torch

        self.policy = policy
        self.save = {resolve_op(o) for o in policy.save_ops}
        self.recompute = {resolve_op(o) for o in policy.recompute_ops}
        self.mm = torch.ops.aten.mm.default

    def decide(self, func, is_recompute: bool, mm_count: dict):
        from torch.utils.checkpoint import CheckpointPolicy

        mode = "recompute" if is_recompute else "forward"
        if func == self.mm:
            mm_count[mode] += 1
        if self.policy.default == "save":
            to_save = func not in self.recompute
        else:
            to_save = func in self.save and not (
                self.policy.mm_every_second_recomputed and func == self.mm and mm_count[mode] % 2 == 0
            )
        return CheckpointPolicy.MUST_SAVE if to_save else CheckpointPolicy.PREFER_RECOMPUTE


def _policy_hash(policy: EffectivePolicy) -> str:
    """The policy's identity for compile caches: its fields and the code that applies them."""
    import hashlib
    import inspect
    import json

    text = json.dumps(policy.to_dict(), sort_keys=True) + inspect.getsource(_PolicyRule)
    return hashlib.sha256(text.encode()).hexdigest()
