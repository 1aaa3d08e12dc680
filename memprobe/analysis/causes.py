"""Why each saved value was saved, and what each backward recomputes, from the compiler's own decisions.

The probe records, per node of each partitioned graph, the SAC tag its op was traced with, the higher-order ops
it was traced inside (a checkpointed region, a custom autograd.Function) and what the installed torch's min-cut
partitioner decided about it (:mod:`memprobe.capture.partition`). From those alone, a saved value's
:class:`~memprobe.rundir.schema.Cause` is:

- ``input``, ``rng-state``, ``backward-work``: what the value is (a graph input, an RNG state, backward work the
  partitioner moved into forward);
- ``policy-tag``: the SAC policy tagged its op MUST_SAVE; ``pass-tag``: a partitioner pass did, before the cut;
  ``region-tag``: torch_remat did, the op being inside a ``remat.region`` with ``recompute=False`` (the region's name
  and choice on the node, :mod:`memprobe.capture.remat_names`);
- ``not-recomputable``: the partitioner may not recompute its op (its rule, in the installed torch's words), and
  no recompute tag overrode that (the op was untagged: outside any checkpointed region, or inside one whose tag
  did not reach it);
- ``min-cut``: its op may be recomputed, but recomputing it needs ops the partitioner may not recompute (named),
  or saving it is cheaper; ``memory-budget``: the activation memory budget's knapsack chose it;
- ``unrecorded``: a run recorded before memprobe read the partitioner's decisions.

What each backward recomputes is :func:`memprobe.analysis.recompute.recomputed_values`. Pure: no torch, no file.
"""

from __future__ import annotations

from ..policies import flag_op
from ..rundir import schema as S
from ..vocab import CheckpointDecision, NodeOp, PolicyDefault, Reason, SaveCause

CHECKPOINT_HOP = "tag_activation_checkpoint"
# the higher-order op torch_remat routes a recompute=False region's body through under compile
REMAT_HOP = "dynamo_bypassing_wrapper"


def short_op(target: str | None) -> str:
    """``aten.abs.default`` -> ``abs``; ``prims.convert_element_type.default`` -> ``convert_element_type``."""
    if not target:
        return "?"
    parts = target.split(".")
    return parts[1] if len(parts) == 3 else parts[-1]


MAX_BLOCKERS = 4
# who decided, for each cause (a row's coarse ``reason_kind``)
REASON_OF = {
    SaveCause.POLICY_TAG: Reason.POLICY,
    SaveCause.INPUT: Reason.GRAPH_INPUT,
}


def traced_tag(node: S.Node) -> CheckpointDecision | None:
    """The SAC tag a node's op was traced with (before a partitioner pass retagged it MUST_SAVE)."""
    p = node.partition
    if p is not None and p.retagged_by:
        return p.traced_tag
    return node.recompute


def checkpointed(node: S.Node) -> bool:
    """Whether the node was traced inside a checkpointed region."""
    return CHECKPOINT_HOP in (node.hops or [])


def tag_words(tag: CheckpointDecision | None, in_region: bool, function: str | None) -> str:
    """A node's SAC tag in words: ``tagged PREFER_RECOMPUTE``, or why it has none."""
    if tag is not None:
        return f"tagged {tag}"
    if in_region:
        inside = f": the ops of autograd.Function {function} carry none" if function else ""
        return f"untagged inside a checkpointed region{inside}"
    return "outside any checkpointed region (untagged)"


def _blockers(name: str, nodes: dict[str, S.Node], saved: set[str]) -> list[S.Blocker]:
    """The nearest ops upstream of a saved node that the partitioner may not recompute (climbing through nodes that
    are neither saved nor graph inputs): what recomputing the node would need."""
    found: list[S.Blocker] = []
    stack, seen = list(nodes[name].inputs), {name}
    while stack and len(found) < MAX_BLOCKERS and len(seen) < 5000:
        cur = stack.pop(0)
        node = nodes.get(cur)
        if cur in seen or node is None or node.op == NodeOp.PLACEHOLDER or cur in saved:
            seen.add(cur)
            continue
        seen.add(cur)
        p = node.partition
        if p is not None and p.banned:
            found.append(
                S.Blocker(
                    name=cur,
                    op=short_op(node.original_aten or node.target),
                    module=node.module,
                    rule=p.rule,
                    function=node.autograd_function,
                )
            )
            continue
        stack.extend(node.inputs)
    return found


def _rule_words(rule: str | None) -> str:
    return f" ({rule})" if rule else ""


