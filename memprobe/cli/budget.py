"""``memprobe budget``: run a configuration once and write a starter budget file for it, with headroom."""

from __future__ import annotations

import math

import click

from ..errors import ConfigError
from ..fields import shown
from .command import CommandAfterDashes, config_from_options_or_command
from .options import budget_file_option, config_options
from .output import refuse_existing
from .probes import ProbeOptions, probe_options


def _headroom(text: str) -> float:
    from ..units import decimal

    try:
        h = decimal(text.strip().removesuffix("%")) / 100
    except ValueError:
        h = math.nan
    if not 0 <= h <= 10:
        raise ConfigError(f"--headroom takes a percentage from 0% to 1000%, like 10% (got {shown(text)})")
    return h


def _relative(text: str) -> str:
    from ..budget import parse_relative

    try:
        parse_relative(text)
    except ValueError:
        raise ConfigError(f"--relative takes a percentage like +5% (got {shown(text)})") from None
    return text


def default_probe_name(cfg) -> str:
    """``ffn-rowwise``, ``transformer-bf16``, or the model file's name for ``--model``; a script's name alone (no
    recipe applies to it)."""
    return cfg.target.budget_probe_name(cfg.recipe)


@click.command(cls=CommandAfterDashes, short_help="Run once and write a starter budget file (memprobe.toml).")
@config_options
@click.option("--name", default=None, help="Probe name (default <repro or model file>-<recipe>, e.g. ffn-rowwise).")
@click.option("--headroom", default="10%", show_default=True, help="Headroom over the measured figures, e.g. 10%.")
@click.option(
    "--relative", default="+5%", show_default=True, help="Limit on saved_bytes relative to the baseline stored with it."
)
@budget_file_option("Where to write the budget file (refused if it exists, unless --force).")
@probe_options(
    out=None, force="Overwrite an existing budget file, and this probe's entry in the baseline.", jobs=False, json=None
)
def budget(name, headroom, relative, budget_path, probes: ProbeOptions, **kw) -> None:
    """Run a configuration once and write a starter budget file for it, with headroom.

    Writes memprobe.toml (one probe: its flags, limits on the graph-derived figures and on
    the measured peaks of this device) and adds this run's figures to memprobe-baseline.json
    beside it (for the relative limit; other probes' entries are kept). Weight-derived saved
    bytes are limited to what was measured, so a run that saves none forbids them.

    \b
    Example:
      memprobe budget --recipe rowwise --layers 2 --headroom 10%
    """
    from ..budget import PROBE_NAME, StarterBudget
    from ..orchestrate.gate import check_baseline_slot, write_budget

    cfg = config_from_options_or_command(kw)
    h = _headroom(headroom)
    _relative(relative)
    name = name or default_probe_name(cfg)
    if not PROBE_NAME.fullmatch(name):
        raise ConfigError(f"--name {name!r}: a probe name is one word (letters, digits, - and _)")
    refuse_existing(budget_path, force=probes.force)
    baseline_path = budget_path.parent / "memprobe-baseline.json"
    check_baseline_slot(baseline_path, name, force=probes.force)  # an invalid or taken one is refused before the run
    starter = StarterBudget(name, headroom=h, headroom_text=headroom, relative=relative)
    probes.run_probes(write_budget, cfg, starter, budget_path=budget_path, baseline_path=baseline_path)
    click.echo(f"wrote {budget_path} (probe {name!r}) and {baseline_path}; check it with: memprobe gate --budget {budget_path}")
