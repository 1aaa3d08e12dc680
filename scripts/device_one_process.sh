#!/usr/bin/env bash
# Issue 14 on a CUDA machine: every probe in a process of its own.
#  1. A/A: the same configuration on both sides must differ by exactly 0 B in every measured figure
#     and every category alive at every peak (one process for both sides left side A's 24 MiB alive).
#  2. --no-reshard-after-forward on B: forward end +402,653,184 B (4 blocks x 3 bf16 weights of
#     2048 x 8192), in fsdp-unsharded-parameter (one process for both sides said +1.13 GiB).
#  3. bisect bf16 fp8 (stopped with a SystemError at its 8th trial in one process): same conclusion as
#     on the CPU. With two GPUs visible, its trials run two at a time, one GPU each.
# Usage: OUT=dir bash scripts/device_one_process.sh   (torchao wheels in .whl/ when the machine lacks it)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
DEVICE=${DEVICE:-cuda}
runs="$OUT/one-process"; rm -rf "$runs"; mkdir -p "$runs"
summary() {  # the figures the README quotes, from a diff.json
  python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("  sides: pids", d["a"]["process"]["pid"], d["b"]["process"]["pid"], "| saved delta", d["totals"]["saved_bytes"]["delta"],
      "| items", len(d["items"]))
for name, figs in (d["phases"] or {}).get("phases", {}).items():
    print(f"  {name:<9}", "  ".join(f"{k}={v['delta']:+,d}" for k, v in figs.items()))
alive = d.get("alive_at_peak") or {}
for where, key in (("peak", "phases"), ("end", "at_end")):
    for phase, cats in (alive.get(key) or {}).items():
        nonzero = {c: v["delta"] for c, v in cats.items() if v["delta"]}
        print(f"  alive at the {phase} {where}, nonzero category deltas: {nonzero or 'none'}")
EOF
}
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  python3 -c "import torch, torchao; print('torch', torch.__version__, 'torchao', torchao.__version__)"
  echo "=== 1. A/A: memprobe diff rowwise rowwise --ac-policy torchtitan-2025-01"
  start=$(date +%s)
  python3 -m memprobe diff rowwise rowwise --ac-policy torchtitan-2025-01 --device "$DEVICE" --out "$runs/aa" -q > /dev/null
  echo "exit $? in $(( $(date +%s) - start ))s"; summary "$runs/aa/diff.json"
  echo "=== 2. memprobe diff bf16 bf16 --b '--no-reshard-after-forward' (dim 2048, hidden 8192, 4 layers, seq 4096)"
  start=$(date +%s)
  python3 -m memprobe diff bf16 bf16 --b '--no-reshard-after-forward' --ac-policy torchtitan --dim 2048 --hidden 8192 \
    --layers 4 --batch 1 --seq 4096 --device "$DEVICE" --out "$runs/noreshard" -q > /dev/null
  echo "exit $? in $(( $(date +%s) - start ))s"; summary "$runs/noreshard/diff.json"
  echo "=== 3. memprobe bisect bf16 fp8 --ac-policy torchtitan-2025-01"
  start=$(date +%s)
  python3 -m memprobe bisect bf16 fp8 --ac-policy torchtitan-2025-01 --device "$DEVICE" --out "$runs/bisect" --json -q \
    > "$OUT/bisect.json"
  echo "exit $? in $(( $(date +%s) - start ))s"
  python3 -c "import json; r = json.load(open('$OUT/bisect.json')); print(' ', r['conclusion']); print('  trials', len(r['trials']), [(t['removed'], t['delta_bytes']) for t in r['trials']])"
  if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
    echo "=== 4. two GPUs: memprobe diff rowwise rowwise --parallel (one GPU per side)"
    start=$(date +%s)
    python3 -m memprobe diff rowwise rowwise --ac-policy torchtitan-2025-01 --device "$DEVICE" --parallel \
      --out "$runs/aa-parallel" -q > /dev/null
    echo "exit $? in $(( $(date +%s) - start ))s"; summary "$runs/aa-parallel/diff.json"
    python3 -c "import json; d = json.load(open('$runs/aa-parallel/diff.json')); print('  gpus', [json.load(open(d[k]['source'] + '/report.json'))['process']['gpus'] for k in 'ab'])"
  fi
} 2>&1 | tee "$OUT/one-process.log"
cp "$runs/aa/diff.json" "$OUT/aa-diff.json"; cp "$runs/noreshard/diff.json" "$OUT/noreshard-diff.json"
