"""``memprobe gate``: check probes against a memory budget (exit 1 on a breach) and
``memprobe budget``: write a starter budget for a configuration."""

from __future__ import annotations

import math
import os
from pathlib import Path

import click

from ..errors import ConfigError
from ..vocab import Verdict
from .options import (
    config_from_options,
    config_options,
    emit,
    log_options,
    probes_options,
    refuse_existing,
    table_options,
)


@click.command(short_help="Check probes against memprobe.toml; exit 1 on a breach.")
@click.option(
    "--budget",
    "budget_path",
    type=click.Path(path_type=Path),
    default=Path("memprobe.toml"),
    show_default=True,
    help="The budget file.",
)
@click.option("--probe", "probe_names", multiple=True, metavar="NAME", help="Check only these probes (repeatable).")
@click.option(
    "--from",
    "from_runs",
    multiple=True,
    metavar="[NAME=]RUN_DIR",
    help="Use a finished run instead of running the probe (matched by configuration, or named).",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Baseline file for relative limits (default memprobe-baseline.json beside the budget).",
)
@click.option(
    "--update-baseline",
    is_flag=True,
    help="Store this run's figures as the new baseline (with torch/torchao versions and device).",
)
@probes_options("gate", force_also=", and --junit/--html/--csv/--parquet files")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path), default=None, help="Write JUnit XML here.")
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Write a self-contained HTML page of the verdicts here.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the verdicts as Markdown.")
@table_options
@log_options
def gate(
    budget_path,
    probe_names,
    from_runs,
    baseline_path,
    update_baseline,
    jobs,
    out,
    force,
    junit_path,
    html_path,
    as_json,
    as_markdown,
    quiet,
    verbose,
    csv_path,
    parquet_path,
) -> None:
    """Check memory budgets: run each probe (or read finished runs) and compare with its limits.

    \b
    Exit codes: 0 every limit passes (or is skipped), 1 a limit is breached,
    2 an invalid budget file, or a probe that gave no verdict (its run failed or never ran).
    Each probe runs in a fresh process. A breach names what caused it: the diff against the
    stored baseline when there is one, else the largest saved values.
    With $GITHUB_STEP_SUMMARY set, a Markdown summary is appended to it.

    \b
    Examples:
      memprobe gate                                   # every probe in ./memprobe.toml
      memprobe gate --probe ffn-rowwise --junit gate.xml
      memprobe gate --from memprobe-runs/20261129T150000Z-rowwise
      memprobe gate --update-baseline                 # on the main branch
    """
    from ..budget import load_budget
    from ..orchestrate.gate import match_finished, run_gate, select_probes
    from ..orchestrate.process import slots_for
    from ..report import console as render
    from ..report.gate import gate_markdown, print_gate, write_gate_outputs

    budget = load_budget(budget_path)
    wanted = select_probes(budget, probe_names)
    finished = match_finished(from_runs, budget, wanted)
    refuse_existing(junit_path, html_path, csv_path, parquet_path, force=force)
    slots, gpus = slots_for([p.config for n, p in wanted.items() if n not in finished], jobs)
    with render.progress_printer(enabled=not quiet and not (as_json or as_markdown)) as progress:
        result = run_gate(
            budget,
            wanted,
            finished,
            baseline_path=baseline_path or budget.path.parent / "memprobe-baseline.json",
            update_baseline=update_baseline,
            out=out,
            force=force,
            progress=progress,
            verbose=verbose,
            slots=slots,
            gpus=gpus,
        )
    write_gate_outputs(
        result,
        junit=junit_path,
        html=html_path,
        csv=csv_path,
        parquet=parquet_path,
        step_summary=os.environ.get("GITHUB_STEP_SUMMARY"),
    )
    emit(
        result,
        as_json=as_json,
        as_markdown=as_markdown,
        markdown=gate_markdown,
        console=lambda: render.print_gate_verdict_first(result, print_gate),
    )
    if result["counts"][Verdict.FAIL]:
        raise SystemExit(1)


def _headroom(text: str) -> float:
    try:
        h = float(text.strip().rstrip("%")) / 100
    except ValueError:
        h = float("nan")
    if not math.isfinite(h) or not 0 <= h <= 10:
        raise ConfigError(f"--headroom takes a percentage from 0% to 1000%, like 10% (got {text!r})")
    return h


def default_probe_name(cfg) -> str:
    """``ffn-rowwise``, ``transformer-bf16``, or the model file's name for ``--model``."""
    if cfg.model or cfg.hf_config:
        where = cfg.model.rpartition(":")[0] if cfg.model else cfg.hf_config
        stem = Path(where).stem if where.endswith((".py", ".json")) or "/" in where else where.rsplit(".", 1)[-1]
        if cfg.hf_config and stem == "config":  # a model directory's config.json: the directory's name
            stem = Path(where).parent.name
        base = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in stem) or "model"
    else:
        base = cfg.repro
    return f"{base}-{cfg.recipe}"


@click.command(short_help="Run once and write a starter memprobe.toml with headroom.")
@config_options
@click.option("--name", default=None, help="Probe name (default <repro or model file>-<recipe>, e.g. ffn-rowwise).")
@click.option("--headroom", default="10%", show_default=True, help="Headroom over the measured figures, e.g. 10%.")
@click.option(
    "--relative", default="+5%", show_default=True, help="Limit on saved_bytes relative to the baseline stored with it."
)
@click.option(
    "--budget",
    "budget_path",
    type=click.Path(path_type=Path),
    default=Path("memprobe.toml"),
    show_default=True,
    help="Where to write the budget (refused if it exists, unless --force).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing budget file, and this probe's entry in the baseline.")
@log_options
def budget(name, headroom, relative, budget_path, force, quiet, verbose, **kw) -> None:
    """Run a configuration once and write a starter budget for it, with headroom.

    \b
    Writes memprobe.toml (one probe: its flags, limits on the graph-derived figures and on
    the measured peaks of this device) and adds this run's figures to memprobe-baseline.json
    beside it (for the relative limit; other probes' entries are kept). Weight-derived saved
    bytes are limited to what was measured, so a run that saves none forbids them.

    \b
    Example:
      memprobe budget --recipe rowwise --layers 2 --headroom 10%
    """
    from ..budget import PROBE_NAME, parse_relative
    from ..orchestrate.gate import check_baseline_slot, write_budget
    from ..report import console as render

    cfg = config_from_options(kw)
    h = _headroom(headroom)
    try:
        parse_relative(relative)
    except ValueError:
        raise ConfigError(f"--relative takes a percentage like +5% (got {relative!r})") from None
    name = name or default_probe_name(cfg)
    if not PROBE_NAME.fullmatch(name):
        raise ConfigError(f"--name {name!r}: a probe name is one word (letters, digits, - and _)")
    refuse_existing(budget_path, force=force)
    baseline_path = budget_path.parent / "memprobe-baseline.json"
    check_baseline_slot(baseline_path, name, force=force)  # an invalid or taken one is refused before the run
    with render.progress_printer(enabled=not quiet) as progress:
        write_budget(
            cfg,
            name=name,
            headroom=h,
            headroom_text=headroom,
            relative=relative,
            budget_path=budget_path,
            baseline_path=baseline_path,
            progress=progress,
            verbose=verbose,
        )
    click.echo(f"wrote {budget_path} (probe {name!r}) and {baseline_path}; check it with: memprobe gate --budget {budget_path}")
