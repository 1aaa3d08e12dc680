"""The training stack a probe applies to the model a family built, in torchtitan's order, as small steps: float8
conversion -> activation checkpointing -> per-block torch.compile -> FSDP2 per block and at the root (or a bf16
cast without it). Each step acts on the model or on its *blocks*: the container (``nn.ModuleList``,
``nn.ModuleDict`` or ``nn.Sequential``) whose children get SAC, compile and FSDP. :mod:`memprobe.capture.build`
composes them; also the stand-in loss and the count of what the autograd graph holds for backward.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable

import torch
import torch.nn as nn

from ..rundir import records as R
from ..vocab import Float8Skip, Recipe
from .launch import launched_by_torchrun
from .saved_outside import storages_of


def float8_filter(module: nn.Module, fqn: str, align: int = 16) -> bool:
    """Linears a float8 recipe's matmuls can run: both dimensions multiples of ``align`` (16 for torch._scaled_mm)."""
    return isinstance(module, nn.Linear) and module.in_features % align == 0 and module.out_features % align == 0


def apply_float8(model: nn.Module, recipe: str, device, skip: tuple[str, ...] = ()) -> list[str]:
    """torchao float8 training on every eligible Linear (``recipe``: tensorwise, rowwise, rowwise_with_gw_hp with
    torchao.float8; blockwise and mxfp8 with torchao's prototypes) but those ``skip`` names by FQN (torchtitan's
    ``filter_fqns``), and on the grouped experts of a mixture-of-experts model where torchao's MoE training conversion
    runs (a rowwise recipe on a CUDA GPU of compute capability 9.0 or newer). Returns the notes that say what stayed in
    bf16 and why."""
    if recipe == Recipe.BF16:
        return []
    from ..compat.torchao import RECIPES

    how = RECIPES[recipe]
    if how.converter == "linear":
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training

        def eligible(module: nn.Module, fqn: str) -> bool:
            return float8_filter(module, fqn) and fqn not in skip

        convert_to_float8_training(model, config=Float8LinearConfig.from_recipe_name(recipe), module_filter_fn=eligible)
    else:
        _convert_prototype(model, how.converter, how.align, skip)
    return _convert_experts(model, recipe, device)


def _convert_prototype(model: nn.Module, converter: str, align: int, skip: tuple[str, ...] = ()) -> None:
    """The blockwise recipe's Float8BlockwiseLinear (linears without bias, dimensions multiples of 128), or the MX
    recipe's parameter wrapper (dimensions multiples of 32), through torchao's ``quantize_``."""
    from torchao.quantization import quantize_

    if converter == "blockwise":
        from torchao.prototype.blockwise_fp8_training.linear import Float8BlockwiseLinearConfig

        config = Float8BlockwiseLinearConfig()
    else:
        from torchao.prototype.moe_training.config import MXFP8TrainingOpConfig, MXFP8TrainingRecipe

        config = MXFP8TrainingOpConfig.from_recipe(MXFP8TrainingRecipe.MXFP8_RCEIL)

    def eligible(module: nn.Module, fqn: str) -> bool:
        return float8_filter(module, fqn, align) and fqn not in skip and (converter != "blockwise" or module.bias is None)

    quantize_(model, config, filter_fn=eligible)
    if converter == "blockwise":
        # torchao's Triton GEMMs (its use_triton option), not F.scaled_mm: torch.compile of torch 2.11 refuses to
        # trace that function ("marked as skipped"); what the layer saves for backward is the same either way
        from torchao.prototype.blockwise_fp8_training.linear import Float8BlockwiseLinear

        for module in model.modules():
            if isinstance(module, Float8BlockwiseLinear):
                module.use_triton = True


def experts_of(model: nn.Module) -> dict[str, nn.Module]:
    """The modules that hold 3-D weights (a mixture-of-experts layer's experts, run by a grouped GEMM), by FQN."""
    return {name: m for name, m in model.named_modules() if any(p.dim() == 3 for p in m.parameters(recurse=False))}


def why_experts_stay_bf16(recipe: str, device) -> str | None:
    """Why torchao's MoE training conversion cannot convert grouped experts here (None: it can)."""
    if recipe not in (Recipe.ROWWISE, Recipe.ROWWISE_WITH_GW_HP):
        return f"torchao's float8 grouped GEMM scales rowwise, and --recipe {recipe} does not"
    if torch.device(device).type != "cuda" or torch.cuda.get_device_capability(device) < (9, 0):
        return "torchao's float8 grouped GEMM runs on a CUDA GPU of compute capability 9.0 or newer"
    try:
        from torchao.prototype.moe_training.config import Float8TrainingOpConfig  # noqa: F401
    except ImportError as e:
        return f"this torchao has no MoE training conversion ({e})"
    return None


