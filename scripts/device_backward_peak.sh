#!/usr/bin/env bash
# Issue 49 on a CUDA machine: the backward's transient peak, named, for pytorch/pytorch#193193's pattern
# (tests/models/twopass_ckpt.py: two checkpointed passes over shared blocks, compiled), at the test's size:
# memprobe's backward-peak attribution (the compiled backward's buffers alive at the measured backward peak, their ops
# and lines, recomputed or not), whether its parts add up to the allocator's measured peak within the run's stated
# tolerance, and the finding it raised; then an A/A diff of the same step (0 B expected).
# Usage: OUT=dir bash scripts/device_backward_peak.sh          (wheels in .whl/: torchao, pydantic)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
work=/tmp/bwpeak; rm -rf "$work"; mkdir -p "$work"
model=tests/models/twopass_ckpt.py

check() {  # $1: a run directory
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(f"{sys.argv[1]}/report.json"))
bp = (r.get("attribution") or {}).get("backward_peak")
print(f"  status {r['status']}; device {r.get('device')}; saved by forward (graphs) {r['saved_totals']['graph_bytes']:,} B")
if not bp:
    print("  no backward-peak attribution"); sys.exit(0)
parts = bp["transient_bytes"] + bp["gradient_bytes"] + bp["other_bytes"]
measured = r["memory"]["phases"]["backward"]["peak_bytes"]
print(f"  backward peak measured {measured:,} B; attribution's peak {bp['peak_bytes']:,} B")
print(f"  transient {bp['transient_bytes']:,} B (recomputed {bp['recomputed_bytes']:,}, temporary {bp['temporary_bytes']:,})"
      f" + gradients {bp['gradient_bytes']:,} + other {bp['other_bytes']:,} = {parts:,} B;"
      f" off by {parts - bp['peak_bytes']:+,} B, tolerance {bp['tolerance_bytes']:,} B:"
      f" {'WITHIN' if abs(parts - bp['peak_bytes']) <= bp['tolerance_bytes'] else 'OUTSIDE'}")
temps = sorted((b for b in bp["buffers"] if b["role"] == "temporary"), key=lambda b: -b["bytes"])
for b in temps[:6]:
    print(f"    {b['bytes']:>12,} B {b['graph']} {b['storage']} ops {b['ops'][:3]} recomputed {b['recomputed']}"
          f" lines {b['lines'][:2]}")
found = [f for f in r["findings"] if f["kind"] == "backward-transient-peak"]
print("  finding:", found[0]["message"] if found else "none", f"({found[0]['bytes']:,} B)" if found else "")
PY
}

{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c "import torch; print('torch', torch.__version__)"
  echo "=== the test's model on CUDA (dim 32, hidden 256, batch 4 x 128)"
  python3 -m memprobe run --model "$model:build" --recipe bf16 --ac none --no-fsdp --device cuda \
    --out "$work/small" -q; echo "exit $?"
  check "$work/small"
  python3 -m memprobe show "$work/small" --wide | head -40
  echo "=== A/A: the same step on both sides"
  python3 -m memprobe diff bf16 bf16 --model "$model:build" --ac none --no-fsdp --device cuda --out "$work/aa" -q \
    > "$work/aa.txt"; echo "exit $?"
  python3 -c "import json; d = json.load(open('$work/aa/diff.json')); print('  differences', d['differences'], 'saved delta', d['totals']['saved_bytes']['delta'])"
  head -5 "$work/aa.txt"
  tar -C "$work" -czf "$OUT/backward-peak-runs.tgz" --exclude=aa/a/snapshot.pickle --exclude=aa/b/snapshot.pickle small aa
} 2>&1 | tee "$OUT/backward-peak.log"
