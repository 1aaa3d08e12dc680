"""``memprobe bisect A B``: the minimal configuration in which B still exceeds A."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ConfigError
from ..orchestrate.bisect import DEFAULT_MIN_DELTA
from .command import two_sides
from .options import config_options
from .probes import ProbeOptions, force_help, json_help, out_help, probe_options
from .sides import SIDE_NAMED, SIDE_NAMED_BECAUSE, SideOptions, side_options


@click.command(short_help="Find the features a regression needs, and a minimal configuration.")
@click.argument("a", required=False)
@click.argument("b", required=False)
@config_options(leave_out=SIDE_NAMED, because=SIDE_NAMED_BECAUSE)
@side_options
@click.option(
    "--min-delta",
    default=DEFAULT_MIN_DELTA,
    show_default=True,
    help="How much more than A B must hold to still show the regression: a share of the gap as given (25%) or a size (1 MiB).",
)
@probe_options(out=out_help("bisect"), force=force_help(), json=json_help("bisect.json"), markdown="Print Markdown.")
def bisect(a, b, sides: SideOptions, min_delta, probes: ProbeOptions, **shared) -> None:
    """Find the minimal configuration in which B still exceeds A, and which features it needs.

    First each feature alone is removed from both sides as given (more than one layer, FSDP,
    torch.compile, aten.abs in the save list, op-level SAC; rowwise scaling becomes
    tensorwise on B): a feature is necessary when B then no longer holds --min-delta more
    than A at the end of forward (measured; by default a quarter of the gap as given, so
    that a smaller effect of something else, float8's own scales say, is not taken for
    the regression). Then the unnecessary features are removed together, one after
    another, down to a minimal configuration. Every configuration is a
    probe in a fresh process; compiled ones run analysis-only (graphs traced and partitioned,
    no kernels generated), eager ones as they are. Every configuration tried is listed with
    its delta, then the conclusion.

    \b
    Example:
      memprobe bisect bf16 fp8 --ac-policy torchtitan-2025-01
    """
    from ..orchestrate.bisect import MinDelta, run_bisect
    from ..report.console.bisect import print_bisect
    from ..report.markdown import bisect_markdown

    a, b = two_sides("bisect", a, b, "a recipe each, with its flags)")
    try:
        min_delta = MinDelta.parse(min_delta)
    except ValueError as e:
        raise ConfigError(f"--min-delta: {e}") from None
    cfg_a, cfg_b = sides.resolve(a, b, shared).values()
    if isinstance(cfg_a, Path) or isinstance(cfg_b, Path):
        raise ConfigError("bisect runs configurations: give recipes (with flags), not run directories")
    result, out = probes.run_probes(run_bisect, cfg_a, cfg_b, configs=[cfg_a, cfg_b], envs=sides.envs(), min_delta=min_delta)
    probes.emit(result, markdown=bisect_markdown, console=lambda: print_bisect(result, out))
