"""memprobe's vocabulary, defined once: the words its data uses, as ``str`` enums.

Each member *is* its string (``SavedKind.WEIGHT_DERIVED == "weight-derived"``), so report.json and
every other file keep plain strings, and code compares and builds them through these names only.
Each member carries its meaning (``.doc``), which ``docs/`` and ``--help`` texts draw on.
"""

from __future__ import annotations

from enum import StrEnum


class _Documented(StrEnum):
    def __new__(cls, value: str, doc: str = ""):
        member = str.__new__(cls, value)
        member._value_ = value
        member.doc = doc
        return member


class SavedKind(_Documented):
    """What a saved-for-backward value is computed from."""

    WEIGHT_DERIVED = (
        "weight-derived",
        "computed from parameters only: its size does not grow with batch x seq, and it is paid in every layer",
    )
    ACTIVATION = "activation", "computed from the block's input (and maybe parameters): grows with batch x seq"
    PARAMETER = "parameter", "a parameter itself, saved as a graph input (alive anyway; under FSDP resharded after forward)"
    BUFFER = "buffer", "a module buffer itself (a rotary cache, say), saved as a graph input: module state, alive anyway"
    SCALAR = "scalar", "a value of at most one element"
    OTHER = "other", "computed from no graph input (a constant), or an RNG state saved to replay a random op in backward"


# a module's own state saved as a graph input: alive anyway, counted apart from what the step adds
MODULE_STATE = frozenset((SavedKind.PARAMETER, SavedKind.BUFFER))


class InputKind(_Documented):
    """What a compiled graph's input is (from its Dynamo source)."""

    PARAMETER = "parameter", "a module parameter (FSDP2: the unsharded one the block receives)"
    BUFFER = "buffer", "a module buffer"
    INPUT = "input", "an argument of the block's forward"


class Reason(_Documented):
    """Why a value was saved for backward."""

    POLICY = "policy", "the SAC policy tagged it MUST_SAVE"
    PARTITIONER = "partitioner", "the min-cut partitioner chose to keep it rather than recompute it"
    GRAPH_INPUT = "graph-input", "backward reads a graph input directly"


class SaveCause(_Documented):
    """What made the compiler save a value for backward: the rule, read from the installed torch's own decisions
    (docs/how-it-works.md, "Why a value is saved")."""

    POLICY_TAG = "policy-tag", "the SAC policy tagged its op MUST_SAVE (an op of its save list, or one of its rules)"
    REGION_TAG = (
        "region-tag",
        "torch_remat tagged its op MUST_SAVE: it is inside a remat.region with recompute=False (a region the model "
        "saves by name)",
    )
    PASS_TAG = (
        "pass-tag",
        "a pass of the partitioner tagged it MUST_SAVE before the cut (the output of a checkpointed region that feeds "
        "the next, one with a backward hook, a collective, an effectful op)",
    )
    NOT_RECOMPUTABLE = (
        "not-recomputable",
        "the partitioner may not recompute its op, by a rule of the installed torch's partitioner (an op outside its "
        "recompute allowlist, a random op, a reduction, a value materialized in backward), and no SAC tag overrode it",
    )
    MIN_CUT = (
        "min-cut",
        "its op may be recomputed, but the min cut kept it: recomputing it needs values the partitioner may not "
        "recompute, or saving it costs less than what recomputing it needs",
    )
    MEMORY_BUDGET = "memory-budget", "chosen by the partitioner's activation memory budget (its knapsack)"
    BACKWARD_WORK = "backward-work", "backward work the partitioner placed in forward, saved instead of its inputs"
    INPUT = "input", "a graph input backward reads as it is"
    RNG_STATE = "rng-state", "an RNG state, or the seeds, saved to replay a random op in backward"
    UNRECORDED = (
        "unrecorded",
        "chosen by the partitioner; the run recorded none of its decisions (a run recorded before memprobe read them)",
    )


class Fate(_Documented):
    """What one side of a diff did with a value."""

    SAVED = "saved", "its forward saved it for backward"
    RECOMPUTED = "recomputed", "its backward computes it again from what forward saved"
    ABSENT = "absent", "its graphs neither save nor recompute it (not computed there, or not needed by backward)"


