"""``memprobe gate``: check probes against the limits of a budget file (exit 1 on a breach)."""

from __future__ import annotations

import os
from pathlib import Path

import click
from click.core import ParameterSource

from ..vocab import Verdict
from .options import budget_file_option
from .output import refuse_existing, table_options
from .probes import ProbeOptions, force_help, out_help, probe_options


@click.command(short_help="Check probes against the budget file; exit 1 on a breach.")
@budget_file_option("The budget file: the probes and their limits.")
@click.option("--probe", "probe_names", multiple=True, metavar="NAME", help="Check only these probes (repeatable).")
@click.option(
    "--from",
    "from_runs",
    multiple=True,
    metavar="[NAME=]RUN_DIR",
    help="Gate this finished run (matched by configuration, or named); an earlier gate's --out directory gives the "
    "run of each probe in it. With --from the gate runs nothing: a probe without a run gives no verdict.",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Baseline file for relative limits (default memprobe-baseline.json beside the budget file).",
)
@click.option(
    "--update-baseline",
    is_flag=True,
    help="Store this run's figures as the new baseline (with torch/torchao versions and device).",
)
@click.option(
    "--junit",
    "junit_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Write JUnit XML here (a JUnit file memprobe wrote is replaced; any other file only with --force).",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Write a self-contained HTML page of the verdicts here.",
)
@table_options
@probe_options(
    out=out_help("gate"),
    force=force_help(", and --junit/--html/--csv/--parquet files"),
    json="Print the verdicts as JSON.",
    markdown="Print the verdicts as Markdown.",
)
def gate(
    budget_path,
    probe_names,
    from_runs,
    baseline_path,
    update_baseline,
    junit_path,
    html_path,
    csv_path,
    parquet_path,
    probes: ProbeOptions,
) -> None:
    """Check the limits of a budget file: run each probe (or read finished runs) and compare with its limits.

    Exit codes: 0 every limit passes (or is skipped), 1 a limit is breached, 2 an invalid budget
    file, or a probe that gave no verdict (its run failed or never ran). Each probe runs in a
    fresh process; a probe that names code (command, model, hf_config) runs only from a budget
    file named with --budget, and with --from nothing runs. A breach names what caused it: the
    diff against the stored baseline when there is one, else the largest saved values. With
    $GITHUB_STEP_SUMMARY set, a Markdown summary is appended to it.

    \b
    Examples:
      memprobe gate                    # every probe in ./memprobe.toml
      memprobe gate --probe ffn-rowwise --junit gate.xml
      memprobe gate --from memprobe-runs/20261129T150000Z-rowwise
      memprobe gate --update-baseline  # on the main branch
    """
    from ..report.console.gate import print_gate_result
    from ..report.markdown import gate_markdown
    from ..report.pages import write_gate_outputs
    from ..rundir.write import memprobe_wrote
    from ..verbs import gate as check_gate
    from ..verbs import plan_gate

    named = click.get_current_context().get_parameter_source("budget_path") is not ParameterSource.DEFAULT
    plan = plan_gate(
        budget_path, probe_names, from_runs, named=named, baseline_path=baseline_path, update_baseline=update_baseline
    )
    refuse_existing(junit_path, force=probes.force, ours=memprobe_wrote)  # its own JUnit of an earlier run: replaced
    refuse_existing(html_path, csv_path, parquet_path, force=probes.force)
    result = probes.run_probes(check_gate, plan, configs=plan.configs())
    write_gate_outputs(
        result,
        junit=junit_path,
        html=html_path,
        csv=csv_path,
        parquet=parquet_path,
        step_summary=os.environ.get("GITHUB_STEP_SUMMARY"),
    )
    probes.emit(result, markdown=gate_markdown, console=lambda: print_gate_result(result))
    if result.counts.get(Verdict.FAIL):
        raise SystemExit(1)
