"""What a directory memprobe wrote holds: a run (report.json), a diff, an explain, a bisect or a sweep result."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import RunDirError
from ..rundir import schema as S
from ..rundir.load import load_bisect, load_diff, load_explain, load_report, load_stored_timeline, load_sweep, runs_inside
from ..rundir.read import check_directory, kind_of
from .view import finished

_RESULTS = (
    ("diff", "diff.json", load_diff),
    ("explain", "explain.json", load_explain),
    ("bisect", "bisect.json", load_bisect),
    ("sweep", "sweep.json", load_sweep),
)


def _identity(python: str) -> tuple[str, str | None]:
    """What makes two interpreter paths one interpreter: the program they run and the virtualenv they belong to
    (``python`` and ``python3`` of one virtualenv are one; two virtualenvs of one Python are two)."""
    path = os.path.abspath(python)
    env = os.path.dirname(os.path.dirname(path))
    return os.path.realpath(path), env if os.path.isfile(os.path.join(env, "pyvenv.cfg")) else None


def same_interpreter(recorded: str | None, python: str | None = None) -> bool:
    """Whether a run recorded with interpreter ``recorded`` ran with ``python`` (None: this process's). An unrecorded
    one is taken for this one."""
    if recorded is None:
        return True
    return _identity(recorded) == _identity(python or sys.executable)


def whole_config(report: S.Report) -> S.Report:
    """The report with its configuration whole: every field that applies to its family present, as memprobe runs it
    (an older report lacks the newer fields; a script's records its own, none of the stack's). What a verb shows of a run, and prints of it with ``--json``."""
    return report.model_copy(update={"config": S.Config.model_validate(report.config.probe().recorded())})


def load_run(run_dir: str | Path) -> S.Report:
    """report.json of a run directory, checked (:func:`memprobe.rundir.load.load_report`), its configuration whole."""
    return whole_config(load_report(run_dir))


def load_recorded(path: Path, kinds: tuple[str, ...] = ("run", "diff", "explain", "bisect", "sweep")) -> tuple[str, S.Record]:
    """``(kind, record)`` of the directory at ``path``, checked as it is read (a run's configuration whole) and
    finished for its readers where it was written before a field of theirs existed (:func:`.view.finished`);
    RunDirError if it holds none of ``kinds``."""
    kind, record = _load_recorded(path, kinds)
    return kind, finished(kind, record)


def _load_recorded(path: Path, kinds: tuple[str, ...]) -> tuple[str, S.Record]:
    path = check_directory(Path(path), "directory")
    # what is there decides (a link or a FIFO in place of a file is refused by its loader, in one line)
    if "run" in kinds and kind_of(path / "report.json") != "missing":
        return "run", load_run(path)
    for kind, name, load in _RESULTS:
        if kind in kinds and kind_of(path / name) != "missing":
            return kind, load(path / name)
    names = " or ".join("report.json" if k == "run" else f"{k}.json" for k in kinds)
    inner = runs_inside(path) if "run" in kinds else None
    if inner:  # a gate's directory: its probes' runs
        raise RunDirError(f"{path} holds no {names}, but runs: {inner}")
    raise RunDirError(f"{path} holds no {names}")


def _inside(path: Path, root: Path) -> bool:
    path, root = path.resolve(), root.resolve()
    return path == root or root in path.parents


def side_dir(side: S.DiffSide, key: str, diff_dir: Path | None, sides_anywhere: bool) -> Path | None:
    """Where a side's run directory is: as recorded, where it may be read; else the diff directory's own ``a/`` or
    ``b/`` (a diff directory moved or copied elsewhere, or committed, still finds its runs); else none."""
    src = Path(side.source) if side.source else None
    if src is not None and (sides_anywhere or (diff_dir is not None and _inside(src, diff_dir))) and src.is_dir():
        return src
    own = diff_dir / key if diff_dir is not None else None
    return own if own is not None and own.is_dir() and _inside(own, diff_dir) else None


def diff_sides(path: Path, diff: S.DiffResult) -> dict[str, S.Report]:
    """A diff's sides (``a``, ``b``), read only where they lie inside the diff directory, whatever its ``source`` says;
    RunDirError naming a side that is not there."""
    reports = {}
    for key, side in (("a", diff.a), ("b", diff.b)):
        src = side_dir(side, key, path, sides_anywhere=False)
        if src is None:
            raise RunDirError(
                f"{path}/diff.json: side {key.upper()}'s run is not inside the diff directory ({side.source}); memprobe "
                "reads a side only there: name each run directory instead"
            )
        reports[key] = load_run(src)
    return reports


def load_timeline(run_dir: str | Path, report: S.Report | None = None) -> S.Timeline | None:
    """A run's memory over the measured step as the run stored it when it was finished (timeline.json); for a run
    finished before runs stored it, computed now from what it recorded (:func:`.timeline.timeline`). None: the run
    measured no memory events. ``report``: the run's, where it is already read."""
    stored = load_stored_timeline(run_dir)
    if stored is not None:
        return stored
    from .timeline import timeline

    return timeline(report if report is not None else load_report(run_dir), run_dir)


def side_timeline(side: S.DiffSide, key: str, diff_dir: Path | None, sides_anywhere: bool) -> S.Timeline | None:
    """A diff side's timeline (:func:`load_timeline`), read from its run directory where :func:`side_dir` finds it;
    None where there is none, or it cannot be read (a side's run directory moved away: the diff still renders)."""
    src = side_dir(side, key, diff_dir, sides_anywhere)
    try:
        return load_timeline(src) if src else None
    except RunDirError:
        return None
