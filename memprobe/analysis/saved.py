"""The saved-for-backward table, from recorded graphs alone (no torch needed).

Input: the serialized partitioned graphs (``graphs/*.json``) and the record of which
block called which compiled graph (with the run-time size of each saved tensor).
Output: one row per saved value per call, traced to its op chain and roots, with
the reason it was saved.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import RunDirError
from ..names import block_prefix, value_names
from ..rundir import schema as S
from ..rundir.load import load_graph
from ..vocab import MODULE_STATE, GraphKind, InputKind, NodeOp, Reason, RootKind, SavedKind
from .causes import REASON_OF, REMAT_HOP, cause_key, save_cause, short_op
from .frames import frame_text, is_library, parse_stack

MAX_EXPR_CHARS = 160
_WEIGHTS = frozenset((InputKind.PARAMETER, InputKind.BUFFER))


@dataclass
class GraphPair:
    """A Dynamo graph's forward graph, its backward graph (if compiled) and its inputs."""

    dynamo_graph: int
    forward: S.GraphFile
    backward: S.GraphFile | None
    inputs: list[S.GraphInput]  # the Dynamo graph's placeholders, in order


def graph_pairs(run_dir: str | Path, report: S.Report) -> dict[int, GraphPair]:
    """The forward/backward graph pairs a run recorded, keyed by Dynamo graph index (each graph file read and
    checked: inside the run directory, every node it names existing, one output node in a forward graph)."""
    run_dir = Path(run_dir)
    by_dynamo: dict[int, dict[str, S.GraphEntry]] = {}
    for entry in report.graphs:
        by_dynamo.setdefault(entry.dynamo_graph, {})[entry.kind] = entry
    pairs = {}
    for index, kinds in sorted(by_dynamo.items()):
        fw = kinds.get(GraphKind.FORWARD)
        if fw is None:
            continue
        bw = kinds.get(GraphKind.BACKWARD)
        forward = load_graph(run_dir, fw)
        if sum(1 for n in forward.nodes if n.op == NodeOp.OUTPUT) != 1:
            raise RunDirError(f"{run_dir / fw.files.graph_json}: a forward graph has exactly one output node")
        backward = load_graph(run_dir, bw) if bw else None
        pairs[index] = GraphPair(dynamo_graph=index, forward=forward, backward=backward, inputs=fw.inputs)
    return pairs


def _nodes_by_name(doc: S.GraphFile) -> dict[str, S.Node]:
    return {n.name: n for n in doc.nodes}


def saved_outputs(pair: GraphPair) -> list[str] | None:
    """Names of the forward outputs that are saved for backward (user outputs come first).

    The count is the backward graph's non-tangent inputs; None when no backward graph
    was recorded (the split cannot be known then).
    """
    if pair.backward is None:
        return None
    out = next(n for n in pair.forward.nodes if n.op == NodeOp.OUTPUT).outputs or []
    # the backward's inputs are the saved values, then tangents; RNG states for recomputed random ops
    # (bwd_rng_state_i, e.g. SDPA on CUDA) are handed over by the runtime, not saved by the forward
    n_saved = sum(
        1 for n in pair.backward.nodes if n.op == NodeOp.PLACEHOLDER and not n.name.startswith(("tangents_", "bwd_rng_state_"))
    )
    return [o for o in out[len(out) - n_saved :]] if n_saved else []


def primal_inputs(pair: GraphPair) -> dict[str, dict]:
    """Map the forward graph's ``primals_i`` to the Dynamo inputs they stand for (same order)."""
    primals = [n.name for n in pair.forward.nodes if n.op == NodeOp.PLACEHOLDER]
    if len(primals) != len(pair.inputs):  # extra placeholders: RNG states (fwd_rng_state_i) of random ops
        primals = [p for p in primals if p.startswith("primals_")]
    if len(primals) != len(pair.inputs):
        return {}
    return dict(zip(primals, pair.inputs))


_ARG = re.compile(r"^args\[(?P<index>\d+)\](?P<rest>(?:\[\d+\])*)$")


def input_label(fqn: str, arguments: list[str] | None = None) -> str:
    """A block's argument as the user wrote it: ``args[0]`` -> ``input``; ``args[2]`` -> ``input.positions`` (by the
    name of the block's forward parameter); ``kwargs.position_embeddings.0`` -> ``input.position_embeddings[0]``."""
    if fqn in ("args[0]", "args"):
        return "input"
    m = _ARG.match(fqn)
    if m:
        index = int(m["index"])
        if arguments and index < len(arguments):
            return f"input.{arguments[index]}{m['rest']}"
        return fqn
    head, _, rest = fqn.partition(".")
    if head == "kwargs" and rest:
        name, *indexes = rest.split(".")
        return f"input.{name}" + "".join(f"[{i}]" if i.isdigit() else f".{i}" for i in indexes)
    return fqn


