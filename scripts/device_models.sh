#!/usr/bin/env bash
# Issue 38 on a CUDA machine (H200, compute capability 9.0): a stock mixture-of-experts config whose experts torchao's
# MoE training conversion makes float8 there, and a stock dense config memprobe has not run on a GPU before, each
# diffed torchtitan's current save list against its 2025-01 one (aten.abs saved); blockwise float8 against rowwise on
# one model; MX float8 refused on this GPU in one line.
# Usage: OUT=dir bash scripts/device_models.sh [PART...]   (parts: mixtral qwen3 blockwise mxfp8; all by default;
#        torchao and pydantic wheels in .whl/ when the machine lacks them)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/models"; rm -rf "$runs"; mkdir -p "$runs"
parts=" ${*:-mixtral qwen3 blockwise mxfp8} "
want() { [[ "$parts" == *" $1 "* ]]; }
POLICIES=(--a "--ac-policy torchtitan" --b "--ac-policy torchtitan-2025-01")
diffed() {  # coverage of each side, the notes, and every value only one side saves, with its shape and bytes
  python3 - "$1" <<'PY'
import json, sys
from pathlib import Path
d = json.load(open(sys.argv[1] + "/diff.json"))
for side in ("a", "b"):
    r = json.load(open(Path(sys.argv[1]) / side / "report.json"))
    f = r.get("float8") or {}
    print(f"  {side}: {r['config']['recipe']} {r['config']['ac_policy']}: saved {r['saved_totals']['graph_bytes']:,} B (graphs), "
          f"{r['saved_totals'].get('runtime_bytes')} B (run time); float8 {f.get('block_converted_parameters')} of "
          f"{f.get('block_linear_parameters')} block parameters")
    for x in f.get("linears") or []:
        if x["fqn"].split(".")[2:3] == ["0"] or not x["in_blocks"]:
            print(f"     {x['fqn']} {x['type']} {x['weight_shape']} converted={x['converted']} {x.get('skipped') or ''}")
    for n in r.get("notes") or []:
        print("     note:", n)
print("  verdict:", d["verdict"]["text"])
print("  saved delta:", d["totals"]["saved_bytes"])
for it in d["items"]:
    print(f"  item {it['status']} {it['kind']} {(it.get('label') or it['expr'])[:90]} count={it['count']} "
          f"delta={it['delta_bytes']:,} shape={it.get('shape')} dtype={it.get('dtype')} roots={it.get('roots')}")
PY
}
t() { local s=$SECONDS; "$@"; echo "  exit $? in $((SECONDS - s)) s"; }
{
  nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader
  python3 -c "import torch, torchao, transformers; print('torch', torch.__version__, 'torchao', torchao.__version__, 'transformers', transformers.__version__)"
  want mixtral && {
  echo "=== 1. Mixtral-8x7B's config (2 layers), rowwise: torchtitan's save list against 2025-01's (aten.abs)"
  t python3 -m memprobe diff rowwise rowwise --hf-config scripts/hf/mixtral-8x7b.json --layers 2 --batch 1 --seq 1024 \
    --device cuda "${POLICIES[@]}" --out "$runs/mixtral" -q > /dev/null
  diffed "$runs/mixtral"; }
  want qwen3 && {
  echo "=== 2. Qwen3-8B's config (2 layers), rowwise: the same two save lists"
  t python3 -m memprobe diff rowwise rowwise --hf-config scripts/hf/qwen3-8b.json --layers 2 --batch 1 --seq 2048 \
    --device cuda "${POLICIES[@]}" --out "$runs/qwen3" -q > /dev/null
  diffed "$runs/qwen3"; }
  want blockwise && {
  # eager: compiled, torchao's blockwise Triton GEMMs fail in Inductor's compile worker ("name 'torch' is not
  # defined", torch 2.11, torchao 0.18) and its F.scaled_mm path is skipped by Dynamo
  echo "=== 3. blockwise against rowwise float8, FFN dim 1024 hidden 4096, the 2025-01 save list, eager"
  t python3 -m memprobe diff rowwise blockwise --dim 1024 --hidden 4096 --seq 1024 --ac-policy torchtitan-2025-01 \
    --no-compile --device cuda --out "$runs/blockwise" -q > /dev/null
  diffed "$runs/blockwise"; }
  want mxfp8 && {
  echo "=== 4. MX float8 on this GPU"
  t python3 -m memprobe run --recipe mxfp8 --device cuda --out "$runs/mxfp8" -q; }
} 2>&1 | tee -a "$OUT/models.log"
