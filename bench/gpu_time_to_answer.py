"""Time to answer on a GPU: `memprobe diff bf16 fp8` and `memprobe run`, cold and warm, one GPU and two,
against the bare repro's process time as the floor; and the A/A diff of one GPU with the sides at once.

Every figure is one whole process, timed from its start to its exit. "cold" runs with empty compile caches
(fresh TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR and MEMPROBE_CACHE_DIR); "warm" runs the same command again
with the caches the cold run filled. One-GPU rows run with CUDA_VISIBLE_DEVICES=0, two-GPU rows with 0,1
(skipped with fewer GPUs). For each probe the report's own timings say where its time went (startup before
building, build, first step with compilation, measured step, analysis) and whether its compile cache was
warm. Results: <out>/time_to_answer.json, and a table with the acceptance targets of issue 26. ``--issue41``: issue
41's rows instead (cold, warm, and with a running ``memprobe serve``; the A/A of forked probes on one GPU; the float8
graphs from AOTAutograd's cache against fresh ones; the server's account of CUDA).

    python bench/gpu_time_to_answer.py --device cuda --out $OUT/tta --issue41 --runs /tmp/tta-runs
    python bench/gpu_time_to_answer.py --device cuda --out $OUT/tta
    python bench/gpu_time_to_answer.py --device cpu --out /tmp/tta --extra "--dim 64 --hidden 128 --seq 32 --layers 1"
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICY = ["--ac-policy", "torchtitan-2025-01"]
TARGETS = {  # issue 26's acceptance, on one H200 (two for the parallel row)
    "diff 1 GPU cold": 30.0,
    "diff 1 GPU warm": 12.0,
    "diff --parallel 2 GPUs cold": 25.0,
}
RUN_OVER_REPRO = 1.3


def gpu_count() -> int:
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def timed(argv: list[str], env: dict, timeout: float) -> dict:
    """One process: wall seconds from start to exit, exit code, its stderr lines with their times."""
    t0 = time.perf_counter()
    lines: list[list] = []
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def read(stream, keep: bool):
        for line in stream:
            if keep and line.strip():
                lines.append([round(time.perf_counter() - t0, 2), line.rstrip()[:300]])

    readers = [threading.Thread(target=read, args=(proc.stdout, False)), threading.Thread(target=read, args=(proc.stderr, True))]
    for r in readers:
        r.start()
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    for r in readers:
        r.join()
    return {"seconds": round(time.perf_counter() - t0, 2), "rc": rc, "lines": lines}


def probe_facts(run_dir: Path) -> dict | None:
    """What a probe's report says about its own time and its compile cache."""
    path = run_dir / "report.json"
    if not path.is_file():
        return None
    r = json.loads(path.read_text())
    return {
        "status": r.get("status"),
        "fork_server": (r.get("process") or {}).get("fork_server"),
        "timings_s": r.get("timings_s"),
        "compile_cache": (r.get("compile_cache") or {}).get("state"),
        "pid": (r.get("process") or {}).get("pid"),
        "gpus": (r.get("process") or {}).get("gpus"),
        "gpu_probes_at_once": (r.get("process") or {}).get("gpu_probes_at_once"),
    }


def cold_warm_check(cold_dir: Path, warm_dir: Path) -> dict:
    """A warm run against its cold one: the same saved table and policy decisions, the output code's files
    found (CUDA snapshot frames name them), the same categories alive at the peaks."""
    cold, warm = (json.loads((d / "report.json").read_text()) for d in (cold_dir, warm_dir))

    def table(r):
        return [
            {k: v for k, v in row.items() if k not in ("runtime_storage_id", "input_id")} for row in r["saved_tensors"]
        ]  # addresses

    def categories(r):
        att = r.get("attribution") or {}
        return {p: v.get("by_category_bytes") for p, v in (att.get("phases") or {}).items()}

    return {
        "saved_table_equal": table(cold) == table(warm),
        "policy_decisions_equal": cold.get("policy_decisions") == warm.get("policy_decisions"),
        "graphs_equal": [g["graph_id"] for g in cold["graphs"]] == [g["graph_id"] for g in warm["graphs"]],
        "output_code_files_found": {
            k: sum(1 for g in r["graphs"] if g.get("output_code_loaded_from")) for k, r in (("cold", cold), ("warm", warm))
        },
        "categories_at_peaks_equal": categories(cold) == categories(warm),
        "compile_cache": {k: (r.get("compile_cache") or {}).get("state") for k, r in (("cold", cold), ("warm", warm))},
    }


