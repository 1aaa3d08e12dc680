"""Findings about what the compiler decided: checkpointed blocks that save more than their inputs, values saved
because the partitioner may not recompute their op, and values one block saves and another does not.

Each reads the causes recorded per saved value (:mod:`memprobe.analysis.causes`) and, for blocks that differ, the
blocks' own graphs: which inputs required grad, which tag each op was traced with, what each backward recomputes.
No rule matches a name in a string.
"""

from __future__ import annotations

from collections import defaultdict

from ..checkpointing.base import recompute_all
from ..config import ProbeConfig
from ..rundir import schema as S
from ..units import fmt_bytes
from ..vocab import CheckpointDecision, FindingKind, NodeOp, SaveCause
from .evidence import Evidence
from .saved import MODULE_STATE, GraphPair, Provenance, SavedGroup, group_key, group_rows, input_label, label, layer_pattern

# the causes that say what a value is, not a decision: a block's inputs and the RNG states it replays
_NOT_DECIDED = (SaveCause.INPUT, SaveCause.RNG_STATE)
# the causes by which the partitioner kept a value it may not, or would not, recompute
_PARTITIONER_KEPT = (SaveCause.NOT_RECOMPUTABLE, SaveCause.MIN_CUT)
RECOMPUTE_ALL = recompute_all("").flag


def _finding(**fields) -> S.Finding:
    return S.Finding(**{k: S.clip(v) if isinstance(v, str) else v for k, v in fields.items()})


def finding_items(groups: list[SavedGroup]) -> list[S.FindingItem]:
    """The values of a grouped finding, one per row of the saved table, each by its one name."""
    return [
        S.FindingItem(
            label=label(g),
            expr=g.expr,
            bytes=g.bytes,
            count=g.count,
            bytes_each=g.bytes_each,
            dtype=g.dtype,
            shape=g.shape,
            module=g.user.module if g.user else None,
        )
        for g in groups
    ]


def _items(rows: list[S.SavedRow]) -> list[S.FindingItem]:
    return finding_items(group_rows(rows))


def _where(row: S.SavedRow) -> str:
    """Where a value was made, in the user's terms: its module, line, and the autograd.Function it is inside."""
    parts = []
    if row.user and row.user.module:
        parts.append(layer_pattern(row.user.module))
    if row.user and row.user.source:
        parts.append(row.user.source.split("  ", 1)[0])
    text = ", ".join(parts)
    if row.cause and row.cause.function:
        return f"inside autograd.Function {row.cause.function}" + (f" ({text})" if text else "")
    return text


def _lost_tag_fix(config: ProbeConfig) -> tuple[str, str | None]:
    """The fix for values a checkpointed region's tag did not reach: a per-op policy that tags every op as it runs (the
    SAC dispatch mode reaches ops a region's tagging does not), in place of the blocks memprobe checkpoints whole (--ac
    full) or around the regions the model checkpoints itself (--ac none); a script's is its own code to change."""
    if not config.target.fixed_by_flags:
        return (
            "tag the ops for recompute in your script: a checkpoint with a context_fn that tags every op it runs "
            "(create_selective_checkpoint_contexts), or a torch whose checkpointing tags the ops inside autograd.Function",
            None,
        )
    if config.mode.whole_regions or config.mode.own_regions_judged:
        return f"a per-op policy that tags every op it runs for recompute ({RECOMPUTE_ALL})", RECOMPUTE_ALL
    return "tag the ops for recompute (a torch whose checkpointing tags the ops inside autograd.Function)", None


def _decided(row: S.SavedRow) -> bool:
    """A value saved by a decision: neither the module's own state nor a block's input or the RNG state it replays."""
    return row.kind not in MODULE_STATE and row.cause is not None and row.cause.kind not in _NOT_DECIDED


def _input_bytes(rows: list[S.SavedRow]) -> int:
    """What the blocks save that is their inputs and RNG states (the module's own state apart)."""
    return sum(r.bytes for r in rows if r.cause is not None and r.cause.kind in _NOT_DECIDED and r.kind not in MODULE_STATE)


def _largest_part(rows: list[S.SavedRow]) -> list[S.SavedRow]:
    """The rows of the cause (its kind, rule, tag, region and autograd.Function) that saves the most bytes."""
    by_cause: dict[tuple, list[S.SavedRow]] = defaultdict(list)
    for r in rows:
        by_cause[(r.cause.kind, r.cause.rule, r.cause.tag, r.cause.checkpointed, r.cause.function)].append(r)
    return max(by_cause.values(), key=lambda p: sum(r.bytes for r in p))