class ChangeKind(_Documented):
    """What differs between the two sides of a diff besides their saved values."""

    NONE = "none", "nothing: the same configuration, software and settings (an A/A diff)"
    VERSIONS = "versions", "only the software (torch, torchao, ...): the configurations are the same"
    CONFIGURATION = "configuration", "only the configuration (flags): the software is the same"
    BOTH = "versions+configuration", "the software and the configuration"
    ENVIRONMENT = "environment", "only the settings given to one side (--a-env/--b-env) or its interpreter"


class Category(_Documented):
    """What a block of memory alive at a moment of the step is (the attributions' categories)."""

    SAVED_FOR_BACKWARD = "saved-for-backward", "a value a compiled forward returned for backward"
    GRAPH_OUTPUT = "graph-output", "a compiled graph's output (the block's activation)"
    INDUCTOR_TEMPORARY = "inductor-temporary", "a buffer a compiled graph allocated and frees before it returns"
    FSDP_UNSHARDED_PARAMETER = "fsdp-unsharded-parameter", "FSDP2's all-gathered (unsharded) parameter storage"
    FSDP_COLLECTIVE_BUFFER = "fsdp-collective-buffer", "FSDP2's all-gather / reduce-scatter buffers"
    SHARDED_PARAMETER = "sharded-parameter", "a rank's shard of the parameters (alive before the step)"
    GRADIENT = "gradient", "a gradient"
    OPTIMIZER_STATE = "optimizer-state", "the optimizer's state (AdamW's moments)"
    OPTIMIZER_TEMPORARY = "optimizer-temporary", "what the optimizer step allocates while it runs"
    INPUT_BATCH = "input-batch", "the batch and its cast"
    LIBRARY_WORKSPACE = "library-workspace", "a library's workspace (cuBLAS, cuDNN)"
    EAGER_AUTOGRAD = "eager-autograd", "allocated by eager (uncompiled) code or the autograd engine"
    BACKWARD_GRAPH_OR_AUTOGRAD = "backward-graph-or-autograd", "allocated during backward (CPU: the region gives no finer name)"
    COMPILED_GRAPH = (
        "compiled-graph",
        "allocated by a compiled graph's code: saved for backward, an output or a temporary (a snapshot taken elsewhere "
        "does not say which; memprobe's own runs do)",
    )
    MODEL_STATE = (
        "model-state",
        "a module's parameters or buffers, allocated as the model was built or moved to the device (named from a "
        "snapshot's stack frames: Module.to, a module's __init__)",
    )
    OTHER = "other", "no rule named it"


class FindingKind(_Documented):
    """The kinds of finding a run can make (docs/findings.md has each one's rule)."""

    WEIGHT_DERIVED_SAVED = "weight-derived-saved", "a value computed from parameters only is saved for backward"
    SAVE_OP_COSTS_MORE = "save-op-costs-more", "a save-list op keeps more for backward than its own output"
    UNSHARDED_AFTER_FORWARD = "unsharded-after-forward", "parameters are still unsharded when forward ends"
    WIDE_WEIGHT_COPY = "wide-weight-copy", "a weight-derived value saved in a wider dtype than the parameters'"
    FLOAT32_ACTIVATION = "float32-activation", "float32 activations saved in a low-precision step"
    ACCOUNTING_MISMATCH = "accounting-mismatch", "the graphs' saved bytes differ from what autograd holds at run time"
    FLOAT8_COVERAGE = (
        "float8-coverage",
        "a float8 recipe converted none, or a minority, of the blocks' matmul weights (linears, experts): the rest run in bf16",
    )
    CHECKPOINT_SAVES_MORE = (
        "checkpoint-saves-more",
        "checkpointed regions (blocks --ac full checkpoints whole, or regions the model or script checkpoints itself) save "
        "more for backward than their inputs and RNG states",
    )
    UNRECOMPUTABLE_SAVED = (
        "unrecomputable-saved",
        "a value inside a checkpointed region, its op untagged, saved because the partitioner may not recompute it",
    )
    UNEVEN_BLOCKS = "uneven-blocks", "a value some blocks save and others, whose graphs compute it too, do not"
    CHECKPOINT_RAN_EAGERLY = (
        "checkpoint-ran-eagerly",
        "a checkpointed region torch.compile was asked to compile ran eagerly: Dynamo graph-broke inside it",
    )
    BACKWARD_TRANSIENT_PEAK = (
        "backward-transient-peak",
        "a compiled backward's own working set (its temporaries and recomputed values) is most of backward's peak",
    )


