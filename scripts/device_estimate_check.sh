#!/usr/bin/env bash
# Check `memprobe estimate` against a measurement (2 H200s): probe 2 Llama-3-8B transformer blocks in one
# process, estimate them on 2 ranks, then measure them on 2 ranks (NCCL).
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/runs"; mkdir -p "$runs"
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  big="--repro transformer --preset llama3-8b --batch 1 --seq 8192 --layers 2 --device cuda --recipe rowwise --ac-policy torchtitan-2025-01"
  python3 -m memprobe run $big --out "$runs/one" -q; echo "exit $?"
  python3 -m memprobe estimate "$runs/one" --layers 2 --world 2 --json > "$OUT/estimate-world2.json"
  python3 -m memprobe estimate "$runs/one" --layers 2 --world 2
  python3 -m memprobe run $big --nproc 2 --out "$runs/two" -q --json > "$OUT/report-world2.json"; echo "exit $?"
  python3 -m memprobe show "$runs/two" | grep -B2 -A12 "Measured step memory"
} 2>&1 | tee "$OUT/console.log"
