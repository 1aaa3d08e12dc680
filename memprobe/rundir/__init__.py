"""memprobe's files: one typed schema (:mod:`.schema`) for the writer, the reader and the validator.

- :mod:`.read`: bounded, non-blocking reads, JSON with bounds, paths kept inside their directory (no pydantic:
  a probe's process, which may run in a lean environment, reads with it too);
- :mod:`.schema`: a record type per file (pydantic), each field described;
- :mod:`.load`: ``load_report(run_dir) -> Report``, ``load_graph``, ``load_diff``, ``load_explain``,
  ``load_bisect``, ``load_sweep``, ``load_baseline``, ... read a file with bounds and check it against its record
  type (one line and exit 2 when it does not fit); ``dump(record) -> dict`` gives the JSON data a writer writes;
  ``checked(Model, data, what)`` checks data memprobe is about to write;
- :mod:`.records`: the records a probe writes as standard-library dataclasses, generated from the schema by
  :mod:`.mirror` (``python -m memprobe.rundir.mirror``): what capture/ builds, with ``to_data`` and ``from_data``;
- :mod:`.docs`: ``python -m memprobe.rundir.docs`` prints docs/report-schema.md from the records.

The names of :mod:`.load` are importable from here; importing this package alone imports no pydantic.
"""

from __future__ import annotations

import importlib

_LOADED = (
    "as_record",
    "check_node_references",
    "checked",
    "describe_error",
    "dump",
    "load_baseline",
    "load_bisect",
    "load_compile_record",
    "load_diff",
    "load_explain",
    "load_file",
    "load_gpu_peaks",
    "load_graph",
    "load_report",
    "load_sweep",
    "run_file",
)

__all__ = [*_LOADED, "FILES", "Record"]


def __getattr__(name: str):
    if name in _LOADED:
        return getattr(importlib.import_module(".load", __name__), name)
    if name in ("FILES", "Record"):
        return getattr(importlib.import_module(".schema", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
