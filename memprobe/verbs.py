"""What a verb does, below its command line: shared by the CLI (``memprobe.cli``) and the MCP server
(``memprobe.mcp``), so both give the same result for the same input.

Each function takes plain values (a configuration as report.json's ``config`` holds it, paths),
checks them as the CLI checks its flags, and returns the verb's result as a record of the schema (what ``--json``
prints is its JSON, :func:`memprobe.rundir.load.dump`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .config import NAMES_CODE, ProbeConfig, config_from_values
from .errors import ConfigError

if TYPE_CHECKING:
    from .budget import Budget
    from .orchestrate.options import RunOptions
    from .rundir import schema as S


def policy_table() -> S.PolicyTable:
    """Every policy with its save list; the installed torchtitan's resolved now (or why it cannot be)."""
    from .integrations.torchtitan import installed_api, installed_save_ops, torchtitan_version, why_unavailable
    from .policies import INSTALLED, POLICIES
    from .rundir.schema import PolicyTable

    out = {}
    for name, p in POLICIES.items():
        entry = {
            "description": p.description,
            "default": p.default,
            "save_ops": list(p.save_ops),
            "mm_every_second_recomputed": p.mm_every_second_recomputed,
            "source": p.source,
        }
        if name == INSTALLED:
            why = why_unavailable()
            entry.update(
                available=why is None,
                unavailable_because=why,
                torchtitan=torchtitan_version(),
                # which of torchtitan's SAC APIs it was read through (SelectiveAC: 0.3; _apply_op_sac: 0.2)
                torchtitan_api=installed_api() if why is None else None,
                save_ops=list(installed_save_ops()) if why is None else [],
            )
        out[name] = entry
    return PolicyTable.model_validate(out)


@dataclass(frozen=True)
class GatePlan:
    """What a gate checks, settled before anything runs: the budget file read, the probes wanted, the finished runs
    that stand for some of them (``--from``), and where the baseline is read (and, with ``update_baseline``, written)."""

    budget: Budget
    wanted: dict
    finished: dict[str, Path]
    baseline_path: Path
    update_baseline: bool = False

    def configs(self) -> list[ProbeConfig]:
        """The configurations of the probes that will run (those no finished run stands for)."""
        return [p.config for name, p in self.wanted.items() if name not in self.finished]


def plan_gate(
    budget_path: Path,
    probe_names: tuple[str, ...] = (),
    from_runs: tuple[str, ...] = (),
    *,
    named: bool,
    baseline_path: Path | None = None,
    update_baseline: bool = False,
) -> GatePlan:
    """The gate of the budget file at ``budget_path`` (``named``: the user named that file, so its probes that name
    code may run), checked as the CLI and the MCP tool both check it; ConfigError (or the budget file's error) when it
    cannot be gated."""
    from .budget import load_budget
    from .orchestrate.gate import check_what_runs, match_finished, select_probes

    budget = load_budget(budget_path)
    wanted = select_probes(budget, tuple(probe_names))
    finished = match_finished(tuple(from_runs), budget, wanted)
    baseline_path = baseline_path or budget.path.parent / "memprobe-baseline.json"
    writes = baseline_path if update_baseline else False
    check_what_runs(budget, wanted, finished, from_runs=tuple(from_runs), named=named, writes=writes)
    return GatePlan(budget, wanted, finished, baseline_path, update_baseline)


def gate(plan: GatePlan, run: RunOptions) -> S.GateResult:
    """Run (or read) the plan's probes (as ``run`` says) and evaluate their limits: the gate's result."""
    from .orchestrate.gate import run_gate

    return run_gate(
        plan.budget, plan.wanted, plan.finished, run, baseline_path=plan.baseline_path, update_baseline=plan.update_baseline
    )


def explain_base(run_dir: Path | None, values: dict, given: str, where: str) -> tuple[ProbeConfig | None, dict]:
    """What an explain starts from: a finished run (``run_dir``: its configuration as recorded, so ``given``, the
    configuration the user gave besides the model it may run again, as they gave it, is refused; ``where``: how they
    named the run) or the configuration of ``values``; and the model the user named (``model``, ``hf_config``), which
    a finished run's model is run again only when it names the same one."""
    if run_dir is not None and given:
        raise ConfigError(f"{given}: explain takes the configuration of {where} as recorded; without it, they say what to run")
    cfg = None if run_dir is not None else config_from_values(values)
    return cfg, {name: values.get(name) for name in NAMES_CODE}


def diff_side(label: str, value: str, config: dict, overrides: dict | None = None):
    """One side of a diff: a run directory (Path) or a validated configuration for a recipe, with this side's own
    configuration values (``overrides``, as ``--a``/``--b`` give flags)."""
    from .config import RECIPE_ALIASES, RECIPES

    path = Path(value)
    if path.is_dir():
        if overrides:
            raise ConfigError(f"side {label.upper()}'s own configuration applies to a recipe side; {value} is a run directory")
        return path
    if value not in RECIPES and value not in RECIPE_ALIASES:
        choices = ", ".join(list(RECIPES) + list(RECIPE_ALIASES))
        raise ConfigError(f"side {label.upper()} {value!r} is neither a run directory nor a recipe ({choices})")
    return config_from_values({**config, **(overrides or {}), "recipe": value})


