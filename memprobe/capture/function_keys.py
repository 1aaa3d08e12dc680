"""Let AOTAutograd's cache hold graphs that call torchao's float8 ``autograd.Function``, keyed by torchao's source.

torchao marks its float8 matmul (and its casts) ``torch._dynamo.allow_in_graph``: Dynamo does not trace into the
Function, it puts a call of a closure in the graph (``trampoline_autograd_apply``, made per call site by
``torch._dynamo.variables.misc.produce_trampoline_autograd_apply``), and AOTAutograd traces the Function's forward
and backward only after its cache key is computed. AOTAutograd's key names each global of the graph's code by where
it can be imported from; a closure can be imported from nowhere, so the key cannot be computed and every such graph
bypasses the cache (``autograd_cache_bypass``), its trace and partition done again on every run.
``torch._functorch.config.autograd_cache_allow_custom_autograd_functions`` does not change that: it admits the
``autograd_function_apply`` higher-order op (a Function Dynamo traced into, whose forward and backward are subgraphs
the key holds) and ``FunctionCtx``, never a trampoline, and nothing in a key would say which Function a trampoline
runs, nor which torchao.

So before AOTAutograd sees a Dynamo graph, :func:`keyed_functions` replaces each trampoline of a torchao Function by
one function per Function class (the same call, ``cls.apply(*args)``), importable from this module under a name that
holds the Function's module and class and the hash of torchao's installed sources and version
(:func:`torchao_key`): the key then names the Function and the torchao it runs, so another torchao, or another
Function, is another key (a miss), and a changed model changes the graph's code (a miss). A graph with a trampoline
of any other Function (the user's own) is left as it is: it bypasses the cache as before. What the Function's
trace depends on beyond its code is in AOTAutograd's key already (torch's sources, the device and its properties,
the configuration, grad and autocast modes, the inputs' metadata).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import sys
from contextlib import contextmanager

_NAME = re.compile(r"[^0-9A-Za-z_]")
_PREFIX = "fn_"  # the names this module gives (never one of its own functions')


@functools.cache
def torchao_key() -> str | None:
    """A hash of the installed torchao: its version and every Python source file of its package (68 ms for its 441
    files on the 2-core CPU, once per process; a fork server computes it once for its probes). None without torchao."""
    spec = importlib.util.find_spec("torchao")
    if spec is None or not spec.origin:
        return None
    root = os.path.dirname(spec.origin)
    h = hashlib.sha256()
    torchao = sys.modules.get("torchao")
    h.update(str(getattr(torchao, "__version__", "")).encode() + b"\0")
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                h.update(os.path.relpath(path, root).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def _function_of(target) -> type | None:
    """The autograd.Function class a Dynamo trampoline calls (None: ``target`` is no trampoline)."""
    try:
        from torch._dynamo.variables.misc import produce_trampoline_autograd_apply
    except ImportError:
        return None
    if getattr(target, "_origin", None) is not produce_trampoline_autograd_apply:
        return None
    for cell in getattr(target, "__closure__", None) or ():
        value = cell.cell_contents
        if isinstance(value, type):
            return value
    return None


def _is_torchao(cls: type) -> bool:
    return (getattr(cls, "__module__", "") or "").split(".")[0] == "torchao"


def keyed(cls: type, key: str):
    """The one function that calls ``cls.apply`` for every call site, importable from this module under a name that
    holds ``cls``'s module and name and ``key`` (made once per name)."""
    name = _PREFIX + _NAME.sub("_", f"{cls.__module__}.{cls.__qualname__}") + "_" + key[:32]
    module = sys.modules[__name__]
    fn = getattr(module, name, None)
    if fn is None:

        def fn(*args, **kwargs):
            return cls.apply(*args, **kwargs)

        fn.__name__ = fn.__qualname__ = name
        fn.__module__ = __name__
        fn._memprobe_function = cls
        setattr(module, name, fn)
    return fn


def keyed_functions(gm) -> dict[str, str] | None:
    """Replace, in Dynamo graph ``gm`` and its subgraphs, each trampoline of a torchao Function by :func:`keyed`'s
    function; the names AOTAutograd's cache check must admit at the graph's top level (the keyed functions, and the
    torchao classes the graph constructs), each with torchao's key. None, and nothing replaced, when the graph calls
    no torchao Function, or calls a Function that is not torchao's, or torchao cannot be hashed."""
    calls = _calls(gm)
    functions = {id(n): _function_of(n.target) for _, n in calls}
    found = [cls for cls in functions.values() if cls is not None]
    if not found or not all(_is_torchao(cls) for cls in found):
        return None
    key = torchao_key()
    if key is None:
        return None
    changed = {}
    for module, node in calls:
        cls = functions[id(node)]
        if cls is not None:
            node.target = keyed(cls, key)
            changed[id(module)] = module
    for module in changed.values():
        module.recompile()
    return {name: key for name in sorted(_marked_names(calls))}


def _calls(gm) -> list:
    """(its graph module, the node) for every ``call_function`` node of ``gm`` and of its subgraphs (a checkpointed
    region's body)."""
    import torch

    modules = [m for m in gm.modules() if isinstance(m, torch.fx.GraphModule)]
    return [(m, n) for m in modules for n in m.graph.nodes if n.op == "call_function"]


def _marked_names(calls) -> set[str]:
    """The names of what the graph calls from torchao (its keyed functions and the config classes it constructs)."""
    names = set()
    for _, node in calls:
        target = node.target
        module = getattr(target, "__module__", "") or ""
        if module == __name__ or module.split(".")[0] == "torchao":
            names.add(f"{module}.{getattr(target, '__name__', '')}")
    return names


@contextmanager
def admitted(names: dict[str, str] | None):
    """AOTAutograd's cache check admits ``names`` (``torch._inductor.config.unsafe_marked_cacheable_functions``,
    whose values, torchao's key, are part of every cache key made inside) while a graph is compiled."""
    if not names:
        yield
        return
    import torch._inductor.config as inductor_config

    marked = dict(sorted({**inductor_config.unsafe_marked_cacheable_functions, **names}.items()))  # one key in every process
    with inductor_config.patch(unsafe_marked_cacheable_functions=marked):
        yield
