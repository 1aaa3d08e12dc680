"""Hold `memprobe estimate` to measured deeper runs: estimate L blocks from a probe of k, compare with runs of L.

    python scripts/estimate_check.py PROBE_DIR MEASURED_DIR [MEASURED_DIR ...] --json out.json

Per measured run (its layers are the target), each component: estimated, measured, error. Components:
sharded state (parameters + optimizer state), weight-derived saved, saved activations (from the graphs: the
saved table is derived, per run), end of forward and step peak (measured), and the peak reserved (measured
only: the estimate does not model the allocator's caching).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memprobe.analysis.estimate import estimate  # noqa: E402
from memprobe.analysis.recorded import load_run  # noqa: E402
from memprobe.rundir import schema as S  # noqa: E402
from memprobe.rundir.load import dump  # noqa: E402


def measured(report: dict) -> dict:
    mem = report["memory"]
    pers = mem.get("persistent") or {}
    by_kind = (report.get("saved_totals") or {}).get("by_kind_bytes") or {}
    phases = mem["phases"]
    # the CPU profiler's figures are relative to the step start: add the persistent state, as the estimate does
    state = (
        0
        if mem.get("source") == "cuda-allocator"
        else (pers.get("parameters_bytes") or 0) + (pers.get("optimizer_state_bytes") or 0)
    )
    return {
        "sharded_state_bytes": (pers.get("parameters_bytes") or 0) + (pers.get("optimizer_state_bytes") or 0),
        "saved_weight_derived_bytes": by_kind.get("weight-derived", 0),
        "saved_activation_bytes": by_kind.get("activation", 0),
        "forward_end_bytes": phases["forward"]["end_bytes"] + state,
        "peak_bytes": max(p["peak_bytes"] for p in phases.values()) + state,
        "peak_reserved_bytes": max((p.get("peak_reserved_bytes") or 0) for p in phases.values()) or None,
    }


def compare(probe_dir: Path, target_dir: Path) -> dict:
    probe, target = load_run(probe_dir), dump(load_run(target_dir))
    layers = target["config"]["layers"]
    est = dump(estimate(probe, layers=layers, world=(target.get("distributed") or {}).get("world_size") or 1))
    c, t = est["components"]["target"], est["totals"]["target_estimated"]
    estimated = {
        "sharded_state_bytes": c["sharded_parameters_bytes"] + c["optimizer_state_bytes"],
        "saved_weight_derived_bytes": c["saved_weight_derived_bytes"],
        "saved_activation_bytes": c["saved_activation_bytes"],
        "forward_end_bytes": t["forward_end_bytes"],
        "peak_bytes": t["peak_bytes"],
        "peak_reserved_bytes": None,
    }
    got = measured(target)
    rows = {}
    for key in got:
        e, m = estimated[key], got[key]
        rows[key] = {"estimated": e, "measured": m, "error": None if e is None or not m else round((e - m) / m, 4)}
    return {
        "probe": str(probe_dir),
        "target": str(target_dir),
        "summary": est["probe"] | {"target_layers": layers},
        "config": target["config"]["repro"]
        + " "
        + (target["config"]["ac_policy"] if target["config"]["ac"] == "op" else target["config"]["ac"]),
        "components": rows,
    }


def recheck(probe_report: Path, earlier: list[dict]) -> list[dict]:
    """Re-estimate from a probe's report.json against the measured figures an earlier check recorded for the same
    configuration (the deeper runs need not be run again to check a change of the estimate)."""
    probe = json.loads(probe_report.read_text())
    label = probe["config"]["repro"] + " " + probe["config"]["ac_policy"]
    out = []
    for old in (e for e in earlier if e["config"] == label):
        layers = old["summary"]["target_layers"]
        est = dump(estimate(S.Report.model_validate(probe), layers=layers, world=1))
        c, t = est["components"]["target"], est["totals"]["target_estimated"]
        estimated = {
            "sharded_state_bytes": c["sharded_parameters_bytes"] + c["optimizer_state_bytes"],
            "saved_weight_derived_bytes": c["saved_weight_derived_bytes"],
            "saved_activation_bytes": c["saved_activation_bytes"],
            "forward_end_bytes": t["forward_end_bytes"],
            "peak_bytes": t["peak_bytes"],
            "peak_reserved_bytes": None,
        }
        rows = {
            k: {
                "estimated": estimated[k],
                "measured": v["measured"],
                "error": None
                if estimated[k] is None or not v["measured"]
                else round((estimated[k] - v["measured"]) / v["measured"], 4),
            }
            for k, v in old["components"].items()
        }
        out.append({**old, "probe": str(probe_report), "components": rows, "peak_in": t.get("peak_in")})
    return out


def _size(n: int | None) -> str:
    """GiB at a GPU's scale, bytes at a small CPU probe's (where a thousandth of a GiB says nothing)."""
    if n is None:
        return " " * 15
    return f"{n / 2**30:11.3f} GiB" if abs(n) >= 2**30 else f"{n:13,} B"


def _print(results: list[dict]) -> None:
    for r in results:
        print(f"{r['config']}: {r['summary']['layers']} blocks -> {r['summary']['target_layers']} blocks")
        for key, row in r["components"].items():
            err = f"{100 * row['error']:+.2f}%" if row["error"] is not None else "(not estimated)"
            print(f"  {key:<28} est {_size(row['estimated'])}  measured {_size(row['measured'])}  {err}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe", type=Path, help="a probe's run directory (or, with --against, its report.json)")
    ap.add_argument("measured", type=Path, nargs="*", help="run directories of the deeper runs")
    ap.add_argument("--against", type=Path, default=None, help="an earlier check's JSON: its measured figures")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    if a.against is not None:
        results = recheck(a.probe, json.loads(a.against.read_text()))
    else:
        results = [compare(a.probe, m) for m in a.measured]
    _print(results)
    if a.json:
        existing = json.loads(a.json.read_text()) if a.json.exists() else []
        a.json.write_text(json.dumps(existing + results, indent=1))


if __name__ == "__main__":
    main()