def _display_root(inp: dict | None, placeholder: str, block: str | None, arguments: list[str] | None = None) -> str:
    if inp is None:
        return placeholder
    if inp.kind in (InputKind.PARAMETER, InputKind.BUFFER):
        return f"{block}.{inp.fqn}" if block else inp.fqn
    label = input_label(inp.fqn, arguments)
    return f"{block}.{label}" if block else label


@dataclass(frozen=True)
class RngState:
    """A saved RNG state that a random op's recompute replays: the node of that op's own result, when the graph
    has one (it names the module and the op)."""

    op_node: S.Node | None


_ANOTHER_LAYER = "<another layer>"  # no node's name: fx names are identifiers


class Provenance:
    """Op chains and roots of the nodes of one forward graph. ``arguments``: the names of the blocks' forward
    parameters (a block's ``args[2]`` is named by them)."""

    def __init__(self, pair: GraphPair, arguments: list[str] | None = None, layered: bool = False):
        self.pair = pair
        # a graph of several of the model's layers (the whole model compiled): a value's identity stops at what another
        # layer computed, so layer 0's and layer 1's copies of one value are one value
        self.layered = layered
        self.nodes = _nodes_by_name(pair.forward)
        self.inputs = primal_inputs(pair)
        self.input_index = {name: i for i, name in enumerate(self.inputs)}  # primals_i -> the Dynamo input's index
        self.arguments = arguments
        self._roots: dict[str, frozenset[str]] = {}
        self._identity: dict[str, str] = {}

    def root_label(self, placeholder: str, block: str | None) -> str:
        return _display_root(self.inputs.get(placeholder), placeholder, block, self.arguments)

    def identity(self, name: str) -> str:
        """What a value is, whatever layer computed it: a digest of its whole op chain (never cut), each op with
        the module that ran it, down to the graph inputs (named relative to the block). Two modules' values of equal
        shapes differ in it; layer 0's and layer 1's copies of one value do not."""
        memo = self._identity
        stack = [name]
        while stack:
            cur = stack[-1]
            if cur in memo:
                stack.pop()
                continue
            node = self.nodes.get(cur)
            if node is None:
                memo[cur] = _digest(f"?{cur}")
                stack.pop()
                continue
            if node.op == NodeOp.PLACEHOLDER:
                inp = self.inputs.get(cur)
                memo[cur] = _digest(f"input|{inp.kind}|{layer_pattern(self.root_label(cur, None))}" if inp else f"input|{cur}")
                stack.pop()
                continue
            inputs = [self._from_another_layer(i, node) or i for i in node.inputs]
            missing = [i for i in inputs if i not in memo]
            if missing:
                stack.extend(missing)
                continue
            module = layer_pattern(node.module or "")
            memo[cur] = _digest(f"{node.target}|{node.index}|{module}|" + ",".join(memo[i] for i in inputs))
            stack.pop()
        return memo[name]

    def layer_of(self, name: str) -> str | None:
        """The layer index of the module that computed a node in a graph of several layers (None: outside them, or a
        graph of one)."""
        if not self.layered or name not in self.nodes:
            return None
        inp = self.inputs.get(name)
        module = inp.fqn if inp is not None else self.nodes[name].module
        return layer_index(module) if module else None

    def _from_another_layer(self, name: str, user: S.Node) -> str | None:
        """For an input of ``user`` another layer (or the model around the layers) computed, in a graph of several
        layers: the key standing for any such input in the identities (a layer's value is what the layer computes
        from what it was given); else None."""
        if not self.layered:
            return None
        node = self.nodes.get(name)
        if node is None or node.op == NodeOp.PLACEHOLDER or self.layer_of(name) == layer_index(user.module or ""):
            return None
        self._identity.setdefault(_ANOTHER_LAYER, _digest(_ANOTHER_LAYER))
        return _ANOTHER_LAYER

    def rng_state_of(self, name: str) -> RngState | None:
        """For the RNG state a random op's recompute replays (``getitem(run_and_save_rng_state(...))``, uint8): the
        node of that op's own result (its module and aten op); None for any other value."""
        node = self.nodes.get(name)
        if node is None or node.target != "getitem" or node.dtype != "uint8" or len(node.inputs) != 1:
            return None
        producer = self.nodes.get(node.inputs[0])
        if producer is None or short_op(producer.target) != "run_and_save_rng_state":
            return None
        siblings = [
            n
            for n in self.nodes.values()
            if n is not node and producer.name in n.inputs and n.target == "getitem" and n.original_aten
        ]
        return RngState(siblings[0] if siblings else None)

    def roots(self, name: str) -> frozenset[str]:
        """Placeholders this node is computed from."""
        if name in self._roots:
            return self._roots[name]
        stack, seen, found = [name], set(), set()
        while stack:
            cur = stack.pop()
            if cur in seen:
                continue
            seen.add(cur)
            node = self.nodes.get(cur)
            if node is None:
                continue
            if node.op == NodeOp.PLACEHOLDER:
                found.add(cur)
            stack.extend(node.inputs)
        self._roots[name] = frozenset(found)
        return self._roots[name]

    def expr(self, name: str, block: str | None) -> str:
        """The op chain back to the graph inputs, e.g. ``abs(permute(layers.0.ffn.w1.weight))``.

        Deep chains are cut with ``…`` so the expression stays short.
        """
        for depth in range(8, 0, -1):
            text = self._render(name, block, depth)
            if len(text) <= MAX_EXPR_CHARS:
                return text
        return self._render(name, block, 1)

    def _render(self, name: str, block: str | None, depth: int) -> str:
        node = self.nodes.get(name)
        if node is None:
            return name
        if node.op == NodeOp.PLACEHOLDER:
            return self.root_label(name, block)
        if depth <= 0:
            return "…"
        args = ", ".join(self._render(a, block, depth - 1) for a in node.inputs)
        return f"{short_op(node.target)}({args})"


