#!/usr/bin/env bash
# What changes between torch releases in what a compiled step saves, and why: memprobe diff of one configuration,
# side A in this interpreter, side B in each other interpreter given (a virtualenv with torch and torchao only).
#
#   scripts/version_diffs.sh OUT_DIR PYTHON [PYTHON ...]
#
# Per interpreter, three diffs (each side a fresh process; CPU):
#   quantlinear  tests/models/quantlinear.py under --ac full (a custom autograd.Function inside a checkpointed block)
#   rowwise      the FFN repro, rowwise float8, the 2025-01 save list (aten.abs saved)
#   aa           the transformer repro in bf16 (attention's RNG state has a symbolic size): an A/A across releases
# Each diff's console view goes to OUT_DIR/<name>-<torch>.txt and its directory to OUT_DIR/<name>-<torch>/.
set -euo pipefail
out=$1; shift
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
for py in "$@"; do
  v=$("$py" -c 'import torch; print(torch.__version__.split("+")[0])')
  echo "== torch $v ($py)"
  memprobe diff bf16 bf16 --model "$here/tests/models/quantlinear.py:build" --ac full --no-fsdp \
    --b-python "$py" --out "$out/quantlinear-$v" --force -q > "$out/quantlinear-$v.txt" 2>&1 || echo "quantlinear $v: exit $?"
  memprobe diff rowwise rowwise --ac-policy torchtitan-2025-01 --dim 256 --hidden 1024 --seq 64 --layers 2 --device cpu \
    --b-python "$py" --out "$out/rowwise-$v" --force -q > "$out/rowwise-$v.txt" 2>&1 || echo "rowwise $v: exit $?"
  memprobe diff bf16 bf16 --repro transformer --dim 128 --hidden 256 --heads 4 --kv-heads 2 --seq 64 --layers 2 --device cpu \
    --b-python "$py" --out "$out/aa-$v" --force -q > "$out/aa-$v.txt" 2>&1 || echo "aa $v: exit $?"
done
