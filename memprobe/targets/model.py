"""``--model MODULE_OR_FILE:FACTORY``: the user's own model.

The contract (docs/models.md has it in full):

- ``FACTORY(device)`` is called with the ``torch.device`` to build on and returns ``(model, batch)``: an
  ``nn.Module`` in fp32 and an example input, a tensor or a tuple of positional arguments, such that
  ``model(*batch)`` runs a forward pass;
- the blocks that get SAC, torch.compile and FSDP are the children of the first ``nn.ModuleList`` /
  ``nn.ModuleDict`` in ``model.named_modules()`` order, or of the container at ``--blocks ATTR`` (a dotted
  attribute path, e.g. ``model.layers``);
- the loss is the mean square of the floating-point outputs that require grad.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, Interrupted
from ..fields import option, shown
from .base import BuiltModel, ModelSource, Target, accepts_device, block_container, blocks_field


@dataclass(frozen=True)
class UserModel(Target):
    """The model a factory of the user's returns, with its own example batch (the dimension flags do not apply)."""

    name = "model"
    about = "your own model, --model"
    selector = "model"

    model: str | None = option(
        None,
        "Probe your own model instead of a repro: FACTORY(device) returns (model, batch); "
        "see docs/models.md. The dimension flags do not apply.",
        metavar="MODULE_OR_FILE:FACTORY",
    )
    blocks: str | None = blocks_field()

    def check(self) -> None:
        if ":" not in self.model:
            raise ConfigError(f"--model {self.model!r}: expected MODULE_OR_FILE:FACTORY, e.g. mymodels.py:build", field="model")

    def check_files(self) -> None:
        where = self.model.rpartition(":")[0]
        if where.endswith(".py") or "/" in where:
            if not Path(where).resolve().is_file():
                raise ConfigError(f"--model {self.model!r}: no such file {where}", field="model")
            if not where.endswith(".py"):
                raise ConfigError(f"--model {self.model!r}: {where} is not a Python file (a model module is a .py file)")
        elif where and importlib.util.find_spec(where.partition(".")[0]) is None:  # its top package, imported by none
            raise ConfigError(f"--model {self.model!r}: no module named {where.partition('.')[0]!r}", field="model")

    def users_code(self) -> str | None:
        return f"code to run, {shown(self.model, 200)}"

    def summary(self) -> str:
        return f"model={self.model}" + (f" blocks={self.blocks}" if self.blocks else "")

    def short_name(self) -> str:
        where = self.model.rpartition(":")[0]
        return Path(where).stem if where.endswith(".py") or "/" in where else where.rsplit(".", 1)[-1]

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        import torch

        from ..integrations.huggingface import decoder_blocks, turn_off_kv_cache

        factory = load_factory(self.model)
        torch.manual_seed(seed)
        with user_code(f"--model {self.model}: the factory"), torch.device(device):
            result = factory(device) if accepts_device(factory) else factory()
        if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], torch.nn.Module)):
            raise ConfigError(f"--model {self.model}: the factory must return (model, batch); got {type(result).__name__}")
        model, batch = result
        batch = tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)
        model = model.to(device)
        batch = tuple(t.to(device) if isinstance(t, torch.Tensor) else t for t in batch)
        notes = turn_off_kv_cache(model)
        return BuiltModel(model, batch, block_container(model, self.blocks or decoder_blocks(model)), notes=notes)

    def source(self, seed: int) -> ModelSource:
        """The user's factory, imported by the script from the file (or module) the run named: their own code, run
        when they run the script; nothing of it is read here."""
        import json

        where, _, name = self.model.rpartition(":")
        if not where or not name.isidentifier():
            raise ConfigError(f"--model {self.model!r}: expected MODULE_OR_FILE:FACTORY, e.g. mymodels.py:build")
        if where.endswith(".py") or "/" in where:
            definitions = (
                f"MODEL_FILE = {json.dumps(where)}  # your model's file, as the run named it (relative to where you run this)\n\n\n"
                "def load_factory():\n"
                '    """The model factory of MODEL_FILE: FACTORY(device) returns (model, batch)."""\n'
                '    spec = importlib.util.spec_from_file_location("model_under_test", MODEL_FILE)\n'
                "    module = importlib.util.module_from_spec(spec)\n"
                "    sys.modules[spec.name] = module\n"
                "    spec.loader.exec_module(module)\n"
                f"    return module.{name}"
            )
            imports, runs = ("import importlib.util", "import sys"), (where,)
        else:
            definitions = (
                "def load_factory():\n"
                '    """The model factory: FACTORY(device) returns (model, batch)."""\n'
                f"    return importlib.import_module({json.dumps(where)}).{name}"
            )
            imports, runs = ("import importlib",), (f"the module {where}",)
        build = (
            "factory = load_factory()",
            f"torch.manual_seed({seed})",
            "with torch.device(device):",
            "    model, batch = factory(device) if inspect.signature(factory).parameters else factory()",
            "batch = tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)",
            "model = model.to(device)",
            "batch = tuple(t.to(device) if isinstance(t, torch.Tensor) else t for t in batch)",
            'config = getattr(model, "config", None)',
            'if getattr(config, "use_cache", False):  # a transformers model: training does not use its KV cache',
            "    config.use_cache = False",
            '    for part in (getattr(config, "text_config", None), getattr(config, "decoder", None)):',
            '        if getattr(part, "use_cache", False):',
            "            part.use_cache = False",
        )
        return ModelSource(
            about=f"your model, {self.model}",
            build=build,
            imports=(*imports, "import inspect"),
            definitions=definitions,
            runs_files=runs,
        )


