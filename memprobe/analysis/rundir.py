"""Read a run directory back: report.json and the recorded graphs (no torch needed).

Every file is checked on load (:mod:`.validate`): a run directory may come from anyone.
"""

from __future__ import annotations

from pathlib import Path

from .. import SCHEMA_VERSION
from ..errors import RunDirError
from .saved import GraphPair
from .validate import (
    GRAPH,
    REPORT,
    check,
    check_config,
    check_directory,
    inside,
    kind_of,
    load_json,
    parse_json,
    read_text,
)


def load_report(run_dir: str | Path) -> dict:
    """report.json of a run directory, checked field by field, or RunDirError naming what is wrong."""
    run_dir = check_directory(Path(run_dir))
    path = run_dir / "report.json"
    if kind_of(path) == "missing":
        raise RunDirError(f"{run_dir} is not a memprobe run directory (no report.json)")
    where = str(path)
    report = parse_json(read_text(path, where, kind="report"), where)
    if not isinstance(report, dict) or "schema_version" not in report:
        raise RunDirError(f"{path} has no schema_version; not a memprobe report")
    if report["schema_version"] != SCHEMA_VERSION or isinstance(report["schema_version"], bool):
        raise RunDirError(
            f"{path} has schema_version {_short(report['schema_version'])}; this memprobe reads version {SCHEMA_VERSION}"
        )
    check(report, REPORT, where)
    # the configuration as memprobe runs it: every field present (an older report lacks the newer ones)
    report["config"] = check_config(report["config"], f"{where}: config").to_dict()
    _check_references(report, where)
    return report


def _short(value) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 20 else text[:17] + "..."


def _check_references(report: dict, where: str) -> None:
    """What one part of the report says about another holds: the analysis relies on it."""
    ids = set()
    for i, g in enumerate(report["graphs"]):
        if g["graph_id"] in ids:
            raise RunDirError(f"{where}: graphs[{i}].graph_id: {g['graph_id']!r} appears twice")
        ids.add(g["graph_id"])
        if "graph_json" not in g["files"]:
            raise RunDirError(f"{where}: graphs[{i}].files.graph_json: missing")
    for i, row in enumerate(report["saved_tensors"]):
        if row["graph"] not in ids and ids:
            raise RunDirError(f"{where}: saved_tensors[{i}].graph: {row['graph']!r} is not a recorded graph")


def _read_graph(run_dir: Path, rel: str, where: str) -> dict:
    path = inside(run_dir, rel, where)
    doc = load_json(path, GRAPH, str(path), kind="graph")
    check_node_references(doc["nodes"], str(path))
    return doc


def check_node_references(nodes: list[dict], where: str) -> None:
    """Every input and output a node names is a node of the graph; RunDirError naming the first that is not."""
    names = {n["name"] for n in nodes}
    for i, n in enumerate(nodes):
        missing = [x for x in n["inputs"] + [o for o in n.get("outputs") or [] if o is not None] if x not in names]
        if missing:
            raise RunDirError(f"{where}: nodes[{i}] ({n['name']}) refers to no such node {missing[0]!r}")


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
        where = f"{run_dir / 'report.json'}: graphs ({fw['graph_id']}) files.graph_json"
        forward = _read_graph(run_dir, fw["files"]["graph_json"], where)
        if sum(1 for n in forward["nodes"] if n["op"] == "output") != 1:
            raise RunDirError(f"{run_dir / fw['files']['graph_json']}: a forward graph has exactly one output node")
        pairs[index] = GraphPair(
            dynamo_graph=index,
            forward=forward,
            backward=_read_graph(run_dir, bw["files"]["graph_json"], where.replace(fw["graph_id"], bw["graph_id"]))
            if bw
            else None,
            inputs=fw["inputs"],
        )
    return pairs


def run_file(run_dir: str | Path, rel, field: str) -> Path:
    """A file a report names (output code, snapshot), resolved inside its run directory, or RunDirError."""
    run_dir = Path(run_dir)
    return inside(run_dir, rel, f"{run_dir / 'report.json'}: {field}")