# -- in the user's terms ------------------------------------------------------------------------------

# Python calls that only wrap the real op (an autograd.Function's apply): name the aten op instead
_WRAPPER_CALLS = frozenset(("trampoline_autograd_apply", "apply", "forward", "checkpoint", "_fn"))
# aten ops that return a list of tensors (``Tensor[]`` in their schema): their outputs are one value each, told apart
# by their position (``split(c_attn)[1]``: attention's k beside q and v)
_LIST_OPS = frozenset(
    ("split", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes", "chunk", "unsafe_chunk", "unbind", "tensor_split")
)


def _element(node: S.Node) -> str:
    """``[i]`` for the i-th output of an op that returns a list of tensors, else nothing."""
    listed = node.target == "getitem" and node.index is not None and short_op(node.original_aten) in _LIST_OPS
    return f"[{node.index}]" if listed else ""


_SUFFIX = re.compile(r"_\d+$")


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


class UserView:
    """A saved value as the user wrote it: the call that made it (``silu``, ``abs`` inside torchao's
    float8 cast), the module (``layers.0.ffn.w1``), the line of the user's model, the library frame the
    op ran in, and the user-level values it was computed from."""

    def __init__(self, prov: Provenance, code_files: frozenset[str] = frozenset()):
        self.prov = prov
        # the model's own code (its classes' files): a frame there is the user's, even in site-packages
        self.code_files = code_files
        self.users: dict[str, list[S.Node]] = defaultdict(list)
        for n in prov.nodes.values():
            if n.op != NodeOp.OUTPUT:
                for i in n.inputs:
                    self.users[i].append(n)

    def _call(self, node: S.Node) -> str:
        fn = _SUFFIX.sub("", node.source_fn or "")  # Dynamo numbers repeated calls: float_1, linear_2
        aten = short_op(node.original_aten or node.target)
        if fn and node.source_fn_kind == "function" and fn not in _WRAPPER_CALLS and not fn.startswith("_"):
            return fn
        return aten

    def _same_call(self, a: S.Node, b: S.Node) -> bool:
        return (a.source_fn, a.module) == (b.source_fn, b.module) and a.op != NodeOp.PLACEHOLDER

    def _forward_users(self, node: S.Node) -> list[S.Node]:
        """The nodes that use ``node`` in the forward itself (the graph output is never a user here; backward work
        the partitioner moved into forward is left out)."""
        return [u for u in self.users.get(node.name) or [] if not u.backward_work]

    def _inside_its_call(self, node: S.Node, *, only: bool = True) -> bool:
        """A step inside one Python call (the weight's transpose inside ``F.linear``), not the call's result: it
        has a call, and its forward users (the graph output apart) belong to that same call: all of them
        (``only``), or at least one (a step that a later call reuses too, as Dynamo shares a float8 cast of
        one input between two linears). Not a value of the user's own."""
        if not node.source_fn or node.op == NodeOp.PLACEHOLDER:
            return False
        users = self._forward_users(node)
        same = [self._same_call(u, node) for u in users]
        return bool(users) and (all(same) if only else any(same))

    def _same_function(self, a: S.Node, b: S.Node) -> bool:
        """Both made by one call of a custom autograd.Function's forward (its body is one call of the user's)."""
        return bool(a.autograd_function) and (a.autograd_function, a.module) == (b.autograd_function, b.module)

    def _leaves_its_module(self, node: S.Node) -> bool:
        """The result of a module's forward (an RMSNorm's final ``mul``): no forward user is in that module or
        below it."""
        module = node.module
        users = self._forward_users(node)
        return bool(users) and not any((u.module or "") == module or (u.module or "").startswith(module + ".") for u in users)

    def _producers(self, name: str, block: str | None, limit: int = 3, depth: int = 3) -> list[str]:
        """The user-level values a node is computed from: its inputs, climbing through the nodes of the
        same call (the pieces of one decomposed op), described by module, parameter or block input, or by
        the call that made them (``float(blocks.0.up.weight)``, ``depth`` calls deep)."""
        nodes, start = self.prov.nodes, self.prov.nodes[name]
        out: list[str] = []
        stack, seen = list(start.inputs), {name}
        while stack and len(out) < limit and len(seen) < 2000:
            cur = stack.pop(0)
            if cur in seen or cur not in nodes:
                continue
            seen.add(cur)
            node = nodes[cur]
            if self._climbs_through(node, start):
                stack.extend(node.inputs)  # a step of the same call, or inside another: what it was made from
                continue
            desc = self._producer(cur, node, start, block, depth)
            if desc not in out:
                out.append(desc)
        return out

    def _climbs_through(self, node: S.Node, start: S.Node) -> bool:
        """A node :meth:`_producers` climbs through to its inputs: a step of ``start``'s own call (or its
        autograd.Function's), or one inside another call; never a graph input."""
        if node.op == NodeOp.PLACEHOLDER:
            return False
        return self._same_call(node, start) or self._inside_its_call(node, only=False) or self._same_function(node, start)

    def _producer(self, name: str, node: S.Node, start: S.Node, block: str | None, depth: int) -> str:
        """One value ``start`` is computed from, in the user's terms: a graph input by its root, another module's
        output by the module, else the call that made it (with what it was made from, ``depth`` calls deep)."""
        if node.op == NodeOp.PLACEHOLDER:
            return self.prov.root_label(name, block)
        if self._other_modules_output(node, start):
            return f"{block}.{node.module}" if block else node.module
        inner = self._producers(name, block, limit=2, depth=depth - 1) if depth > 1 else []
        return f"{self._call(node)}({', '.join(inner) if inner else '…'}){_element(node)}"

    def _other_modules_output(self, node: S.Node, start: S.Node) -> bool:
        """``node`` is what another module than ``start``'s returns: a module call, a wrapper call, or a value that
        leaves its module."""
        if not node.module or node.module == start.module:
            return False
        wrapper = _SUFFIX.sub("", node.source_fn or "") in _WRAPPER_CALLS
        return node.source_fn_kind == "module" or wrapper or self._leaves_its_module(node)

    def _forward_producer_ops(self, name: str) -> list[str]:
        """For backward work the partitioner moved into the forward graph: the aten ops of the forward values it
        was computed from (climbing through the other backward nodes)."""
        nodes, out = self.prov.nodes, set()
        stack, seen = list(nodes[name].inputs), {name}
        while stack and len(seen) < 2000:
            cur = stack.pop()
            if cur in seen or cur not in nodes:
                continue
            seen.add(cur)
            node = nodes[cur]
            if node.backward_work:
                stack.extend(node.inputs)
            elif node.original_aten:
                out.add(node.original_aten)
        return sorted(out)

    def _is_piece(self, name: str) -> bool:
        """An intermediate inside one decomposed aten op (silu's float32 upcast, say): its users, but the
        output, are all nodes of that same op."""
        node, users = self.prov.nodes[name], self.users.get(name) or []
        op = node.original_aten
        return bool(op and users) and all(u.original_aten == op and u.module == node.module for u in users)

    def _is_model_frame(self, path: str) -> bool:
        return path in self.code_files or not is_library(path)

    def describe(self, name: str, block: str | None) -> S.UserTerms:
        node = self.prov.nodes[name]
        special = self._describe_special(name, node, block)
        if special is not None:
            return special
        user, library = self._frames(node)
        call, piece, inside = self._call_parts(name, node)
        of = self._producers(name, block)
        hoisted = bool(node.backward_work)
        return S.UserTerms(
            op=call,
            label=_user_label(call, of, node, piece, inside),
            module=_in_block(block, node.module),
            piece=piece,
            backward_work=hoisted,
            from_ops=self._forward_producer_ops(name) if hoisted else [],
            source=frame_text(user, with_code=True) if user else None,
            library=frame_text(library, with_code=False) if library else None,
            of=of,
        )

    def _describe_special(self, name: str, node: S.Node, block: str | None) -> S.UserTerms | None:
        """A value named by what it is rather than by its call: a graph input, an RNG state, the block's seeds."""
        if node.op == NodeOp.PLACEHOLDER:
            root = self.prov.root_label(name, block)
            return S.UserTerms(op="input", label=root, module=None, source=None, library=None, of=[])
        rng = self.prov.rng_state_of(name)
        if rng is not None:  # named by the random op it replays, which has the module and the stack
            return self._describe_rng_state(rng.op_node, block)
        if short_op(node.target) == "inductor_seeds":  # the seeds of the block's random ops (dropout)
            label = "RNG seeds of the random ops (inductor_seeds) · saved to replay them in backward"
            return S.UserTerms(op="rng_state", label=label, module=block, source=None, library=None, of=[])
        return None

    def _frames(self, node: S.Node):
        """(the user's innermost frame that made the value, the outermost library frame below it), either None."""
        frames = parse_stack(node.stack_trace)
        user_frames = [f for f in frames if self._is_model_frame(f.file)]
        user = user_frames[-1] if user_frames else None
        deeper = frames[frames.index(user) + 1 :] if user else frames
        library = next((f for f in reversed(deeper) if not self._is_model_frame(f.file)), None)
        return user, library

    def _call_parts(self, name: str, node: S.Node) -> tuple[str, str | None, str | None]:
        """(the call that names the value, the op it is an intermediate of, the call it is a step inside): a step
        inside a call (linear's input, reshaped) is named by its own op."""
        call = self._call(node)
        piece = short_op(node.target) if self._is_piece(name) else None
        inside = call if not piece and self._inside_its_call(node) and call != short_op(node.target) else None
        if node.remat_region is not None and inside == REMAT_HOP:  # torch_remat's wrapper: named by its region
            inside = f"torch_remat region {node.remat_region}"
        if inside:
            call = short_op(node.target)
        return call, piece, inside

    def _describe_rng_state(self, op_node: S.Node | None, block: str | None) -> S.UserTerms:
        module = _in_block(block, op_node.module if op_node else None)
        op = self._call(op_node) if op_node else "a random op"
        frames = parse_stack(op_node.stack_trace if op_node else None)
        user = next((f for f in reversed(frames) if self._is_model_frame(f.file)), None)
        return S.UserTerms(
            op="rng_state",
            label=f"RNG state of {op}" + (f"({module})" if module else "") + " · saved to replay it in backward",
            module=module,
            source=frame_text(user, with_code=True) if user else None,
            library=None,
            of=[],
        )


def _in_block(block: str | None, module: str | None) -> str | None:
    """A module's name from the model's root: under its block when there is one."""
    return f"{block}.{module}" if block and module else (module or block)


def _user_label(call: str, of: list[str], node: S.Node, piece: str | None, inside: str | None) -> str:
    """A value's label: its call and what it was made from, then what it is besides (an output of several, an
    intermediate, inside an autograd.Function or another call, backward work done in forward)."""
    label = (f"{call}({', '.join(of)})" if of else call) + _element(node)
    if node.target == "getitem" and node.index and not _element(node):
        label += f" · output {node.index}"  # of a multi-output op: attention's logsumexp beside its output
    if piece:
        label += f" · intermediate {piece}"
    if node.autograd_function:
        label += f" · inside {node.autograd_function}"
    elif inside:
        label += f" · inside {inside}"
    if node.backward_work:
        label += " · backward work done in forward"
    return label


def classify(node: S.Node, root_kinds: set[str]) -> SavedKind:
    """weight-derived | activation | parameter | buffer | scalar | other."""
    if node.op == NodeOp.PLACEHOLDER:
        if root_kinds == {InputKind.BUFFER}:
            return SavedKind.BUFFER
        return SavedKind.PARAMETER if root_kinds <= _WEIGHTS and root_kinds else SavedKind.ACTIVATION
    shape = node.shape
    elements = numel(shape) if shape is not None else None
    if elements is not None and elements <= 1:
        return SavedKind.SCALAR
    if not root_kinds:
        return SavedKind.OTHER
    if root_kinds <= _WEIGHTS:
        return SavedKind.WEIGHT_DERIVED
    return SavedKind.ACTIVATION


def numel(shape) -> int | None:
    """Elements of a tensor of this shape (1 for a scalar's empty shape); None when a size is symbolic
    (recorded as its expression, e.g. ``"s0"``, under dynamic shapes)."""
    n = 1
    for s in shape or ():
        if not isinstance(s, int) or isinstance(s, bool):
            return None
        n *= s
    return n


def _root_kind(root_kinds: set[str]) -> RootKind:
    if root_kinds and root_kinds <= _WEIGHTS:
        return RootKind.PARAMETER
    if root_kinds == {InputKind.INPUT}:
        return RootKind.INPUT
    return RootKind.PARAMETER_AND_INPUT if root_kinds else RootKind.NONE


def build_saved_table(
    pairs: dict[int, GraphPair], invocations: list[S.Invocation], policy: S.Policy | None, model: S.ModelShape | None = None
) -> list[S.SavedRow]:
    """One row per saved value per compiled-graph call, in call order.

    ``invocations``: each compiled call of the measured step's forward (its block, what its autograd node saved,
    the tensors it was given); ``model``: what the probe built (its blocks' argument names and its code files
    name the inputs and the user's frames).
    """
    code_files = frozenset((model.code_files if model else None) or ())
    whole = model.whole_model if model else None
    layered = {inv.dynamo_graph for inv in invocations if whole is not None and inv.block == whole}
    provs = {i: Provenance(p, model.block_arguments if model else None, i in layered) for i, p in pairs.items()}
    users = {i: UserView(p, code_files) for i, p in provs.items()}
    rows: list[S.SavedRow] = []
    for call_index, inv in enumerate(invocations):
        pair = pairs.get(inv.dynamo_graph)
        saved = saved_outputs(pair) if pair is not None else None
        if not saved:
            continue
        prefix = block_prefix(inv.block, model.whole_model if model else None)
        rows += _call_rows(call_index, inv, prefix, pair, users[inv.dynamo_graph], saved, policy)
    return rows


def _call_rows(
    call_index: int,
    inv: S.Invocation,
    prefix: str | None,
    pair: GraphPair,
    users: UserView,
    saved: list[str],
    policy: S.Policy | None,
) -> list[S.SavedRow]:
    """The rows of one compiled call: one per value its forward saved, in the graph's output order, named under
    ``prefix`` (the block's path; None for the whole model: :func:`~.names.block_prefix`) by the graph's provenance
    (``users.prov``), with the storage its autograd node held for each (``inv.runtime_saved``)."""
    block = inv.block
    prov = users.prov
    runtime = inv.runtime_saved or []
    runtime_ok = len(runtime) == len(saved)
    occurrences: dict[tuple, int] = defaultdict(int)
    saved_names = set(saved)
    rows = []
    for pos, name in enumerate(saved):
        node = prov.nodes[name]
        root_names = sorted(prov.roots(name))
        root_inputs = [prov.inputs.get(r) for r in root_names]
        root_kinds = {i.kind for i in root_inputs if i is not None}
        rng = prov.rng_state_of(name)
        kind = SavedKind.OTHER if rng is not None else classify(node, root_kinds)
        cause = save_cause(name, prov.nodes, policy, saved_names, rng_state=rng is not None)
        rows.append(
            S.SavedRow(
                call=call_index,
                graph=pair.forward.graph_id,
                block=block,
                name=name,
                shape=node.shape,
                dtype=node.dtype,
                bytes=(node.storage_bytes if node.storage_bytes is not None else node.bytes) or 0,  # a broadcast view: its base's
                expr=prov.expr(name, prefix),
                op=short_op(node.original_aten or node.target) if node.op != NodeOp.PLACEHOLDER else "input",
                root=_root_kind(root_kinds),
                roots=[prov.root_label(r, prefix) for r in root_names],
                root_dtypes=_root_dtypes(prov, root_names, root_inputs),
                kind=kind,
                reason_kind=REASON_OF.get(cause.kind, Reason.PARTITIONER),
                reason=cause.text,
                policy_op=cause.policy_op,
                recompute_tag=node.recompute,
                cause=cause,
                user=users.describe(name, prefix),
                runtime_storage_bytes=runtime[pos].storage_bytes if runtime_ok else None,
                runtime_storage_id=runtime[pos].storage_id if runtime_ok else None,
                value_id=_numbered(prov.identity(name), prov.layer_of(name), occurrences),
                input_id=_input_id(inv, prov, name, kind),
            )
        )
    return rows


def _root_dtypes(prov: Provenance, root_names: list[str], root_inputs: list) -> list[str]:
    """The dtypes of the parameters a value is computed from, as the compiled graph received them."""
    dtypes = {
        prov.nodes[r].dtype
        for r, i in zip(root_names, root_inputs)
        if i is not None and i.kind in _WEIGHTS and prov.nodes[r].dtype
    }
    return sorted(dtypes)


def _numbered(value_id: str, layer: str | None, occurrences: dict[tuple, int]) -> str:
    """Values a graph computes alike (ops that differ only in a constant argument) told apart by their order:
    the second is ``ID#1`` (``occurrences`` counts each identity seen so far in the call, per layer: in a graph of
    several layers, each layer's copy of a value is that value)."""
    occurrences[value_id, layer] += 1
    n = occurrences[value_id, layer]
    return f"{value_id}#{n - 1}" if n > 1 else value_id


def _input_id(inv: S.Invocation, prov: Provenance, name: str, kind: SavedKind) -> int | None:
    """For a graph input saved for backward, which tensor the call was given (one passed to several blocks is one
    value). A graph input saved for backward stays alive through forward: a later call given the same storage was
    given the same tensor. Not parameters: FSDP frees each block's unsharded ones, and the next block's may take the
    same address."""
    if prov.nodes[name].op != NodeOp.PLACEHOLDER or kind == SavedKind.PARAMETER:
        return None
    index = prov.input_index.get(name)
    input_ids = inv.input_ids or []
    return input_ids[index] if index is not None and index < len(input_ids) else None


def distinct_rows(rows: list[S.SavedRow]) -> list[S.SavedRow]:
    """The rows of distinct values: a graph input given to several calls (the rotary cos/sin a model passes to
    every block, token positions) is one tensor, counted at its first call."""
    seen: set = set()
    out = []
    for r in rows:
        key = r.input_id
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        out.append(r)
    return out


def saved_totals(rows: list[S.SavedRow]) -> S.SavedTotals:
    """Graph-derived and run-time bytes held for backward, per step.

    Parameters and buffers saved as graph inputs are counted apart: they are alive anyway, and
    under FSDP with reshard-after-forward unsharded parameters are freed (run-time 0).
    A graph input given to several calls counts once; run-time bytes count each distinct storage once.
    """
    distinct = distinct_rows(rows)
    graph = sum(r.bytes for r in distinct if r.kind not in MODULE_STATE)
    params_graph = sum(r.bytes for r in distinct if r.kind in MODULE_STATE)
    have_runtime = bool(rows) and all(r.runtime_storage_bytes is not None for r in rows)
    runtime = params_runtime = None
    if have_runtime:
        seen: set = set()
        runtime = params_runtime = 0
        for r in rows:
            key = r.runtime_storage_id
            if key in seen:
                continue
            seen.add(key)
            if r.kind in MODULE_STATE:
                params_runtime += r.runtime_storage_bytes
            else:
                runtime += r.runtime_storage_bytes
    by_kind: dict[SavedKind, int] = defaultdict(int)
    for r in distinct:
        by_kind[r.kind] += r.bytes
    return S.SavedTotals(
        graph_bytes=graph,
        runtime_bytes=runtime,
        agree=runtime == graph if runtime is not None else None,
        parameter_graph_bytes=params_graph,
        parameter_runtime_bytes=params_runtime,
        by_kind_bytes=dict(sorted(by_kind.items())),
    )


_RELATIVE_FQN = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)+(?:weight|bias)\b|(?<![\w.])input\b")


