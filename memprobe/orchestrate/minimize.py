"""``memprobe repro --minimize``'s work: a diff's two configurations made as small as the difference lets them be
before the repro is written.

The difference is the diff's first item (the saved value whose bytes changed most, by its op chain: ``abs()`` of the
FFN weights under rowwise float8 and torchtitan's early save list). First each feature ``memprobe bisect`` knows
(:data:`memprobe.orchestrate.bisect.FEATURES`) is removed, one after another, where the difference stays without it;
then each size the model family may shrink (:meth:`memprobe.targets.Target.shrinkable`: depth, batch, sequence, then
widths) is set to the smallest value that still shows it, trying the smallest first (widths in multiples of what the
float8 recipe's kernels need; a value the configuration's own checks refuse is not tried). Every trial is both sides
probed in processes of their own, compiled configurations analysis-only (their graphs traced and partitioned: the saved
values are the graphs'), and diffed. The minimal pair then runs in full, into a diff directory of its own: the script
embeds those runs' figures.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from ..analysis.diff import diff_reports
from ..analysis.recorded import diff_sides
from ..compat.torchao import RECIPES
from ..config import ProbeConfig
from ..errors import ConfigError, MemprobeError, RunFailed
from ..rundir import schema as S
from .bisect import FEATURES, removed
from .diff import run_diff
from .options import RunOptions
from .process import ProbeJob, SideEnv, run_jobs


@dataclass(frozen=True)
class Difference:
    """The saved value a minimal repro must still show differing: its op chain, and which way it changed."""

    expr: str
    label: str
    grew: bool

    def shown_by(self, diff: S.DiffResult) -> bool:
        return any(i.expr == self.expr and i.delta_bytes and (i.delta_bytes > 0) == self.grew for i in diff.items)


def difference_of(diff: S.DiffResult, where: str) -> Difference:
    items = [i for i in diff.items if i.delta_bytes]
    if not items:
        raise ConfigError(f"{where}: the sides save the same values for backward: there is no difference to keep")
    top = items[0]
    return Difference(top.expr, top.label or top.expr, top.delta_bytes > 0)


class Trials:
    """Each configuration probed once, in its own process, its report kept; a pair of them diffed."""

    def __init__(self, out: Path, run: RunOptions):
        self.out, self.run, self.progress = out, run, run.progress
        self.runs: dict[tuple[str, ProbeConfig], tuple[str, S.Report | MemprobeError]] = {}

    def _building(self, msg: str) -> None:
        """A probe's progress, but only the line that says what it builds (the trials themselves are reported)."""
        if "] building " in msg:
            self.progress(msg)

    def diff(self, ca: ProbeConfig, cb: ProbeConfig, label: str) -> tuple[S.DiffResult | str, list[str]]:
        """B - A of the two configurations (or why one could not run), and their run directories."""
        jobs, keys = [], []
        for side, cfg in (("a", ca), ("b", cb)):
            if (side, cfg) in self.runs:
                continue
            n = len(self.runs) + len(jobs)
            jobs.append(
                ProbeJob(
                    f"trial{n} {label} / {side.upper()}",
                    cfg,
                    self.out / f"trial{n}",
                    SideEnv(),
                    analysis_only=cfg.compile,
                    measure=not cfg.compile,
                )
            )
            keys.append((side, cfg))
        results = run_jobs(jobs, **replace(self.run, progress=self._building).schedule(), keep_going=True)
        for job, key in zip(jobs, keys):
            self.runs[key] = (str(job.out), results[job.label])
        (run_a, ra), (run_b, rb) = self.runs[("a", ca)], self.runs[("b", cb)]
        failed = [f"{s}: {r}" for s, r in (("A", ra), ("B", rb)) if isinstance(r, MemprobeError)]
        return ("; ".join(failed) if failed else diff_reports(ra, rb)), [run_a, run_b]


