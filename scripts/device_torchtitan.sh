#!/usr/bin/env bash
# Issue 18 on CUDA (two H200s, one queue of runs each; one GPU works too, just slower):
#  - torchtitan's own Llama 3 at 8B dims, 2 layers, rowwise, batch 1, seq 8192: with the installed torchtitan's
#    SAC policy and with torchtitan-2025-01 (torchtitan's float8 converter, flex attention);
#  - the estimate held to measured deeper runs: the FFN and the transformer repro at Llama-3-8B dims, batch 1,
#    seq 8192, both policies: a 2-block probe estimated at 8 and 16 blocks, and runs of 8 and 16 blocks;
#  - issue 17's --save-op aten.silu run again (the partitioner's backward work kept in forward).
# Usage: OUT=dir bash scripts/device_torchtitan.sh  (wheels in .whl/: torchao, torchtitan and what it imports)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/tt"; rm -rf "$runs"; mkdir -p "$runs"
gpus=$(nvidia-smi -L | wc -l)
big="--preset llama3-8b --batch 1 --seq 8192 --device cuda --recipe rowwise"
q0() {  # GPU 0: torchtitan's Llama 3, the silu run, the FFN estimate runs
  export CUDA_VISIBLE_DEVICES=0
  for pol in torchtitan-installed torchtitan-2025-01; do
    echo "=== torchtitan llama3 8B x2 layers rowwise --ac-policy $pol"
    python3 -m memprobe run --repro torchtitan --flavor 8B --layers 2 --batch 1 --seq 8192 --recipe rowwise \
      --ac-policy "$pol" --device cuda --out "$runs/tt-$pol" -q > /dev/null; echo "exit $?"
  done
  python3 -m memprobe run --recipe rowwise --save-op aten.silu --dim 256 --hidden 1024 --layers 2 --batch 2 --seq 64 \
    --device cuda --out "$runs/silu" -q > /dev/null; echo "silu exit $?"
  for pol in torchtitan-2025-01 torchtitan; do for L in 2 8 16; do
    python3 -m memprobe run $big --repro ffn --ac-policy $pol --layers $L --out "$runs/ffn-$pol-$L" -q > /dev/null
    echo "ffn $pol $L exit $?"
  done; done
}
q1() {  # GPU 1 (or 0 after q0): the transformer estimate runs
  [ "$gpus" -ge 2 ] && export CUDA_VISIBLE_DEVICES=1 || export CUDA_VISIBLE_DEVICES=0
  for pol in torchtitan-2025-01 torchtitan; do for L in 2 8 16; do
    python3 -m memprobe run $big --repro transformer --ac-policy $pol --layers $L --out "$runs/tr-$pol-$L" -q > /dev/null
    echo "transformer $pol $L exit $?"
  done; done
}
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  python3 -c "import torch, torchao, torchtitan; print('torch', torch.__version__, 'torchao', torchao.__version__, 'torchtitan', torchtitan.__version__ if hasattr(torchtitan, '__version__') else '?')"
  python3 -m memprobe policies --json | python3 -c "import json, sys; e = json.load(sys.stdin)['torchtitan-installed']; print('installed policy:', e['available'], e['unavailable_because'], len(e['save_ops']), 'ops')"
  start=$(date +%s)
  if [ "$gpus" -ge 2 ]; then q0 > "$OUT/q0.log" 2>&1 & q1 > "$OUT/q1.log" 2>&1; wait; else q0 > "$OUT/q0.log" 2>&1; q1 > "$OUT/q1.log" 2>&1; fi
  echo "all runs in $(( $(date +%s) - start ))s"; cat "$OUT/q0.log" "$OUT/q1.log"
  for pol in torchtitan-installed torchtitan-2025-01; do
    python3 - "$runs/tt-$pol" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/report.json"))
if r["status"] != "complete":
    print(sys.argv[1], r["status"], r.get("error")); sys.exit()
ph = r["memory"]["phases"]
print(f"{sys.argv[1].split('/')[-1]}: saved {r['saved_totals']['graph_bytes']:,} B graphs / {r['saved_totals']['runtime_bytes']} B run time; "
      f"forward end {ph['forward']['end_bytes']:,} B; step peak {max(p['peak_bytes'] for p in ph.values()):,} B; "
      f"torchtitan {r['versions'].get('torchtitan')}; policy ops {len((r.get('policy') or {}).get('save_ops') or [])}")
wd = {}
for x in r["saved_tensors"]:
    if x["kind"] == "weight-derived":
        wd[x["user"]["label"]] = wd.get(x["user"]["label"], 0) + x["bytes"]
print("  weight-derived:", {k: v for k, v in sorted(wd.items(), key=lambda kv: -kv[1])[:6]})
print("  findings:", [(f["kind"], f["bytes"]) for f in r["findings"]])
EOF
  done
  sed -n '/^show() {/,/^}/p' scripts/device_findings.sh > /tmp/show.sh; source /tmp/show.sh; echo "=== silu"; show "$runs/silu"
  for rep in ffn tr; do for pol in torchtitan-2025-01 torchtitan; do
    python3 scripts/estimate_check.py "$runs/$rep-$pol-2" "$runs/$rep-$pol-8" "$runs/$rep-$pol-16" --json "$OUT/estimate-check.json"
  done; done
} 2>&1 | tee "$OUT/torchtitan.log"
