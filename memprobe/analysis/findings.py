"""Findings: what in a run deserves a person's attention, ranked by bytes."""

from __future__ import annotations

from ..units import fmt_bytes
from .saved import group_rows
from ..vocab import FindingKind, Reason, SavedKind


def _fix_hint(group: dict) -> str:
    op = group.get("policy_op")
    if group["reason_kind"] == Reason.POLICY and op:
        return f"recompute it instead: --recompute-op {op} (or remove {op} from the SAC save list)"
    if group["reason_kind"] == Reason.POLICY:
        return "find the save-list op that tagged it (see the graph's recompute tags) and move it to recompute"
    return "the partitioner chose to save it; a policy that saves its inputs, or recomputes it, changes that"


def find(rows: list[dict], totals: dict, config: dict) -> list[dict]:
    """Ranked findings for a run's saved table and totals."""
    findings: list[dict] = []
    fsdp = bool(config.get("fsdp"))
    for g in group_rows(rows):
        if g["kind"] != SavedKind.WEIGHT_DERIVED:
            continue
        where = f"{g['count']} call(s)" if not g["blocks"] else f"{g['count']} block(s)"
        fsdp_note = (
            " It is computed from FSDP-unsharded parameters only, so it does not shrink with batch or sequence,"
            " and saving it keeps a weight-sized copy alive through backward in every layer, defeating reshard-after-forward."
            if fsdp
            else " It is computed from parameters only, so it costs the same at any batch or sequence length, in every layer."
        )
        findings.append(
            {
                "kind": FindingKind.WEIGHT_DERIVED_SAVED,
                "bytes": g["bytes"],
                "expr": g["expr"],
                "count": g["count"],
                "bytes_each": g["bytes_each"],
                "policy_op": g["policy_op"],
                "message": (
                    f"{g['expr']} is saved for backward in {where}: {fmt_bytes(g['bytes'])} per step"
                    f" ({g['count']} x {fmt_bytes(g['bytes_each'])}, {g['dtype']}{list(g['shape'] or [])})."
                    f" Why: {g['reason']}."
                ),
                "detail": "A weight-derived saved value." + fsdp_note,
                "hint": _fix_hint(g),
            }
        )
    if totals.get("agree") is False:
        findings.append(
            {
                "kind": FindingKind.ACCOUNTING_MISMATCH,
                "bytes": abs(totals["runtime_bytes"] - totals["graph_bytes"]),
                "message": (
                    f"graph-derived saved bytes ({totals['graph_bytes']}) differ from the run-time saved storages"
                    f" ({totals['runtime_bytes']}): a saved value aliases another or a view holds a larger storage"
                ),
                "hint": "compare runtime_storage_bytes with bytes per row in report.json",
            }
        )
    findings.sort(key=lambda f: -f["bytes"])
    return findings
