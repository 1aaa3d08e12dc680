"""What a partition recomputes in backward (the values, and what that costs: an estimate from the graphs).

A value a backward graph computes from the saved values alone (no gradient flows into it) is recomputed: the
partitioner copied it from the forward (it keeps the forward node's name), or backward's own code (an
autograd.Function's backward, torchao's cast of the weight) computes it again.

The cost of a partition's recompute counts the forward nodes the partitioner copied into the backward graph (a
backward node named as a node of the forward: the partitioned graphs keep the joint graph's names), tagged or not
(a memory budget recomputes untagged ones): 2*M*N*K FLOPs for a matmul, one per output element for anything else;
bytes moved: inputs read plus output written.
"""

from __future__ import annotations

from collections import Counter

from ..rundir import schema as S
from ..vocab import NodeOp
from .causes import checkpointed, short_op
from .saved import GraphPair, Provenance, UserView, numel

MATMULS = {"mm", "_scaled_mm", "addmm", "bmm", "matmul"}


def node_cost(node: S.Node, nodes: dict[str, S.Node]) -> tuple[int, int]:
    """(FLOPs, bytes moved) of one node, estimated from shapes."""
    op = short_op(node.target)
    inputs = [nodes[i] for i in node.inputs if i in nodes]
    moved = (node.bytes or 0) + sum(i.bytes or 0 for i in inputs)
    if op in MATMULS and len(inputs) >= 2 and inputs[0].shape and inputs[1].shape:
        a, b = inputs[0].shape, inputs[1].shape
        if op == "addmm" and len(inputs) >= 3:
            a, b = inputs[1].shape, inputs[2].shape
        m, k, n = numel(a[:-1]), numel(a[-1:]), numel(b[-1:])
        if None in (m, k, n):  # a symbolic size: the estimate leaves this node out
            return 0, moved
        return 2 * m * k * n, moved
    return numel(node.shape) or 0, moved


def recompute_cost(pairs: dict[int, GraphPair], invocations: list[S.Invocation]) -> S.RecomputeCost:
    """FLOPs and bytes of the forward ops each step recomputes in backward (all calls)."""
    calls = Counter(inv.dynamo_graph for inv in invocations)
    flops = moved = 0
    ops: Counter = Counter()
    for index, n_calls in calls.items():
        pair = pairs.get(index)
        if pair is None or pair.backward is None:
            continue
        nodes = {n.name: n for n in pair.backward.nodes}
        copied = {n.name for n in pair.forward.nodes if n.op == NodeOp.CALL_FUNCTION}
        for n in pair.backward.nodes:
            if n.op != NodeOp.CALL_FUNCTION or n.name not in copied:
                continue
            f, b = node_cost(n, nodes)
            flops += f * n_calls
            moved += b * n_calls
            ops[short_op(n.target)] += n_calls
    return S.RecomputeCost(flops=flops, bytes_moved=moved, ops=dict(ops.most_common()))


# -- what backward recomputes ------------------------------------------------------------------------------


def merged_pair(pair: GraphPair) -> GraphPair:
    """A pair whose forward holds the backward's nodes too: each backward node by its name (a node the partitioner
    copied keeps its forward name), its inputs named as the forward names them (a saved value is a backward
    placeholder of the same name), so a recomputed node's op chain and roots reach the forward's graph inputs."""
    nodes = list(pair.forward.nodes)
    known = {n.name for n in nodes}
    for n in pair.backward.nodes if pair.backward else []:
        if n.name not in known and n.op != NodeOp.OUTPUT:
            nodes.append(n)
            known.add(n.name)
    merged = S.GraphFile.model_construct(graph_id=pair.forward.graph_id, nodes=nodes)
    return GraphPair(dynamo_graph=pair.dynamo_graph, forward=merged, backward=pair.backward, inputs=pair.inputs)


def recomputed_values(pair: GraphPair, blocks: list[str], arguments: list[str] | None, code_files) -> list[S.RecomputedValue]:
    """The values ``pair``'s backward computes from the saved values alone (no tangent upstream), each once; views,
    constants and backward work apart."""
    if pair.backward is None:
        return []
    forward_names = {n.name for n in pair.forward.nodes if n.op == NodeOp.CALL_FUNCTION}
    tangent = _from_tangents(pair.backward.nodes)
    prov = Provenance(merged_pair(pair), arguments)
    users = UserView(prov, code_files)
    out = []
    for n in pair.backward.nodes:
        if not _may_recompute(n, tangent):
            continue
        roots = sorted(prov.roots(n.name))
        if not roots:
            continue  # a constant (the zeros a gradient starts from), computed from nothing
        out.append(
            S.RecomputedValue(
                graph=pair.backward.graph_id,
                name=n.name,
                op=short_op(n.original_aten or n.target),
                expr=prov.expr(n.name, None),
                roots=[prov.root_label(r, None) for r in roots],
                shape=n.shape,
                dtype=n.dtype,
                bytes=n.bytes,
                tag=n.recompute,
                checkpointed=checkpointed(n),
                function=n.autograd_function,
                copied=n.name in forward_names,
                user=users.describe(n.name, None),
                blocks=blocks,
            )
        )
    return out


def _from_tangents(backward: list[S.Node]) -> set[str]:
    """The backward's nodes computed from a tangent (the gradient flowing in), the tangents included."""
    tangent: set[str] = set()
    for n in backward:  # graph order: a node's inputs come before it
        if n.op == NodeOp.PLACEHOLDER and n.name.startswith("tangents_"):
            tangent.add(n.name)
        elif any(i in tangent for i in n.inputs):
            tangent.add(n.name)
    return tangent


def _may_recompute(n: S.Node, tangent: set[str]) -> bool:
    """A backward node that may recompute a forward value: a call with bytes, computed from no tangent, not a view
    (a view costs nothing) nor backward work (a gradient's mask recomputes no forward value)."""
    if n.op != NodeOp.CALL_FUNCTION or n.name in tangent or n.target == "getitem" or not n.bytes:
        return False
    return short_op(n.target) not in _VIEW_OPS and not n.backward_work


# the aten ops whose result views its input's storage: recomputing one costs no memory and no work
_VIEW_OPS = frozenset(
    (
        "view",
        "_unsafe_view",
        "reshape",
        "permute",
        "t",
        "transpose",
        "expand",
        "squeeze",
        "unsqueeze",
        "slice",
        "select",
        "alias",
        "as_strided",
        "split",
        "split_with_sizes",
        "unbind",
        "narrow",
        "view_as_real",
        "view_as_complex",
        "unfold",
        "diagonal",
        "detach",
    )
)


def recomputed_in_run(
    pairs: dict[int, GraphPair], invocations: list[S.Invocation], model: S.ModelShape | None
) -> list[S.RecomputedValue]:
    """What each backward graph the measured step called recomputes (:func:`recomputed_values`), with the blocks whose
    calls ran it."""
    blocks: dict[int, list[str]] = {}
    for inv in invocations:
        called = blocks.setdefault(inv.dynamo_graph, [])
        if inv.block is not None and inv.block not in called:
            called.append(inv.block)
    arguments = model.block_arguments if model else None
    code_files = frozenset((model.code_files if model else None) or ())
    out: list[S.RecomputedValue] = []
    for index, called in blocks.items():
        pair = pairs.get(index)
        if pair is not None:
            out += recomputed_values(pair, called, arguments, code_files)
    return out
