#!/usr/bin/env bash
# The four 2-block probes of scripts/device_torchtitan.sh again (FFN and transformer repro at Llama-3-8B dims, both
# policies), their report.json copied flat to $OUT: scripts/estimate_check.py re-estimates from them offline, against
# the 8- and 16-block figures measured by device_torchtitan.sh (bench/results/estimate-check-h200.json).
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
big="--preset llama3-8b --batch 1 --seq 8192 --device cuda --recipe rowwise --layers 2"
gpus=$(nvidia-smi -L | wc -l)
run() { CUDA_VISIBLE_DEVICES=$1 python3 -m memprobe run $big --repro $2 --ac-policy $3 --out "/tmp/p-$2-$3" -q > /dev/null
        echo "$2 $3 exit $?"; cp "/tmp/p-$2-$3/report.json" "$OUT/probe-$2-$3.json"; }
q() { for pol in torchtitan-2025-01 torchtitan; do run "$1" "$2" "$pol"; done; }
if [ "$gpus" -ge 2 ]; then q 0 ffn & q 1 transformer; wait; else q 0 ffn; q 0 transformer; fi
