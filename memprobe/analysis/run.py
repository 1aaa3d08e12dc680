"""A run's analysis: what its recorded artifacts say, derived once the probe has ended.

The probe records (capture/: graphs, output code, the calls of the measured step, memory, the
snapshot, configuration, versions, model, float8, caches, timings, notes); the reader analyses, in
memprobe's own environment: :func:`analyse` fills a recorded report's derived fields (the saved
table and its totals, each graph's memory simulated from its output code, what is alive at the
peaks, findings, checks, the verdict, and what the reporters show of them: :mod:`.view`), for
``memprobe run`` right after its probe, for the verbs after each probe's process ends, and for each rank of a multi-rank run before the merge.

A run that did not complete keeps the table of its last complete forward: whatever was recorded
is analysed (a failure to analyse it is recorded as ``analysis_error``, never hiding the run's own).
Pure: it reads the run directory, writes nothing.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import InternalError
from ..rundir import schema as S
from ..vocab import MemorySource, RunMode, RunStatus
from .backward_peak import backward_peak, backward_peak_on_device
from .cpu_attribution import attribute_cpu
from .evidence import Evidence
from .findings import checks, find
from .output_code import simulate_run
from .recompute import recomputed_in_run
from .saved import build_saved_table, graph_pairs, saved_totals
from .snapshot import attribute_snapshot, load_snapshot
from .verdict import run_verdict
from .view import finish_report


def derive(report: S.Report, run_dir: Path, *, trusted_snapshot: bool) -> S.Report:
    """The derived fields of a recorded run, from its recorded parts only (the report is changed in place and
    returned). ``trusted_snapshot``: the snapshot was written by a probe of this memprobe (its loading is not
    bounded)."""
    pairs = graph_pairs(run_dir, report)
    rows = build_saved_table(pairs, report.invocations, report.policy, report.model)
    totals = saved_totals(rows)
    report.saved_tensors = rows
    report.saved_totals = totals
    report.recomputed = recomputed_in_run(pairs, report.invocations, report.model)
    if report.memory is not None:
        report.memory.saved_for_backward_bytes = S.SavedBytesPair(graph=totals.graph_bytes, runtime=totals.runtime_bytes)
    report.graph_memory = simulate_run(run_dir, report, pairs)
    snapshot = run_dir / "snapshot.pickle"
    if report.mode == RunMode.ANALYSIS_ONLY:
        report.attribution = None  # the uncompiled graphs' allocations are not the kernels'
    elif snapshot.is_file():
        report.attribution, live = attribute_snapshot(load_snapshot(snapshot, trusted=trusted_snapshot), report)
        named = backward_peak_on_device(report, pairs, live) if live is not None else None
        if named is not None:
            report.attribution.backward_peak = named
    elif report.memory is not None and report.memory.source == MemorySource.CPU_PROFILER:
        report.attribution = attribute_cpu(report)
        named = backward_peak(report, pairs) if report.attribution is not None else None
        if named is not None:  # absent, not null, where no compiled backward's buffer is alive at the peak
            report.attribution.backward_peak = named
    report.findings = find(Evidence.of(report, pairs))
    report.checks = checks()
    return report


def analyse(report: S.Report, run_dir: str | Path, *, trusted_snapshot: bool = False) -> S.Report:
    """A recorded run, analysed: its derived fields (when it recorded graphs), its verdict once its status is known,
    and the analysis's time in ``timings_s`` (changed in place and returned).

    A complete run whose analysis fails is marked failed and InternalError (exit 70) is raised: the step
    succeeded, so the failure is memprobe's own; the report is left as analysed so far, for the caller to write.
    A run that did not complete keeps what could be derived, and ``analysis_error`` says what could not."""
    run_dir = Path(run_dir)
    complete = report.status == RunStatus.COMPLETE
    started = time.perf_counter()
    failure = None
    if complete or report.graphs:  # a run that failed before any graph was recorded has nothing to derive
        try:
            derive(report, run_dir, trusted_snapshot=trusted_snapshot)
        except Exception as e:  # what the run recorded could not be analysed: memprobe's own bug
            failure = e
    if complete and failure is None:
        timings = report.timings_s if report.timings_s is not None else S.Timings()
        timings.analysis = round(time.perf_counter() - started, 3)
        if timings.total is not None:  # the probe's own time, and now its analysis's
            timings.total = round(timings.total + timings.analysis, 3)
        report.timings_s = timings
    elif complete:
        report.status = RunStatus.FAILED
        error = InternalError(
            f"analysing the recorded run failed: {type(failure).__name__}: {failure}; what was recorded is in {run_dir}"
        )
        report.error = f"InternalError: {error}"
        report.verdict = run_verdict(report)
        finish_report(report)
        raise error from failure
    elif failure is not None:
        report.analysis_error = f"{type(failure).__name__}: {failure}"
    report.verdict = run_verdict(report)
    return finish_report(report)
