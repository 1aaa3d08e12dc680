#!/usr/bin/env bash
# The peak memprobe replays from a snapshot taken elsewhere against torch.cuda.max_memory_allocated() of the process
# that took it, to the byte: scripts/plain_snapshot_train.py (no memprobe in it) at its own dimensions and at odd
# ones (requests that are not multiples of 512 B, several over 1 MiB), each with the allocator's default rounding and
# with PYTORCH_CUDA_ALLOC_CONF=roundup_power2_divisions:4 (power-of-two steps, recorded in the snapshot's
# allocator_settings); `memprobe show --json` reads each file.
# Usage: OUT=dir bash scripts/device_snapshot_peaks.sh
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
dir="$OUT/peaks"; rm -rf "$dir"; mkdir -p "$dir"
{
  nvidia-smi --query-gpu=name --format=csv,noheader
  for shape in "--batch 8" "--batch 3 --seq 500 --dim 1000 --layers 3"; do
    for conf in "" "roundup_power2_divisions:4"; do
      name=$(echo "$shape $conf" | tr -c 'a-z0-9' '_')
      PYTORCH_CUDA_ALLOC_CONF=$conf python3 scripts/plain_snapshot_train.py $shape --checkpoint --out "$dir/$name.pickle" \
        > "$dir/$name.log" 2>&1 || { echo "train failed: $shape $conf"; tail -3 "$dir/$name.log"; continue; }
      measured=$(sed -n 's/.*peak allocated \([0-9]*\) B.*/\1/p' "$dir/$name.log")
      replayed=$(python3 -m memprobe show "$dir/$name.pickle" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['peak_bytes'])")
      echo "$shape | PYTORCH_CUDA_ALLOC_CONF='$conf': max_memory_allocated $measured B, memprobe show $replayed B, difference $((replayed - measured)) B"
    done
  done
} 2>&1 | tee "$OUT/snapshot_peaks.log"
