"""The run directory of a multi-rank probe: each rank's ``rank<R>/`` merged into the top-level report.

Rank 0's graphs and table; the memory figures as the max over the ranks of this node; a
per-rank table with the skew. Pure: it reads the ranks' run directories.
"""

from __future__ import annotations

import copy
from pathlib import Path

from ..errors import RunDirError, RunFailed
from .rundir import load_report

_FIGURES = {
    "parameters_bytes": lambda r: ((r.get("memory") or {}).get("persistent") or {}).get("parameters_bytes"),
    "optimizer_state_bytes": lambda r: ((r.get("memory") or {}).get("persistent") or {}).get("optimizer_state_bytes"),
    "saved_graph_bytes": lambda r: (r.get("saved_totals") or {}).get("graph_bytes"),
    "saved_runtime_bytes": lambda r: (r.get("saved_totals") or {}).get("runtime_bytes"),
}


def _phase_figures(report: dict) -> dict[str, int]:
    phases = ((report.get("memory") or {}).get("phases")) or {}
    return {f"{name}_peak_bytes": p["peak_bytes"] for name, p in phases.items() if p.get("peak_bytes") is not None}


def merge_rank_dirs(out: Path, nproc: int) -> dict:
    """The top-level report of a multi-rank run from ``out/rank*/report.json``."""
    ranks: dict[int, dict] = {}
    for d in sorted(out.glob("rank*")):
        if d.is_dir() and d.name[4:].isdigit():
            try:
                ranks[int(d.name[4:])] = load_report(d)
            except RunDirError:
                continue
    if 0 not in ranks:
        raise RunFailed(f"rank 0 wrote no report in {out / 'rank0'}; run with --verbose to see the ranks' output")
    merged = copy.deepcopy(ranks[0])
    for g in merged.get("graphs") or []:
        g["files"] = {k: f"rank0/{v}" for k, v in g["files"].items()}
    snap = (merged.get("memory") or {}).get("snapshot") or {}
    if snap.get("file"):
        snap["file"] = f"rank0/{snap['file']}"
    rows = []
    for rank, rep in sorted(ranks.items()):
        figures = {name: fn(rep) for name, fn in _FIGURES.items()}
        figures.update(_phase_figures(rep))
        rows.append({"rank": rank, "status": rep["status"], "run_dir": f"rank{rank}", **figures})
    keys = [k for k in rows[0] if k.endswith("_bytes")]
    maximum, skew = {}, {}
    for k in keys:
        values = [r[k] for r in rows if isinstance(r.get(k), int)]
        if values:
            maximum[k] = max(values)
            skew[k] = max(values) - min(values)
    # the headline: every phase figure is the max over the ranks
    for name, phase in ((merged.get("memory") or {}).get("phases") or {}).items():
        for fig in [k for k in phase if k.endswith("_bytes")]:
            values = [((rep.get("memory") or {}).get("phases") or {}).get(name, {}).get(fig) for rep in ranks.values()]
            values = [v for v in values if isinstance(v, int)]
            if values:
                phase[fig] = max(values)
    statuses = [rep["status"] for rep in ranks.values()]
    status = (
        "complete"
        if all(s == "complete" for s in statuses) and len(ranks) == nproc
        else ("oom" if "oom" in statuses else "interrupted" if "interrupted" in statuses else "failed")
    )
    merged["status"] = status
    if status != "complete":
        errors = [f"rank {r}: {rep.get('error')}" for r, rep in sorted(ranks.items()) if rep.get("error")]
        missing = sorted(set(range(nproc)) - set(ranks))
        if missing:
            errors.append(f"no report from rank(s) {', '.join(map(str, missing))}")
        merged["error"] = "; ".join(errors) or None
    world = (ranks[0].get("distributed") or {}).get("world_size")
    merged["distributed"] = {
        "world_size": world,
        "nproc_per_node": nproc,
        "backend": (ranks[0].get("distributed") or {}).get("backend"),
        "launcher": "torchrun (torch.distributed.run)",
        "ranks": rows,
        "max_bytes": maximum,
        "skew_bytes": skew,
        "headline": "memory phase figures are the max over this node's ranks; graphs, output code and the "
        "saved table are rank 0's (per-rank run dirs under rank<R>/)",
    }
    return merged
