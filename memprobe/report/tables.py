"""The tabular outputs as pandas DataFrames, written as CSV or Parquet (``--csv`` / ``--parquet``).

One row per saved value of a run (its op chain, the user's op, module and source line, kind,
reason, bytes and the bytes held at run time), one per difference of a diff, one per limit of
a gate, one per group alive at a snapshot's peak (or differing between two snapshots' peaks). Bytes stay integers of bytes; the grouping across layers (``group``) is the same as the
console's. A CSV cell a spreadsheet would run as a formula is written inert, and one holding
any line or record break quoted (:func:`~memprobe.text.csv_field`).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..rundir import schema as S
from ..rundir.load import dump
from ..text import csv_field

SAVED_COLUMNS = [
    "group",
    "call",
    "graph",
    "block",
    "user_op",
    "module",
    "source",
    "expr",
    "op",
    "kind",
    "reason_kind",
    "policy_op",
    "reason",
    "dtype",
    "shape",
    "bytes",
    "runtime_storage_bytes",
]
DIFF_COLUMNS = [
    "status",
    "user_op",
    "module",
    "expr",
    "kind",
    "reason_kind",
    "policy_op",
    "dtype",
    "shape",
    "count",
    "bytes_a",
    "bytes_b",
    "delta_bytes",
    "hint",
]
GATE_COLUMNS = ["probe", "name", "metric", "device", "kind", "measured", "limit", "headroom", "verdict", "notice"]
SNAPSHOT_COLUMNS = ["category", "item", "bytes", "blocks", "evidence"]
SNAPSHOT_DIFF_COLUMNS = ["status", "category", "frame", "bytes_a", "bytes_b", "delta_bytes", "blocks_a", "blocks_b"]


def _frame(records: list[dict], columns: list[str]):
    import pandas as pd

    frame = pd.DataFrame.from_records(records, columns=columns)
    for col in ("shape",):
        if col in frame:
            frame[col] = frame[col].map(lambda s: "x".join(str(d) for d in s) if isinstance(s, list) else s)
    return frame


def saved_frame(report: S.Report):
    """A run's saved-for-backward table, a row per value per call; ``group`` numbers the console's groups."""
    rows = report.saved_tensors or []
    groups = report.view.saved_row_groups if report.view else [None] * len(rows)
    records = []
    for r, group in zip(rows, groups, strict=True):
        data, user = dump(r), r.user
        records.append(
            {
                **{k: data.get(k) for k in SAVED_COLUMNS},
                "group": group,
                "user_op": user.op if user else None,
                "module": user.module if user else None,
                "source": user.source if user else None,
            }
        )
    frame = _frame(records, SAVED_COLUMNS)
    return frame.sort_values(["bytes", "group", "call"], ascending=[False, True, True], kind="stable")


def diff_frame(result: S.DiffResult):
    records = []
    for it in result.items or []:
        data = dump(it)
        records.append(
            {
                **{k: data.get(k) for k in DIFF_COLUMNS},
                "user_op": it.user.op if it.user else None,
                "module": it.user.module if it.user else None,
            }
        )
    return _frame(records, DIFF_COLUMNS)


def gate_frame(result: S.GateResult):
    """The gate's verdicts, one row per limit."""
    records = []
    for v in result.verdicts:
        data = dump(v)
        records.append({k: data.get(k) for k in GATE_COLUMNS})
    return _frame(records, GATE_COLUMNS)


def snapshot_frame(summary: S.SnapshotSummary):
    """A snapshot's groups alive at its peak, one row each: a category and the innermost frame of the user's code."""
    return _frame([dump(it) for it in summary.top_items], SNAPSHOT_COLUMNS)


def snapshot_diff_frame(result: S.SnapshotDiff):
    """The groups that differ at two snapshots' peaks, one row each."""
    return _frame([dump(it) for it in result.items], SNAPSHOT_DIFF_COLUMNS)


def check_engine(parquet: Path | None) -> None:
    """Before anything runs: ``--parquet`` needs an engine pandas can write Parquet with."""
    if parquet is None:
        return
    import importlib.util

    if not any(importlib.util.find_spec(m) for m in ("pyarrow", "fastparquet")):
        raise ConfigError("--parquet needs pyarrow (or fastparquet) for pandas: pip install pyarrow; or use --csv")


def write_table(frame, path: Path, fmt: str) -> Path:
    """``frame`` as ``fmt`` (csv or parquet) at ``path``."""
    if fmt == "csv":  # a recorded string a spreadsheet would run as a formula is written inert
        write_csv(frame, path)
    elif fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        raise ValueError(fmt)
    return path


def write_csv(frame, path: Path) -> None:
    """``frame`` as CSV, each field as :func:`~memprobe.text.csv_field` writes it: RFC 4180's CRLF between records,
    and every cell holding a break quoted, whatever a reader takes for one (the csv module quotes a CR or an LF only,
    and a reader that splits lines as Python's ``str.splitlines`` does started a record at a VT, an FF, NEL or U+2028
    inside an unquoted cell)."""
    rows = [list(frame.columns), *frame.astype(object).where(frame.notna(), None).values.tolist()]
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.writelines(",".join(csv_field(v) for v in row) + "\r\n" for row in rows)


_FRAMES = {
    "run": saved_frame,
    "diff": diff_frame,
    "gate": gate_frame,
    "snapshot": snapshot_frame,
    "snapshot-diff": snapshot_diff_frame,
}


def export(kind: str, data: S.Record, csv: Path | None, parquet: Path | None) -> list[Path]:
    """Write the table of a run (``kind`` "run": its report), diff, gate, snapshot or diff of snapshots (its result) to
    the paths asked for; returns them."""
    if csv is None and parquet is None:
        return []
    frame = _FRAMES[kind](data)
    return [write_table(frame, path, fmt) for path, fmt in ((csv, "csv"), (parquet, "parquet")) if path is not None]