def aa_check(diff: dict) -> dict:
    """Every allocated figure and every category alive at every phase's peak and end: the deltas that are not 0."""
    nonzero = {}
    for phase, figures in ((diff.get("phases") or {}).get("phases") or {}).items():
        for name, f in figures.items():
            if name != "peak_reserved_bytes" and f.get("delta"):
                nonzero[f"{phase} {name}"] = f["delta"]
    alive = diff.get("alive_at_peak") or {}
    for where, key in (("peak", "phases"), ("end", "at_end")):
        for phase, cats in (alive.get(key) or {}).items():
            for cat, v in cats.items():
                if v.get("delta"):
                    nonzero[f"alive at the {phase} {where}: {cat}"] = v["delta"]
    figures = sum(len(f) for f in ((diff.get("phases") or {}).get("phases") or {}).values())
    return {
        "figures_compared": figures,
        "categories_compared": sum(len(c) for k in ("phases", "at_end") for c in (alive.get(k) or {}).values()),
        "nonzero": nonzero,
        "saved_delta_bytes": diff["totals"]["saved_bytes"]["delta"],
        "differences": diff["differences"],
        "reserved_deltas": {
            phase: f["peak_reserved_bytes"]["delta"]
            for phase, f in ((diff.get("phases") or {}).get("phases") or {}).items()
            if "peak_reserved_bytes" in f
        },
    }


def acceptance(by: dict, aa: dict | None, device: str) -> dict:
    """Each target of issue 26 against the rows measured: met or missed, with the figures."""

    def secs(name):
        r = by.get(name)
        return r["seconds"] if r and r["rc"] == 0 else None

    accept = {}
    for name, target in TARGETS.items():
        s = secs(name)
        accept[name] = {"seconds": s, "target_s": target, "met": s is not None and s <= target}
    run_w, repro_w = secs("run bf16 warm"), secs("repro bf16 warm")
    accept["run warm / repro warm"] = {
        "ratio": round(run_w / repro_w, 3) if run_w and repro_w else None,
        "target": RUN_OVER_REPRO,
        "met": bool(run_w and repro_w and run_w / repro_w <= RUN_OVER_REPRO),
    }
    for state in ("cold", "warm"):
        full, only = secs(f"diff 1 GPU {state}"), secs(f"diff --analysis-only 1 GPU {state}")
        accept[f"analysis-only faster, {state}"] = {
            "full_s": full,
            "analysis_only_s": only,
            "met": bool(full and only and only < full),
        }
    if aa is not None and "check" in aa:
        c = aa["check"]
        shared = bool((aa.get("schedule") or {}).get("shared_gpu"))
        accept["A/A 1 GPU sides at once"] = {
            "met": aa["rc"] == 0
            and not c["nonzero"]
            and c["saved_delta_bytes"] == 0
            and c["differences"] == 0
            and (shared or device != "cuda"),
            "shared_gpu": shared,
            **c,
        }
    return accept


