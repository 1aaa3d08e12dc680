#!/usr/bin/env bash
# Issue 52's runs on a CUDA machine (one command of at most 10 minutes on nvidia-h200):
#  1. a script that compiles its whole model and steps a fused AdamW under bf16 autocast
#     (scripts/fused_adamw_train.py) runs to `complete` under `memprobe run -- ...`, and its saved bytes equal the
#     script's own saved_tensors_hooks count;
#  2. a script that runs out of GPU memory in its forward (scripts/cuda_oom_train.py): exit 4, status oom, and the
#     report holds what its step had saved at the error, equal to the script's own count;
#  3. real snapshots of a plain script (scripts/plain_snapshot_train.py), one of ~50 MB and one of >= 500 MB:
#     `memprobe show` and `memprobe report` against pickle.load of the same file, each a fresh process (big: the
#     second, its events over memprobe's default bound, raised for memprobe's processes);
#  4. served by default (served): three successive `memprobe diff bf16 fp8` typed in a terminal, nothing started
#     first: the first starts `memprobe serve`, the second forks both sides from it; then an A/A diff, and a fourth
#     diff with its phases outside the probes timed (scripts/served_phases.py).
# Usage: OUT=dir bash scripts/device_people.sh [fused|oom|snapshots|big|served|served_on_h200]...
#   (wheels in .whl/: torchao, pydantic; served_on_h200: served where the GPU is an H200, else says so)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
memprobe() { python3 -m memprobe "$@"; }
work=/tmp/people; rm -rf "$work"; mkdir -p "$work"
parts=${*:-fused oom snapshots big served}

fused() {
  echo "=== 1. a compiled model, fused AdamW, bf16 autocast: the script alone, then under memprobe"
  /usr/bin/time -f "  the script alone: %e s" python3 scripts/fused_adamw_train.py --steps 2 --truth "$work/truth.json" || return
  /usr/bin/time -f "  memprobe run: %e s" python3 -m memprobe run --steps 2 --out "$work/fused" -- \
    python3 scripts/fused_adamw_train.py --steps 5
  echo "exit $?"
  python3 - "$work" <<'PY'
import json, sys
d = sys.argv[1]
r, t = json.load(open(f"{d}/fused/report.json")), json.load(open(f"{d}/truth.json"))
totals, outside = r.get("saved_totals") or {}, (r.get("saved_outside") or {}).get("total_bytes", 0)
mine = totals.get("runtime_bytes", 0) + outside
print(f"  status {r['status']}; graphs {len(r.get('graphs', []))}; saved in compiled graphs {totals.get('runtime_bytes')} B"
      f" (derived {totals.get('derived_bytes')} B, agree {totals.get('agree')}) + outside {outside} B = {mine:,} B")
print(f"  the script's own count: {t['saved_bytes']:,} B in {t['tensors']} saved tensors")
print("  check:", "EQUAL" if mine == t["saved_bytes"] and r["status"] == "complete" else f"DIFFERS by {mine - t['saved_bytes']:+,} B")
mem = r.get("memory") or {}
print("  phases:", {k: v.get("peak_bytes") for k, v in (mem.get("phases") or {}).items()})
PY
  memprobe show "$work/fused" --wide; echo "show: exit $?"
  tar -C "$work" -czf "$OUT/fused-run.tgz" --exclude=snapshot.pickle fused
}

oom() {
  echo "=== 2. a script that runs out of GPU memory in its forward: alone (its own count), then under memprobe"
  python3 scripts/cuda_oom_train.py --oom-at 2 --truth "$work/held.json" 2>&1 | tail -2
  /usr/bin/time -f "  memprobe run: %e s" python3 -m memprobe run --steps 2 --out "$work/oom" -- \
    python3 scripts/cuda_oom_train.py --oom-at 2
  echo "exit $?"
  python3 - "$work" <<'PY'
import json, os, sys
d = sys.argv[1]
r, t = json.load(open(f"{d}/oom/report.json")), json.load(open(f"{d}/held.json"))
outside = (r.get("saved_outside") or {}).get("total_bytes")
print(f"  status {r['status']}; oom {r.get('oom')}; error {r.get('error')!r}")
print(f"  saved at the error: memprobe {outside} B; the script's own count {t['saved_bytes']:,} B (iteration {t['iteration']})")
print("  check:", "EQUAL" if outside == t["saved_bytes"] and r["status"] == "oom" else "DIFFERS")
snap = f"{d}/oom/snapshot.pickle"
print("  snapshot.pickle:", f"{os.path.getsize(snap):,} B" if os.path.exists(snap) else "none")
print("  verdict:", (r.get("verdict") or {}).get("text"))
PY
  memprobe show "$work/oom" --wide; echo "show: exit $?"
  tar -C "$work" -czf "$OUT/oom-run.tgz" --exclude=snapshot.pickle oom
}

