"""memprobe's files as typed records: one schema (:mod:`.schema`) for the writer, the reader and the validator.

``load_report(run_dir) -> Report``, ``load_graph``, ``load_diff``, ``load_explain``, ``load_bisect``,
``load_sweep``, ``load_baseline`` read a file with bounds and check it against its record type
(one line and exit 2 when it does not fit); ``dump(record) -> dict`` gives the JSON data a writer
writes; ``checked(Model, data, what)`` checks data memprobe is about to write. ``python -m
memprobe.rundir.docs`` prints docs/report-schema.md from the records.
"""

from .load import (
    as_record,
    checked,
    describe_error,
    dump,
    load_baseline,
    load_bisect,
    load_diff,
    load_explain,
    load_file,
    load_graph,
    load_report,
    load_sweep,
    run_file,
)
from .schema import FILES, Record

__all__ = [
    "FILES",
    "Record",
    "as_record",
    "checked",
    "describe_error",
    "dump",
    "load_baseline",
    "load_bisect",
    "load_diff",
    "load_explain",
    "load_file",
    "load_graph",
    "load_report",
    "load_sweep",
    "run_file",
]
