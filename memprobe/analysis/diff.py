"""Diff two runs: what B keeps alive for backward that A does not, and why.

Saved values are matched by identity, never by Inductor's buffer names or addresses:
the block that saved it, its op and the parameters/inputs it is computed from, shape
and dtype (see :func:`_identity`), with the module that made it; what is left, by its place
(:func:`_place`), then by identity alone. Values identical across layers are grouped
(``abs(layers.*.ffn.w3.weight) x 4``); those of a block one side lacks are marked
(:func:`added_blocks`).
Parameters saved as graph inputs are left out of the items (they are alive anyway;
under FSDP with reshard-after-forward they cost nothing) and reported in the totals.
"""

from __future__ import annotations

import re
from collections import defaultdict

from ..policies import flag_op
from ..rundir import schema as S
from ..vocab import GROWTH, ChangeKind, DiffStatus, Fate, FindingKind, Reason, SaveCause, SavedKind
from .causes import cause_key, tag_words
from .saved import MODULE_STATE, group_key, label, layer_index, layer_pattern, user_pattern

DIFF_SCHEMA_VERSION = 1
STATUS_ORDER = tuple(DiffStatus)  # ranked in this order
# the same matmul in another precision: torchao's float8 linear calls _scaled_mm where bf16 calls mm
_CANONICAL_OP = {"_scaled_mm": "mm", "addmm": "mm"}


_SYMBOL = re.compile(r"[A-Za-z_]\w*")


def canonical_shape(shape) -> tuple:
    """A shape with its symbolic sizes' names replaced by their order of appearance (``[s9, 64]`` and ``[s57, 64]``
    are both ``[s#0, 64]``): torch releases number the symbols of one size differently."""
    names: dict[str, str] = {}

    def rename(m: re.Match) -> str:
        return names.setdefault(m.group(0), f"s#{len(names)}")

    return tuple(_SYMBOL.sub(rename, d) if isinstance(d, str) else d for d in shape or ())


def _key(block: str | None, op: str, roots, shape, dtype: str | None) -> tuple:
    return (block, _CANONICAL_OP.get(op, op), tuple(sorted(roots)), canonical_shape(shape), dtype)


def _identity(row: S.SavedRow) -> tuple:
    """Block, op (matmul variants as one), the inputs it is computed from (parameter FQNs,
    block inputs), shape (symbolic sizes by their place, not their name) and dtype. The full op
    chain is not part of it: a float8 matmul reaches its inputs through casts and scales a bf16
    matmul does not have."""
    return _key(row.block, row.op, row.roots, row.shape, row.dtype)


def _recomputed_index(report: Side) -> dict[tuple, S.RecomputedValue] | None:
    """What a side's backward graphs recompute, by the identity its saved values are matched with (None: the side
    recorded none of it, a run analysed before memprobe read it, or a baseline)."""
    recorded = getattr(report, "recomputed", None)
    if recorded is None:
        return None
    index: dict[tuple, S.RecomputedValue] = {}
    for v in recorded:
        for block in v.blocks or [None]:
            roots = [f"{block}.{r}" if block else r for r in v.roots]
            index.setdefault(_key(block, v.op, roots, v.shape, v.dtype), v)
    return index


def _saved_decision(row: S.SavedRow) -> S.Decision:
    cause = row.cause
    if cause is None:
        return S.Decision(fate=Fate.SAVED, tag=row.recompute_tag, text=f"saved: {row.reason}")
    return S.Decision(
        fate=Fate.SAVED,
        cause=cause,
        tag=cause.tag,
        checkpointed=cause.checkpointed,
        function=cause.function,
        text=f"saved: {cause.text}",
    )


def _decision(row: S.SavedRow | None, other: S.SavedRow, recomputed: dict[tuple, S.RecomputedValue] | None) -> S.Decision | None:
    """What one side did with a value (``row``: its saved row, None when it saved none; ``other``: the other
    side's row, by which the value is looked up among this side's recomputed values). None when the side saved it not
    and recorded nothing of what its backward recomputes."""
    if row is not None:
        return _saved_decision(row)
    if recomputed is None:
        return None
    v = recomputed.get(_identity(other))
    if v is None:
        return S.Decision(fate=Fate.ABSENT, text="neither saved nor recomputed in backward")
    if v.copied:
        how = f"{tag_words(v.tag, v.checkpointed, v.function)}; the partitioner copied it from the forward"
    else:
        library = v.user.library if v.user else None
        how = "backward's own code computes it again" + (f", at {library}" if library else "")
    return S.Decision(
        fate=Fate.RECOMPUTED,
        tag=v.tag,
        checkpointed=v.checkpointed,
        function=v.function,
        text=f"recomputed in backward ({how})",
    )