class Float8Skip(_Documented):
    """Why float8 training left a linear (or a module that computes like one) in bf16."""

    DIMS = "dims", "an nn.Linear whose in or out features are not multiples of 16 (torch._scaled_mm cannot run it)"
    NOT_LINEAR = (
        "not-linear",
        "a module with a 2-D weight that is not an nn.Linear (GPT-2's Conv1D): the converter swaps nn.Linear only",
    )
    FILTERED = "filtered", "an nn.Linear the converter's module filter left out (torchtitan leaves the output layer out)"
    GROUPED_EXPERTS = (
        "grouped-experts",
        "a 3-D weight of mixture-of-experts experts, run by a grouped GEMM (aten._grouped_mm): torchao's Linear "
        "conversion leaves it; its MoE training conversion (rowwise, on a CUDA GPU of compute capability 9.0 or newer) "
        "converts it",
    )


class MemorySource(_Documented):
    """Where a run's measured phase figures come from."""

    CPU_PROFILER = "cpu-profiler", "the CPU profiler's memory events: bytes above the measured step's start"
    CUDA_ALLOCATOR = "cuda-allocator", "the CUDA caching allocator's statistics: absolute bytes on the device"


class AttributionSource(_Documented):
    """What an attribution (what is alive at the peaks) was read from."""

    CUDA_SNAPSHOT = "cuda-snapshot", "the allocator's history with stacks (snapshot.pickle)"
    CPU_PROFILER = "cpu-profiler", "the profiler's memory events, named by the annotated region they happened in"


class DiffStatus(_Documented):
    """How a saved value differs between the sides of a diff (of two snapshots: a group alive at the peaks)."""

    ONLY_B = "only_b", "saved by B only (snapshots: alive at B's peak only)"
    GROWN = "grown", "saved by both, larger in B (snapshots: alive at both peaks, more at B's)"
    ONLY_A = "only_a", "saved by A only (snapshots: alive at A's peak only)"
    SHRUNK = "shrunk", "saved by both, smaller in B (snapshots: alive at both peaks, less at B's)"


# what B keeps alive that A does not
GROWTH = (DiffStatus.ONLY_B, DiffStatus.GROWN)


class Verdict(_Documented):
    """A gate's verdict on one limit."""

    PASS = "PASS", "the figure is within its limit"
    FAIL = "FAIL", "the figure exceeds its limit, or is missing (the gate fails closed)"
    SKIP = "SKIP", "the limit does not apply here (another device, no comparable baseline, a missing optional figure)"


class Metric(_Documented):
    """A figure a budget file limits (``memprobe gate``): derived from the compiled graphs, or measured."""

    SAVED_BYTES = (
        "saved_bytes",
        "saved-for-backward bytes per step: from the compiled graphs, plus what autograd saved outside them (measured)",
    )
    WEIGHT_DERIVED_SAVED_BYTES = "weight_derived_saved_bytes", "saved-for-backward bytes computed from parameters only"
    GRAPH_PEAK_BYTES = "graph_peak_bytes", "largest simulated peak of one compiled graph (output code)"
    FORWARD_PEAK_BYTES = "forward_peak_bytes", "measured peak of the forward phase"
    BACKWARD_PEAK_BYTES = "backward_peak_bytes", "measured peak of the backward phase"
    OPTIMIZER_PEAK_BYTES = "optimizer_peak_bytes", "measured peak of the optimizer step"
    FORWARD_END_BYTES = "forward_end_bytes", "measured level at the end of forward (what is held for backward)"
    STEP_PEAK_BYTES = "step_peak_bytes", "measured peak over the whole step"


