#!/usr/bin/env bash
# H200 figures for the README (issues 7 and 10): the transformer repro at Llama-3-8B dimensions with
# the legacy and today's SAC policy, each estimated at 32 blocks on 8 ranks; and the simulator's
# forward-graph peaks against the allocator (FFN rowwise and bf16, transformer rowwise).
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/runs"; mkdir -p "$runs"
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  big="--repro transformer --preset llama3-8b --batch 1 --seq 8192 --layers 2 --device cuda --recipe rowwise"
  for policy in torchtitan-2025-01 torchtitan; do
    echo "=== memprobe run $big --ac-policy $policy"
    start=$(date +%s)
    python3 -m memprobe run $big --ac-policy $policy --out "$runs/8b-$policy" -q --json > "$OUT/report-8b-$policy.json"; echo "exit $? in $(( $(date +%s) - start ))s"
    python3 -m memprobe show "$runs/8b-$policy" | head -24
    python3 -m memprobe estimate "$runs/8b-$policy" --layers 32 --world 8
    python3 -m memprobe estimate "$runs/8b-$policy" --layers 32 --world 8 --json > "$OUT/estimate-8b-$policy.json"
  done
  python3 -m memprobe diff "$runs/8b-torchtitan" "$runs/8b-torchtitan-2025-01" --markdown
  echo "=== bench: simulated vs measured forward-graph peak"
  python3 bench/sim_vs_measured.py --json-out "$OUT/sim-ffn-rowwise.json"
  python3 bench/sim_vs_measured.py --recipe bf16 --json-out "$OUT/sim-ffn-bf16.json"
  python3 bench/sim_vs_measured.py --repro transformer --json-out "$OUT/sim-transformer-rowwise.json"
} 2>&1 | tee "$OUT/console.log"
