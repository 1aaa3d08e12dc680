#!/usr/bin/env bash
# Issue 17 on a CUDA machine: saved values in the user's terms and the findings beyond weight-derived saves,
# on the same three runs as the CPU tests (tests/test_findings_e2e.py), plus two checks of issue 14:
# the A/A diff once more with a warm Inductor cache on both sides, and the eager rowwise + op-SAC
# configuration that bisect's "torch.compile" trial runs (its error, with the traceback).
# Usage: OUT=dir bash scripts/device_findings.sh   (torchao wheels in .whl/ when the machine lacks it)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/findings"; rm -rf "$runs"; mkdir -p "$runs"
show() {  # the findings and the top saved rows of a run, as the README quotes them
  python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/report.json"))
print(f"  status {r['status']}; saved {r['saved_totals']['graph_bytes']:,} B (graphs) / {r['saved_totals']['runtime_bytes']} B (run time)")
rows = sorted((x for x in r["saved_tensors"] if x["kind"] != "parameter"), key=lambda x: -x["bytes"])
for x in rows[:4]:
    u = x.get("user") or {}
    print(f"  row {x['bytes']:>12,} B {x['dtype']:<9} {x['kind']:<15} {u.get('label')} | {u.get('source')}")
for f in r["findings"]:
    print(f"  FINDING {f['kind']} {f['bytes']:,} B: {f['message'][:220]}")
if not r["findings"]:
    print("  no findings; checks:", "; ".join(c["title"] for c in r.get("checks") or []))
EOF
}
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  echo "=== 1. memprobe run --recipe rowwise --save-op aten.silu (dim 256, hidden 1024, 2 layers, batch 2, seq 64)"
  python3 -m memprobe run --recipe rowwise --save-op aten.silu --dim 256 --hidden 1024 --layers 2 --batch 2 --seq 64 \
    --device cuda --out "$runs/silu" -q > /dev/null; echo "exit $?"; show "$runs/silu"
  echo "=== 2. memprobe run --model tests/models/upcast.py:build --recipe bf16 --ac none"
  python3 -m memprobe run --model tests/models/upcast.py:build --recipe bf16 --ac none --device cuda --out "$runs/upcast" -q \
    > /dev/null; echo "exit $?"; show "$runs/upcast"
  echo "=== 3. memprobe run --recipe bf16 --no-reshard-after-forward (dim 2048, hidden 8192, 4 layers, seq 4096)"
  python3 -m memprobe run --recipe bf16 --no-reshard-after-forward --ac-policy torchtitan --dim 2048 --hidden 8192 \
    --layers 4 --batch 1 --seq 4096 --device cuda --out "$runs/noreshard" -q > /dev/null; echo "exit $?"; show "$runs/noreshard"
  echo "=== 4. A/A again, both sides with a warm Inductor cache (the first one warms it)"
  for k in 1 2; do
    python3 -m memprobe diff rowwise rowwise --ac-policy torchtitan-2025-01 --device cuda --out "$runs/aa$k" -q > /dev/null
    python3 -c "import json; d = json.load(open('$runs/aa$k/diff.json')); print('  run $k: nonzero phase deltas', {p: {k2: v['delta'] for k2, v in f.items() if v['delta']} for p, f in d['phases']['phases'].items()}, '| items', len(d['items']))"
  done
  echo "=== 5. bisect's trial without torch.compile: rowwise, op SAC (torchtitan-2025-01), eager"
  python3 -m memprobe --debug run --recipe rowwise --ac-policy torchtitan-2025-01 --no-compile --device cuda \
    --out "$runs/eager" -q --verbose > "$OUT/eager.log" 2>&1; echo "exit $?"
  grep -v "^\s*$" "$OUT/eager.log" | grep -iE "error|Traceback|File \"" | tail -25
} 2>&1 | tee "$OUT/findings.log"
