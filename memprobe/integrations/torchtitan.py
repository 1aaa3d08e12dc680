"""torchtitan's own code, where a probe can drive it without torchtitan's trainer.

- :func:`installed_policy`: the per-op SAC save list of the installed torchtitan, read from its own
  ``SelectiveAC.get_save_ops()`` (torch's compute-intensive ops of the installed torch, torchtitan's
  entries, communication ops), for ``--ac-policy torchtitan-installed``;
- :func:`apply_selective_ac`: wraps each block with torchtitan's own ``SelectiveAC`` (its policy
  function: every second ``aten.mm``/``aten.linear`` recomputed, device-to-CPU copies saved), with
  ``--save-op``/``--recompute-op`` applied by overriding ``get_save_ops``, as torchtitan documents;
- :func:`build_llama3`: torchtitan's Llama 3 from its config registry (``debugmodel``, ``8B``, ...),
  with its float8 converter where it runs (CUDA, compute capability 8.9+).

Install it with ``pip install 'memprobe[torchtitan]'`` (see the README for the lightest install).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ..errors import ConfigError

POLICY_NAME = "torchtitan-installed"
INSTALL_HINT = (
    "pip install --no-deps torchtitan==0.3.0 tyro docstring-parser typeguard spmd_types==0.2.3 "
    "torch_checkpointing einops safetensors (its model code also needs triton)"
)


def torchtitan_version() -> str | None:
    try:
        return version("torchtitan")
    except PackageNotFoundError:
        return None


def why_unavailable(part: str = "distributed.activation_checkpoint") -> str | None:
    """None when ``torchtitan.<part>`` imports; else why not, in one line, with what to install."""
    if torchtitan_version() is None:
        return f"torchtitan is not installed: {INSTALL_HINT}"
    import importlib

    try:
        importlib.import_module(f"torchtitan.{part}")
    except Exception as e:  # a missing dependency of torchtitan's, or a torch it does not support
        return f"torchtitan {torchtitan_version()} does not import here ({type(e).__name__}: {e}); {_remedy(e)}"
    return None


def _remedy(error: Exception) -> str:
    """What to do about an import failure: a torch too old for this torchtitan is not fixed by installing it again."""
    if isinstance(error, ImportError) and str(error.name or "").split(".")[0] == "torch":
        import torch

        return (
            f"this torchtitan needs a newer torch than {torch.__version__}: install the torchtitan release "
            "made for this torch, or the torch this torchtitan was made for"
        )
    return INSTALL_HINT


def _require(part: str = "distributed.activation_checkpoint") -> None:
    why = why_unavailable(part)
    if why:
        raise ConfigError(f"--ac-policy {POLICY_NAME} / --repro torchtitan: {why}")


def _op_name(op) -> str:
    """``torch.ops.aten.mm.default`` -> ``aten.mm.default``; a higher-order op by its name."""
    name = str(op)
    return name if "." in name and not name.startswith("<") else f"higher_order.{getattr(op, '__name__', name)}"


def installed_save_ops() -> tuple[str, ...]:
    """The save list torchtitan's ``SelectiveAC`` uses, resolved against the installed torch (sorted names)."""
    _require()
    from torchtitan.distributed.activation_checkpoint import SelectiveAC

    policy = SelectiveAC(SelectiveAC.Config())
    return tuple(sorted(_op_name(op) for op in policy.get_save_ops()))


def apply_selective_ac(
    blocks,
    add: frozenset = frozenset(),
    drop: frozenset = frozenset(),
    base_fqn: str = "layers",
    parity: tuple | None = None,
) -> None:
    """Wrap each child of ``blocks`` with torchtitan's own SelectiveAC. The torch ops of ``--save-op`` (``add``)
    and ``--recompute-op`` (``drop``) edit its ``get_save_ops``, the customisation point torchtitan documents.
    ``parity``: ``(cpu_op, gpu_ops)``: the list saves ``cpu_op`` when it saves one of ``gpu_ops`` (the CPU's
    attention op for the GPU's fused ones, as memprobe's own policies do)."""
    _require()
    from torchtitan.distributed.activation_checkpoint import SelectiveAC

    class EditedSelectiveAC(SelectiveAC):
        def get_save_ops(self) -> set:
            ops = (set(super().get_save_ops()) | add) - drop
            if parity is not None and ops & parity[1] and parity[0] not in drop:
                ops.add(parity[0])
            return ops

    # preserve_rng_state off as the other policies here; the rest is torchtitan's defaults
    policy = EditedSelectiveAC(EditedSelectiveAC.Config(preserve_rng_state=False))
    for name, block in list(blocks.named_children()):
        blocks.register_module(name, policy._wrap_block(block, base_fqn=f"{base_fqn}.{name}"))


FLAVORS = ("debugmodel", "1B", "3B", "8B", "70B", "405B")


def build_llama3(flavor: str, layers: int, recipe: str, device, batch: int, seq: int, seed: int = 0):
    """torchtitan's Llama 3 at ``flavor`` with its first ``layers`` blocks, and a batch of token ids.

    Returns ``(model, (tokens, positions, attention_masks), float8_done)``: on CUDA with float8 hardware torchtitan's own
    Float8LinearConverter swaps the linears in the model config (float8_done True); elsewhere the
    caller converts them with torchao (the same Float8Linear, torchtitan refuses CPUs).
    """
    import torch

    _require("models.llama3")
    from torchtitan.models.llama3 import llama3_configs

    if flavor not in llama3_configs:
        raise ConfigError(f"--flavor {flavor!r}: torchtitan's Llama 3 flavors are {', '.join(llama3_configs)}")
    config = llama3_configs[flavor](attn_backend="flex")  # torchtitan's language models take flex, flex_flash or varlen
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
    float8_done = False
    if recipe != "bf16" and device.type == "cuda" and torch.cuda.get_device_capability(device) >= (8, 9):
        from torchtitan.components.quantization import Float8LinearConverter

        converter = Float8LinearConverter.Config(recipe_name=recipe, model_compile_enabled=True)
        config = converter.build().convert(config)
        float8_done = True
    torch.manual_seed(seed)
    with torch.device(device):
        model = config.build()
    model.init_states(buffer_device=device)
    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    tokens = torch.randint(0, config.vocab_size, (batch, seq), generator=g).to(device)
    positions = torch.arange(seq, device=device).expand(batch, seq).contiguous()
    # causal, one document per sequence: what its trainer builds for flex attention
    masks = model.get_attention_masks(positions) if flex else None
    return model, (tokens, positions, masks), float8_done