def _convert_experts(model: nn.Module, recipe: str, device) -> list[str]:
    experts = experts_of(model)
    if not experts:
        return []
    why = why_experts_stay_bf16(recipe, device)
    if why is not None:
        names = sorted({_layer_star(n) for n in experts})
        return [f"float8: the experts ({', '.join(names)}) stay bf16: {why}"]
    from torchao.prototype.moe_training.config import Float8TrainingOpConfig
    from torchao.quantization import quantize_

    chosen = set(map(id, experts.values()))
    quantize_(model, Float8TrainingOpConfig(float8_linear_recipe=recipe), filter_fn=lambda m, _fqn: id(m) in chosen)
    routed = [name for name, m in experts_of(model).items() if _route_in_blocks(m)]  # the modules as converted
    if not routed:
        return []
    names = ", ".join(sorted({_layer_star(n) for n in routed}))
    return [
        f"float8: the experts ({names}) get tokens in blocks of {ROUTE_BLOCK}, round robin, not by their router: "
        f"torchao's float8 grouped GEMM needs each expert's token group a multiple of {ROUTE_BLOCK}, which transformers "
        "does not pad (torchtitan's debug_force_load_balance routes likewise); the rows each GEMM and each saved value "
        "holds add up to tokens x top-k either way"
    ]


ROUTE_BLOCK = 16  # torchao's float8 grouped GEMM: each expert's token group a multiple of this


def _route_in_blocks(experts: nn.Module) -> bool:
    """Give a transformers experts module (``forward(hidden_states, top_k_index, top_k_weights)``) its tokens in
    blocks of ROUTE_BLOCK, round robin over the experts (each token's top-k distinct), whatever its router chose: the
    token groups of its grouped GEMM are then multiples of ROUTE_BLOCK when the tokens are. False for another
    signature (torchtitan's MoE pads its groups itself)."""
    import inspect

    params = list(inspect.signature(experts.forward).parameters)
    if params[:2] != ["hidden_states", "top_k_index"]:
        return False
    count = next(p.shape[0] for p in experts.parameters(recurse=False) if p.dim() == 3)

    def balanced(_module, args, kwargs):
        index = kwargs["top_k_index"] if "top_k_index" in kwargs else args[1]
        tokens, top_k = index.shape
        block = torch.arange(tokens, device=index.device) // ROUTE_BLOCK
        routed = (block[:, None] + torch.arange(top_k, device=index.device)) % count
        routed = routed.to(index.dtype)
        if "top_k_index" in kwargs:
            return args, {**kwargs, "top_k_index": routed}
        return (args[0], routed, *args[2:]), kwargs

    experts.register_forward_pre_hook(balanced, with_kwargs=True)
    return True


def _layer_star(fqn: str) -> str:
    """``model.layers.3.mlp.experts`` -> ``model.layers.*.mlp.experts``: one name for every block's."""
    return ".".join("*" if part.isdigit() else part for part in fqn.split("."))


def _wrapped(t) -> bool:
    return t is not None and any(c.__name__.endswith("TrainingWeightWrapperTensor") for c in type(t).__mro__)


def _converted(param) -> bool:
    """Whether a 3-D weight is float8 by torchao's MoE training conversion: its data wrapped (under FSDP2, its local
    shard's)."""
    data = getattr(param, "data", None)
    return any(_wrapped(t) for t in (param, data, getattr(param, "_local_tensor", None), getattr(data, "_local_tensor", None)))


def float8_coverage(model: nn.Module, blocks_attr: str, recipe: str, converter: str = "torchao") -> R.Float8Coverage | None:
    """Which weights float8 training converted, and which it left in bf16 and why (:class:`memprobe.vocab.Float8Skip`),
    for the report: every ``nn.Linear``'s, every other module's 2-D weight (GPT-2's ``Conv1D``, a router), and every
    3-D weight (a mixture-of-experts layer's experts), by FQN (a module's for its ``weight``, else the parameter's).
    None for bf16. Call it after the stack is applied: wrappers (SAC, compile) are left out of the names."""
    if recipe == Recipe.BF16:
        return None
    converted_linears = _float8_linear_classes()
    linears = [
        _float8_weight(module, name, pname, weight, blocks_attr, converted_linears)
        for name, module in model.named_modules()
        if not isinstance(module, (nn.Embedding, nn.EmbeddingBag))
        for pname, weight in module._parameters.items()
        if weight is not None and (weight.dim() == 3 or (weight.dim() == 2 and pname == "weight"))
    ]
    in_blocks = [x for x in linears if x.in_blocks]
    return R.Float8Coverage(
        recipe=recipe,
        converter=converter,
        linears=linears,
        block_linear_parameters=sum(x.parameters for x in in_blocks),
        block_converted_parameters=sum(x.parameters for x in in_blocks if x.converted),
    )


def _float8_weight(module: nn.Module, name: str, pname: str, weight, blocks_attr: str, converted_linears) -> R.Float8Linear:
    from ..names import user_name

    fqn = user_name(name if pname == "weight" else f"{name}.{pname}")
    skipped = _float8_skip(module, weight, converted_linears)
    return R.Float8Linear(
        fqn=fqn,
        type=type(module).__name__,
        weight_shape=[int(d) for d in weight.shape],
        parameters=int(weight.numel()),
        in_blocks=fqn.startswith(blocks_attr + "."),
        converted=skipped is None,
        skipped=skipped,
    )


