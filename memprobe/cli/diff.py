"""``memprobe diff A B``: rank what B keeps alive for backward that A does not."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ConfigError
from ..verbs import diff_side
from .options import (
    config_options,
    emit,
    output_options,
    refuse_existing,
    side_config,
    side_options,
    table_options,
    wide_option,
)


def resolve_side(label: str, value: str, extra: str | None, shared: dict):
    """A run directory (Path) or a validated config for a recipe side."""
    if extra and Path(value).is_dir():
        raise ConfigError(f"--{label} flags apply to a recipe side; {value} is a run directory")
    side = diff_side(label, value, shared)
    return side if isinstance(side, Path) else side_config(label, side, extra)


@click.command(short_help="Rank what B keeps alive for backward that A does not.")
@click.argument("a")
@click.argument("b")
@config_options
@side_options
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Directory for the runs (a/, b/) and diff.json (default memprobe-runs/<UTC time>-diff-A-vs-B when a side runs).",
)
@click.option("--force", is_flag=True, help="Replace an existing --out directory (only one memprobe wrote).")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown for a pull-request comment.")
@click.option(
    "--parallel",
    is_flag=True,
    help="Run the two sides at the same time, or fail saying why they cannot. On CUDA they do so whenever "
    "they can without it: one GPU each, or both on one GPU when they fit in its free memory "
    "(docs/time-to-answer.md). On the CPU one core each (on 2 cores it gained nothing, see bench/time_to_answer.py).",
)
@click.option(
    "--analysis-only",
    is_flag=True,
    help="Trace and partition both sides without generating kernels (see `memprobe run --analysis-only`): "
    "the ranked saved values in a fraction of the time, no measured phases.",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a self-contained HTML page: both runs on one axis and the ranked difference.",
)
@table_options
@wide_option
@output_options
def diff(
    a: str,
    b: str,
    a_flags,
    b_flags,
    a_env,
    b_env,
    a_python,
    b_python,
    out,
    force,
    as_markdown,
    parallel,
    analysis_only,
    html_path,
    csv_path,
    parquet_path,
    wide,
    as_json,
    quiet,
    verbose,
    **shared,
) -> None:
    """Run (or load) two configurations and rank what B keeps alive that A does not.

    \b
    A and B are each a recipe (bf16, tensorwise, rowwise, rowwise_with_gw_hp, fp8), run with
    the shared flags below, or a run directory written by `memprobe run` (loaded, not re-run).
    Each side that runs is a fresh process of its own, so nothing of one (allocator, compiled
    code, caches) is alive while the other is measured. Flags for one side only go in --a / --b;
    an environment for one side only in --a-env / --b-env, another Python in --a-python /
    --b-python. Saved values are matched by block, op, the parameters and inputs they are
    computed from, shape and dtype; values identical across layers are grouped.

    \b
    Examples:
      memprobe diff bf16 fp8 --ac-policy torchtitan-2025-01
      memprobe diff rowwise rowwise --b '--save-op aten.abs'
      memprobe diff rowwise rowwise --a '--ac-policy torchtitan-2025-01' --b '--ac-policy torchtitan'
      memprobe diff bf16 bf16 --b-env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
      memprobe diff rowwise rowwise --b-python ~/venvs/torch-nightly/bin/python
      memprobe diff memprobe-runs/run-a memprobe-runs/run-b --markdown
    """
    from ..orchestrate.diff import run_diff
    from ..orchestrate.process import side_env
    from ..report import console as render
    from ..report.markdown import diff_markdown

    sides = {"a": resolve_side("a", a, a_flags, shared), "b": resolve_side("b", b, b_flags, shared)}
    envs = {"a": side_env(a_env, a_python, "a"), "b": side_env(b_env, b_python, "b")}
    refuse_existing(html_path, csv_path, parquet_path, force=force)
    with render.progress_printer(enabled=not quiet and not (as_json or as_markdown)) as progress:
        result, out = run_diff(
            sides,
            envs,
            out=out,
            force=force,
            label=f"diff-{a}-vs-{b}".replace("/", "_"),
            parallel=parallel,
            analysis_only=analysis_only,
            progress=progress,
            verbose=verbose,
        )
    emit(
        result,
        as_json=as_json,
        as_markdown=as_markdown,
        markdown=diff_markdown,
        console=lambda: render.print_diff(result, out, wide=wide),
    )
    from ..report.tables import export

    export("diff", result, csv_path, parquet_path)
    if html_path is not None:
        from ..report.pages import write_diff_html

        write_diff_html(result, out, html_path)
        if not (as_json or as_markdown):
            click.echo(f"html report: {html_path}")