def print_summary(rows: list[dict], aa: dict | None, accept: dict, info: dict, results: Path) -> None:
    """The rows with each probe's own timings, the A/A check and the acceptance, as a table."""
    print()
    print(f"{'row':<34} {'wall':>8}  probes' own timings: startup / build / first step / measured (snapshot) / analysis; cache")
    for r in rows:
        if "skipped" in r:
            print(f"{r['name']:<34} skipped: {r['skipped']}")
            continue
        parts = []
        for key, side in (r.get("sides") or {}).items():
            if side and side.get("timings_s"):
                t = side["timings_s"]
                parts.append(
                    f"{key}: {t.get('startup', 0):.1f}/{t.get('build', 0):.1f}/{t.get('first_step', 0):.1f}"
                    f"/{t.get('measured_step', 0):.1f} ({t.get('snapshot_dump', 0):.1f})/{t.get('analysis', 0):.1f}"
                    f" {side.get('compile_cache')}"
                )
        sched = r.get("schedule") or {}
        where = " shared GPU" if sched.get("shared_gpu") else (" at once" if sched.get("at_once") else "")
        print(f"{r['name']:<34} {r['seconds']:7.1f}s  {'; '.join(parts)}{where}" + ("" if r["rc"] == 0 else f"  EXIT {r['rc']}"))
    if aa is not None:
        c = aa.get("check") or {}
        print(
            f"\nA/A (diff fp8 fp8, one GPU, sides at once: {(aa.get('schedule') or {}).get('why')}): exit {aa['rc']}, "
            f"{aa['seconds']} s; {c.get('figures_compared')} allocated figures and {c.get('categories_compared')} categories "
            f"compared, nonzero: {c.get('nonzero') or 'none'}; saved delta {c.get('saved_delta_bytes')} B; "
            f"reserved deltas {c.get('reserved_deltas')}"
        )
    print("\nacceptance:")
    for name, v in accept.items():
        print(
            f"  {'met   ' if v['met'] else 'MISSED'} {name}: "
            + ", ".join(f"{k}={v[k]}" for k in v if k not in ("met", "nonzero"))
        )
    for name, v in info.items():
        print(f"  info   {name}: " + ", ".join(f"{k}={v[k]}" for k in v))
    print(f"\nresults: {results}")


def startup_info(out: Path, by: dict) -> dict:
    """What memprobe adds to torch's own start (a probe's time before building against the imports alone), and
    whether the warm run recorded what the cold one did."""
    info = {}
    cold_dir, warm_dir = out / "run_bf16-cold", out / "run_bf16-warm"
    if (cold_dir / "report.json").is_file() and (warm_dir / "report.json").is_file():
        info["run bf16 warm against cold"] = cold_warm_check(cold_dir, warm_dir)
    for probe, floor_row in (("run bf16 warm", "imports bf16 warm"), ("diff 1 GPU warm", "imports fp8 warm")):
        r, f = by.get(probe), by.get(floor_row)
        starts = [s["timings_s"].get("startup") for s in (r or {}).get("sides", {}).values() if s and s.get("timings_s")]
        if f and starts and None not in starts:
            info[f"startup of {probe} over {floor_row}"] = {"startup_s": max(starts), "imports_s": f["seconds"]}
    return info


# issue 41's acceptance, on one H200: a warm diff, the same with a running `memprobe serve`, and with empty caches
TARGETS_41 = {"diff warm": 12.0, "diff served": 5.0, "diff cold": 30.0}


def forked_by(row: dict) -> dict:
    """Which fork server each side of a row's run came from (its report's ``process.fork_server``; None: fresh)."""
    return {k: (s or {}).get("fork_server") for k, s in (row.get("sides") or {}).items()}


def float8_cache_check(cold: Path, warm: Path) -> dict:
    """The float8 side of a warm diff against the same side of its cold diff: graphs from AOTAutograd's cache (none
    traced again), and the same saved table, policy decisions, graphs and output code (file by file)."""
    check = cold_warm_check(cold, warm)

    def code(d: Path) -> dict:
        return {str(p.relative_to(d)): p.read_text() for p in sorted((d / "output_code").rglob("*.py"))}

    report = json.loads((warm / "report.json").read_text())
    check["output_code_equal"] = bool(code(cold)) and code(cold) == code(warm)
    check["warm_aot_autograd"] = (report.get("compile_cache") or {}).get("aot_autograd")
    check["warm_graphs_from_records"] = (report.get("compile_cache") or {}).get("graphs_from_records")
    return check


