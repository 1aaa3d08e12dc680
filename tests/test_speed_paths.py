"""Time to answer: probes at once on one GPU when they fit, and compiles served from the caches.

The scheduling is tested with a fake ``nvidia-smi`` on PATH (this machine has no GPU) and with real
probe processes on the CPU given a shared "GPU" pool; the caches with real cold and warm runs of a
tiny configuration, compared file by file. No wall-clock figure is asserted (bench/ has those).
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from conftest import TINY, run_cli, saved_table

from memprobe.analysis.diff import diff_reports
from memprobe.config import ProbeConfig
from memprobe.errors import ConfigError
from memprobe.orchestrate.diff import diff_placement
from memprobe.orchestrate.placement import (
    FIT_FRACTION,
    PROCESS_OVERHEAD_BYTES,
    Gpu,
    PeakRecords,
    config_bound,
    peak_key,
    place,
    probe_need,
    query_gpus,
)
from memprobe.orchestrate.process import ProbeJob, SideEnv, run_jobs
from memprobe.report.words import schedule_line
from memprobe.rundir import schema as S
from memprobe.rundir.load import dump

ROOT = Path(__file__).resolve().parent.parent
MIB = 2**20
# index, uuid, memory.total, memory.free (MiB), as `nvidia-smi --query-gpu=... --format=csv,noheader,nounits` prints
SMI = "0, GPU-11111111-aaaa, 143771, 143000\n1, GPU-22222222-bbbb, 143771, 1200\n2, GPU-33333333-cccc, [N/A], [N/A]\n"


@pytest.fixture
def fake_smi(tmp_path, monkeypatch):
    """A fake nvidia-smi first on PATH, and memprobe's cache (recorded peaks) in a fresh directory."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\ncat <<'EOF'\n{SMI}EOF\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("MEMPROBE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    return monkeypatch


def _cuda(recipe: str, **kw) -> ProbeConfig:
    return ProbeConfig(recipe=recipe, device="cuda", ac_policy="torchtitan-2025-01", **kw)


def test_fake_nvidia_smi_gives_the_visible_gpus_and_their_free_memory(fake_smi):
    assert query_gpus() == [
        Gpu("0", 143771 * MIB, 143000 * MIB),
        Gpu("1", 143771 * MIB, 1200 * MIB),
        Gpu("2", None, None),
    ]
    fake_smi.setenv("CUDA_VISIBLE_DEVICES", "1,GPU-1111,7,-1,0")
    # in CUDA_VISIBLE_DEVICES order, a UUID prefix matched, an unknown id kept without memory, stopped at -1
    assert query_gpus() == [Gpu("1", 143771 * MIB, 1200 * MIB), Gpu("GPU-1111", 143771 * MIB, 143000 * MIB), Gpu("7")]


def test_sides_share_one_gpu_when_both_fit(fake_smi):
    fake_smi.setenv("CUDA_VISIBLE_DEVICES", "0")
    sides = {"a": _cuda("bf16"), "b": _cuda("fp8")}
    placement = diff_placement(sides, {}, parallel=False)
    assert placement.slots == 2 and placement.gpus == ["0", "0"] and placement.shared
    needs = {n.label: n for n in placement.needs}
    assert needs["a"].bytes == config_bound(sides["a"]) and needs["a"].basis == "configuration bound"
    assert needs["a"].bytes + needs["b"].bytes <= FIT_FRACTION * 143000 * MIB
    line = schedule_line(S.DiffResult.model_construct(schedule=S.Schedule(at_once=True, **placement.to_dict())))
    assert "sharing GPU 0" in line and "own allocator" in line


def test_sides_take_one_gpu_each_when_two_are_visible(fake_smi):
    fake_smi.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    placement = diff_placement({"a": _cuda("bf16"), "b": _cuda("fp8")}, {}, parallel=False)
    assert placement.slots == 2 and placement.gpus == ["0", "1"] and not placement.shared


