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

from ..rundir import schema as S
from ..vocab import DiffStatus, Reason, SavedKind
from .findings import label
from .saved import MODULE_STATE, group_key, layer_pattern, user_pattern

DIFF_SCHEMA_VERSION = 1
STATUS_ORDER = tuple(DiffStatus)  # ranked in this order
GROWTH = (DiffStatus.ONLY_B, DiffStatus.GROWN)  # what B keeps alive that A does not


# the same matmul in another precision: torchao's float8 linear calls _scaled_mm where bf16 calls mm
_CANONICAL_OP = {"_scaled_mm": "mm", "addmm": "mm"}


def _identity(row: S.SavedRow) -> tuple:
    """Block, op (matmul variants as one), the inputs it is computed from (parameter FQNs,
    block inputs), shape and dtype. The full op chain is not part of it: a float8 matmul
    reaches its inputs through casts and scales a bf16 matmul does not have."""
    op = _CANONICAL_OP.get(row.op, row.op)
    return (row.block, op, tuple(sorted(row.roots)), tuple(row.shape or ()), row.dtype)


def _hint(status: str, row: S.SavedRow) -> str:
    op = row.policy_op
    weight = row.kind == SavedKind.WEIGHT_DERIVED
    if status in GROWTH:
        if row.reason_kind == Reason.POLICY and op:
            text = f"B's SAC policy saves {op}: recompute it in B (--recompute-op {op})"
        elif row.reason_kind == Reason.POLICY:
            text = "B's SAC policy tagged it MUST_SAVE (through a saved op traced into a tensor subclass)"
        else:
            text = "B's partitioner chose to save it: compare what B's policy saves and recomputes with A's"
    else:
        text = "A saves it and B does not" if status == DiffStatus.ONLY_A else "A saves more of it than B"
    if weight:
        text += "; weight-derived: it costs its bytes in every layer, whatever the batch"
    return text


def _delta(a, b):
    return None if a is None or b is None else b - a


def _ab(a, b) -> S.Delta:
    return S.Delta(a=a, b=b, delta=_delta(a, b))


# a run's report, or the parts of one a baseline stores (memprobe-baseline.json): what a diff reads of either
Side = S.Report | S.BaselineReport


def _pairs(a: Side, b: Side) -> list[tuple[DiffStatus | None, S.SavedRow | None, S.SavedRow | None]]:
    """A's and B's saved values matched by identity (module state apart): (how it differs or None, A's, B's)."""
    by_a: dict[tuple, list[S.SavedRow]] = defaultdict(list)
    by_b: dict[tuple, list[S.SavedRow]] = defaultdict(list)
    for r in a.saved_tensors or []:
        if r.kind not in MODULE_STATE:
            by_a[_identity(r)].append(r)
    for r in b.saved_tensors or []:
        if r.kind not in MODULE_STATE:
            by_b[_identity(r)].append(r)
    pairs = []
    for key in list(dict.fromkeys(list(by_a) + list(by_b))):
        la, lb = sorted(by_a.get(key, []), key=lambda r: r.bytes), sorted(by_b.get(key, []), key=lambda r: r.bytes)
        for i in range(max(len(la), len(lb))):
            ra = la[i] if i < len(la) else None
            rb = lb[i] if i < len(lb) else None
            if ra is None:
                status = DiffStatus.ONLY_B
            elif rb is None:
                status = DiffStatus.ONLY_A
            elif rb.bytes > ra.bytes:
                status = DiffStatus.GROWN
            elif rb.bytes < ra.bytes:
                status = DiffStatus.SHRUNK
            else:
                status = None  # unchanged
            pairs.append((status, ra, rb))
    return pairs


def _new_item(status: DiffStatus, ref: S.SavedRow) -> S.DiffItem:
    item = S.DiffItem(
        status=status,
        expr=layer_pattern(ref.expr),
        shape=ref.shape,
        dtype=ref.dtype,
        kind=ref.kind,
        reason_kind=ref.reason_kind,
        reason=ref.reason,
        policy_op=ref.policy_op,
        count=0,
        blocks=[],
        bytes_a=0,
        bytes_b=0,
        delta_bytes=0,
        hint=_hint(status, ref),
        user=user_pattern(ref.user),
        roots=sorted({layer_pattern(x) for x in ref.roots or []}),
    )
    item.label = label(item)  # the one name the saved table, findings and pages give this value
    return item


