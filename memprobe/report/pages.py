"""The files a verb writes besides its records: the HTML page (and the Perfetto trace) of a run or diff directory or
of a sweep, and a gate's JUnit XML, page, table and step summary. Each is read (a directory) or given (a record),
rendered by the reporter of its format, and written; nothing here renders."""

from __future__ import annotations

from pathlib import Path

from ..analysis.recorded import load_recorded, load_timeline, side_timeline
from ..errors import RunDirError
from ..rundir import schema as S
from ..rundir.load import load_report
from ..rundir.write import atomic_write_json, atomic_write_text


def write_html(path: Path, out: Path) -> Path:
    """Render the run or diff directory ``path`` into ``out`` (one HTML file); returns ``out``."""
    from .html import render_run

    kind, record = load_recorded(path, kinds=("run", "diff"))
    # a recorded diff may come from anyone: its sides are read only inside its own directory
    page = (
        render_run(record, path, load_timeline(path, record)) if kind == "run" else diff_html(record, path, sides_anywhere=False)
    )
    atomic_write_text(out, page)
    return out


def diff_html(result: S.DiffResult, diff_dir: Path | None = None, *, sides_anywhere: bool = True) -> str:
    """The HTML page of a diff result; each side's timeline is the one its run directory stored (none where the
    directory moved away: the diff table still renders). ``sides_anywhere``: the result was just computed here, so its
    sides' directories are the ones it read; otherwise (a diff.json from disk) a side is read only where it lies
    inside ``diff_dir``."""
    from .html import render_diff

    sides = [side_timeline(side, key, diff_dir, sides_anywhere) for key, side in (("a", result.a), ("b", result.b))]
    return render_diff(result, *sides)


def write_diff_html(result: S.DiffResult, diff_dir: Path | None, out: Path) -> Path:
    """The page of a diff this process just computed (its sides are the directories it read)."""
    atomic_write_text(out, diff_html(result, diff_dir))
    return out


def write_sweep_html(result: S.SweepResult, out: Path) -> Path:
    """The page of a sweep: its plot of bytes against memory budget."""
    from .html import render_sweep

    atomic_write_text(out, render_sweep(result))
    return out


def write_trace(path: Path, out: Path) -> Path:
    from .trace import chrome_trace

    report = load_report(path)
    tl = load_timeline(path, report)
    if tl is None:
        raise RunDirError(f"{path}: the run measured no memory events (analysis-only?); nothing to trace")
    atomic_write_json(out, chrome_trace(report, tl))
    return out


def write_snapshot_pages(summary: S.SnapshotSummary, timeline: S.Timeline, html: Path | None, trace: Path | None) -> None:
    """The page and the trace asked for of a snapshot taken elsewhere, read with its timeline
    (:func:`memprobe.analysis.user_snapshot.analyse_snapshot`)."""
    from .html import render_snapshot
    from .trace import snapshot_trace

    if html is not None:
        atomic_write_text(html, render_snapshot(summary, timeline))
    if trace is not None:
        atomic_write_json(trace, snapshot_trace(summary, timeline))


def write_snapshot_diff_html(result: S.SnapshotDiff, timelines: tuple, out: Path) -> Path:
    """The page of two snapshots compared (``timelines``: each one's, A's then B's)."""
    from .html import render_snapshot_diff

    atomic_write_text(out, render_snapshot_diff(result, *timelines))
    return out


def write_gate_outputs(
    result: S.GateResult, *, junit=None, html=None, csv=None, parquet=None, step_summary: str | None = None
) -> None:
    """The files a gate was asked for: JUnit XML, the HTML page, the verdicts as a table, and the Markdown summary
    appended to ``$GITHUB_STEP_SUMMARY``."""
    from .html import render_gate
    from .junit import gate_junit
    from .markdown import gate_markdown
    from .tables import export

    if junit is not None:
        atomic_write_text(junit, gate_junit(result))
    if html is not None:
        atomic_write_text(html, render_gate(result))
    export("gate", result, csv, parquet)
    if step_summary:
        with open(step_summary, "a") as f:
            f.write(gate_markdown(result))
