"""Accuracy of the derived figures, against what was measured.

1. Saved-for-backward bytes derived from the compiled graphs against the bytes the autograd
   graph holds at run time (the storages of every CompiledFunction's ``saved_tensors``):
   they must be equal, for every configuration below (CPU, full runs).
2. The output-code simulator's forward-graph peaks against the CUDA allocator: run
   ``bench/sim_vs_measured.py`` on a GPU (scripts/device_bench.sh does, on the H200) and pass
   its JSON files with ``--sim`` to fold them into the table.

    python bench/accuracy.py [--sim sim-ffn-rowwise.json ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SMALL = ["--dim", "256", "--hidden", "1024", "--layers", "2"]
CONFIGS = [
    [*SMALL, "--recipe", recipe, "--ac-policy", policy]
    for recipe in ("bf16", "tensorwise", "rowwise")
    for policy in ("torchtitan-2025-01", "torchtitan")
] + [
    ["--repro", "transformer", "--preset", "debug", "--seq", "64", "--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01"],
    [
        "--model",
        str(ROOT / "tests" / "models" / "mixer.py") + ":build",
        "--recipe",
        "rowwise",
        "--ac-policy",
        "torchtitan-2025-01",
    ],
    [*SMALL, "--recipe", "rowwise", "--ac", "full"],
    [*SMALL, "--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01", "--no-fsdp"],
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", nargs="*", default=[], type=Path, help="sim_vs_measured.py JSON files (GPU)")
    a = ap.parse_args()
    from click.testing import CliRunner

    from memprobe.cli.main import cli

    rows = []
    print(f"{'configuration':<90} {'graph':>12} {'runtime':>12}  equal")
    with tempfile.TemporaryDirectory() as d:
        for k, flags in enumerate(CONFIGS):
            out = Path(d) / f"r{k}"
            res = CliRunner().invoke(cli, ["run", *flags, "--device", "cpu", "--out", str(out), "-q", "--json"])
            if res.exit_code != 0:
                raise SystemExit(f"memprobe run {' '.join(flags)} failed: {res.output[-2000:]}")
            t = json.loads((out / "report.json").read_text())["saved_totals"]
            rows.append(
                {
                    "flags": flags,
                    "graph_bytes": t["graph_bytes"],
                    "runtime_bytes": t["runtime_bytes"],
                    "equal": t["graph_bytes"] == t["runtime_bytes"],
                }
            )
            label = " ".join(f if len(f) < 40 else "…/" + Path(f).name for f in flags)
            print(f"{label:<90} {t['graph_bytes']:>12} {t['runtime_bytes']!s:>12}  {rows[-1]['equal']}", flush=True)
    sims = []
    for path in a.sim:
        doc = json.loads(path.read_text())
        for r in doc["rows"]:
            sims.append({"file": path.name, **r})
    if sims:
        print(f"\n{'simulated vs CUDA-measured forward-graph peak':<48} {'simulated':>12} {'measured':>12} {'error':>8}")
        for r in sims:
            print(
                f"{r['file'] + ' ' + r['graph']:<48} {r['simulated_peak_bytes']:>12} {r['measured_peak_increase_bytes']:>12} "
                f"{100 * r['relative_error']:>+7.2f}%"
            )
    print(json.dumps({"saved_bytes": rows, "simulator": sims}))
    if not all(r["equal"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