def _items(pairs) -> tuple[list[S.DiffItem], int]:
    """The pairs that differ grouped (identical but for their layer), ranked; and how many did not differ."""
    groups: dict[tuple, S.DiffItem] = {}
    unchanged = 0
    for status, ra, rb in pairs:
        if status is None:
            unchanged += 1
            continue
        ref = rb if rb is not None else ra
        # never two modules' values in one item
        key = (status, group_key(ref), tuple(ref.shape or ()), ref.dtype, ref.kind, ref.reason_kind, ref.policy_op)
        g = groups.get(key)
        if g is None:
            g = groups[key] = _new_item(status, ref)
        g.count += 1
        if ref.block is not None:
            g.blocks.append(ref.block)
        g.bytes_a += ra.bytes if ra else 0
        g.bytes_b += rb.bytes if rb else 0
        g.delta_bytes = g.bytes_b - g.bytes_a
    # by status, then largest change; on a tie, weight-derived values (the usual anomaly) first
    items = sorted(
        groups.values(),
        key=lambda g: (STATUS_ORDER.index(g.status), -abs(g.delta_bytes), g.kind != SavedKind.WEIGHT_DERIVED, g.expr),
    )
    return items, unchanged


def _totals(a: Side, b: Side, items: list[S.DiffItem]) -> S.DiffTotals:
    ta, tb = a.saved_totals, b.saved_totals

    def pair(field: str) -> S.Delta:
        return _ab(getattr(ta, field) if ta else None, getattr(tb, field) if tb else None)

    return S.DiffTotals(
        saved_bytes=pair("graph_bytes"),
        saved_runtime_bytes=pair("runtime_bytes"),
        parameter_saved_bytes=pair("parameter_graph_bytes"),
        items_delta_bytes=sum(g.delta_bytes for g in items),
    )


def diff_reports(a: Side, b: Side) -> S.DiffResult:
    """The difference B - A."""
    items, unchanged = _items(_pairs(a, b))
    return S.DiffResult(
        diff_schema_version=DIFF_SCHEMA_VERSION,
        a=_side(a),
        b=_side(b),
        versions_differ=version_changes(a.versions, b.versions),
        differences=len(items),
        unchanged_items=unchanged,
        items=items,
        totals=_totals(a, b, items),
        phases=_phase_deltas(a, b),
        graphs=_graph_deltas(a, b),
        alive_at_peak=_category_deltas(a, b),
    )


def _side(report: Side) -> S.DiffSide:
    cfg = report.config.probe()
    proc = getattr(report, "process", None)  # a baseline stores none
    measured_by = None
    if proc:
        measured_by = S.ProcessRecord(**({"pid": proc.pid} if proc.pid is not None else {}), host=proc.host, python=proc.python)
    return S.DiffSide(
        config=S.Config.model_validate(cfg.to_dict()),
        summary=cfg.summary(),
        device=report.device.type if report.device else None,
        versions=report.versions,
        status=report.status,
        # the process that measured it, and the settings given to that side alone (--a-env/--b-env)
        process=measured_by,
        env=(proc.env if proc else None) or {},
    )


VERSIONED = ("python", "torch", "torchao", "torchtitan", "triton", "cuda")


def version_changes(va: S.Versions | None, vb: S.Versions | None) -> dict[str, S.VersionPair]:
    """``{package: {"a": version, "b": version}}`` for each library whose version differs between the sides."""

    def version(v: S.Versions | None, k: str) -> str | None:
        return getattr(v, k) if v else None

    return {k: S.VersionPair(a=version(va, k), b=version(vb, k)) for k in VERSIONED if version(va, k) != version(vb, k)}


def versions_line(result: S.DiffResult) -> str | None:
    """One line for a diff's header when the sides ran with different versions (None when they did not):
    ``versions differ: torch 2.13.0+cpu -> 2.15.0; torchao 0.18.0 -> 0.17.0``."""
    changes = result.versions_differ or {}
    if not changes:
        return None
    return "versions differ: " + "; ".join(f"{k} {v.a or 'none'} -> {v.b or 'none'}" for k, v in changes.items())