def test_sides_run_one_after_the_other_when_they_do_not_fit(fake_smi):
    fake_smi.setenv("CUDA_VISIBLE_DEVICES", "1")  # 1200 MiB free: less than one side's bound
    sides = {"a": _cuda("bf16"), "b": _cuda("fp8")}
    placement = diff_placement(sides, {}, parallel=False)
    assert placement.slots == 1 and placement.gpus == ["1"] and not placement.shared
    assert placement.why.startswith("one after the other") and "1.17 GiB free" in placement.why
    with pytest.raises(ConfigError, match="cannot run at once"):
        diff_placement(sides, {}, parallel=True)
    fake_smi.setenv("CUDA_VISIBLE_DEVICES", "2")  # memory not reported (e.g. MIG): never shared
    assert diff_placement(sides, {}, parallel=False).slots == 1
    # the diff's line says it once, with why ("sides ran one after the other (one after the other on the CPU)")
    cpu = diff_placement({k: ProbeConfig(recipe=c.recipe, device="cpu") for k, c in sides.items()}, {}, parallel=False)
    for placed, why in ((placement, "1.17 GiB free"), (cpu, "(on the CPU)")):
        line = schedule_line(S.DiffResult.model_construct(schedule=S.Schedule(at_once=False, **placed.to_dict())))
        assert line.startswith("sides ran one after the other (") and line.count("one after the other") == 1, line
        assert why in line, line


def test_a_side_whose_memory_is_unknown_does_not_share(fake_smi, tmp_path):
    fake_smi.setenv("CUDA_VISIBLE_DEVICES", "0")
    model = tmp_path / "m.py"
    model.write_text("def build(device):\n    raise NotImplementedError\n")
    user = ProbeConfig(recipe="bf16", device="cuda", model=f"{model}:build")
    placement = diff_placement({"a": _cuda("bf16"), "b": user}, {}, parallel=False)
    assert placement.slots == 1 and "--model" in placement.why


