#!/usr/bin/env bash
# Issue 41 on one H200 (nvidia-h200): time to answer, one command, inside 9 minutes (about 3 expected).
#  - `memprobe diff bf16 fp8 --ac-policy torchtitan-2025-01 --device cuda` with empty caches (goal <= 30 s), warm
#    (goal <= 12 s), and warm with a running `memprobe serve` (twice; goal <= 5 s), as whole processes;
#  - the A/A diff fp8 fp8 of probes forked from `memprobe serve`, sides at once on one GPU: 0 B in every allocated
#    figure and in every category alive at every phase's peak and end;
#  - the float8 side of the warm diff against the cold one's: its graphs from AOTAutograd's cache (no bypass, no miss)
#    with the same saved table, policy decisions, graphs and output code, file by file;
#  - `memprobe serve --status` before and after its probes: it never initialised CUDA nor loaded the driver.
# Usage: OUT=dir bash scripts/device_time_to_answer.sh   (torchao 0.18.0 wheel in .whl/ when the machine has none)
# Results: $OUT/tta/time_to_answer.json (acceptance under "acceptance"), $OUT/time_to_answer.log; the run
# directories stay on the machine (/tmp/tta-runs).
# Issue 26's rows (run, --analysis-only, --parallel on two GPUs): python3 bench/gpu_time_to_answer.py --device cuda
# --out "$OUT/tta" --budget 380 --timeout 150
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
{
  nvidia-smi --query-gpu=index,name,memory.total,memory.free --format=csv,noheader
  # what pip does by default (device_env.sh installs without it): byte-code files, so that every process does
  # not compile torchao's sources again
  [ -d /tmp/site/torchao ] && python3 -m compileall -q -j 0 /tmp/site/torchao > /dev/null 2>&1
  # untimed: the first process of a fresh machine reads torch's libraries from disk (5.2 s against 3.6 s)
  python3 -c "import torch, torchao.float8; torch.cuda.init(); print('torch', torch.__version__, 'torchao', __import__('torchao').__version__, torch.cuda.get_device_name())"
  timeout 500 python3 bench/gpu_time_to_answer.py --device cuda --out "$OUT/tta" --runs /tmp/tta-runs --issue41 --timeout 150
} 2>&1 | tee "$OUT/time_to_answer.log"