def _op(row: S.SavedRow) -> str:
    """The op that made a value: its user-level call's, else its graph node's."""
    return row.user.op if row.user else row.op


def _plural(n: int) -> str:
    return "s" if n != 1 else ""


def _flag_field(flag: str | None) -> dict:
    """A finding's ``flag`` field, set only when there is one."""
    return {"flag": flag} if flag else {}


def _beyond_inputs(rows: list[S.SavedRow], config: ProbeConfig) -> list[S.SavedRow]:
    """What checkpointed regions save beyond their inputs and RNG states: under --ac full every decided value of the
    blocks memprobe checkpoints whole; without memprobe's checkpointing (--ac none, a script), the decided values the
    compiler traced inside a region the model or script checkpoints itself (whatever wrapper made it), read from each
    value's recorded cause, never from a name. Not what the region's own SAC policy or torch_remat region tagged
    MUST_SAVE (its choice), nor
    a region's output a partitioner pass kept for the next region (that region's input)."""
    if config.mode.whole_regions:
        return [r for r in rows if _decided(r)]
    if not config.mode.own_regions_judged:
        return []
    own_choice = (SaveCause.POLICY_TAG, SaveCause.PASS_TAG, SaveCause.REGION_TAG)
    return [r for r in rows if _decided(r) and r.cause.checkpointed and r.cause.kind not in own_choice]


def checkpoint_saves_more(rows: list[S.SavedRow], config: ProbeConfig, totals: S.SavedTotals) -> list[S.Finding]:
    """Checkpointed regions whose compiled forward saves more than their inputs and RNG states: the blocks --ac full
    checkpoints whole, or the regions the model or script checkpoints itself."""
    extra = _beyond_inputs(rows, config)
    if not extra:
        return []
    inputs = _input_bytes(rows)
    total = sum(r.bytes for r in extra)
    part = _largest_part(extra)
    top = part[0]
    blocks = sorted({r.block for r in extra if r.block})
    items = _items(extra)
    lost = top.cause.tag is None and top.cause.checkpointed
    fix, flag = _lost_tag_fix(config) if lost else ("see each value's cause (`memprobe show RUN --wide`)", None)
    times = f", {total / inputs:.1f}x their inputs" if inputs else ""
    what = f"{_op(top)}() {_where(top)}".strip()
    ours = config.mode.whole_regions
    regions = "checkpointed blocks" if ours else "regions your code checkpoints"
    why = (
        "--ac full checkpoints every block, so each block's compiled forward should save only its inputs (and the RNG "
        "states of random ops)"
        if ours
        else "a region your code checkpoints (torch.utils.checkpoint, checkpoint_wrapper or a class of its own) asks for "
        "everything inside it to be recomputed, so its compiled forward should save only the region's inputs (and the "
        "RNG states of random ops)"
    )
    return [
        _finding(
            kind=FindingKind.CHECKPOINT_SAVES_MORE,
            bytes=total,
            expr=items[0].expr,
            label=items[0].label,
            count=len(extra),
            items=items,
            what=f"what the {regions} save beyond their inputs ({what})",
            summary=(
                f"{fmt_bytes(total)} of the {fmt_bytes(totals.graph_bytes or 0)} saved for backward per step are saved by "
                f"{regions} beyond their inputs and RNG states ({len(blocks)} block{_plural(len(blocks))}"
                f"{times}); the largest is {what}: {top.cause.text}"
            ),
            fix=fix,
            **_flag_field(flag),
            message=(
                f"{why}: {', '.join(blocks) or 'the blocks'} save {fmt_bytes(total)} more{times}. "
                f"The largest part, {fmt_bytes(sum(r.bytes for r in part))}: {what}, {top.cause.text}."
            ),
            detail="A value a checkpointed region saves although the region asked for recompute is memory checkpointing was "
            "meant to free; each value's cause (report.json saved_tensors[].cause) says which decision kept it.",
            hint=fix,
        )
    ]


def _kept_untagged(row: S.SavedRow) -> bool:
    """A value the partitioner kept inside a checkpointed region whose tag did not reach its op."""
    cause = row.cause
    return cause is not None and cause.kind in _PARTITIONER_KEPT and cause.checkpointed and cause.tag is None


