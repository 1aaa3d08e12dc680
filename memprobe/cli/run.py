"""``memprobe run``: build the repro, train a few steps, report what is saved for backward."""

from __future__ import annotations

import json
from pathlib import Path

import click

from repros.presets import PRESETS

from ..config import AC_MODES, RECIPE_ALIASES, RECIPES, REPROS, ProbeConfig
from ..errors import ConfigError
from ..policies import POLICIES


def config_options(f):
    """The probe configuration flags (shared by every verb that runs a probe)."""
    options = [
        click.option("--recipe", default="rowwise", show_default=True,
                     type=click.Choice(list(RECIPES) + list(RECIPE_ALIASES)),
                     help="Linear layers: bf16, or torchao float8 training with this scaling recipe (fp8 = rowwise)."),
        click.option("--repro", default="ffn", show_default=True, type=click.Choice(REPROS),
                     help="Which minimal repro to build: ffn (SwiGLU FFN blocks) or transformer (Llama-3-style blocks)."),
        click.option("--model", "model", default=None, metavar="MODULE_OR_FILE:FACTORY",
                     help="Probe your own model instead of a repro: FACTORY(device) returns (model, batch); "
                          "see docs/models.md. The dimension flags do not apply."),
        click.option("--blocks", default=None, metavar="ATTR",
                     help="Attribute path of the block container that gets SAC/compile/FSDP (default: the first "
                          "nn.ModuleList or nn.ModuleDict)."),
        click.option("--preset", default=None, type=click.Choice(list(PRESETS)),
                     help="Dimensions of a published model (dim, hidden, heads, kv-heads); explicit flags win. "
                          "Layers stay as given: estimate the full depth with `memprobe estimate`."),
        click.option("--dim", default=None, type=int, help="Model dimension.  [default: 512]"),
        click.option("--hidden", default=None, type=int, help="FFN hidden dimension.  [default: 2048]"),
        click.option("--heads", default=None, type=int, help="Attention heads (transformer).  [default: 8]"),
        click.option("--kv-heads", default=None, type=int, help="Key/value heads (transformer, grouped-query).  [default: 2]"),
        click.option("--layers", default=2, show_default=True, type=int, help="Number of blocks."),
        click.option("--batch", default=2, show_default=True, type=int, help="Batch size."),
        click.option("--seq", default=256, show_default=True, type=int, help="Sequence length."),
        click.option("--seed", default=0, show_default=True, type=int, help="Seed for weights and the batch."),
        click.option("--ac", default="op", show_default=True, type=click.Choice(AC_MODES),
                     help="Activation checkpointing per block: none, full, or op (per-op SAC)."),
        click.option("--ac-policy", default="torchtitan", show_default=True, type=click.Choice(list(POLICIES)),
                     help="Per-op SAC policy by name (see `memprobe policies`)."),
        click.option("--save-op", "save_ops", multiple=True, metavar="OP",
                     help="Add OP to the policy's save list (repeatable; aten.abs or torch.ops.aten.abs.default)."),
        click.option("--recompute-op", "recompute_ops", multiple=True, metavar="OP",
                     help="Remove OP from the save list: recompute it in backward (repeatable)."),
        click.option("--compile/--no-compile", default=True, show_default=True, help="torch.compile each block."),
        click.option("--fsdp/--no-fsdp", default=True, show_default=True,
                     help="FSDP2 per block and at the root (bf16 params, fp32 reduce). Without it the model is cast to bf16."),
        click.option("--reshard-after-forward/--no-reshard-after-forward", default=True, show_default=True,
                     help="FSDP2 frees unsharded parameters after forward."),
        click.option("--device", default="auto", show_default=True, type=click.Choice(["auto", "cpu", "cuda"]),
                     help="auto = cuda when a GPU is present, else cpu."),
        click.option("--steps", default=2, show_default=True, type=int,
                     help="Training steps: the first compiles (and creates the optimizer state), the last is measured."),
        click.option("--nproc", default=1, show_default=True, type=int,
                     help="Ranks on this node, launched through torchrun; FSDP shards over all of them "
                          "(gloo on CPU, NCCL on CUDA, one GPU per rank)."),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def config_from_options(kw: dict) -> ProbeConfig:
    """A validated config from the flags; unknown ops are caught here, before anything runs."""
    from ..policies import resolve_op

    dims = {k: getattr(ProbeConfig, k) for k in ("dim", "hidden", "heads", "kv_heads")}
    if kw.get("preset"):
        dims.update({k: v for k, v in PRESETS[kw["preset"]].items() if k in dims})
    dims.update({k: kw[k] for k in dims if kw.get(k) is not None})
    cfg = ProbeConfig(
        recipe=kw["recipe"], repro=kw["repro"], model=kw["model"], blocks=kw["blocks"], preset=kw["preset"],
        layers=kw["layers"], batch=kw["batch"], seq=kw["seq"], seed=kw["seed"], ac=kw["ac"], ac_policy=kw["ac_policy"],
        save_ops=tuple(kw["save_ops"]), recompute_ops=tuple(kw["recompute_ops"]), compile=kw["compile"],
        fsdp=kw["fsdp"], reshard_after_forward=kw["reshard_after_forward"], device=kw["device"], steps=kw["steps"],
        nproc=kw["nproc"], **dims,
    ).validated()
    for op in kw["save_ops"] + kw["recompute_ops"]:
        resolve_op(op)
    return cfg


def emit(result: dict, *, as_json: bool, as_markdown: bool = False, markdown=None, console=None) -> None:
    """Print a verb's result: JSON for machines, Markdown for a pull request, or the rich console view."""
    if as_json:
        click.echo(json.dumps(result, indent=1))
    elif as_markdown and markdown is not None:
        click.echo(markdown(result))
    elif console is not None:
        console()


def refuse_existing(*paths: Path | None, force: bool) -> None:
    """Output files named on the command line are not overwritten without --force (checked before running)."""
    from ..errors import RunDirError

    for p in paths:
        if p is not None and p.exists() and not force:
            raise RunDirError(f"{p} exists; pass --force to overwrite it")


def write_extras(path: Path, html_path: Path | None, trace_path: Path | None = None, announce: bool = True) -> None:
    """The HTML report and trace of a finished run or diff directory, if asked for."""
    from .report import write_html, write_trace

    if html_path is not None:
        write_html(path, html_path)
        if announce:
            click.echo(f"html report: {html_path}")
    if trace_path is not None:
        write_trace(path, trace_path)
        if announce:
            click.echo(f"trace: {trace_path}")


def output_options(f):
    for opt in reversed([
        click.option("--json", "as_json", is_flag=True, help="Print report.json to stdout instead of the summary."),
        click.option("--quiet", "-q", is_flag=True, help="No progress lines."),
        click.option("--verbose", is_flag=True, help="Let torch/torchao warnings and logs through."),
        click.option("--debug", is_flag=True, help="Show Python tracebacks on errors."),
    ]):
        f = opt(f)
    return f


@click.command(short_help="Run a repro or your model; report what is saved for backward, and why.")
@config_options
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Run directory (default memprobe-runs/<UTC time>-<recipe>). A non-empty one is refused unless --force.")
@click.option("--force", is_flag=True, help="Replace an existing run directory (only one memprobe wrote).")
@click.option("--analysis-only", is_flag=True,
              help="Trace and partition the graphs as Inductor would, but generate no kernels: the saved table "
                   "is the full run's, in a fraction of the time; no output code or simulated graph memory.")
@click.option("--nnodes", default=None, metavar="N|MIN:MAX", help="With --nproc: nodes, passed to torchrun.")
@click.option("--rdzv-endpoint", default=None, metavar="HOST:PORT",
              help="With --nproc on several nodes: where the ranks meet, passed to torchrun (c10d rendezvous).")
@click.option("--html", "html_path", type=click.Path(path_type=Path), default=None,
              help="Also write a self-contained HTML report here (see `memprobe report`).")
@click.option("--trace", "trace_path", type=click.Path(path_type=Path), default=None,
              help="Also write a Chrome/Perfetto trace JSON of the measured step here.")
@output_options
def run(out: Path | None, force: bool, analysis_only: bool, nnodes: str | None, rdzv_endpoint: str | None,
        html_path: Path | None, trace_path: Path | None, as_json: bool, quiet: bool, verbose: bool, debug: bool, **kw) -> None:
    """Run a repro (or your model) and report what its compiled forward saves for backward.

    \b
    Builds `layers` blocks (SwiGLU FFN by default, Llama-3-style transformer blocks with
    --repro transformer, or your model with --model), applies (in torchtitan's order)
    torchao float8, per-op SAC, per-block torch.compile and FSDP2, trains --steps steps
    (the first compiles), on --nproc ranks through torchrun if asked, and writes a run
    directory: report.json, the partitioned graphs and Inductor's output code. The summary ranks the saved-for-backward buffers, each
    traced to its op chain and parameter and to the SAC decision that saved it.

    \b
    Examples:
      memprobe run --recipe rowwise --ac-policy torchtitan-2025-01
      memprobe run --repro transformer --preset debug --nproc 2
      memprobe run --model mymodels.py:build --blocks encoder.layers
      memprobe run --recipe rowwise --ac-policy torchtitan-2025-01 --recompute-op aten.abs
      memprobe run --recipe bf16 --layers 4 --json > report.json
    """
    from ..capture.rundir import default_run_dir, prepare_run_dir
    from ..capture.runner import run_probe
    from ..report import console as render

    cfg = config_from_options(kw)
    if trace_path is not None and analysis_only:
        raise ConfigError("--trace needs a measured step; --analysis-only measures none")
    out = out if out is not None else default_run_dir(cfg.recipe)
    refuse_existing(html_path, trace_path, force=force)
    prepare_run_dir(out, force)
    progress = render.progress_printer(enabled=not quiet and not as_json)
    try:
        report = run_probe(cfg, out, progress=progress, verbose=verbose, analysis_only=analysis_only, nnodes=nnodes,
                           rdzv_endpoint=rdzv_endpoint)
    finally:
        progress.close()
    emit(report, as_json=as_json, console=lambda: render.print_run(report, out))
    write_extras(out, html_path, trace_path, announce=not as_json)
