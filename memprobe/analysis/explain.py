"""Rank SAC policy edits (one save-list op moved to recompute each) by bytes freed per added FLOP.

Pure: it reads the base run's and each edited run's reports and graphs.
"""

from __future__ import annotations

from pathlib import Path

from ..vocab import DiffStatus, Reason
from .diff import GROWTH, diff_reports
from .recompute import recompute_cost
from .rundir import graph_pairs

_ITEM_KEYS = ("expr", "user", "count", "kind", "bytes_a", "bytes_b", "delta_bytes")


def _summary(report: dict, run_dir: Path) -> dict:
    return {
        "saved_bytes": (report.get("saved_totals") or {}).get("graph_bytes"),
        "recompute": recompute_cost(graph_pairs(run_dir, report), report.get("invocations") or []),
    }


def candidate_ops(report: dict) -> list[str]:
    """Save-list ops that really saved something in this run."""
    policy = report.get("policy") or {}
    used = {op for op, d in (report.get("policy_decisions") or {}).items() if d.get("MUST_SAVE")}
    rows = report.get("saved_tensors") or []
    named = {r["policy_op"] for r in rows if r.get("policy_op")}
    return [op for op in policy.get("save_ops") or [] if op in used or op in named]


def explain_runs(base: dict, base_dir: Path, variants: dict[str, tuple[dict, Path]]) -> dict:
    """Rank policy edits (one op moved to recompute each) by bytes saved per added FLOP."""
    b = _summary(base, base_dir)
    edits = []
    for op, (report, run_dir) in variants.items():
        v = _summary(report, run_dir)
        saved = (b["saved_bytes"] or 0) - (v["saved_bytes"] or 0)
        flops = v["recompute"]["flops"] - b["recompute"]["flops"]
        moved = v["recompute"]["bytes_moved"] - b["recompute"]["bytes_moved"]
        d = diff_reports(base, report)
        edits.append(
            {
                "op": op,
                "edit": f"remove torch.ops.{op} from the SAC save list",
                "flag": f"--recompute-op {op}",
                "bytes_saved": saved,
                "recompute_flops_added": flops,
                "recompute_bytes_added": moved,
                "bytes_saved_per_flop": saved / max(flops, 1),
                "freed": [
                    {k: it[k] for k in _ITEM_KEYS} for it in d["items"] if it["status"] in (DiffStatus.ONLY_A, DiffStatus.SHRUNK)
                ],
                "added": [{k: it[k] for k in _ITEM_KEYS} for it in d["items"] if it["status"] in GROWTH],
                "run": str(run_dir),
            }
        )
    edits.sort(key=lambda e: (-(e["bytes_saved"] > 0), -e["bytes_saved_per_flop"], -e["bytes_saved"]))
    partitioner = [
        {
            "expr": r["expr"],
            "user": r.get("user"),
            "block": r["block"],
            "bytes": r["bytes"],
            "op": r["op"],
            "fate": (
                f"saved by the min-cut partitioner: recomputing {r['op']} in backward would cost more than keeping it; "
                f"it changes if its inputs are saved instead (--save-op on their producer) or if the value itself "
                f"is made MUST_SAVE/recomputable by the policy (--save-op aten.{r['op']})"
            ),
        }
        for r in base.get("saved_tensors") or []
        if r["reason_kind"] == Reason.PARTITIONER
    ]
    return {"base": {"config": base["config"], **b, "run": str(base_dir)}, "edits": edits, "partitioner_items": partitioner}