def test_a_recorded_peak_replaces_the_bound_and_a_bad_peaks_file_is_ignored(fake_smi, tmp_path):
    cfg, env = _cuda("bf16"), SideEnv((("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),))
    peaks = PeakRecords()
    assert probe_need("a", cfg, dict(env.env), None, peaks).basis == "configuration bound"
    peaks.put(peak_key(cfg, dict(env.env), None), 300 * MIB, "NVIDIA H200")
    need = probe_need("a", cfg, dict(env.env), None, peaks)
    assert need.basis == "recorded peak" and need.bytes == int(1.25 * 300 * MIB) + PROCESS_OVERHEAD_BYTES
    # the same configuration with other side settings is another probe
    assert probe_need("a", cfg, {}, None, peaks).basis == "configuration bound"
    bad = '{"memprobe_peaks": 1, "peaks": {"k": {"peak_reserved_bytes": -1}}}'
    peaks.path.write_text(bad)
    assert probe_need("a", cfg, dict(env.env), None, peaks).basis == "configuration bound"
    peaks.put("other", 1, None)
    assert peaks.path.read_text() == bad  # not ours to rewrite: left as it is


def test_the_configuration_bound_holds_for_every_measured_h200_run():
    """The bound (derived from the configuration) against the peak reserved measured on an H200 (ground
    truth from the allocator): 8 runs at Llama-3-8B dims and the two recorded fixtures."""
    measured = []
    for entry in json.loads((ROOT / "bench/results/estimate-check-h200-v2.json").read_text()):
        repro, policy = entry["config"].split()
        cfg = ProbeConfig(
            recipe="rowwise",
            repro=repro,
            ac_policy=policy,
            preset="llama3-8b",
            dim=4096,
            hidden=14336,
            heads=32,
            kv_heads=8,
            layers=entry["summary"]["target_layers"],
            batch=1,
            seq=8192,
            device="cuda",
        )
        measured.append((cfg, entry["components"]["peak_reserved_bytes"]["measured"]))
    for name in ("bf16-legacy", "rowwise-legacy"):
        report = json.loads((ROOT / f"tests/data/cuda/{name}/report.json").read_text())
        peak = max(p["peak_reserved_bytes"] for p in report["memory"]["phases"].values())
        measured.append((ProbeConfig.from_dict(report["config"]), peak))
    assert len(measured) == 10
    for cfg, peak in measured:
        assert config_bound(cfg) >= peak, (cfg.summary(), config_bound(cfg), peak)
    assert config_bound(_cuda("bf16", model=None)) < FIT_FRACTION * 143000 * MIB / 2  # the default sides fit twice


def test_place_spreads_probes_over_gpus_before_sharing():
    needs = [probe_need(f"p{i}", _cuda("bf16"), peaks=PeakRecords(Path("/nonexistent/peaks.json"))) for i in range(3)]
    gpus = [Gpu("0", 10 * 2**40, 10 * 2**40), Gpu("1", 10 * 2**40, 10 * 2**40)]
    placement = place(needs, 3, gpus)
    assert placement.gpus == ["0", "1", "0"] and placement.shared
    assert place(needs, 2, gpus).gpus == ["0", "1"]
    assert place(needs, 3, [Gpu("0", 10 * 2**40, 1)]).slots == 1


@pytest.mark.e2e
def test_probes_sharing_a_gpu_slot_run_at_once_and_measure_as_alone(tmp_path):
    """Two real probe processes from a pool that holds "GPU 0" twice (on the CPU: the scheduling is what is
    tested): they overlap in time, each report says its GPU held two probes, and the A/A difference is zero
    in every measured figure and every saved value."""
    cfg = ProbeConfig(recipe="bf16", dim=64, hidden=128, seq=32, layers=1, device="cpu")
    jobs = [ProbeJob(label, cfg, tmp_path / label) for label in ("a", "b")]
    reports = run_jobs(jobs, progress=lambda msg: None, slots=2, gpus=["0", "0"])
    a, b = reports["a"], reports["b"]
    assert a.process.pid != b.process.pid
    assert a.process.gpus == b.process.gpus == "0"
    assert a.process.gpu_probes_at_once == b.process.gpu_probes_at_once == 2

    def when(r, key):
        return datetime.fromisoformat(getattr(r, key))

    assert when(a, "created_utc") <= when(b, "finished_utc") and when(b, "created_utc") <= when(a, "finished_utc")
    d = dump(diff_reports(a, b))
    assert d["differences"] == 0 and d["totals"]["saved_bytes"]["delta"] == 0
    assert d["phases"]["comparable"] and set(d["phases"]["phases"]) == {"forward", "backward", "optimizer"}
    for figures in d["phases"]["phases"].values():
        assert all(f["delta"] == 0 for f in figures.values()), figures
    for graph in d.get("graphs") or []:
        assert all(v.get("delta") in (0, None) for v in graph.values() if isinstance(v, dict)), graph
    alive = d["alive_at_peak"]
    for key in ("phases", "at_end"):  # every category alive at every phase's peak and end
        assert set(alive[key]) == {"forward", "backward", "optimizer"}
        assert all(v["delta"] == 0 for cats in alive[key].values() for v in cats.values()), alive[key]


@pytest.mark.e2e
def test_probes_one_after_the_other_on_one_gpu_hold_the_next_one_ready(tmp_path):
    """One slot on "GPU 0" and three probes: the next probe's process is started and held while one runs,
    given the same GPU, and each runs alone on it (on the CPU: the scheduling is what is tested, so the probes run
    eager)."""
    cfg = ProbeConfig(recipe="bf16", dim=64, hidden=128, seq=32, layers=1, device="cpu", compile=False)
    jobs = [ProbeJob(label, cfg, tmp_path / label) for label in ("p0", "p1", "p2")]
    reports = run_jobs(jobs, progress=lambda msg: None, slots=1, gpus=["0"])
    assert [r.status for r in reports.values()] == ["complete"] * 3
    assert {r.process.gpus for r in reports.values()} == {"0"}
    assert {r.process.gpu_probes_at_once for r in reports.values()} == {1}
    assert reports["p0"].timings_s.held is None  # only a held probe's wait is set apart from its startup
    spans = sorted((datetime.fromisoformat(r.created_utc), datetime.fromisoformat(r.finished_utc)) for r in reports.values())
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))  # never two at once


def _strip_addresses(report: dict) -> dict:
    """The parts of a report that must not depend on the compile cache (run-time addresses differ by process)."""
    rows = saved_table(report)
    invocations = [
        {
            **{k: v for k, v in inv.items() if k != "input_ids"},
            "runtime_saved": [{k: v for k, v in s.items() if k != "storage_id"} for s in inv["runtime_saved"] or []],
        }
        for inv in report["invocations"]
    ]
    keep = ("graphs", "policy_decisions", "saved_totals", "findings", "graph_memory")
    return {"saved_tensors": rows, "invocations": invocations, **{k: report.get(k) for k in keep}}


def _files(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): p.read_text() for d in ("graphs", "output_code") for p in sorted((run / d).rglob("*"))}


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["bf16", "rowwise"])
def test_a_warm_run_records_what_a_cold_one_compiled(tmp_path, monkeypatch, recipe, cold_graph_cache):
    """Cold (an empty cache), warm (AOTAutograd's cache hit, graphs from memprobe's record), and warm with a
    damaged record (compiled again): the same graphs, output code, saved table and policy decisions. rowwise: the
    float8 graphs too (torchao's Function keyed by torchao's sources: memprobe/capture/function_keys.py). Cold for
    the graphs; the session's C++ kernels are there (:func:`conftest.cold_graph_cache`)."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(cold_graph_cache))
    flags = ("run", "--recipe", recipe, "--ac-policy", "torchtitan-2025-01", *TINY, "-q")
    runs = {}
    for name in ("cold", "warm", "damaged"):
        if name == "damaged":
            for record in (cold_graph_cache / "memprobe-graphs").glob("*.json"):
                text = json.loads(record.read_text())
                text["graphs"][0]["nodes"][0]["name"] = ""  # not a node name: the record is refused
                record.write_text(json.dumps(text))
        proc = run_cli(*flags, "--out", tmp_path / name)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[name] = json.loads((tmp_path / name / "report.json").read_text())
    cache = {k: r["compile_cache"] for k, r in runs.items()}
    graphs = len({g["dynamo_graph"] for g in runs["cold"]["graphs"]})
    assert cache["cold"]["state"] == "cold" and cache["cold"]["records_written"] == graphs
    assert cache["warm"]["state"] == "warm" and cache["warm"]["graphs_from_records"] == graphs
    assert cache["warm"]["aot_autograd"]["hit"] == graphs and cache["warm"]["fx_graph"]["miss"] == 0
    assert cache["damaged"]["graphs_from_records"] == 0 and cache["damaged"]["aot_autograd"]["hit"] == graphs
    assert runs["cold"]["policy_decisions"]
    for name in ("warm", "damaged"):
        assert _strip_addresses(runs[name]) == _strip_addresses(runs["cold"]), name
        assert _files(tmp_path / name) == _files(tmp_path / "cold"), name
    loaded = [g["output_code_loaded_from"] for g in runs["warm"]["graphs"]]
    assert all(p and p.startswith(str(cold_graph_cache)) and Path(p).is_file() for p in loaded), loaded


def test_the_policy_pickles_as_itself_with_one_cache_hash_in_every_process():
    code = (
        "import pickle, sys; from memprobe.policies import effective_policy, make_context_fn; "
        "fn = make_context_fn(effective_policy('torchtitan-2025-01', ['aten.silu']), {'x': 1}); "
        "sys.stdout.write(fn.cache_hash + ' ' + pickle.dumps(fn).hex())"
    )
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout for _ in range(2)]
    assert outs[0] == outs[1]  # the same key in every process (no address, no recorded decisions)
    fn = pickle.loads(bytes.fromhex(outs[0].split()[1]))
    assert fn.cache_hash == outs[0].split()[0] and fn.args == (fn.cache_hash, 0)
    from memprobe.policies import effective_policy, make_context_fn

    other = make_context_fn(effective_policy("torchtitan"))
    assert other.cache_hash != fn.cache_hash


@pytest.mark.e2e
def test_a_diff_asks_for_its_probes_before_it_imports_the_record_schema():
    """What a diff imports before it asks for its first probe: no record schema, no pydantic, no analyses and no
    renderers (imported while the probes run: run_jobs' ``meanwhile``). The CPU's placement reads nothing recorded."""
    code = (
        "import sys\n"
        "from memprobe.cli.main import main\n"
        "import memprobe.cli.diff, memprobe.orchestrate.diff\n"
        "from memprobe.orchestrate import process\n"
        "from memprobe.config import config_from_values\n"
        "assert process.cuda_placement([('a', config_from_values({'device': 'cpu'}), process.SideEnv())], 1) is None\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pandas', 'jinja2')"
        " or m.startswith(('memprobe.rundir.schema', 'memprobe.analysis.', 'memprobe.report.', 'memprobe.orchestrate.finish'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]", proc.stdout


# `memprobe VERB SNAPSHOT`, the modules loaded when the verb forks the process that reads the snapshot: printed
SNAPSHOT_FORK = """
import sys
import memprobe.forked as forked
start = forked.Forked.__init__
def spy(self, *args, **kwargs):
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "jinja2", "rich", "pandas")
                    or m.startswith(("memprobe.rundir.schema", "memprobe.config", "memprobe.report.", "memprobe.targets")))
    print("loaded at the fork:", loaded, file=sys.stderr)
    start(self, *args, **kwargs)