def unrecomputable_saved(rows: list[S.SavedRow], config: ProbeConfig, totals: S.SavedTotals) -> list[S.Finding]:
    """Values inside a checkpointed region whose op was left untagged and that the partitioner may not recompute, so
    it saved them (or saved what they are computed from): under per-op SAC (under --ac full,
    :func:`checkpoint_saves_more` names them)."""
    if not config.mode.policy:
        return []
    parts: dict[tuple, list[S.SavedRow]] = defaultdict(list)
    for r in rows:
        if _kept_untagged(r):
            parts[(r.cause.function, r.cause.kind, r.cause.rule, _op(r))].append(r)
    ranked = sorted(parts.items(), key=lambda kv: -sum(r.bytes for r in kv[1]))
    return [_unrecomputable(op, part, config, totals) for (_function, _kind, _rule, op), part in ranked]


def _unrecomputable(op: str, part: list[S.SavedRow], config: ProbeConfig, totals: S.SavedTotals) -> S.Finding:
    """The finding for the values of one op (one cause) the partitioner kept although a checkpointed region holds them."""
    total = sum(r.bytes for r in part)
    items = _items(part)
    top = part[0]
    what = f"{op}() {_where(top)}".strip()
    fix, flag = _lost_tag_fix(config)
    return _finding(
        kind=FindingKind.UNRECOMPUTABLE_SAVED,
        bytes=total,
        expr=items[0].expr,
        label=items[0].label,
        count=len(part),
        items=items,
        what=what,
        summary=(
            f"{fmt_bytes(total)} of the {fmt_bytes(totals.graph_bytes or 0)} saved for backward per step "
            f"{'are' if len(part) > 1 else 'is'} {what} ({len(part)} value{_plural(len(part))}): "
            f"{top.cause.text}"
        ),
        fix=fix,
        **_flag_field(flag),
        message=f"{what} is saved although it is inside a checkpointed region: {top.cause.text}.",
        detail="The region's recompute tag did not reach its ops, so the partitioner judged them by its own rules.",
        hint=fix,
    )


# -- blocks that differ ---------------------------------------------------------------------------------------


def _bare(value_id: str) -> str:
    return value_id.partition("#")[0]


def _graph_of_block(invocations: list[S.Invocation]) -> dict[str, int]:
    out: dict[str, int] = {}
    for inv in invocations:
        if inv.block is not None:
            out.setdefault(inv.block, inv.dynamo_graph)
    return out


def _grad_inputs(pair: GraphPair) -> dict[str, bool]:
    return {i.fqn: i.requires_grad for i in pair.inputs if i.requires_grad is not None}


def _node_of(prov: Provenance, value_id: str) -> S.Node | None:
    """The node of a forward graph that computes the value (by its identity, whatever layer)."""
    for n in prov.pair.forward.nodes:
        if n.op == NodeOp.CALL_FUNCTION and prov.identity(n.name) == value_id:
            return n
    return None


def _why_not(
    prov: Provenance, pair: GraphPair, saving: GraphPair, saving_node: S.Node, node: S.Node, policy: S.Policy | None
) -> tuple[str, bool]:
    """Why a block whose graph computes a value does not save it, where another block's graph does; and whether that is
    an input of it that requires no grad (nothing is wasted then)."""
    grads, theirs = _grad_inputs(pair), _grad_inputs(saving)
    no_grad = [fqn for fqn, g in grads.items() if not g and theirs.get(fqn)]
    if no_grad:
        names = ", ".join(input_label(f) for f in no_grad)
        return f"its {names} requires no grad, so its backward computes no gradient for it and needs no such value", True
    differs = [fqn for fqn, g in grads.items() if theirs.get(fqn) is not None and theirs[fqn] != g]
    if differs:
        return f"which of its inputs require grad differs ({', '.join(input_label(f) for f in differs)})", False
    if node.recompute != saving_node.recompute:
        return _tags_differ(node, saving_node, policy), False
    return "its backward does not need it (the other block's does)", False


def _tags_differ(node: S.Node, saving_node: S.Node, policy: S.Policy | None) -> str:
    """Two blocks' graphs tag the value's op differently: the tags, and the policy's rule behind them when it is the
    one that recomputes every second aten.mm."""
    rule = ""
    mm = policy is not None and policy.mm_every_second_recomputed and node.recompute == CheckpointDecision.PREFER_RECOMPUTE
    if mm:
        rule = ": the policy's rule that every second aten.mm of a block is recomputed"
    return f"its op is tagged {node.recompute or 'nothing'} there and {saving_node.recompute or 'nothing'} here{rule}"


