"""``memprobe explain``: which SAC policy edit frees the most memory for the least recompute."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from .run import config_from_options, config_options, emit, output_options


def _summary(report: dict, run_dir: Path) -> dict:
    from ..analysis.recompute import recompute_cost
    from ..analysis.rundir import graph_pairs

    return {
        "saved_bytes": (report.get("saved_totals") or {}).get("graph_bytes"),
        "recompute": recompute_cost(graph_pairs(run_dir, report), report.get("invocations") or []),
    }


def explain_runs(base: dict, base_dir: Path, variants: dict[str, tuple[dict, Path]]) -> dict:
    """Rank policy edits (one op moved to recompute each) by bytes saved per added FLOP."""
    from ..analysis.diff import diff_reports

    b = _summary(base, base_dir)
    edits = []
    for op, (report, run_dir) in variants.items():
        v = _summary(report, run_dir)
        saved = (b["saved_bytes"] or 0) - (v["saved_bytes"] or 0)
        flops = v["recompute"]["flops"] - b["recompute"]["flops"]
        moved = v["recompute"]["bytes_moved"] - b["recompute"]["bytes_moved"]
        d = diff_reports(base, report)
        edits.append({
            "op": op,
            "edit": f"remove torch.ops.{op} from the SAC save list",
            "flag": f"--recompute-op {op}",
            "bytes_saved": saved,
            "recompute_flops_added": flops,
            "recompute_bytes_added": moved,
            "bytes_saved_per_flop": saved / max(flops, 1),
            "freed": [{k: it[k] for k in ("expr", "count", "kind", "bytes_a", "bytes_b", "delta_bytes")}
                      for it in d["items"] if it["status"] in ("only_a", "shrunk")],
            "added": [{k: it[k] for k in ("expr", "count", "kind", "bytes_a", "bytes_b", "delta_bytes")}
                      for it in d["items"] if it["status"] in ("only_b", "grown")],
            "run": str(run_dir),
        })
    edits.sort(key=lambda e: (-(e["bytes_saved"] > 0), -e["bytes_saved_per_flop"], -e["bytes_saved"]))
    partitioner = [
        {"expr": r["expr"], "block": r["block"], "bytes": r["bytes"], "op": r["op"],
         "fate": (f"saved by the min-cut partitioner: recomputing {r['op']} in backward would cost more than keeping it; "
                  f"it changes if its inputs are saved instead (--save-op on their producer) or if the value itself "
                  f"is made MUST_SAVE/recomputable by the policy (--save-op aten.{r['op']})")}
        for r in base.get("saved_tensors") or [] if r["reason_kind"] == "partitioner"
    ]
    return {"base": {"config": base["config"], **b, "run": str(base_dir)}, "edits": edits, "partitioner_items": partitioner}


def candidate_ops(report: dict) -> list[str]:
    """Save-list ops that really saved something in this run."""
    policy = report.get("policy") or {}
    used = {op for op, d in (report.get("policy_decisions") or {}).items() if d.get("MUST_SAVE")}
    rows = report.get("saved_tensors") or []
    named = {r["policy_op"] for r in rows if r.get("policy_op")}
    return [op for op in policy.get("save_ops") or [] if op in used or op in named]


@click.command(short_help="Rank SAC policy edits by memory freed per added recompute.")
@click.argument("run_dir", required=False, type=click.Path(path_type=Path))
@config_options
@click.option("--full", is_flag=True, help="Generate kernels for every run (default: analysis-only, the same saved table, faster).")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Where the runs go (default memprobe-runs/<UTC time>-explain).")
@click.option("--force", is_flag=True, help="Replace an existing --out directory (only one memprobe wrote).")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown.")
@output_options
def explain(run_dir, full, out, force, as_markdown, as_json, quiet, verbose, debug, **kw) -> None:
    """For each op the SAC policy saves, re-partition with it recomputed and rank the edits.

    \b
    Reports, per candidate edit, the bytes it frees per step, the recompute it adds in
    backward (FLOPs and bytes moved, estimated from the graphs' shapes) and the ratio, and
    prints the concrete edit. Saved values the partitioner chose on its own are listed with
    what would change their fate. RUN_DIR takes a finished run as the base; otherwise the
    configuration flags say what to run.

    \b
    Example:
      memprobe explain --recipe rowwise --ac-policy torchtitan-2025-01
    """
    from ..analysis.rundir import load_report
    from ..capture.rundir import atomic_write_json, default_run_dir, prepare_run_dir
    from ..capture.runner import run_probe
    from ..config import ProbeConfig
    from ..errors import ConfigError
    from ..report import console as render

    progress = render.progress_printer(enabled=not quiet and not (as_json or as_markdown))
    out = out or default_run_dir("explain")
    prepare_run_dir(out, force)
    analysis_only = not full
    if run_dir is not None:
        base = load_report(run_dir)
        base_dir = Path(run_dir)
        cfg = ProbeConfig.from_dict(base["config"]).validated()
    else:
        cfg = config_from_options(kw)
        base_dir = out / "base"
        base = run_probe(cfg, base_dir, progress=lambda m: progress(f"[base] {m}"), verbose=verbose, analysis_only=analysis_only)
    if cfg.ac != "op":
        raise ConfigError("explain edits a per-op SAC policy: the configuration needs --ac op")
    variants = {}
    for op in candidate_ops(base):
        edited = replace(cfg, recompute_ops=cfg.recompute_ops + (op,))
        d = out / f"recompute-{op.replace('.', '-')}"
        variants[op] = (run_probe(edited, d, progress=lambda m, o=op: progress(f"[{o}] {m}"), verbose=verbose,
                                  analysis_only=analysis_only), d)
    result = explain_runs(base, base_dir, variants)
    result["mode"] = "analysis-only" if analysis_only else "full"
    atomic_write_json(out / "explain.json", result)
    from ..report.markdown import explain_markdown

    emit(result, as_json=as_json, as_markdown=as_markdown, markdown=explain_markdown,
         console=lambda: render.print_explain(result, out))
