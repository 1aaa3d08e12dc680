"""The user's names of modules and values: one place where what torch.compile, activation checkpointing and FSDP add
to a name is taken off, so every family and a script read as the user's model does (``transformer.h.0.mlp.c_fc``,
never ``OptimizedModule.transformer.h.0...`` or ``fn._modules.0._modules.fc1._parameters.bias``).

Pure string functions (no torch, nothing of the schema: a probe's process uses them): capture/ names graph inputs,
nodes' modules and a script's blocks with them, and analysis/ names a whole-model block's values with them;
a saved value's names for people (value_names) and a gate limit's name (limit_name) are read here by analysis/,
budget/ and report/ alike."""

from __future__ import annotations

import re

from .vocab import InputKind

# modules that wrap another without adding a level of its own to the user's names: torch.compile's OptimizedModule
# (``_orig_mod``), torch.distributed's checkpoint wrapper, FSDP1's FullyShardedDataParallel
WRAPPERS = frozenset(("_orig_mod", "_checkpoint_wrapped_module", "_fsdp_wrapped_module"))
# the attributes through which Dynamo's sources reach a submodule, a parameter or a buffer
_CONTAINERS = frozenset(("__dict__", "_modules", "_parameters", "_buffers"))
# the local name of the module in the frame Dynamo traces: ``self`` in its forward; ``fn`` where torch.compile
# wraps a torch.nn module whose forward Dynamo would not trace itself (eval_frame's wrap_inline: nn.Sequential, FSDP)
_MODULE_ROOTS = ("self", "fn")

# L['self'].__dict__['_modules']['_checkpoint_wrapped_module']._modules['ffn']._modules['w1']._parameters['weight']
_SOURCE_ITEM = re.compile(r"\.(\w+)|\[['\"]([^'\"]+)['\"]\]|\[(\d+)\]")


def user_name(name: str) -> str:
    """A dotted module or parameter name as the user's model names it: ``layers.0._orig_mod._checkpoint_wrapped_module
    .ffn.w1.weight`` -> ``layers.0.ffn.w1.weight``."""
    return ".".join(p for p in name.split(".") if p not in WRAPPERS and p not in _CONTAINERS)


def source_items(source: str) -> list[str]:
    """The names and indices of a Dynamo source, in order: ``L['self']._modules['ffn']`` -> ``['self', '_modules',
    'ffn']``."""
    return [next(g for g in m.groups() if g is not None) for m in _SOURCE_ITEM.finditer(source)]


def is_global(source: str) -> bool:
    """Whether a Dynamo source is a global of the traced code (``G['__import_transformers_dot_...'].fn``): a module's
    function, no module of the model."""
    return source.startswith("G[")


def source_to_fqn(source: str) -> tuple[str, str]:
    """(kind, name) of a compiled graph's input, by its Dynamo source: kind ``parameter``, ``buffer`` or ``input``;
    name the user's path below the compiled module (``ffn.w1.weight``) or the argument (``args[0]``)."""
    if not source.startswith("L["):
        return InputKind.INPUT, source
    items = source_items(source)
    if items and (items[0] == "self" or (items[0] in _MODULE_ROOTS and len(items) > 1 and items[1] in _CONTAINERS)):
        return _module_input(items)
    if items and items[0] == "args":
        return InputKind.INPUT, f"args[{items[1]}]" + "".join(f"[{i}]" for i in items[2:]) if len(items) > 1 else "args"
    return InputKind.INPUT, ".".join(items)


def _module_input(items: list[str]) -> tuple[str, str]:
    """A parameter, buffer or other attribute of the compiled module, by its path below it (wrappers dropped)."""
    kind = InputKind.PARAMETER if "_parameters" in items else InputKind.BUFFER if "_buffers" in items else InputKind.INPUT
    return kind, ".".join(p for p in items[1:] if p not in _CONTAINERS and p not in WRAPPERS)


def module_path(source: str) -> str | None:
    """A module as Dynamo names it (``L['self'].ffn.w1``, ``L['fn']._modules['0']``) -> its user's path below the
    compiled module (``ffn.w1``, ``0``); None for a global (a function, no module of the model)."""
    if is_global(source):
        return None
    if not source.startswith("L["):
        return user_name(source)
    items = source_items(source)[1:]
    return ".".join(p for p in items if p not in _CONTAINERS and p not in WRAPPERS)


def block_prefix(block: str | None, whole_model: str | None) -> str | None:
    """What a block's values are named under: the block's own path, or nothing for the block that is the whole model
    (``model = torch.compile(Net())``: its values are the model's, ``blocks.0.fc1.weight``)."""
    if block is None or (whole_model is not None and block == whole_model):
        return None
    return user_name(block) or None


def class_name(module) -> str:
    """A module's class as the user wrote it: torch.compile's OptimizedModule is named by the model it wraps (the name
    of a model's root, which has no path of its own)."""
    return type(getattr(module, "_orig_mod", module)).__name__


def value_names(item) -> tuple[str, str | None]:
    """How a saved value (a row, a group, a diff item: anything with its ``expr`` and its ``user`` terms) is named
    for people: the user's terms, and the op chain when it says something else (None when there is no label, or
    the label is the chain itself)."""
    label = item.user.label if item.user else None
    if not label or label == item.expr:
        return item.expr, None
    return label, item.expr


def limit_name(metric: str, kind: str | None, device: str | None) -> str:
    """How a gate limit is named everywhere (the gate's verdict, console, JSON, Markdown, JUnit, HTML, and the budget
    file's ``optional``): ``saved_bytes``, ``cpu.forward_peak_bytes``, ``baseline.saved_bytes``."""
    return f"{device}.{metric}" if device else (f"baseline.{metric}" if kind == "relative" else metric)