forked.Forked.__init__ = spy
sys.argv = ["memprobe", *sys.argv[1:]]
from memprobe.cli.main import main
main()
"""


@pytest.mark.parametrize("verb", [["show", "--json"], ["report", "-o", "page.html"]], ids=["show", "report"])
def test_a_snapshots_verb_forks_its_reader_before_it_imports_the_record_schema(verb, tmp_path):
    """``show`` and ``report`` of a snapshot file fork the process that reads it before they import the record's
    schema, pydantic, the renderers or the probe configuration: those are imported while the snapshot is read."""
    snapshot = ROOT / "tests" / "data" / "cuda" / "plain-script" / "odd.pickle"
    args = [verb[0], str(snapshot), *verb[1:]]
    proc = subprocess.run([sys.executable, "-c", SNAPSHOT_FORK, *args], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.splitlines().count("loaded at the fork: []") == 1, proc.stderr


def test_a_bf16_probe_imports_nothing_of_torchao(tmp_path):
    """Importing torchao costs seconds per process; a bf16 probe, compiled and measured, needs none of it (the
    same check finds torchao in a process that asked for a float8 recipe)."""
    show = "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'torchao')), flush=True); "
    code = (
        "import json, sys; from memprobe.config import ProbeConfig; from memprobe.capture.runner import run_probe; "
        f"run_probe(ProbeConfig(recipe='bf16', dim=64, hidden=128, seq=32, layers=1, device='cpu'), {str(tmp_path / 'r')!r}); "
        + show
        + "from memprobe.compat.torchao import require; require('rowwise'); "
        + show
    )  # one fresh process: the bf16 probe first, then what a float8 recipe asks for
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    bf16, rowwise = (json.loads(line) for line in proc.stdout.strip().splitlines()[-2:])
    assert json.loads((tmp_path / "r" / "report.json").read_text())["status"] == "complete"
    assert bf16 == [] and "torchao.float8" in rowwise


# compiles a tiny float8 model (rowwise) through memprobe's backend, or torch's own, and prints AOTAutograd's lookups
FLOAT8_KEYS = """
import json, sys
import torch, torch.nn as nn
import torch._functorch.config as functorch_config
from torch._dynamo.utils import counters
from torchao.float8 import Float8LinearConfig, convert_to_float8_training
from memprobe.capture import function_keys
from memprobe.capture.caches import GraphRecords
from memprobe.capture.compile_hooks import GraphCapture

