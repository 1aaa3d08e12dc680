"""Compile once per distinct graph: where the compile caches live, and memprobe's records beside them.

Inductor's FX graph cache (generated kernels) and AOTAutograd's cache (the traced, partitioned
graphs and which kernels they call) live under ``TORCHINDUCTOR_CACHE_DIR``. Unless the user set
that variable, memprobe points it at a directory of its own that persists across invocations:
``$MEMPROBE_CACHE_DIR/inductor``, by default ``$XDG_CACHE_HOME/memprobe/inductor`` (or
``~/.cache/memprobe/inductor``). A user's ``TORCHINDUCTOR_CACHE_DIR`` always wins.

An AOTAutograd cache hit hands memprobe no graph: the compiled function comes back without the
partitioned graphs ever reaching the inner compiler whose hook records them. So memprobe keeps
its own record of each compile beside the cache entry, under
``<TORCHINDUCTOR_CACHE_DIR>/memprobe-graphs/<key>.json``: the partitioned graphs as it
serialized them, their readable form, Inductor's output code and the SAC policy's decisions.
The key is AOTAutograd's own cache key for the graph, combined with what that key leaves out
and the records hold (each node's stack trace and module path, memprobe's serializer).
A record is read like any other file memprobe did not write in this process: checked against
its schema, and ignored (the graph is compiled again, without the AOTAutograd cache) when it
does not fit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .. import settings
from ..rundir import records as R

CACHE_DIR_VAR = settings.CACHE_DIR.name
INDUCTOR_CACHE_VAR = "TORCHINDUCTOR_CACHE_DIR"
RECORDS_DIR = "memprobe-graphs"
RECORD_FORMAT = 1


def memprobe_cache_dir(environ=None) -> Path:
    """memprobe's own cache directory (``MEMPROBE_CACHE_DIR``, else the user's cache directory)."""
    environ = os.environ if environ is None else environ
    if environ.get(CACHE_DIR_VAR):
        return Path(environ[CACHE_DIR_VAR]).expanduser()
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "memprobe"


def compile_cache_env(environ=None) -> dict[str, str]:
    """The variables a probe's process gets so that its compile caches persist: Inductor's cache in
    memprobe's cache directory, unless the user named one (then nothing: theirs wins)."""
    environ = os.environ if environ is None else environ
    if environ.get(INDUCTOR_CACHE_VAR):
        return {}
    return {INDUCTOR_CACHE_VAR: str(memprobe_cache_dir(environ) / "inductor")}


def use_compile_cache() -> None:
    """Set this process's compile cache directory (before torch compiles anything, so that Inductor's
    compile workers, started with this environment, agree)."""
    for name, value in compile_cache_env().items():
        os.environ.setdefault(name, value)


def inductor_cache_dir() -> Path:
    """The directory Inductor uses in this process (it reads the variable at each use)."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return Path(cache_dir())


def graph_fingerprint(gm) -> str:
    """What a graph's record holds beyond AOTAutograd's key: each node's stack trace, module path and
    Python call (a line moved in the user's file changes the record, not the kernels), and the SAC
    policy of each checkpointed region (its ``cache_hash``; a region without one is never matched)."""
    h = hashlib.sha256()
    for module in gm.modules():
        context_fn = getattr(module, "meta", {}).get("_checkpoint_context_fn") if hasattr(module, "graph") else None
        if context_fn is not None:
            h.update(str(getattr(context_fn, "cache_hash", None) or f"unkeyed {id(context_fn)} {os.getpid()}").encode())
    for n in gm.graph.nodes:
        stack = n.meta.get("nn_module_stack") or {}
        modules = [(str(path), getattr(cls, "__qualname__", str(cls))) for path, cls in stack.values()]
        fns = [str(name) for name, _ in n.meta.get("source_fn_stack") or []]
        h.update(json.dumps([n.name, n.op, n.meta.get("stack_trace"), modules, fns], default=str).encode())
        h.update(b"\0")
    return h.hexdigest()


def record_key(aot_key: str, gm, serializer: str) -> str:
    """The name of a graph's record: AOTAutograd's key, the graph's fingerprint, and ``serializer`` (what
    identifies the code that wrote the record)."""
    from .. import __version__

    text = f"{RECORD_FORMAT}\0{__version__}\0{serializer}\0{aot_key}\0{graph_fingerprint(gm)}"
    return hashlib.sha256(text.encode()).hexdigest()


class GraphRecords:
    """memprobe's records of compiled graphs, beside the AOTAutograd cache entries they describe."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    @classmethod
    def here(cls) -> GraphRecords:
        return cls(inductor_cache_dir() / RECORDS_DIR)

    def _path(self, key: str) -> Path:
        if not key.isalnum():  # a key is a hex digest: never a path
            raise ValueError(f"not a record key: {key!r}")
        return self.directory / f"{key}.json"

    def load(self, key: str) -> R.CompileRecord | None:
        """The record of ``key``, or None when there is none or it does not fit its schema
        (:class:`~memprobe.rundir.schema.CompileRecord`). The schema needs pydantic: a probe running in an
        environment without it does not read records (its graphs are compiled again)."""
        try:
            from ..rundir.load import dump, load_compile_record
        except ImportError:
            return None
        record = load_compile_record(self._path(key), key)
        return R.from_data(R.CompileRecord, dump(record)) if record is not None else None

    def store(self, key: str, graphs: list[R.RecordedGraph], decisions: dict) -> None:
        """Write the record of ``key`` (atomically; a failure to write leaves the cache as it was)."""
        from ..rundir.write import atomic_write_json, record_data

        record = R.CompileRecord(format=RECORD_FORMAT, key=key, graphs=graphs, decisions=decisions)
        data = record_data(record)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            atomic_write_json(self._path(key), data)
        except OSError:
            pass  # a read-only or full cache: the next run compiles again


def cache_counters() -> R.CompileCache:
    """This process's compile-cache lookups so far, from torch's own counters (a compile cache record holding its
    lookups alone)."""
    from torch._dynamo.utils import counters

    aot, fx = counters["aot_autograd"], counters["inductor"]
    return R.CompileCache(
        aot_autograd=R.CacheLookups(
            hit=int(aot["autograd_cache_hit"]), miss=int(aot["autograd_cache_miss"]), bypass=int(aot["autograd_cache_bypass"])
        ),
        fx_graph=R.CacheLookups(
            hit=int(fx["fxgraph_cache_hit"]), miss=int(fx["fxgraph_cache_miss"]), bypass=int(fx["fxgraph_cache_bypass"])
        ),
    )


def lookups_since(before: R.CacheLookups, now: R.CacheLookups) -> R.CacheLookups:
    """A cache's lookups between two of its counts."""
    return R.CacheLookups(hit=now.hit - before.hit, miss=now.miss - before.miss, bypass=now.bypass - before.bypass)