def serve_status(env: dict) -> dict | None:
    """`memprobe serve --status` as JSON (None: no server, or no answer)."""
    proc = subprocess.run(
        [sys.executable, "-m", "memprobe", "serve", "--status"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return None


def issue41(a, runs: Path) -> dict:
    """Issue 41 on one GPU: `memprobe diff bf16 fp8` cold, warm, and warm with a running `memprobe serve` (twice); the
    A/A diff fp8 fp8 of probes forked from it, sides at once on one GPU; the float8 graphs of the warm diff against
    the cold one's (from AOTAutograd's cache, identical); the server's account (it never touched CUDA)."""
    py, dev = sys.executable, ["--device", a.device]
    cache = Path(tempfile.mkdtemp(prefix="tta41-"))
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "MEMPROBE_FORKSERVER")}
    env.update(
        PYTHONUNBUFFERED="1",
        CUDA_VISIBLE_DEVICES="0",
        TORCHINDUCTOR_CACHE_DIR=str(cache / "inductor"),
        TRITON_CACHE_DIR=str(cache / "triton"),
        MEMPROBE_CACHE_DIR=str(cache / "memprobe"),
    )
    diff = [py, "-m", "memprobe", "diff", "bf16", "fp8", *POLICY, *dev, *shlex.split(a.extra)]
    rows = []

    def row(name: str, cmd: list[str], out: Path | None) -> dict:
        if out is not None:
            shutil.rmtree(out, ignore_errors=True)
        r = {"name": name, "command": " ".join(cmd[1:]), **timed(cmd, env, a.timeout)}
        if out is not None and (out / "diff.json").is_file():
            d = json.loads((out / "diff.json").read_text())
            r.update(schedule=d.get("schedule"), sides={k: probe_facts(out / k) for k in "ab"}, diff=d)
        r["forked_by"] = forked_by(r)
        rows.append(r)
        print(f"{name:<34} {r['seconds']:7.1f} s  exit {r['rc']}  forked by {r['forked_by']}", flush=True)
        return r

    row(
        "imports fp8",
        [py, "-c", "import torch, torch._dynamo, torch._inductor.compile_fx, torchao.float8; torch.cuda.init()"],
        None,
    )
    row("diff cold", [*diff, "--out", str(runs / "cold")], runs / "cold")
    row("diff warm", [*diff, "--out", str(runs / "warm")], runs / "warm")
    row("serve start", [py, "-m", "memprobe", "serve", "--idle-exit", "600"], None)
    before = serve_status(env)
    for i in (1, 2):
        row(f"diff served {i}", [*diff, "--out", str(runs / f"served{i}")], runs / f"served{i}")
    # --verbose: a side the server would not fork says why ("this probe starts a fresh interpreter: ...")
    aa_cmd = [py, "-m", "memprobe", "diff", "fp8", "fp8", *POLICY, *dev, "--verbose", "--out", str(runs / "aa")]
    aa = row("aa served", aa_cmd, runs / "aa")
    aa["fresh_interpreter_because"] = [line for _, line in aa.get("lines", []) if "fresh interpreter" in line]
    after = serve_status(env)
    row("serve stop", [py, "-m", "memprobe", "serve", "--stop"], None)
    shutil.rmtree(cache, ignore_errors=True)
    return {"rows": rows, "aa": aa, "serve_status": {"before": before, "after": after}}


def accept41(result: dict, runs: Path) -> dict:
    """Issue 41's targets against the rows, the A/A of forked probes, the float8 cache's A/A, the server's account."""
    by = {r["name"]: r for r in result["rows"]}

    def secs(name: str) -> float | None:
        r = by.get(name)
        return r["seconds"] if r and r["rc"] == 0 else None

    accept = {}
    for name, target in TARGETS_41.items():
        s = (
            secs(name)
            if name != "diff served"
            else min(filter(None, [secs("diff served 1"), secs("diff served 2")]), default=None)
        )
        accept[name] = {"seconds": s, "target_s": target, "met": s is not None and s <= target}
    served = [by.get(f"diff served {i}", {}).get("forked_by") for i in (1, 2)] + [result["aa"].get("forked_by")]
    accept["served sides forked from memprobe serve"] = {
        "forked_by": served,
        "met": all(f and set(f.values()) == {"memprobe serve"} for f in served),
    }
    aa = result["aa"]
    check = aa_check(aa["diff"]) if aa.get("diff") else {"nonzero": {"missing": "no diff.json"}}
    shared = bool((aa.get("schedule") or {}).get("shared_gpu"))
    accept["A/A forked, 1 GPU, sides at once"] = {
        "met": aa["rc"] == 0 and not check["nonzero"] and check.get("saved_delta_bytes") == 0 and shared,
        "shared_gpu": shared,
        **check,
    }
    if (runs / "cold" / "b" / "report.json").is_file() and (runs / "warm" / "b" / "report.json").is_file():
        f8 = float8_cache_check(runs / "cold" / "b", runs / "warm" / "b")
        ok = all(f8[k] for k in ("saved_table_equal", "policy_decisions_equal", "graphs_equal", "output_code_equal"))
        hits = (f8["warm_aot_autograd"] or {}).get("bypass") == 0 and (f8["warm_aot_autograd"] or {}).get("miss") == 0
        accept["float8 graphs cached = fresh"] = {"met": ok and hits, **f8}
    st = result["serve_status"]
    untouched = all(s and s.get("cuda_initialized") is False and s.get("cuda_driver_started") is False for s in st.values())
    accept["memprobe serve never touched CUDA"] = {"met": untouched, **st}
    return accept


