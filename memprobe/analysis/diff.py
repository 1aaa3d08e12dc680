"""Diff two runs: what B keeps alive for backward that A does not, and why.

Saved values are matched by identity, never by Inductor's buffer names or addresses:
the block that saved it, its op and the parameters/inputs it is computed from, shape
and dtype (see :func:`_identity`). Values
identical across layers are grouped (``abs(layers.*.ffn.w3.weight) x 4``).
Parameters saved as graph inputs are left out of the items (they are alive anyway;
under FSDP with reshard-after-forward they cost nothing) and reported in the totals.
"""

from __future__ import annotations

from collections import defaultdict

from ..vocab import DiffStatus, Reason, SavedKind
from .findings import label
from .saved import MODULE_STATE, group_key, layer_pattern, user_pattern

DIFF_SCHEMA_VERSION = 1
STATUS_ORDER = tuple(DiffStatus)  # ranked in this order
GROWTH = (DiffStatus.ONLY_B, DiffStatus.GROWN)  # what B keeps alive that A does not


# the same matmul in another precision: torchao's float8 linear calls _scaled_mm where bf16 calls mm
_CANONICAL_OP = {"_scaled_mm": "mm", "addmm": "mm"}


def _identity(row: dict) -> tuple:
    """Block, op (matmul variants as one), the inputs it is computed from (parameter FQNs,
    block inputs), shape and dtype. The full op chain is not part of it: a float8 matmul
    reaches its inputs through casts and scales a bf16 matmul does not have."""
    op = _CANONICAL_OP.get(row["op"], row["op"])
    return (row["block"], op, tuple(sorted(row["roots"])), tuple(row["shape"] or ()), row["dtype"])


def _hint(status: str, row: dict) -> str:
    op = row.get("policy_op")
    weight = row["kind"] == SavedKind.WEIGHT_DERIVED
    if status in GROWTH:
        if row["reason_kind"] == Reason.POLICY and op:
            text = f"B's SAC policy saves {op}: recompute it in B (--recompute-op {op})"
        elif row["reason_kind"] == Reason.POLICY:
            text = "B's SAC policy tagged it MUST_SAVE (through a saved op traced into a tensor subclass)"
        else:
            text = "B's partitioner chose to save it: compare what B's policy saves and recomputes with A's"
    else:
        text = "A saves it and B does not" if status == DiffStatus.ONLY_A else "A saves more of it than B"
    if weight:
        text += "; weight-derived: it costs its bytes in every layer, whatever the batch"
    return text


def _totals(report: dict) -> dict:
    t = report.get("saved_totals") or {}
    return {
        "saved_bytes": t.get("graph_bytes"),
        "saved_runtime_bytes": t.get("runtime_bytes"),
        "parameter_saved_bytes": t.get("parameter_graph_bytes"),
    }


def _delta(a, b):
    return None if a is None or b is None else b - a


