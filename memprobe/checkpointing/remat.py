"""``--ac remat``: region rematerialization with torch_remat (torchtitan's remat, its ``save_regions`` and
``recompute_regions``). Each block is one ``remat.checkpoint`` named by the block (``layers.0``): everything inside it
recomputes by default; each submodule whose name in the block matches a ``--save-region`` pattern (and no
``--recompute-region`` pattern, applied after them) is a ``remat.region`` with ``recompute=False``, kept for backward.
A pattern is an fnmatch pattern over the submodule's name relative to the block (``attn.wqkv``, ``ffn.*``)."""

from __future__ import annotations

from fnmatch import fnmatchcase

from ..errors import ConfigError
from ..fields import option
from ..vocab import AcMode, EnvNeed
from .base import Edit, Facts, Mode


class RegionRemat(Mode):
    name = AcMode.REMAT.value
    about = "remat (torch_remat regions, --save-region / --recompute-region)"
    regions = True
    fields = (
        (
            "save_regions",
            tuple[str, ...],
            option(
                (),
                "With --ac remat: keep the submodules whose name in the block matches PATTERN (an fnmatch pattern: "
                "attn.wqkv, ffn.*), each a torch_remat region with recompute=False (repeatable).",
                flag="--save-region",
                metavar="PATTERN",
            ),
        ),
        (
            "recompute_regions",
            tuple[str, ...],
            option(
                (),
                "With --ac remat: recompute the submodules whose name matches PATTERN even where a --save-region "
                "pattern matches them too (applied after the save patterns; repeatable).",
                flag="--recompute-region",
                metavar="PATTERN",
            ),
        ),
    )

    def check(self, cfg) -> None:
        for field in ("save_regions", "recompute_regions"):
            for pattern in getattr(cfg, field):
                if not isinstance(pattern, str) or not pattern.strip():
                    raise ConfigError(f"--{field[:-1].replace('_', '-')} needs a pattern (got {pattern!r})", field=field)

    def summary(self, cfg) -> str:
        saved = ",".join(cfg.save_regions) or "none"
        return f"{self.name}/save={saved}"

    def needs(self, cfg) -> set:
        return {EnvNeed.TORCH_REMAT}

    def unrunnable(self, cfg) -> str | None:
        from ..integrations.remat import why_no_eager_recompute

        return None if cfg.compile else why_no_eager_recompute()

    def apply(self, blocks, target, cfg, decisions: dict) -> None:
        """Each block a ``remat.checkpoint``, its matching submodules ``remat.region``s: each module's class becomes a
        subclass of its own (its name kept) whose forward calls torch_remat around the class's, so the module, its
        parameters and its name stay where they are and Dynamo reads them through the module as before."""
        import torch_remat as remat

        _check_patterns(blocks, cfg.save_regions)
        for name, block in blocks.named_children():
            for path, module in kept_regions(block, cfg.save_regions, cfg.recompute_regions):
                _around(module, lambda forward, path=path: _kept(remat, forward, path))
            region_name = f"{target.blocks_attr}.{name}"
            _around(block, lambda forward, region_name=region_name: remat.checkpoint(region_name=region_name)(forward))

    def eager_regions(self, cfg) -> bool:
        return not cfg.compile

    def edits(self, cfg, facts: Facts) -> list[Edit]:
        """Each region that kept something, recomputed (its name added to --recompute-region)."""
        return [
            Edit(
                flag=f"--recompute-region {region}",
                edit=f"recompute region {region} (torch_remat recompute=True)",
                changes={"recompute_regions": cfg.recompute_regions + (region,)},
                directory=f"recompute-region-{region.replace('.', '-').replace('*', 'x')}",
            )
            for region in facts.saved_regions
        ]


def _around(module, wrap) -> None:
    """``module``'s forward called through ``wrap(forward)`` at each call (``wrap``: torch_remat's region or checkpoint,
    made where it runs: under compile, while Dynamo traces)."""
    cls = type(module)
    base = cls.forward

    def forward(self, *args, **kwargs):
        return wrap(lambda *a, **k: base(self, *a, **k))(*args, **kwargs)

    module.__class__ = type(cls.__name__, (cls,), {"forward": forward, "__module__": cls.__module__})


def _kept(remat, forward, path: str):
    """``forward`` as a ``recompute=False`` region whose outputs are kept for the recompute: the block's own code
    around the module is no region, and eagerly torch_remat's recompute skips a kept region, so that code would read
    its placeholder outputs (torch_remat's ``recompute_needs_tensor``, for a consumer that is no region; compiled:
    nothing, the partitioner decides)."""
    import torch

    region = remat.region(forward, path, recompute=False)

    def call(*args, **kwargs):
        out = region(*args, **kwargs)
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        remat.recompute_needs_tensor(*(t for t in outputs if isinstance(t, torch.Tensor)))
        return out

    return call


def _check_patterns(blocks, patterns) -> None:
    """ConfigError for a ``--save-region`` pattern that names no submodule of any block (naming those it could)."""
    names = sorted({path for block in blocks.children() for path, _ in block.named_modules() if path})
    for pattern in patterns:
        if not any(fnmatchcase(n, pattern) for n in names):
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise ConfigError(f"--save-region {pattern!r} matches no submodule of the blocks ({shown})", field="save_regions")


def matches(path: str, patterns) -> bool:
    return any(fnmatchcase(path, p) for p in patterns)


def kept_regions(block, save, recompute) -> list[tuple[str, object]]:
    """The submodules of ``block`` (name relative to it, module) a ``save`` pattern matches and no ``recompute``
    pattern does; of nested matches the outermost (torch_remat runs a region inside a kept one inert)."""
    out: list[tuple[str, object]] = []
    for path, module in block.named_modules():
        if not path or any(path.startswith(p + ".") for p, _ in out):
            continue
        if matches(path, save) and not matches(path, recompute):
            out.append((path, module))
    return out
