"""``memprobe gate`` and ``memprobe budget``: the probes of a budget, each in its own process, checked
against their limits (:mod:`memprobe.budget` holds the file format and the evaluation)."""

from __future__ import annotations

import shlex
from dataclasses import fields
from pathlib import Path

from ..analysis.verdict import gate_verdict, run_verdict
from ..budget import (
    PROBE_NAME,
    Budget,
    BudgetError,
    StarterBudget,
    baseline_entry,
    evaluate,
    explain_breach,
    load_baseline,
    nothing_checked,
    same_measurement,
)
from ..config import ProbeConfig
from ..errors import MemprobeError, RunDirError
from ..fields import shown
from ..rundir import schema as S
from ..rundir.load import dump, load_report, run_dirs_inside
from ..rundir.read import kind_of
from ..rundir.write import atomic_write_json
from ..vocab import RunStatus, Verdict
from .options import RunOptions
from .process import ProbeJob, Progress, run_jobs


class ProbeFailed(MemprobeError):
    """A probe gave no verdict (its run failed, or never ran): the gate fails (exit 2), naming it."""

    exit_code = 2


def _from_entries(entries: tuple[str, ...], budget: Budget) -> list[tuple[str, str, str]]:
    """``--from`` entries as (the entry as given, its probe's name or "", its run directory). An unnamed directory
    without a report.json that holds runs (an earlier gate's ``--out``, say from CI) stands for each of them, named by
    its folder where that is a probe of the budget."""
    out = []
    for entry in entries:
        name, path = _named_path(entry)
        inner = [] if name or kind_of(Path(path) / "report.json") != "missing" else run_dirs_inside(Path(path))
        for folder in inner:
            run = str(Path(path) / folder)
            out.append((run, folder if folder in budget.probes else "", run))
        if not inner:
            out.append((entry, name, path))
    return out


def _named_path(entry: str) -> tuple[str, str]:
    """A ``--from`` entry as its probe's name ("" when unnamed) and the path it gives."""
    name, _, path = entry.rpartition("=") if "=" in entry and not Path(entry).exists() else ("", "", entry)
    return name, path


def match_finished(entries: tuple[str, ...], budget: Budget, wanted: dict) -> dict[str, Path]:
    """``--from [NAME=]RUN_DIR``: which probe each finished run stands for. A run given again (the same entry, or the
    same directory however spelt) is read once, and a probe takes one run: a second one for it is refused, so however
    many entries are given, at most one more run than the budget has probes is read."""
    out: dict[str, Path] = {}
    seen: set[tuple[str, Path | None]] = set()
    for entry, name, path in _from_entries(tuple(dict.fromkeys(entries)), budget):
        key = (name, _resolved(Path(path)))
        if key in seen:
            continue
        seen.add(key)
        name = _probe_of(entry, name, path, budget, wanted)
        if name in out and _resolved(out[name]) != key[1]:
            raise BudgetError(
                f"--from {shown(entry, 200)}: probe {name!r} has a run already, {shown(str(out[name]), 200)}; give one "
                "run per probe"
            )
        out[name] = Path(path)
    return out


def _probe_of(entry: str, name: str, path: str, budget: Budget, wanted: dict) -> str:
    """The probe a ``--from`` run stands for: the one it names (whose configuration it must be of), or the wanted one
    of its configuration; BudgetError otherwise."""
    report = load_report(path)
    if not name:
        cfg = report.config.probe()
        names = [n for n, p in wanted.items() if p.config == cfg]
        if not names:
            raise BudgetError(f"{budget.path}: run {path} matches no probe's configuration; name it: --from NAME={path}")
        return names[0]
    if name not in budget.probes:
        raise BudgetError(f"{budget.path}: no probe {shown(name)} (probes: {', '.join(budget.probes)})")
    differ = config_difference(budget.probes[name].config, report.config.probe())
    if differ:
        keys = ", ".join(k for k, _, _ in differ)
        values = "; ".join(f"{k}: probe {a!r}, run {b!r}" for k, a, b in differ[:3])
        raise BudgetError(
            f"--from {entry}: the run's configuration differs from that of probe {name!r} in {keys} ({values}); a "
            "probe's limits are checked against a run of its own configuration only"
        )
    return name


