#!/usr/bin/env bash
# What the H200 costs before a probe builds, and what the older torchtitan looks like there (issues 22, 26).
# Usage: OUT=dir bash scripts/device_probe_env.sh   (wheels in .whl/: torchao 0.18.0, torchtitan 0.2.2, torchdata,
# tyro, docstring-parser, typeguard)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
export CUDA_VISIBLE_DEVICES=0
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "[$(( ($(date +%s%N) - s) / 1000000 )) ms, exit $rc] $*"; }
{
  nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader
  nproc; python3 -c "import sys; print(sys.version)"
  t python3 -c "import torch"
  t python3 -c "import torch; torch.cuda.init(); print(torch.cuda.get_device_name())"
  t python3 -c "import torch, torchao.float8; print('torchao', torchao.__version__)"
  t python3 -c "import memprobe.capture.runner"
  t python3 -c "
import time, torch, torch.distributed as dist
from memprobe.capture.stack import init_process_group
t0 = time.perf_counter(); init_process_group(torch.device('cuda', 0)); print('nccl pg init', round(time.perf_counter() - t0, 2), 's')"
  python3 -X importtime -c "import memprobe.capture.runner, torch._inductor.compile_fx, torch.distributed.fsdp" 2> "$OUT/importtime.txt"
  sort -t'|' -k2 -n -r "$OUT/importtime.txt" | head -25
  echo "=== the bare training (no recording) on cuda"
  t python3 -m memprobe.capture.bare --device cuda --recipe rowwise 2>&1 | tail -15
  echo "=== memprobe run bf16 cold (plain progress lines)"
  export TORCHINDUCTOR_CACHE_DIR=/tmp/ind-cold
  t python3 -m memprobe run --recipe bf16 --ac-policy torchtitan-2025-01 --device cuda --out "$OUT/r-cold" --force 2>&1 | grep -v '^ ' | head -30
  echo "=== the same, warm"
  t python3 -m memprobe run --recipe bf16 --ac-policy torchtitan-2025-01 --device cuda --out "$OUT/r-warm" --force 2>&1 | grep -E 'building|step|\[' | head -12
  python3 -c "import json; r = json.load(open('$OUT/r-warm/report.json')); print('timings', r['timings_s'])"
  echo "=== torchtitan 0.2.2 on torch 2.11"
  python3 -c "import importlib.metadata as m; print('torchtitan', m.version('torchtitan'))"
  python3 -c "import torchtitan.distributed.activation_checkpoint as ac; print([n for n in dir(ac) if not n.startswith('__')])" 2>&1 | tail -3
  python3 -c "import torchtitan.models.llama3 as l; print([n for n in dir(l) if not n.startswith('__')])" 2>&1 | tail -3
  python3 -c "from torchtitan.models.llama3 import llama3_configs; print(list(llama3_configs))" 2>&1 | tail -2
  python3 -c "import torchtitan.models.llama3.model.model as m; print([n for n in dir(m) if not n.startswith('__')])" 2>&1 | tail -2
  python3 -c "import torchtitan.models.llama3.infra.parallelize as p; import inspect; print([n for n in dir(p) if not n.startswith('__')])" 2>&1 | tail -2
  python3 -c "import torchtitan.components.quantization.float8 as q; print([n for n in dir(q) if not n.startswith('__')])" 2>&1 | tail -2
  t python3 -m memprobe policies 2>&1 | tail -4
} 2>&1 | tee "$OUT/probe_env.log"
