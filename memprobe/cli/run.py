"""``memprobe run``: build the repro, train a few steps, report what is saved for backward."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ConfigError
from .command import CommandAfterDashes, config_from_options_or_command
from .options import config_options
from .output import refuse_existing, table_options, wide_option
from .probes import ProbeOptions, json_help, probe_options


def write_extras(path: Path, html_path: Path | None, trace_path: Path | None, *, say) -> None:
    """The HTML report and trace of a finished run or diff directory, if asked for."""
    from ..report.pages import write_html, write_trace

    if html_path is not None:
        write_html(path, html_path)
        say(f"html report: {html_path}")
    if trace_path is not None:
        write_trace(path, trace_path)
        say(f"trace: {trace_path}")


def _run_here(cfg, out: Path, *, force: bool, python: str | None = None, **kw):
    """The probe forked from a running `memprobe serve` (one rank: torch is imported there already), or else in this
    process, whatever the model prints going to stderr; with ``--python``, in a process of that interpreter; then what
    it recorded, analysed."""
    from ..rundir.write import prepare_run_dir
    from ..verbs import refusal_leaves_no_run_dir, run_probe, run_probe_forked, run_probe_in_child

    if python is not None:
        return run_probe_in_child(
            cfg, out, force=force, analysis_only=kw["analysis_only"], progress=kw["progress"], python=python
        )

    if cfg.nproc == 1 and not cfg.target.starts_own_interpreter:
        report = run_probe_forked(cfg, out, force=force, **kw)
        if report is not None:
            return report
    from ..compat.quiet import model_output_to_stderr

    with refusal_leaves_no_run_dir(out):
        prepare_run_dir(out, force)
        with model_output_to_stderr():
            return run_probe(cfg, out, **kw)


@click.command(cls=CommandAfterDashes, short_help="Run a repro, your model or your script; report what is saved, and why.")
@config_options
@click.option(
    "--analysis-only",
    is_flag=True,
    help="Trace and partition the graphs as Inductor would, but generate no kernels: the saved table "
    "is the full run's, in a fraction of the time; no output code or simulated graph memory.",
)
@click.option("--nnodes", default=None, metavar="N|MIN:MAX", help="With --nproc: nodes, passed to torchrun.")
@click.option(
    "--rdzv-endpoint",
    default=None,
    metavar="HOST:PORT",
    help="With --nproc on several nodes: where the ranks meet, passed to torchrun (c10d rendezvous).",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a self-contained HTML report here (see `memprobe report`).",
)
@click.option(
    "--trace",
    "trace_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a Chrome/Perfetto trace JSON of the measured step here.",
)
@table_options
@wide_option
@probe_options(
    out="Run directory (default memprobe-runs/<UTC time>-<recipe>). A non-empty one is refused unless --force.",
    force="Replace an existing run directory (only one memprobe wrote).",
    json=json_help("report.json"),
    jobs=False,
    python=True,
)
def run(
    analysis_only: bool,
    nnodes: str | None,
    rdzv_endpoint: str | None,
    html_path: Path | None,
    trace_path: Path | None,
    csv_path: Path | None,
    parquet_path: Path | None,
    wide: bool,
    probes: ProbeOptions,
    **kw,
) -> None:
    """Run a repro, your model or your own training script, and report what it saves for backward.

    Builds `layers` blocks (SwiGLU FFN by default, Llama-3-style transformer blocks with
    --repro transformer, or your model with --model), applies (in torchtitan's order)
    torchao float8, per-op SAC, per-block torch.compile and FSDP2, trains --steps steps
    (the first compiles), on --nproc ranks through torchrun if asked, and writes a run
    directory: report.json, the partitioned graphs and Inductor's output code. The summary
    ranks the saved-for-backward buffers, each traced to its op chain and parameter and to
    the SAC decision that saved it.

    After `--`, your unmodified training script runs instead (its model, data, optimizer
    and torch.compile calls as it has them): memprobe records its graphs and memory and
    measures the last of --steps optimizer steps, then stops it.

    \b
    Examples:
      memprobe run --recipe rowwise --ac-policy torchtitan-2025-01
      memprobe run --repro transformer --preset debug --nproc 2
      memprobe run --model mymodels.py:build --blocks encoder.layers
      memprobe run --recipe rowwise --ac-policy torchtitan-2025-01 \\
                   --recompute-op aten.abs
      memprobe run --recipe bf16 --layers 4 --json > report.json
      memprobe run --steps 3 -- python train.py --lr 3e-4
    """
    from ..report.console.run import print_run
    from ..report.tables import export
    from ..rundir.write import check_out_dir, default_run_dir

    cfg = config_from_options_or_command(kw)
    if trace_path is not None and analysis_only:
        raise ConfigError("--trace needs a measured step; --analysis-only measures none")
    if cfg.nproc == 1 and (nnodes or rdzv_endpoint):  # they are torchrun's, which runs only for several ranks
        raise ConfigError("--nnodes and --rdzv-endpoint apply with --nproc N (ranks through torchrun); one process runs here")
    if probes.python is not None and cfg.nproc > 1:
        raise ConfigError("--python runs one probe process with that interpreter; with --nproc, run memprobe there")
    out = probes.out if probes.out is not None else default_run_dir(cfg.target.run_dir_name(cfg.recipe))
    refuse_existing(html_path, trace_path, csv_path, parquet_path, force=probes.force)
    check_out_dir(out, probes.force)
    kw = {"force": probes.force, "analysis_only": analysis_only, "nnodes": nnodes, "rdzv_endpoint": rdzv_endpoint}
    if probes.python is not None:
        kw["python"] = probes.python
    report = probes.call(_run_here, cfg, out, **kw)
    probes.emit(report, console=lambda: print_run(report, out, wide=wide))
    write_extras(out, html_path, trace_path, say=probes.say)
    export("run", report, csv_path, parquet_path)
