"""What the installed torch's partitioner decided about each node of a joint graph, read from its own work.

AOTAutograd splits a joint forward/backward graph with the min-cut partitioner
(``torch._functorch.partitioners``): before the cut, passes retag some nodes MUST_SAVE (the boundary of two
checkpointed regions, collectives, effectful ops); then ``solve_min_cut`` builds a flow graph in which every
node it may not recompute gets an edge from the source (with the rule that banned it, in the installed torch's
own words: ``not in recomputable allowlist``, ``random op``, ``compute intensive op``, ...), every node its SAC
tag makes recomputed an edge to the sink, and cuts it (``networkx.minimum_cut``).

:class:`PartitionRecorder` watches that work while a graph compiles, without copying any of its rules: it
wraps the passes by their names in the installed torch's module (so each side of a version diff is judged by
its own torch) and reads the flow graph handed to ``networkx.minimum_cut``. A pass or an edge attribute an
older torch lacks is simply not recorded. Per node name of the joint graph (the partitioned graphs keep its
names), it records:

- ``banned``: the partitioner may not recompute it; ``rule``: why, as the installed torch says (absent when that
  torch names no reason);
- ``must_recompute``: its tag makes the partitioner recompute it;
- ``cannot_save``: why it may not be saved;
- ``retagged_by``: the partitioner pass that made it MUST_SAVE before the cut, with ``traced_tag``, the tag it
  was traced with;
- ``memory_budget``: the activation memory budget in force, when it is below 1 (the knapsack then chose).
"""

from __future__ import annotations

import functools
from contextlib import ExitStack, contextmanager

from ..rundir import records as R

# the partitioner's passes that may retag a node MUST_SAVE before the cut (each looked up in the installed torch)
RETAGGING_PASSES = ("cleanup_recompute_tags", "force_save_collectives", "force_save_effectful_ops", "force_save_bw_mutation_src")
_IN, _OUT = "_in", "_out"


def _tag_name(node) -> str | None:
    tag = node.meta.get("recompute")
    return getattr(tag, "name", None) if tag is not None else None


class PartitionRecorder:
    """Records the partitioner's decisions of the graphs compiled inside :meth:`recording`."""

    def __init__(self) -> None:
        self.nodes: dict[str, R.NodePartition] = {}  # the last partition's decisions, by node name
        self._traced: dict[str, str | None] | None = None  # tags before the first retagging pass

    def take(self) -> dict[str, R.NodePartition]:
        """The decisions recorded since the last take (a graph's), and a fresh start for the next graph."""
        nodes, self.nodes, self._traced = self.nodes, {}, None
        return nodes

    @contextmanager
    def recording(self):
        try:
            import networkx
            from torch._functorch import partitioners
        except ImportError:  # a torch without the min-cut partitioner (or without networkx): nothing to read
            yield self
            return
        with ExitStack() as stack:
            for name in RETAGGING_PASSES:
                if callable(getattr(partitioners, name, None)):
                    stack.enter_context(_patched(partitioners, name, self._retagging(name, getattr(partitioners, name))))
            stack.enter_context(_patched(networkx, "minimum_cut", self._cut(networkx.minimum_cut)))
            yield self

    # -- the passes before the cut --------------------------------------------------------------------------
    def _retagging(self, pass_name: str, original):
        @functools.wraps(original)
        def run(joint_module, *args, **kwargs):
            graph = getattr(joint_module, "graph", None)
            before = {n.name: _tag_name(n) for n in graph.nodes} if graph is not None else {}
            if self._traced is None:
                self._traced = dict(before)
            result = original(joint_module, *args, **kwargs)
            for n in graph.nodes if graph is not None else ():
                tag = _tag_name(n)
                if tag == "MUST_SAVE" and before.get(n.name) != "MUST_SAVE":
                    entry = self.nodes.setdefault(n.name, R.NodePartition())
                    entry.retagged_by = pass_name
                    entry.traced_tag = self._traced.get(n.name)
            return result

        return run

    # -- the cut ------------------------------------------------------------------------------------------
    def _cut(self, original):
        @functools.wraps(original)
        def cut(flow, source, sink, *args, **kwargs):
            if source == "source" and sink == "sink":
                self._read_flow_graph(flow)
            return original(flow, source, sink, *args, **kwargs)

        return cut

    def _read_flow_graph(self, flow) -> None:
        """The decisions the partitioner's flow graph holds (its last cut of a graph wins: with a memory budget the
        partitioner cuts several times, the last one with the nodes the budget lets it recompute unbanned)."""
        nodes = {  # what the passes before the cut retagged (an earlier cut's decisions are dropped)
            name: R.NodePartition(retagged_by=e.retagged_by, traced_tag=e.traced_tag)
            for name, e in self.nodes.items()
            if e.retagged_by is not None
        }
        for u, v, data in flow.edges(data=True):
            _read_edge(nodes, u, v, data.get("reason"))
        budget = _memory_budget()
        for name in {u[: -len(_IN)] for u in flow.nodes if isinstance(u, str) and u.endswith(_IN)}:
            entry = nodes.setdefault(name, R.NodePartition())
            if entry.banned is None:
                entry.banned = False
            if budget is not None:
                entry.memory_budget = budget
        self.nodes = nodes