class _Search:
    """The configurations so far, and every step tried."""

    def __init__(self, trials: Trials, difference: Difference, ca: ProbeConfig, cb: ProbeConfig):
        self.trials, self.difference, self.ca, self.cb = trials, difference, ca, cb
        self.steps: list[S.ReproStep] = []

    def attempt(self, label: str, ca: ProbeConfig, cb: ProbeConfig) -> bool:
        """Probe the pair; keep it when the difference is still there."""
        result, runs = self.trials.diff(ca, cb, label)
        error = result if isinstance(result, str) else None
        kept = None if error else self.difference.shown_by(result)
        self.steps.append(S.ReproStep(tried=label, kept=kept, a=ca.summary(), b=cb.summary(), runs=runs, error=error))
        self.trials.progress(
            f"{label}: " + ("could not run" if error else "the difference stays" if kept else "the difference goes")
        )
        if kept:
            self.ca, self.cb = ca, cb
        return bool(kept)

    def features(self) -> None:
        for feature in FEATURES:
            if feature.applies(self.ca, self.cb):
                self.attempt(f"without {feature.name}", *removed(feature, self.ca, self.cb))

    def sizes(self) -> None:
        both = set(self.ca.target.shrinkable())
        align = max(RECIPES[c.recipe].align if c.recipe in RECIPES else 1 for c in (self.ca, self.cb))
        for name, multiple in self.cb.target.shrinkable():
            if (name, multiple) not in both:
                continue
            now = getattr(self.cb, name)
            for value in _ladder(now, multiple or align):
                pair = _resized(self.ca, self.cb, name, value)
                if pair is not None and self.attempt(f"--{name.replace('_', '-')} {now} -> {value}", *pair):
                    break


def _ladder(now: int, step: int) -> list[int]:
    """The sizes below ``now`` to try, smallest first: ``step`` and its doublings."""
    out, value = [], step
    while value < now:
        out.append(value)
        value *= 2
    return out


def _resized(ca: ProbeConfig, cb: ProbeConfig, name: str, value: int) -> tuple[ProbeConfig, ProbeConfig] | None:
    try:
        return replace(ca, **{name: value}), replace(cb, **{name: value})
    except ConfigError:  # a size the configuration refuses (float8's multiples of 16 tokens, heads dividing the width)
        return None


def minimize_diff(
    path: Path, diff: S.DiffResult, reports: dict[str, S.Report], run: RunOptions
) -> tuple[S.DiffResult, dict[str, S.Report], S.ReproMinimized]:
    """The smallest configurations of the diff at ``path`` that still show its first item differing, run in full: their
    diff, their reports, and what was made smaller (the trials and the minimal diff under ``run.out``)."""
    progress = run.progress
    difference = difference_of(diff, f"{path}/diff.json")
    given = {k: r.config.probe() for k, r in reports.items()}
    out = run.directory("repro")
    progress(f"keeping the difference in {difference.label}")
    search = _Search(Trials(out, run), difference, given["a"], given["b"])
    search.features()
    search.sizes()
    progress(f"minimal: A {search.ca.summary()}; B {search.cb.summary()}; running both in full")
    in_full = RunOptions(progress=progress, out=out / "minimal", force=False, verbose=run.verbose)
    minimal, where = run_diff({"a": search.ca, "b": search.cb}, {}, in_full, label="repro")
    final = diff_sides(where, minimal)
    if not difference.shown_by(minimal):
        raise RunFailed(f"the minimal configurations ran in full in {where} and no longer show {difference.label} differing")
    record = S.ReproMinimized(
        difference=difference.label,
        given=_pair(given["a"], given["b"]),
        recorded_by=shlex.join(reports["a"].command or []),
        minimal=_pair(search.ca, search.cb),
        steps=search.steps,
        given_seconds=_seconds(reports, "total"),
        minimal_seconds=_seconds(final, "total"),
        given_step_seconds=_seconds(reports, "measured_step"),
        minimal_step_seconds=_seconds(final, "measured_step"),
        given_parameters=given["b"].target.parameter_count(),
        minimal_parameters=search.cb.target.parameter_count(),
        run=str(where),
    )
    return minimal, final, record


def _pair(a: ProbeConfig, b: ProbeConfig) -> S.Minimal:
    return S.Minimal(a=a.summary(), b=b.summary(), a_flags=a.to_flags(), b_flags=b.to_flags())


def _seconds(reports: dict[str, S.Report], timing: str) -> float | None:
    """A timing of the sides' runs, summed (None: a side lacks it)."""
    times = [getattr(r.timings_s, timing, None) if r.timings_s is not None else None for r in reports.values()]
    return round(sum(times), 3) if times and None not in times else None