def diff_reports(a: dict, b: dict) -> dict:
    """The difference B - A, as plain data."""
    rows_a = [r for r in a.get("saved_tensors") or [] if r["kind"] not in MODULE_STATE]
    rows_b = [r for r in b.get("saved_tensors") or [] if r["kind"] not in MODULE_STATE]
    by_a: dict[tuple, list[dict]] = defaultdict(list)
    by_b: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows_a:
        by_a[_identity(r)].append(r)
    for r in rows_b:
        by_b[_identity(r)].append(r)

    pairs: list[tuple[DiffStatus | None, dict | None, dict | None]] = []
    for key in list(dict.fromkeys(list(by_a) + list(by_b))):
        la, lb = sorted(by_a.get(key, []), key=lambda r: r["bytes"]), sorted(by_b.get(key, []), key=lambda r: r["bytes"])
        for i in range(max(len(la), len(lb))):
            ra = la[i] if i < len(la) else None
            rb = lb[i] if i < len(lb) else None
            if ra is None:
                status = DiffStatus.ONLY_B
            elif rb is None:
                status = DiffStatus.ONLY_A
            elif rb["bytes"] > ra["bytes"]:
                status = DiffStatus.GROWN
            elif rb["bytes"] < ra["bytes"]:
                status = DiffStatus.SHRUNK
            else:
                status = None  # unchanged
            pairs.append((status, ra, rb))

    groups: dict[tuple, dict] = {}
    unchanged = 0
    for status, ra, rb in pairs:
        if status is None:
            unchanged += 1
            continue
        ref = rb if rb is not None else ra
        key = (
            status,
            group_key(ref),  # never two modules' values in one item
            tuple(ref["shape"] or ()),
            ref["dtype"],
            ref["kind"],
            ref["reason_kind"],
            ref.get("policy_op"),
        )
        g = groups.get(key)
        if g is None:
            g = groups[key] = {
                "status": status,
                "expr": layer_pattern(ref["expr"]),
                "shape": ref["shape"],
                "dtype": ref["dtype"],
                "kind": ref["kind"],
                "reason_kind": ref["reason_kind"],
                "reason": ref["reason"],
                "policy_op": ref.get("policy_op"),
                "count": 0,
                "blocks": [],
                "bytes_a": 0,
                "bytes_b": 0,
                "delta_bytes": 0,
                "hint": _hint(status, ref),
                "user": user_pattern(ref.get("user")),
                "roots": sorted({layer_pattern(x) for x in ref.get("roots") or []}),
            }
            g["label"] = label(g)  # the one name the saved table, findings and pages give this value
        g["count"] += 1
        if ref["block"] is not None:
            g["blocks"].append(ref["block"])
        g["bytes_a"] += ra["bytes"] if ra else 0
        g["bytes_b"] += rb["bytes"] if rb else 0
        g["delta_bytes"] = g["bytes_b"] - g["bytes_a"]
    # by status, then largest change; on a tie, weight-derived values (the usual anomaly) first
    items = sorted(
        groups.values(),
        key=lambda g: (STATUS_ORDER.index(g["status"]), -abs(g["delta_bytes"]), g["kind"] != SavedKind.WEIGHT_DERIVED, g["expr"]),
    )

    ta, tb = _totals(a), _totals(b)
    totals = {k: {"a": ta[k], "b": tb[k], "delta": _delta(ta[k], tb[k])} for k in ta}
    totals["items_delta_bytes"] = sum(g["delta_bytes"] for g in items)
    return {
        "diff_schema_version": DIFF_SCHEMA_VERSION,
        "a": _side(a),
        "b": _side(b),
        "versions_differ": version_changes(a.get("versions"), b.get("versions")),
        "differences": len(items),
        "unchanged_items": unchanged,
        "items": items,
        "totals": totals,
        "phases": _phase_deltas(a, b),
        "graphs": _graph_deltas(a, b),
        "alive_at_peak": _category_deltas(a, b),
    }


def _side(report: dict) -> dict:
    from ..config import ProbeConfig

    cfg = report["config"]
    proc = report.get("process") or {}
    return {
        "config": cfg,
        "summary": ProbeConfig.from_dict(cfg).summary(),
        "device": report.get("device", {}).get("type"),
        "versions": report.get("versions"),
        "status": report.get("status"),
        # the process that measured it, and the settings given to that side alone (--a-env/--b-env)
        "process": {k: proc.get(k) for k in ("pid", "host", "python")} if proc else None,
        "env": proc.get("env") or {},
    }


VERSIONED = ("python", "torch", "torchao", "torchtitan", "triton", "cuda")


def version_changes(va: dict | None, vb: dict | None) -> dict:
    """``{package: {"a": version, "b": version}}`` for each library whose version differs between the sides."""
    va, vb = va or {}, vb or {}
    return {k: {"a": va.get(k), "b": vb.get(k)} for k in VERSIONED if va.get(k) != vb.get(k)}


def versions_line(result: dict) -> str | None:
    """One line for a diff's header when the sides ran with different versions (None when they did not):
    ``versions differ: torch 2.13.0+cpu -> 2.15.0; torchao 0.18.0 -> 0.17.0``."""
    changes = result.get("versions_differ") or {}
    if not changes:
        return None
    return "versions differ: " + "; ".join(f"{k} {v['a'] or 'none'} -> {v['b'] or 'none'}" for k, v in changes.items())


