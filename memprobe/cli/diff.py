"""``memprobe diff A B``: rank what B keeps alive for backward that A does not."""

from __future__ import annotations

from pathlib import Path

import click

from .command import CommandAfterDashes, command_after_dashes, two_sides
from .options import config_options
from .output import refuse_existing, table_options, wide_option
from .probes import ProbeOptions, json_help, probe_options
from .sides import SIDE_NAMED, SIDE_NAMED_BECAUSE, SideOptions, side_options
from .snapshots import diff_snapshot_files, is_snapshot_file


@click.command(cls=CommandAfterDashes, short_help="Rank what B keeps alive for backward that A does not.")
@click.argument("a", required=False)
@click.argument("b", required=False)
@config_options(leave_out=SIDE_NAMED, because=SIDE_NAMED_BECAUSE)
@side_options
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
@probe_options(
    out="Directory for the runs (a/, b/) and diff.json (default memprobe-runs/<UTC time>-diff-A-vs-B when a side runs).",
    force="Replace an existing --out directory (only one memprobe wrote).",
    json=json_help("diff.json"),
    jobs=False,
    markdown="Print Markdown for a pull-request comment.",
)
def diff(
    a: str | None,
    b: str | None,
    sides: SideOptions,
    parallel,
    analysis_only,
    html_path,
    csv_path,
    parquet_path,
    wide,
    probes: ProbeOptions,
    **shared,
) -> None:
    """Run (or load) two configurations and rank what B keeps alive that A does not.

    A and B are each a recipe (bf16, tensorwise, rowwise, rowwise_with_gw_hp, fp8), run with
    the shared flags below, or a run directory written by `memprobe run` (loaded, not re-run);
    or both are CUDA memory snapshots taken elsewhere (files, torch.cuda.memory._dump_snapshot):
    what B holds at the peak of its history that A does not, ranked by bytes (nothing runs).
    After `--`, both sides run your own training script instead (no A or B), told apart by
    --a-env/--b-env and --a-python/--b-python (another torch, in a virtualenv without memprobe).
    Each side that runs is a fresh process of its own, so nothing of one (allocator, compiled
    code, caches) is alive while the other is measured. Flags for one side only go in --a / --b;
    an environment for one side only in --a-env / --b-env, another Python in --a-python /
    --b-python. Saved values are matched by block, op, the parameters and inputs they are
    computed from, shape and dtype; values identical across layers are grouped.

    \b
    Examples:
      memprobe diff bf16 fp8 --ac-policy torchtitan-2025-01
      memprobe diff rowwise rowwise --b '--save-op aten.abs'
      memprobe diff rowwise rowwise --a '--ac-policy torchtitan-2025-01' \\
                                    --b '--ac-policy torchtitan'
      memprobe diff bf16 bf16 \\
        --b-env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
      memprobe diff rowwise rowwise --b-python ~/venvs/torch-nightly/bin/python
      memprobe diff memprobe-runs/run-a memprobe-runs/run-b --markdown
      memprobe diff a.pickle b.pickle
      memprobe diff --b-python ~/venvs/torch-next/bin/python -- python train.py
    """
    from ..orchestrate.diff import run_diff

    command = command_after_dashes()
    a, b = (a, b) if command else two_sides("diff", a, b, "a recipe, a run directory or a snapshot each), or a command after --")
    outputs = {"html": html_path, "csv": csv_path, "parquet": parquet_path}
    if not command and (is_snapshot_file(a) or is_snapshot_file(b)):
        return _diff_snapshots(a, b, sides, parallel, analysis_only, outputs, wide, probes, shared)
    resolved = sides.resolve_script(a, b, shared, command) if command else sides.resolve(a, b, shared)
    envs = sides.envs()
    label = f"diff-{resolved['a'].target.short_name()}" if command else f"diff-{a}-vs-{b}".replace("/", "_")
    refuse_existing(html_path, csv_path, parquet_path, force=probes.force)
    result, out = probes.run_probes(run_diff, resolved, envs, label=label, parallel=parallel, analysis_only=analysis_only)
    _emit(result, out, probes, outputs, wide)


def _emit(result, out, probes, outputs: dict, wide: bool) -> None:
    """The diff said (the console's view, --json or --markdown) and written where asked: its table, its page. (Its
    renderers are imported here, once the sides have run: a served diff's probes start without waiting for them.)"""
    from ..report.console.diff import print_diff
    from ..report.markdown import diff_markdown
    from ..report.pages import write_diff_html
    from ..report.tables import export

    probes.emit(result, markdown=diff_markdown, console=lambda: print_diff(result, out, wide=wide))
    export("diff", result, outputs["csv"], outputs["parquet"])
    if outputs["html"] is not None:
        write_diff_html(result, out, outputs["html"])
        probes.say(f"html report: {outputs['html']}")


def _diff_snapshots(a, b, sides: SideOptions, parallel, analysis_only, outputs: dict, wide, probes, shared) -> None:
    """Two snapshots taken elsewhere: read, nothing run; the flags that configure a side that runs are refused."""
    given = {"--a/--b/--a-env/--b-env/--a-python/--b-python": sides.given(), "--parallel": parallel}
    given |= {"--analysis-only": analysis_only, "--out": probes.out is not None}
    diff_snapshot_files(a, b, given=given, shared=shared, probes=probes, outputs=outputs, wide=wide)
