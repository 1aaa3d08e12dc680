"""Read a run directory back: report.json and the recorded graphs (no torch needed)."""

from __future__ import annotations

import json
from pathlib import Path

from .. import SCHEMA_VERSION
from ..errors import RunDirError
from .saved import GraphPair


def load_report(run_dir: str | Path) -> dict:
    """report.json of a run directory, or RunDirError naming what is wrong."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunDirError(f"run directory {run_dir} does not exist")
    path = run_dir / "report.json"
    if not path.is_file():
        raise RunDirError(f"{run_dir} is not a memprobe run directory (no report.json)")
    try:
        report = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RunDirError(f"{path} is not valid JSON ({e})") from None
    if not isinstance(report, dict) or "schema_version" not in report:
        raise RunDirError(f"{path} has no schema_version; not a memprobe report")
    if report["schema_version"] != SCHEMA_VERSION:
        raise RunDirError(
            f"{path} has schema_version {report['schema_version']!r}; this memprobe reads version {SCHEMA_VERSION}"
        )
    for key, kind in _REQUIRED.items():
        if not isinstance(report.get(key), kind):
            raise RunDirError(f"{path}: field {key!r} is missing or not a {kind.__name__} (schema_version {SCHEMA_VERSION})")
    return report


# the fields every analysing command relies on (docs/report-schema.md has them all)
_REQUIRED = {"status": str, "config": dict, "device": dict, "versions": dict, "graphs": list,
             "invocations": list, "saved_tensors": list, "findings": list}


def _read_graph(run_dir: Path, rel: str) -> dict:
    try:
        return json.loads((run_dir / rel).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise RunDirError(f"cannot read graph {run_dir / rel}: {e}") from None


def graph_pairs(run_dir: str | Path, report: dict) -> dict[int, GraphPair]:
    """The forward/backward graph pairs a run recorded, keyed by Dynamo graph index."""
    run_dir = Path(run_dir)
    by_dynamo: dict[int, dict[str, dict]] = {}
    for entry in report.get("graphs") or []:
        by_dynamo.setdefault(entry["dynamo_graph"], {})[entry["kind"]] = entry
    pairs = {}
    for index, kinds in sorted(by_dynamo.items()):
        fw = kinds.get("forward")
        if fw is None:
            continue
        bw = kinds.get("backward")
        pairs[index] = GraphPair(
            dynamo_graph=index,
            forward=_read_graph(run_dir, fw["files"]["graph_json"]),
            backward=_read_graph(run_dir, bw["files"]["graph_json"]) if bw else None,
            inputs=fw["inputs"],
        )
    return pairs
