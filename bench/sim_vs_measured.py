"""Accuracy: the output-code simulator's forward-graph peak against the CUDA allocator.

For every forward call of a compiled graph in the measured step, the allocator's
peak increase across the call (max_memory_allocated - memory_allocated before, with
the peak statistic reset just before the call) is compared with the peak the
simulator derives from that graph's output code (graph inputs apart).

    python bench/sim_vs_measured.py --dim 4096 --hidden 14336 --layers 2 --batch 1 --seq 8192

Needs a CUDA GPU. Prints a table and writes bench-sim-vs-measured.json (or --json-out).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recipe", default="rowwise")
    ap.add_argument("--repro", default="ffn", choices=["ffn", "transformer"])
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--ac-policy", default="torchtitan-2025-01")
    ap.add_argument("--dim", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=14336)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--json-out", default="bench-sim-vs-measured.json")
    args = ap.parse_args()

    from memprobe.analysis.recorded import whole_config
    from memprobe.capture.runner import run_probe
    from memprobe.config import ProbeConfig
    from memprobe.orchestrate.finish import finish_run
    from memprobe.rundir.load import dump
    from memprobe.units import fmt_bytes

    cfg = ProbeConfig(
        recipe=args.recipe,
        repro=args.repro,
        ac_policy=args.ac_policy,
        dim=args.dim,
        hidden=args.hidden,
        heads=args.heads,
        kv_heads=args.kv_heads,
        layers=args.layers,
        batch=args.batch,
        seq=args.seq,
        device="cuda",
    )
    with tempfile.TemporaryDirectory() as d:
        run_probe(cfg, Path(d) / "run", cuda_snapshot=False, measure_calls=True)  # records; then analysed here
        report = dump(whole_config(finish_run(Path(d) / "run", cfg)))
    sim = {g["graph_id"]: g for g in report["graph_memory"]}
    rows = []
    for inv in report["invocations"]:
        gid = f"g{inv['dynamo_graph']}.forward"
        measured = inv["measured"]["peak_increase_bytes"]
        simulated = sim[gid]["peak_bytes"]
        rows.append(
            {
                "graph": gid,
                "block": inv["block"],
                "simulated_peak_bytes": simulated,
                "measured_peak_increase_bytes": measured,
                "relative_error": (simulated - measured) / measured if measured else None,
                "statements_not_understood": len(sim[gid].get("unrecognized") or []),
            }
        )
    print(f"{'graph':<12} {'block':<10} {'simulated':>12} {'measured':>12} {'error':>8} {'not understood':>15}")
    for r in rows:
        err = f"{100 * r['relative_error']:+.2f}%" if r["relative_error"] is not None else "n/a"
        print(
            f"{r['graph']:<12} {r['block'] or '':<10} {fmt_bytes(r['simulated_peak_bytes']):>12} "
            f"{fmt_bytes(r['measured_peak_increase_bytes']):>12} {err:>8} {r['statements_not_understood']:>15}"
        )
    Path(args.json_out).write_text(
        json.dumps({"config": report["config"], "versions": report["versions"], "rows": rows}, indent=1)
    )


if __name__ == "__main__":
    main()
