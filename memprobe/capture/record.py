"""A probe's report.json while it runs: consistent at every moment, its status said in the vocabulary.

It is written first (status ``running``) before anything is imported or built; then as the run learns
its device and records its graphs; last with the status the run ended in (``complete``, ``failed``,
``oom``, ``interrupted``) and, for a failure, the one line the user reads. It holds what the probe
measured and recorded, as the records of :mod:`memprobe.rundir.records` (the standard-library mirror of the
schema: a probe's process may have no pydantic): the derived sections (the saved table, findings, verdict) are
filled in by whoever reads the run directory (:mod:`memprobe.analysis.run`).
"""

from __future__ import annotations

import platform
from datetime import UTC, datetime

from .. import SCHEMA_VERSION, __version__
from ..config import ProbeConfig
from ..errors import ConfigError, InternalError, MemprobeError, OutOfMemory, RunDirError, RunFailed, oom_headline
from ..rundir import records as R
from ..rundir.write import RunDir
from ..vocab import RunMode, RunStatus
from .guard import describe_exit
from .process_info import process_record, user_command


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def policy_record(cfg: ProbeConfig) -> R.Policy | None:
    """The effective per-op SAC policy (null unless the run's AC is memprobe's per-op SAC: a script has its own)."""
    if not cfg.mode.policy or not cfg.target.takes_sac_policy:
        return None
    p = cfg.policy()
    return R.Policy(
        name=p.name,
        default=p.default,
        save_ops=list(p.save_ops),
        recompute_ops=list(p.recompute_ops),
        mm_every_second_recomputed=p.mm_every_second_recomputed,
    )


class RunRecord:
    """The report of one probe as it runs, and where it is written."""

    def __init__(self, cfg: ProbeConfig, run_dir: RunDir, *, analysis_only: bool):
        self.run_dir = run_dir
        self.report = R.Report(
            schema_version=SCHEMA_VERSION,
            tool=R.Tool(name="memprobe", version=__version__),
            status=RunStatus.RUNNING,
            created_utc=now_utc(),
            command=user_command(),
            process=process_record(),
            config=cfg.recorded(),  # the fields that apply to its family: ProbeConfig's own record
            # analysis-only: graphs traced and partitioned as for Inductor, then run uncompiled (no output
            # code); the saved table is the full run's, measured temporaries are not the kernels'
            mode=RunMode.ANALYSIS_ONLY if analysis_only else RunMode.FULL,
            device=R.Device(type=None),  # until torch says which
            versions=R.Versions(memprobe=__version__, python=platform.python_version()),
            policy=policy_record(cfg),
            graphs=[],
            invocations=[],
            # derived by the reader (memprobe.analysis.run) from what the probe records
            saved_tensors=[],
            saved_totals=None,
            findings=[],
            notes=[],  # what memprobe changed in the model, or where this device differs from another: one line each
            memory=None,
            timings_s=R.Timings(),
        )

    def write(self) -> None:
        self.run_dir.write_report(self.report)

    def ended(self, status: RunStatus, error: str | None = None) -> None:
        """The status the run ended in (and why, for a failure); written by :meth:`close`."""
        self.report.status = status
        if error is not None:
            self.report.error = error

    def close(self) -> None:
        """The run is over, whatever its status: when it ended, written."""
        self.report.finished_utc = now_utc()
        self.write()

    def failed(self, e: BaseException, phase: str | None, oom: bool) -> MemprobeError:
        """Mark the run failed (or oom) by ``e``, which ended it during ``phase``: the error the user reads."""
        where = self.run_dir.path
        if isinstance(e, (ConfigError, RunDirError, InternalError)):  # bad input (a file it names too), or our bug
            self.ended(RunStatus.FAILED, f"{type(e).__name__}: {e}")
            return e
        if not isinstance(e, Exception):  # sys.exit, os._exit or a BaseException of the user's code
            self.ended(RunStatus.FAILED, f"the model {describe_exit(e)}")
            return RunFailed(
                f"the run failed: the model {describe_exit(e)} during {phase or 'the run'}; partial report in {where}"
            )
        if isinstance(e, RunFailed):  # memprobe cannot measure the run: it said why, and what to do
            self.ended(RunStatus.FAILED, str(e))
            return RunFailed(f"the run failed: {e}; partial report in {where}")
        # a failure inside torch: keep what was recorded
        first = str(e).splitlines()[0] if str(e) else ""
        if oom:
            self.ended(RunStatus.OOM, f"{type(e).__name__}: {first}")
            short = oom_headline(first)
            at = self.report.oom.phase if self.report.oom else None
            return OutOfMemory(f"out of memory during {at or 'the run'}: {short}; partial report in {where} (status: oom)")
        from .model import innermost_cause

        cause = innermost_cause(e)
        self.ended(RunStatus.FAILED, cause)
        return RunFailed(f"the run failed: {cause}; partial report in {where}")