def run_probe(
    cfg: ProbeConfig,
    out: Path,
    *,
    progress=None,
    verbose: bool = False,
    analysis_only: bool = False,
    nnodes: str | None = None,
    rdzv_endpoint: str | None = None,
) -> S.Report:
    """``memprobe run`` in this process: the probe records its run directory ``out`` (through torchrun when it has
    several ranks), then what it recorded is analysed here and written back; its report, the configuration whole. A
    run that fails is analysed as far as it got before its error is raised."""
    from .analysis.recorded import whole_config
    from .capture.runner import Recording
    from .capture.runner import run_probe as record
    from .errors import MemprobeError, RunFailed
    from .orchestrate.finish import finish_run
    from .vocab import RunStatus

    if cfg.target.starts_own_interpreter:  # the user's own script: its own process, as a verb's probe runs
        return whole_config(run_script(cfg, out, progress=progress, verbose=verbose))
    from .rundir.schema import remember

    remember(cfg)  # the records of this run hold this configuration: read or checked, it is not made again
    try:
        record(
            cfg,
            out,
            progress=progress,
            verbose=verbose,
            recording=Recording(analysis_only=analysis_only),
            nnodes=nnodes,
            rdzv_endpoint=rdzv_endpoint,
        )
    except MemprobeError:
        try:
            finish_run(out, cfg)
        except MemprobeError:
            pass  # the run's own error says why; what could not be analysed is in its report
        raise
    report = finish_run(out, cfg)
    if report.status != RunStatus.COMPLETE:  # complete only when the probe itself recorded its end as complete
        raise RunFailed(
            f"the run failed: the probe ended without recording its completion (status {str(report.status)!r}); see {out}"
        )
    return whole_config(report)


def run_script(cfg: ProbeConfig, out: Path, *, progress=None, verbose: bool = False) -> S.Report:
    """The user's own script (``memprobe run -- COMMAND``) in a process of its own, with memprobe's hooks; its report,
    analysed here (its error, one line, when it failed: what it recorded is in ``out``)."""
    from .errors import MemprobeError
    from .orchestrate.process import ProbeJob, SideEnv, run_one

    result = run_one(ProbeJob("script", cfg, out, side=SideEnv()), progress=progress or (lambda _m: None), verbose=verbose)
    if isinstance(result, MemprobeError):
        raise result
    return result


def run_probe_forked(cfg: ProbeConfig, out: Path, *, force: bool, progress=None, verbose: bool = False, **kw) -> S.Report | None:
    """``memprobe run`` as a fork of this user's running ``memprobe serve`` (torch imported there once), or of the one
    this command starts by default for a CPU probe (:func:`~.orchestrate.resident.serve_by_default`; a CUDA probe's
    is started in the background for the commands after this one): its report, as :func:`run_probe_in_child`; None
    when none serves (or ``MEMPROBE_FORKSERVER`` names another or is off: the probe then runs in this process)."""
    import os

    from .orchestrate.forkserver import SERVE_BY_DEFAULT, SERVER_VAR, running_server, runs_on_cpu
    from .orchestrate.resident import serve_by_default

    named = os.environ.get(SERVER_VAR, "")
    if named and named != SERVE_BY_DEFAULT:
        return None
    found = running_server()
    if found is None:
        found = serve_by_default(wait=runs_on_cpu(cfg, None))
    if found is None:
        return None
    return run_probe_in_child(cfg, out, force=force, analysis_only=kw.get("analysis_only", False), progress=progress)


def run_probe_in_child(
    cfg: ProbeConfig, out: Path | None, *, force: bool, analysis_only: bool, progress, python: str | None = None
) -> S.Report:
    """``memprobe run`` as a probe process of its own (the caller stays free of torch; ``python``: of that interpreter):
    its report, the configuration whole."""
    from .analysis.recorded import whole_config
    from .orchestrate.process import ProbeJob, interpreter_side, run_jobs
    from .rundir.write import MARKER, check_out_dir, default_run_dir, make_dir, prepare_run_dir

    side = interpreter_side(python)
    out = Path(out) if out is not None else default_run_dir(cfg.recipe)
    check_out_dir(out, force)  # refused unless absent or empty, or force and memprobe's own
    with refusal_leaves_no_run_dir(out):
        make_dir(out)  # here, before a probe starts: one the system will not make (/proc/self/x) is bad input
        if out.is_dir() and any(out.iterdir()):
            prepare_run_dir(out, force)  # an earlier memprobe run there is removed, as `memprobe run --force` does
            (out / MARKER).unlink()  # the probe process starts from an empty directory and marks it itself
        job = ProbeJob("run", cfg, out, side=side, analysis_only=analysis_only)
        return whole_config(run_jobs([job], progress=progress)["run"])


@contextlib.contextmanager
def refusal_leaves_no_run_dir(out: Path):
    """A run refused as bad input (ConfigError, exit 2: a model too large for this machine, a factory's arguments its
    model refuses) leaves no run directory where there was none: nothing it recorded is worth keeping, and a failed
    report.json the user never asked about would be left behind at each try. What memprobe wrote there is removed
    (:func:`~memprobe.rundir.write.discard_run_dir`); a directory that was there before, or holds anything else,
    stays. A run that failed while it ran keeps its partial results (exit 3, 4)."""
    from .rundir.write import discard_run_dir

    there = Path(out).exists() or Path(out).is_symlink()
    try:
        yield
    except ConfigError:
        if not there:
            discard_run_dir(out)
        raise