class Own(torch.autograd.Function):  # the user's own Function, as torchao's: allowed in the graph
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

own = torch._dynamo.allow_in_graph(Own)

def lookups(how, act=nn.SiLU, extra=None):
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    layers = [nn.Linear(64, 128, bias=False), act(), nn.Linear(128, 64, bias=False)]
    m = nn.Sequential(*layers)
    convert_to_float8_training(m, config=Float8LinearConfig.from_recipe_name("rowwise"))
    f = (lambda x: own.apply(m(x))) if extra else m
    if how == "torch":  # torch's own backend, with the flag that admits custom autograd.Functions
        with functorch_config.patch(autograd_cache_allow_custom_autograd_functions=True, enable_autograd_cache=True):
            torch.compile(f)(torch.randn(32, 64, requires_grad=True)).sum().backward()
    else:
        capture = GraphCapture(records=GraphRecords(sys.argv[1]))
        with capture.cache_config():
            torch.compile(f, backend=capture)(torch.randn(32, 64, requires_grad=True)).sum().backward()
    return {k: int(counters["aot_autograd"]["autograd_cache_" + k]) for k in ("hit", "miss", "bypass")}

out = {"flag": lookups("torch"), "cold": lookups("memprobe"), "warm": lookups("memprobe")}
out["model changed"] = lookups("memprobe", act=nn.GELU)
out["own Function"] = lookups("memprobe", extra=True)
import torchao
torchao.__version__ = "0.0.0+another"  # another torchao: its version (its sources likewise) is in the key
function_keys.torchao_key.cache_clear()
out["another torchao"] = lookups("memprobe")
print(json.dumps(out))
"""


@pytest.mark.e2e
def test_float8_graphs_are_cached_keyed_by_torchao_and_the_model(tmp_path, cold_graph_cache):
    """torchao's float8 Function is allowed in the graph (a trampoline AOTAutograd's key cannot name): with torch's own
    backend it bypasses the cache, the flag that admits custom autograd.Functions on or not. Through memprobe's backend
    the graph is cached keyed by the Function and torchao's sources: a second compile hits; a changed model, another
    torchao (its version changed here), or a Function of the user's own in the graph miss or bypass."""
    pytest.importorskip("torchao.float8")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cold_graph_cache)}
    proc = subprocess.run(
        [sys.executable, "-c", FLOAT8_KEYS, str(tmp_path / "records")], capture_output=True, text=True, env=env, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["flag"] == {"hit": 0, "miss": 0, "bypass": 1}
    assert got["cold"] == {"hit": 0, "miss": 1, "bypass": 0}
    assert got["warm"] == {"hit": 1, "miss": 0, "bypass": 0}
    assert got["model changed"] == {"hit": 0, "miss": 1, "bypass": 0}
    assert got["own Function"] == {"hit": 0, "miss": 0, "bypass": 1}  # left as it was: not keyed
    assert got["another torchao"] == {"hit": 0, "miss": 1, "bypass": 0}
