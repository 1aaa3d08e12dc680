"""What a probe builds: one of the repros, or the user's own model (``--model``).

The contract for ``--model MODULE_OR_FILE:FACTORY`` (docs/models.md has it in full):

- ``FACTORY(device)`` is called with the ``torch.device`` to build on and returns
  ``(model, batch)``: an ``nn.Module`` in fp32 and an example input, a tensor or a tuple
  of positional arguments, such that ``model(*batch)`` runs a forward pass;
- the blocks that get SAC, torch.compile and FSDP are the children of the first
  ``nn.ModuleList`` / ``nn.ModuleDict`` in ``model.named_modules()`` order, or of the
  container at ``--blocks ATTR`` (a dotted attribute path, e.g. ``model.layers``);
- the loss is the mean square of the floating-point outputs that require grad.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..config import ProbeConfig
from ..errors import ConfigError
from ..vocab import Repro


@dataclass
class Target:
    model: object  # nn.Module
    batch: tuple  # positional arguments of model(...)
    blocks_attr: str  # e.g. "layers"; names in the report are prefixed with it
    float8_done: bool = False  # built with float8 linears already (torchtitan's converter)
    notes: list[str] = field(default_factory=list)  # what memprobe changed in the model, said in the run's header

    @property
    def blocks(self):
        return _get_attr(self.model, self.blocks_attr)


def _get_attr(obj, path: str):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def load_factory(spec: str):
    """``pkg.module:fn`` or ``path/to/file.py:fn`` -> the callable, or ConfigError."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise ConfigError(f"--model {spec!r}: expected MODULE_OR_FILE:FACTORY, e.g. mymodels.py:build or pkg.models:build")
    if where.endswith(".py") or "/" in where:
        path = Path(where).resolve()
        if not path.is_file():
            raise ConfigError(f"--model {spec!r}: no such file {where}")
        mod_name = f"memprobe_user_model_{abs(hash(str(path)))}"
        module = sys.modules.get(mod_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(mod_name, path)
            if loader_spec is None or loader_spec.loader is None:  # a file Python imports no module from
                raise ConfigError(f"--model {spec!r}: {where} is not a Python file (a model module is a .py file)")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[mod_name] = module
            try:
                with _user_code(f"--model {spec!r}: importing {where}"):
                    loader_spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[mod_name]
                raise
    else:
        with _user_code(f"--model {spec!r}: importing {where}"):
            module = importlib.import_module(where)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise ConfigError(f"--model {spec!r}: {where} has no callable {name}")
    return factory


@contextmanager
def _user_code(what: str):
    """Run the user's code: its failures are bad input (exit 2) with its traceback kept as the cause
    (``--debug`` shows it); ``sys.exit()`` in it (a module-level argparse, say) is a failure too,
    never a silent success. Ctrl-C and SIGTERM pass through as interruptions."""
    from ..errors import Interrupted

    try:
        yield
    except (ConfigError, Interrupted, KeyboardInterrupt):
        raise
    except SystemExit as e:  # os._exit too, while a probe runs (memprobe.capture.guard)
        raise ConfigError(
            f"{what} called {getattr(e, 'call', 'sys.exit')}({e.code!r}); a model module must not exit or replace the process (is argparse run at "
            'import? guard it with `if __name__ == "__main__":`)'
        ) from e
    except Exception as e:
        raise ConfigError(f"{what} raised {type(e).__name__}: {e}") from e


def find_blocks(model, attr: str | None) -> str:
    """The attribute path of the block container: ``attr`` if given (checked), else the first
    ModuleList/ModuleDict in ``named_modules()`` order."""
    import torch.nn as nn

    containers = (nn.ModuleList, nn.ModuleDict, nn.Sequential)
    if attr:
        try:
            obj = _get_attr(model, attr)
        except AttributeError:
            raise ConfigError(f"--blocks {attr!r}: the model has no attribute {attr}") from None
        if not isinstance(obj, containers) or not len(obj):
            raise ConfigError(f"--blocks {attr!r} is a {type(obj).__name__}, not a non-empty ModuleList/ModuleDict/Sequential")
        return attr
    for name, module in model.named_modules():
        if name and isinstance(module, (nn.ModuleList, nn.ModuleDict)) and len(module):
            return name
    raise ConfigError("the model has no nn.ModuleList or nn.ModuleDict of blocks; name the container with --blocks ATTR")


def build_target(cfg: ProbeConfig, device) -> Target:
    import torch

    if cfg.model:
        factory = load_factory(cfg.model)
        torch.manual_seed(cfg.seed)
        with _user_code(f"--model {cfg.model}: the factory"), torch.device(device):
            result = factory(device) if inspect.signature(factory).parameters else factory()
        if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], torch.nn.Module)):
            raise ConfigError(f"--model {cfg.model}: the factory must return (model, batch); got {type(result).__name__}")
        model, batch = result
        batch = tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)
        model = model.to(device)
        batch = tuple(t.to(device) if isinstance(t, torch.Tensor) else t for t in batch)
        from ..integrations.huggingface import decoder_blocks, turn_off_kv_cache

        notes = turn_off_kv_cache(model)
        blocks = cfg.blocks or decoder_blocks(model)
        return Target(model, batch, find_blocks(model, blocks), notes=notes)
    if cfg.hf_config:
        from ..integrations.huggingface import build_causal_lm, decoder_blocks

        model, batch, notes = build_causal_lm(cfg.hf_config, cfg.layers, device, cfg.batch, cfg.seq, cfg.seed)
        return Target(model, batch, find_blocks(model, cfg.blocks or decoder_blocks(model)), notes=notes)
    if cfg.repro == Repro.TORCHTITAN:
        from ..integrations.torchtitan import build_llama3

        model, batch, float8_done = build_llama3(
            cfg.flavor or "debugmodel", cfg.layers, cfg.recipe, device, cfg.batch, cfg.seq, cfg.seed
        )
        return Target(model, batch, "layers", float8_done)
    from repros import get_repro
    from repros.common import make_batch

    module = get_repro(cfg.repro)
    model = module.build_model(
        cfg.dim, cfg.hidden, cfg.layers, heads=cfg.heads, kv_heads=cfg.kv_heads, seed=cfg.seed, device=device
    )
    x = make_batch(cfg.batch, cfg.seq, cfg.dim, device=device, seed=cfg.seed)
    return Target(model, (x,), find_blocks(model, cfg.blocks or "layers"))


