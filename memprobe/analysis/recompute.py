"""What a partition recomputes in backward, and what that costs (an estimate from the graphs).

Nodes the partitioner copied from the forward region into the backward graph keep their
SAC tag (``recompute``); gradient nodes have none. Their cost: 2*M*N*K FLOPs for a matmul,
one per output element for anything else; bytes moved: inputs read plus output written.
"""

from __future__ import annotations

from collections import Counter

from ..rundir import schema as S
from ..vocab import NodeOp
from .saved import GraphPair, numel, short_op

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
        for n in pair.backward.nodes:
            if n.op != NodeOp.CALL_FUNCTION or not n.recompute:
                continue
            f, b = node_cost(n, nodes)
            flops += f * n_calls
            moved += b * n_calls
            ops[short_op(n.target)] += n_calls
    return S.RecomputeCost(flops=flops, bytes_moved=moved, ops=dict(ops.most_common()))
