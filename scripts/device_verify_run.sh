#!/usr/bin/env bash
# Verify `memprobe run` on a CUDA machine (used on the H200 through the device tool).
# Expects torchao wheels in .whl/ when torchao is not installed there; writes run dirs
# and console output under ${OUT:-./device-out} (one tarball, one log).
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/runs"; mkdir -p "$runs"
log="$OUT/console.log"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  python3 -c "import torch, torchao, triton; print('torch', torch.__version__, 'torchao', torchao.__version__, 'triton', triton.__version__)"
  small="--layers 2"
  big="--dim 4096 --hidden 14336 --layers 2 --batch 1 --seq 8192"
  for spec in \
    "rowwise-legacy|--recipe rowwise --ac-policy torchtitan-2025-01 $small" \
    "rowwise-today|--recipe rowwise --ac-policy torchtitan $small" \
    "bf16-legacy|--recipe bf16 --ac-policy torchtitan-2025-01 $small" \
    "tensorwise-legacy|--recipe tensorwise --ac-policy torchtitan-2025-01 $small" \
    "big-rowwise-legacy|--recipe rowwise --ac-policy torchtitan-2025-01 $big" \
    "big-rowwise-today|--recipe rowwise --ac-policy torchtitan $big"; do
    name=${spec%%|*}; flags=${spec#*|}
    echo "=== $name: memprobe run $flags"
    start=$(date +%s)
    python3 -m memprobe run $flags --device cuda --out "$runs/$name" -q; echo "exit $? in $(( $(date +%s) - start ))s"
  done
} 2>&1 | tee "$log"
tar -czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$runs"