def cast_batch(batch: tuple, dtype) -> tuple:
    """Floating-point tensors of the batch in ``dtype`` (a model cast to bf16 without FSDP)."""
    import torch

    return tuple(t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in batch)


def describe(target: Target) -> dict:
    """Parameter counts by block and outside the blocks (for the report and the estimate); the names of the
    blocks' forward arguments and the files of the model's own code (for the saved table's names and frames)."""
    blocks = target.blocks
    per_block = {}
    in_blocks = set()
    for name, block in blocks.named_children():
        params = list(block.parameters())
        in_blocks.update(id(p) for p in params)
        per_block[f"{target.blocks_attr}.{name}"] = sum(p.numel() for p in params)
    other = sum(p.numel() for p in target.model.parameters() if id(p) not in in_blocks)
    out = {"blocks_attr": target.blocks_attr, "blocks": len(per_block), "block_parameters": per_block, "other_parameters": other}
    arguments = block_arguments(blocks)
    if arguments is not None:
        out["block_arguments"] = arguments
    out["code_files"] = model_code_files(target.model)
    return out


def block_arguments(blocks) -> list[str] | None:
    """The names of the positional parameters of the blocks' ``forward`` (``["x", "rope_cache", "attention_masks",
    "positions"]``): a block's ``args[2]`` is named by them. None when the blocks' signatures differ."""
    names = None
    for block in blocks.children():
        try:
            params = inspect.signature(block.forward).parameters.values()
        except (TypeError, ValueError):
            return None
        mine = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if names is not None and mine != names:
            return None
        names = mine
    return names


# packages whose module classes are the machinery around a model, not the model's own code
_MACHINERY = ("torch", "torchao")


def model_code_files(model) -> list[str]:
    """The source files of the model's own module classes (its ``--model`` file, transformers'
    ``models/llama/modeling_llama.py``, torchtitan's ``models/``), not torch's or torchao's: a frame in one of
    them is the user's model, wherever it is installed."""
    files = set()
    for cls in {type(m) for m in model.modules()}:
        if cls.__module__.split(".")[0] in _MACHINERY:
            continue
        try:
            path = inspect.getsourcefile(cls)
        except (TypeError, OSError):
            continue
        if path:
            files.add(path)
    return sorted(files)


# known causes of failures in a model's code under the probe's stack, and what to do about them
_KNOWN_FIXES = (
    (
        re.compile(r"DynamicLayer|DynamicCache|cache_utils\.py"),
        "the model's KV cache does not trace under torch.compile: build it with use_cache=False (memprobe turns it "
        "off itself for a transformers model, see docs/models.md)",
    ),
)
_CONSTANT = re.compile(r'^ConstantVariable\((?:\w+: )?"(?P<text>.*)"\)$')
_RAISED = re.compile(r"raised exception (?P<type>\w+)\(")
# torch 2.15's Dynamo: the observed exception's own message is `raised exception TYPE("TEXT")`
_RAISED_TEXT = re.compile(r"""^raised exception \w+\((?P<quote>["'])(?P<text>.*)(?P=quote)\)$""")
_USER_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')


def innermost_cause(error: BaseException) -> str:
    """A failure of the model's code in one line: its innermost cause (through ``raise ... from`` and Dynamo's
    wrapping), the innermost frame it was raised in, and the fix where memprobe knows one."""
    import traceback

    from ..analysis.frames import is_library, short_path

    chain: list[BaseException] = []
    cur: BaseException | None = error
    while cur is not None and cur not in chain and len(chain) < 20:
        chain.append(cur)
        cur = cur.__cause__ or (None if cur.__suppress_context__ else cur.__context__)
    inner = chain[-1]
    lines = str(inner).strip().splitlines()
    text = lines[0].strip() if lines else ""
    m = _CONSTANT.match(text) or _RAISED_TEXT.match(text)
    if m:  # Dynamo re-raises the model's exception as an "observed" one holding its message
        text = m["text"]
    kind = type(inner).__name__
    where = None
    for e in chain:  # Dynamo names the model's exception type and its frames in the message of its own error
        raised = _RAISED.search(str(e))
        if raised and kind.startswith("Observed"):
            kind = raised["type"]
        frames = _USER_FRAME.findall(str(e).partition("from user code:")[2])
        if frames:
            file, line, _func = frames[-1]
            where = f"{short_path(file)}:{line}"
    if where is None:
        frames = [f for f in traceback.extract_tb(inner.__traceback__) if not is_library(f.filename)] or traceback.extract_tb(
            inner.__traceback__
        )
        if frames:
            where = f"{short_path(frames[-1].filename)}:{frames[-1].lineno}"
    line = f"{kind}: {text}" + (f" ({where})" if where else "")
    if inner is not error:
        outer = (str(error).strip().splitlines() or [""])[0]
        line = f"{type(error).__name__}: {outer} <- {line}"
    fix = next((fix for pattern, fix in _KNOWN_FIXES if pattern.search(line)), None)
    return line + (f"; {fix}" if fix else "")