def _read_edge(nodes: dict[str, R.NodePartition], u, v, reason) -> None:
    """What one edge of the flow graph says about a node: banned from recompute (an edge from the source, with the
    rule), recomputed by its tag (an edge to the sink), or not to be saved (its in-out edge)."""
    text = str(reason) if reason else ""
    if u == "source" and v.endswith(_IN):
        entry = nodes.setdefault(v[: -len(_IN)], R.NodePartition())
        entry.banned = True
        rule = text.removeprefix("cannot recompute").lstrip(": ")
        if rule:
            entry.rule = rule
    elif v == "sink" and u.endswith(_IN) and text.startswith("must recompute"):
        nodes.setdefault(u[: -len(_IN)], R.NodePartition()).must_recompute = True
    elif u.endswith(_IN) and v == u[: -len(_IN)] + _OUT and text.startswith("cannot save"):
        nodes.setdefault(u[: -len(_IN)], R.NodePartition()).cannot_save = text.removeprefix("cannot save").lstrip(": ")


def _memory_budget() -> float | None:
    """The activation memory budget in force, when it is below 1 (at 1 the partitioner optimizes runtime alone)."""
    try:
        from torch._functorch import config
    except ImportError:
        return None
    budget = getattr(config, "activation_memory_budget", 1.0)
    return float(budget) if budget is not None and budget < 1.0 else None


@contextmanager
def _patched(owner, name: str, value):
    original = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, original)


# -- the autograd.Function a node was traced inside -----------------------------------------------------------


class FunctionIndex:
    """Where each ``torch.autograd.Function``'s forward lives (file and lines), to name the Function a node's stack
    passes through: Dynamo records that a node was traced inside an ``autograd.function``, not which one."""

    def __init__(self) -> None:
        import torch

        self.by_file: dict[str, list[tuple[int, int, str]]] = {}
        stack, seen = list(torch.autograd.Function.__subclasses__()), set()
        while stack:
            cls = stack.pop()
            if cls in seen:
                continue
            seen.add(cls)
            stack.extend(cls.__subclasses__())
            fn = cls.__dict__.get("forward")
            code = getattr(getattr(fn, "__func__", fn), "__code__", None)
            if code is None:
                continue
            lines = [line for _, _, line in code.co_lines() if line]
            first, last = min(lines, default=code.co_firstlineno), max(lines, default=code.co_firstlineno)
            self.by_file.setdefault(code.co_filename, []).append((first, last, cls.__qualname__))

    def function_of(self, frames) -> str | None:
        """The innermost Function forward among ``frames`` (outermost first), by its qualified name."""
        for f in reversed(frames):
            for first, last, name in self.by_file.get(f.file, ()):
                if first <= f.line <= last:
                    return name
        return None
