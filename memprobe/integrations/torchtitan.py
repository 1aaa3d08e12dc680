"""torchtitan's own code, where a probe can drive it without torchtitan's trainer.

- :func:`installed_save_ops`: the per-op SAC save list of the installed torchtitan, for
  ``--ac-policy torchtitan-installed``;
- :func:`apply_selective_ac`: wraps each block with torchtitan's own per-op SAC (its policy function:
  every second ``aten.mm`` recomputed, device-to-CPU copies saved), with ``--save-op``/``--recompute-op``
  applied to its save list;
- :func:`build_llama3`: torchtitan's Llama 3 at one of its flavors, with its float8 converter where
  it runs (CUDA, compute capability 8.9+).

torchtitan reorganised these between releases; each API generation has its adapter here, chosen by
what the installed torchtitan has (never by its version number):

- :class:`SelectiveACGeneration` (torchtitan 0.3): a ``SelectiveAC`` class in
  ``torchtitan.distributed.activation_checkpoint`` whose ``get_save_ops()`` builds the list from the
  installed torch; Llama 3 flavors in ``llama3_configs``, built from their config;
- :class:`OpSacListGeneration` (torchtitan 0.2): a function ``_apply_op_sac(module, ac_config,
  base_fqn=, op_sac_save_list=)`` and each model's ``_op_sac_save_list`` in its ``infra/parallelize.py``;
  Llama 3 flavors in ``llama3_args`` (``TransformerModelArgs``) and the ``Transformer`` class.

torchtitan 0.2's ``torchtitan.models.llama3`` package imports its trainer's dataloader, tokenizer and
metrics (``datasets``, ``torchdata``, ``tokenizers``, ``tensorboard``) at import time. Its SAC save list
is read from its ``infra/parallelize.py`` file alone (that file imports none of them), so the policy
needs only torchtitan's light dependencies; its Llama 3 model class imports them all (its module
imports torchtitan's train spec), so ``--repro torchtitan`` with torchtitan 0.2 needs them installed.
"""

from __future__ import annotations

import contextlib
from importlib.metadata import PackageNotFoundError, version

from ..errors import ConfigError
from ..vocab import DeviceType, Recipe

POLICY_NAME = "torchtitan-installed"
INSTALL_HINT = (
    "pip install --no-deps torchtitan==0.3.0 tyro docstring-parser typeguard spmd_types==0.2.3 "
    "torch_checkpointing einops safetensors (its model code also needs triton); with torch 2.11 or older, "
    "torchtitan==0.2.2 tyro docstring-parser typeguard (its Llama 3 also needs datasets torchdata tokenizers tensorboard)"
)
# torchtitan 0.2's Llama 3 package imports its trainer's data and logging stack
LLAMA3_02_DEPS = "datasets torchdata tokenizers tensorboard"
AC_MODULE = "torchtitan.distributed.activation_checkpoint"

# the flavors of both generations (each torchtitan has a subset; the build says which the installed one has)
FLAVORS = ("debugmodel", "debugmodel_flex_attn", "1B", "3B", "8B", "8B_flex", "70B", "405B")


def torchtitan_version() -> str | None:
    try:
        return version("torchtitan")
    except PackageNotFoundError:
        return None


def _op_name(op) -> str:
    """``torch.ops.aten.mm.default`` -> ``aten.mm.default``; a higher-order op by its name."""
    name = str(op)
    return name if "." in name and not name.startswith("<") else f"higher_order.{getattr(op, '__name__', name)}"