def main41(a) -> None:
    runs = a.runs or a.out
    runs.mkdir(parents=True, exist_ok=True)
    result = issue41(a, runs)
    result["acceptance"] = accept41(result, runs)
    for r in result["rows"]:
        r.pop("diff", None)
        r["lines"] = r["lines"][-40:]
    result["aa"] = {k: v for k, v in result["aa"].items() if k != "diff"}
    (a.out / "time_to_answer.json").write_text(json.dumps(result, indent=1))
    print("\nacceptance (issue 41):")
    for name, v in result["acceptance"].items():
        shown = {k: v[k] for k in v if k not in ("met", "nonzero", "before", "after")}
        print(f"  {'met   ' if v['met'] else 'MISSED'} {name}: {json.dumps(shown, default=str)[:600]}")
    print(f"\nresults: {a.out / 'time_to_answer.json'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--out", type=Path, required=True, help="results and run directories go here")
    ap.add_argument("--runs", type=Path, default=None, help="run directories go here instead (default --out)")
    ap.add_argument("--extra", default="", help="flags added to every command (e.g. smaller dims on the CPU)")
    ap.add_argument("--budget", type=float, default=450.0, help="seconds: rows left when it is spent are skipped")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds one command may take")
    ap.add_argument("--issue41", action="store_true", help="issue 41's rows: cold, warm, served, forked A/A, float8 cache")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    if a.issue41:
        main41(a)
        return
    extra = shlex.split(a.extra)
    gpus = gpu_count()
    py = sys.executable
    dev = ["--device", a.device]
    diff = [py, "-m", "memprobe", "diff", "bf16", "fp8", *POLICY, *dev, *extra]
    floor = "import torch, torch._dynamo, torch._inductor.compile_fx{}; torch.cuda.is_available() and torch.cuda.init()"
    # (name, command builder given its output directory, CUDA_VISIBLE_DEVICES, GPUs needed, whose cache its warm
    # run uses: its own cold run's, or the named case's); in order of importance (a spent budget skips the rest)
    cases = [
        ("imports bf16", lambda o: [py, "-c", floor.format("")], "0", 1, None),
        ("imports fp8", lambda o: [py, "-c", floor.format(", torchao.float8")], "0", 1, None),
        ("repro bf16", lambda o: [py, "-m", "memprobe.capture.bare", "--recipe", "bf16", *POLICY, *dev, *extra], "0", 1, None),
        (
            "run bf16",
            lambda o: [py, "-m", "memprobe", "run", "--recipe", "bf16", *POLICY, *dev, *extra, "--out", o],
            "0",
            1,
            None,
        ),
        ("diff 1 GPU", lambda o: [*diff, "--out", o], "0", 1, None),
        ("aa", None, "0", 1, None),  # the A/A diff, with the caches "diff 1 GPU" filled
        ("diff --analysis-only 1 GPU", lambda o: [*diff, "--analysis-only", "--out", o], "0", 1, "diff 1 GPU"),
        ("diff --parallel 2 GPUs", lambda o: [*diff, "--parallel", "--out", o], "0,1", 2, None),
        (
            "repro rowwise",
            lambda o: [py, "-m", "memprobe.capture.bare", "--recipe", "rowwise", *POLICY, *dev, *extra],
            "0",
            1,
            None,
        ),
    ]
    base_env = {k: v for k, v in os.environ.items() if k not in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    base_env["PYTHONUNBUFFERED"] = "1"
    started = time.perf_counter()
    rows, caches, case_cache = [], [], {}
    aa = None

    def cache_env(cache: Path, visible: str) -> dict:
        return {
            **base_env,
            "TORCHINDUCTOR_CACHE_DIR": str(cache / "inductor"),
            "TRITON_CACHE_DIR": str(cache / "triton"),
            "MEMPROBE_CACHE_DIR": str(cache / "memprobe"),
            "CUDA_VISIBLE_DEVICES": visible,
        }

    for name, command, visible, needed, warm_from in cases:
        if a.device == "cuda" and gpus < needed:
            rows.append({"name": name, "skipped": f"{needed} GPUs needed, {gpus} visible"})
            continue
        if name == "aa":
            if "diff 1 GPU" in case_cache and time.perf_counter() - started <= a.budget:
                out = a.out / "aa-rowwise"
                shutil.rmtree(out, ignore_errors=True)
                cmd = [py, "-m", "memprobe", "diff", "fp8", "fp8", *POLICY, *dev, *extra, "--out", str(out)]
                aa = {"command": " ".join(cmd[1:]), **timed(cmd, cache_env(case_cache["diff 1 GPU"], visible), a.timeout)}
                if (out / "diff.json").is_file():
                    d = json.loads((out / "diff.json").read_text())
                    aa.update(check=aa_check(d), schedule=d.get("schedule"), sides={k: probe_facts(out / k) for k in "ab"})
                print(f"{'A/A diff fp8 fp8 warm':<34} {aa['seconds']:7.1f} s  exit {aa['rc']}", flush=True)
            continue
        cache = Path(tempfile.mkdtemp(prefix="tta-cache-"))  # empty: the cold run fills it, the warm run reuses it
        caches.append(cache)
        case_cache[name] = cache
        for state in ("cold", "warm"):
            if time.perf_counter() - started > a.budget:
                rows.append({"name": f"{name} {state}", "skipped": "time budget spent"})
                continue
            use = case_cache[warm_from] if state == "warm" and warm_from in case_cache else cache
            out = a.out / f"{name.replace(' ', '_').replace('-', '')}-{state}"
            shutil.rmtree(out, ignore_errors=True)
            res = timed(command(str(out)), cache_env(use, visible), a.timeout)
            row = {"name": f"{name} {state}", "command": " ".join(command(str(out))[1:]), "gpus": visible, **res}
            if use is not cache:
                row["cache"] = f"filled by {warm_from}"
            if (out / "diff.json").is_file():
                d = json.loads((out / "diff.json").read_text())
                row["schedule"] = d.get("schedule")
                row["sides"] = {k: probe_facts(out / k) for k in ("a", "b")}
            elif (out / "report.json").is_file():
                row["sides"] = {"run": probe_facts(out)}
            rows.append(row)
            print(f"{row['name']:<34} {row['seconds']:7.1f} s  exit {row['rc']}", flush=True)
    for cache in caches:
        shutil.rmtree(cache, ignore_errors=True)
    by = {r["name"]: r for r in rows if "seconds" in r}
    if by.get("diff --analysis-only 1 GPU warm"):
        by["diff --analysis-only 1 GPU warm"]["name"] += " (cache of the full diff)"

    accept = acceptance(by, aa, a.device)
    info = startup_info(a.out, by)
    result = {
        "device": a.device,
        "gpus_visible": gpus,
        "extra": extra,
        "rows": rows,
        "aa": aa,
        "acceptance": accept,
        "info": info,
    }
    (a.out / "time_to_answer.json").write_text(json.dumps(result, indent=1))
    print_summary(rows, aa, accept, info, a.out / "time_to_answer.json")


if __name__ == "__main__":
    main()