def _hint(status: str, row: S.SavedRow) -> str:
    op = flag_op(row.policy_op) if row.policy_op else None
    weight = row.kind == SavedKind.WEIGHT_DERIVED
    region = row.cause.region if row.cause is not None and row.cause.kind == SaveCause.REGION_TAG else None
    if status in GROWTH:
        if region is not None:
            text = (
                f"B's torch_remat region '{region}' is recompute=False and keeps it: recompute it in B "
                f"(--recompute-region {region})"
            )
        elif row.reason_kind == Reason.POLICY and op:
            text = f"B's SAC policy saves {op}: recompute it in B (--recompute-op {op})"
        elif row.reason_kind == Reason.POLICY:
            text = "B's SAC policy tagged it MUST_SAVE (through a saved op traced into a tensor subclass)"
        elif row.cause is not None and row.cause.kind != SaveCause.UNRECORDED:
            text = f"B saves it: {row.cause.text}"
        else:
            text = "B's partitioner chose to save it: compare what B's policy saves and recomputes with A's"
    else:
        text = "A saves it and B does not" if status == DiffStatus.ONLY_A else "A saves more of it than B"
        if region is not None:
            text += f": A's torch_remat region '{region}' is recompute=False"
    if weight:
        text += "; weight-derived: it costs its bytes in every layer, whatever the batch"
    return text


def _delta(a, b):
    return None if a is None or b is None else b - a


def _ab(a, b) -> S.Delta:
    return S.Delta(a=a, b=b, delta=_delta(a, b))


# a run's report, or the parts of one a baseline stores (memprobe-baseline.json): what a diff reads of either
Side = S.Report | S.BaselineReport


def _place(row: S.SavedRow) -> tuple | None:
    """Where a value was made and what it is, without what it was computed from: the module that made it (its layer
    index kept; the model's root: none), its op, its name with layers as ``*``, shape and dtype (None: a value not
    named in the user's terms). One graph of a whole model computes the final norm from every block before it: a side
    one block deeper reaches the same value from one more block's parameters, so its identity differs; its place
    does not."""
    if row.user is None:
        return None
    return (row.user.module, _CANONICAL_OP.get(row.op, row.op), label(row), canonical_shape(row.shape), row.dtype)


def _pair_by(key, rows_a: list[S.SavedRow], rows_b: list[S.SavedRow]) -> tuple[list[tuple], list, list]:
    """A's and B's rows of one ``key`` paired in order of size: (the pairs, A's rows left, B's rows left); a row whose
    key is None is left."""
    by_a: dict[tuple, list[S.SavedRow]] = defaultdict(list)
    by_b: dict[tuple, list[S.SavedRow]] = defaultdict(list)
    left_a: list[S.SavedRow] = []
    left_b: list[S.SavedRow] = []
    for rows, by, left in ((rows_a, by_a, left_a), (rows_b, by_b, left_b)):
        for r in rows:
            k = key(r)
            (left if k is None else by[k]).append(r)
    pairs = []
    for k in dict.fromkeys([*by_a, *by_b]):
        la, lb = sorted(by_a.get(k, []), key=lambda r: r.bytes), sorted(by_b.get(k, []), key=lambda r: r.bytes)
        n = min(len(la), len(lb))
        pairs += zip(la[:n], lb[:n])
        left_a += la[n:]
        left_b += lb[n:]
    return pairs, left_a, left_b


def _status(ra: S.SavedRow | None, rb: S.SavedRow | None) -> DiffStatus | None:
    if ra is None:
        return DiffStatus.ONLY_B
    if rb is None:
        return DiffStatus.ONLY_A
    if rb.bytes != ra.bytes:
        return DiffStatus.GROWN if rb.bytes > ra.bytes else DiffStatus.SHRUNK
    return None  # unchanged