class SelectiveACGeneration:
    """torchtitan 0.3: the ``SelectiveAC`` class and ``llama3_configs``."""

    name = "SelectiveAC"

    @staticmethod
    def detect(ac_module) -> bool:
        return hasattr(ac_module, "SelectiveAC")

    def save_ops(self) -> set:
        from torchtitan.distributed.activation_checkpoint import SelectiveAC

        return set(SelectiveAC(SelectiveAC.Config()).get_save_ops())

    def wrap_blocks(self, blocks, add: frozenset, drop: frozenset, base_fqn: str, parity: tuple | None) -> None:
        from torchtitan.distributed.activation_checkpoint import SelectiveAC

        class EditedSelectiveAC(SelectiveAC):
            # get_save_ops is the customisation point torchtitan documents
            def get_save_ops(self) -> set:
                return edited_save_ops(super().get_save_ops(), add, drop, parity)

        # preserve_rng_state off as the other policies here; the rest is torchtitan's defaults
        policy = EditedSelectiveAC(EditedSelectiveAC.Config(preserve_rng_state=False))
        for name, block in list(blocks.named_children()):
            blocks.register_module(name, policy._wrap_block(block, base_fqn=f"{base_fqn}.{name}"))

    def check_llama3(self) -> None:
        import torchtitan.models.llama3  # noqa: F401

    def build_llama3(self, flavor: str, layers: int, recipe: str, device, float8: bool):
        from torchtitan.models.llama3 import llama3_configs

        if flavor not in llama3_configs:
            raise ConfigError(
                f"--flavor {flavor!r}: torchtitan {torchtitan_version()}'s Llama 3 flavors are {', '.join(llama3_configs)}"
            )
        config = llama3_configs[flavor](attn_backend="flex")  # its language models take flex, flex_flash or varlen
        if layers > len(config.layers):
            raise ConfigError(f"--layers {layers}: torchtitan's Llama 3 {flavor} has {len(config.layers)} blocks")
        config.layers = config.layers[:layers]
        flex = device.type == "cuda"
        if not flex:
            # FlexAttention has no backward on the CPU: torchtitan's own causal SDPA module instead, which for one
            # document per sequence (our batch) computes the same attention as the block-causal flex mask
            from torchtitan.models.common.attention import ScaledDotProductAttention

            for layer in config.layers:
                layer.attention.inner_attention = ScaledDotProductAttention.Config()
        if float8:
            from torchtitan.components.quantization import Float8LinearConverter

            converter = Float8LinearConverter.Config(recipe_name=recipe, model_compile_enabled=True)
            config = converter.build().convert(config)
        import torch

        with torch.device(device):
            model = config.build()
        model.init_states(buffer_device=device)

        def batch(tokens, positions):
            # causal, one document per sequence: what its trainer builds for flex attention
            return (tokens, positions, model.get_attention_masks(positions) if flex else None)

        return model, config.vocab_size, batch


