"""torchao's float8 training, as a probe uses it, recipe by recipe (:data:`RECIPES`):
``torchao.float8.convert_to_float8_training`` with a ``Float8LinearConfig`` looked up by recipe name
(``Float8LinearConfig.from_recipe_name``: tensorwise, rowwise, rowwise_with_gw_hp); the blockwise recipe's
``Float8BlockwiseLinearConfig`` and the MX recipe's ``MXFP8TrainingOpConfig`` (torchao's prototypes) through
``quantize_``.

Whether the installed torchao can do it is asked of torchao itself (it imports with this torch, it
has the lookup, it knows the recipe), never read from its version number.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vocab import Recipe


@dataclass(frozen=True)
class Float8Recipe:
    """What a float8 recipe needs: the converter that applies it (``linear``: torchao.float8's Float8Linear;
    ``blockwise``: the blockwise prototype's Float8BlockwiseLinear; ``mx``: the MX prototype's parameter wrapper),
    the multiple a linear's in and out features must be of, the GPU compute capability its kernels need, and whether
    it runs on the CPU (torch's CPU ``_scaled_mm``)."""

    converter: str
    align: int
    capability: tuple[int, int]
    cpu: bool


RECIPES: dict[str, Float8Recipe] = {
    Recipe.TENSORWISE: Float8Recipe("linear", 16, (8, 9), cpu=True),
    Recipe.ROWWISE: Float8Recipe("linear", 16, (8, 9), cpu=True),
    Recipe.ROWWISE_WITH_GW_HP: Float8Recipe("linear", 16, (8, 9), cpu=True),
    Recipe.BLOCKWISE: Float8Recipe("blockwise", 128, (9, 0), cpu=False),
    Recipe.MXFP8: Float8Recipe("mx", 32, (10, 0), cpu=False),
}


def why_not_on(recipe: str, capability: tuple[int, int] | None, device_name: str) -> str | None:
    """Why ``recipe`` cannot run on a device (``capability``: a CUDA GPU's; None: the CPU), as one line; None: it can
    (the CPU's rowwise kernel is asked of torch itself: :func:`memprobe.compat.torch.why_no_cpu_float8`)."""
    r = RECIPES.get(recipe)
    if r is None:
        return None
    need = f"a CUDA GPU of compute capability {r.capability[0]}.{r.capability[1]} or newer"
    if capability is None and not r.cpu:
        return (
            f"float8 recipe {recipe!r} needs {need} (its kernels are Triton's and CUDA's): run it on such a GPU (--device cuda)"
        )
    if capability is not None and capability < r.capability:
        have = f"{capability[0]}.{capability[1]}"
        remedy = "--recipe bf16 or --device cpu" if r.cpu else "--recipe rowwise (8.9 or newer) or bf16"
        return f"float8 recipe {recipe!r} needs {need}; {device_name} is {have}: use {remedy}"
    return None


# the first torchao release whose Float8LinearConfig looks recipes up by name, rowwise included
FIRST_SUPPORTED = "0.9"


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torchao")
    except PackageNotFoundError:
        return None


def why_unavailable(recipe: str) -> str | None:
    """None when float8 ``recipe`` can be trained with the installed torchao; else one line saying why and what to do."""
    feature = f"float8 recipe {recipe!r}"
    remedy = f"install torchao>={FIRST_SUPPORTED} (the release made for this torch) or use --recipe bf16"
    try:
        import torchao  # noqa: F401
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training  # noqa: F401
    except Exception as e:  # missing, or a torchao that does not import with this torch
        import torch

        if _version() is None or (isinstance(e, ImportError) and (e.name or "").split(".")[0] == "torchao"):
            why = f"torchao.float8 is not importable ({type(e).__name__}: {e})"
        else:
            why = f"torchao {_version()} does not import with torch {torch.__version__} ({type(e).__name__}: {e})"
        return f"{feature} needs torchao>={FIRST_SUPPORTED} with torchao.float8: {why}; {remedy}"
    version = getattr(torchao, "__version__", None) or _version()
    converter = RECIPES[recipe].converter if recipe in RECIPES else "linear"
    if converter != "linear":
        return _why_no_prototype(recipe, converter, version)
    lookup = getattr(Float8LinearConfig, "from_recipe_name", None)
    if lookup is None or convert_to_float8_training is None:
        return f"{feature}: torchao {version} has no float8 recipe lookup (Float8LinearConfig.from_recipe_name); {remedy}"
    try:
        lookup(recipe)
    except Exception as e:
        return f"{feature}: torchao {version} does not know this recipe ({type(e).__name__}: {e}); {remedy}"
    return None


# the prototype each converter other than torchao.float8's comes from: (module, names it must hold)
_PROTOTYPES = {
    "blockwise": ("torchao.prototype.blockwise_fp8_training.linear", ("Float8BlockwiseLinearConfig", "Float8BlockwiseLinear")),
    "mx": ("torchao.prototype.moe_training.config", ("MXFP8TrainingOpConfig", "MXFP8TrainingRecipe")),
}


def _why_no_prototype(recipe: str, converter: str, version: str | None) -> str | None:
    import importlib

    module, names = _PROTOTYPES[converter]
    try:
        found = importlib.import_module(module)
    except Exception as e:
        return f"float8 recipe {recipe!r}: torchao {version} has no {module} ({type(e).__name__}: {e}); use --recipe rowwise"
    missing = [n for n in names if not hasattr(found, n)]
    if missing:
        return f"float8 recipe {recipe!r}: torchao {version}'s {module} has no {', '.join(missing)}; use --recipe rowwise"
    return None


def require(recipe: str) -> None:
    """Raise a one-line ConfigError if a float8 ``recipe`` cannot run with the installed torchao (bf16 always can)."""
    if recipe == Recipe.BF16:
        return
    why = why_unavailable(recipe)
    if why:
        from ..errors import ConfigError

        raise ConfigError(why)
