#!/usr/bin/env bash
# Issue 39 on a CUDA machine: snapshots taken elsewhere. A plain PyTorch training script that does not use memprobe
# (scripts/plain_snapshot_train.py) records the allocator's history and dumps it, twice with one setting changed (the
# batch doubled; then activation checkpointing off), and memprobe reads the files: `diff` (console, --json,
# --markdown, --html), `show`, `report --trace`, and the A/A diff, checked to be zero in every figure; each file's
# peak is checked against torch.cuda.max_memory_allocated() of the process that wrote it. Last, a larger snapshot of
# the same script: `memprobe show` against pickle.load of the file, each a fresh process (time and peak RSS).
# Usage: OUT=dir bash scripts/device_snapshots.sh
#        A=a.pickle B=b.pickle OUT=dir bash scripts/device_snapshots.sh   (no training: reads these two, on any machine)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
snaps="$OUT/snapshots"; rm -rf "$snaps"; mkdir -p "$snaps"
memprobe() { python3 -m memprobe "$@"; }
train() {  # $1: the snapshot to write; the rest: the script's flags. Its peak, as torch measured it, beside the file
  local out=$1; shift
  python3 scripts/plain_snapshot_train.py --out "$out" "$@" | tee "$out.log"; local code=${PIPESTATUS[0]}
  echo "exit $code"
  sed -n 's/.*peak allocated \([0-9]*\) B.*/\1/p' "$out.log" > "$out.peak"
}
check() {  # $1: a name; the diff of A and B, their summaries and the A/A diff, checked
  python3 - "$snaps" "$1" <<'PY'
import json, os, sys
d, name = sys.argv[1:3]
load = lambda f: json.load(open(os.path.join(d, f"{name}-{f}.json")))
diff, a, b, aa = load("diff"), load("a"), load("b"), load("aa")
ok = True
def expect(cond, what):
    global ok
    ok &= bool(cond)
    print(("  ok   " if cond else "  FAIL ") + what)
expect(diff["peak_bytes"] == {"a": a["peak_bytes"], "b": b["peak_bytes"], "delta": b["peak_bytes"] - a["peak_bytes"]},
       f"the diff's peaks are the files' ({a['peak_bytes']:,} -> {b['peak_bytes']:,} B)")
expect(sum(x["delta"] for x in diff["by_category"].values()) == diff["peak_bytes"]["delta"],
       "the categories' deltas add up to the peaks'")
figures = [aa[k] for k in ("peak_bytes", "start_bytes", "end_bytes", "reserved_bytes")] + list(aa["by_category"].values())
expect(all(x["delta"] == 0 for x in figures) and aa["items"] == [] and aa["differences"] == 0,
       "the A/A diff is zero in every figure")
for side, s in (("A", a), ("B", b)):
    peak_file = s["file"] + ".peak"
    measured = int(open(peak_file).read() or 0) if os.path.exists(peak_file) else None
    if measured:
        expect(s["peak_bytes"] == measured,
               f"{side}'s peak {s['peak_bytes']:,} B is torch.cuda.max_memory_allocated()'s "
               f"{measured:,} B ({s['peak_bytes'] - measured:+,} B)")
    print(f"  {side}: {s['events']} events, {s['file_bytes']:,} B file; user code {s['user_code_fraction']}; "
          f"named {s['named_fraction']}; by category {s['by_category_bytes']}")
print("  verdict:", diff["verdict"]["text"])
for it in diff["items"][:6]:
    print(f"  item {it['status']:>7} {it['delta_bytes']:>+14,} B {it['category']:<28} {it['frame']}")
print("  checks:", "all passed" if ok else "SOME FAILED")
PY
}
analyse() {  # $1 $2: snapshots A and B; $3: a name for their outputs
  local a=$1 b=$2 name=$3
  echo "=== memprobe diff $a $b --wide"
  memprobe diff "$a" "$b" --wide; echo "exit $?"
  memprobe diff "$a" "$b" --json > "$snaps/$name-diff.json"; echo "diff --json: exit $?"
  memprobe diff "$a" "$b" --markdown > "$snaps/$name-diff.md"; echo "diff --markdown: exit $?"
  memprobe diff "$a" "$b" --html "$snaps/$name-diff.html" --csv "$snaps/$name-diff.csv" --force -q > /dev/null
  echo "diff --html --csv: exit $?"
  echo "=== memprobe show $b"
  memprobe show "$b"; echo "exit $?"
  memprobe show "$a" --json > "$snaps/$name-a.json"; echo "show A --json: exit $?"
  memprobe show "$b" --json > "$snaps/$name-b.json"; echo "show B --json: exit $?"
  memprobe report "$b" -o "$snaps/$name-b.html" --trace "$snaps/$name-b.trace.json" --force; echo "report: exit $?"
  memprobe diff "$a" "$a" --json > "$snaps/$name-aa.json"; echo "A/A diff --json: exit $?"
  echo "=== checks ($name)"
  check "$name"
}
speed() {  # $1: a snapshot: `memprobe show` and `report` against pickle.load of it, fresh processes
  python3 - "$1" <<'PY'
import json, os, subprocess, sys, time
sys.path.insert(0, "bench")
from _proc import measure
path = sys.argv[1]
size = os.path.getsize(path)
base = measure([sys.executable, "-c", f"import pickle; pickle.load(open({path!r}, 'rb'))"])
print(f"  {path}: {size / 2**20:.1f} MiB")
print(f"  pickle.load        {base['seconds']:7.2f} s  peak RSS {base['peak_rss_bytes'] / 2**20:8.0f} MiB")
for verb in (["show", path, "--json"], ["report", path, "-o", path + ".html", "--force"]):
    r = measure([sys.executable, "-m", "memprobe", *verb])
    print(f"  memprobe {verb[0]:<9} {r['seconds']:7.2f} s  peak RSS {r['peak_rss_bytes'] / 2**20:8.0f} MiB  "
          f"({r['seconds'] / base['seconds']:.2f}x pickle.load's time, {r['peak_rss_bytes'] / base['peak_rss_bytes']:.2f}x its "
          f"memory, {r['peak_rss_bytes'] / size:.2f}x the file)")
PY
}
{
  if [ -n "${A:-}" ] && [ -n "${B:-}" ]; then
    echo "=== the snapshots given: A=$A B=$B (no training)"
    analyse "$A" "$B" given
  else
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
    python3 -c "import torch; print('torch', torch.__version__)"
    echo "=== 1. the plain script (no memprobe in it): batch 8 and batch 16, activation checkpointing on"
    train "$snaps/batch8.pickle" --batch 8 --checkpoint
    train "$snaps/batch16.pickle" --batch 16 --checkpoint
    analyse "$snaps/batch8.pickle" "$snaps/batch16.pickle" batch
    echo "=== 2. the same, activation checkpointing off (batch 8)"
    train "$snaps/batch8-noac.pickle" --batch 8
    analyse "$snaps/batch8.pickle" "$snaps/batch8-noac.pickle" noac
    echo "=== 3. a larger snapshot (400 steps, 8 layers): memprobe against pickle.load"
    train "$snaps/long.pickle" --batch 4 --seq 256 --layers 8 --steps 400 --checkpoint --max-entries 3000000
    speed "$snaps/long.pickle"
    memprobe show "$snaps/long.pickle"; echo "exit $?"
    rm -f "$snaps/long.pickle" "$snaps/long.pickle.html"  # large: its figures are in the log
  fi
} 2>&1 | tee "$OUT/snapshots.log"