class LimitKind(_Documented):
    """How a budget file's limit is given (``memprobe gate``)."""

    ABSOLUTE = "absolute", "a size in bytes ([limits], or [limits.cpu] / [limits.cuda] for one device)"
    RELATIVE = "relative", "a share above the figure of the stored baseline ([limits.baseline])"


class StepPeak(_Documented):
    """Where an estimated training step peaks (``memprobe estimate``)."""

    TRAINING = "forward/backward", "while the saved values (or the gradients) and what is in flight are alive"
    OPTIMIZER = "optimizer step", "in the optimizer step: its state, the gradients and its temporaries"


class RunStatus(_Documented):
    """A run directory's status."""

    RUNNING = "running", "written first; a run that is still going, or was killed without a word"
    COMPLETE = "complete", "the run finished and was analysed"
    FAILED = "failed", "the run failed; what was recorded is kept"
    INTERRUPTED = "interrupted", "Ctrl-C or SIGTERM"
    OOM = "oom", "the device ran out of memory"


# -- the run directory's other words (memprobe/rundir/schema.py types its files with them) ----------------


class Recipe(_Documented):
    """How the probe's linear layers compute (``--recipe``)."""

    BF16 = "bf16", "bfloat16 linear layers (no float8)"
    TENSORWISE = "tensorwise", "torchao float8 training, one scale per tensor"
    ROWWISE = "rowwise", "torchao float8 training, one scale per row"
    ROWWISE_WITH_GW_HP = "rowwise_with_gw_hp", "rowwise float8, the weight gradient's matmul in high precision"
    BLOCKWISE = (
        "blockwise",
        "torchao's blockwise float8 training (prototype): one scale per 1x128 block of activations, per 128x128 block "
        "of weights (DeepSeek-V3's); a CUDA GPU of compute capability 9.0 or newer",
    )
    MXFP8 = (
        "mxfp8",
        "torchao's MX float8 training (prototype): e4m3 values with one e8m0 scale per 32 elements; a CUDA GPU of "
        "compute capability 10.0 or newer",
    )


class AcMode(_Documented):
    """Activation checkpointing per block (``--ac``)."""

    NONE = "none", "no activation checkpointing"
    FULL = "full", "every block recomputed in backward"
    OP = "op", "per-op selective activation checkpointing with a policy (--ac-policy)"
    MEMORY_BUDGET = (
        "memory-budget",
        "the compiler partitioner's activation memory budget (--memory-budget); budget, its earlier name, reads as it",
    )
    REMAT = (
        "remat",
        "region rematerialization with torch_remat: every block a remat.checkpoint that recomputes by default, the "
        "submodules --save-region names kept (remat.region, recompute=False)",
    )

    @classmethod
    def _missing_(cls, value):
        return cls.MEMORY_BUDGET if value == "budget" else None  # its earlier name, in runs recorded before


class DeviceChoice(_Documented):
    """The device a probe asks for (``--device``)."""

    AUTO = "auto", "cuda when a GPU is present, else cpu"
    CPU = "cpu", "the CPU"
    CUDA = "cuda", "a CUDA GPU"


class DeviceType(_Documented):
    """The device a probe ran on."""

    CPU = "cpu", "the CPU"
    CUDA = "cuda", "a CUDA GPU"


class Phase(_Documented):
    """A phase of the measured training step."""

    FORWARD = "forward", "the forward pass and the loss"
    BACKWARD = "backward", "loss.backward()"
    OPTIMIZER = "optimizer", "the optimizer's step and zero_grad"


class PhaseEdge(_Documented):
    """Which end of a phase a marker in the allocator's history stands for."""

    START = "start", "the phase begins"
    END = "end", "the phase ends"


class GraphKind(_Documented):
    """What a partitioned graph computes."""

    FORWARD = "forward", "the forward graph of a training step (returns outputs, then saved values)"
    BACKWARD = "backward", "the backward graph (reads the saved values and the output gradients)"
    INFERENCE = "inference", "a graph compiled without autograd"


