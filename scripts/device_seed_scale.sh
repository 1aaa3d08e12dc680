#!/usr/bin/env bash
# Issue 50: the seed's configuration at its own scale on one H200, as rank 0 of an 8-rank FSDP2 job whose collectives
# are faked (--fake-world 8: PyTorch's fake process group; rank 0's shards, gathers and reduce-scatter buffers are
# allocated, NCCL's own buffers and the overlap of communication with compute are not). The transformer repro at
# Llama-3-8B dimensions with its embedding, output layer and logits (--preset llama3-8b --vocab 128256), 32 layers,
# local batch 1, sequence 8192, rowwise float8, compile, per-op SAC: A the fixed save list (--ac-policy torchtitan),
# B the 2025-01 one that saves aten.abs (torchtitan-2025-01), as one `memprobe diff`; after it the same two sides at 2
# layers (their graphs are the 32-layer sides', from the compile cache), and `memprobe estimate` of 32 layers from
# each. Each part has a time limit (SEED_S, PROBE_S seconds), so that a slow part leaves the others their time and
# the whole stays within one command of 9 minutes. It prints and writes to $OUT/summary.json, per side, the allocated
# and reserved peaks of each phase beside the seed's figures (torchtitan PR #820: 58.55 / 47.77 GiB peak reserved,
# delta 10.78 GiB; torchao's float8 README on 8 H100s: 47.65 / 47.77 / 47.79 GB for bf16 / tensorwise / rowwise),
# the weight-derived delta beside what the weight shapes give, and each estimate beside the measurement it estimates.
#
# Usage (nvidia-h200, one command of at most 9 minutes):  OUT=dir bash scripts/device_seed_scale.sh
# Wheels carried in .whl/ (Python 3.12, the machine has neither): torchao 0.18.0, pydantic 2.14.4, pydantic-core
# 2.50.5, annotated-types 0.8.0, typing-inspection 0.4.5.
# A smoke test at small dimensions:  PRESET=debug VOCAB=4096 SEQ=1024 LAYERS=4 OUT=dir bash scripts/device_seed_scale.sh
# (on the CPU too, with time: DEVICE=cpu PRESET=debug VOCAB=512 SEQ=32 LAYERS=3 WORLD=4 SEED_S=1200 PROBE_S=900)
# $OUT gets 6 files: seed.log, summary.json, diff.json, estimate-a.json, estimate-b.json, reports.tgz (the four
# report.json and the probes' diff.json); the run directories (snapshots, graphs, output code) stay on the machine.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
PYTHON=${PYTHON:-python3}
PRESET=${PRESET:-llama3-8b}
VOCAB=${VOCAB:-128256}
SEQ=${SEQ:-8192}
LAYERS=${LAYERS:-32}
PROBE_LAYERS=${PROBE_LAYERS:-2}
WORLD=${WORLD:-8}
DEVICE=${DEVICE:-cuda}
runs=/tmp/seed-scale
rm -rf "$runs"; mkdir -p "$runs"
common=(--repro transformer --preset "$PRESET" --vocab "$VOCAB" --batch 1 --seq "$SEQ" --fake-world "$WORLD" --device "$DEVICE")
sides=(--a "--ac-policy torchtitan" --b "--ac-policy torchtitan-2025-01")
t0=$(date +%s)
{
  echo "=== environment"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  "$PYTHON" -c "import torch, torchao; print('torch', torch.__version__, 'torchao', torchao.__version__, 'PYTORCH_CUDA_ALLOC_CONF', __import__('os').environ.get('PYTORCH_CUDA_ALLOC_CONF'))"
  echo "=== 1. the seed: $LAYERS layers, rank 0 of $WORLD (fake), A --ac-policy torchtitan against B torchtitan-2025-01"
  start=$(date +%s)
  timeout "${SEED_S:-330}" "$PYTHON" -m memprobe diff rowwise rowwise "${common[@]}" --layers "$LAYERS" "${sides[@]}" \
    --out "$runs/seed" -q
  echo "seed diff exit $? in $(( $(date +%s) - start )) s"
  echo "=== 2. the probes of the estimate: the same sides at $PROBE_LAYERS layers"
  start=$(date +%s)
  timeout "${PROBE_S:-170}" "$PYTHON" -m memprobe diff rowwise rowwise "${common[@]}" --layers "$PROBE_LAYERS" "${sides[@]}" \
    --out "$runs/probe" -q > /dev/null
  echo "probe diff exit $? in $(( $(date +%s) - start )) s"
  echo "=== 3. memprobe estimate of $LAYERS layers on $WORLD ranks from the $PROBE_LAYERS-layer probes"
  for side in a b; do
    if [ -f "$runs/probe/$side/report.json" ]; then
      "$PYTHON" -m memprobe estimate "$runs/probe/$side" --layers "$LAYERS" --world "$WORLD" --json > "$OUT/estimate-$side.json"
      echo "estimate $side exit $?"
    fi
  done
  "$PYTHON" - "$runs" "$OUT" "$LAYERS" "$PROBE_LAYERS" "$PRESET" <<'PY'
import json, sys
from pathlib import Path

runs, out, layers, probe_layers, preset = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
GiB = 2**30
SEED = {"a": 47.77, "b": 58.55, "delta": 10.78}  # torchtitan PR #820, peak reserved GiB per rank, 8 H100s
README = {"bf16": 47.65, "tensorwise": 47.77, "rowwise": 47.79}  # torchao float8 README, GB, 8 H100s


def load(path):
    return json.loads(path.read_text()) if path.is_file() else None


def side(report, estimate):
    if report is None:
        return {"status": "no report"}
    row = {"status": report["status"], "error": report.get("error"), "distributed": report.get("distributed")}
    if report["status"] != "complete":
        return row
    mem = report["memory"]
    row["phases"] = {
        name: {k: p.get(k) for k in ("start_bytes", "peak_bytes", "end_bytes", "peak_reserved_bytes")}
        for name, p in mem["phases"].items()
    }
    row["peak_allocated_bytes"] = max(p["peak_bytes"] for p in mem["phases"].values())
    row["peak_reserved_bytes"] = max(p.get("peak_reserved_bytes") or 0 for p in mem["phases"].values())
    row["process_peak_reserved_bytes"] = mem.get("process_peak_reserved_bytes")
    row["persistent"], row["gradients_bytes"] = mem.get("persistent"), mem.get("gradients_bytes")
    row["saved"] = {k: report["saved_totals"].get(k) for k in ("graph_bytes", "runtime_bytes", "by_kind_bytes")}
    row["saved_outside_bytes"] = (report.get("saved_outside") or {}).get("total_bytes")
    row["timings_s"] = report.get("timings_s")
    if estimate is not None:
        row["estimate"] = against(estimate["totals"]["target_estimated"], mem, row)
    return row


def against(t, mem, row):
    """An estimate beside the measurement (the CPU's phase figures are above the step's start: its state added)."""
    pers = mem.get("persistent") or {}
    base = 0 if mem["source"] == "cuda-allocator" else (pers.get("parameters_bytes") or 0) + (pers.get("optimizer_state_bytes") or 0)
    peak, fwd_end, reserved = row["peak_allocated_bytes"] + base, mem["phases"]["forward"]["end_bytes"] + base, row["peak_reserved_bytes"]
    return {
        "peak_bytes": t["peak_bytes"],
        "peak_in": t.get("peak_in"),
        "peak_error": round((t["peak_bytes"] - peak) / peak, 5),
        "forward_end_bytes": t["forward_end_bytes"],
        "forward_end_error": round((t["forward_end_bytes"] - fwd_end) / fwd_end, 5),
        "against_peak_reserved": round((t["peak_bytes"] - reserved) / reserved, 5) if reserved else None,
    }


summary = {"seed_reference_gib": SEED, "float8_readme_gb": README, "layers": layers, "preset": preset}
for s in "ab":
    summary[s] = side(load(runs / "seed" / s / "report.json"), load(out / f"estimate-{s}.json"))
    summary[f"probe_{s}"] = side(load(runs / "probe" / s / "report.json"), None)
a, b = summary["a"], summary["b"]
if "phases" in a and "phases" in b:
    summary["delta"] = {
        "peak_allocated_bytes": b["peak_allocated_bytes"] - a["peak_allocated_bytes"],
        "peak_reserved_bytes": b["peak_reserved_bytes"] - a["peak_reserved_bytes"],
    }
diff = load(runs / "seed" / "diff.json")
if diff is not None:
    wd = sum(it["delta_bytes"] for it in diff["items"] if it["kind"] == "weight-derived")
    # abs() of each projection weight of a block, bf16, unsharded: wq, wo (dim x dim), wk, wv (kv width x dim), w1,
    # w2, w3 (hidden x dim) at the preset's dimensions
    dims = {"llama3-8b": (4096, 14336, 32, 8), "debug": (256, 768, 8, 2)}.get(preset)
    shapes = None
    if dims:
        dim, hidden, heads, kv_heads = dims
        shapes = layers * 2 * (2 * dim * dim + 2 * dim // heads * kv_heads * dim + 3 * dim * hidden)
    summary["diff"] = {"verdict": diff["verdict"]["text"], "saved_delta_bytes": diff["totals"]["saved_bytes"]["delta"],
                       "weight_derived_delta_bytes": wd, "weight_shapes_give_bytes": shapes}
(out / "summary.json").write_text(json.dumps(summary, indent=1))

for s, label in (("a", "A torchtitan (fixed)"), ("b", "B torchtitan-2025-01 (aten.abs saved)")):
    row = summary[s]
    print(f"[{label}] {row['status']} {row.get('error') or ''}")
    for name, p in (row.get("phases") or {}).items():
        print(f"    {name:<9} peak allocated {p['peak_bytes'] / GiB:7.2f} GiB   peak reserved {(p['peak_reserved_bytes'] or 0) / GiB:7.2f} GiB")
    if "phases" in row:
        process = row["process_peak_reserved_bytes"] or 0
        print(f"    step: peak allocated {row['peak_allocated_bytes'] / GiB:.2f} GiB, peak reserved {row['peak_reserved_bytes'] / GiB:.2f} GiB"
              f" (seed: {SEED[s]} GiB reserved); process peak reserved {process / GiB:.2f} GiB (the build too)")
    if "estimate" in row:
        e = row["estimate"]
        reserved = "" if e["against_peak_reserved"] is None else f", {100 * e['against_peak_reserved']:+.2f}% of the reserved"
        print(f"    estimate from {probe_layers} layers: peak {e['peak_bytes'] / GiB:.2f} GiB ({e['peak_in']}),"
              f" {100 * e['peak_error']:+.3f}% of the allocated peak{reserved}; end of forward {100 * e['forward_end_error']:+.3f}%")
if "delta" in summary:
    d = summary["delta"]
    print(f"B - A: peak allocated {d['peak_allocated_bytes'] / GiB:+.2f} GiB, peak reserved {d['peak_reserved_bytes'] / GiB:+.2f} GiB"
          f" (seed: +{SEED['delta']} GiB reserved)")
if "diff" in summary:
    d = summary["diff"]
    print(f"saved for backward B - A {d['saved_delta_bytes'] / GiB:+.2f} GiB; weight-derived {d['weight_derived_delta_bytes']:,} B;"
          f" the weight shapes give {format(d['weight_shapes_give_bytes'] or 0, ',')} B")
    print("verdict:", d["verdict"])
PY
  echo "=== done in $(( $(date +%s) - t0 )) s"
} 2>&1 | tee "$OUT/seed.log"
cp "$runs/seed/diff.json" "$OUT/diff.json" 2>/dev/null
(cd "$runs" && tar -czf "$OUT/reports.tgz" --ignore-failed-read probe/diff.json probe/a/report.json probe/b/report.json \
  seed/a/report.json seed/b/report.json 2>/dev/null)