def prefix_block(expr: str, block: str) -> str:
    """Block-relative names in an op chain (``ffn.w1.weight``, ``input``) -> ``layers.0.ffn.w1.weight``."""
    return _RELATIVE_FQN.sub(lambda m: f"{block}.{m.group(0)}", expr)


# a block index: the first all-digit component of a dotted name (``layers.3.``, ``model.blocks.12.``, a block
# itself: ``transformer.h.0``, a compiled Sequential's ``0.fc1``; not the 1 in ``w1``, nor a Sequential index inside
# the block, ``channel_mlp.0.weight``)
_NAME_RE = re.compile(r"[A-Za-z_][\w.]*|(?<![\w.])\d+\.[A-Za-z_][\w.]*")
_INDEX_RE = re.compile(r"(?:(?<=[A-Za-z_])\.|^)\d+(?=\.|$)")


def layer_index(name: str) -> str | None:
    """The block index of a dotted name (``blocks.1.fc1`` -> ``1``), None if it has none."""
    m = _INDEX_RE.search(name)
    return m.group(0).lstrip(".") if m else None


def layer_pattern(expr: str) -> str:
    """``abs(layers.3.ffn.w1.weight)`` -> ``abs(layers.*.ffn.w1.weight)`` (any block container name)."""
    return _NAME_RE.sub(lambda m: _INDEX_RE.sub(lambda i: ".*" if i.group(0)[0] == "." else "*", m.group(0), count=1), expr)


