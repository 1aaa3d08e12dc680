#!/usr/bin/env bash
# Issue 35 on a CUDA machine: each saved value's cause read from the installed torch's partitioner (the H200's torch
# 2.11 leaves the ops inside a custom autograd.Function untagged under --ac full), the printed next: command run as
# printed, the uneven-blocks finding, and an A/A diff with causes and decisions.
# Usage: OUT=dir bash scripts/device_causes.sh   (torchao and pydantic wheels in .whl/ when the machine lacks them)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
runs="$OUT/causes"; rm -rf "$runs"; mkdir -p "$runs"
show() {  # the verdict, each saved value's cause and the findings of a run
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/report.json"))
t = r["saved_totals"]
print(f"  torch {r['versions']['torch']}; status {r['status']}; saved {t['graph_bytes']:,} B (graphs) / {t['runtime_bytes']} B (run time)")
print("  verdict:", r["verdict"]["text"])
print("  next:", r["verdict"].get("next_command"))
for x in r["saved_tensors"]:
    if x["kind"] != "parameter":
        c = x.get("cause") or {}
        print(f"  row {x['block']} {x['bytes']:>10,} B {c.get('kind')} fn={c.get('function')} | {x['user']['label'][:70]}")
print("  findings:", [(f["kind"], f["bytes"]) for f in r["findings"]])
print("  recomputed by backward:", len(r.get("recomputed") or []), "values;",
      sorted({v["op"] for v in r.get("recomputed") or [] if v.get("function")}))
PY
}
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  echo "=== 1. tests/models/quantlinear.py under --ac full (a custom autograd.Function in a checkpointed block)"
  python3 -m memprobe run --model tests/models/quantlinear.py:build --recipe bf16 --ac full --no-fsdp --device cuda \
    --out "$runs/ql-full" -q > /dev/null; echo "exit $?"; show "$runs/ql-full"
  next=$(python3 -c "import json; print(json.load(open('$runs/ql-full/report.json'))['verdict'].get('next_command') or '')" | sed 's/   #.*//')
  echo "=== 2. its next: command, as printed: $next"
  if [ -n "$next" ]; then ${next/#memprobe/python3 -m memprobe} --out "$runs/ql-next" -q > /dev/null; echo "exit $?"; show "$runs/ql-next"; fi
  echo "=== 3. FFN rowwise, --ac-policy torchtitan-2025-01 (default dims)"
  python3 -m memprobe run --recipe rowwise --ac-policy torchtitan-2025-01 --device cuda --out "$runs/rowwise" -q > /dev/null
  echo "exit $?"; show "$runs/rowwise"
  echo "=== 4. A/A: memprobe diff rowwise rowwise --ac-policy torchtitan-2025-01"
  python3 -m memprobe diff rowwise rowwise --ac-policy torchtitan-2025-01 --device cuda --out "$runs/aa" -q > /dev/null
  echo "exit $?"
  python3 -c "import json; d = json.load(open('$runs/aa/diff.json')); print('  differences', d['differences'], '| change', d['change']['kind'], '| verdict', d['verdict']['text'])"
  echo "=== 5. diff bf16 rowwise: both sides' decisions"
  python3 -m memprobe diff bf16 rowwise --ac-policy torchtitan-2025-01 --device cuda --out "$runs/bf16-rowwise" -q > /dev/null
  echo "exit $?"
  python3 -c "
import json; d = json.load(open('$runs/bf16-rowwise/diff.json')); print('  verdict', d['verdict']['text']); print('  next', d['verdict'].get('next_command'))
for it in d['items'][:4]: print('  item', it['status'], it['label'], it['delta_bytes'], '| A:', (it.get('a_decision') or {}).get('text'), '| B:', (it.get('b_decision') or {}).get('text'))"
} 2>&1 | tee "$OUT/causes.log"
