"""The records as plain JSON data, for the code that still takes dicts: report/ and cli/ (and mcp/).

memprobe's records are typed past their loader (:mod:`memprobe.rundir`); the renderers and verbs above
take JSON data until they are converted. This module is that boundary, in one place: each function
here is the typed one of :mod:`memprobe.analysis` with JSON data in and out (a run's configuration
given whole, every field present, as memprobe runs it). It goes when report/ and cli/ take records.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from ..rundir import schema as S
from ..rundir.load import dump
from . import diff, findings, saved, verdict
from . import estimate as estimates
from . import timeline as timelines
from .recorded import load_recorded as load_record


def report_data(report: S.Report) -> dict:
    """A run's report as JSON data, its configuration whole (an older report lacks the newer fields)."""
    return {**dump(report), "config": dump(S.Config.model_validate(report.config.probe().to_dict()))}


def load_report(run_dir: str | Path) -> dict:
    """report.json of a run directory, checked (:func:`memprobe.rundir.load.load_report`), as JSON data."""
    from ..rundir.load import load_report as load

    return report_data(load(run_dir))


def load_recorded(path: Path, kinds: tuple[str, ...] = ("run", "diff", "explain", "bisect", "sweep")) -> tuple[str, dict]:
    """``(kind, data)`` of the directory at ``path`` (:func:`memprobe.analysis.recorded.load_recorded`)."""
    kind, record = load_record(path, kinds)
    return kind, report_data(record) if kind == "run" else dump(record)


def timeline(report: dict, run_dir: str | Path, limit: int = 3000) -> dict | None:
    return timelines.timeline(S.Report.model_validate(report), run_dir, limit)


def estimate(report: dict, **kw) -> dict:
    return estimates.estimate(S.Report.model_validate(report), **kw)


def verdict_of(kind: str, data: dict) -> dict:
    """A result's verdict: the recorded one, or computed now for a result recorded before verdicts were."""
    v = data.get("verdict")
    if isinstance(v, dict) and isinstance(v.get("text"), str):
        return v
    if kind == "gate":
        return dump(verdict.gate_verdict(data))
    model, compute = {
        "run": (S.Report, verdict.run_verdict),
        "diff": (S.DiffResult, verdict.diff_verdict),
        "explain": (S.ExplainResult, verdict.explain_verdict),
    }[kind]
    return dump(compute(model.model_validate(data)))


def _named(item: dict) -> SimpleNamespace:
    """A saved value's names (its op chain and user terms) from its JSON data."""
    user = item.get("user") or {}
    return SimpleNamespace(expr=item["expr"], user=SimpleNamespace(label=user.get("label")) if user else None)


def label(item: dict) -> str:
    return findings.label(_named(item))


def value_names(item: dict) -> tuple[str, str | None]:
    return saved.value_names(_named(item))


def group_rows(rows: list[dict]) -> list[dict]:
    return [g.as_data() for g in saved.group_rows([S.SavedRow.model_validate(r) for r in rows])]


def group_key(row: dict) -> str:
    return saved.group_key(S.SavedRow.model_validate(row))


def skipped_text(float8: dict, limit: int = 4) -> str:
    return findings.skipped_text(S.Float8Coverage.model_validate(float8), limit)


def versions_line(result: dict) -> str | None:
    changes = {k: S.VersionPair.model_validate(v) for k, v in (result.get("versions_differ") or {}).items()}
    return diff.versions_line(SimpleNamespace(versions_differ=changes))


def side_environment(side: dict) -> str:
    versions = S.Versions.model_validate(side["versions"]) if side.get("versions") else None
    process = S.ProcessRecord.model_validate(side["process"]) if side.get("process") else None
    return diff.side_environment(SimpleNamespace(versions=versions, process=process, env=side.get("env") or {}))


def schedule_line(d: dict) -> str | None:
    schedule = d.get("schedule")
    return diff.schedule_line(SimpleNamespace(schedule=S.Schedule.model_validate(schedule) if schedule else None))
