"""What is alive at the backward phase's peak inside the compiled backward graphs, named.

On the CPU each compiled call's backward runs inside a profiler range (``memprobe::call gN.backward K``), and the
allocations it makes are matched in order and size to its output code's ``empty_strided`` statements
(:mod:`.cpu_attribution`). On CUDA the allocator's history names a block by the output-code line in its stack
(:mod:`.snapshot`); the k-th backward call of a graph is its k-th forward invocation from the last. At the backward
phase's peak, each live allocation so matched is a buffer of a backward graph: a temporary (freed before the graph
returns) or a gradient it returned. A buffer is traced to the
FX nodes the kernels writing and reading it compute (Inductor's "source nodes": a backward node's own name, or the
Dynamo node a recomputed one was traced from), their ops and the user's lines, and it is a recompute when one of
those nodes is a value the backward recomputes (report.json ``recomputed``). Every byte is measured; the buffers,
the gradients and the rest add up to the measured peak.
"""

from __future__ import annotations

from ..rundir import schema as S
from ..vocab import LiveRole, Phase
from .cpu_attribution import CpuEvents, name_cpu_events
from .frames import frame_text, is_library, parse_stack
from .saved import GraphPair
from .snapshot import BackwardLive


def backward_peak(report: S.Report, pairs: dict[int, GraphPair]) -> S.BackwardPeak | None:
    """The compiled backward graphs' buffers alive at the backward phase's peak, from the CPU profiler's events; None
    without a measured backward peak or without a backward graph call alive there."""
    phase = (report.attribution.phases or {}).get("backward") if report.attribution else None
    events = name_cpu_events(report)
    if phase is None or events is None or phase.event_index is None or phase.event_index < 0:
        return None
    buffers, other = _buffers_at(events, phase.event_index, _Graphs(report, pairs))
    return _peak(phase.peak_bytes, phase.event_index, buffers, other, tolerance=0)


def backward_peak_on_device(report: S.Report, pairs: dict[int, GraphPair], live: BackwardLive) -> S.BackwardPeak | None:
    """The same from the allocator's history (CUDA): the blocks alive at backward's replayed peak. Its peak is the
    allocator's measured one; the tolerance, how far the replay's peak is from it (0 where the replay is exact)."""
    graphs = _Graphs(report, pairs)
    buffers = [graphs.buffer(b, nbytes) for b, nbytes in live.buffers]
    measured = report.memory.phases.get(Phase.BACKWARD) if report.memory and report.memory.phases else None
    peak = measured.peak_bytes if measured is not None else live.peak_bytes
    return _peak(peak, live.event_index, buffers, live.other_bytes, tolerance=abs(peak - live.peak_bytes))


def _peak(peak_bytes: int, event_index: int, buffers: list[S.TransientBuffer], other: int, *, tolerance: int):
    if not buffers:
        return None
    transient = [b for b in buffers if b.role == LiveRole.TEMPORARY]
    recomputed = sum(b.bytes for b in transient if b.recomputed)
    temporary = sum(b.bytes for b in transient) - recomputed
    return S.BackwardPeak(
        peak_bytes=peak_bytes,
        event_index=event_index,
        transient_bytes=recomputed + temporary,
        recomputed_bytes=recomputed,
        temporary_bytes=temporary,
        gradient_bytes=sum(b.bytes for b in buffers if b.role == LiveRole.OUTPUT),
        other_bytes=other,
        tolerance_bytes=tolerance,
        buffers=sorted(buffers, key=lambda b: -b.bytes),
    )


class _Graphs:
    """The run's backward graphs: their simulated output code, their nodes, what they recompute."""

    def __init__(self, report: S.Report, pairs: dict[int, GraphPair]) -> None:
        self.memory = {g.graph_id: g for g in report.graph_memory or [] if g.error is None}
        self.nodes = {f"g{k}.backward": p.backward.nodes for k, p in pairs.items() if p.backward is not None}
        self.recomputed: dict[str, set[str]] = {}
        for r in report.recomputed or []:
            self.recomputed.setdefault(r.graph, set()).add(r.name)
        self.blocks = [inv.block for inv in report.invocations]

    def buffer(self, named, nbytes: int) -> S.TransientBuffer:
        """The buffer ``named`` (matched to a backward graph's statement) of ``nbytes``, traced to its nodes."""
        mem = self.memory.get(named.graph)
        kernels = [k for k in _kernels(mem) if named.storage in k.buffers]
        nodes = _nodes_of(self.nodes.get(named.graph, []), kernels, nbytes)
        recomputed = self.recomputed.get(named.graph, set())
        return S.TransientBuffer(
            graph=named.graph,
            call=named.call,
            block=self.block(named.call),
            storage=named.storage,
            bytes=nbytes,
            role=LiveRole.OUTPUT if named.storage in _returned(mem) else LiveRole.TEMPORARY,
            kernel=kernels[0].kernel if kernels else None,
            nodes=[n.name for n in nodes],
            ops=_unique(_op(n) for n in nodes),
            lines=_unique(line for n in nodes if (line := _user_line(n)) is not None),
            recomputed=any(n.name in recomputed for n in nodes),
        )

    def block(self, call: int | None) -> str | None:
        return self.blocks[call] if call is not None and 0 <= call < len(self.blocks) else None


def _kernels(mem: S.GraphMemory | None) -> list[S.Kernel]:
    return (mem.kernels if mem else None) or []


def _returned(mem: S.GraphMemory | None) -> set[str]:
    """The storages a graph returns (a backward's: the gradients)."""
    return {r.storage for r in (mem.returned if mem else None) or [] if r.storage}


def _buffers_at(events: CpuEvents, index: int, graphs: _Graphs) -> tuple[list[S.TransientBuffer], int]:
    """The backward graphs' buffers alive after event ``index``, and the bytes of all else alive then."""
    live: dict[int, int] = {}
    for i, row in enumerate(events.rows[: index + 1]):
        if row[1] > 0:
            live[row[3]] = i
        else:
            live.pop(row[3], None)
    buffers, other = [], 0
    for i in live.values():
        named, nbytes = events.category_of(i), events.rows[i][1]
        if named.storage and named.graph and named.graph.endswith(".backward"):
            buffers.append(graphs.buffer(named, nbytes))
        else:
            other += nbytes
    return buffers, other


def _nodes_of(nodes: list[S.Node], kernels: list[S.Kernel], nbytes: int) -> list[S.Node]:
    """The graph's nodes a buffer of ``nbytes`` holds: of the nodes the first kernel using it that names its source
    nodes computes (its writer, or, for a fused kernel Inductor names none for, the kernel that reads it next),
    those whose value is that size (all of them when none is)."""
    sources = set(next((k.source_nodes for k in kernels if k.source_nodes), []))
    computed = [n for n in nodes if n.op == "call_function" and (n.name in sources or n.from_node in sources)]
    sized = [n for n in computed if n.bytes == nbytes]
    return sized or computed


def _op(node: S.Node) -> str:
    parts = (node.target or node.name).split(".")  # aten.mm.default, prims.convert_element_type.default
    return parts[-2] if len(parts) >= 3 else parts[-1]


def _user_line(node: S.Node) -> str | None:
    """The innermost frame of the node's stack outside the libraries: the user's line."""
    frames = [f for f in parse_stack(node.stack_trace) if not is_library(f.file)]
    return frame_text(frames[-1], with_code=True) if frames else None


def _unique(items) -> list:
    return list(dict.fromkeys(items))