def check_what_runs(
    budget: Budget,
    wanted: dict,
    finished: dict[str, Path],
    *,
    from_runs: tuple[str, ...],
    named: bool,
    writes: Path | bool = False,
) -> None:
    """Before anything runs or is written: what the gate may run. ``gate --from`` gates the runs it is given and runs
    nothing (a probe without one gives no verdict: ProbeFailed, exit 2), so a budget file found beside them (a
    downloaded artifact's) never starts a process nor writes a ``memprobe-runs/`` there; and a probe that names code
    (a command, a model, a Hugging Face configuration) runs only from a budget file the user ``named`` (``--budget
    FILE``, an MCP call's ``budget``), never from one memprobe found by itself (./memprobe.toml): BudgetError
    otherwise. ``writes``: the baseline ``--update-baseline`` writes, never inside a ``--from`` directory."""
    if writes:  # a path, or False: no baseline written
        check_baseline_outside(writes, from_runs)
    unrun = [name for name in wanted if name not in finished]
    if from_runs and unrun:
        name = unrun[0]
        raise ProbeFailed(
            f"probe {name!r} gave no verdict: no --from run is of its configuration, and gate --from runs no probe (pass "
            f"--from {name}=RUN_DIR, or choose the probes you have runs of with --probe)"
        )
    for name in [] if named else unrun:
        code = wanted[name].config.target.users_code()
        if code is not None:
            where = f"{budget.path}:{wanted[name].line}" if wanted[name].line else str(budget.path)
            raise BudgetError(
                f"{where}: probe {name!r} names {code}; memprobe runs what a budget file names only from a file you name "
                f"yourself: pass --budget {shlex.quote(str(budget.path))} if you trust it"
            )


def check_baseline_outside(baseline_path: Path, entries: tuple[str, ...]) -> None:
    """``--update-baseline`` never writes into a ``--from`` directory (a run or an artifact memprobe reads): RunDirError
    naming it otherwise (the default baseline lies beside the budget file, which may lie in it)."""
    target = _resolved(baseline_path)
    for path in dict.fromkeys(_named_path(entry)[1] for entry in entries):
        folder = _resolved(Path(path))
        if folder is not None and target is not None and target.is_relative_to(folder):
            raise RunDirError(
                f"--update-baseline would write {baseline_path} inside the --from directory {path}; memprobe writes "
                "nothing into a run it reads: pass --baseline FILE elsewhere"
            )


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL byte: nothing to compare
        return None


def config_difference(a: ProbeConfig, b: ProbeConfig) -> list[tuple[str, object, object]]:
    """The configuration keys whose values differ, with each side's value."""
    return [(f.name, getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)]


def run_gate(
    budget: Budget,
    wanted: dict,
    finished: dict[str, Path],
    run: RunOptions,
    *,
    baseline_path: Path,
    update_baseline: bool = False,
) -> S.GateResult:
    """Run (or load) each wanted probe and evaluate its limits: the gate's result (its limits' verdicts and breaches,
    evaluated by :mod:`memprobe.budget`, and its verdict)."""
    baseline = load_baseline(baseline_path)
    _check_probe_names(budget, wanted)
    to_run = [n for n in wanted if n not in finished]
    out = run.directory("gate") if to_run else run.out
    jobs = [ProbeJob(name, wanted[name].config, out / name) for name in to_run]
    ran = run_jobs(jobs, **run.schedule(), keep_going=True)
    reports = _gate_reports(wanted, finished, ran, run.progress)
    verdicts, explanations = _evaluate_probes(wanted, reports, baseline)
    counts = {k: sum(v.verdict == k for v in verdicts) for k in Verdict}
    result = S.GateResult(
        budget=str(budget.path),
        baseline=str(baseline_path),
        verdicts=verdicts,
        explanations=explanations,
        counts=counts,
        runs={n: str(finished.get(n) or out / n) for n in reports},
        verdict=gate_verdict(verdicts, counts, {n: r.verdict or run_verdict(r) for n, r in reports.items()}),
    )
    if update_baseline:
        result.baseline_updated = _store_baseline(baseline, reports, baseline_path)
    return result


def _check_probe_names(budget: Budget, wanted: dict) -> None:
    """Each probe's name names a directory under --out: never a path (load_budget checks it too)."""
    for name in wanted:
        if not PROBE_NAME.fullmatch(name):
            raise BudgetError(f"{budget.path}: probe name {name!r} is not one word of letters, digits, - and _")