def module_groups(modules: list[S.SavedByModule]) -> list[tuple[str, list[S.SavedByModule]]]:
    """What modules saved outside the compiled graphs (``saved_outside.modules``), the modules that differ only in
    their layer index as one group (``transformer.h.*.mlp.act``: each layer's copy), named by that pattern (a module
    alone keeps its own name: ``blocks.1``); the largest group first (the first met among equals)."""
    groups: dict[str, list[S.SavedByModule]] = {}
    for m in modules:
        groups.setdefault(layer_pattern(m.module), []).append(m)
    named = [(name if len(ms) > 1 else ms[0].module, ms) for name, ms in groups.items()]
    return sorted(named, key=lambda kv: -sum(m.bytes for m in kv[1]))


def label(item) -> str:
    """The one name of a saved value (a row, a group, a diff item: anything with its ``expr`` and ``user`` terms),
    layer index as ``*``: what every table, finding and page shows for it."""
    return layer_pattern(value_names(item)[0])


def user_pattern(user: S.UserTerms | None) -> S.UserTerms | None:
    """A row's user terms with the layer index made ``*`` (for a group of identical layers)."""
    if not user:
        return None
    return user.model_copy(
        update={
            "label": layer_pattern(user.label),
            **({"module": layer_pattern(user.module)} if user.module else {}),
            "of": [layer_pattern(o) for o in user.of or []],
        }
    )