def load_factory(spec: str):
    """``pkg.module:fn`` or ``path/to/file.py:fn`` -> the callable, or ConfigError."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise ConfigError(f"--model {spec!r}: expected MODULE_OR_FILE:FACTORY, e.g. mymodels.py:build or pkg.models:build")
    if where.endswith(".py") or "/" in where:
        module = _module_of_file(spec, where)
    else:
        with user_code(f"--model {spec!r}: importing {where}"):
            module = importlib.import_module(where)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise ConfigError(f"--model {spec!r}: {where} has no callable {name}")
    return factory


def _module_of_file(spec: str, where: str):
    path = Path(where).resolve()
    if not path.is_file():
        raise ConfigError(f"--model {spec!r}: no such file {where}")
    mod_name = f"memprobe_user_model_{abs(hash(str(path)))}"
    module = sys.modules.get(mod_name)
    if module is not None:
        return module
    loader_spec = importlib.util.spec_from_file_location(mod_name, path)
    if loader_spec is None or loader_spec.loader is None:  # a file Python imports no module from
        raise ConfigError(f"--model {spec!r}: {where} is not a Python file (a model module is a .py file)")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[mod_name] = module
    try:
        with user_code(f"--model {spec!r}: importing {where}"):
            loader_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[mod_name]
        raise
    return module


@contextmanager
def user_code(what: str):
    """Run the user's code: its failures are bad input (exit 2) with its traceback kept as the cause (``--debug``
    shows it); ``sys.exit()`` in it (a module-level argparse, say) is a failure too, never a silent success.
    Ctrl-C and SIGTERM pass through as interruptions."""
    try:
        yield
    except (ConfigError, Interrupted, KeyboardInterrupt):
        raise
    except SystemExit as e:  # os._exit too, while a probe runs (memprobe.capture.guard)
        raise ConfigError(
            f"{what} called {getattr(e, 'call', 'sys.exit')}({e.code!r}); a model module must not exit or replace the "
            'process (is argparse run at import? guard it with `if __name__ == "__main__":`)'
        ) from e
    except Exception as e:
        raise ConfigError(f"{what} raised {type(e).__name__}: {e}") from e