def uneven_blocks(
    rows: list[S.SavedRow],
    pairs: dict[int, GraphPair],
    invocations: list[S.Invocation],
    policy: S.Policy | None,
    model: S.ModelShape | None,
    broken: set[str] = frozenset(),
) -> list[S.Finding]:
    """A value some blocks save and others, whose graphs compute it too, do not: with the difference between their
    graphs that explains it (an input that requires no grad, another tag, the policy's rule). A block Dynamo graph-broke
    on (``broken``) is left out: its graphs hold part of its code, and the break is its own finding."""
    graph_of = {b: g for b, g in _graph_of_block(invocations).items() if b not in broken}
    if len(set(graph_of.values())) < 2:
        return []  # one graph for every block: the blocks decide alike
    arguments = model.block_arguments if model else None
    blocks = _Blocks(graph_of, pairs, {i: Provenance(p, arguments) for i, p in pairs.items()}, policy)
    by_value: dict[str, list[S.SavedRow]] = defaultdict(list)
    for r in rows:
        if _decided(r) and r.value_id:
            by_value[group_key(r)].append(r)
    out = []
    for value_id, part in by_value.items():
        reasons = blocks.why_not_saved(value_id, part)
        if reasons:
            out.append(_uneven(part, reasons))
    return out


class _Blocks:
    """A run's blocks: the graph each ran (``graph_of``), the graphs' pairs and provenance, and the policy."""

    def __init__(self, graph_of: dict[str, int], pairs: dict[int, GraphPair], provs: dict[int, Provenance], policy):
        self.graph_of, self.pairs, self.provs, self.policy = graph_of, pairs, provs, policy

    def why_not_saved(self, value_id: str, part: list[S.SavedRow]) -> list[tuple[str, tuple[str, bool]]]:
        """For each block that runs another graph than the blocks saving the value (``part``, its rows) and whose graph
        computes it too: (the block, why it does not save it)."""
        saving = {r.block for r in part}
        others = [b for b in self.graph_of if b not in saving]
        if not others:
            return []
        own = self.graph_of[part[0].block]
        ref = self.provs.get(own)
        reasons = []
        for block in others:
            index = self.graph_of[block]
            if index == own:
                continue
            prov = self.provs.get(index)
            node = _node_of(prov, _bare(value_id)) if prov is not None else None
            if node is None or ref is None:
                continue  # that block's graph does not compute it: not the same code
            why = _why_not(prov, self.pairs[index], self.pairs[own], ref.nodes[part[0].name], node, self.policy)
            reasons.append((block, why))
        return reasons


def _uneven(part: list[S.SavedRow], reasons: list[tuple[str, tuple[str, bool]]]) -> S.Finding:
    items = _items(part)
    name = label(part[0])
    saving = sorted({r.block for r in part if r.block})
    block, (why, no_grad) = reasons[0]
    missing = [b for b, _ in reasons]
    if no_grad:  # the block computes no gradient for that input: nothing is wasted
        fix = f"none needed: {block} computes no gradient for its input, so it needs no {name}"
    else:
        fix = f"compare the recompute tags of {block}'s graph with {saving[0]}'s (report.json graphs, each node's tag)"
    total = sum(r.bytes for r in part)
    return _finding(
        kind=FindingKind.UNEVEN_BLOCKS,
        bytes=total,
        expr=items[0].expr,
        label=name,
        count=len(part),
        items=items,
        what=f"{name} saved by {', '.join(saving)} and not by {', '.join(missing)}",
        summary=f"{name} is saved by {', '.join(saving)} ({fmt_bytes(total)}) and not by {', '.join(missing)}: in {block}, {why}",
        message=(
            f"{name} is saved for backward by {', '.join(saving)} but not by {', '.join(missing)}, whose compiled graph "
            f"computes it too: in {block}, {why}."
        ),
        detail="Blocks of one model compile to different graphs when their inputs differ (the first block's input "
        "usually requires no grad) or when a policy decides by position; their saved values then differ.",
        hint=fix,
        fix=fix,
    )


def decision_findings(run: Evidence, broken: set[str] = frozenset()) -> list[S.Finding]:
    """The findings of this module for one run (the uneven blocks' only where its graphs and calls are given;
    ``broken``: the blocks Dynamo graph-broke on)."""
    rows, config, totals = run.rows, run.config, run.totals
    found = checkpoint_saves_more(rows, config, totals) + unrecomputable_saved(rows, config, totals)
    if run.pairs is not None and run.invocations is not None:
        found += uneven_blocks(rows, run.pairs, run.invocations, run.policy, run.model, broken)
    return found
