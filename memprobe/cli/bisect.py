"""``memprobe bisect A B``: the minimal configuration in which B still exceeds A."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from ..errors import ConfigError
from .diff import _resolve_side
from .run import config_options, emit, output_options

# (feature, what removing it does to a config, applies to A too, applicable?)
FEATURES = (
    ("more than one layer", lambda c: replace(c, layers=1), True, lambda a, b: b.layers > 1 and b.model is None),
    ("FSDP", lambda c: replace(c, fsdp=False), True, lambda a, b: b.fsdp),
    ("torch.compile", lambda c: replace(c, compile=False), True, lambda a, b: b.compile),
    ("aten.abs in the SAC save list", lambda c: replace(c, recompute_ops=c.recompute_ops + ("aten.abs.default",)), True,
     lambda a, b: b.ac == "op" and "aten.abs.default" in b.policy().save_ops),
    ("op-level SAC", lambda c: replace(c, ac="none"), True, lambda a, b: b.ac == "op"),
    ("rowwise scaling", lambda c: replace(c, recipe="tensorwise"), False, lambda a, b: b.recipe.startswith("rowwise")),
)


def held_after_forward(report: dict) -> int:
    """The metric: bytes held at the end of forward (measured): what the step keeps for backward."""
    return report["memory"]["phases"]["forward"]["end_bytes"]


@click.command(short_help="Find the features a regression needs, and a minimal configuration.")
@click.argument("a")
@click.argument("b")
@config_options
@click.option("--a", "a_flags", metavar="FLAGS", default=None, help="Extra `memprobe run` flags for side A only.")
@click.option("--b", "b_flags", metavar="FLAGS", default=None, help="Extra `memprobe run` flags for side B only.")
@click.option("--min-delta", default="1 MiB", show_default=True, help="B must exceed A by at least this much.")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Where the runs go (default memprobe-runs/<UTC time>-bisect).")
@click.option("--force", is_flag=True, help="Replace an existing --out directory (only one memprobe wrote).")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown.")
@output_options
def bisect(a, b, a_flags, b_flags, min_delta, out, force, as_markdown, as_json, quiet, verbose, debug, **shared) -> None:
    """Find the minimal configuration in which B still exceeds A, and which features it needs.

    \b
    First each feature alone is removed from both sides as given (more than one layer, FSDP,
    torch.compile, aten.abs in the save list, op-level SAC; rowwise scaling becomes
    tensorwise on B): a feature is necessary when B then no longer holds --min-delta more
    than A at the end of forward (measured). Then the unnecessary features are removed
    together, one after another, down to a minimal configuration. Compiled configurations run
    analysis-only (graphs traced and partitioned, no kernels generated); eager ones run as
    they are. Every configuration tried is listed with its delta, then the conclusion.

    \b
    Example:
      memprobe bisect bf16 fp8 --ac-policy torchtitan-2025-01
    """
    from ..budget import parse_size
    from ..capture.rundir import atomic_write_json, default_run_dir, prepare_run_dir
    from ..capture.runner import run_probe
    from ..report import console as render
    from ..units import fmt_bytes

    try:
        threshold = parse_size(min_delta)
    except ValueError as e:
        raise ConfigError(f"--min-delta: {e}") from None
    if shared["steps"] == 3:  # the default: two steps are enough for the metric
        shared = {**shared, "steps": 2}
    cfg_a, cfg_b = _resolve_side("a", a, a_flags, shared), _resolve_side("b", b, b_flags, shared)
    if isinstance(cfg_a, Path) or isinstance(cfg_b, Path):
        raise ConfigError("bisect runs configurations: give recipes (with flags), not run directories")
    out = out or default_run_dir("bisect")
    prepare_run_dir(out, force)
    progress = render.progress_printer(enabled=not quiet and not (as_json or as_markdown))
    cache: dict = {}

    def measure(cfg, label: str) -> dict:
        if cfg not in cache:
            d = out / f"run{len(cache)}"
            report = run_probe(cfg.validated(), d, verbose=verbose, analysis_only=cfg.compile, measure=True,
                               progress=lambda m: progress(f"[{label}] {m}") if m.startswith("building") else None)
            cache[cfg] = {"run": str(d), "held_bytes": held_after_forward(report), "mode": report["mode"],
                          "saved_bytes": (report.get("saved_totals") or {}).get("graph_bytes")}
        return cache[cfg]

    def trial(label: str, ca, cb) -> dict:
        ra, rb = measure(ca, f"{label} / A"), measure(cb, f"{label} / B")
        delta = rb["held_bytes"] - ra["held_bytes"]
        row = {"removed": label, "a": ca.summary(), "b": cb.summary(), "held_a": ra["held_bytes"], "held_b": rb["held_bytes"],
               "delta_bytes": delta, "exceeds": delta >= threshold, "runs": [ra["run"], rb["run"]],
               "modes": [ra["mode"], rb["mode"]]}
        progress(f"{label}: B - A = {fmt_bytes(delta)} ({'still exceeds' if row['exceeds'] else 'below'} {fmt_bytes(threshold)})")
        return row

    base_a, base_b = cfg_a, cfg_b
    trials = [trial("nothing (as given)", cfg_a, cfg_b)]
    trials[0]["pass"] = "given"
    necessary, unnecessary, not_applicable = [], [], []

    def removed(name, remove, both, ca, cb):
        ca, cb = (remove(ca) if both else ca), remove(cb)
        return ca.validated(), cb.validated()

    if trials[0]["exceeds"]:
        # 1. each feature alone, removed from the configuration as given: is it necessary there?
        for name, remove, both, applies in FEATURES:
            if not applies(base_a, base_b):
                not_applicable.append(name)
                continue
            row = trial(name, *removed(name, remove, both, base_a, base_b))
            row["pass"] = "single"
            trials.append(row)
            (unnecessary if row["exceeds"] else necessary).append(name)
        # 2. the unnecessary ones removed together, one after another: a minimal configuration
        for name, remove, both, _ in FEATURES:
            if name not in unnecessary:
                continue
            ca, cb = removed(name, remove, both, cfg_a, cfg_b)
            row = trial(f"+ {name}", ca, cb)
            row["pass"] = "cumulative"
            trials.append(row)
            if row["exceeds"]:
                cfg_a, cfg_b = ca, cb
    if not trials[0]["exceeds"]:
        conclusion = f"B does not exceed A by {fmt_bytes(threshold)} at the end of forward ({fmt_bytes(trials[0]['delta_bytes'])}): nothing to bisect."
    else:
        conclusion = (f"In the configuration as given, B holds at least {fmt_bytes(threshold)} more than A after forward only with "
                      f"{', '.join(necessary) or 'none of the features tried'} (removing any one of them removes it); "
                      f"it does not need {', '.join(unnecessary) or 'any feature that could be removed'}.")
    result = {"threshold_bytes": threshold, "metric": "bytes held at the end of forward (measured)",
              "trials": trials, "necessary": necessary, "unnecessary": unnecessary, "not_applicable": not_applicable,
              "minimal": {"a": cfg_a.summary(), "b": cfg_b.summary(), "a_flags": cfg_a.to_flags(), "b_flags": cfg_b.to_flags()},
              "conclusion": conclusion}
    atomic_write_json(out / "bisect.json", result)
    from ..report.markdown import bisect_markdown

    emit(result, as_json=as_json, as_markdown=as_markdown, markdown=bisect_markdown,
         console=lambda: render.print_bisect(result, out))