def _pairs(a: Side, b: Side) -> list[tuple[DiffStatus | None, S.SavedRow | None, S.SavedRow | None]]:
    """A's and B's saved values (module state apart) matched by identity and the module that made them, then what is
    left of each side by its place (:func:`_place`), then by identity alone: (how it differs or None, A's, B's). The
    module first: in one graph of a whole model, the norm of a side's last block and the final norm of a side one
    block shallower have one identity (the same op, computed from the same parameters)."""
    rows_a = [r for r in a.saved_tensors or [] if r.kind not in MODULE_STATE]
    rows_b = [r for r in b.saved_tensors or [] if r.kind not in MODULE_STATE]
    pairs = []
    for key in (lambda r: (_identity(r), r.user.module if r.user else None), _place, _identity):
        matched, rows_a, rows_b = _pair_by(key, rows_a, rows_b)
        pairs += matched
    pairs += [(r, None) for r in rows_a] + [(None, r) for r in rows_b]
    return [(_status(ra, rb), ra, rb) for ra, rb in pairs]


def added_blocks(a: Side, b: Side) -> dict[str, str]:
    """``{block: side}`` for each block only one side has (a model one block deeper: ``transformer.h.2``, "b"): a
    block a side has is one that made a value it saves or whose parameters a value it saves is computed from (a block
    that saves nothing on one side is still there, its parameters reached from the values after it)."""

    def blocks(side: Side) -> set[str]:
        rows = side.saved_tensors or []
        names = [r.user.module for r in rows if r.user and r.user.module] + [x for r in rows for x in r.roots or []]
        return {block for name in names if (block := _block_named(name)) is not None}

    in_a, in_b = blocks(a), blocks(b)
    return {**{blk: "a" for blk in sorted(in_a - in_b)}, **{blk: "b" for blk in sorted(in_b - in_a)}}


def _block_named(name: str) -> str | None:
    """The block a dotted name is in, through its layer index (``transformer.h.2.fc1.weight`` -> ``transformer.h.2``);
    None outside any block."""
    if (index := layer_index(name)) is None:
        return None
    parts = name.split(".")
    return ".".join(parts[: parts.index(index) + 1])


def _block_of(row: S.SavedRow) -> str | None:
    """The block of the module that made a value; of a value no module made (backward work the partitioner moved
    into forward), the block it was computed from when it names one; of a graph's input, the block its root is in
    (``layers.1.input``); None outside any block."""
    if row.user is None:
        return None
    names = [row.user.module] if row.user.module else (row.roots or []) if row.op == "input" else row.user.of or []
    for name in names:
        if (block := _block_named(name)) is not None:
            return block
    return None


def _new_item(status: DiffStatus, ref: S.SavedRow, a_decision: S.Decision | None, b_decision: S.Decision | None) -> S.DiffItem:
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
        a_decision=a_decision,
        b_decision=b_decision,
    )
    item.label = label(item)  # the one name the saved table, findings and pages give this value
    return item


def _items(pairs, a: Side, b: Side) -> tuple[list[S.DiffItem], int]:
    """The pairs that differ grouped (identical but for their layer), ranked, each with what either side did with
    it; and how many did not differ."""
    recomputed_a, recomputed_b = _recomputed_index(a), _recomputed_index(b)
    added = added_blocks(a, b)
    groups: dict[tuple, S.DiffItem] = {}
    unchanged = 0
    for status, ra, rb in pairs:
        if status is None:
            unchanged += 1
            continue
        ref = rb if rb is not None else ra
        new = _added_block(ref, ra, rb, added)
        # never two modules' values in one item
        key = (
            new is not None,
            status,
            group_key(ref),
            tuple(ref.shape or ()),
            ref.dtype,
            ref.kind,
            ref.reason_kind,
            ref.policy_op,
            cause_key(ref.cause),
        )
        g = groups.get(key)
        if g is None:
            decisions = _decision(ra, ref, recomputed_a), _decision(rb, ref, recomputed_b)
            g = groups[key] = _new_item(status, ref, *decisions)
        _join(g, ref, ra, rb, new)
    # by status, then largest change; on a tie, weight-derived values (the usual anomaly) first
    items = sorted(
        groups.values(),
        key=lambda g: (STATUS_ORDER.index(g.status), -abs(g.delta_bytes), g.kind != SavedKind.WEIGHT_DERIVED, g.expr),
    )
    return items, unchanged