def side_environment(side: dict) -> str:
    """One line: the versions a side ran with, its process and its own settings (``--a-env``)."""
    v = side.get("versions") or {}
    parts = [f"{k} {v[k]}" for k in ("torch", "torchao", "torchtitan", "transformers", "triton", "python") if v.get(k)]
    if v.get("device_name"):
        parts.append(str(v["device_name"]))
    proc = side.get("process") or {}
    if proc.get("pid") is not None:
        parts.append(f"pid {proc['pid']} on {proc.get('host')}")
    parts += [f"{k}={val}" for k, val in (side.get("env") or {}).items()]
    return " · ".join(str(p) for p in parts)


def schedule_line(d: dict) -> str | None:
    """One line: how the two sides that ran were scheduled (at once, on which GPUs, sharing one or not)."""
    sched = d.get("schedule")
    if not sched:
        return None
    if not sched.get("at_once"):
        return f"sides ran one after the other ({sched.get('why')})"
    gpus = sched.get("gpus")
    if not gpus:
        return "sides ran at once, one process each on the CPU cores"
    if sched.get("shared_gpu"):
        where = ", ".join(dict.fromkeys(gpus))
        return (
            f"sides ran at once sharing GPU {where} (each in its own process: its own allocator statistics; "
            "the GPU's memory shared)"
        )
    return f"sides ran at once, one GPU each ({', '.join(gpus)})"


def _phase_deltas(a: dict, b: dict) -> dict | None:
    ma, mb = a.get("memory") or {}, b.get("memory") or {}
    if not ma.get("phases") or not mb.get("phases"):
        return None
    if ma.get("source") != mb.get("source"):
        return {"comparable": False, "why": f"A measured with {ma.get('source')}, B with {mb.get('source')}"}
    out = {
        "comparable": True,
        "source": ma["source"],
        "baseline": ma.get("baseline"),
        "phases": {},
        # reserved bytes depend on the allocator's whole history in each process (what the first step's
        # compilation and autotuning left in partly used segments), not only on the step measured
        "history_dependent": ["peak_reserved_bytes"],
    }
    for name in ma["phases"]:
        pa, pb = ma["phases"][name], mb["phases"].get(name)
        if pb is None:
            continue
        out["phases"][name] = {
            k: {"a": pa[k], "b": pb[k], "delta": pb[k] - pa[k]}
            for k in ("peak_bytes", "end_bytes", "peak_reserved_bytes")
            if k in pa and k in pb
        }
    return out


def _graph_deltas(a: dict, b: dict) -> list[dict]:
    ga = {g["graph_id"]: g for g in a.get("graph_memory") or [] if "peak_bytes" in g}
    gb = {g["graph_id"]: g for g in b.get("graph_memory") or [] if "peak_bytes" in g}
    out = []
    for gid in sorted(set(ga) | set(gb)):
        x, y = ga.get(gid), gb.get(gid)
        row = {"graph_id": gid}
        for k in ("peak_bytes", "saved_bytes"):
            va, vb = (x or {}).get(k), (y or {}).get(k)
            row[k] = {"a": va, "b": vb, "delta": _delta(va, vb)}
        out.append(row)
    return out


def _category_deltas(a: dict, b: dict) -> dict | None:
    aa, ab = a.get("attribution"), b.get("attribution")
    if not aa or not ab or aa.get("source") != ab.get("source"):
        return None
    out = {"source": aa["source"], "phases": {}}
    for phase in aa.get("phases") or {}:
        ca = aa["phases"][phase]["by_category_bytes"]
        cb = (ab.get("phases") or {}).get(phase, {}).get("by_category_bytes")
        if cb is None:
            continue
        out["phases"][phase] = _by_category(ca, cb)
        ea = (aa["phases"][phase].get("at_end") or {}).get("by_category_bytes")
        eb = (((ab.get("phases") or {}).get(phase) or {}).get("at_end") or {}).get("by_category_bytes")
        if ea is not None and eb is not None:
            out.setdefault("at_end", {})[phase] = _by_category(ea, eb)
    return out


def _by_category(ca: dict, cb: dict) -> dict:
    return {
        cat: {"a": ca.get(cat, 0), "b": cb.get(cat, 0), "delta": cb.get(cat, 0) - ca.get(cat, 0)}
        for cat in dict.fromkeys(list(ca) + list(cb))
    }