speed() {  # $1: a snapshot: `memprobe show` and `report` against pickle.load of it, fresh processes, twice each
  python3 - "$1" <<'PY'
import os, sys
sys.path.insert(0, "bench")
from _proc import measure
path = sys.argv[1]
size = os.path.getsize(path)
base = min((measure([sys.executable, "-c", f"import pickle; pickle.load(open({path!r}, 'rb'))"]) for _ in range(2)),
           key=lambda r: r["seconds"])
print(f"  {path}: {size / 2**20:.1f} MiB")
print(f"  pickle.load        {base['seconds']:7.2f} s  peak RSS {base['peak_rss_bytes'] / 2**20:8.0f} MiB")
for verb in (["show", path, "--json"], ["report", path, "-o", path + ".html", "--force"]):
    r = min((measure([sys.executable, "-m", "memprobe", *verb]) for _ in range(2)), key=lambda r: r["seconds"])
    print(f"  memprobe {verb[0]:<9} {r['seconds']:7.2f} s  peak RSS {r['peak_rss_bytes'] / 2**20:8.0f} MiB  "
          f"({r['seconds'] / base['seconds']:.2f}x pickle.load's time, {r['peak_rss_bytes'] / base['peak_rss_bytes']:.2f}x its memory)")
PY
}

snapshots() {
  echo "=== 3. real snapshots of a plain script: memprobe show and report against pickle.load"
  python3 scripts/plain_snapshot_train.py --out "$work/long.pickle" --batch 4 --seq 256 --layers 8 --steps 400 \
    --checkpoint --max-entries 3000000
  speed "$work/long.pickle"
  echo "  the stages of each (scripts/snapshot_stages.py):"
  python3 scripts/snapshot_stages.py show "$work/long.pickle" --json 2>&1 >/dev/null | grep '^\[stages\]'
  python3 scripts/snapshot_stages.py report "$work/long.pickle" -o "$work/long.html" --force 2>&1 >/dev/null | grep '^\[stages\]'
  xz -T16 -6 -c "$work/long.pickle" > "$OUT/long.pickle.xz"; ls -la "$OUT/long.pickle.xz"
}

served() {  # memprobe diff bf16 fp8 twice, typed in a terminal (script(1) gives the command one), nothing started first
  echo "=== 4. served by default: three successive memprobe diff bf16 fp8 in a fresh shell, then an A/A diff"
  export MEMPROBE_CACHE_DIR=/tmp/mpc; rm -rf /tmp/mpc
  for i in 1 2 3; do
    local t0=$(date +%s.%N)
    script -qec "python3 -m memprobe diff bf16 fp8 --out $work/d$i -q --json > $work/d$i.json" /dev/null | tr -d '\r'
    echo "diff $i: exit ${PIPESTATUS[0]}, $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s"
  done
  script -qec "python3 -m memprobe diff bf16 bf16 --out $work/aa -q > /dev/null" /dev/null | tr -d '\r'
  # a fourth, its phases outside the probes timed (scripts/served_phases.py: the command in one process)
  local t0=$(date +%s.%N)
  script -qec "python3 scripts/served_phases.py diff bf16 fp8 --out $work/d4 -q --json > /dev/null 2> $work/d4.phases" /dev/null | tr -d '\r'
  echo "diff 4 (phases timed): $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s"
  grep '^\[phases\]' "$work/d4.phases"
  python3 - "$work" <<'PY'
import json, sys
d = sys.argv[1]
for name in ("d1", "d2", "d3", "aa"):
    reports = [json.load(open(f"{d}/{name}/{s}/report.json")) for s in "ab"]
    diff = json.load(open(f"{d}/{name}/diff.json"))
    print(f"  {name}: forked_from {[r['process'].get('forked_from') for r in reports]}, differences {diff['differences']}, "
          f"saved delta {diff['totals']['saved_bytes']['delta']:,} B")
    for side, r in zip("ab", reports):
        print(f"    {side}: " + ", ".join(f"{k} {v:.2f} s" for k, v in (r.get("timings_s") or {}).items()))
PY
  python3 -m memprobe serve --status; python3 -m memprobe serve --stop
}

served_on_h200() {
  if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then served; else echo "=== 4. served: not run (no H200)"; fi
}

big() {  # the >= 500 MB snapshot, its events over memprobe's default bound: raised for memprobe's processes
  echo "=== 5. a snapshot of >= 500 MB"
  timeout 240 python3 scripts/plain_snapshot_train.py --out "$work/big.pickle" --batch 4 --seq 256 --layers 8 \
    --steps 4000 --checkpoint --max-entries 40000000 | tail -1
  MEMPROBE_MAX_EVENTS=8000000 MEMPROBE_MAX_FRAMES=1000000000 speed "$work/big.pickle"
}

{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c "import torch, torchao; print('torch', torch.__version__, 'torchao', torchao.__version__)"
  for part in $parts; do "$part"; done
} 2>&1 | tee "$OUT/people.log"