def _added_block(ref: S.SavedRow, ra: S.SavedRow | None, rb: S.SavedRow | None, added: dict[str, str]) -> str | None:
    """The block only the side that alone saves ``ref`` has, that made it (:func:`added_blocks`); else None."""
    block = _block_of(ref)
    alone = "b" if ra is None else "a" if rb is None else None
    return block if alone is not None and added.get(block) == alone else None


def _join(g: S.DiffItem, ref: S.SavedRow, ra: S.SavedRow | None, rb: S.SavedRow | None, new: str | None) -> None:
    """A pair of values joins its group: counted, its block and bytes added."""
    g.count += 1
    if ref.block is not None:
        g.blocks.append(ref.block)
    if new is not None and new not in (g.added_blocks or []):
        g.added_blocks = [*(g.added_blocks or []), new]
    g.bytes_a += ra.bytes if ra else 0
    g.bytes_b += rb.bytes if rb else 0
    g.delta_bytes = g.bytes_b - g.bytes_a


def _totals(a: Side, b: Side, items: list[S.DiffItem]) -> S.DiffTotals:
    ta, tb = a.saved_totals, b.saved_totals

    def pair(field: str) -> S.Delta:
        return _ab(getattr(ta, field) if ta else None, getattr(tb, field) if tb else None)

    return S.DiffTotals(
        saved_bytes=pair("graph_bytes"),
        saved_runtime_bytes=pair("runtime_bytes"),
        parameter_saved_bytes=pair("parameter_graph_bytes"),
        items_delta_bytes=sum(g.delta_bytes for g in items),
        step_saved_bytes=_step_saved(a, b),
    )


def step_saved_bytes(side: Side) -> int | None:
    """What a side saves for backward per step in all: derived from its compiled graphs, plus what autograd saved
    outside them (measured at run time); None where it recorded neither."""
    graph = side.saved_totals.graph_bytes if side.saved_totals else None
    outside = getattr(side, "saved_outside", None)
    if outside is None:
        return graph
    return (graph or 0) + outside.total_bytes


def _step_saved(a: Side, b: Side) -> S.Delta | None:
    if getattr(a, "saved_outside", None) is None or getattr(b, "saved_outside", None) is None:
        return None
    return _ab(step_saved_bytes(a), step_saved_bytes(b))


def diff_reports(a: Side, b: Side) -> S.DiffResult:
    """The difference B - A."""
    items, unchanged = _items(_pairs(a, b), a, b)
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
        change=side_change(a, b),
        float8=_float8_compared(a, b),
        findings=_side_findings(a, b),
        saved_outside=_saved_outside_delta(a, b),
        compile_coverage=_coverage_delta(a, b),
    )


def _coverage_delta(a: Side, b: Side) -> S.CoverageDelta | None:
    """The graph breaks one side hit and the other did not, by module, reason and place (None: the same)."""
    ca, cb = getattr(a, "compile_coverage", None), getattr(b, "compile_coverage", None)

    def keyed(c: S.CompileCoverage | None) -> dict[tuple, S.GraphBreak]:
        return {(g.module, g.reason, g.file, g.line): g for g in (c.graph_breaks if c else [])}

    ka, kb = keyed(ca), keyed(cb)
    only_b = [g for k, g in kb.items() if k not in ka]
    only_a = [g for k, g in ka.items() if k not in kb]
    return S.CoverageDelta(only_b=only_b, only_a=only_a) if only_a or only_b else None


def _saved_outside_delta(a: Side, b: Side) -> S.SavedOutsideDelta | None:
    """Each side's saved-outside figures, in all and by module, where both recorded them."""
    oa, ob = getattr(a, "saved_outside", None), getattr(b, "saved_outside", None)
    if oa is None or ob is None:
        return None
    ma, mb = {m.module: m.bytes for m in oa.modules}, {m.module: m.bytes for m in ob.modules}
    modules = {name: _ab(ma.get(name, 0), mb.get(name, 0)) for name in {*ma, *mb}}
    changed = sorted((kv for kv in modules.items() if kv[1].delta), key=lambda kv: (-abs(kv[1].delta), kv[0]))
    return S.SavedOutsideDelta(total=_ab(oa.total_bytes, ob.total_bytes), modules=dict(changed))


