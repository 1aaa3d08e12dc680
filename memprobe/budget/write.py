"""A starter budget file for one probe (``memprobe budget``): its configuration and limits with headroom over what one
run measured."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import ProbeConfig
from ..rundir import schema as S
from .figures import figures
from .toml import toml_key, toml_value


def size_text(n: int, headroom: float) -> str:
    """Bytes with headroom, rounded up to 0.01 MiB, as a budget-file size."""
    import math

    mib = math.ceil(n * (1 + headroom) / 1024**2 * 100) / 100
    return f"{mib:.2f} MiB"


@dataclass(frozen=True)
class StarterBudget:
    """What a starter budget says besides one run's figures (``memprobe budget``'s options)."""

    name: str  # the probe's name: one word of letters, digits, - and _
    headroom: float  # over the measured figures, a share (0.1: 10%)
    headroom_text: str  # the headroom as the user gave it ("10%"), said in the file's header
    relative: str  # the limit on saved_bytes relative to the baseline ("+5%")


def budget_text(starter: StarterBudget, cfg: ProbeConfig, report: S.Report) -> str:
    """A starter memprobe.toml for one probe: its flags, and limits with headroom over this run's figures."""
    name, headroom, headroom_text, relative = starter.name, starter.headroom, starter.headroom_text, starter.relative
    figs = figures(report)
    device = report.device.type
    v = report.versions
    defaults = ProbeConfig().to_dict()
    t = ("probes", name)
    header = ".".join(toml_key(k) for k in t)
    lines = [
        f"# memprobe budget, written by `memprobe budget` from a {device} run",
        f"# ({v.device_name}, torch {v.torch}, torchao {v.torchao})",
        f"# with {headroom_text} headroom over the measured figures. Reference: docs/gate.md",
        "",
        f"[{header}]",
    ]
    for key, value in cfg.to_dict().items():
        if value != defaults[key] or (key == "recipe" and cfg.target.states_recipe):
            lines.append(f"{key} = {toml_value(value)}")
    lines += ["", f"[{header}.limits]", f"saved_bytes = {toml_value(size_text(figs['saved_bytes'], headroom))}"]
    wd = figs["weight_derived_saved_bytes"] or 0
    lines.append(
        "weight_derived_saved_bytes = 0  # none measured: forbid them"
        if wd == 0
        else f"weight_derived_saved_bytes = {toml_value(size_text(wd, headroom))}"
    )
    if figs["graph_peak_bytes"] is not None:
        lines.append(f"graph_peak_bytes = {toml_value(size_text(figs['graph_peak_bytes'], headroom))}")
    lines += ["", f"[{header}.limits.{device}]"]
    for metric in ("forward_peak_bytes", "backward_peak_bytes", "optimizer_peak_bytes"):
        if figs.get(metric) is not None:
            lines.append(f"{metric} = {toml_value(size_text(figs[metric], headroom))}")
    lines += ["", f"[{header}.limits.baseline]", f"saved_bytes = {toml_value(relative)}", ""]
    return "\n".join(lines)