def _float8_linear_classes() -> tuple[type, ...]:
    """The module classes torchao's float8 converters swap linears for (the blockwise prototype's where it imports)."""
    from torchao.float8.float8_linear import Float8Linear

    try:
        from torchao.prototype.blockwise_fp8_training.linear import Float8BlockwiseLinear
    except Exception:  # a torchao without the prototype, or one that does not import here
        return (Float8Linear,)
    return (Float8Linear, Float8BlockwiseLinear)


def _float8_skip(module: nn.Module, weight, float8_linear: tuple[type, ...]) -> Float8Skip | None:
    if weight.dim() == 3:
        return None if _converted(weight) else Float8Skip.GROUPED_EXPERTS
    if isinstance(module, float8_linear) or _converted(weight):
        return None
    if isinstance(module, nn.Linear):
        return Float8Skip.DIMS if module.in_features % 16 or module.out_features % 16 else Float8Skip.FILTERED
    return Float8Skip.NOT_LINEAR


def apply_compile(blocks: nn.Module, backend: Callable | str = "inductor") -> None:
    """torch.compile each block, as torchtitan does."""
    for name, block in list(blocks.named_children()):
        blocks.register_module(name, torch.compile(block, backend=backend, fullgraph=True))


def apply_fsdp(model: nn.Module, blocks: nn.Module, *, reshard_after_forward: bool = True) -> None:
    """FSDP2 per block and at the root, bf16 params, fp32 reductions (torchtitan's defaults).

    It shards over the default process group: world size 1 in one process, N ranks under torchrun.
    """
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in blocks.children():
        fully_shard(block, mp_policy=mp, reshard_after_forward=reshard_after_forward)
    fully_shard(model, mp_policy=mp)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def indexed_device(device: torch.device | str) -> torch.device:
    """``cuda`` as the GPU it means (``cuda:N``, the current one): NCCL's ``device_id`` and
    ``torch.cuda.set_device`` need an index."""
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        return torch.device("cuda", torch.cuda.current_device())
    return device


def init_process_group(device: torch.device, fake_world: int = 0) -> bool:
    """The default process group (gloo on CPU, nccl on CUDA). True if this call created it.

    Under torchrun it joins the launcher's group (env://, N ranks); otherwise it makes a world of size 1 at an
    explicit address, not MASTER_ADDR/MASTER_PORT: those may belong to a launcher around us. ``fake_world`` N: rank
    0 of N over PyTorch's fake process group (``fake``: its collectives return at once and move no data, the
    tensors they would fill keep what they held), what torchtitan's ``fake_backend`` mode and PyTorch's MemTracker
    tests shard over to measure one rank in one process.
    """
    import torch.distributed as dist

    if dist.is_initialized():
        return False
    if fake_world:
        from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the "fake" backend

        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=fake_world)
        return True
    device = indexed_device(device)
    backend = "nccl" if device.type == "cuda" else "gloo"
    kwargs = {"device_id": device} if device.type == "cuda" else {}
    if launched_by_torchrun():
        dist.init_process_group(backend, **kwargs)
    else:
        dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1, **kwargs)
    return True


def _tensors(out) -> Iterable[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        yield out
    elif isinstance(out, dict):
        for v in out.values():
            yield from _tensors(v)
    elif isinstance(out, (tuple, list)):
        for v in out:
            yield from _tensors(v)


def loss_fn(out) -> torch.Tensor:
    """Mean square of the model's floating-point outputs (a stand-in loss with a full backward)."""
    parts = [t.float().pow(2).mean() for t in _tensors(out) if t.is_floating_point() and t.requires_grad]
    if not parts:
        raise ValueError("the model's output has no floating-point tensor that requires grad")
    return sum(parts[1:], parts[0])


def _node_tensors(node) -> list[torch.Tensor]:
    """The tensors an autograd node holds for backward (its saved tensors and ``_saved_*`` attributes)."""
    tensors = []
    if hasattr(node, "saved_tensors"):
        try:
            tensors.extend(t for t in node.saved_tensors if isinstance(t, torch.Tensor))
        except RuntimeError:
            pass
    for attr in dir(node):
        if attr.startswith("_saved_"):
            val = getattr(node, attr, None)
            if isinstance(val, torch.Tensor):
                tensors.append(val)
    return tensors


def saved_tensor_bytes(root: torch.Tensor) -> int:
    """Bytes of the distinct storages the autograd graph behind ``root`` holds for backward.

    Do not call it on a graph with eager (uncompiled) checkpointed regions: unpacking their saved tensors consumes
    them, and backward then fails.
    """
    seen_nodes, seen_storages, total = set(), set(), 0
    stack = [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        for t in _node_tensors(node):
            for key in storages_of(t):
                if key not in seen_storages:
                    seen_storages.add(key)
                    total += key[1]
        stack.extend(fn for fn, _ in node.next_functions)
    return total
