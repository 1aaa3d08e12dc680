#!/usr/bin/env bash
# Issue 26 on an H200 pair (nvidia-h200-x2): time to answer, one command, inside 8 minutes.
#  - the bare training (python -m memprobe.capture.bare --device cuda), memprobe run, memprobe diff bf16 fp8 (one GPU: sides at
#    once sharing it; --analysis-only too), memprobe diff --parallel (two GPUs), each cold (empty compile caches)
#    and warm (the caches the cold run filled), as whole processes;
#  - the A/A diff of one GPU with the sides at once (fp8 fp8), checked: 0 B in every allocated figure and in
#    every category alive at every phase's peak and end.
# Usage: OUT=dir bash scripts/device_time_to_answer.sh   (torchao 0.18.0 wheel in .whl/)
# Results: $OUT/tta/time_to_answer.json, $OUT/time_to_answer.log
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
{
  nvidia-smi --query-gpu=index,name,memory.total,memory.free --format=csv,noheader
  # what pip does by default (device_env.sh installs without it): byte-code files, so that every process does
  # not compile torchao's sources again
  [ -d /tmp/site/torchao ] && python3 -m compileall -q -j 0 /tmp/site/torchao > /dev/null 2>&1
  # untimed: the first process of a fresh machine reads torch's libraries from disk (5.2 s against 3.6 s)
  python3 -c "import torch, torchao.float8; torch.cuda.init(); print('torch', torch.__version__, 'torchao', __import__('torchao').__version__, torch.cuda.get_device_name())"
  python3 bench/gpu_time_to_answer.py --device cuda --out "$OUT/tta" --budget 380 --timeout 150
} 2>&1 | tee "$OUT/time_to_answer.log"
