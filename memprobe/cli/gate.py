"""``memprobe gate``: check probes against a memory budget (exit 1 on a breach) and
``memprobe budget``: write a starter budget for a configuration."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import click

from ..errors import ConfigError, MemprobeError, RunFailed
from .run import config_from_options, config_options, emit


class ProbeFailed(MemprobeError):
    """A probe's run failed: the gate cannot give a verdict (exit 2)."""

    exit_code = 2


def _match_from(entries: tuple[str, ...], budget, wanted: dict) -> dict[str, Path]:
    """``--from [NAME=]RUN_DIR``: which probe each finished run stands for."""
    from ..analysis.rundir import load_report
    from ..budget import BudgetError
    from ..config import ProbeConfig

    out: dict[str, Path] = {}
    for entry in entries:
        name, _, path = entry.rpartition("=") if "=" in entry and not Path(entry).exists() else ("", "", entry)
        report = load_report(path)
        if name:
            if name not in budget.probes:
                raise BudgetError(f"{budget.path}: no probe {name!r} (probes: {', '.join(budget.probes)})")
        else:
            cfg = ProbeConfig.from_dict(report["config"]).validated()
            names = [n for n, p in wanted.items() if p.config == cfg]
            if not names:
                raise BudgetError(f"{budget.path}: run {path} matches no probe's configuration; name it: --from NAME={path}")
            name = names[0]
        out[name] = Path(path)
    return out


def _explain(report: dict, entry: dict | None) -> dict:
    from ..analysis.diff import diff_reports
    from ..analysis.saved import group_rows
    from ..budget import baseline_mismatch
    from ..units import fmt_bytes

    if entry is not None and entry.get("report") and baseline_mismatch(entry, report) is None:
        d = diff_reports(entry["report"], report)
        delta = d["totals"]["saved_bytes"]["delta"]
        status = {"only_b": "new", "grown": "grown"}
        lines = [
            f"{it['expr']} x{it['count']}: {'+' if it['delta_bytes'] > 0 else ''}{fmt_bytes(it['delta_bytes'])}"
            f" ({status[it['status']]}; {it['reason']}). Hint: "
            + it["hint"].replace("B's", "this run's").replace(" in B ", " here ")
            for it in d["items"] if it["status"] in status
        ][:5]
        sign = "+" if (delta or 0) >= 0 else ""
        return {"headline": f"Against the baseline it saves {sign}{fmt_bytes(delta)} for backward per step:",
                "lines": lines or ["no saved value grew; the breach is in measured memory outside the saved values"]}
    lines = [f["message"] for f in report.get("findings") or []][:3]
    for g in group_rows([r for r in report.get("saved_tensors") or [] if r["kind"] != "parameter"])[:5]:
        lines.append(f"{g['expr']} x{g['count']}: {fmt_bytes(g['bytes'])} ({g['kind']}; {g['reason']})")
    return {"headline": "No comparable baseline; the largest saved-for-backward values and findings:", "lines": lines}


@click.command(short_help="Check probes against memprobe.toml; exit 1 on a breach.")
@click.option("--budget", "budget_path", type=click.Path(path_type=Path), default=Path("memprobe.toml"), show_default=True,
              help="The budget file.")
@click.option("--probe", "probe_names", multiple=True, metavar="NAME", help="Check only these probes (repeatable).")
@click.option("--from", "from_runs", multiple=True, metavar="[NAME=]RUN_DIR",
              help="Use a finished run instead of running the probe (matched by configuration, or named).")
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path), default=None,
              help="Baseline file for relative limits (default memprobe-baseline.json beside the budget).")