def save_cause(name: str, nodes: dict[str, S.Node], policy: S.Policy | None, saved: set[str], *, rng_state: bool) -> S.Cause:
    """Why a forward graph (its ``nodes`` by name) saved node ``name`` (``saved``: the names it saved; ``rng_state``:
    the value is an RNG state a random op's recompute replays)."""
    node = nodes[name]
    tag, region, function = traced_tag(node), checkpointed(node), node.autograd_function
    base = {"tag": tag, "checkpointed": region, "function": function, **_remat_fields(node)}
    if node.op == NodeOp.PLACEHOLDER:
        return S.Cause(kind=SaveCause.INPUT, text="a graph input: backward reads it as it is", **base)
    if rng_state or short_op(node.target) == "inductor_seeds":
        return S.Cause(kind=SaveCause.RNG_STATE, text="an RNG state saved to replay a random op in backward", **base)
    if node.backward_work:
        return S.Cause(
            kind=SaveCause.BACKWARD_WORK,
            text="backward work the partitioner placed in forward, saved instead of the values it is computed from",
            **base,
        )
    op = node.original_aten or node.target
    p = node.partition
    if node.recompute == CheckpointDecision.MUST_SAVE:
        return _tagged_cause(op, node, policy, base)
    words = tag_words(tag, region, function) + _checkpoint_words(node)
    if p is None:
        return S.Cause(
            kind=SaveCause.UNRECORDED,
            text=f"{words}; chosen by the min-cut partitioner (this run recorded none of its decisions)",
            **base,
        )
    short = short_op(op)
    if p.banned:
        return S.Cause(
            kind=SaveCause.NOT_RECOMPUTABLE,
            rule=p.rule,
            text=f"{words}, and the partitioner may not recompute {short}{_rule_words(p.rule)}",
            **base,
        )
    if p.memory_budget is not None:
        return S.Cause(
            kind=SaveCause.MEMORY_BUDGET,
            text=f"{words}; chosen by the activation memory budget ({p.memory_budget:g}): its knapsack keeps it",
            **base,
        )
    blockers = _blockers(name, nodes, saved)
    if blockers:
        needs = ", ".join(f"{b.op}{_rule_words(b.rule)}" for b in blockers)
        text = f"{words}; recomputing {short} needs {needs}, which the partitioner may not recompute, so the min cut keeps it"
    else:
        text = f"{words}; the min cut keeps {short}: cheaper than saving what recomputing it needs"
    return S.Cause(kind=SaveCause.MIN_CUT, blocked_by=blockers, text=text, **base)


def _tagged_cause(op: str | None, node: S.Node, policy: S.Policy | None, base: dict) -> S.Cause:
    """A value whose op carries MUST_SAVE: tagged by a partitioner pass, a torch_remat region or the SAC policy."""
    p = node.partition
    if p is not None and p.retagged_by:
        was = f" (traced {p.traced_tag})" if p.traced_tag else " (traced untagged)"
        return S.Cause(
            kind=SaveCause.PASS_TAG,
            rule=p.retagged_by,
            text=f"tagged MUST_SAVE by the partitioner's {p.retagged_by} pass before the cut{was}",
            **base,
        )
    if node.remat_region is not None and node.remat_recompute is False:
        return _region_cause(op, node, base)
    return _policy_cause(op, policy, base)


def _remat_fields(node: S.Node) -> dict:
    """The torch_remat region and checkpoint the node was traced in, as a cause's fields (none: outside them)."""
    out: dict = {}
    if node.remat_region is not None:
        out["region"], out["region_recompute"] = node.remat_region, node.remat_recompute
    if node.remat_checkpoint is not None:
        out["region_checkpoint"] = node.remat_checkpoint
    return out


def _checkpoint_words(node: S.Node) -> str:
    """Where a value not kept by a region's tag was traced, in torch_remat's terms (empty outside its regions)."""
    if node.remat_region is not None:
        choice = "recompute=True" if node.remat_recompute else "recompute=False"
        inside = f" of checkpoint '{node.remat_checkpoint}'" if node.remat_checkpoint else ""
        return f", in torch_remat region '{node.remat_region}'{inside} ({choice})"
    if node.remat_checkpoint is not None:
        return f", in torch_remat checkpoint '{node.remat_checkpoint}' (which recomputes by default)"
    return ""


def _region_cause(op: str | None, node: S.Node, base: dict) -> S.Cause:
    """A value a torch_remat region kept: its ``recompute=False`` made torch_remat tag the region's ops MUST_SAVE."""
    inside = f" of checkpoint '{node.remat_checkpoint}'" if node.remat_checkpoint else ""
    said = flag_op(op) if op else "its op"
    return S.Cause(
        kind=SaveCause.REGION_TAG,
        text=(
            f"saved because torch_remat region '{node.remat_region}'{inside} is recompute=False "
            f"(torch_remat tagged {said} MUST_SAVE)"
        ),
        **base,
    )


def _policy_cause(op: str | None, policy: S.Policy | None, base: dict) -> S.Cause:
    name, said = (policy.name if policy else "?"), (flag_op(op) if op else op)
    in_list = policy is not None and (policy.default == PolicyDefault.SAVE or op in (policy.save_ops or []))
    if in_list:
        return S.Cause(
            kind=SaveCause.POLICY_TAG,
            policy_op=op,
            text=f"tagged MUST_SAVE by SAC policy '{name}' ({said} is in its save list)",
            **base,
        )
    return S.Cause(
        kind=SaveCause.POLICY_TAG,
        text=f"tagged MUST_SAVE by SAC policy '{name}' on {said} (traced from a saved op through a tensor subclass)",
        **base,
    )


def cause_key(cause: S.Cause | None) -> tuple | None:
    """What tells two causes apart (their words apart): values kept for different reasons are never one group."""
    if cause is None:
        return None
    return (
        cause.kind,
        cause.rule,
        cause.tag,
        cause.checkpointed,
        cause.function,
        cause.policy_op,
        cause.region,
        cause.region_recompute,
        cause.region_checkpoint,
    )