def group_key(row: S.SavedRow) -> str:
    """What a saved value is, whatever layer computed it: its structural identity (``value_id``: the whole op chain
    with the modules that ran it), or for a report without one its op chain with the layer index made ``*``."""
    return row.value_id or layer_pattern(row.expr)


@dataclass
class SavedGroup:
    """Saved values that differ only in their layer index (``abs(layers.*.ffn.w1.weight) x 4``)."""

    expr: str  # the op chain, layers as ``*``
    value_id: str
    kind: SavedKind
    bytes_each: int
    shape: list | None
    dtype: str | None
    reason_kind: Reason
    reason: str
    policy_op: str | None
    user: S.UserTerms | None  # layers as ``*``
    cause: S.Cause | None = None  # why it was saved (its first row's: the group's rows share it)
    count: int = 0
    bytes: int = 0  # a graph input given to several calls counts once
    blocks: list[str] = field(default_factory=list)
    shared: bool = False  # a later call was given the same tensor as an earlier one


def group_rows(rows: list[S.SavedRow]) -> list[SavedGroup]:
    """Rows that differ only in their layer index, grouped (never two modules' values: see :func:`group_key`);
    largest total first. A graph input given to several calls counts its bytes once (``shared``)."""
    groups: dict[tuple, SavedGroup] = {}
    seen_inputs: set = set()
    for r in rows:
        key = (group_key(r), r.kind, r.bytes, r.dtype, tuple(r.shape or ()), r.reason_kind, r.policy_op, cause_key(r.cause))
        g = groups.get(key)
        if g is None:
            g = groups[key] = SavedGroup(
                expr=layer_pattern(r.expr),
                value_id=key[0],
                kind=r.kind,
                bytes_each=r.bytes,
                shape=r.shape,
                dtype=r.dtype,
                reason_kind=r.reason_kind,
                reason=r.reason,
                policy_op=r.policy_op,
                user=user_pattern(r.user),
                cause=r.cause,
            )
        g.count += 1
        if r.input_id is not None and r.input_id in seen_inputs:
            g.shared = True  # the same tensor as an earlier call's: no bytes of its own
        else:
            g.bytes += r.bytes
            if r.input_id is not None:
                seen_inputs.add(r.input_id)
        if r.block is not None:
            g.blocks.append(r.block)
    # largest first; on a tie, weight-derived values (the usual anomaly) before the rest
    return sorted(groups.values(), key=lambda g: (-g.bytes, g.kind != SavedKind.WEIGHT_DERIVED, g.expr))
