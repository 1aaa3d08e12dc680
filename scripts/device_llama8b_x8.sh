#!/usr/bin/env bash
# Issue 42: the upstream regression at its own scale. torchtitan's own Llama 3 8B (--repro torchtitan --flavor 8B),
# all 32 layers, FSDP2 over 8 GPUs of one host (--nproc 8), rowwise float8, local batch 1 and sequence 8192
# (torchtitan's Llama 3 8B training config of that time), with torchtitan's per-op SAC as installed (A: aten.abs not
# saved) and with aten.abs added to its save list (B), as one `memprobe diff`; then `memprobe estimate` of the same
# configuration from a 2-block probe of each policy on one GPU. It prints each side's peak allocated and reserved
# (the max over the ranks), each rank's figures with the largest and the slowest rank, the saved difference beside
# what the weight shapes give, the snapshots' sizes, and how long each part took.
#
# Usage (on nvidia-h200-x8):  OUT=dir bash scripts/device_llama8b_x8.sh
# A dry run at fewer ranks and layers (one H200):  NPROC=1 LAYERS=4 OUT=dir bash scripts/device_llama8b_x8.sh
# Wheels carried in .whl/ (Python 3.12): torchao, pydantic and what torchtitan 0.2.2's Llama 3 imports
# (docs/versions.md, "torchtitan 0.2.2's Llama 3 on the H200").
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
PYTHON=${PYTHON:-python3}
NPROC=${NPROC:-8}
LAYERS=${LAYERS:-32}
SEQ=${SEQ:-8192}
FLAVOR=${FLAVOR:-8B}
DEVICE=${DEVICE:-cuda}
runs="$OUT/llama8b"
rm -rf "$runs"; mkdir -p "$runs"
common=(--repro torchtitan --flavor "$FLAVOR" --batch 1 --seq "$SEQ" --ac-policy torchtitan-installed --device "$DEVICE")
{
  echo "=== environment"
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  "$PYTHON" -c "import torch, torchao; from importlib.metadata import version; print('torch', torch.__version__, 'torchao', torchao.__version__, 'torchtitan', version('torchtitan'), 'GPUs', torch.cuda.device_count())"
  echo "=== 1. memprobe diff: A as installed, B with --save-op aten.abs; $LAYERS layers on $NPROC rank(s)"
  start=$(date +%s)
  "$PYTHON" -m memprobe diff rowwise rowwise "${common[@]}" --layers "$LAYERS" --nproc "$NPROC" \
    --b '--save-op aten.abs' --out "$runs/diff" -q > "$runs/diff.txt" 2>&1
  echo "diff exit $? in $(( $(date +%s) - start )) s"
  echo "=== 2. 2-block probes on one GPU, each policy, and the estimate of $LAYERS layers on $NPROC rank(s)"
  for side in a b; do
    extra=(); [ "$side" = b ] && extra=(--save-op aten.abs)
    start=$(date +%s)
    "$PYTHON" -m memprobe run --recipe rowwise "${common[@]}" --layers 2 \
      "${extra[@]}" --out "$runs/probe-$side" -q > /dev/null 2>&1
    echo "probe $side exit $? in $(( $(date +%s) - start )) s"
    "$PYTHON" -m memprobe estimate "$runs/probe-$side" --layers "$LAYERS" --world "$NPROC" --batch 1 --seq "$SEQ" --json \
      > "$runs/estimate-$side.json"
  done
  "$PYTHON" - "$runs" "$LAYERS" <<'PY'
import json, sys
from pathlib import Path
runs, layers = Path(sys.argv[1]), int(sys.argv[2])
GiB = 2**30
sides = {}
for side in ("a", "b"):
    path = runs / "diff" / side / "report.json"
    if not path.is_file():
        print(f"[{side}] no report"); continue
    r = json.loads(path.read_text())
    sides[side] = r
    print(f"[{side}] status {r['status']} {r.get('error') or ''}")
    if r["status"] != "complete":
        continue
    ph = r["memory"]["phases"]
    peak = max(p["peak_bytes"] for p in ph.values())
    reserved = max(p.get("peak_reserved_bytes") or 0 for p in ph.values())
    print(f"    step peak allocated {peak / GiB:.2f} GiB, peak reserved {reserved / GiB:.2f} GiB (max over ranks);"
          f" saved {r['saved_totals']['graph_bytes']:,} B (graphs) / {r['saved_totals']['runtime_bytes']} B (run time)")
    d = r.get("distributed") or {}
    for row in d.get("ranks") or []:
        print(f"    rank {row['rank']}: " + ", ".join(f"{k} {v / GiB:.2f} GiB" for k, v in row.items() if k.endswith('_bytes') and isinstance(v, int))
              + (f", step {row['measured_step_s']:.2f} s" if row.get("measured_step_s") is not None else ""))
    print(f"    largest rank {d.get('largest_rank')}, slowest rank {d.get('slowest_rank')}")
    snaps = sorted((runs / "diff" / side).glob("**/snapshot.pickle"))
    print("    snapshots:", ", ".join(f"{p.parent.name} {p.stat().st_size / 2**20:.1f} MiB" for p in snaps) or "none")
    est = runs / f"estimate-{side}.json"
    if est.is_file() and est.stat().st_size:
        e = json.loads(est.read_text())
        t = e["totals"]["target_estimated"]
        print(f"    estimate from 2 blocks: step peak {t['peak_bytes'] / GiB:.2f} GiB (in {t.get('peak_in')}), end of forward"
              f" {t['forward_end_bytes'] / GiB:.2f} GiB, allocated; measured here {peak / GiB:.2f} GiB"
              f" ({100 * (t['peak_bytes'] - peak) / peak:+.1f}%); reserved is not estimated")
d = runs / "diff" / "diff.json"
if d.is_file():
    d = json.loads(d.read_text())
    print("diff verdict:", d["verdict"]["text"])
    wd = sum(it["delta_bytes"] for it in d["items"] if it["kind"] == "weight-derived")
    # abs() of each converted projection weight of a block, bf16, unsharded: w1, w2, w3 (4096 x 14336), wq, wo
    # (4096 x 4096), wk, wv (1024 x 4096) -> 218,103,808 elements x 2 bytes
    expected = layers * 2 * (3 * 4096 * 14336 + 2 * 4096 * 4096 + 2 * 1024 * 4096)
    print(f"weight-derived delta {wd:,} B; the weight shapes give {expected:,} B for {layers} layers ({'equal' if wd == expected else 'DIFFERENT'})")
    for it in d["items"][:8]:
        print(f"  {it['status']} {it['label']} x{it['count']} {it['delta_bytes']:,} B")
PY
} 2>&1 | tee "$OUT/llama8b.log"
