"""The stored baseline (``memprobe-baseline.json``) relative limits compare with: what a probe's entry holds, when it
may be compared with a run, and reading it."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from ..errors import MemprobeError
from ..rundir import schema as S
from .figures import figures
from .file import BudgetError


def baseline_mismatch(baseline: S.BaselineProbe, report: S.Report) -> str | None:
    """Why a baseline must not be compared with this run, or None."""
    bd, rd = baseline.device, report.device.type
    if bd != rd:
        return f"baseline recorded on {bd}, this run on {rd}: not compared"
    for k in ("torch", "torchao"):
        b, r = getattr(baseline.versions, k, None), getattr(report.versions, k, None)
        if b != r:
            return f"baseline recorded with {k} {b}, this run has {r}: not compared"
    return None


BASELINE_VERSION = 1


def baseline_entry(report: S.Report) -> S.BaselineProbe:
    """What --update-baseline stores for one probe: its figures, versions and device, and the
    parts of the report a diff needs (so a later breach can be explained against it)."""
    from datetime import datetime

    mem, att, v = report.memory, report.attribution, report.versions
    return S.BaselineProbe(
        created_utc=datetime.now(UTC).isoformat(timespec="seconds"),
        figures=figures(report),
        versions=S.BaselineVersions(torch=v.torch, torchao=v.torchao, memprobe=v.memprobe, device_name=v.device_name),
        device=report.device.type,
        report=S.BaselineReport(
            config=S.Config.model_validate(report.config.probe().to_dict()),
            device=report.device,
            versions=report.versions,
            status=report.status,
            saved_tensors=report.saved_tensors,
            saved_totals=report.saved_totals,
            saved_outside=report.saved_outside,
            compile_coverage=report.compile_coverage,
            graph_memory=[
                S.BaselineGraphMemory(graph_id=g.graph_id, kind=g.kind, peak_bytes=g.peak_bytes, saved_bytes=g.saved_bytes)
                for g in report.graph_memory or []
            ],
            memory=S.BaselineMemory(
                source=mem.source if mem else None, baseline=mem.baseline if mem else None, phases=mem.phases if mem else None
            ),
            attribution=S.BaselineAttribution(
                source=att.source,
                phases={
                    p: S.BaselineAttributionPhase(by_category_bytes=x.by_category_bytes) for p, x in (att.phases or {}).items()
                },
            )
            if att
            else None,
        ),
    )


def load_baseline(path: Path) -> S.Baseline:
    """The stored baseline (checked like every file memprobe reads), or an empty one if there is none."""
    from ..rundir import load
    from ..rundir.read import kind_of

    if kind_of(path) == "missing":
        return S.Baseline(memprobe_baseline=BASELINE_VERSION, probes={})
    try:
        return load.load_baseline(path)
    except MemprobeError as e:
        raise BudgetError(str(e)) from None


def same_measurement(old: S.BaselineProbe | None, new: S.BaselineProbe) -> bool:
    """Whether two baseline entries hold the same figures of the same configuration, measured with the same
    software on the same device (what a relative limit compares against, and when)."""
    if old is None or old.report is None or new.report is None:
        return False
    measured = lambda e: (e.figures, e.versions, e.device, e.report.config)  # noqa: E731
    return measured(old) == measured(new)