class RunMode(_Documented):
    """How a probe ran its compiled graphs."""

    FULL = "full", "compiled by Inductor and run as the user would run them"
    ANALYSIS_ONLY = "analysis-only", "traced and partitioned as for Inductor, then run uncompiled (no output code)"


class NodeOp(_Documented):
    """An FX node's opcode (``torch.fx.Node.op``)."""

    PLACEHOLDER = "placeholder", "a graph input"
    CALL_FUNCTION = "call_function", "a call of an operator or function"
    CALL_METHOD = "call_method", "a call of a method of a value"
    CALL_MODULE = "call_module", "a call of a submodule"
    GET_ATTR = "get_attr", "an attribute read (a constant or parameter)"
    OUTPUT = "output", "the graph's output"


class SourceFnKind(_Documented):
    """What the Python call that made an FX node was (from ``source_fn_stack``)."""

    MODULE = "module", "a module's forward (nn.Linear)"
    FUNCTION = "function", "a function (F.silu, torch.abs)"


class CheckpointDecision(_Documented):
    """An SAC policy's answer for one op (``torch.utils.checkpoint.CheckpointPolicy``'s names)."""

    MUST_SAVE = "MUST_SAVE", "the output is saved for backward"
    PREFER_SAVE = "PREFER_SAVE", "the output is saved unless the compiler decides otherwise"
    MUST_RECOMPUTE = "MUST_RECOMPUTE", "the output is recomputed in backward"
    PREFER_RECOMPUTE = "PREFER_RECOMPUTE", "the output is recomputed unless the compiler decides otherwise"


class PolicyDefault(_Documented):
    """What an SAC policy does with an op that is in none of its lists."""

    SAVE = "save", "saved (the list names what is recomputed)"
    RECOMPUTE = "recompute", "recomputed (the list names what is saved)"


class RootKind(_Documented):
    """What a saved value is computed from, in terms of the compiled graph's inputs."""

    PARAMETER = "parameter", "parameters (or buffers) only"
    INPUT = "input", "the block's inputs only"
    PARAMETER_AND_INPUT = "parameter+input", "parameters and the block's inputs"
    NONE = "none", "no graph input (a constant, an RNG state)"


class ReturnRole(_Documented):
    """What a value a compiled graph returns is for."""

    OUTPUT = "output", "a user output of the graph (the block's result; a gradient in backward)"
    SAVED = "saved", "a value saved for backward"


class LiveRole(_Documented):
    """What a buffer alive at a compiled graph's simulated peak becomes."""

    OUTPUT = "output", "a user output of the graph"
    SAVED = "saved", "a value saved for backward"
    TEMPORARY = "temporary", "a buffer the graph frees before it returns"


class BisectPass(_Documented):
    """Which pass of a bisection a trial belongs to."""

    GIVEN = "given", "the configurations as given"
    SINGLE = "single", "one feature removed from the configurations as given"
    CUMULATIVE = "cumulative", "the unnecessary features removed one after another"


class EnvNeed(_Documented):
    """What a probe needs of the interpreter that runs it (checked there before any probe runs)."""

    TORCH = "torch", "torch with FSDP2 (fully_shard), per-op SAC contexts and Inductor's inner_compile hook"
    FLOAT8 = "float8", "torchao's float8 training, its recipes looked up by name (a float8 --recipe)"
    TORCHTITAN_SAC = "torchtitan-sac", "torchtitan's own per-op SAC: its save list and policy (--ac-policy torchtitan-installed)"
    TORCHTITAN_LLAMA3 = (
        "torchtitan-llama3",
        "torchtitan's own Llama 3: its model args, model class and float8 filter (--repro torchtitan)",
    )
    TRANSFORMERS = "transformers", "Hugging Face transformers, to build a causal LM from its config.json (--hf-config)"
    TORCH_REMAT = "torch-remat", "torch_remat's region rematerialization: remat.checkpoint and remat.region (--ac remat)"


class CacheState(_Documented):
    """What the compile caches gave a probe's first step."""

    COLD = "cold", "every graph traced and compiled"
    WARM = "warm", "every graph, or every graph's kernels, from the cache"
    PARTLY_WARM = "partly warm", "some graphs from the cache, the others traced or compiled"
