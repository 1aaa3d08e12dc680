"""``memprobe diff A B``: rank what B keeps alive for backward that A does not."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from ..config import RECIPE_ALIASES, RECIPES
from ..errors import ConfigError
from .run import config_from_options, config_options, emit, output_options, refuse_existing


def _resolve_side(label: str, value: str, extra: str | None, shared: dict):
    """A run directory (Path) or a validated config for a recipe side."""
    path = Path(value)
    if path.is_dir():
        if extra:
            raise ConfigError(f"--{label} flags apply to a recipe side; {value} is a run directory")
        return path
    if value not in RECIPES and value not in RECIPE_ALIASES:
        choices = ", ".join(list(RECIPES) + list(RECIPE_ALIASES))
        raise ConfigError(f"side {label.upper()} {value!r} is neither a run directory nor a recipe ({choices})")
    from .run import run as run_command

    base = config_from_options({**shared, "recipe": value})
    if not extra:
        return base
    try:
        ctx = run_command.make_context("run", base.to_flags() + shlex.split(extra), resilient_parsing=False)
    except click.ClickException as e:
        raise ConfigError(f"--{label} {extra!r}: {e.format_message()}") from None
    return config_from_options(ctx.params)


@click.command(short_help="Rank what B keeps alive for backward that A does not.")
@click.argument("a")
@click.argument("b")
@config_options
@click.option("--a", "a_flags", metavar="FLAGS", default=None,
              help="Extra `memprobe run` flags for side A only, quoted: --a '--ac-policy torchtitan'.")
@click.option("--b", "b_flags", metavar="FLAGS", default=None,
              help="Extra `memprobe run` flags for side B only, quoted: --b '--save-op aten.abs'.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Directory for the runs (a/, b/) and diff.json (default memprobe-runs/<UTC time>-diff-A-vs-B when a side runs).")
@click.option("--force", is_flag=True, help="Replace an existing --out directory (only one memprobe wrote).")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown for a pull-request comment.")
@click.option("--parallel", is_flag=True,
              help="Run the two sides side by side in two processes, one core each (CPU runs only). On 2 cores it "
                   "gained nothing (bench/time_to_answer.py); with more cores than one run uses, it may.")
@click.option("--analysis-only", is_flag=True,
              help="Trace and partition both sides without generating kernels (see `memprobe run --analysis-only`): "
                   "the ranked saved values in a fraction of the time, no measured phases.")
@click.option("--html", "html_path", type=click.Path(path_type=Path), default=None,
              help="Also write a self-contained HTML page: both runs on one axis and the ranked difference.")
@output_options
def diff(a: str, b: str, a_flags, b_flags, out, force, as_markdown, parallel, analysis_only, html_path, as_json, quiet,
         verbose, debug, **shared) -> None:
    """Run (or load) two configurations and rank what B keeps alive that A does not.

    \b
    A and B are each a recipe (bf16, tensorwise, rowwise, rowwise_with_gw_hp, fp8), run with
    the shared flags below, or a run directory written by `memprobe run` (loaded, not re-run).
    Flags for one side only go in --a / --b. Saved values are matched by block, op chain
    with parameter names, shape and dtype; values identical across layers are grouped.

    \b
    Examples:
      memprobe diff bf16 fp8 --ac-policy torchtitan-2025-01
      memprobe diff rowwise rowwise --b '--save-op aten.abs'
      memprobe diff rowwise rowwise --a '--ac-policy torchtitan-2025-01' --b '--ac-policy torchtitan'
      memprobe diff memprobe-runs/run-a memprobe-runs/run-b --markdown
    """
    from ..analysis.diff import diff_reports
    from ..analysis.rundir import load_report
    from ..capture.rundir import atomic_write_json, default_run_dir, prepare_run_dir
    from ..capture.runner import resolve_device, run_probe
    from ..report import console as render
    from ..report.markdown import diff_markdown

    sides = {"a": _resolve_side("a", a, a_flags, shared), "b": _resolve_side("b", b, b_flags, shared)}
    refuse_existing(html_path, force=force)
    to_run = {k: v for k, v in sides.items() if not isinstance(v, Path)}
    if to_run or out is not None:
        out = out if out is not None else default_run_dir(f"diff-{a}-vs-{b}".replace("/", "_"))
        prepare_run_dir(out, force)
    reports = {}
    progress = render.progress_printer(enabled=not quiet and not (as_json or as_markdown))
    background = None
    if parallel and any(resolve_device(c.device).type != "cpu" for c in to_run.values()):
        raise ConfigError("--parallel is for CPU runs: two probes on one GPU would share its memory")
    if parallel and len(to_run) == 2 and all(c.nproc == 1 for c in to_run.values()):
        import torch
        import torch._inductor.config as inductor_config

        from ..capture.launch import BackgroundRun

        background = BackgroundRun(to_run["b"], out / "b", verbose=verbose, analysis_only=analysis_only)
        torch.set_num_threads(1)  # this process runs side A on the other core
        inductor_config.compile_threads = 1
        progress("[b] running in a second process, side by side with [a]")
    try:
        for key, side in sides.items():
            if isinstance(side, Path):
                reports[key] = load_report(side)
                progress(f"[{key}] loaded {side}")
            elif key == "b" and background is not None:
                progress("[b] waiting for the second process")
                reports[key] = background.wait()
                progress("[b] done")
            else:
                reports[key] = run_probe(side, out / key, progress=lambda m, k=key: progress(f"[{k}] {m}"), verbose=verbose,
                                         analysis_only=analysis_only)
    finally:
        if background is not None:
            background.cancel()
    result = diff_reports(reports["a"], reports["b"])
    result["a"]["source"] = str(sides["a"]) if isinstance(sides["a"], Path) else str(out / "a")
    result["b"]["source"] = str(sides["b"]) if isinstance(sides["b"], Path) else str(out / "b")
    if out is not None:
        atomic_write_json(out / "diff.json", result)
    emit(result, as_json=as_json, as_markdown=as_markdown, markdown=diff_markdown,
         console=lambda: render.print_diff(result, out))
    if html_path is not None:
        from ..capture.rundir import atomic_write_text
        from .report import diff_html

        atomic_write_text(html_path, diff_html(result, out))
        if not (as_json or as_markdown):
            click.echo(f"html report: {html_path}")