def _float8_share(side: Side) -> S.Float8Share | None:
    f8 = getattr(side, "float8", None)
    if f8 is None or f8.block_linear_parameters is None:
        return None
    converted = f8.block_converted_parameters or 0
    return S.Float8Share(recipe=f8.recipe, block_parameters=f8.block_linear_parameters, converted_parameters=converted)


def _float8_compared(a: Side, b: Side) -> S.Float8Compared | None:
    shares = _float8_share(a), _float8_share(b)
    return None if shares == (None, None) else S.Float8Compared(a=shares[0], b=shares[1])


# what a side's own run found that a diff repeats: the comparison means little without it
_SIDE_FINDINGS = (FindingKind.FLOAT8_COVERAGE,)


def _side_findings(a: Side, b: Side) -> list[S.Finding]:
    out = []
    for name, side in (("A", a), ("B", b)):
        for f in getattr(side, "findings", None) or []:
            if f.kind in _SIDE_FINDINGS:
                said = {k: S.clip(f"side {name}: {v}") for k in ("message", "summary") if (v := getattr(f, k))}
                out.append(f.model_copy(update=said))
    return out


def _flag_value(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "none"
    return "default" if value is None else str(value)


def config_flags(ca: dict, cb: dict) -> list[str]:
    """The configuration's differences as flags: ``--ac-policy torchtitan -> torchtitan-2025-01``; a script's command
    by the words that differ (``the command: + --no-checkpoint``)."""
    out = []
    for k in dict.fromkeys(list(ca) + list(cb)):
        if ca.get(k) == cb.get(k):
            continue
        if k == "command":
            out.append("the command: " + command_change(list(ca.get(k) or ()), list(cb.get(k) or ())))
        else:
            out.append(f"--{k.replace('_', '-')} {_flag_value(ca.get(k))} -> {_flag_value(cb.get(k))}")
    return out


def command_change(a: list[str], b: list[str]) -> str:
    """The words two command lines differ by: ``+ --no-checkpoint``, ``- --compile``, ``--lr 3e-4 -> 1e-3``."""
    import difflib
    import shlex

    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "insert":
            parts.append(f"+ {shlex.join(b[j1:j2])}")
        elif op == "delete":
            parts.append(f"- {shlex.join(a[i1:i2])}")
        elif op == "replace":
            parts.append(f"{shlex.join(a[max(0, i1 - 1) : i2])} -> {shlex.join(b[max(0, j1 - 1) : j2])}")
    return "; ".join(parts)


def side_change(a: Side, b: Side) -> S.Change:
    """What differs between the sides besides their saved values: their software, their configuration, both, the
    settings given to one side alone, or nothing (an A/A diff)."""
    versions = version_changes(a.versions, b.versions)
    flags = config_flags(a.config.probe().to_dict(), b.config.probe().to_dict())
    pa, pb = getattr(a, "process", None), getattr(b, "process", None)
    env_a, env_b = (pa.env if pa else None) or {}, (pb.env if pb else None) or {}
    said = "; ".join(f"{k} {v.a or 'none'} -> {v.b or 'none'}" for k, v in versions.items())
    if versions and flags:
        return S.Change(
            kind=ChangeKind.BOTH, flags=flags, text=f"the sides differ in versions ({said}) and in {'; '.join(flags)}"
        )
    if versions:
        return S.Change(kind=ChangeKind.VERSIONS, text=f"the sides differ only in versions ({said})")
    if flags:
        return S.Change(kind=ChangeKind.CONFIGURATION, flags=flags, text=f"the sides differ only in {'; '.join(flags)}")
    if env_a != env_b:
        settings = sorted(set(env_a.items()) ^ set(env_b.items()))
        said = ", ".join(f"{k}={v}" for k, v in settings)
        return S.Change(kind=ChangeKind.ENVIRONMENT, text=f"the sides differ only in their settings ({said})")
    return S.Change(kind=ChangeKind.NONE, text="the sides differ in nothing recorded: the same configuration and versions")


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
