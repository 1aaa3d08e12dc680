#!/usr/bin/env bash
# Record the CUDA test fixtures under tests/data/cuda/ and run the simulator accuracy bench.
# Used on the H200 through the device tool: torchao comes as a wheel in .whl/.
# Run dirs keep report.json, graphs/*.json, output_code/ and snapshot.pickle (the readable
# graph text is dropped to keep the fixtures small).
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
fx="$OUT/fixtures"; mkdir -p "$fx"
small="--dim 256 --hidden 768 --layers 2 --batch 2 --seq 128 --ac-policy torchtitan-2025-01"
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  for recipe in bf16 rowwise; do
    echo "=== fixture $recipe: memprobe run --recipe $recipe $small --device cuda"
    python3 -m memprobe run --recipe $recipe $small --device cuda --out "$fx/$recipe-legacy" -q; echo "exit $?"
    rm -f "$fx/$recipe-legacy"/graphs/*.txt
  done
  if [ "${DIFF:-0}" = 1 ]; then
    echo "=== diff on CUDA at Llama-3-8B FFN dims: bf16 vs fp8, torchtitan-2025-01"
    python3 -m memprobe diff bf16 fp8 --ac-policy torchtitan-2025-01 --dim 4096 --hidden 14336 --layers 2 \
      --batch 1 --seq 8192 --device cuda --out /tmp/diff8b -q; echo "exit $?"
    cp /tmp/diff8b/diff.json "$OUT/diff-8b.json"
  fi
  if [ "${BENCH:-1}" = 1 ]; then
    echo "=== bench: simulated vs measured forward-graph peak"
    python3 bench/sim_vs_measured.py --json-out "$OUT/bench-sim-vs-measured.json"
    python3 bench/sim_vs_measured.py --recipe bf16 --json-out "$OUT/bench-sim-vs-measured-bf16.json"
  fi
} 2>&1 | tee "$OUT/console.log"
tar -czf "$OUT/fixtures.tgz" -C "$fx" . && rm -rf "$fx"
