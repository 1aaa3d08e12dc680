"""A budget's limits checked against a probe's run: one typed verdict per limit, PASS, FAIL or SKIP, with the figure,
the limit and the headroom in bytes. A limit that cannot be checked fails (unless the budget marks it optional), and a
probe none of whose limits was checked fails too: a gate that checks nothing must not pass."""

from __future__ import annotations

from ..analysis.verdict import limit_name
from ..rundir import schema as S
from ..vocab import LimitKind, Verdict
from .baseline import baseline_mismatch
from .figures import figures
from .file import Limit, Probe


def evaluate(probe: Probe, report: S.Report, baseline: S.BaselineProbe | None) -> list[S.LimitVerdict]:
    """One verdict per limit of ``probe`` against its run's ``report`` (relative limits against ``baseline``, its
    stored entry)."""
    device = report.device.type
    figs = figures(report)
    return [_verdict(probe.name, lim, figs.get(lim.metric), device, report, baseline) for lim in probe.limits]


def _verdict(
    name: str, lim: Limit, measured: int | None, device, report: S.Report, baseline: S.BaselineProbe | None
) -> S.LimitVerdict:
    v = {
        "probe": name,
        "name": limit_name(lim.metric, lim.kind, lim.device),
        "metric": lim.metric,
        "device": lim.device,
        "kind": lim.kind,
        "limit_text": lim.text,
        "line": lim.line,
        "measured": measured,
    }
    if lim.device is not None and lim.device != device:
        v.update(
            verdict=Verdict.SKIP, limit=int(lim.value), headroom=None, notice=f"limit for {lim.device}; this run was on {device}"
        )
    elif measured is None:  # fails closed: a limit that cannot be checked never passes
        v.update(limit=None, headroom=None, **_missing(lim, f"the run has no {lim.metric} figure"))
    elif lim.kind == LimitKind.RELATIVE:
        flag = baseline_mismatch(baseline, report) if baseline else "no baseline stored (run with --update-baseline)"
        base = ((baseline.figures if baseline else None) or {}).get(lim.metric)
        if flag is None and base is None:
            v.update(limit=None, headroom=None, **_missing(lim, f"the baseline has no {lim.metric} figure"))
        elif flag is not None:
            v.update(verdict=Verdict.SKIP, limit=None, headroom=None, notice=flag)
        else:
            limit = int(base * (1 + lim.value))
            v.update(
                limit=limit, baseline=base, headroom=limit - measured, verdict=Verdict.PASS if measured <= limit else Verdict.FAIL
            )
    else:
        limit = int(lim.value)
        v.update(limit=limit, headroom=limit - measured, verdict=Verdict.PASS if measured <= limit else Verdict.FAIL)
    return S.LimitVerdict.model_validate(v)


def _missing(lim: Limit, why: str) -> dict:
    """The verdict on a limit whose figure is missing: FAIL, or SKIP when the budget marks it optional."""
    name = limit_name(lim.metric, lim.kind, lim.device)
    if lim.optional:
        return {"verdict": Verdict.SKIP, "notice": f"{why} (optional)"}
    return {"verdict": Verdict.FAIL, "notice": f"{why}; a limit that cannot be checked fails (optional = [{name!r}] skips it)"}


def nothing_checked(name: str, verdicts: list[S.LimitVerdict]) -> list[S.LimitVerdict]:
    """A probe's verdicts, failed when none of its limits was checked (every one skipped: another device, a baseline
    not comparable, optional): a gate that checks nothing must not pass."""
    if any(v.verdict != Verdict.SKIP for v in verdicts):
        return verdicts
    why = f"no limit of probe {name!r} was checked (every one skipped), and a gate that checks nothing fails"
    return [v.model_copy(update={"verdict": Verdict.FAIL, "notice": f"{v.notice}; {why}"}) for v in verdicts]
