"""``memprobe bisect``'s work: which features a regression needs, and a minimal configuration.

Every configuration tried is a probe in its own process (:mod:`.process`); the trials of a
pass that do not depend on each other run at once when there are slots for them (one per
GPU on CUDA, ``--jobs`` on the CPU).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..config import ProbeConfig
from ..errors import MemprobeError, RunFailed
from ..fields import shown
from ..rundir import schema as S
from ..rundir.load import dump
from ..rundir.write import atomic_write_json
from ..units import fmt_bytes
from ..vocab import AcMode, BisectPass, Phase, Recipe, RunMode
from .options import RunOptions
from .process import ProbeJob, Progress, SideEnv, run_jobs

METRIC = "bytes held at the end of forward (measured)"
DEFAULT_MIN_DELTA = "25%"
_PERCENT = re.compile(r"^\s*([0-9]{1,30}(?:\.[0-9]{1,30})?)\s*%\s*$", re.ASCII)


@dataclass(frozen=True)
class MinDelta:
    """How much more than A B must hold for a configuration to still show the regression.

    Either a size (``"1 MiB"``) or a share of the gap as given (``"25%"``, the default): a feature is
    necessary when, without it, less than that share of the regression is left. A share scales with
    the probe (a gap of 13 MiB at toy dims, of GiBs at Llama's); a size does not.
    """

    text: str
    size_bytes: int | None = None
    share: float | None = None

    @classmethod
    def parse(cls, text: str) -> MinDelta:
        m = _PERCENT.match(text)
        if m:
            share = float(m.group(1)) / 100
            if not 0 < share <= 1:
                raise ValueError(f"a share of the gap is more than 0% and at most 100%, not {shown(text)}")
            return cls(text.strip(), share=share)
        from ..budget import parse_size

        return cls(text.strip(), size_bytes=parse_size(text))

    def threshold(self, given_delta: int) -> int:
        """The bytes B must exceed A by, given the gap of the configurations as given (at least 1 B)."""
        if self.size_bytes is not None:
            return max(self.size_bytes, 1)
        return max(math.ceil(self.share * given_delta), 1)


@dataclass(frozen=True)
class Feature:
    name: str
    remove: Callable[[ProbeConfig], ProbeConfig]  # the configuration without it
    both_sides: bool  # removed from A too (else from B only)
    applies: Callable[[ProbeConfig, ProbeConfig], bool]


FEATURES = (
    Feature("more than one layer", lambda c: replace(c, layers=1), True, lambda a, b: getattr(b.target, "layers", 1) > 1),
    Feature("FSDP", lambda c: replace(c, fsdp=False), True, lambda a, b: b.fsdp),
    Feature("torch.compile", lambda c: replace(c, compile=False), True, lambda a, b: b.compile),
    Feature(
        "aten.abs in the SAC save list",
        lambda c: replace(c, recompute_ops=c.recompute_ops + ("aten.abs.default",)),
        True,
        lambda a, b: b.mode.policy and "aten.abs.default" in b.policy().save_ops,
    ),
    Feature("op-level SAC", lambda c: replace(c, ac=AcMode.NONE), True, lambda a, b: b.mode.policy),
    Feature(
        "rowwise scaling",
        lambda c: replace(c, recipe=Recipe.TENSORWISE),
        False,
        lambda a, b: b.recipe in (Recipe.ROWWISE, Recipe.ROWWISE_WITH_GW_HP),
    ),
)


def held_after_forward(report: S.Report) -> int:
    """The metric: bytes held at the end of forward (measured): what the step keeps for backward."""
    return report.memory.phases[Phase.FORWARD].end_bytes


@dataclass(frozen=True)
class Measured:
    """A configuration's run: its directory, and its figures or why it could not run."""

    run: str
    held_bytes: int | None = None
    mode: RunMode | None = None
    error: str | None = None


class Trials:
    """The configurations tried, each run once (in its own process) and remembered."""

    def __init__(self, out: Path, envs: dict[str, SideEnv], run: RunOptions):
        self.out, self.envs, self.run = out, envs, run
        self.progress = run.progress
        self.threshold: int | None = None  # known once the configurations as given are measured
        self.runs: dict[tuple, Measured] = {}

    def _key(self, cfg: ProbeConfig, side: str) -> tuple:
        # per side: an A/A bisection measures both sides, each in its own process
        return (side, cfg, self.envs.get(side, SideEnv()))

    def measure(self, wanted: list[tuple[ProbeConfig, str, str]]) -> None:
        """Run every (config, side, trial label) not run yet, as many at once as there are slots."""
        jobs, keys = [], []
        for cfg, side, label in wanted:
            key = self._key(cfg, side)
            if key in self.runs or key in keys:
                continue
            n = len(self.runs) + len(jobs)
            # compiled configurations run analysis-only (graphs traced and partitioned, no kernels), measured
            jobs.append(
                ProbeJob(
                    f"run{n} {label} / {side.upper()}", cfg, self.out / f"run{n}", key[2], analysis_only=cfg.compile, measure=True
                )
            )
            keys.append(key)
        quiet = replace(self.run, progress=_only_building(self.progress))
        # a configuration that cannot run (a bug of torch in that combination, say) does not end the bisection:
        # its trial is reported as untested, with the run's own error
        reports = run_jobs(jobs, **quiet.schedule(), keep_going=True)
        for job, key in zip(jobs, keys):
            report = reports[job.label]
            if isinstance(report, MemprobeError):
                self.runs[key] = Measured(str(job.out), error=str(report).removeprefix(f"[{job.label}] "))
            else:
                self.runs[key] = Measured(str(job.out), held_bytes=held_after_forward(report), mode=report.mode)

    def row(self, label: str, ca: ProbeConfig, cb: ProbeConfig, pass_: BisectPass) -> S.Trial:
        ra, rb = self.runs[self._key(ca, "a")], self.runs[self._key(cb, "b")]
        tried = {"removed": label, "pass_": pass_, "a": ca.summary(), "b": cb.summary(), "runs": [ra.run, rb.run]}
        failed = [f"{side}: {r.error}" for side, r in (("A", ra), ("B", rb)) if r.error is not None]
        if failed:
            row = S.Trial(
                **tried,
                held_a=ra.held_bytes,
                held_b=rb.held_bytes,
                delta_bytes=None,
                exceeds=None,
                modes=[ra.mode, rb.mode],
                error="; ".join(failed),
            )
            self.progress(f"{label}: could not be tried ({row.error})")
            return row
        delta = rb.held_bytes - ra.held_bytes
        row = S.Trial(
            **tried,
            held_a=ra.held_bytes,
            held_b=rb.held_bytes,
            delta_bytes=delta,
            exceeds=None if self.threshold is None else delta > 0 and delta >= self.threshold,
            modes=[ra.mode, rb.mode],
        )
        if self.threshold is None:
            self.progress(f"{label}: B - A = {fmt_bytes(delta)}")
            return row
        self.progress(
            f"{label}: B - A = {fmt_bytes(delta)} ({'still exceeds' if row.exceeds else 'below'} {fmt_bytes(self.threshold)})"
        )
        return row


def _only_building(progress: Progress) -> Progress:
    """A child's progress, but only the line that says what it builds (the trials themselves are reported)."""
    return lambda msg: progress(msg) if "] building " in msg else None


def removed(feature: Feature, ca: ProbeConfig, cb: ProbeConfig) -> tuple[ProbeConfig, ProbeConfig]:
    """The two configurations without ``feature`` (B alone loses one that is B's only)."""
    ca = feature.remove(ca) if feature.both_sides else ca
    return ca, feature.remove(cb)


def run_bisect(
    cfg_a: ProbeConfig, cfg_b: ProbeConfig, run: RunOptions, *, envs: dict[str, SideEnv], min_delta: MinDelta
) -> tuple[S.BisectResult, Path]:
    """Find the features B needs to exceed A by ``min_delta`` at the end of forward; writes bisect.json and returns
    its record with its directory."""
    out = run.directory("bisect")
    trials = Trials(out, envs, run)
    trials.measure([(cfg_a, "a", "as given"), (cfg_b, "b", "as given")])
    given_row = trials.row("nothing (as given)", cfg_a, cfg_b, BisectPass.GIVEN)
    given = given_row.delta_bytes
    if given is None:
        raise RunFailed(f"the configurations as given could not be run: {given_row.error}")
    threshold = trials.threshold = min_delta.threshold(given)
    given_row.exceeds = given > 0 and given >= threshold
    found = _Found(rows=[given_row])
    if given_row.exceeds:
        cfg_a, cfg_b = _bisect(trials, cfg_a, cfg_b, found)
    result = S.BisectResult(
        threshold_bytes=threshold,
        min_delta=min_delta.text,
        given_delta_bytes=given,
        metric=METRIC,
        trials=found.rows,
        necessary=found.necessary,
        unnecessary=found.unnecessary,
        not_applicable=found.not_applicable,
        untested=found.untested,
        minimal=S.Minimal(a=cfg_a.summary(), b=cfg_b.summary(), a_flags=cfg_a.to_flags(), b_flags=cfg_b.to_flags()),
        envs={k: S.SideEnvRecord(**v.to_dict()) for k, v in envs.items() if not v.empty},
        conclusion=_conclusion(given, given_row.exceeds, min_delta, threshold, found),
    )
    atomic_write_json(out / "bisect.json", dump(result))
    return result, out


@dataclass
class _Found:
    """What a bisection found so far: the trials, and the features by what they turned out to be."""

    rows: list[S.Trial]
    necessary: list[str] = field(default_factory=list)
    unnecessary: list[str] = field(default_factory=list)
    not_applicable: list[str] = field(default_factory=list)
    untested: list[str] = field(default_factory=list)


def _bisect(trials: Trials, cfg_a: ProbeConfig, cfg_b: ProbeConfig, found: _Found) -> tuple[ProbeConfig, ProbeConfig]:
    """The two passes over the features of a regression that exceeds the bar as given; the minimal configurations."""
    # 1. each feature alone, removed from the configuration as given: is it necessary there? (independent trials)
    singles = []
    for feature in FEATURES:
        if feature.applies(cfg_a, cfg_b):
            singles.append((feature, *removed(feature, cfg_a, cfg_b)))
        else:
            found.not_applicable.append(feature.name)
    trials.measure([(c, side, f.name) for f, ca, cb in singles for c, side in ((ca, "a"), (cb, "b"))])
    for feature, ca, cb in singles:
        row = trials.row(feature.name, ca, cb, BisectPass.SINGLE)
        found.rows.append(row)
        if row.exceeds is None:
            found.untested.append(feature.name)
        else:
            (found.unnecessary if row.exceeds else found.necessary).append(feature.name)
    # 2. the unnecessary ones removed together, one after another: a minimal configuration
    for feature in FEATURES:
        if feature.name not in found.unnecessary:
            continue
        ca, cb = removed(feature, cfg_a, cfg_b)
        trials.measure([(ca, "a", f"+ {feature.name}"), (cb, "b", f"+ {feature.name}")])
        row = trials.row(f"+ {feature.name}", ca, cb, BisectPass.CUMULATIVE)
        found.rows.append(row)
        if row.exceeds:
            cfg_a, cfg_b = ca, cb
    return cfg_a, cfg_b


def _conclusion(given: int, exceeds: bool, min_delta: MinDelta, threshold: int, found: _Found) -> str:
    bar = fmt_bytes(threshold) + (f" ({min_delta.text} of that)" if min_delta.share is not None else "")
    if not exceeds:
        if given <= 0:
            return f"B holds no more than A at the end of forward ({fmt_bytes(given)}): nothing to bisect."
        return f"B holds {fmt_bytes(given)} more than A at the end of forward, less than --min-delta {bar}: nothing to bisect."
    conclusion = (
        f"In the configuration as given, B holds {fmt_bytes(given)} more than A after forward; it stays at least "
        f"{bar} above A only with {', '.join(found.necessary) or 'none of the features tried'} (removing any one of them "
        f"removes it); it does not need {', '.join(found.unnecessary) or 'any feature that could be removed'}."
    )
    if found.untested:
        conclusion += (
            f" Not tried, because the run without it failed: {', '.join(found.untested)} (each trial's error is in bisect.json)."
        )
    return conclusion