def _store_baseline(baseline: S.Baseline, reports: dict[str, S.Report], baseline_path: Path) -> bool:
    """--update-baseline: each probe's entry replaced by its run's, and the baseline file written; whether it changed.
    An entry whose figures, versions, device and configuration the run measured again as they are is kept whole (its
    time too), so that a refresh that measured the same leaves the file untouched: a CI job commits the baseline only
    when it changed, and the gate says which."""
    changed = False
    for name, report in reports.items():
        entry = baseline_entry(report)
        if not same_measurement(baseline.probes.get(name), entry):
            baseline.probes[name] = entry
            changed = True
    if changed or not baseline_path.is_file():
        atomic_write_json(baseline_path, dump(baseline))
        return True
    return False


def _gate_reports(wanted: dict, finished: dict[str, Path], ran: dict, progress: Progress) -> dict[str, S.Report]:
    """Each wanted probe's report, in the budget's order: loaded from its finished run, or what its run gave. A probe
    whose run failed, or whose report is not complete, gave no verdict: ProbeFailed."""
    reports: dict[str, S.Report] = {}
    for name in wanted:
        if name in finished:
            reports[name] = load_report(finished[name])
            progress(f"[{name}] loaded {finished[name]}")
            continue
        res = ran.get(name)
        if isinstance(res, MemprobeError):
            raise ProbeFailed(f"probe {name!r} gave no verdict: {res}")
        reports[name] = res
    for name in wanted:  # a probe without a complete report never passes
        status = reports[name].status if name in reports else None
        if status != RunStatus.COMPLETE:
            raise ProbeFailed(f"probe {name!r} gave no verdict: its run is {status or 'missing'}, not complete")
    return reports


def _evaluate_probes(
    wanted: dict, reports: dict[str, S.Report], baseline: S.Baseline
) -> tuple[list[S.LimitVerdict], dict[str, S.BreachExplanation]]:
    """Every probe's limits evaluated (its verdicts), and for each probe that breached one, why."""
    verdicts, explanations = [], {}
    for name, report in reports.items():
        entry = baseline.probes.get(name)
        vs = evaluate(wanted[name], report, entry)
        if not vs:
            raise ProbeFailed(f"probe {name!r} gave no verdict: it has no limits")
        if any(v.verdict == Verdict.FAIL for v in vs):
            explanations[name] = explain_breach(report, entry)
        verdicts += nothing_checked(name, vs)
    return verdicts, explanations


def select_probes(budget: Budget, names: tuple[str, ...]) -> dict:
    """The budget's probes named on the command line (all when none is); BudgetError for an unknown name."""
    unknown = [n for n in names if n not in budget.probes]
    if unknown:
        raise BudgetError(f"{budget.path}: no probe {unknown[0]!r} (probes: {', '.join(budget.probes)})")
    return {n: p for n, p in budget.probes.items() if not names or n in names}


def check_baseline_slot(baseline_path: Path, name: str, *, force: bool) -> None:
    """Before ``memprobe budget`` runs: the baseline beside the budget reads, and holds no entry for ``name`` (unless
    ``force``); the other probes' entries are kept."""
    if name in load_baseline(baseline_path).probes and not force:
        raise BudgetError(f"{baseline_path} already holds a baseline for probe {name!r}; pass --force to replace it")


def write_budget(
    cfg: ProbeConfig, starter: StarterBudget, run: RunOptions, *, budget_path: Path, baseline_path: Path
) -> S.Report:
    """Run ``cfg`` once (in its own process) and write a starter budget for it, and its baseline entry; the run's
    report."""
    import tempfile

    from ..budget import budget_text, load_budget
    from ..rundir.write import atomic_write_text

    with tempfile.TemporaryDirectory(prefix="memprobe-budget-") as tmp:
        report = run_jobs([ProbeJob("budget", cfg, Path(tmp) / "run")], progress=run.progress, verbose=run.verbose)["budget"]
    atomic_write_text(budget_path, budget_text(starter, cfg, report))
    load_budget(budget_path)  # what we wrote must read back
    baseline = load_baseline(baseline_path)
    baseline.probes[starter.name] = baseline_entry(report)
    atomic_write_json(baseline_path, dump(baseline))
    return report