def side_environment(side: S.DiffSide) -> str:
    """One line: the versions a side ran with, its process and its own settings (``--a-env``)."""
    v = side.versions
    parts = [
        f"{k} {getattr(v, k)}"
        for k in ("torch", "torchao", "torchtitan", "transformers", "triton", "python")
        if v and getattr(v, k)
    ]
    if v and v.device_name:
        parts.append(str(v.device_name))
    proc = side.process
    if proc and proc.pid is not None:
        parts.append(f"pid {proc.pid} on {proc.host}")
    parts += [f"{k}={val}" for k, val in (side.env or {}).items()]
    return " · ".join(str(p) for p in parts)


def schedule_line(d: S.DiffResult) -> str | None:
    """One line: how the two sides that ran were scheduled (at once, on which GPUs, sharing one or not)."""
    sched = d.schedule
    if not sched:
        return None
    if not sched.at_once:
        return f"sides ran one after the other ({sched.why})"
    gpus = sched.gpus
    if not gpus:
        return "sides ran at once, one process each on the CPU cores"
    if sched.shared_gpu:
        where = ", ".join(dict.fromkeys(gpus))
        return (
            f"sides ran at once sharing GPU {where} (each in its own process: its own allocator statistics; "
            "the GPU's memory shared)"
        )
    return f"sides ran at once, one GPU each ({', '.join(gpus)})"


def _phase_deltas(a: Side, b: Side) -> S.PhaseDeltas | S.PhasesNotCompared | None:
    ma, mb = a.memory, b.memory
    if not (ma and ma.phases) or not (mb and mb.phases):
        return None
    if ma.source != mb.source:
        return S.PhasesNotCompared(comparable=False, why=f"A measured with {ma.source}, B with {mb.source}")
    phases = {}
    for name, pa in ma.phases.items():
        pb = mb.phases.get(name)
        if pb is None:
            continue
        figures = ("peak_bytes", "end_bytes", "peak_reserved_bytes")
        phases[name] = S.ComparedPhase(
            **{
                k: S.Delta(a=getattr(pa, k), b=getattr(pb, k), delta=getattr(pb, k) - getattr(pa, k))
                for k in figures
                if getattr(pa, k) is not None and getattr(pb, k) is not None
            }
        )
    return S.PhaseDeltas(
        comparable=True,
        source=ma.source,
        baseline=ma.baseline,
        phases=phases,
        # reserved bytes depend on the allocator's whole history in each process (what the first step's
        # compilation and autotuning left in partly used segments), not only on the step measured
        history_dependent=["peak_reserved_bytes"],
    )


def _graph_deltas(a: Side, b: Side) -> list[S.GraphDelta]:
    def simulated(report: Side) -> dict:
        return {g.graph_id: g for g in report.graph_memory or [] if "peak_bytes" in g.model_fields_set}

    ga, gb = simulated(a), simulated(b)
    out = []
    for gid in sorted(set(ga) | set(gb)):
        x, y = ga.get(gid), gb.get(gid)
        out.append(
            S.GraphDelta(
                graph_id=gid,
                peak_bytes=_ab(x.peak_bytes if x else None, y.peak_bytes if y else None),
                saved_bytes=_ab(x.saved_bytes if x else None, y.saved_bytes if y else None),
            )
        )
    return out


def _category_deltas(a: Side, b: Side) -> S.AliveDeltas | None:
    aa, ab = a.attribution, b.attribution
    if not aa or not ab or aa.source != ab.source:
        return None
    phases, at_end = {}, {}
    for phase, pa in (aa.phases or {}).items():
        pb = (ab.phases or {}).get(phase)
        if pb is None or pb.by_category_bytes is None:
            continue
        phases[phase] = _by_category(pa.by_category_bytes, pb.by_category_bytes)
        ea, eb = getattr(pa, "at_end", None), getattr(pb, "at_end", None)  # a baseline stores no ends
        if ea is not None and eb is not None and ea.by_category_bytes is not None and eb.by_category_bytes is not None:
            at_end[phase] = _by_category(ea.by_category_bytes, eb.by_category_bytes)
    return S.AliveDeltas(source=aa.source, phases=phases, **({"at_end": at_end} if at_end else {}))


def _by_category(ca: dict, cb: dict) -> dict[str, S.Delta]:
    return {
        cat: S.Delta(a=ca.get(cat, 0), b=cb.get(cat, 0), delta=cb.get(cat, 0) - ca.get(cat, 0))
        for cat in dict.fromkeys(list(ca) + list(cb))
    }
