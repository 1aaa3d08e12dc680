#!/usr/bin/env bash
# Issue 21 on CUDA: a Hugging Face transformers model with Llama 3 8B's shapes, built from its config.json alone
# (hidden 4096, intermediate 14336, 32/8 heads, vocab 32000; its first 2 layers, batch 1, seq 2048), diffed between
# torchtitan's save list of today and its 2025-01 list (aten.abs saved) under rowwise float8:
#   memprobe diff rowwise rowwise --hf-config config.json --a '--ac-policy torchtitan' --b '--ac-policy torchtitan-2025-01'
# B keeps abs() of each projection weight: the summary prints each weight-derived item the diff ranks, with its
# Hugging Face module name, beside what the weight's shape gives (elements x 2 bytes), per layer and in total.
# Usage: OUT=dir bash scripts/device_hf_llama.sh   (wheels in .whl/: torchao; the machine has transformers)
#        TINY=1 OUT=dir bash scripts/device_hf_llama.sh   (the same commands at tiny dims on the CPU, to check them)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/hf-llama"; rm -rf "$runs"; mkdir -p "$runs"
if [ "${TINY:-0}" = 1 ]; then
  hidden=64; inter=128; heads=4; kv=2; vocab=256; seq=32; device=cpu; extra="--analysis-only"
else
  hidden=4096; inter=14336; heads=32; kv=8; vocab=32000; seq=2048; device=cuda; extra=""
fi
cat > "$runs/config.json" <<EOF
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": $hidden, "intermediate_size": $inter,
 "num_hidden_layers": 32, "num_attention_heads": $heads, "num_key_value_heads": $kv, "hidden_act": "silu",
 "max_position_embeddings": 8192, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "vocab_size": $vocab,
 "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true}
EOF
{
  [ "$device" = cuda ] && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  python3 -c "import torch, torchao, transformers; print('torch', torch.__version__, 'torchao', torchao.__version__, 'transformers', transformers.__version__)"
  start=$(date +%s)
  python3 -m memprobe diff rowwise rowwise --hf-config "$runs/config.json" --layers 2 --batch 1 --seq $seq --device $device $extra \
    --a '--ac-policy torchtitan' --b '--ac-policy torchtitan-2025-01' --out "$runs/diff" --json -q > "$runs/diff.json"
  echo "diff exit $? in $(( $(date +%s) - start ))s"
  python3 -m memprobe show "$runs/diff" 2>&1 | head -40
  python3 - "$runs" <<'EOF'
import json, math, sys
runs = sys.argv[1]
d = json.load(open(f"{runs}/diff.json"))
b = json.load(open(f"{runs}/diff/b/report.json"))
print(f"saved for backward: A {d['totals']['saved_bytes']['a']:,} B, B {d['totals']['saved_bytes']['b']:,} B, delta {d['totals']['saved_bytes']['delta']:,} B")
print(f"B's notes: {b['notes']}")
f8 = b["float8"]
print(f"float8: {f8['block_converted_parameters']:,} of {f8['block_linear_parameters']:,} block linear parameters converted")
shapes = {x["fqn"]: x["weight_shape"] for x in f8["linears"]}
total = expected_total = 0
for it in d["items"]:
    if it["kind"] != "weight-derived" or it["status"] != "only_b":
        continue
    module = it["user"]["module"]
    expected = 2 * math.prod(shapes[module.replace("*", "0")]) * it["count"]
    total += it["delta_bytes"]
    expected_total += expected
    print(f"  {it['delta_bytes']:>13,} B  x{it['count']}  {module:40s} {it['user']['label']:50s} weight shape "
          f"{shapes[module.replace('*', '0')]} x 2 B x {it['count']} = {expected:,} B {'OK' if expected == it['delta_bytes'] else 'DIFFERS'}")
print(f"weight-derived delta: {total:,} B; from the weight shapes: {expected_total:,} B "
      f"({'equal' if total == expected_total else 'NOT equal'}); per layer {total // 2:,} B")
EOF
} 2>&1 | tee "$OUT/hf_llama.log"