@click.option("--update-baseline", is_flag=True, help="Store this run's figures as the new baseline (with torch/torchao versions and device).")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Where probe runs go (default memprobe-runs/<UTC time>-gate).")
@click.option("--force", is_flag=True, help="Replace an existing --out directory (only one memprobe wrote).")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path), default=None, help="Write JUnit XML here.")
@click.option("--html", "html_path", type=click.Path(path_type=Path), default=None,
              help="Write a self-contained HTML page of the verdicts here.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the verdicts as Markdown.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
@click.option("--verbose", is_flag=True, help="Let torch/torchao warnings and logs through.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
def gate(budget_path, probe_names, from_runs, baseline_path, update_baseline, out, force, junit_path, html_path, as_json,
         as_markdown, quiet, verbose, debug) -> None:
    """Check memory budgets: run each probe (or read finished runs) and compare with its limits.

    \b
    Exit codes: 0 every limit passes (or is skipped), 1 a limit is breached,
    2 an invalid budget file or a failed run. A breach names what caused it: the diff
    against the stored baseline when there is one, else the largest saved values.
    With $GITHUB_STEP_SUMMARY set, a Markdown summary is appended to it.

    \b
    Examples:
      memprobe gate                                   # every probe in ./memprobe.toml
      memprobe gate --probe ffn-rowwise --junit gate.xml
      memprobe gate --from memprobe-runs/20261129T150000Z-rowwise
      memprobe gate --update-baseline                 # on the main branch
    """
    from ..analysis.rundir import load_report
    from ..budget import BudgetError, baseline_entry, evaluate, load_baseline, load_budget
    from ..capture.rundir import atomic_write_json, atomic_write_text, default_run_dir, prepare_run_dir
    from ..capture.runner import run_probe
    from ..report import console as render
    from ..report.gate import gate_junit, gate_markdown, print_gate

    budget = load_budget(budget_path)
    unknown = [n for n in probe_names if n not in budget.probes]
    if unknown:
        raise BudgetError(f"{budget.path}: no probe {unknown[0]!r} (probes: {', '.join(budget.probes)})")
    wanted = {n: p for n, p in budget.probes.items() if not probe_names or n in probe_names}
    finished = _match_from(from_runs, budget, wanted)
    baseline_path = baseline_path or budget.path.parent / "memprobe-baseline.json"
    baseline = load_baseline(baseline_path)

    progress = render.progress_printer(enabled=not quiet and not (as_json or as_markdown))
    to_run = [n for n in wanted if n not in finished]
    if to_run:
        out = out or default_run_dir("gate")
        prepare_run_dir(out, force)
    reports = {}
    for name in wanted:
        if name in finished:
            reports[name] = load_report(finished[name])
            progress(f"[{name}] loaded {finished[name]}")
            continue
        try:
            reports[name] = run_probe(wanted[name].config, out / name,
                                      progress=lambda m, n=name: progress(f"[{n}] {m}"), verbose=verbose)
        except RunFailed as e:
            raise ProbeFailed(f"probe {name!r}: {e}") from e
    failed = [n for n, r in reports.items() if r.get("status") != "complete"]
    if failed:
        raise ProbeFailed(f"probe {failed[0]!r}: its run is {reports[failed[0]].get('status')}, not complete")

    verdicts, explanations = [], {}
    for name, report in reports.items():
        entry = baseline["probes"].get(name)
        vs = evaluate(wanted[name], report, entry)
        verdicts += vs
        if any(v["verdict"] == "FAIL" for v in vs):
            explanations[name] = _explain(report, entry)
    counts = {k: sum(v["verdict"] == k for v in verdicts) for k in ("PASS", "FAIL", "SKIP")}
    result = {"budget": str(budget.path), "baseline": str(baseline_path), "verdicts": verdicts,
              "explanations": explanations, "counts": counts,
              "runs": {n: str(finished.get(n) or out / n) for n in reports}}

    if update_baseline:
        for name, report in reports.items():
            baseline["probes"][name] = baseline_entry(report)
        atomic_write_json(baseline_path, baseline)
        result["baseline_updated"] = True
    if junit_path is not None:
        atomic_write_text(junit_path, gate_junit(result))
    if html_path is not None:
        from ..report.html import render_gate

        atomic_write_text(html_path, render_gate(result))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a") as f:
            f.write(gate_markdown(result))
    def show() -> None:
        print_gate(result, render._console())
        if update_baseline:
            click.echo(f"baseline updated: {baseline_path}")

    emit(result, as_json=as_json, as_markdown=as_markdown, markdown=gate_markdown, console=show)
    if counts["FAIL"]:
        raise SystemExit(1)


def _size_text(n: int, headroom: float) -> str:
    """Bytes with headroom, rounded up to 0.01 MiB, as a budget-file size."""
    mib = math.ceil(n * (1 + headroom) / 1024**2 * 100) / 100
    return f"{mib:.2f} MiB"


@click.command(short_help="Run once and write a starter memprobe.toml with headroom.")
@config_options
@click.option("--name", default=None, help="Probe name (default ffn-<recipe>).")
@click.option("--headroom", default="10%", show_default=True, help="Headroom over the measured figures, e.g. 10%.")
@click.option("--relative", default="+5%", show_default=True, help="Limit on saved_bytes relative to the baseline stored with it.")
@click.option("--budget", "budget_path", type=click.Path(path_type=Path), default=Path("memprobe.toml"), show_default=True,
              help="Where to write the budget (refused if it exists, unless --force).")
@click.option("--force", is_flag=True, help="Overwrite an existing budget file.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
@click.option("--verbose", is_flag=True, help="Let torch/torchao warnings and logs through.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
def budget(name, headroom, relative, budget_path, force, quiet, verbose, debug, **kw) -> None:
    """Run a configuration once and write a starter budget for it, with headroom.

    \b
    Writes memprobe.toml (one probe: its flags, limits on the graph-derived figures and on
    the measured peaks of this device) and memprobe-baseline.json (this run's figures, for
    the relative limit). Weight-derived saved bytes are limited to what was measured, so a
    run that saves none forbids them.

    \b
    Example:
      memprobe budget --recipe rowwise --layers 2 --headroom 10%
    """
    import tempfile

    from ..budget import baseline_entry, figures, load_budget, parse_relative
    from ..capture.rundir import atomic_write_json, atomic_write_text
    from ..capture.runner import run_probe
    from ..config import ProbeConfig
    from ..report import console as render

    cfg = config_from_options(kw)
    if budget_path.exists() and not force:
        raise ConfigError(f"{budget_path} exists; pass --force to overwrite it or choose another --budget")
    text = headroom.strip().rstrip("%")
    try:
        h = float(text) / 100
        if h < 0:
            raise ValueError
        parse_relative(relative)
    except ValueError:
        raise ConfigError(f"--headroom takes a percentage like 10% (got {headroom!r}); --relative like +5% (got {relative!r})") from None
    name = name or f"ffn-{cfg.recipe}"
    progress = render.progress_printer(enabled=not quiet)
    with tempfile.TemporaryDirectory(prefix="memprobe-budget-") as tmp:
        report = run_probe(cfg, Path(tmp) / "run", progress=progress, verbose=verbose)
    figs = figures(report)
    device = report["device"]["type"]
    defaults = ProbeConfig().to_dict()
    lines = [
        f"# memprobe budget, written by `memprobe budget` from a {device} run",
        f"# ({report['versions'].get('device_name')}, torch {report['versions']['torch']}, torchao {report['versions'].get('torchao')})",
        f"# with {headroom} headroom over the measured figures. Reference: docs/gate.md",
        "",
        f"[probes.{name}]",
    ]
    for key, value in cfg.to_dict().items():
        if value != defaults[key] or key == "recipe":
            lines.append(f"{key} = {json.dumps(value)}")
    lines += ["", f"[probes.{name}.limits]"]
    lines.append(f"saved_bytes = \"{_size_text(figs['saved_bytes'], h)}\"")
    wd = figs["weight_derived_saved_bytes"] or 0
    lines.append(f"weight_derived_saved_bytes = {0 if wd == 0 else json.dumps(_size_text(wd, h))}"
                 + ("  # none measured: forbid them" if wd == 0 else ""))
    if figs["graph_peak_bytes"] is not None:
        lines.append(f"graph_peak_bytes = \"{_size_text(figs['graph_peak_bytes'], h)}\"")
    lines += ["", f"[probes.{name}.limits.{device}]"]
    for metric in ("forward_peak_bytes", "backward_peak_bytes", "optimizer_peak_bytes"):
        if figs.get(metric) is not None:
            lines.append(f"{metric} = \"{_size_text(figs[metric], h)}\"")
    lines += ["", f"[probes.{name}.limits.baseline]", f"saved_bytes = \"{relative}\"", ""]
    atomic_write_text(budget_path, "\n".join(lines))
    load_budget(budget_path)  # what we wrote must read back
    baseline_path = budget_path.parent / "memprobe-baseline.json"
    atomic_write_json(baseline_path, {"memprobe_baseline": 1, "probes": {name: baseline_entry(report)}})
    click.echo(f"wrote {budget_path} (probe {name!r}) and {baseline_path}; check it with: memprobe gate --budget {budget_path}")
