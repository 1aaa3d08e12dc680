"""Findings: what in a run deserves a person's attention, ranked by bytes.

Each kind has a rule over the recorded artifacts (docs/findings.md states them): the saved table
(derived from the compiled graphs: each value's op, its decomposition pieces, its roots and
their dtypes) and the measured attribution (what is alive when forward ends). No rule matches a
name in a string: ops, kinds, dtypes and categories are the recorded fields themselves.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..config import ProbeConfig
from ..policies import flag_op
from ..rundir import schema as S
from ..units import fmt_bytes
from ..vocab import AttributionSource, Category, FindingKind, Float8Skip, LiveRole, Phase, Reason, SaveCause, SavedKind
from .causes import cause_key
from .coverage import broken_modules, coverage_findings
from .decisions import RECOMPUTE_ALL, decision_findings, finding_items
from .evidence import Evidence
from .output_code import DTYPE_BYTES
from .saved import MODULE_STATE, group_rows, layer_pattern, short_op

# what each check looks at, in the order they run (a run without findings lists them)
CHECKS = (
    (FindingKind.WEIGHT_DERIVED_SAVED, "weight-derived values saved for backward"),
    (FindingKind.SAVE_OP_COSTS_MORE, "save-list ops that keep more than their own output"),
    (FindingKind.UNSHARDED_AFTER_FORWARD, "parameters still unsharded when forward ends (measured)"),
    (FindingKind.WIDE_WEIGHT_COPY, "weight-derived values wider than the parameters' dtype"),
    (FindingKind.FLOAT32_ACTIVATION, "float32 activations saved in a low-precision step"),
    (FindingKind.ACCOUNTING_MISMATCH, "graph-derived against run-time saved bytes"),
    (FindingKind.FLOAT8_COVERAGE, "the share of the blocks' matmul weights (linears, experts) a float8 recipe converted"),
    (
        FindingKind.CHECKPOINT_SAVES_MORE,
        "checkpointed regions (--ac full, or the model's own) that save more than their inputs and RNG states",
    ),
    (FindingKind.UNRECOMPUTABLE_SAVED, "untagged ops inside a checkpointed region saved because they may not be recomputed"),
    (FindingKind.UNEVEN_BLOCKS, "values some blocks save and others, computing them too, do not"),
    (FindingKind.CHECKPOINT_RAN_EAGERLY, "checkpointed regions torch.compile was asked to compile that ran eagerly"),
    (
        FindingKind.BACKWARD_TRANSIENT_PEAK,
        "compiled backwards whose own temporaries and recomputed values are most of backward's peak (measured)",
    ),
)
# a compiled backward's transient working set "dominates" backward's peak above this share of it
TRANSIENT_MIN_SHARE = 0.5

# the kinds whose bytes are saved values of the step (a share of what it saves for backward: weighed before one
# leads the verdict, memprobe.analysis.verdict.weighs)
SAVED_VALUE_KINDS = frozenset(
    (
        FindingKind.WEIGHT_DERIVED_SAVED,
        FindingKind.SAVE_OP_COSTS_MORE,
        FindingKind.WIDE_WEIGHT_COPY,
        FindingKind.FLOAT32_ACTIVATION,
        FindingKind.CHECKPOINT_SAVES_MORE,
        FindingKind.UNRECOMPUTABLE_SAVED,
        FindingKind.UNEVEN_BLOCKS,
    )
)

LOW_PRECISION = ("bfloat16", "float16")
# a float32 activation group smaller than this share of the saved bytes is not worth a finding (float8 scales)
FLOAT32_MIN_SHARE = 0.01


def _why(reason_kind: str, policy_op: str | None, cause: S.Cause | None = None) -> str:
    """Why the values were saved, in a few words (a partitioner's choice by its recorded cause)."""
    if reason_kind == Reason.POLICY and policy_op:
        return f"kept by the SAC policy's {flag_op(policy_op)}"
    if reason_kind == Reason.POLICY:
        return "tagged MUST_SAVE by the SAC policy (through a saved op traced into a tensor subclass)"
    if cause is not None and cause.kind != SaveCause.UNRECORDED:
        return f"kept by the partitioner: {cause.text}"
    return "kept by the min-cut partitioner"


def _fix(
    reason_kind: str, policy_op: str | None, cause: S.Cause | None = None, config: ProbeConfig | None = None
) -> tuple[str, str | None]:
    """(the short fix, its flag or None): one memprobe can run on this configuration (a script's: the user's to make)."""
    if config is not None and not config.target.fixed_by_flags:
        return _script_fix(reason_kind, policy_op), None
    if reason_kind == Reason.POLICY and policy_op:
        flag = f"--recompute-op {flag_op(policy_op)}"
        return f"recompute it ({flag})", flag
    if reason_kind == Reason.POLICY:
        return "move the save-list op that tagged it to recompute (see the graph's recompute tags)", None
    lost = cause is not None and cause.tag is None and cause.checkpointed
    if lost and config is not None and config.mode.whole_regions:
        return f"a per-op policy that tags every op it runs for recompute ({RECOMPUTE_ALL})", RECOMPUTE_ALL
    return "save its inputs or recompute it in the policy (`memprobe explain` ranks the edits)", None


def _script_fix(reason_kind: str, policy_op: str | None) -> str:
    """The fix of a value a user's script saves: in the script's own SAC policy (memprobe applies none to it)."""
    if reason_kind == Reason.POLICY:
        op = flag_op(policy_op) if policy_op else "the op that tagged it"
        return f"recompute it: take {op} out of the save list of your script's SAC policy (its context_fn)"
    return "save its inputs or recompute it: checkpoint the region that computes it in your script"


def _fix_hint(reason_kind: str, op: str | None) -> str:
    if reason_kind == Reason.POLICY and op:
        return f"recompute it instead: --recompute-op {flag_op(op)} (or remove {flag_op(op)} from the SAC save list)"
    if reason_kind == Reason.POLICY:
        return "find the save-list op that tagged it (see the graph's recompute tags) and move it to recompute"
    return "the partitioner chose to save it; a policy that saves its inputs, or recomputes it, changes that"


def _common_prefix(names: list[list[str]]) -> list[str]:
    out: list[str] = []
    for parts in zip(*names):
        if len(set(parts)) != 1:
            break
        out.append(parts[0])
    return out


def names_phrase(names: list[str]) -> str:
    """Dotted names said once: ``layers.*.ffn.{w1,w2,w3}.weight`` for three weights of one module."""
    names = sorted(dict.fromkeys(names))
    if len(names) <= 1:
        return names[0] if names else ""
    split = [n.split(".") for n in names]
    head = _common_prefix(split)
    tails = [p[len(head) :] for p in split]
    tail = _common_prefix([list(reversed(t)) for t in tails])[::-1]
    if tail and all(len(t) > len(tail) for t in tails):
        middles = [".".join(t[: len(t) - len(tail)]) for t in tails]
    else:
        tail, middles = [], [".".join(t) for t in tails]
    if not head or any(not m for m in middles):
        return ", ".join(names)
    return ".".join(head + ["{" + ",".join(middles) + "}"] + tail)


def _finding(**fields) -> S.Finding:
    """A finding, its texts kept within their bounds (they quote saved values' names, of any length)."""
    return S.Finding(**{k: S.clip(v) if isinstance(v, str) else v for k, v in fields.items()})


def _cause_groups(rows: list[S.SavedRow], cause) -> list[tuple[tuple, list[S.SavedRow]]]:
    """Rows split by their cause (``cause(row)`` -> key), largest total first."""
    parts: dict[tuple, list[S.SavedRow]] = defaultdict(list)
    for r in rows:
        parts[cause(r)].append(r)
    return sorted(parts.items(), key=lambda kv: -sum(r.bytes for r in kv[1]))


def _op_of(row: S.SavedRow) -> str:
    return (row.user.op if row.user else None) or row.op


def _what(op: str, part: list[S.SavedRow], items: list[S.FindingItem], *, roots: bool) -> str:
    """What a group of saved values is, in the user's terms: one value by its name; several by their op and the
    parameters (``roots``) or modules they come from."""
    if len(items) == 1:
        return items[0].label
    if roots:
        names = [layer_pattern(x) for r in part for x in r.roots or []]
    else:
        names = [layer_pattern(m) for r in part if (m := (r.user.module if r.user else None))]
    where = names_phrase(names)
    return f"{op}() of {where}" if where else f"{op}() ({len(items)} values)"


def _spread(part: list[S.SavedRow]) -> str:
    blocks = {r.block for r in part if r.block is not None}
    n = len(part)
    return f"{n} value{'s' if n != 1 else ''}" + (f" in {len(blocks)} block{'s' if len(blocks) != 1 else ''}" if blocks else "")


def _listing(items: list[S.FindingItem]) -> str:
    return "; ".join(f"{it.label} x{it.count} {fmt_bytes(it.bytes)}" for it in items)


def _share_of(n: int, total: int) -> str:
    return (
        f"{fmt_bytes(n)} of the {fmt_bytes(total)} saved for backward per step"
        if total
        else f"{fmt_bytes(n)} saved for backward per step"
    )


@dataclass
class _Group:
    """Saved values of one kind and one cause (op, reason, save-list op), as a finding lists them."""

    fields: dict  # the finding's fields so far
    what: str
    items: list[S.FindingItem]
    reason: str  # why the first value was saved, in words


def _grouped(
    kind: FindingKind,
    part: list[S.SavedRow],
    cause: tuple,
    totals: S.SavedTotals,
    *,
    roots: bool,
    config: ProbeConfig | None = None,
) -> _Group:
    """One finding's values for saved values of one kind and one cause, the values listed."""
    reason_kind, policy_op = cause[-2], cause[-1]
    groups = group_rows(part)
    items = finding_items(groups)
    total = sum(r.bytes for r in part)
    what = _what(_op_of(part[0]), part, items, roots=roots)
    why = _why(reason_kind, policy_op, part[0].cause)
    fix, flag = _fix(reason_kind, policy_op, part[0].cause, config)
    saved = totals.graph_bytes or 0
    fields = {
        "kind": kind,
        "bytes": total,
        "expr": groups[0].expr,
        "label": items[0].label,
        "count": len(part),
        **({"bytes_each": part[0].bytes} if len({r.bytes for r in part}) == 1 else {}),
        "policy_op": policy_op,
        "items": items,
        "what": what,
        "summary": f"{_share_of(total, saved)} {'are' if len(part) > 1 else 'is'} {what} ({_spread(part)}), {why}",
        "fix": fix,
        **({"flag": flag} if flag else {}),
    }
    return _Group(fields, what, items, groups[0].reason)


def _weight_derived(rows: list[S.SavedRow], config: ProbeConfig, totals: S.SavedTotals) -> list[S.Finding]:
    out = []
    fsdp_note = (
        " It is computed from FSDP-unsharded parameters only, so it does not shrink with batch or sequence,"
        " and saving it keeps a weight-sized copy alive through backward in every layer, defeating reshard-after-forward."
        if config.fsdp
        else " It is computed from parameters only, so it costs the same at any batch or sequence length, in every layer."
    )
    wd = [r for r in rows if r.kind == SavedKind.WEIGHT_DERIVED]
    for cause, part in _cause_groups(wd, lambda r: (_op_of(r), cause_key(r.cause), r.reason_kind, r.policy_op)):
        g = _grouped(FindingKind.WEIGHT_DERIVED_SAVED, part, cause, totals, roots=True, config=config)
        total = g.fields["bytes"]
        message = (
            f"{g.what} {'are' if len(part) > 1 else 'is'} saved for backward: {fmt_bytes(total)} per step ({_spread(part)}: {_listing(g.items)})."
            f" Why: {g.reason}."
        )
        detail = "A weight-derived saved value." + fsdp_note
        out.append(_finding(**g.fields, message=message, detail=detail, hint=_fix_hint(cause[-2], cause[-1])))
    return out


def _save_op_costs_more(rows: list[S.SavedRow], policy: S.Policy | None, totals: S.SavedTotals) -> list[S.Finding]:
    """A save-list op whose saved pieces (its decomposition's intermediates, whether the policy tagged them or the
    partitioner kept them) outweigh the op's own output."""
    saved = [r for r in rows if r.kind not in MODULE_STATE]
    found = (_op_costs_more(op, saved, totals) for op in (policy.save_ops if policy else None) or [])
    return [f for f in found if f is not None]


def _is_backward_work(row: S.SavedRow) -> bool:
    """Backward work the partitioner computed in forward, to keep instead of what it was computed from."""
    return bool(row.user and row.user.backward_work)


def _is_piece(row: S.SavedRow) -> bool:
    """An intermediate inside one decomposed op, not its output."""
    return bool(row.user and row.user.piece)


def _op_costs_more(op: str, saved: list[S.SavedRow], totals: S.SavedTotals) -> S.Finding | None:
    """The finding for one save-list op, when what saving it keeps outweighs its own output."""
    name = short_op(op)
    mine, hoisted = _kept_for(op, name, saved)
    if not mine:
        return None
    own = [r for r in mine if not _is_piece(r)]
    pieces = [r for r in mine if _is_piece(r)] + hoisted
    cost, own_bytes = sum(r.bytes for r in mine + hoisted), sum(r.bytes for r in own)
    if not pieces or cost <= own_bytes:
        return None
    return _costs_more(op, name, pieces, hoisted, cost, own_bytes, totals)


def _kept_for(op: str, name: str, saved: list[S.SavedRow]) -> tuple[list[S.SavedRow], list[S.SavedRow]]:
    """What saving ``op`` (``name``: its short name) keeps: what the op itself saved (its output, and pieces of its
    decomposition), and the backward work the partitioner computed from it in forward, to keep instead."""
    mine = [r for r in saved if r.op == name and not _is_backward_work(r)]
    hoisted = [r for r in saved if _is_backward_work(r) and op in (r.user.from_ops or [])]
    return mine, hoisted


def _costs_more(
    op: str, name: str, pieces: list[S.SavedRow], hoisted: list[S.SavedRow], cost: int, own_bytes: int, totals: S.SavedTotals
) -> S.Finding:
    kinds: dict[tuple, int] = defaultdict(int)
    for r in pieces:
        what = "backward work computed from it" if r in hoisted else "intermediates inside it"
        kinds[(what, r.dtype, r.reason_kind)] += r.bytes
    parts = "; ".join(
        f"{fmt_bytes(b)} {dt} {what}, kept by the {'policy' if why == Reason.POLICY else 'partitioner'}"
        for (what, dt, why), b in sorted(kinds.items(), key=lambda kv: -kv[1])
    )
    items = finding_items(group_rows(pieces))
    flag = f"--recompute-op {flag_op(op)}"
    extra = cost - own_bytes
    return _finding(
        kind=FindingKind.SAVE_OP_COSTS_MORE,
        bytes=extra,
        policy_op=op,
        expr=items[0].expr,
        label=items[0].label,
        items=items,
        what=f"pieces of {name} kept besides its output",
        summary=(
            f"{_share_of(extra, totals.graph_bytes or 0)} are pieces of {name} beyond its own output "
            f"({fmt_bytes(own_bytes)}), because the SAC policy saves {flag_op(op)}"
        ),
        fix=f"recompute {name} ({flag})",
        flag=flag,
        message=(
            f"Saving {flag_op(op)} keeps {fmt_bytes(cost)} per step for backward, but {name}'s own output is "
            f"{fmt_bytes(own_bytes)}: the other {fmt_bytes(extra)} are {parts}; "
            f"e.g. {items[0].label}."
        ),
        detail=(
            f"{name} is decomposed into several aten ops; saving it saves (or makes the partitioner keep) "
            "pieces of that decomposition, or backward work computed from them in forward, often in "
            "float32, not only its result."
        ),
        hint=(
            f"drop it from the save list: {flag} (recomputing {name} in backward is elementwise "
            f"work); `memprobe explain` measures the edit"
        ),
    )


# the CUDA caching allocator rounds every block up to this many bytes (what a snapshot's blocks measure)
CUDA_BLOCK_ROUNDING = 512
# FSDP2's mixed precision (memprobe's stack): the unsharded parameters are bf16
UNSHARDED_PARAMETER_BYTES = 2


def fsdp_root_unsharded_bytes(model: S.ModelShape | None, attribution: S.Attribution | None) -> int | None:
    """The bytes FSDP2's root module keeps unsharded after forward by design (its own parameters: those outside the
    blocks, each all-gathered into a storage of its own, in bf16), as the attribution measures them; None when the
    run did not record them."""
    numels = model.other_parameter_numels if model else None
    if numels is None or attribution is None:
        return None
    unit = CUDA_BLOCK_ROUNDING if attribution.source == AttributionSource.CUDA_SNAPSHOT else 1
    return sum(-(-n * UNSHARDED_PARAMETER_BYTES // unit) * unit for n in numels)


def _unsharded_after_forward(
    attribution: S.Attribution | None, config: ProbeConfig, model: S.ModelShape | None = None
) -> list[S.Finding]:
    forward = (attribution.phases or {}).get(Phase.FORWARD) if attribution else None
    end = forward.at_end if forward else None
    held = ((end.by_category_bytes if end else None) or {}).get(Category.FSDP_UNSHARDED_PARAMETER, 0)
    if held <= 0:
        return []
    source = (
        "the allocator's history" if attribution.source == AttributionSource.CUDA_SNAPSHOT else "the profiler's memory events"
    )
    root = fsdp_root_unsharded_bytes(model, attribution) if config.reshard_after_forward else None
    flag, by_design = None, None
    if config.reshard_after_forward is False:
        why = "reshard-after-forward is off: FSDP2 keeps every block's all-gathered parameters until backward"
        hint = (
            "reshard them after forward: --reshard-after-forward (fully_shard(reshard_after_forward=True)); "
            "backward all-gathers them again"
        )
        flag = "--reshard-after-forward"
        fix = f"reshard them after forward ({flag})"
    elif root is not None and held <= root:
        count = len(model.other_parameter_numels)
        why = (
            f"FSDP2 keeps its root module's own parameters ({count} outside the blocks: {fmt_bytes(root)} in bf16) "
            "unsharded after forward by design, for backward to use at once"
        )
        hint = "nothing to fix: the blocks' parameters are resharded after forward; only the root module's stay gathered"
        fix, by_design = "none needed (FSDP2's root module, by design)", True
    else:
        why = "a parameter's all-gathered storage outlives forward (the root module's own parameters, or one held by a hook)"
        hint = "find what holds it in the items at the end of forward (memprobe report RUN_DIR: memory over the step)"
        fix = "find what holds it (memprobe report RUN_DIR: memory over the step)"
    return [
        _finding(
            kind=FindingKind.UNSHARDED_AFTER_FORWARD,
            bytes=held,
            what="unsharded parameters alive when forward ends",
            summary=f"{fmt_bytes(held)} of unsharded parameters are still allocated when forward ends (measured): {why}",
            fix=fix,
            **({"flag": flag} if flag else {}),
            **({"by_design": True} if by_design else {}),
            message=f"{fmt_bytes(held)} of unsharded parameters are still allocated when forward ends (measured, from {source}): {why}.",
            detail="What is alive at the end of forward is what the step holds through backward.",
            hint=hint,
        )
    ]


def _wide_weight_copies(rows: list[S.SavedRow], totals: S.SavedTotals) -> list[S.Finding]:
    out = []
    wide = [
        r
        for r in rows
        if r.kind == SavedKind.WEIGHT_DERIVED
        and r.root_dtypes
        and DTYPE_BYTES.get(r.dtype, 0) > max(DTYPE_BYTES.get(d, 0) for d in r.root_dtypes)
    ]
    for cause, part in _cause_groups(wide, lambda r: (_op_of(r), r.dtype, cause_key(r.cause), r.reason_kind, r.policy_op)):
        g = _grouped(FindingKind.WIDE_WEIGHT_COPY, part, cause, totals, roots=True)
        dtype = cause[1]
        src = sorted({d for r in part for d in r.root_dtypes})
        ratio = DTYPE_BYTES[dtype] // max(1, min(DTYPE_BYTES.get(d, 1) for d in src))
        g.fields.pop("flag", None)
        g.fields["summary"] = f"{g.fields['summary']}: {dtype} copies of {', '.join(src)} parameters, {ratio}x their size"
        g.fields["fix"] = "compute in the parameters' dtype, or recompute the upcast"
        message = (
            f"{g.what}: {'each ' if len(part) > 1 else ''}a {dtype} copy of "
            f"{', '.join(src)} parameters, saved for backward: {fmt_bytes(g.fields['bytes'])} per step ({_spread(part)}: "
            f"{_listing(g.items)}), {ratio}x the parameters' own size. Why: {g.reason}."
        )
        detail = (
            "An upcast of a weight (weight.float(), a float32 matmul) saved for backward costs the parameter's "
            "size again, in a wider dtype, in every layer."
        )
        hint = "compute in the parameters' dtype (no .float() on the weight), or recompute the upcast in backward"
        out.append(_finding(**g.fields, message=message, detail=detail, hint=hint))
    return out


def _float32_activations(rows: list[S.SavedRow], totals: S.SavedTotals) -> list[S.Finding]:
    weights = {d for r in rows for d in r.root_dtypes or []}
    if not weights or not weights <= set(LOW_PRECISION):
        return []  # not a low-precision step
    saved = totals.graph_bytes or 0
    out = []
    f32 = [r for r in rows if r.kind == SavedKind.ACTIVATION and r.dtype == "float32"]
    for cause, part in _cause_groups(f32, lambda r: (_op_of(r), cause_key(r.cause), r.reason_kind, r.policy_op)):
        if saved and sum(r.bytes for r in part) < FLOAT32_MIN_SHARE * saved:
            continue
        g = _grouped(FindingKind.FLOAT32_ACTIVATION, part, cause, totals, roots=False)
        step = "/".join(sorted(weights))
        g.fields["summary"] = f"{g.fields['summary']}: float32 activations in a {step} step"
        message = (
            f"{g.what} {'are' if len(part) > 1 else 'is'} saved for backward in float32 in a {step} step: "
            f"{fmt_bytes(g.fields['bytes'])} per step ({_spread(part)}: {_listing(g.items)}), 2x its low-precision size."
            f" Why: {g.reason}."
        )
        detail = (
            "A float32 activation saved for backward costs twice a bf16 one; it usually comes from an op that "
            "computes in float32 inside (silu, softmax, norms) or an explicit .float()."
        )
        out.append(_finding(**g.fields, message=message, detail=detail, hint=_fix_hint(cause[-2], cause[-1])))
    return out


def _accounting(totals: S.SavedTotals) -> list[S.Finding]:
    if totals.agree is not False:
        return []
    diff = abs(totals.runtime_bytes - totals.graph_bytes)
    return [
        _finding(
            kind=FindingKind.ACCOUNTING_MISMATCH,
            bytes=diff,
            what="a difference between graph-derived and run-time saved bytes",
            summary=(
                f"the graphs say {fmt_bytes(totals.graph_bytes)} are saved for backward, autograd held "
                f"{fmt_bytes(totals.runtime_bytes)} at run time"
            ),
            fix="compare runtime_storage_bytes with bytes per row in report.json",
            message=(
                f"graph-derived saved bytes ({totals.graph_bytes}) differ from the run-time saved storages"
                f" ({totals.runtime_bytes}): a saved value aliases another or a view holds a larger storage"
            ),
            hint="compare runtime_storage_bytes with bytes per row in report.json",
        )
    ]


_SKIP_WHY = {
    Float8Skip.DIMS: "in or out features not multiples of 16",
    Float8Skip.NOT_LINEAR: "not an nn.Linear",
    Float8Skip.FILTERED: "left out by the converter's filter",
}
_SKIP_FIX = {
    Float8Skip.DIMS: "dimensions that are multiples of 16 (torch._scaled_mm's)",
    Float8Skip.NOT_LINEAR: "nn.Linear layers in place of the other modules (the converter swaps nn.Linear only)",
    Float8Skip.FILTERED: "a converter filter that keeps them",
    Float8Skip.GROUPED_EXPERTS: "--recipe rowwise on a CUDA GPU of compute capability 9.0 or newer for the experts "
    "(torchao's MoE training conversion of the grouped GEMMs)",
}
# a float8 run that converted less than this share of its blocks' matmul weights is mostly a bf16 run
FLOAT8_MIN_SHARE = 0.5


def skipped_linears(float8: S.Float8Coverage) -> list[tuple[str, str, str, int, int]]:
    """The blocks' linears float8 left in bf16, grouped over layers: (module pattern, type, reason, count, parameters),
    largest first."""
    groups: dict[tuple, list[int]] = {}
    for x in float8.linears or []:
        if x.in_blocks and not x.converted:
            groups.setdefault((layer_pattern(x.fqn + "."), x.type, x.skipped), []).append(x.parameters)
    return sorted(((k[0].rstrip("."), k[1], k[2], len(v), sum(v)) for k, v in groups.items()), key=lambda t: (-t[4], t[0]))


def skipped_text(float8: S.Float8Coverage, limit: int = 4) -> str:
    """The blocks' linears float8 left in bf16, in a line: ``model.layers.*.mlp.down_proj x2 (Linear: in or out
    features not multiples of 16); ...``."""
    skipped = skipped_linears(float8)
    text = "; ".join(f"{m} x{n} ({t}: {_SKIP_WHY.get(why, why)})" for m, t, why, n, _ in skipped[:limit])
    return text + (f"; and {len(skipped) - limit} more" if len(skipped) > limit else "")


def _float8_coverage(float8: S.Float8Coverage | None) -> list[S.Finding]:
    """A float8 recipe that converted none, or a minority, of the blocks' matmul weights (their linears' and their
    experts' parameters, report.float8)."""
    if not float8 or not float8.block_linear_parameters:
        return []
    total, converted = float8.block_linear_parameters, float8.block_converted_parameters
    if converted >= FLOAT8_MIN_SHARE * total:
        return []
    reasons = list(dict.fromkeys(s[2] for s in skipped_linears(float8)))
    left = total - converted
    return [
        _finding(
            kind=FindingKind.FLOAT8_COVERAGE,
            # the bf16 size of the weights it left out (FSDP's bf16 parameters), derived from the model
            bytes=2 * left,
            message=(
                f"float8 recipe {float8.recipe} converted {100 * converted / total:.0f}% of the blocks' matmul weights"
                f" ({converted:,} of {total:,} parameters): {left:,} ({fmt_bytes(2 * left)} in bf16) stay in bf16, in"
                f" {skipped_text(float8)}. The saved values and memory of this run are mostly bf16's."
            ),
            detail="torchao's float8 training converts nn.Linear layers whose dimensions torch._scaled_mm accepts, and "
            "its MoE training conversion the experts' grouped GEMMs; report.json (float8.linears) lists each weight, "
            "converted or skipped, and why.",
            hint="for float8 on these layers use " + " and ".join(_SKIP_FIX[r] for r in reasons if r in _SKIP_FIX),
            summary=(
                f"float8 recipe {float8.recipe} converted {100 * converted / total:.0f}% of the blocks' matmul"
                f" weights; {fmt_bytes(2 * left)} of weights stay in bf16 ({skipped_text(float8, limit=2)})"
            ),
            fix="use " + " and ".join(_SKIP_FIX[r] for r in reasons if r in _SKIP_FIX),
        )
    ]


def find(run: Evidence) -> list[S.Finding]:
    """Ranked findings for a run: its saved table and totals, its configuration and policy, what the attribution
    measured, which linears float8 converted, (given the run's graph ``pairs`` and ``invocations``) how its blocks'
    graphs differ, and what of it torch.compile ran eagerly.

    Values of one kind and one cause (the op that made them, why they were kept) are one finding, its
    values listed (``items``), so a fix is said once."""
    rows, totals, config = run.rows, run.totals, run.config
    findings = (
        _weight_derived(rows, config, totals)
        + _save_op_costs_more(rows, run.policy, totals)
        + _unsharded_after_forward(run.attribution, config, run.model)
        + _wide_weight_copies(rows, totals)
        + _float32_activations(rows, totals)
        + _accounting(totals)
        + _float8_coverage(run.float8)
        + decision_findings(run, broken=broken_modules(run.coverage))
        + coverage_findings(run.coverage, run.saved_outside, code_owner=config.target.code_owner)
        + backward_transient(run.attribution, totals)
    )
    findings.sort(key=lambda f: (bool(f.by_design), -f.bytes))  # what a library does by design below the rest
    return findings


def checks() -> list[S.Check]:
    """What :func:`find` checks, for a run to say so when nothing was found."""
    return [S.Check(kind=kind, title=title) for kind, title in CHECKS]


def _above_start(peak: int, start: int | None) -> int | None:
    """What a peak holds above the step's start (where the attribution knows the start: a CUDA snapshot's)."""
    return peak - start if start is not None and 0 <= start < peak else None


def backward_transient(attribution: S.Attribution | None, totals: S.SavedTotals) -> list[S.Finding]:
    """A compiled backward whose own working set (its output code's temporaries, recomputed values among them) alive
    at backward's measured peak is more than ``TRANSIENT_MIN_SHARE`` of what the step holds there above its start
    (the parameters, the optimizer's state, a library's workspace were there before it): what forward saved is not
    what makes the peak."""
    bp = attribution.backward_peak if attribution else None
    if bp is None:
        return []
    grown = _above_start(bp.peak_bytes, attribution.start_bytes)
    base = grown if grown is not None else bp.peak_bytes
    if base <= 0 or bp.transient_bytes <= TRANSIENT_MIN_SHARE * base:
        return []
    transient = [b for b in bp.buffers if b.role == LiveRole.TEMPORARY]
    graphs = sorted({b.graph for b in transient})
    items = [_transient_item(b) for b in transient]
    share = 100 * bp.transient_bytes / base
    above = f"; {fmt_bytes(grown)} above the step's start" if grown is not None else ""
    return [
        _finding(
            kind=FindingKind.BACKWARD_TRANSIENT_PEAK,
            bytes=bp.transient_bytes,
            message=(
                f"At backward's measured peak ({fmt_bytes(bp.peak_bytes)}{above}), {fmt_bytes(bp.transient_bytes)}"
                f" ({share:.0f}% of {'that' if grown is not None else 'it'})"
                f" are the compiled backward's own buffers ({', '.join(graphs)}): {fmt_bytes(bp.recomputed_bytes)}"
                f" holding values it recomputes, {fmt_bytes(bp.temporary_bytes)} other temporaries; besides them"
                f" {fmt_bytes(bp.gradient_bytes)} of gradients it returned and {fmt_bytes(bp.other_bytes)} else"
                f" ({fmt_bytes(totals.graph_bytes)} saved for backward by the graphs). Largest: "
                + "; ".join(f"{it.label} {fmt_bytes(it.bytes)}" for it in items[:3])
                + "."
            ),
            detail="the excess is transient inside the compiled backward, not what forward saved: a smaller saved "
            "table will not lower this peak",
            hint="recompute less in backward (save the recomputed values named here), or split the checkpointed "
            "region so each backward recomputes less at once",
            summary=f"the compiled backward's own buffers are {share:.0f}% of what backward's peak holds"
            + (" above the step's start" if grown is not None else ""),
            items=items,
        )
    ]


def _transient_item(b: S.TransientBuffer) -> S.FindingItem:
    ops = ", ".join(b.ops) or (b.kernel or "?")
    where = f" at {b.lines[0]}" if b.lines else ""
    what = "recomputed " if b.recomputed else ""
    block = f", {b.block}" if b.block else ""
    return S.FindingItem(label=f"{b.storage} ({b.graph}{block}): {what}{ops}{where}", bytes=b.bytes, expr=ops, module=b.block)
