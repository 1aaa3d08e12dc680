"""What did not compile: a run's compile coverage (what Dynamo compiled, where it graph-broke and what it ran eagerly,
recorded by :mod:`memprobe.capture.coverage` from Dynamo's own records), as a finding, a line for people and the
cause a diff names when the sides' coverage differs.

No rule reads Dynamo's message text: a break inside a checkpointed region is the break's recorded higher-order op, the
module is the one whose forward Dynamo was compiling, the bytes are what that module saved outside the compiled graphs
(measured).
"""

from __future__ import annotations

from ..rundir import schema as S
from ..units import fmt_bytes
from ..vocab import FindingKind
from .frames import short_path


def where(b: S.GraphBreak) -> str:
    """The user's frame Dynamo named for a break (``train.py:39``)."""
    return f"{short_path(b.file)}:{b.line}" if b.file else "an unknown line"


def break_text(b: S.GraphBreak) -> str:
    """One break in a few words: ``blocks.1: Dynamo refused `HOP: Non-nullified side effect` at train.py:39, inside a
    checkpoint``."""
    who = b.module or b.function or "a compiled function"
    inside = f", inside {b.higher_order_op}" if b.higher_order_op else ""
    return f"{who}: Dynamo refused `{b.reason}` at {where(b)}{inside}"


def eager_regions(coverage: S.CompileCoverage | None) -> list[S.GraphBreak]:
    """The breaks that made a checkpointed region run eagerly (each region's first)."""
    if coverage is None:
        return []
    return [b for b in coverage.graph_breaks if b.checkpointed]


def broken_modules(coverage: S.CompileCoverage | None) -> set[str]:
    """The modules Dynamo graph-broke on (their graphs hold part of their code, or none)."""
    if coverage is None:
        return set()
    return {b.module for b in coverage.graph_breaks if b.module}


def eager_reason(coverage: S.CompileCoverage | None, module: str) -> str | None:
    """Why a module that saved values outside the compiled graphs ran (part of) its code eagerly: its first graph
    break, in a few words (None: Dynamo broke on nothing of it)."""
    for b in coverage.graph_breaks if coverage is not None else []:
        if b.module == module:
            return f"ran eagerly: Dynamo refused `{b.reason}` at {where(b)}"
    return None


def coverage_line(coverage: S.CompileCoverage | None) -> str | None:
    """What did not compile, in one line (None: everything torch.compile was asked to run compiled)."""
    if coverage is None or not coverage.graph_breaks:
        return None
    breaks = coverage.graph_breaks
    first = breaks[0]
    regions = eager_regions(coverage)
    head = f"{len(regions)} checkpointed region{'s' if len(regions) != 1 else ''} ran eagerly, " if regions else ""
    more = f" (and {len(breaks) - 1} more)" if len(breaks) > 1 else ""
    return f"did not compile: {head}{len(breaks)} graph break{'s' if len(breaks) != 1 else ''}; {break_text(first)}{more}"


def _outside_bytes(saved_outside: S.SavedOutside | None, module: str | None) -> int:
    if saved_outside is None or module is None:
        return 0
    return sum(m.bytes for m in saved_outside.modules if m.module == module)


def coverage_findings(
    coverage: S.CompileCoverage | None, saved_outside: S.SavedOutside | None, *, code_owner: str
) -> list[S.Finding]:
    """A checkpointed region torch.compile was asked to compile that ran eagerly, one finding per module and reason:
    its bytes are what that module saved for backward outside the compiled graphs (measured)."""
    out = []
    for b in eager_regions(coverage):
        bytes_ = _outside_bytes(saved_outside, b.module)
        who = b.module or b.function or "a compiled function"
        fix = f"make the region traceable at {where(b)} in {code_owner} (Dynamo's reason above; TORCH_LOGS=graph_breaks prints its trace)"
        saved = f"; it saved {fmt_bytes(bytes_)} for backward outside the compiled graphs" if bytes_ else ""
        out.append(
            S.Finding(
                kind=FindingKind.CHECKPOINT_RAN_EAGERLY,
                bytes=bytes_,
                label=who,
                what=f"{who}'s checkpointed region",
                summary=f"{who}'s checkpointed region ran eagerly: {break_text(b)}{saved}",
                message=S.clip(
                    f"torch.compile was asked to compile {who}, and its checkpointed region ran eagerly: Dynamo refused "
                    f"`{b.reason}` at {where(b)}" + (f" ({b.explanation})" if b.explanation else "") + f"{saved}."
                ),
                detail="Dynamo cannot split a checkpoint: a graph break inside one runs the whole region eagerly, with "
                "eager checkpointing's memory and none of the compiled graph's fusion or partitioning.",
                fix=fix,
                hint=fix,
            )
        )
    return out
