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
    SCALAR = "scalar", "a value of at most one element"
    OTHER = "other", "computed from no graph input (a constant, an RNG state)"


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
    OTHER = "other", "no rule named it"


class FindingKind(_Documented):
    """The kinds of finding a run can make (docs/findings.md has each one's rule)."""

    WEIGHT_DERIVED_SAVED = "weight-derived-saved", "a value computed from parameters only is saved for backward"
    SAVE_OP_COSTS_MORE = "save-op-costs-more", "a save-list op keeps more for backward than its own output"
    UNSHARDED_AFTER_FORWARD = "unsharded-after-forward", "parameters are still unsharded when forward ends"
    WIDE_WEIGHT_COPY = "wide-weight-copy", "a weight-derived value saved in a wider dtype than the parameters'"
    FLOAT32_ACTIVATION = "float32-activation", "float32 activations saved in a low-precision step"
    ACCOUNTING_MISMATCH = "accounting-mismatch", "the graphs' saved bytes differ from what autograd holds at run time"


class MemorySource(_Documented):
    """Where a run's measured phase figures come from."""

    CPU_PROFILER = "cpu-profiler", "the CPU profiler's memory events: bytes above the measured step's start"
    CUDA_ALLOCATOR = "cuda-allocator", "the CUDA caching allocator's statistics: absolute bytes on the device"


class AttributionSource(_Documented):
    """What an attribution (what is alive at the peaks) was read from."""

    CUDA_SNAPSHOT = "cuda-snapshot", "the allocator's history with stacks (snapshot.pickle)"
    CPU_PROFILER = "cpu-profiler", "the profiler's memory events, named by the annotated region they happened in"


class DiffStatus(_Documented):
    """How a saved value differs between the sides of a diff."""

    ONLY_B = "only_b", "saved by B only"
    GROWN = "grown", "saved by both, larger in B"
    ONLY_A = "only_a", "saved by A only"
    SHRUNK = "shrunk", "saved by both, smaller in B"


class Verdict(_Documented):
    """A gate's verdict on one limit."""

    PASS = "PASS", "the figure is within its limit"
    FAIL = "FAIL", "the figure exceeds its limit, or is missing (the gate fails closed)"
    SKIP = "SKIP", "the limit does not apply here (another device, no comparable baseline, a missing optional figure)"


class RunStatus(_Documented):
    """A run directory's status."""

    RUNNING = "running", "written first; a run that is still going, or was killed without a word"
    COMPLETE = "complete", "the run finished and was analysed"
    FAILED = "failed", "the run failed; what was recorded is kept"
    INTERRUPTED = "interrupted", "Ctrl-C or SIGTERM"
    OOM = "oom", "the device ran out of memory"
