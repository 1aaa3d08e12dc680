#!/usr/bin/env bash
# Why Mixtral's float8 experts and blockwise float8 fail under torch.compile on the H200 (tracebacks), and the
# Mixtral diff without compile (eager: what autograd holds under the same SAC policies).
# Usage: OUT=dir bash scripts/device_debug_moe.sh   (torchao and pydantic wheels in .whl/ when the machine lacks them)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs=/tmp/debug-runs; rm -rf "$runs"; mkdir -p "$runs"
{
  echo "=== Mixtral (2 layers) rowwise, compiled: the traceback"
  python3 -m memprobe run --recipe rowwise --hf-config scripts/hf/mixtral-8x7b.json --layers 2 --batch 1 --seq 1024 \
    --device cuda --out "$runs/mixtral-compiled" --debug --verbose 2>&1 | grep -v "^  warnings.warn\|SyntaxWarning" | tail -45
  echo "=== blockwise, compiled: the traceback"
  python3 -m memprobe run --recipe blockwise --dim 1024 --hidden 4096 --seq 1024 --ac-policy torchtitan-2025-01 \
    --device cuda --out "$runs/blockwise" --debug --verbose 2>&1 | grep -v "SyntaxWarning" | tail -45
  echo "=== Mixtral (2 layers) rowwise, eager (--no-compile): torchtitan's save list against 2025-01's"
  s=$SECONDS
  python3 -m memprobe diff rowwise rowwise --hf-config scripts/hf/mixtral-8x7b.json --layers 2 --batch 1 --seq 1024 \
    --no-compile --device cuda --a "--ac-policy torchtitan" --b "--ac-policy torchtitan-2025-01" --out "$runs/mixtral-eager" --wide 2>&1 | tail -40
  echo "exit ${PIPESTATUS[0]} in $((SECONDS - s)) s"
} 2>&1 | tee "$OUT/debug_moe.log"
tar czf "$OUT/debug-runs.tgz" --exclude='*.pickle' --exclude='*.html' -C /tmp debug-runs 2>/dev/null
