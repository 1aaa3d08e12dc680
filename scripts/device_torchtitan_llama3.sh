#!/usr/bin/env bash
# Issue 22 on CUDA: torchtitan's own Llama 3 (--repro torchtitan) at Llama-3-8B dims, 2 layers, batch 1, seq 8192,
# rowwise float8, with the installed torchtitan's own per-op SAC (--ac-policy torchtitan-installed) as installed (A)
# and with aten.abs added to its save list (B): one `memprobe diff`, each side a process of its own. It prints the
# environment, each side's saved bytes and phase peaks, and the weight-derived values B saves, named by torchtitan's
# module FQNs: what issue 18 could not measure (torchtitan 0.3 needs a newer torch than the device's 2.11; 0.2.2 is
# the release for it).
#
# Usage (the lead, on the device): OUT=dir bash scripts/device_torchtitan_llama3.sh
# Wheels carried in .whl/ (Python 3.12): docs/versions.md lists them (torchao, torchtitan 0.2.2 and what its
# Llama 3 package imports). On the CPU, its logic is checked with a smaller model:
#   PYTHON=venv/bin/python FLAVOR=debugmodel SEQ=64 DEVICE=cpu OUT=/tmp/x bash scripts/device_torchtitan_llama3.sh
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
PYTHON=${PYTHON:-python3}
FLAVOR=${FLAVOR:-8B}
SEQ=${SEQ:-8192}
DEVICE=${DEVICE:-cuda}
runs="$OUT/tt-llama3"
rm -rf "$runs"
{
  echo "=== environment"
  "$PYTHON" - <<'EOF'
import importlib, platform
from importlib.metadata import PackageNotFoundError, version
import torch
print("python", platform.python_version(), "torch", torch.__version__, "cuda", torch.version.cuda,
      torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU")
for p in ("torchao", "torchtitan", "torchdata", "datasets", "tokenizers", "tensorboard"):
    try:
        v = version(p)
    except PackageNotFoundError:
        v = None
    try:
        importlib.import_module(p)
        ok = "imports"
    except Exception as e:
        ok = f"does not import ({type(e).__name__}: {e})"
    print(f"  {p} {v}: {ok}")
EOF
  echo "=== the installed torchtitan's SAC policy"
  "$PYTHON" -m memprobe policies --json | "$PYTHON" -c "
import json, sys
e = json.load(sys.stdin)['torchtitan-installed']
print('available:', e['available'], e['unavailable_because'] or '', '| torchtitan', e['torchtitan'], '|', len(e['save_ops']), 'ops:', ' '.join(e['save_ops']))
print('aten.abs in it:', 'aten.abs.default' in e['save_ops'])"
  echo "=== memprobe diff: A as installed, B with --save-op aten.abs"
  start=$(date +%s)
  "$PYTHON" -m memprobe diff rowwise rowwise --repro torchtitan --flavor "$FLAVOR" --layers 2 --batch 1 --seq "$SEQ" \
    --ac-policy torchtitan-installed --b '--save-op aten.abs' --device "$DEVICE" --out "$runs" --json > "$OUT/diff.json"
  echo "diff exit $? in $(( $(date +%s) - start ))s"
  "$PYTHON" - "$runs" <<'EOF'
import json, sys
from pathlib import Path
runs = Path(sys.argv[1])
for side, what in (("a", "as installed"), ("b", "+ aten.abs")):
    path = runs / side / "report.json"
    if not path.is_file():
        print(f"[{side}] no report"); continue
    r = json.loads(path.read_text())
    v = r.get("versions") or {}
    print(f"[{side}] {what}: status {r['status']} {r.get('error') or ''}| torch {v.get('torch')} torchao {v.get('torchao')} "
          f"torchtitan {v.get('torchtitan')} | {v.get('device_name')}")
    if r["status"] != "complete":
        continue
    t, ph = r["saved_totals"], r["memory"]["phases"]
    runtime = "not inspected" if t["runtime_bytes"] is None else f"{t['runtime_bytes']:,} B"
    print(f"    saved for backward: {t['graph_bytes']:,} B from the graphs, {runtime} at run time; "
          f"parameters saved as graph inputs {t['parameter_graph_bytes']:,} B")
    print("    phases (peak / end bytes): " + "; ".join(f"{k} {p['peak_bytes']:,} / {p['end_bytes']:,}" for k, p in ph.items()))
    wd = [x for x in r["saved_tensors"] if x["kind"] == "weight-derived"]
    print(f"    weight-derived saved values: {len(wd)}, {sum(x['bytes'] for x in wd):,} B")
    for x in sorted(wd, key=lambda x: (-x["bytes"], x["expr"])):
        print(f"      {x['expr']}  op {x['op']}  {x['dtype']}{x['shape']}  {x['bytes']:,} B  block {x['block']}  "
              f"module {(x.get('user') or {}).get('label')}")
    print("    findings:", [(f["kind"], f["bytes"]) for f in r["findings"]])
d = runs / "diff.json"
if d.is_file():
    d = json.loads(d.read_text())
    print("diff: saved bytes B - A =", d["totals"]["saved_bytes"]["delta"], "| items:")
    for it in d["items"]:
        print(f"  {it['status']}: {it['expr']} x{it['count']} {it['dtype']}{it['shape']} delta {it['delta_bytes']:,} B")
EOF
} 2>&1 | tee "$OUT/torchtitan_llama3.log"
