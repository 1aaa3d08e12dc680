"""torchao's float8 training, as a probe uses it: ``torchao.float8.convert_to_float8_training`` with a
``Float8LinearConfig`` looked up by recipe name (``Float8LinearConfig.from_recipe_name``: tensorwise,
rowwise, rowwise_with_gw_hp).

Whether the installed torchao can do it is asked of torchao itself (it imports with this torch, it
has the lookup, it knows the recipe), never read from its version number.
"""

from __future__ import annotations

from ..vocab import Recipe

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
    lookup = getattr(Float8LinearConfig, "from_recipe_name", None)
    if lookup is None or convert_to_float8_training is None:
        return f"{feature}: torchao {version} has no float8 recipe lookup (Float8LinearConfig.from_recipe_name); {remedy}"
    try:
        lookup(recipe)
    except Exception as e:
        return f"{feature}: torchao {version} does not know this recipe ({type(e).__name__}: {e}); {remedy}"
    return None


def require(recipe: str) -> None:
    """Raise a one-line ConfigError if a float8 ``recipe`` cannot run with the installed torchao (bf16 always can)."""
    if recipe == Recipe.BF16:
        return
    why = why_unavailable(recipe)
    if why:
        from ..errors import ConfigError

        raise ConfigError(why)
