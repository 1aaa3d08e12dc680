"""The files memprobe writes and reads, as typed records: one schema for the writer, the reader and the validator.

Every JSON file of a run directory or of a verb's output directory has a record type here
(:data:`FILES` lists them): ``report.json`` (:class:`Report`), ``graphs/*.json``
(:class:`GraphFile`), ``diff.json``, ``explain.json``, ``bisect.json``, ``sweep.json`` and
``memprobe-baseline.json``. Each field carries its meaning (``Field(description=...)``), from
which ``docs/report-schema.md`` is generated (:mod:`memprobe.rundir.docs`).

Strict: a bool is not an integer, integers are bounded (bytes and counts to 2**63), numbers are
finite, strings are bounded in length and valid Unicode, vocabularies are the enums of
:mod:`memprobe.vocab`. A record refuses a field it does not declare (``extra="forbid"``): what
memprobe writes and what this schema says cannot drift apart unnoticed. Fields that older
reports lack are optional; a field absent from a file stays absent when the record is dumped
again (:func:`memprobe.rundir.dump`), so a file round-trips unchanged.

Importing this module does not import torch (nor does the loader): a run directory is read
anywhere, and a probe's process may write one without pydantic (the parent validates it).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from annotated_types import Ge, Le, MaxLen
from pydantic import (
    AfterValidator,
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    RootModel,
    Strict,
    Tag,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .. import SCHEMA_VERSION, vocab
from ..config import ProbeConfig
from ..errors import ConfigError
from ..fields import MAX_OP, MAX_TEXT, MAX_WHOLE, MAX_WORDS, Kind, declared
from ..vocab import (
    AcMode,
    AttributionSource,
    BisectPass,
    CacheState,
    Category,
    ChangeKind,
    CheckpointDecision,
    DeviceChoice,
    DeviceType,
    DiffStatus,
    Fate,
    FindingKind,
    Float8Skip,
    GraphKind,
    InputKind,
    LimitKind,
    LiveRole,
    MemorySource,
    Metric,
    NodeOp,
    Phase,
    PhaseEdge,
    PolicyDefault,
    Reason,
    Recipe,
    ReturnRole,
    RootKind,
    RunMode,
    RunStatus,
    SaveCause,
    SavedKind,
    SourceFnKind,
    StepPeak,
)
from .read import MAX_INT, MAX_STR

# -- scalars ----------------------------------------------------------------------------------------------

Count = Annotated[int, Strict(), Ge(0), Le(MAX_INT)]  # bytes, counts, addresses: 64 bits
Signed = Annotated[int, Strict(), Ge(-MAX_INT), Le(MAX_INT)]  # a difference of bytes, a level that may fall below its start
Number = Annotated[float, Strict(), AllowInfNan(False)]  # finite; an integer is a number too
NonNegative = Annotated[float, Strict(), AllowInfNan(False), Ge(0)]
Share = Annotated[float, Strict(), AllowInfNan(False), Ge(0), Le(1)]
Text = Annotated[str, Strict(), MaxLen(MAX_STR)]  # a message, an op chain, a command-line argument
Name = Annotated[str, Strict(), MaxLen(10_000)]


def clip(text: str, limit: int = MAX_STR) -> str:
    """A text memprobe derives (a verdict, a finding's message), kept within a field's bound: the values it names
    come from files of any size, and a record of them refuses a longer one."""
    return text if len(text) <= limit else text[: limit - 1] + "…"  # an identifier: a node, an op, a dtype, a module path


def _a_path(text: str) -> str:
    if "\0" in text:  # no file system names one: os.stat and Path.resolve raise on it
        raise PydanticCustomError("path", "a path cannot hold a NUL byte, got {shown}", {"shown": repr(text[:40])})
    return text


# a file or directory named in a file: resolved inside its directory on use
FilePath = Annotated[str, Strict(), MaxLen(4096), AfterValidator(_a_path)]
GraphIndex = Annotated[int, Strict(), Ge(0), Le(10**6)]
Version1 = Annotated[int, Strict(), Ge(1), Le(1)]


def _dim_form(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return "size"
    return "expression" if isinstance(value, str) else None


# a tensor dimension: its size, or under dynamic shapes its symbolic expression ("s0")
Dim = Annotated[
    Annotated[Count, Tag("size")] | Annotated[Annotated[str, Strict(), MaxLen(1000)], Tag("expression")],
    Discriminator(_dim_form),
]
Shape = list[Dim]


class Record(BaseModel):
    """A record memprobe writes: every field declared, nothing else accepted."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_default=False, defer_build=True)


def required(description: str, **kw) -> Any:
    """A field every file has."""
    return Field(description=description, **kw)


def optional(description: str, **kw) -> Any:
    """An optional field (absent in some files: older writers, failed runs, other devices)."""
    return Field(default=None, description=description, **kw)


# -- the probe configuration (derived from memprobe.config.ProbeConfig: declared once) -------------------

# the families --repro names are the registry's (memprobe/targets): a word ProbeConfig checks, so that a new family
# changes no record
_CONFIG_WORDS = {"recipe": Recipe, "ac": AcMode, "device": DeviceChoice}
# each kind of configuration field as the typed record takes it (strict: "64" is no integer, true no number); the MCP
# tools' arguments take the same
CONFIG_KINDS = {
    Kind.FLAG: Annotated[bool, Strict()],
    Kind.WHOLE: Annotated[int, Strict(), Ge(-MAX_WHOLE + 1), Le(MAX_WHOLE - 1)],
    Kind.NUMBER: Number,
    Kind.OPS: list[Annotated[str, Strict(), MaxLen(MAX_OP - 1)]],
    Kind.WORDS: Annotated[list[Annotated[str, Strict(), MaxLen(MAX_TEXT - 1)]], MaxLen(MAX_WORDS - 1)],
    Kind.TEXT: Annotated[str, Strict(), MaxLen(MAX_TEXT - 1)],
}


# each configuration a record holds, made once per process (ProbeConfig is frozen: records of the same fields share it)
_MADE: dict[str, ProbeConfig] = {}
_MADE_KEPT = 256


def _made(given: str) -> ProbeConfig:
    """The configuration of a record's fields (their canonical JSON)."""
    cfg = _MADE.get(given)
    if cfg is None:
        if len(_MADE) >= _MADE_KEPT:
            _MADE.clear()
        cfg = _MADE[given] = ProbeConfig.from_dict(json.loads(given))
    return cfg


def remember(cfg: ProbeConfig) -> None:
    """``cfg`` is what a record of its fields holds: the verb that made it hands it to the records that will hold it
    (a probe's report.json, read back), so that one configuration is made once per probe."""
    _MADE.setdefault(json.dumps(cfg.to_dict(), sort_keys=True), cfg)


def _config_record() -> type[Record]:
    """The configuration record, one field per :class:`~memprobe.config.ProbeConfig` field, typed by its declared
    kind (:mod:`memprobe.fields`; a vocabulary's words where it has one) and documented by its flag's help. Every field
    is optional: an older report lacks the newer ones."""

    class ConfigRecord(Record):
        """A recorded configuration is one `memprobe run` would run: checked as it is read (a file may come from anyone)."""

        @model_validator(mode="after")
        def _runnable(self):
            try:
                self.probe()
            except ConfigError as e:
                raise PydanticCustomError("config", "{why}", {"why": str(e)}) from None
            return self

        def probe(self) -> ProbeConfig:
            """The configuration as memprobe runs it (a :class:`~memprobe.config.ProbeConfig`, validated as it is made),
            every field present (an older file lacks the newer ones: their defaults). Made once per process for each
            configuration a record holds (it is frozen: the records that hold the same fields share it)."""
            return _made(json.dumps(self.model_dump(mode="json", exclude_unset=True), sort_keys=True))

    fields: dict[str, Any] = {}
    for f, o in declared(ProbeConfig):
        tp: Any = _CONFIG_WORDS.get(f.name, CONFIG_KINDS[o.kind])
        fields[f.name] = (tp | None if f.default is None else tp, optional(o.help))
    model = create_model("Config", __base__=ConfigRecord, __module__=__name__, **fields)
    model.__doc__ = (
        "The probe configuration (`memprobe.config.ProbeConfig`; each field is a `memprobe run` flag). "
        "Older reports lack the newer fields: read as their defaults."
    )
    return model


Config = _config_record()


# -- report.json ------------------------------------------------------------------------------------------


class Tool(Record):
    """The memprobe that wrote the file."""

    name: Name | None = optional("`memprobe`")
    version: Name | None = optional("its version")


class ProcessRecord(Record):
    """The process that measured a run (one probe, one process)."""

    pid: Count = optional("its process id")
    host: Name | None = optional("the host it ran on")
    python: Text | None = optional("its interpreter")
    command: list[Text] = optional("that process's own argv")
    env: dict[Name, Text | None] = optional("the settings given to this probe alone (`--a-env`/`--b-env`): NAME -> value")
    gpus: Name | None = optional("`CUDA_VISIBLE_DEVICES` when a verb gave the probe a GPU of its own")
    gpu_probes_at_once: Count | None = optional("how many probes the verb ran at once on this probe's GPU")
    forked_from: Count | None = optional(
        "the pid of memprobe's fork server this process was forked from (torch imported there, nothing compiled or"
        " allocated); null: a fresh interpreter"
    )
    fork_server: Text | None = optional(
        "which fork server: `memprobe serve` (the user's resident server), `memprobe mcp` (the MCP server's own) or"
        " `the verb's fork server` (the verb's own, or the one MEMPROBE_FORKSERVER names); null: a fresh interpreter"
    )
    other_interpreter: Annotated[bool, Strict()] | None = optional(
        "it ran with another interpreter than the memprobe that started it (`--python`, `--a-python`/`--b-python`): "
        "what checks its fixes runs there; recorded by that memprobe when the probe ended"
    )


class Device(Record):
    """The device the probe ran on."""

    type: DeviceType | None = required("`cpu` or `cuda`; null in a report whose run failed before it chose one")


class Versions(Record):
    """The software the probe ran with."""

    python: Name | None = optional("Python")
    torch: Name | None = optional("torch")
    torchao: Name | None = optional("torchao (null when not installed)")
    torchtitan: Name | None = optional("torchtitan (null when not installed)")
    memprobe: Name | None = optional("memprobe")
    device_name: Text | None = optional("the GPU's name, or the CPU's")
    cuda: Name | None = optional("CUDA (CUDA runs)")
    device_capability: Name | None = optional("the GPU's compute capability (CUDA runs)")
    triton: Name | None = optional("triton (CUDA runs)")
    transformers: Name | None = optional("transformers (null when not installed)")


class Policy(Record):
    """The effective per-op SAC policy."""

    name: Name = required("the policy's name (`memprobe policies`)")
    default: PolicyDefault = required("what an op in no list gets")
    save_ops: list[Name] = required("ops whose outputs are MUST_SAVE")
    recompute_ops: list[Name] = optional("ops removed from the save list (`--recompute-op`)")
    mm_every_second_recomputed: Annotated[bool, Strict()] = optional("torchtitan's rule: every second mm recomputed")


class GraphFiles(Record):
    """A graph's files, relative to the run directory (they must stay inside it)."""

    graph_text: FilePath = optional("the readable graph (`graphs/g0.forward.txt`)")
    graph_json: FilePath = optional("its nodes (`graphs/g0.forward.json`); every reader needs it")
    output_code: FilePath = optional("Inductor's output code for it (full mode only)")


class GraphInput(Record):
    """One placeholder of a Dynamo graph, in order."""

    placeholder: Name = required("the placeholder's name")
    source: Text = optional("Dynamo's source of it (`L['self']._modules['ffn']...`)")
    kind: InputKind = required("parameter, buffer or input")
    fqn: Name = required("its name relative to the compiled block (`ffn.w1.weight`, `args[0]`)")
    requires_grad: Annotated[bool, Strict()] = optional("the traced example of it required grad")


class GraphEntry(Record):
    """One partitioned graph the run compiled."""

    graph_id: Name = required("`g<dynamo graph>.<kind>`, e.g. `g0.forward`")
    dynamo_graph: GraphIndex = required("the index of the Dynamo graph it was partitioned from")
    kind: GraphKind = required("forward, backward or inference")
    nodes: Count = optional("how many FX nodes it has")
    files: GraphFiles = required("its files")
    output_code_loaded_from: Text | None = optional("where Inductor loaded the output code from (CUDA snapshot frames name it)")
    inputs: list[GraphInput] = required("the Dynamo graph's placeholders, in order")


class RuntimeSaved(Record):
    """A tensor the compiled graph's autograd node holds for backward (*measured*)."""

    shape: Shape | None = optional("its shape")
    dtype: Name | None = optional("its dtype")
    storage_bytes: Count = required("the size of its storage")
    storage_id: Count | None = optional("its storage's address (null for an empty storage)")


class CallMeasurement(Record):
    """Allocator figures around one compiled call (benchmarks, CUDA only)."""

    allocated_before_bytes: Signed = optional("allocated before the call")
    peak_increase_bytes: Signed = optional("the call's peak above that")
    end_increase_bytes: Signed = optional("what the call left allocated")


class Invocation(Record):
    """A call of a compiled graph in the measured step's forward."""

    dynamo_graph: GraphIndex = required("the Dynamo graph called")
    block: Name | None = required("the block that called it (`layers.0`)")
    runtime_saved: list[RuntimeSaved] | None = optional("what its autograd node saved (*measured*); null for inference")
    measured: CallMeasurement | None = optional("allocator figures around the call (`--measure-calls`)")
    input_ids: list[Count | None] = optional(
        "per graph input, the identity of the tensor passed (its storage), so that one tensor given to several "
        "blocks is counted once; null for inputs that are not tensors"
    )


class UserTerms(Record):
    """A saved value in the user's terms."""

    op: Name = required("the Python call that made it (`silu`, `linear`), or `input`")
    label: Text = required("the value as the user would name it (`silu(layers.0.ffn.w1)`)")
    module: Text | None = optional("the innermost module (FQN)")
    piece: Name | None = optional("the aten op it is when it is an intermediate of its call's decomposition")
    source: Text | None = optional("the innermost frame of the user's code: `file:line  text`")
    library: Text | None = optional("the library frame it ran in (`torchao/float8/...:264 in forward`)")
    of: list[Text] = optional("the user-level values it is computed from")
    backward_work: Annotated[bool, Strict()] = optional("computed for backward but hoisted into forward by the partitioner")
    from_ops: list[Name] = optional("the forward ops it was computed from, when hoisted")


class Blocker(Record):
    """An op a saved value would be recomputed from that the partitioner may not recompute."""

    name: Name = required("its FX node")
    op: Name = required("its aten op (`mm`)")
    module: Text | None = optional("the module that ran it, relative to the block")
    rule: Text | None = optional("why it may not be recomputed, in the installed torch's words")
    function: Name | None = optional("the autograd.Function whose forward made it")


class Cause(Record):
    """Why a value was saved, as the compiler decided it: the SAC tag its op carried and what the partitioner did."""

    kind: SaveCause = required("the rule that kept it")
    tag: CheckpointDecision | None = optional("the SAC tag its op was traced with (absent: untagged)")
    checkpointed: Annotated[bool, Strict()] = optional("its op was traced inside a checkpointed region")
    function: Name | None = optional("the custom autograd.Function whose forward made it")
    rule: Text | None = optional(
        "the partitioner's rule that banned its recomputation (not-recomputable), or the pass that tagged it (pass-tag)"
    )
    policy_op: Name | None = optional("the save-list op that tagged it (policy-tag)")
    region: Text | None = optional("the torch_remat region (`remat.region`) its op was traced in")
    region_recompute: Annotated[bool, Strict()] | None = optional("that region's recompute flag")
    region_checkpoint: Text | None = optional("the torch_remat checkpoint (`remat.checkpoint`) its op was traced in")
    blocked_by: list[Blocker] = optional("for min-cut: the ops recomputing it needs that may not be recomputed")
    text: Text = required("the cause in words")


class SavedRow(Record):
    """One saved-for-backward value of one compiled call (*derived* from the graphs)."""

    call: Count = optional("index of the compiled-graph call in the step")
    graph: Name = required("the forward graph (`g0.forward`)")
    block: Name | None = required("the block that made the call (`layers.1`)")
    name: Name = required("the FX node's name in the forward graph")
    shape: Shape | None = required("from the node's fake tensor")
    dtype: Name | None = required("from the node's fake tensor")
    bytes: Count = required("numel x element size")
    expr: Text = required("op chain back to the graph inputs (`abs(permute(layers.0.ffn.w1.weight))`; deep chains cut with `…`)")
    op: Name = required("the node's op (`abs`), or `input` for a graph input")
    root: RootKind = optional("what it is computed from")
    roots: list[Text] = required("the FQNs of the graph inputs it is computed from")
    root_dtypes: list[Name] = optional("the dtypes of those parameters as the compiled graph received them")
    kind: SavedKind = required("what it is computed from, as a kind")
    reason_kind: Reason = required("why it was saved")
    reason: Text = required("why it was saved, in words")
    policy_op: Name | None = required("the save-list op, when the node's own op is in the policy's list")
    recompute_tag: CheckpointDecision | None = optional("the node's SAC tag, if any")
    user: UserTerms | None = optional("the value in the user's terms")
    runtime_storage_bytes: Count | None = required("the storage autograd holds for it at the end of forward (*measured*)")
    runtime_storage_id: Count | None = required("that storage's address (*measured*)")
    value_id: Name | None = optional(
        "the value's structural identity (a digest of its full op chain with each op's module): rows are grouped by it"
    )
    input_id: Count | None = optional("for a graph input saved as is, the identity of the tensor the call was given")
    cause: Cause | None = optional("why it was saved, from the compiler's own decisions")


class RecomputedValue(Record):
    """A value a backward graph computes from what its forward saved (no gradient flows into it): recomputed in
    backward rather than saved."""

    graph: Name = required("the backward graph (`g0.backward`)")
    name: Name = required("its FX node there")
    op: Name = required("its op (`abs`)")
    expr: Text = required("its op chain back to the graph inputs, relative to the block")
    roots: list[Text] = required("the graph inputs it is computed from, relative to the block")
    shape: Shape | None = optional("its shape")
    dtype: Name | None = optional("its dtype")
    bytes: Count = optional("its bytes")
    tag: CheckpointDecision | None = optional("its SAC tag (absent: untagged)")
    checkpointed: Annotated[bool, Strict()] = optional("traced inside a checkpointed region")
    function: Name | None = optional("the custom autograd.Function whose forward made it")
    copied: Annotated[bool, Strict()] = optional(
        "a forward op the partitioner copied into backward (otherwise backward's own code computes it again)"
    )
    user: UserTerms | None = optional("it in the user's terms, relative to the block")
    blocks: list[Name] = optional("the blocks whose calls ran this graph")


class SavedTotals(Record):
    """Bytes held for backward per step."""

    graph_bytes: Count = required("*derived*: the non-parameter rows")
    runtime_bytes: Count | None = optional("*measured*: the distinct storages of those rows")
    agree: Annotated[bool, Strict()] | None = optional("whether the two agree")
    parameter_graph_bytes: Count = optional("parameters saved as graph inputs (*derived*)")
    parameter_runtime_bytes: Count | None = optional(
        "their storages at run time (*measured*; 0 under FSDP reshard-after-forward)"
    )
    by_kind_bytes: dict[SavedKind, Count] = optional("bytes by saved kind")


class FindingItem(Record):
    """A saved value a finding groups."""

    label: Text = required("its one name, as the saved table gives it")
    bytes: Count = required("its bytes per step (all its blocks)")
    expr: Text | None = optional("its op chain, layers as `*`")
    count: Count | None = optional("how many blocks saved it")
    bytes_each: Count | None = optional("the bytes of each")
    dtype: Name | None = optional("its dtype")
    shape: Shape | None = optional("its shape")
    module: Text | None = optional("the module that made it, layers as `*`")


class Verdict(Record):
    """The answer first: one or two sentences, and the figures and fix they are made of."""

    text: Text = required("what dominates, by how much, why, and the fix")
    bytes: Signed | None = optional("the figure the sentence leads with")
    total_bytes: Signed | None = optional("the total it is a share of (a diff: B - A)")
    finding: FindingKind | None = optional("the kind of finding it comes from")
    fix: Text | None = optional("the fix in a few words")
    flag: Text | None = optional("the flag that applies the fix")
    next_command: Text | None = optional("a memprobe command, as printed after `next:`, that checks the fix")


class Finding(Record):
    """Something in the run that deserves a person's attention (rules in docs/findings.md). Values of one kind and
    one cause (the op that made them, why they were kept) are one finding."""

    kind: FindingKind = required("which rule found it")
    bytes: Signed = required("what it costs per step; findings are ranked by it")
    message: Text = required("what was found, in one paragraph")
    detail: Text | None = optional("why it matters")
    hint: Text | None = optional("what to do")
    expr: Text | None = optional("the saved value it is about (layers as `*`)")
    count: Count | None = optional("how many values it groups")
    bytes_each: Count | None = optional("the bytes of each")
    policy_op: Name | None = optional("the save-list op it is about")
    label: Text | None = optional("its first value's name, as the saved table gives it")
    items: list[FindingItem] = optional("the values it groups, largest first")
    what: Text | None = optional("the values named once (`abs() of layers.*.ffn.{w1,w2,w3}.weight`)")
    summary: Text | None = optional("the finding as the verdict's sentence")
    fix: Text | None = optional("the fix in a few words")
    flag: Text | None = optional("the flag that applies the fix (`--recompute-op aten.abs`)")
    by_design: Annotated[bool, Strict()] | None = optional(
        "what it names is a library's design, not a defect (FSDP2 keeps its root module's parameters unsharded after "
        "forward): listed below the others, never the verdict"
    )


class Check(Record):
    """A check that ran, so a run without findings says what was looked for."""

    kind: FindingKind = required("the finding it looks for")
    title: Text = required("what it checks")


class PhaseMemory(Record):
    """A phase of the measured step (*measured*)."""

    start_bytes: Signed = required("allocated when the phase began")
    peak_bytes: Signed = required("the phase's peak")
    end_bytes: Signed = required("allocated when it ended")
    peak_active_bytes: Signed = optional("CUDA: the peak of active blocks")
    start_reserved_bytes: Signed = optional("CUDA: reserved when the phase began")
    peak_reserved_bytes: Signed = optional("CUDA: the peak reserved (depends on the process's history)")
    end_reserved_bytes: Signed = optional("CUDA: reserved when it ended")
    events: Count = optional("CPU: the profiler's memory events inside the phase")


class CpuEvents(Record):
    """The CPU profiler's memory events of the measured step."""

    columns: list[Name] = optional("the columns of `rows`: `ts_us`, `bytes`, `total_allocated`, `addr`")
    rows: list[tuple[Number, Signed, Signed, Signed]] = required("one per allocation (bytes > 0) or free (bytes < 0)")
    phase_windows_us: dict[Phase, tuple[Number, Number]] = optional("each phase's `[start_us, end_us]`")
    annotations: list[tuple[Text, Number, Number]] = optional("every `user_annotation` range: `[name, start_us, end_us]`")
    ops: list[tuple[Text, Number, Number]] = optional("the outermost ops the step ran: `[name, start_us, duration_us]`")


class RegistryEntry(Record):
    """A tensor alive before the measured step, by the address of its storage."""

    category: Category = required("what it is")
    name: Text = required("its name (`layers.0.ffn.w1.weight`, `...:exp_avg`, `batch`)")
    bytes: Count = required("its storage's size")


class SnapshotMeta(Record):
    """The CUDA allocator snapshot of the measured step."""

    file: FilePath | None = optional("the snapshot file, relative to the run directory (`snapshot.pickle`)")
    phase_markers: list[tuple[Phase, PhaseEdge]] = optional("the phase boundaries marked in its trace, in order")
    tensor_registry: dict[Name, RegistryEntry] | None = optional("addresses (decimal) of the tensors alive before the step")


class Persistent(Record):
    """State that lives across steps."""

    parameters_bytes: Count | None = optional("the parameters as stored (a rank's shards under FSDP)")
    optimizer_state_bytes: Count | None = optional("the optimizer's state")


class SavedBytesPair(Record):
    """Bytes held for backward, two ways."""

    graph: Count | None = optional("*derived* from the graphs")
    runtime: Count | None = optional("*measured*")


class Memory(Record):
    """Memory of the measured step (*measured*)."""

    source: MemorySource | None = optional("where the phase figures come from; null when not measured")
    baseline: Text = optional("what the figures are relative to")
    phases: dict[Phase, PhaseMemory] = optional("per phase")
    events: CpuEvents | None = optional("CPU: the profiler's memory events")
    snapshot: SnapshotMeta | None = optional("CUDA: the allocator snapshot")
    persistent: Persistent | None = optional("state alive across steps")
    gradients_bytes: Count | None = optional(
        "the gradients the measured step's optimizer step was given, as stored (a rank's shards under FSDP) (*measured*)"
    )
    autograd_saved_bytes: Count | None = optional(
        "all tensors the autograd graph holds after forward, eager ones included; null when eager checkpointed regions "
        "make it unreadable"
    )
    saved_for_backward_bytes: SavedBytesPair | None = optional("the saved table's totals")
    partial: Annotated[bool, Strict()] = optional("the run failed while measuring: what was measured so far")
    process_peak_reserved_bytes: Count | None = optional(
        "CUDA: the most the process reserved, from its first allocation to the measured step's end (*measured*)"
    )


class ReturnedValue(Record):
    """A value a compiled graph returns, by position."""

    position: Count = optional("its position in the graph's outputs")
    role: ReturnRole | None = optional("output or saved (absent when the outputs could not be matched)")
    fx_node: Name | None = required("the FX node it is")
    buffer: Name | None = optional("the output code's buffer")
    storage: Name | None = optional("the storage it lives in")
    is_input: Annotated[bool, Strict()] | None = optional("it is a graph input returned as is")
    bytes: Signed | None = optional("its storage's size")
    expr: Text | None = optional("its op chain; `grad(<input>)` for a backward graph's outputs")


class ReturnedStorage(Record):
    """The storage behind a returned value, as the simulation saw it."""

    name: Name = required("the buffer returned")
    storage: Name = required("the storage it lives in")
    bytes: Signed = required("its size (0 for a graph input)")
    is_input: Annotated[bool, Strict()] = required("it is a graph input")


class LiveBuffer(Record):
    """A storage alive at a graph's simulated peak."""

    storage: Name | None = optional("the buffer it was allocated as")
    names: list[Name] = optional("every name that refers to it")
    bytes: Signed = required("its size")
    role: LiveRole | None = optional("saved, output or temporary")
    fx_node: Name | None = optional("the FX node it holds (saved, output)")
    expr: Text | None = optional("that node's op chain")
    written_by: Text | None = optional("the kernel that wrote it (temporary)")
    source_nodes: list[Name] = optional("the FX nodes that kernel computes (temporary)")


class Unrecognized(Record):
    """An output-code statement the simulation did not understand."""

    line: Count = required("its line")
    text: Text = required("the statement")
    why: Text = required("why it was not understood")


class Kernel(Record):
    """A kernel call in the output code."""

    line: Count = required("its line")
    kernel: Text = required("the kernel")
    buffers: list[Name] = optional("the buffers it uses")
    source_nodes: list[Name] = optional("the FX nodes it computes")


class GraphMemory(Record):
    """A graph's memory simulated from its output code (*derived*)."""

    graph_id: Name = required("the graph")
    kind: GraphKind = optional("forward, backward or inference")
    error: Text = optional("why the output code could not be simulated (then nothing else is given)")
    graph_inputs: list[Name] = optional("the output code's input names")
    returned: list[ReturnedValue] = optional("per returned position")
    peak_bytes: Signed = optional("the simulated peak, graph inputs apart")
    peak_line: Count | None = optional("the output-code line of the peak")
    live_at_peak: list[LiveBuffer] = optional("what is alive there")
    returned_storages: list[ReturnedStorage | None] = optional("the storage behind each returned value")
    unrecognized: list[Unrecognized] = optional("statements not understood")
    kernels: list[Kernel] = optional("the kernel calls")
    allocations: list[tuple[Count, Name, Signed]] = optional("`[line, storage, bytes]`")
    curve: list[tuple[Count, Signed]] = optional("`[line, live bytes]`")
    returned_match: Annotated[bool, Strict()] | None = optional("the output code returns as many values as the FX graph")
    output_bytes: Signed | None = optional("the outputs' distinct storages")
    saved_bytes: Signed | None = optional("the saved values' distinct storages (forward graphs)")


class AliveItem(Record):
    """What is alive at a moment, one named item."""

    category: Category = required("what it is")
    item: Text = required("its name")
    bytes: Signed = required("its bytes")
    blocks: Count = optional("the allocations it is made of")
    evidence: Text | None = optional("how it was named")


class AliveAtEnd(Record):
    """What is alive when a phase ends (the end of forward: what the step holds for backward)."""

    event_index: Signed = optional("the event of that moment")
    alive_bytes: Signed = optional("all that is alive")
    by_category_bytes: dict[Category, Signed] = required("by category")
    top_items: list[AliveItem] = optional("the largest items")


class AttributionPhase(Record):
    """What is alive at a phase's peak."""

    peak_bytes: Signed = optional("the phase's peak")
    event_index: Signed = optional("the event of the peak")
    alive_bytes: Signed = optional("all that is alive there")
    named_fraction: NonNegative | None = optional("the share in a named category (not `other`)")
    by_category_bytes: dict[Category, Signed] = required("by category")
    top_items: list[AliveItem] = optional("the largest items")
    saved_for_backward: list[AliveItem] = optional("the saved values alive")
    at_end: AliveAtEnd = optional("what is alive when the phase ends")


class TransientBuffer(Record):
    """A buffer of a compiled backward graph's output code alive at the backward phase's peak: its allocation
    (*measured*) matched in order and size to the output code's (CPU), or by the output-code line in its stack
    (CUDA)."""

    graph: Name = required("the backward graph (`g0.backward`)")
    call: Count = required("the invocation whose backward it is (`invocations[call]`)")
    block: Name | None = optional("the block that call ran")
    storage: Name = required("the output code's buffer (`buf3`)")
    bytes: Count = required("its allocation's bytes (*measured*)")
    role: LiveRole = required("temporary (freed before the graph returns) or output (a gradient it returns)")
    kernel: Text | None = optional("the kernel that wrote it")
    nodes: list[Name] = optional(
        "the backward graph's FX nodes the kernels writing and reading it compute (their source nodes, by name or the "
        "Dynamo node they were traced from)"
    )
    ops: list[Name] = optional("those nodes' ops")
    lines: list[Text] = optional("the user's source lines that made them")
    recomputed: Annotated[bool, Strict()] = required(
        "one of those nodes is a value the backward recomputes from what forward saved (report.json `recomputed`)"
    )


class BackwardPeak(Record):
    """What is alive at the backward phase's peak inside the compiled backward graphs: their buffers named, and the
    figures they add up to."""

    peak_bytes: Signed = required("the backward phase's measured peak")
    event_index: Signed = required("the event of the peak")
    transient_bytes: Signed = required("the backward graphs' temporaries alive there (`recomputed_bytes` + `temporary_bytes`)")
    recomputed_bytes: Signed = required("those of them holding a recomputed value")
    temporary_bytes: Signed = required("the rest of them")
    gradient_bytes: Signed = required("the backward graphs' outputs alive there (gradients they returned)")
    other_bytes: Signed = required("everything else alive there")
    tolerance_bytes: Count = required(
        "how far `transient_bytes + gradient_bytes + other_bytes` may be from `peak_bytes`: 0 for the CPU profiler's "
        "events (every allocation and free is seen); on CUDA the snapshot replay's distance from the allocator's "
        "measured peak"
    )
    buffers: list[TransientBuffer] = optional("the backward graphs' buffers alive there, largest first")


class Attribution(Record):
    """What is alive at the peaks, by category and item."""

    source: AttributionSource = required("what it was read from")
    events: Count = optional("the events replayed")
    start_bytes: Signed = optional("CUDA: allocated when the trace starts")
    peak_bytes: Signed = optional("the step's peak")
    peak_phase: Phase | None = optional("the phase the step peaks in")
    alive_bytes: Signed = optional("all that is alive at the peak")
    alive_at_peak_bytes: Signed = optional("the same figure as `alive_bytes`")
    named_fraction: NonNegative | None = optional("the share in a named category (not `other`)")
    by_category_bytes: dict[Category, Signed] = optional("at the peak, by category")
    top_items: list[AliveItem] = optional("the largest items at the peak")
    saved_for_backward: list[AliveItem] = optional("the saved values alive at the peak")
    phases: dict[Phase, AttributionPhase] = optional("the same at each phase's peak")
    baseline: Text = optional("CPU: what the figures are relative to")
    measured: list[Text] = optional("which parts were measured")
    inferred: list[Text] = optional("which parts were inferred, and how")
    backward_peak: BackwardPeak | None = optional("CPU: the compiled backward graphs' buffers alive at backward's peak")


class SavedByModule(Record):
    """What one module saved for backward outside the compiled graphs (measured)."""

    module: Name = required("the module, by its name in the model (`(loss)`: the stand-in loss, outside any module)")
    bytes: Count = required("the bytes of the storages it saved first")
    storages: Count = required("how many storages")
    addresses: list[Count] = optional(
        "each storage's address in the measured process (an address, not a figure): what names an allocation the "
        "profiler saw alive at a peak saved-for-backward in an eager step"
    )


class SavedView(Record):
    """A saved value that is a view keeping a larger storage alive: autograd holds all of its base for the view's
    part (measured)."""

    module: Name = required("the module that saved it (as in `modules`)")
    shape: Shape = required("the view's shape")
    dtype: Name = required("its dtype")
    bytes: Count = required("the view's own bytes (its elements)")
    storage_bytes: Count = required("the bytes of the storage it keeps alive (its base's), counted in `modules`")


class SavedByRegion(Record):
    """What one eager torch_remat region saved for backward (measured): the storages its pack hook was handed inside
    the region, as torch_remat tells a pack hook where a tensor is saved (`current_saved_tensor_info`)."""

    checkpoint: Text | None = required("the torch_remat checkpoint (`remat.checkpoint`'s `region_name`; None: unnamed)")
    region: Text | None = required(
        "the `remat.region` whose saves they are (what its ops saved, and its outputs kept for the recompute); None: "
        "the checkpoint's own inputs (its boundary), which torch_remat's saved-tensors report bills to no region"
    )
    recompute: Annotated[bool, Strict()] | None = optional("that region's recompute flag")
    bytes: Count = required("the bytes of the storages it saved first, parameters apart")
    storages: Count = required("how many storages")


class SavedOutside(Record):
    """What autograd saved for backward outside the compiled graphs in the measured forward, measured at run time by
    a pack hook (the embedding's ids, the logits the loss keeps, eager blocks): each storage once, parameters apart."""

    total_bytes: Count = required("the storages saved, parameters apart (*measured*)")
    parameters_bytes: Count = required("parameters saved (alive anyway)")
    modules: list[SavedByModule] = required("by module, largest first")
    partial: Annotated[bool, Strict()] = optional(
        "eager activation checkpointing saved through hooks of its own inside its regions: only their boundaries seen "
        "(and, under torch_remat, what its recompute=False regions keep: `regions`)"
    )
    views: list[SavedView] = optional(
        "the saved values that are views of a larger storage, each with its own bytes and the storage's, largest storage first"
    )
    regions: list[SavedByRegion] = optional(
        "the same storages by eager torch_remat region, where torch_remat ran eagerly (each checkpoint's own inputs, "
        "then what each region in it saved, in the order they ran); what ran in no region is in `modules` alone"
    )


class CompiledFrame(Record):
    """One function torch.compile ran (a block's forward, a resume function after a graph break), as Dynamo compiled
    it: read from its CompilationMetrics."""

    function: Name = required("the function (its code object's name)")
    file: Text | None = optional("its file")
    line: Count | None = optional("the line it starts on")
    compiles: Count = required("how many times Dynamo compiled it (once per set of guards: per block where they differ)")
    graphs: Count = required("compiles that produced a graph with ops")
    ops: Count = required("the ops in those graphs")
    eager_compiles: Count = required("compiles that produced no graph: that code ran eagerly")
    failed: Text | None = optional("why Dynamo gave up on the frame, in its words")


class GraphBreak(Record):
    """A place where Dynamo stopped tracing the user's code and ran it eagerly (no `fullgraph`)."""

    reason: Text = required("what Dynamo refused, by its graph-break type (`HOP: Unsafe side effect`)")
    explanation: Text | None = optional("Dynamo's explanation, as it says it")
    file: Text | None = optional("the user's file Dynamo names")
    line: Count | None = optional("the line in it")
    function: Name | None = optional("the function being compiled")
    module: Name | None = optional("the module whose forward was being compiled, by its name in the model")
    higher_order_op: Name | None = optional("the higher-order op it happened inside (`torch.utils.checkpoint.checkpoint`)")
    checkpointed: Annotated[bool, Strict()] = required("inside a checkpointed region: the whole region ran eagerly")
    ran_eagerly: Annotated[bool, Strict()] = required("the frame's compile that broke produced no graph: all of it ran eagerly")
    count: Count = required("how many times Dynamo hit it")


class SideEffect(Record):
    """An attribute a checkpointed region sets on an object from outside it, which Dynamo let the region keep (``skip_fwd_side_effects_in_bwd_under_checkpoint``):
    the compiled forward applies it once, the backward's recompute does not replay it."""

    mutated: Name = required("the attribute set, by its object's type (`CompileableContextVar.global_var`)")
    file: Text | None = optional("where (the innermost frame)")
    line: Count | None = optional("the line")
    function: Name | None = optional("the function")
    called_from: Text | None = optional("the frame that called it (`file:line`)")
    count: Count = required("how many times Dynamo traced it")


class CompileCoverage(Record):
    """What torch.compile compiled of the code it was asked to run, what it ran eagerly and why (Dynamo's own
    records: docs/how-it-works.md)."""

    frames: list[CompiledFrame] = required("each function compiled, in the order Dynamo first compiled it")
    graph_breaks: list[GraphBreak] = required("each graph break, with its reason and the user's frame")
    side_effects: list[SideEffect] = optional("side effects a checkpointed region kept, when memprobe let it")
    side_effects_skipped_in_recompute: Annotated[bool, Strict()] = optional(
        "memprobe set Dynamo's `skip_fwd_side_effects_in_bwd_under_checkpoint` (it builds the stack; never in a script)"
    )
    unread: list[Text] = optional("what this torch does not let memprobe read (a missing Dynamo method)")


class ModelShape(Record):
    """What the probe built."""

    blocks_attr: Name = optional("the block container's attribute path")
    blocks: Count = optional("how many blocks")
    block_parameters: dict[Name, Count] = optional("parameters (elements) per block")
    other_parameters: Count = optional("parameters outside the blocks")
    other_parameter_numels: list[Count] = optional(
        "the elements of each parameter outside the blocks (FSDP2's root module holds them), in the model's order"
    )
    block_arguments: list[Name] = optional("the names of a block's forward arguments, in order (they name its graph inputs)")
    code_files: list[FilePath] = optional("the model's own source files (its --model file, or its library's modeling files)")
    whole_model: Name | None = optional(
        "the block that is the whole model (a script's `torch.compile(model)`), named by the model's class: its values"
        " are named from the model's root, as the user names them"
    )


class Float8Linear(Record):
    """A linear layer (or a module computing like one) and what float8 training did with it."""

    fqn: Name = required("its module path")
    in_blocks: Annotated[bool, Strict()] = required("whether it is inside the blocks")
    converted: Annotated[bool, Strict()] = required("whether float8 training converted it")
    parameters: Count = required("its weight's elements")
    type: Name | None = optional("its module type (`Linear`, `Conv1D`)")
    weight_shape: list[Count] = optional("its weight's shape")
    skipped: Float8Skip | None = optional("why it was left in bf16")


class Float8Coverage(Record):
    """Which linears a float8 recipe converted, and which it skipped and why."""

    linears: list[Float8Linear] = required("every linear-like module")
    block_linear_parameters: Count = required("the blocks' linear weight elements")
    block_converted_parameters: Count = required("of those, the converted ones")
    recipe: Name | None = optional("the float8 recipe")
    converter: Name | None = optional("whose converter ran (memprobe's, torchtitan's)")


class RankRow(Record):
    """One rank of a multi-rank run."""

    rank: Count = required("the rank")
    status: RunStatus = required("its run's status")
    run_dir: FilePath = required("its run directory (`rank<R>`)")
    parameters_bytes: Count | None = optional("its parameters")
    optimizer_state_bytes: Count | None = optional("its optimizer state")
    saved_graph_bytes: Count | None = optional("its saved bytes, derived")
    saved_runtime_bytes: Count | None = optional("its saved bytes, measured")
    forward_peak_bytes: Signed = optional("its forward peak")
    backward_peak_bytes: Signed = optional("its backward peak")
    optimizer_peak_bytes: Signed = optional("its optimizer peak")
    peak_reserved_bytes: Signed = optional("CUDA: the most it reserved in any phase of the measured step")
    measured_step_s: NonNegative = optional("how long its measured step took")


class Distributed(Record):
    """Ranks: a rank's own view, or (top level of a multi-rank run) the merge of all of them."""

    rank: Count = optional("this rank")
    world_size: Annotated[int, Strict(), Ge(1), Le(10**7)] | None = optional("the ranks in all")
    backend: Name | None = optional("the process group's backend")
    faked: Annotated[bool, Strict()] = optional(
        "one process ran rank 0 of world_size over PyTorch's fake process group (--fake-world): what rank 0 allocates "
        "is measured; the collectives moved no data, and NCCL's own buffers and the overlap of communication with "
        "compute were not measured (headline says so)"
    )
    nproc_per_node: Count = optional("ranks on this node")
    launcher: Text = optional("how the ranks were started")
    ranks: list[RankRow] = optional("per rank")
    max_bytes: dict[Name, Signed] = optional("each figure's maximum over the ranks")
    skew_bytes: dict[Name, Signed] = optional("each figure's maximum minus minimum over the ranks")
    headline: Text = optional("what the top-level figures are")
    largest_rank: Count | None = optional("the rank whose measured step peaked highest (allocated)")
    slowest_rank: Count | None = optional("the rank whose measured step took longest")


class Timings(Record):
    """Seconds."""

    first_step: NonNegative = optional("the first step, compilation included")
    measured_step: NonNegative = optional("the measured step")
    total: NonNegative = optional("the whole probe")
    startup: NonNegative = optional("from the process's start to building (imports, devices), a held wait apart")
    held: NonNegative = optional("a prewarmed process's wait for its turn (not part of the probe's cost)")
    build: NonNegative = optional("building the model and applying float8, AC, compile and FSDP")
    snapshot_dump: NonNegative = optional("CUDA: writing the allocator history (inside the measured step's figure)")
    analysis: NonNegative = optional("deriving the saved table, the simulated graphs, the attribution and the findings")


class CacheLookups(Record):
    """A compile cache's lookups during the probe's first step (torch's own counters)."""

    hit: Count = optional("entries found")
    miss: Count = optional("entries not found (compiled, then stored)")
    bypass: Count = optional("graphs the cache cannot key")


class CompileCache(Record):
    """What the compile caches gave the first step."""

    dir: FilePath | None = optional("the Inductor cache directory used")
    state: CacheState = optional("cold, warm, or partly warm")
    aot_autograd: CacheLookups = optional("AOTAutograd's cache")
    fx_graph: CacheLookups = optional("Inductor's FX graph cache")
    graphs_from_records: Count = optional("graphs whose capture came from memprobe's records beside the cache")
    records_written: Count = optional("records memprobe wrote beside new cache entries")


class FailurePoint(Record):
    """Where a failed run stopped."""

    phase: Phase | None = optional("the phase it was in")
    step: Count | None = optional("the step it was in")


class SavedGroup(Record):
    """Saved values that differ only in their layer index (`abs(layers.*.ffn.w1.weight) x 4`): a line of the run's
    saved table as the console shows it (*derived*)."""

    label: Text = required("its one name, layer index as `*`: what every table, finding and page shows for it")
    expr: Text = required("its op chain, layers as `*`")
    kind: SavedKind = required("what it is computed from")
    count: Count = required("the rows grouped: a value per block that saved it")
    bytes: Count = required("their bytes (a graph input given to several calls counts once)")
    bytes_each: Count = required("one row's bytes")
    shared: Annotated[bool, Strict()] = required("a later call was given the same tensor as an earlier one")
    shape: Shape | None = required("from the node's fake tensor")
    dtype: Name | None = required("from the node's fake tensor")
    reason_kind: Reason = required("why it was saved")
    reason: Text = required("why it was saved, in words")
    policy_op: Name | None = required("the save-list op, when the node's own op is in the policy's list")
    user: UserTerms | None = required("the value in the user's terms, layers as `*`")
    cause: Cause | None = required("why it was saved, from the compiler's own decisions (its first row's)")
    blocks: list[Name] = required("the blocks that saved it")


class AliveGroup(Record):
    """Saved values alive at a peak that share one name across layers."""

    label: Text = required("their one name, layer index as `*`")
    bytes: Count = required("their bytes")
    count: Count = required("how many")


class SavedModuleGroup(Record):
    """The modules of `saved_outside` that differ only in their layer index, as one row (each layer's copy of a
    module: `transformer.h.*.mlp.act`)."""

    module: Name = required("their one name, layer index as `*` (a module without one: its own name)")
    bytes: Count = required("what they saved in all (*measured*)")
    count: Count = required("how many modules")
    eager_reason: Text | None = optional(
        "where Dynamo graph-broke on one of them: why it ran eagerly, the first's first break in a few words"
    )


class RunView(Record):
    """What the reporters show of a run that is derived from its records (`analysis.view`): derived with the rest
    when the run is finished, and for a run recorded before this section, when it is loaded. The console, Markdown,
    HTML and CSV reporters render it; none of them computes it."""

    saved_groups: list[SavedGroup] = required(
        "the saved table's rows that differ only in their layer index, grouped; largest first (weight-derived first among equals)"
    )
    saved_row_groups: list[Count] = required(
        "for each row of `saved_tensors`, in order, the number of the value it is whatever its layer (its structural "
        "identity, dtype and shape), numbered in the order of the rows (the CSV's `group`)"
    )
    saved_alive: list[AliveGroup] = required(
        "the saved values alive at the forward peak (`attribution`), grouped across layers by their one name, largest first"
    )
    compile_coverage: Text | None = required("what did not compile, in one line (null: everything compiled)")
    eager_reasons: dict[Text, Text] = required(
        "for each module of `saved_outside` that Dynamo graph-broke on: why it ran eagerly, its first break in a few words"
    )
    saved_outside_groups: list[SavedModuleGroup] | None = optional(
        "what autograd saved outside the compiled graphs (`saved_outside.modules`), the modules that differ only in "
        "their layer index as one row; largest first (absent: the run saved nothing outside them)"
    )
    float8_skipped: Text | None = required("the blocks' linears the float8 recipe left in bf16, in a line (null: none)")


class Report(Record):
    """`report.json`: one probe's run. Every figure is in bytes."""

    schema_version: Annotated[int, Strict(), Ge(SCHEMA_VERSION), Le(SCHEMA_VERSION)] = optional(
        f"`{SCHEMA_VERSION}`; readers refuse other versions"
    )
    tool: Tool = optional("the memprobe that wrote it")
    status: RunStatus = required("running (written first), complete, failed (with `error`), interrupted, oom")
    created_utc: Text | None = optional("ISO-8601 time the run began")
    finished_utc: Text | None = optional("ISO-8601 time it ended")
    command: list[Text] = optional("what the user typed (for a probe a verb started, the verb's command)")
    process: ProcessRecord | None = optional("the process that measured it")
    config: Config = required("the probe configuration")
    mode: RunMode = optional(
        "full, or analysis-only (graphs traced and partitioned as for Inductor, run uncompiled: no output code, "
        "`graph_memory` empty, `attribution` null)"
    )
    device: Device = required("the device it ran on")
    versions: Versions = required("the software it ran with")
    policy: Policy | None = optional("the effective SAC policy; null unless `ac` is `op`")
    policy_decisions: dict[Name, dict[CheckpointDecision, Count]] | None = optional(
        "what the policy answered per op while the graphs were traced (counts per trace, not per step)"
    )
    graphs: list[GraphEntry] = required("one per partitioned graph")
    invocations: list[Invocation] = required("each compiled call in the measured step's forward")
    saved_tensors: list[SavedRow] = required("the saved-for-backward table")
    saved_totals: SavedTotals | None = optional("its totals")
    recomputed: list[RecomputedValue] = optional("what each backward graph recomputes from the saved values")
    findings: list[Finding] = required("ranked by bytes")
    checks: list[Check] = optional("every check that ran")
    verdict: Verdict | None = optional(
        "the answer first; written once the run's status is known (a report without it gets one when shown)"
    )
    memory: Memory | None = optional("the measured step's memory")
    graph_memory: list[GraphMemory] | None = optional("each graph's memory simulated from its output code")
    attribution: Attribution | None = optional("what is alive at the peaks")
    timings_s: Timings = optional("how long it took")
    model: ModelShape | None = optional("what was built")
    saved_outside: SavedOutside | None = optional(
        "what autograd saved for backward outside the compiled graphs in the measured forward, by module (*measured*)"
    )
    compile_cache: CompileCache | None = optional("what the compile caches gave the first step")
    float8: Float8Coverage | None = optional("float8 runs: which linears were converted, which skipped and why")
    compile_coverage: CompileCoverage | None = optional(
        "compiled runs: what Dynamo compiled, where it graph-broke and what ran eagerly"
    )
    notes: list[Text] = optional("what memprobe changed in the model to train it (the KV cache turned off, ...), said once")
    distributed: Distributed | None = optional("the ranks")
    error: Text | None = optional("why the run failed")
    analysis_error: Text | None = optional("an analysis step failed on what the run recorded (a bug of memprobe's)")
    oom: FailurePoint = optional("where the run ran out of memory")
    failed_at: FailurePoint = optional("where the run failed")
    view: RunView | None = optional(
        "what the reporters show that is derived from the rest: written with the derived sections (a report without "
        "it gets it when loaded)"
    )


# -- graphs/*.json -----------------------------------------------------------------------------------------


class NodePartition(Record):
    """What the installed torch's min-cut partitioner decided about a node of the joint graph, read from its own
    flow graph and passes while it partitioned (docs/how-it-works.md)."""

    banned: Annotated[bool, Strict()] = optional("it may not be recomputed in backward (an edge from the flow graph's source)")
    rule: Text | None = optional(
        "why it may not be recomputed, in the installed torch's words (`not in recomputable allowlist`, `random op`, "
        "`compute intensive op`, `primal input`, ...); absent where that torch names no reason"
    )
    must_recompute: Annotated[bool, Strict()] = optional("its SAC tag makes the partitioner recompute it")
    cannot_save: Text | None = optional("why it may not be saved, in the installed torch's words")
    retagged_by: Name | None = optional("the partitioner pass that tagged it MUST_SAVE before the cut")
    traced_tag: CheckpointDecision | None = optional("the SAC tag it was traced with, when a pass retagged it")
    memory_budget: Share | None = optional("the activation memory budget in force (below 1: its knapsack chose what is saved)")


class Node(Record):
    """One FX node of a partitioned graph."""

    name: Name = required("its name")
    op: NodeOp = required("its opcode")
    target: Text | None = optional("the op it calls (`aten.abs.default`)")
    inputs: list[Name] = required("the nodes it reads")
    shape: Shape | None = optional("its value's shape")
    dtype: Name | None = optional("its value's dtype (or a Python type's name for a scalar)")
    bytes: Count = optional("its value's bytes (a symbolic size: the traced example's)")
    storage_bytes: Count = optional(
        "the bytes its value's memory spans, where fewer than `bytes`: a broadcast view (an expanded attention mask) "
        "holds its base's storage only"
    )
    symbolic: Annotated[bool, Strict()] = optional("a size is symbolic")
    recompute: CheckpointDecision | None = optional("its SAC tag")
    original_aten: Text | None = optional("the aten op it was decomposed from")
    stack_trace: Text | None = optional("the Python stack that made it")
    from_node: Name | None = optional(
        "the node of the Dynamo graph it was traced from (Inductor's output code names kernels' source nodes so)"
    )
    outputs: list[Name | None] = optional("the output node's values, in order")
    module: Text | None = optional("the innermost module, relative to the compiled block")
    module_type: Name | None = optional("that module's class")
    source_fn: Name | None = optional("the Python call that made it")
    source_fn_kind: SourceFnKind | None = optional("whether that call is a module or a function")
    backward_work: Annotated[bool, Strict()] = optional("backward work the partitioner placed in forward")
    index: Annotated[int, Strict(), Ge(-(10**6)), Le(10**6)] | None = optional(
        "for a getitem node: which output of its producer it takes"
    )
    hops: list[Name] = optional(
        "the higher-order ops it was traced inside, outermost first (`tag_activation_checkpoint`: a checkpointed "
        "region; `autograd.function`: a custom autograd.Function)"
    )
    autograd_function: Name | None = optional("the custom autograd.Function whose forward made it (its qualified name)")
    remat_region: Text | None = optional(
        "the torch_remat region (`remat.region`) it was traced in: its name, as the call gave it (`ffn.up`)"
    )
    remat_recompute: Annotated[bool, Strict()] | None = optional("that region's recompute flag")
    remat_checkpoint: Text | None = optional(
        "the torch_remat checkpoint (`remat.checkpoint`) it was traced in: its region_name (`layers.0`; absent: unnamed)"
    )
    partition: NodePartition | None = optional("what the partitioner decided about it (absent: not recorded)")


class GraphFile(Record):
    """`graphs/<graph_id>.json`: a partitioned graph's nodes."""

    graph_id: Name = optional("the graph")
    nodes: list[Node] = required("its nodes, in order")


# -- diff.json ---------------------------------------------------------------------------------------------


class Delta(Record):
    """A figure on both sides."""

    a: Signed | None = required("A's")
    b: Signed | None = required("B's")
    delta: Signed | None = required("B - A (null when either is)")


class DiffSide(Record):
    """One side of a diff."""

    config: Config = required("its configuration")
    summary: Text = required("it in one line")
    device: DeviceType | None = optional("the device it ran on")
    versions: Versions | None = optional("the software it ran with")
    status: RunStatus | None = optional("its run's status")
    source: FilePath = optional("its run directory")
    process: ProcessRecord | None = optional("the process that measured it (`pid`, `host`, `python`)")
    env: dict[Name, Text | None] = optional("the settings given to this side alone")


class Decision(Record):
    """What one side of a diff did with a value: saved it (why), recomputed it in backward, or neither."""

    fate: Fate = required("saved, recomputed or absent")
    cause: Cause | None = optional("why it was saved (saved)")
    tag: CheckpointDecision | None = optional("the SAC tag of its op on this side (absent: untagged)")
    checkpointed: Annotated[bool, Strict()] = optional("traced inside a checkpointed region on this side")
    function: Name | None = optional("the custom autograd.Function whose forward made it")
    text: Text = required("in words")


class DiffItem(Record):
    """A group of saved values that differ, identical but for their layer."""

    status: DiffStatus = required("how it differs")
    expr: Text = required("its op chain, layers as `*`")
    shape: Shape | None = optional("its shape")
    dtype: Name | None = optional("its dtype")
    kind: SavedKind = required("what it is computed from")
    reason_kind: Reason = required("why it is saved")
    reason: Text | None = optional("why, in words")
    policy_op: Name | None = optional("the save-list op")
    count: Count = required("values in the group")
    blocks: list[Name] = optional("their blocks")
    bytes_a: Count = required("A's bytes")
    bytes_b: Count = required("B's bytes")
    delta_bytes: Signed = required("B - A")
    hint: Text | None = optional("what to do")
    user: UserTerms | None = optional("it in the user's terms, layers as `*`")
    label: Text | None = optional("its one name, as the runs' tables and findings give it")
    roots: list[Text] = optional("the parameters and inputs it is computed from, layers as `*`")
    a_decision: Decision | None = optional("what side A did with the value")
    b_decision: Decision | None = optional("what side B did with the value")
    added_blocks: list[Name] = optional(
        "the blocks these values belong to, which only the side that saves them has (a model one block deeper: "
        "`transformer.h.2`); absent otherwise"
    )


class Change(Record):
    """What differs between the sides besides their saved values: the cause a diff's values changed with."""

    kind: ChangeKind = required("software, configuration, both, settings, or nothing")
    flags: list[Text] = optional("the configuration's differences, as flags (`--ac-policy torchtitan -> torchtitan-2025-01`)")
    text: Text = required("in words")


class DiffTotals(Record):
    """Totals of both sides."""

    saved_bytes: Delta = required("saved for backward, derived")
    saved_runtime_bytes: Delta = optional("saved for backward, measured")
    parameter_saved_bytes: Delta = optional("parameters saved as graph inputs")
    items_delta_bytes: Signed = optional("the items' deltas summed (equals `saved_bytes.delta`)")
    step_saved_bytes: Delta | None = optional(
        "saved for backward per step in all: `saved_bytes` plus what autograd saved outside the compiled graphs "
        "(measured at run time), where both sides recorded it"
    )


class PhaseDelta(Record):
    """A phase's measured figures on both sides."""

    peak_bytes: Delta = optional("the peak")
    end_bytes: Delta = optional("the level at its end")
    peak_reserved_bytes: Delta = optional("CUDA: the reserved peak (depends on each process's history)")


class ComparedPhase(Record):
    """A phase's measured figures on both sides, compared: its peak at least."""

    peak_bytes: Delta = required("the peak")
    end_bytes: Delta = optional("the level at its end")
    peak_reserved_bytes: Delta = optional("CUDA: the reserved peak (depends on each process's history)")


class PhaseDeltas(Record):
    """The measured phases on both sides, measured the same way: compared."""

    comparable: Literal[True] = required("`true`")
    source: MemorySource | None = required("how both were measured")
    phases: dict[Phase, ComparedPhase] = required("per phase")
    why: Text = optional("why not comparable")
    baseline: Text | None = optional("what the figures are relative to")
    history_dependent: list[Name] = optional("figures that depend on each process's history")


class PhasesNotCompared(Record):
    """The measured phases of sides measured differently (one on the CPU, one on CUDA): not compared."""

    comparable: Literal[False] = optional("`false`")
    why: Text = optional("why not comparable")
    source: MemorySource | None = optional("how both were measured")
    baseline: Text | None = optional("what the figures are relative to")
    phases: dict[Phase, PhaseDelta] = optional("per phase")
    history_dependent: list[Name] = optional("figures that depend on each process's history")


def _phases_form(value: Any) -> str:
    comparable = value.get("comparable") if isinstance(value, dict) else getattr(value, "comparable", None)
    return "compared" if comparable is True else "not compared"


# a diff's measured phases: compared (each phase's peak at least) when the sides were measured the same way
MeasuredPhases = Annotated[
    Annotated[PhaseDeltas, Tag("compared")] | Annotated[PhasesNotCompared, Tag("not compared")],
    Discriminator(_phases_form),
]


class GraphDelta(Record):
    """A graph's simulated figures on both sides."""

    graph_id: Name = required("the graph")
    peak_bytes: Delta = required("its simulated peak")
    saved_bytes: Delta = required("its saved bytes")


class AliveDeltas(Record):
    """What is alive at the peaks, by category, on both sides (same source only)."""

    source: AttributionSource = optional("what both were read from")
    phases: dict[Phase, dict[Category, Delta]] = optional("at each phase's peak")
    at_end: dict[Phase, dict[Category, Delta]] = optional("at each phase's end")


class VersionPair(Record):
    """A library's version on each side (null where it is not installed)."""

    a: Text | None = optional("side A's")
    b: Text | None = optional("side B's")


class Schedule(Record):
    """How the sides that ran were scheduled."""

    at_once: Annotated[bool, Strict()] = optional("whether they ran at the same time")
    slots: Count = optional("probes at once")
    gpus: list[Name] | None = optional("the GPUs they were given")
    shared_gpu: Annotated[bool, Strict()] = optional("whether they shared one GPU")
    why: Text = optional("the rule that decided, in words")
    needs_bytes: dict[Name, Count | None] = optional("each side's memory need, in bytes (a bound, or a recorded peak)")
    needs_basis: dict[Name, Text] = optional("what each need is based on")
    free_bytes: dict[Name, Count | None] = optional("each GPU's free memory when they were placed")


class Float8Share(Record):
    """A side's float8 coverage in brief: how much of its blocks' matmul weights its recipe converted."""

    recipe: Recipe = required("the float8 recipe")
    block_parameters: Count = required("the blocks' matmul weights (linears, experts), in elements")
    converted_parameters: Count = required("those the recipe converted")


class Float8Compared(Record):
    """Each side's float8 coverage (null for a bf16 side, or one recorded before coverage was)."""

    a: Float8Share | None = required("side A's")
    b: Float8Share | None = required("side B's")


class SavedOutsideDelta(Record):
    """What autograd saved outside the compiled graphs on each side (measured at run time), in all and by module."""

    total: Delta = required("in all, parameters apart")
    modules: dict[Name, Delta] = required("by module, the modules whose bytes differ, largest difference first")


class CoverageDelta(Record):
    """Where the sides' compile coverage differs: the graph breaks one side hit and the other did not."""

    only_b: list[GraphBreak] = required("breaks in B only")
    only_a: list[GraphBreak] = required("breaks in A only")


class DiffResult(Record):
    """`diff.json`: what B keeps alive for backward that A does not, and why."""

    diff_schema_version: Version1 = optional("`1`")
    a: DiffSide = required("side A")
    b: DiffSide = required("side B")
    differences: Count = required("differing groups")
    unchanged_items: Count = required("matched saved values that did not change (parameters apart)")
    items: list[DiffItem] = required("the differences, ranked")
    totals: DiffTotals = required("totals")
    phases: MeasuredPhases | None = optional("measured phases")
    graphs: list[GraphDelta] = optional("simulated graphs")
    alive_at_peak: AliveDeltas | None = optional("what is alive at the peaks")
    verdict: Verdict | None = optional("the answer first (`bytes`: the cause that grew most; `total_bytes`: B - A)")
    versions_differ: dict[Name, VersionPair] = optional("the libraries whose versions differ between the sides")
    schedule: Schedule | None = optional("how the sides that ran were scheduled (at once, one GPU each or sharing one)")
    change: Change | None = optional("what differs between the sides: their software, their configuration, both, or nothing")
    float8: Float8Compared | None = optional("each side's float8 coverage, when a side trains in float8")
    saved_outside: SavedOutsideDelta | None = optional(
        "what autograd saved outside the compiled graphs on each side (*measured*; both sides recorded it)"
    )
    compile_coverage: CoverageDelta | None = optional(
        "the graph breaks one side hit and the other did not (null: the same, or not recorded)"
    )
    findings: list[Finding] = optional(
        "what a side's own run found that the comparison must not hide (a float8 recipe that converted none or a "
        "minority of its blocks' weights), its message naming the side"
    )


# -- explain.json ------------------------------------------------------------------------------------------


class RecomputeCost(Record):
    """What a partition recomputes in backward per step (an estimate from the graphs)."""

    flops: Signed = required("2*M*N*K per matmul, one per output element otherwise")
    bytes_moved: Signed = required("inputs read plus outputs written")
    ops: dict[Name, Count] = optional("recomputed ops and how often")


class ExplainBase(Record):
    """The base run."""

    config: Config = required("its configuration")
    saved_bytes: Signed | None = required("its saved bytes, derived")
    recompute: RecomputeCost = required("what it recomputes")
    run: Text = optional("its run directory")


class EditItem(Record):
    """A saved value an edit frees or adds."""

    expr: Text = required("its op chain, layers as `*`")
    user: UserTerms | None = optional("it in the user's terms")
    count: Count = optional("values in the group")
    kind: SavedKind = optional("what it is computed from")
    bytes_a: Count = optional("bytes before the edit")
    bytes_b: Count = optional("bytes after")
    delta_bytes: Signed = optional("after - before")
    label: Text = optional("its one name, layer index as `*`, as the runs' tables give it")


class Edit(Record):
    """One save-list op moved to recompute."""

    op: Name | None = optional("the save-list op it recomputes (a policy edit; absent for another AC mode)")
    edit: Text = required("the edit in words")
    flag: Text = required("the flag that makes it")
    bytes_saved: Signed = required("saved bytes it frees per step")
    recompute_flops_added: Signed = required("recompute FLOPs it adds (estimate)")
    recompute_bytes_added: Signed | None = required("recompute bytes moved it adds (estimate)")
    bytes_saved_per_flop: Number = optional("the ranking ratio")
    freed: list[EditItem] = optional("values it frees")
    added: list[EditItem] = optional("values it adds")
    run: Text = optional("its run directory")


class PartitionerItem(Record):
    """A value the min-cut partitioner chose to save."""

    expr: Text = required("its op chain")
    user: UserTerms | None = optional("it in the user's terms")
    block: Name | None = optional("its block")
    bytes: Count = optional("its bytes")
    op: Name = optional("its op")
    fate: Text = optional("what would change it")
    label: Text = optional("its one name, layer index as `*`, as the runs' tables give it")


class ExplainResult(Record):
    """`explain.json`: SAC policy edits ranked by bytes freed per added FLOP."""

    base: ExplainBase = required("the base run")
    edits: list[Edit] = required("best first")
    partitioner_items: list[PartitionerItem] = required("values the partitioner saved on its own")
    mode: RunMode = required("how the edited runs ran")
    verdict: Verdict | None = optional("the answer first: the best edit, what it frees, its flag")


# -- bisect.json -------------------------------------------------------------------------------------------


class Trial(Record):
    """One configuration pair tried."""

    removed: Text = required("the feature removed (or `nothing (as given)`)")
    pass_: BisectPass = Field(default=None, alias="pass", description="the pass it belongs to")
    a: Text = optional("side A's configuration in one line")
    b: Text = optional("side B's")
    runs: list[Text] = optional("the two run directories")
    held_a: Signed | None = required("A's bytes held at the end of forward (*measured*)")
    held_b: Signed | None = required("B's")
    delta_bytes: Signed | None = required("B - A; null when a side could not run")
    exceeds: Annotated[bool, Strict()] | None = required("whether B still exceeds A by the threshold; null when not tried")
    modes: list[RunMode | None] = optional("how each side ran")
    error: Text | None = optional("why a side could not run")


class Minimal(Record):
    """The minimal configurations found."""

    a: Text = required("A in one line")
    b: Text = required("B in one line")
    a_flags: list[Text] = optional("A's `memprobe run` flags")
    b_flags: list[Text] = optional("B's")


class SideEnvRecord(Record):
    """What a side's process ran with besides its configuration."""

    env: dict[Name, Text] = optional("NAME -> value settings")
    python: Text | None = optional("another interpreter")


class BisectResult(Record):
    """`bisect.json`: which features a regression needs, and a minimal configuration."""

    min_delta: Text = optional("as given: a share of the gap (`25%`) or a size")
    given_delta_bytes: Signed = optional("B - A as given")
    threshold_bytes: Count = required("what `min_delta` came to")
    metric: Text = optional("what is compared")
    trials: list[Trial] = required("every configuration pair tried, in order")
    necessary: list[Text] = optional("features without which B no longer exceeds A")
    unnecessary: list[Text] = optional("features it does not need")
    not_applicable: list[Text] = optional("features the configurations lack")
    untested: list[Text] = optional("features whose trial could not run")
    minimal: Minimal = required("the minimal configurations")
    envs: dict[Name, SideEnvRecord] = optional("the sides' own settings")
    conclusion: Text = required("in words")


# -- memprobe repro -------------------------------------------------------------------------------------------


class ReproFigures(Record):
    """What a side of a repro script measures in its last step, as its run recorded it (the script checks itself
    against these)."""

    saved_bytes: Count = required(
        "saved for backward, each storage once: the compiled graphs' at run time plus what autograd saved outside them"
    )
    parameter_bytes: Count = required("parameters saved for backward, apart")
    peak_bytes: Count | None = optional("the step's peak on CUDA (null on the CPU)")


class ReproStep(Record):
    """One step of `memprobe repro --minimize`: what was removed or made smaller, and whether the difference stayed."""

    tried: Text = required("what was removed, or the size made smaller (`--dim 512 -> 16`)")
    kept: Annotated[bool, Strict()] | None = required("the difference remained, so the change was kept (null: it could not run)")
    a: Text = required("side A in one line")
    b: Text = required("side B in one line")
    runs: list[Text] = optional("the trial's run directories")
    error: Text | None = optional("why it could not run")


class ReproMinimized(Record):
    """What `memprobe repro --minimize` made smaller."""

    difference: Text = required("the saved value whose difference every step kept (the diff's first item)")
    given: Minimal = required("the configurations as recorded")
    recorded_by: Text = optional("the command that recorded them")
    minimal: Minimal = required("the smallest that still showed the difference")
    steps: list[ReproStep] = required("every change tried, in order")
    given_seconds: NonNegative | None = optional("the recorded sides' run time, compile included, summed (`timings_s.total`)")
    minimal_seconds: NonNegative | None = optional("the minimal sides' run time, summed")
    given_step_seconds: NonNegative | None = optional("the recorded sides' measured steps, summed (`timings_s.measured_step`)")
    minimal_step_seconds: NonNegative | None = optional("the minimal sides' measured steps, summed")
    given_parameters: Count | None = optional("side B's parameters as recorded")
    minimal_parameters: Count | None = optional("side B's parameters, minimal")
    run: Text = required("the minimal sides' diff directory (full runs: the script's figures)")


class ReproResult(Record):
    """What `memprobe repro` wrote: a standalone script that reproduces a run, or both sides of a diff."""

    script: FilePath = required("the script written")
    source: FilePath = required("the run or diff directory it reproduces")
    sides: dict[Name, ReproFigures] = required("the figures the script checks itself against: `run`, or `a` and `b`")
    together: Annotated[bool, Strict()] = required(
        "both sides run from one interpreter (`python repro.py`); else each side under its own (`--side a|b`)"
    )
    minimized: ReproMinimized | None = optional("`--minimize`: what was made smaller first")
    check: Text | None = optional("`--check`: what the script printed when run with this interpreter")


# -- sweep.json --------------------------------------------------------------------------------------------


class SweepPoint(Record):
    """One memory budget probed."""

    budget: Share = required("the partitioner's activation memory budget")
    run: Text = required("its run directory")
    saved_bytes: Count | None = required("saved for backward (*derived*)")
    step_peak_bytes: Signed | None = required("the step's peak (*measured*)")
    forward_end_bytes: Signed | None = required("held at the end of forward (*measured*)")
    source: MemorySource | None = required("how it was measured")


class Inversion(Record):
    """A pair of budgets where the lower one gave more bytes."""

    metric: Name = required("the figure")
    lower_budget: Share = required("the lower budget")
    higher_budget: Share = required("the higher budget")
    lower_budget_bytes: Signed = required("the figure at the lower budget")
    higher_budget_bytes: Signed = required("at the higher budget")
    excess_bytes: Signed = required("the difference")


class SweepResult(Record):
    """`sweep.json`: saved bytes and the measured peak against the partitioner's memory budget."""

    sweep_schema_version: Version1 = required("`1`")
    config: Config = required("the configuration swept (its memory budget apart)")
    summary: Text = required("it in one line")
    points: list[SweepPoint] = required("per budget, ascending")
    inversions: list[Inversion] = required("where less budget gave more bytes")
    note: Text = optional("what the budget's ends mean")


# -- memprobe-baseline.json --------------------------------------------------------------------------------


class BaselineVersions(Record):
    """The software a baseline was recorded with."""

    torch: Name | None = optional("torch")
    torchao: Name | None = optional("torchao")
    memprobe: Name | None = optional("memprobe")
    device_name: Text | None = optional("the device")


class BaselineGraphMemory(Record):
    """A graph's simulated figures."""

    graph_id: Name = required("the graph")
    kind: GraphKind | None = optional("its kind")
    peak_bytes: Signed | None = optional("its simulated peak")
    saved_bytes: Signed | None = optional("its saved bytes")


class BaselineMemory(Record):
    """The run's measured phases."""

    source: MemorySource | None = optional("how they were measured")
    baseline: Text | None = optional("what they are relative to")
    phases: dict[Phase, PhaseMemory] | None = optional("per phase")


class BaselineAttributionPhase(Record):
    """What was alive at a phase's peak."""

    by_category_bytes: dict[Category, Signed] = required("by category")


class BaselineAttribution(Record):
    """What was alive at the peaks."""

    source: AttributionSource | None = optional("what it was read from")
    phases: dict[Phase, BaselineAttributionPhase] = optional("per phase")


class BaselineReport(Record):
    """The parts of the run's report a later diff needs."""

    config: Config = required("its configuration")
    device: Device | None = optional("its device")
    versions: Versions | None = optional("its software")
    status: RunStatus | None = optional("its status")
    saved_tensors: list[SavedRow] | None = optional("its saved table")
    saved_totals: SavedTotals | None = optional("its totals")
    saved_outside: SavedOutside | None = optional("what autograd saved outside its compiled graphs (*measured*)")
    compile_coverage: CompileCoverage | None = optional("what Dynamo compiled of it, and where it graph-broke")
    graph_memory: list[BaselineGraphMemory] | None = optional("its graphs' simulated figures")
    memory: BaselineMemory | None = optional("its measured phases")
    attribution: BaselineAttribution | None = optional("what was alive at its peaks")


class BaselineProbe(Record):
    """One probe's stored baseline."""

    created_utc: Text | None = optional("when it was stored")
    figures: dict[Metric, Signed | None] = optional("the gate's metrics for the run (null: the run lacks the figure)")
    versions: BaselineVersions = optional("the software it was recorded with")
    device: DeviceType | None = optional("the device it was recorded on")
    report: BaselineReport | None = optional("the parts of the report a breach is explained with")


class Baseline(Record):
    """`memprobe-baseline.json`: each probe's figures, stored by `memprobe gate --update-baseline`."""

    memprobe_baseline: Version1 = required("`1`")
    probes: dict[Name, BaselineProbe] = required("by probe name")


# -- memprobe's caches (read back by later probes and verbs) ------------------------------------------------


class RecordedGraph(Record):
    """A partitioned graph of one compile, as the probe that compiled it serialized it."""

    kind: GraphKind = required("forward, backward or inference")
    nodes: list[Node] = required("its nodes, in order")
    readable: Text = required("the readable graph")
    output_code: Text | None = optional("Inductor's output code for it")


class CompileRecord(Record):
    """memprobe's record of one compile, beside AOTAutograd's cache entry: an AOTAutograd cache hit hands a probe no
    graph, so the graphs come from here (a record that does not fit is ignored: the graph is compiled again)."""

    format: Version1 = optional("`1`")
    key: Name = required("its name: AOTAutograd's key for the graph with what that key leaves out")
    graphs: list[RecordedGraph] = required("a forward and its backward, or one inference graph")
    decisions: dict[Name, dict[CheckpointDecision, Count]] = required(
        "what the SAC policy answered per op while the graphs were traced"
    )


class GpuPeak(Record):
    """The peak a configuration reached on a GPU of this machine."""

    peak_reserved_bytes: Count = required("the most its process reserved (*measured*)")
    device_name: Name | None = optional("the GPU's name")


class GpuPeaks(Record):
    """The peak each configuration reached on this machine's GPUs: how the verbs place probes that share one."""

    memprobe_peaks: Version1 = required("`1`")
    peaks: dict[Name, GpuPeak] = required("by configuration key (a digest of the configuration, settings and Python)")


# -- what verbs print and pages embed (no file of their own) -------------------------------------------------


class LimitVerdict(Record):
    """One limit of a budget file, checked against its probe's run."""

    probe: Name = required("the probe")
    name: Text = optional(
        "the limit's name, as the gate's output and the budget file's `optional` say it (`saved_bytes`, "
        "`cuda.forward_peak_bytes`, `baseline.saved_bytes`)"
    )
    metric: Metric = required("the figure the limit bounds")
    device: DeviceType | None = required("the device the limit is for (`[limits.cuda]`); null: every device")
    kind: LimitKind = required("how the limit is given")
    limit_text: Text = required("the limit as the budget file writes it (`8 MiB`, `+5%`)")
    line: Count | None = required("its line in the budget file")
    measured: Signed | None = required("the run's figure (null: the run lacks it)")
    limit: Signed | None = required("the limit in bytes (a relative one: the baseline's figure scaled); null when unset")
    headroom: Signed | None = required("the limit minus the figure; null when either is")
    verdict: vocab.Verdict = required("pass, fail or skip")
    baseline: Signed = optional("a relative limit: the stored baseline's figure it scales")
    notice: Text = optional("why it was skipped, or failed without a figure to check")


class BreachExplanation(Record):
    """Why a probe breached its budget: the diff against its stored baseline when comparable, else its largest saved
    values and findings."""

    headline: Text = required("the explanation in one line")
    lines: list[Text] = required("its points, largest first")
    exprs: list[Text] = required("the saved values `lines` name (a renderer sets them as code)")


class GateResult(Record):
    """`memprobe gate --json` (and the MCP tool `gate`): each limit's verdict, each breach explained, the gate's
    verdict."""

    budget: FilePath = required("the budget file")
    baseline: FilePath = required("the baseline file relative limits compare with")
    verdicts: list[LimitVerdict] = required("one per limit, probe by probe")
    explanations: dict[Name, BreachExplanation] = required("by probe: why each probe that breached did")
    counts: dict[vocab.Verdict, Count] = required("how many limits got each verdict")
    runs: dict[Name, FilePath] = required("by probe: the run directory its limits were checked against")
    verdict: Verdict = required("the answer first: PASS, or the limits breached and the first breaching probe's verdict")
    baseline_updated: Annotated[bool, Strict()] = optional(
        "`true`: this gate stored its runs' figures as the baseline; `false`: --update-baseline found them there "
        "already and left the file untouched"
    )


class EstimateScale(Record):
    """The size of a training configuration: blocks, ranks and tokens."""

    layers: Count = required("blocks")
    world: Count = required("FSDP ranks")
    tokens: Count = required("tokens per step and rank (batch x seq)")
    batch: Count = required("the batch size")
    seq: Count = required("the sequence length")


class EstimateComponents(Record):
    """Memory per rank, component by component (bytes): measured or derived at the probe's size, estimated at the
    target's."""

    sharded_parameters_bytes: Count = required("the parameters as stored (a rank's shards under FSDP)")
    optimizer_state_bytes: Count = required("the optimizer's state")
    gradients_bytes: Count = required("the gradients (sharded, the parameters' dtype)")
    optimizer_temporaries_bytes: Count = required("what the optimizer step allocates while it runs")
    saved_weight_derived_bytes: Count = required("saved values computed from parameters only")
    saved_activation_bytes: Count = required("saved values computed from the blocks' inputs")
    unsharded_in_flight_bytes: Count = required("unsharded parameters in flight (FSDP all-gather and prefetch)")
    forward_temporaries_bytes: Count = required("the forward's temporaries (its peak above its end)")
    held_besides_saved_bytes: Count = required("held at the end of forward besides the saved values")
    fixed_bytes: Count = required("allocated before the step besides the state (CUDA: workspaces, ...)")


class EstimateComponentSets(Record):
    """The components at the probe's size and at the target's."""

    probe: EstimateComponents = required("at the probe's size (measured or derived)")
    target: EstimateComponents = required("at the target's size (estimated)")


class EstimateTotal(Record):
    """A step's memory per rank, in two figures."""

    forward_end_bytes: Signed = required("held at the end of forward")
    peak_bytes: Signed = required("the step's peak")
    peak_in: StepPeak = optional("where the step peaks (estimates only)")


class EstimateTotals(Record):
    """The step's totals: as the probe measured them, as estimated at its size (the model checked) and at the
    target's."""

    probe_measured: EstimateTotal = required("as the probe measured them (CPU: its state added, to compare)")
    probe_estimated: EstimateTotal = required("the model's figures at the probe's size")
    target_estimated: EstimateTotal = required("the model's figures at the target's size")


class EstimateScaling(Record):
    """How each component scales from the probe's size to the target's, in words."""

    sharded_parameters_bytes: Text = required("the parameters' rule")
    optimizer_state_bytes: Text = required("the optimizer state's rule")
    gradients_bytes: Text = required("the gradients' rule")
    optimizer_temporaries_bytes: Text = required("the optimizer step's temporaries' rule")
    saved_weight_derived_bytes: Text = required("the weight-derived saved values' rule")
    saved_activation_bytes: Text = required("the saved activations' rule")
    unsharded_in_flight_bytes: Text = required("the unsharded parameters' rule")
    forward_temporaries_bytes: Text = required("the forward temporaries' rule")
    held_besides_saved_bytes: Text = required("the rule of what forward holds besides the saved values")
    fixed_bytes: Text = required("the fixed part's rule")


class EstimateSource(Record):
    """Where the probe's figures come from."""

    measured: Text = required("what was measured")
    derived: Text = required("what was derived")


class Estimate(Record):
    """`memprobe estimate --json`: full-model memory per rank from a probe of a few blocks, component by component
    (an estimate, next to what the probe measured)."""

    kind: Literal["estimate"] = required("`estimate`")
    probe: EstimateScale = required("the probe's size")
    target: EstimateScale = required("the target's size")
    block_parameter_share: Share = required("the share of the parameters inside the blocks")
    components: EstimateComponentSets = required("per rank, component by component")
    totals: EstimateTotals = required("per rank, the step's totals")
    scaling: EstimateScaling = required("how each component scales")
    notes: list[Text] = required("what the estimate leaves out, and how it was checked")
    source: EstimateSource = required("where the probe's figures come from")


class PolicyEntry(Record):
    """A named per-op SAC policy (`--ac-policy`)."""

    description: Text = required("what it is")
    default: PolicyDefault = required("what an op in no list gets")
    save_ops: list[Name] = required("ops whose outputs are MUST_SAVE (the installed torchtitan's: as it resolves them)")
    mm_every_second_recomputed: Annotated[bool, Strict()] = required("torchtitan's rule: every second mm recomputed")
    source: Text = required("where the list comes from")
    available: Annotated[bool, Strict()] = optional("`torchtitan-installed`: whether the installed torchtitan gives it")
    unavailable_because: Text | None = optional("`torchtitan-installed`: why it cannot be read, and what to install")
    torchtitan: Name | None = optional("`torchtitan-installed`: the installed torchtitan's version")
    torchtitan_api: Name | None = optional(
        "`torchtitan-installed`: which of torchtitan's SAC APIs it was read through (SelectiveAC: 0.3; _apply_op_sac: 0.2)"
    )


class PolicyTable(RootModel[dict[Name, PolicyEntry]]):
    """`memprobe policies --json` (and the MCP tool `policies`): every named policy, by its name."""

    model_config = ConfigDict(defer_build=True)

    root: dict[Name, PolicyEntry] = Field(description="each policy by its name (`--ac-policy NAME`)")


class TimeSpan(Record):
    """A stretch of the measured step: a phase, or an annotated region (an FSDP collective, a compiled call)."""

    name: Text = required("its name (a phase, or the region's annotation)")
    start_us: Number = required("when it began, microseconds from the step's start")
    end_us: Number = required("when it ended")


class TimedOp(Record):
    """An outermost aten op the step ran (CPU profiler)."""

    name: Text = required("the op")
    start_us: Number = required("when it began, microseconds from the step's start")
    dur_us: Number = required("how long it ran")


class TimelinePeak(Record):
    """The highest point of the allocated bytes."""

    t_us: Number = required("when, microseconds from the step's start")
    bytes: Signed = required("allocated then")


class Timeline(Record):
    """Memory over the measured step, by category (`analysis.timeline`): the data of the HTML page's chart
    (`memprobe report`, embedded in the page) and of the Perfetto trace (`memprobe report --trace`). A run's is
    computed once, when the run is finished, and stored in its directory (`timeline.json`); a run finished before
    timelines were stored has its own computed when it is loaded."""

    source: AttributionSource = required("what it was read from")
    baseline: Text = required("what the bytes are relative to")
    phases: list[TimeSpan] = required("the phases of the step, in order")
    regions: list[TimeSpan] = required("the annotated regions (CPU profiler)")
    ops: list[TimedOp] = required("the outermost ops (CPU profiler; the CUDA allocator history has no kernel timing)")
    total: list[tuple[Number, Signed]] = required("`[t_us, allocated bytes]`, at most a few thousand points, peaks kept")
    categories: dict[Category, list[tuple[Number, Signed]]] = required("the same per category")
    peak: TimelinePeak = required("the highest point of `total`")
    events: Count = required("the allocations and frees replayed")


class SnapshotSummary(Record):
    """`memprobe show SNAPSHOT.pickle --json` (and the MCP tool `show`): a CUDA memory snapshot taken elsewhere
    (`torch.cuda.memory._dump_snapshot` in any script), read alone: what is alive at the peak of its history, by
    category and by the innermost frame of the user's own code."""

    kind: Literal["snapshot"] = required("`snapshot`")
    file: FilePath = required("the snapshot file, as named")
    file_bytes: Count = required("its size")
    scope: Text = required("what a snapshot alone does and does not say, in one line")
    device: Count = required("the device whose history is read (the one with the most events)")
    devices: Count = required("the devices with a recorded history")
    events: Count = required("the allocator events replayed (those without an integer address and size are left out)")
    start_bytes: Signed = required("allocated when the history starts (blocks allocated before the recording began)")
    peak_bytes: Signed = required("the most bytes allocated at once over the history")
    peak_event: Signed = required("the event right after which the peak is reached (-1: before the first event)")
    peak_t_us: Number | None = required("when, in microseconds after the first event (null: the events carry no time)")
    end_bytes: Signed = required("allocated when the history ends")
    reserved_bytes: Count = required("reserved from the device (its segments) when the snapshot was taken")
    named_fraction: Share | None = required("the share of the peak in a named category (not `other`)")
    user_code_fraction: Share | None = required("the share of the peak allocated with a frame of the user's code on the stack")
    by_category_bytes: dict[Category, Signed] = required("alive at the peak, by category (named from stack frames only)")
    groups: Count = required("the groups alive at the peak: a category and a frame each")
    top_items: list[AliveItem] = required(
        "the largest groups alive at the peak: `item` is the innermost frame of the user's code (`file.py:line in "
        "function`; a library's frame in parentheses where no frame is the user's), `evidence` the rule that named "
        "the category"
    )
    verdict: Verdict = required("the answer first: the peak and what dominates it")


class SnapshotDiffItem(Record):
    """A group (a category and a frame) alive at the peaks of two snapshots in different amounts."""

    status: DiffStatus = required("in B only, more in B, in A only, or less in B")
    category: Category = required("its category")
    frame: Text = required("its frame, as `top_items` names it")
    bytes_a: Count = required("alive at A's peak")
    bytes_b: Count = required("alive at B's peak")
    delta_bytes: Signed = required("B - A")
    blocks_a: Count = required("A's blocks")
    blocks_b: Count = required("B's blocks")


class SnapshotDiff(Record):
    """`memprobe diff A.pickle B.pickle --json`: what B holds at the peak of its history that A does not, ranked by
    bytes, from two CUDA memory snapshots taken elsewhere."""

    kind: Literal["snapshot-diff"] = required("`snapshot-diff`")
    a: SnapshotSummary = required("snapshot A, read alone")
    b: SnapshotSummary = required("snapshot B, read alone")
    scope: Text = required("what two snapshots alone do and do not say, in one line")
    peak_bytes: Delta = required("the peaks")
    start_bytes: Delta = required("allocated when each history starts")
    end_bytes: Delta = required("allocated when each history ends")
    reserved_bytes: Delta = required("reserved when each snapshot was taken")
    by_category: dict[Category, Delta] = required("alive at the peaks, by category (every category either side has)")
    items: list[SnapshotDiffItem] = required("the largest groups that differ: B's excess first, largest first")
    differences: Count = required("the groups that differ (`items` holds the largest)")
    unchanged: Count = required("the groups alive at both peaks in the same amount")
    verdict: Verdict = required("the answer first: how the peaks differ and the group that differs most")


# every file memprobe writes, by its name in a directory, with the verb that writes it
FILES: dict[str, tuple[type[Record], str]] = {
    "report.json": (Report, "`memprobe run`, and each probe a verb runs"),
    "graphs/<graph_id>.json": (GraphFile, "each probe, one per partitioned graph"),
    "diff.json": (DiffResult, "`memprobe diff` (and printed by `--json`)"),
    "explain.json": (ExplainResult, "`memprobe explain`"),
    "bisect.json": (BisectResult, "`memprobe bisect`"),
    "sweep.json": (SweepResult, "`memprobe sweep`"),
    "memprobe-baseline.json": (Baseline, "`memprobe gate --update-baseline` and `memprobe budget`, beside the budget file"),
    "memprobe-graphs/<key>.json": (
        CompileRecord,
        "each probe that compiled a graph, in the Inductor cache directory beside AOTAutograd's entry",
    ),
    "timeline.json": (
        Timeline,
        "each run, when it is finished: its memory over the measured step, embedded in the HTML page of the run or of "
        "a diff of it (`memprobe report`) and the trace's source (`--trace`)",
    ),
    "gpu-peaks.json": (GpuPeaks, "the verbs that run probes on CUDA, after each one, in memprobe's cache directory"),
}

# what verbs print and pages embed without a file of their own (a record each all the same: --json dumps it, the MCP
# tools return it)
OUTPUTS: dict[str, tuple[type[BaseModel], str]] = {
    "memprobe gate --json": (
        GateResult,
        "`memprobe gate --json`, the MCP tool `gate`; rendered to the console, Markdown, JUnit XML, HTML, CSV",
    ),
    "memprobe estimate --json": (Estimate, "`memprobe estimate --json`"),
    "memprobe policies --json": (PolicyTable, "`memprobe policies --json`, the MCP tool `policies`"),
    "the memory timeline of a snapshot": (
        Timeline,
        "embedded in the HTML page of a snapshot taken elsewhere (`memprobe report SNAPSHOT.pickle`), and its trace's "
        "source (`--trace`)",
    ),
    "memprobe show SNAPSHOT.pickle --json": (
        SnapshotSummary,
        "`memprobe show SNAPSHOT.pickle --json`, the MCP tool `show` of a snapshot; rendered to the console, CSV and "
        "the HTML page of `memprobe report SNAPSHOT.pickle`",
    ),
    "memprobe repro --json": (ReproResult, "`memprobe repro --json`: the script written, its figures, what was minimized"),
    "memprobe diff A.pickle B.pickle --json": (
        SnapshotDiff,
        "`memprobe diff A.pickle B.pickle --json`; rendered to the console, Markdown and CSV",
    ),
}
