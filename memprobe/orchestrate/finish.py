"""A probe's run directory, finished: what its process recorded, analysed in memprobe's own environment.

The probe records (it may run in another Python environment, without memprobe's dependencies); whoever
reads its run directory here analyses it (:func:`memprobe.analysis.run.analyse`) and writes report.json
back: ``memprobe run`` right after its probe, the verbs after each probe's process ends (while the next
one runs), and for a probe of several ranks each rank's directory before their merge.
"""

from __future__ import annotations

from pathlib import Path

from ..analysis.ranks import merge_ranks
from ..analysis.recorded import same_interpreter
from ..analysis.run import analyse
from ..analysis.snapshot import one_load_per_file
from ..analysis.timeline import timeline
from ..config import ProbeConfig
from ..errors import InternalError, RunDirError
from ..rundir import schema as S
from ..rundir.load import TIMELINE_FILE, dump, load_report
from ..rundir.write import atomic_write_json
from ..vocab import RunStatus


def finish_run(out: Path, cfg: ProbeConfig) -> S.Report:
    """The run directory ``out`` a probe of ``cfg`` recorded, analysed and written back (each rank's, then their
    merge, for a probe of several ranks): its report. RunDirError when it holds no readable report; InternalError
    when a complete run's analysis fails (its report.json then says so, status failed)."""
    S.remember(cfg)  # what the probe recorded is this configuration: read back, it is not made again
    if cfg.nproc > 1:
        return _finish_ranks(Path(out), cfg.nproc)
    ranks = _rank_dirs(Path(out))
    if cfg.target.makes_own_process_group and ranks and not (Path(out) / "report.json").is_file():  # a script under torchrun
        return _finish_ranks(Path(out), len(ranks))
    report, error = _finish_one(Path(out))
    if error is not None:
        raise error
    return report


def _finish_one(run_dir: Path) -> tuple[S.Report, InternalError | None]:
    report = load_report(run_dir)
    process = report.process
    if process is not None and process.python and process.other_interpreter is None:  # this memprobe started it
        process.other_interpreter = not same_interpreter(process.python)
    with one_load_per_file():  # the attribution and the timeline read the snapshot: loaded once
        try:
            analyse(report, run_dir, trusted_snapshot=True)  # the probe's own snapshot: written by this memprobe
        except InternalError as e:
            return _write(run_dir, report, with_timeline=True), e
        return _write(run_dir, report, with_timeline=True), None


def _finish_ranks(out: Path, nproc: int) -> S.Report:
    """Each rank's run directory finished (a rank whose analysis failed is a failed rank), then the merge."""
    ranks: dict[int, S.Report] = {}
    for d in _rank_dirs(out):
        try:
            ranks[int(d.name[4:])] = _finish_one(d)[0]
        except RunDirError:
            continue
    return _write(out, merge_ranks(ranks, nproc, str(out)), with_timeline=True)


def _rank_dirs(out: Path) -> list[Path]:
    """The run directories of a probe's ranks (``rank0/``, ``rank1/``, ...)."""
    return [d for d in sorted(out.glob("rank*")) if d.is_dir() and d.name[4:].isdigit()]


def _write(run_dir: Path, report: S.Report, *, with_timeline: bool = False) -> S.Report:
    """report.json written back; ``with_timeline``: the run's memory timeline too (:func:`_write_timeline`)."""
    if with_timeline:
        _write_timeline(Path(run_dir), report)
    atomic_write_json(Path(run_dir) / "report.json", dump(report))
    return report


def _write_timeline(run_dir: Path, report: S.Report) -> None:
    """The run's memory over the measured step, computed once, now (:func:`memprobe.analysis.timeline.timeline`), and
    stored beside its report (timeline.json): what `memprobe report` draws and traces, never replaying the snapshot.
    Nothing is stored where the run measured no memory events, or where its timeline cannot be computed: `memprobe
    report` then reads the run as one finished before timelines were stored (no timeline; or why there is none)."""
    try:
        computed = timeline(report, run_dir)
    except Exception:  # what the page would say (a snapshot too large for its bounds, ...): said when it is asked for
        return
    if computed is not None:
        atomic_write_json(run_dir / TIMELINE_FILE, dump(computed))


def mark_killed(run_dir: Path, how: str) -> None:
    """A probe's process killed by a signal could not mark its report: say so in it (status failed)."""
    mark_ended(run_dir, RunStatus.FAILED, f"the probe process was killed by {how}")


def mark_ended(run_dir: Path, status: RunStatus, why: str, *, was: RunStatus = RunStatus.RUNNING) -> bool:
    """A probe's process that could not record how its run ended (killed, stopped, ended by the user's code): its
    report, and each of its ranks', marked with ``status`` and ``why`` where it says ``was`` (still "running"; or
    "complete" where the script's own code wrote that). Whether one was marked."""
    marked = False
    for folder in [Path(run_dir), *_rank_dirs(Path(run_dir))]:
        try:
            report = load_report(folder)
        except RunDirError:
            continue
        if report.status == was:
            report.status, report.error = status, why
            _write(folder, report)
            marked = True
    return marked
