#!/usr/bin/env bash
# Issue 7 on CUDA (a 2-GPU machine through the device tool): --nproc 2 over NCCL against one
# process, and the transformer repro at Llama-3-8B dimensions (2 blocks, batch 1, seq 8192)
# with the legacy and today's SAC policy, each estimated at 32 blocks on 8 ranks.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/runs"; mkdir -p "$runs"
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  small="--recipe rowwise --ac-policy torchtitan-2025-01 --device cuda"
  echo "=== one process: memprobe run $small"
  python3 -m memprobe run $small --out "$runs/nccl-1" -q; echo "exit $?"
  echo "=== two ranks (NCCL): memprobe run $small --nproc 2"
  python3 -m memprobe run $small --nproc 2 --out "$runs/nccl-2" -q; echo "exit $?"
  python3 -m memprobe show "$runs/nccl-2" | grep -A8 "Per rank"
  big="--repro transformer --preset llama3-8b --batch 1 --seq 8192 --layers 2 --device cuda"
  for policy in torchtitan-2025-01 torchtitan; do
    echo "=== memprobe run $big --recipe rowwise --ac-policy $policy"
    start=$(date +%s)
    python3 -m memprobe run $big --recipe rowwise --ac-policy $policy --out "$runs/8b-$policy" -q; echo "exit $? in $(( $(date +%s) - start ))s"
    python3 -m memprobe show "$runs/8b-$policy" | head -30
    python3 -m memprobe estimate "$runs/8b-$policy" --layers 32 --world 8
    python3 -m memprobe estimate "$runs/8b-$policy" --layers 32 --world 8 --json > "$OUT/estimate-8b-$policy.json"
  done
  python3 -m memprobe diff "$runs/8b-torchtitan" "$runs/8b-torchtitan-2025-01" | head -40
  for r in "$runs"/*; do rm -rf "$r"/output_code "$r"/graphs/*.txt "$r"/rank*/output_code "$r"/rank*/graphs/*.txt; done
} 2>&1 | tee "$OUT/console.log"
tar -czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$runs"