class OpSacListGeneration:
    """torchtitan 0.2: ``_apply_op_sac`` with a model's ``_op_sac_save_list``; ``llama3_args`` and ``Transformer``."""

    name = "_apply_op_sac"
    PARALLELIZE = ("models", "llama3", "infra", "parallelize.py")

    @staticmethod
    def detect(ac_module) -> bool:
        return hasattr(ac_module, "_apply_op_sac")

    def save_ops(self) -> set:
        return set(self._parallelize()._op_sac_save_list)

    def _parallelize(self):
        """torchtitan's ``models/llama3/infra/parallelize.py``, executed on its own: its package's ``__init__``
        imports the trainer's dataloader (``datasets``), which the save list does not need."""
        import importlib.util
        import sys
        from pathlib import Path

        import torchtitan

        key = "memprobe._torchtitan_llama3_parallelize"
        if key not in sys.modules:
            path = Path(torchtitan.__file__).parent.joinpath(*self.PARALLELIZE)
            spec = importlib.util.spec_from_file_location(key, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"torchtitan has no {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[key] = module
        return sys.modules[key]

    def wrap_blocks(self, blocks, add: frozenset, drop: frozenset, base_fqn: str, parity: tuple | None) -> None:
        from torchtitan.distributed.activation_checkpoint import ACConfig, _apply_op_sac

        save_list = edited_save_ops(self.save_ops(), add, drop, parity)
        # preserve_rng_state off as the other policies here; the rest is torchtitan's defaults
        ac_config = ACConfig(mode="selective", selective_ac_option="op", preserve_rng_state=False)
        for name, block in list(blocks.named_children()):
            wrapped = _apply_op_sac(block, ac_config, base_fqn=f"{base_fqn}.{name}", op_sac_save_list=save_list)
            blocks.register_module(name, wrapped)

    def check_llama3(self) -> None:
        from torchtitan.models.llama3 import Transformer, llama3_args  # noqa: F401

    def build_llama3(self, flavor: str, layers: int, recipe: str, device, float8: bool):
        import copy
        from types import SimpleNamespace

        import torch
        from torchtitan.models.llama3 import Transformer, llama3_args

        if flavor not in llama3_args:
            raise ConfigError(
                f"--flavor {flavor!r}: torchtitan {torchtitan_version()}'s Llama 3 flavors are {', '.join(llama3_args)}"
            )
        args = copy.deepcopy(llama3_args[flavor])
        if layers > args.n_layers:
            raise ConfigError(f"--layers {layers}: torchtitan's Llama 3 {flavor} has {args.n_layers} blocks")
        args.n_layers = layers
        flex = args.attn_type != "sdpa" and device.type == "cuda"
        if args.attn_type != "sdpa" and not flex:
            # FlexAttention and varlen have no backward on the CPU: the flavor's causal SDPA, which for one
            # document per sequence (our batch) computes the same attention as its block-causal mask
            args.attn_type, args.attn_mask_type = "sdpa", "causal"
        elif flex:
            args.attn_type = "flex"
        with torch.device(device):
            model = Transformer(args)
        with torch.no_grad():  # as its trainer initialises it
            model.init_weights(buffer_device=device)
        if float8:
            from torchtitan.components.quantization.float8 import Float8LinearConverter
            from torchtitan.config import JobConfig

            job = JobConfig()
            job.quantize.linear.float8.recipe_name = recipe
            job.compile.enable, job.compile.components = True, ["model"]
            Float8LinearConverter(job, None).convert(model)  # the recipe path reads no parallel dims
        # the tokenizer's only use in the mask is its end-of-document id: one outside the vocabulary makes each
        # sequence one document, as the 0.3 path's causal mask
        no_eos = SimpleNamespace(eos_id=-1)

        def batch(tokens, positions):
            return (tokens, model.get_attention_masks(tokens, no_eos)) if flex else (tokens,)

        return model, args.vocab_size, batch


GENERATIONS = (SelectiveACGeneration, OpSacListGeneration)


def _generation():
    """The adapter for the installed torchtitan's API generation (ImportError if it does not import)."""
    import importlib

    ac_module = importlib.import_module(AC_MODULE)
    # torchtitan's list takes some ops only if they are registered when it is read: torch's variable-length
    # attention op (torch_attn._varlen_attn) registers when torch.nn.attention.varlen is imported, which its models
    # do. Loaded here, the list is the same whatever the process imported before (`memprobe policies`, a probe).
    with contextlib.suppress(ImportError):
        importlib.import_module("torch.nn.attention.varlen")
    for generation in GENERATIONS:
        if generation.detect(ac_module):
            return generation()
    names = " or ".join(g.name for g in GENERATIONS)
    raise ImportError(f"{AC_MODULE} has neither {names}: a torchtitan release memprobe does not know")


def why_unavailable(part: str = "sac") -> str | None:
    """None when torchtitan's ``part`` (``sac``: its per-op SAC and save list; ``llama3``: its Llama 3) can be
    used here; else why not, in one line, with what to install."""
    feature = {"sac": f"--ac-policy {POLICY_NAME}", "llama3": "--repro torchtitan"}[part]
    if torchtitan_version() is None:
        return f"{feature} needs torchtitan, which is not installed: {INSTALL_HINT}"
    try:
        generation = _generation()
        if part == "sac":
            generation.save_ops()
        else:
            generation.check_llama3()
    except Exception as e:  # a missing dependency of torchtitan's, or a torch it does not support
        return f"{feature}: torchtitan {torchtitan_version()} does not import here ({type(e).__name__}: {e}); {_remedy(e, part)}"
    return None


def _remedy(error: Exception, part: str) -> str:
    """What to do about an import failure: a torch too old for this torchtitan is not fixed by installing it again."""
    missing = str(getattr(error, "name", None) or "").split(".")[0]
    if isinstance(error, ImportError) and missing == "torch":
        import torch

        return (
            f"this torchtitan needs a newer torch than {torch.__version__}: install the torchtitan release "
            "made for this torch (0.2.2 for torch 2.11), or the torch this torchtitan was made for"
        )
    if isinstance(error, ModuleNotFoundError) and missing and missing != "torchtitan":
        extra = f" (torchtitan 0.2's Llama 3 imports {LLAMA3_02_DEPS})" if part == "llama3" else ""
        return f"install {missing} there{extra}"
    return INSTALL_HINT


def _require(part: str = "sac") -> None:
    why = why_unavailable(part)
    if why:
        raise ConfigError(why)


def installed_api() -> str:
    """The name of the installed torchtitan's per-op SAC API (``SelectiveAC`` or ``_apply_op_sac``)."""
    return _generation().name


def installed_save_ops() -> tuple[str, ...]:
    """The save list of the installed torchtitan's per-op SAC, resolved against the installed torch (sorted names)."""
    _require()
    return tuple(sorted(_op_name(op) for op in _generation().save_ops()))


def apply_selective_ac(
    blocks,
    add: frozenset = frozenset(),
    drop: frozenset = frozenset(),
    base_fqn: str = "layers",
    parity: tuple | None = None,
) -> None:
    """Wrap each child of ``blocks`` with torchtitan's own per-op SAC. The torch ops of ``--save-op`` (``add``)
    and ``--recompute-op`` (``drop``) edit its save list. ``parity``: ``(cpu_op, gpu_ops)``: the list saves
    ``cpu_op`` when it saves one of ``gpu_ops`` (the CPU's attention op for the GPU's fused ones, as memprobe's
    own policies do)."""
    _require()
    _generation().wrap_blocks(blocks, add, drop, base_fqn, parity)


def edited_save_ops(ops: set, add: frozenset, drop: frozenset, parity: tuple | None) -> set:
    """torchtitan's save list with ``--save-op``/``--recompute-op`` applied, and the CPU attention op saved where the
    GPU's would be."""
    ops = (set(ops) | add) - drop
    if parity is not None and ops & parity[1] and parity[0] not in drop:
        ops.add(parity[0])
    return ops


def build_llama3(flavor: str, layers: int, recipe: str, device, batch: int, seq: int, seed: int = 0):
    """torchtitan's Llama 3 at ``flavor`` with its first ``layers`` blocks, and a batch of token ids.

    Returns ``(model, batch tuple for model(*batch), float8_done)``: on CUDA with float8 hardware torchtitan's own
    Float8LinearConverter swaps the linears (float8_done True); elsewhere the caller converts them with torchao
    (the same Float8Linear, torchtitan refuses CPUs).
    """
    import torch

    _require("llama3")
    float8 = recipe != Recipe.BF16 and device.type == DeviceType.CUDA and torch.cuda.get_device_capability(device) >= (8, 9)
    torch.manual_seed(seed)
    model, vocab_size, make_batch = _generation().build_llama3(flavor, layers, recipe, device, float8)
    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    tokens = torch.randint(0, vocab_size, (batch, seq), generator=g).to(device)
    positions = torch.arange(seq, device=device).expand(batch, seq).contiguous()
    return model, make_batch(tokens, positions), float8
