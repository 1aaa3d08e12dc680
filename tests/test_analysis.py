"""The analysis layer works from a run directory alone (recorded graphs, no re-run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import LEGACY_ROWWISE

from memprobe.analysis.evidence import Evidence
from memprobe.analysis.findings import find
from memprobe.analysis.recorded import load_recorded
from memprobe.analysis.saved import (
    build_saved_table,
    graph_pairs,
    group_rows,
    layer_pattern,
    module_groups,
    saved_outputs,
    saved_totals,
    short_op,
)
from memprobe.errors import RunDirError
from memprobe.names import block_prefix, module_path, source_to_fqn, user_name
from memprobe.rundir import schema as S
from memprobe.rundir.load import dump, load_report


def test_source_to_fqn():
    src = "L['self'].__dict__['_modules']['_checkpoint_wrapped_module']._modules['ffn']._modules['w3']._parameters['weight']"
    assert source_to_fqn(src) == ("parameter", "ffn.w3.weight")
    assert source_to_fqn("L['args'][0]") == ("input", "args[0]")
    assert source_to_fqn("L['self']._modules['norm']._buffers['scale']") == ("buffer", "norm.scale")
    # torch.compile(nn.Sequential(...)): Dynamo traces the module as ``fn`` (eval_frame's wrap_inline)
    assert source_to_fqn("L['fn']._modules['0']._modules['fc1']._parameters['bias']") == ("parameter", "0.fc1.bias")


def test_the_users_names_carry_no_wrapper():
    """What torch.compile, checkpoint_wrapper and FSDP1 add to a name is no level of the user's model; a global the
    traced code calls (a library function) is no module of it."""
    assert user_name("transformer.h.0._orig_mod._checkpoint_wrapped_module.mlp.c_fc.weight") == "transformer.h.0.mlp.c_fc.weight"
    assert user_name("_fsdp_wrapped_module.layers.1._fsdp_wrapped_module.attn") == "layers.1.attn"
    assert module_path("L['fn']._modules['1']._modules['fc2']") == "1.fc2"
    assert module_path("G['__import_transformers_dot_models_dot_llama_dot_modeling_llama'].apply_rotary_pos_emb") is None
    assert block_prefix("Net", "Net") is None and block_prefix("layers.0._orig_mod", None) == "layers.0"


def test_small_helpers():
    assert short_op("aten.abs.default") == "abs"
    assert short_op("prims.convert_element_type.default") == "convert_element_type"
    assert layer_pattern("abs(permute(layers.12.ffn.w1.weight))") == "abs(permute(layers.*.ffn.w1.weight))"
    # only the block index of a name, whatever the container is called; not indices inside the block
    assert (
        layer_pattern("mul(blocks.3.mlp.0.weight, model.layers.10.w1.bias)")
        == "mul(blocks.*.mlp.0.weight, model.layers.*.w1.bias)"
    )


def test_rng_state_placeholders_are_neither_primals_nor_saved_values():
    """SDPA on CUDA recomputed under SAC: the forward takes fwd_rng_state_0 after the primals and
    the backward bwd_rng_state_0 after the tangents (seen on the H200, torch 2.11)."""
    from memprobe.analysis.saved import GraphPair, primal_inputs

    def node(name, op="call_function", inputs=(), **kw):
        return {
            "name": name,
            "op": op,
            "target": kw.get("target"),
            "inputs": list(inputs),
            "shape": [4, 4],
            "dtype": "bfloat16",
            "bytes": 32,
            "recompute": kw.get("recompute"),
            "original_aten": None,
            "stack_trace": None,
            **({"outputs": kw["outputs"]} if "outputs" in kw else {}),
        }

    forward = {
        "graph_id": "g0.forward",
        "nodes": [
            node("primals_1", "placeholder"),
            node("primals_2", "placeholder"),
            node("fwd_rng_state_0", "placeholder"),
            node("abs_1", inputs=["primals_1"], target="aten.abs.default", recompute="MUST_SAVE"),
            node("mm", inputs=["primals_2", "abs_1"], target="aten.mm.default"),
            node("output", "output", inputs=["mm", "abs_1"], outputs=["mm", "abs_1"]),
        ],
    }
    backward = {
        "graph_id": "g0.backward",
        "nodes": [
            node("abs_1", "placeholder"),
            node("tangents_1", "placeholder"),
            node("bwd_rng_state_0", "placeholder"),
            node("output", "output", outputs=[None]),
        ],
    }
    inputs = [
        {"placeholder": "w", "source": "L['self']._parameters['weight']", "kind": "parameter", "fqn": "w.weight"},
        {"placeholder": "x", "source": "L['x']", "kind": "input", "fqn": "x"},
    ]
    pair = GraphPair(
        dynamo_graph=0,
        forward=S.GraphFile.model_validate(forward),
        backward=S.GraphFile.model_validate(backward),
        inputs=[S.GraphInput.model_validate(i) for i in inputs],
    )
    assert saved_outputs(pair) == ["abs_1"]
    assert primal_inputs(pair)["primals_1"].fqn == "w.weight"
    rows = build_saved_table({0: pair}, [S.Invocation(dynamo_graph=0, block="layers.0", runtime_saved=None)], None)
    assert [(r.expr, r.kind) for r in rows] == [("abs(layers.0.w.weight)", "weight-derived")]


@pytest.mark.e2e
def test_table_rebuilt_from_files_equals_the_report(runs):
    run = runs(*LEGACY_ROWWISE)
    report = load_report(run.path)
    pairs = graph_pairs(run.path, report)
    assert pairs, "graphs must be readable from the run directory"
    rows = build_saved_table(pairs, report.invocations, report.policy, report.model)
    assert [dump(r) for r in rows] == run.report["saved_tensors"]
    assert dump(saved_totals(rows)) == run.report["saved_totals"]


@pytest.mark.e2e
def test_saved_split_matches_runtime_count(runs):
    run = runs(*LEGACY_ROWWISE)
    report = load_report(run.path)
    pairs = graph_pairs(run.path, report)
    for inv in report.invocations:
        saved = saved_outputs(pairs[inv.dynamo_graph])
        # the forward graph's saved outputs are exactly the tensors the autograd node held, in order
        assert len(saved) == len(inv.runtime_saved)
        fw = {n.name: n for n in pairs[inv.dynamo_graph].forward.nodes}
        for name, rt in zip(saved, inv.runtime_saved):
            assert fw[name].shape == rt.shape and fw[name].dtype == rt.dtype


@pytest.mark.e2e
def test_mismatch_between_graph_and_runtime_is_a_finding(runs):
    report = load_report(runs(*LEGACY_ROWWISE).path)
    rows = [r.model_copy() for r in report.saved_tensors]
    victim = next(r for r in rows if r.kind == "activation" and r.runtime_storage_bytes)
    victim.runtime_storage_bytes += 4096
    totals = saved_totals(rows)
    assert totals.agree is False
    kinds = [f.kind for f in find(Evidence(rows, totals, report.config.probe()))]
    assert "accounting-mismatch" in kinds


@pytest.mark.e2e
def test_grouping_across_layers(runs):
    rows = load_report(runs(*LEGACY_ROWWISE).path).saved_tensors
    groups = group_rows(rows)
    assert sum(g.bytes for g in groups) == sum(r.bytes for r in rows)
    wd = [g for g in groups if g.kind == "weight-derived"]
    assert all("layers.*." in g.expr for g in wd)
    assert groups == sorted(groups, key=lambda g: -g.bytes)


def test_each_layers_copy_of_a_module_that_saved_outside_the_graphs_is_one_group():
    """saved_outside's modules folded across layers: ``h.0.mlp`` and ``h.1.mlp`` one group of 2, its bytes their sum;
    a module of one layer alone keeps its own name (``blocks.1`` ran eagerly, not ``blocks.*``); largest first."""
    made = [
        S.SavedByModule(module=m, bytes=b, storages=1)
        for m, b in [("h.0.mlp", 40), ("(loss)", 50), ("h.1.mlp", 40), ("blocks.1", 30), ("h.0.attn", 20), ("h.1.attn", 25)]
    ]
    groups = [(name, [m.module for m in ms]) for name, ms in module_groups(made)]
    assert groups == [
        ("h.*.mlp", ["h.0.mlp", "h.1.mlp"]),
        ("(loss)", ["(loss)"]),
        ("h.*.attn", ["h.0.attn", "h.1.attn"]),
        ("blocks.1", ["blocks.1"]),
    ]


def test_memory_the_cpu_allocator_does_not_count_is_no_category_at_a_peak():
    """A batch a DataLoader worker sends through shared memory is reported by the profiler with a 'Total Allocated' of 0
    (checked with torch 2.13: a 4 KiB batch of a 2-worker loader, its allocation and free at total 0): the phases'
    peaks do not count it, so no category at a peak may hold it. How many arrive within a step depends on the
    workers' timing (an A/A diff of minGPT's chargpt differed by 192 KiB of them, "other" and "saved-for-backward").
    Here such rows are added to a recorded CPU run at its forward window: its attribution is unchanged."""
    from memprobe.analysis.cpu_attribution import allocator_rows, attribute_cpu

    report = load_report(CPU / "tiny-rowwise")
    before = attribute_cpu(report)
    rows = report.memory.events.rows
    t0, _t1 = report.memory.events.phase_windows_us["forward"]
    shared = [[t0 + 0.01, 16384, 0, 7 << 40], [t0 + 0.02, 16384, 0, 9 << 40], [t0 + 0.03, -16384, 0, 7 << 40]]
    gone_before = [[t0 + 0.04, -16384, 0, 11 << 40]]  # one that arrived before the step, freed in it
    report.memory.events.rows = sorted(rows + shared + gone_before, key=lambda r: r[0])
    assert allocator_rows(report.memory.events.rows) == [tuple(r) if isinstance(r, tuple) else r for r in rows]
    after = attribute_cpu(report)
    assert dump(after) == dump(before)
    for phase in after.phases.values():
        assert sum(phase.by_category_bytes.values()) == phase.peak_bytes


CPU = Path(__file__).parent / "data" / "cpu"
# what the reader derives from a run directory's recorded parts (memory.saved_for_backward_bytes too)
DERIVED = ("saved_tensors", "saved_totals", "findings", "checks", "verdict", "graph_memory", "attribution", "recomputed")


@pytest.mark.parametrize("name", ["tiny-rowwise", "tiny-bf16-noac"])
def test_the_reader_derives_what_the_probe_derived(tmp_path, monkeypatch, name):
    """Run directories recorded when a probe analysed its own run (memprobe 6430618; their derived sections as memprobe
    derives them since it reads each saved value's cause): their derived sections removed and derived again from the
    recorded parts (graphs, output code, calls, memory events) are the same, byte for byte as canonical JSON."""
    from memprobe.analysis.run import analyse

    run = tmp_path / name
    shutil.copytree(CPU / name, run)
    recorded = json.loads((run / "report.json").read_text())
    stripped = {k: v for k, v in recorded.items() if k not in DERIVED}
    stripped.update(saved_tensors=[], findings=[], saved_totals=None)
    stripped["memory"] = {k: v for k, v in recorded["memory"].items() if k != "saved_for_backward_bytes"}
    (run / "report.json").write_text(json.dumps(stripped))
    monkeypatch.chdir(tmp_path)  # source lines are named relative to the working directory when under it
    derived = dump(analyse(load_report(run), run))
    for key in DERIVED:
        assert json.dumps(derived[key], sort_keys=True) == json.dumps(recorded[key], sort_keys=True), key
    assert derived["memory"]["saved_for_backward_bytes"] == recorded["memory"]["saved_for_backward_bytes"]
    assert derived["status"] == "complete" and derived["timings_s"]["analysis"] >= 0


def test_load_report_errors(tmp_path):
    with pytest.raises(RunDirError, match="does not exist"):
        load_report(tmp_path / "missing")
    with pytest.raises(RunDirError, match="not a memprobe run directory .no report.json.$"):
        load_report(tmp_path)
    gate = tmp_path / "gate"  # a gate's directory: a run per probe
    for probe in ("ffn-rowwise", "ffn-bf16", "a", "b"):
        (gate / probe).mkdir(parents=True)
        (gate / probe / "report.json").write_text("{}")
    (gate / "linked").symlink_to(gate / "a")  # a link is named by no hint
    hint = f"name one of them: {gate / 'a'}, {gate / 'b'}, {gate / 'ffn-bf16'}, ...$"
    with pytest.raises(RunDirError, match=f"holds runs, not one run .no report.json.: {hint}"):
        load_report(gate)
    with pytest.raises(RunDirError, match=f"holds no report.json or diff.json, but runs: {hint}"):
        load_recorded(gate, ("run", "diff"))
    (tmp_path / "report.json").write_text("{not json")
    with pytest.raises(RunDirError, match="not valid JSON"):
        load_report(tmp_path)
    (tmp_path / "report.json").write_text('{"schema_version": 99}')
    with pytest.raises(RunDirError, match="schema_version 99"):
        load_report(tmp_path)
    (tmp_path / "report.json").write_text('{"schema_version": 1, "status": "complete", "config": []}')
    with pytest.raises(RunDirError, match="config: expected an object"):
        load_report(tmp_path)


def test_show_renders_recorded_runs_and_diffs(tmp_path):
    from pathlib import Path

    from conftest import invoke

    cuda = Path(__file__).parent / "data" / "cuda"
    proc = invoke("show", cuda / "rowwise-legacy")
    assert proc.returncode == 0, proc.stderr
    assert "abs(permute(layers.*.ffn.w2.weight))" in proc.stdout and "cuda (NVIDIA H200)" in proc.stdout
    # a diff of two recorded runs (loaded, not re-run), then shown again from its directory
    out = tmp_path / "d"
    proc = invoke("diff", cuda / "bf16-legacy", cuda / "rowwise-legacy", "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    shown = invoke("show", out)
    assert shown.returncode == 0 and "What B keeps alive that A does not" in shown.stdout
    assert json.loads(invoke("show", out, "--json").stdout) == json.loads((out / "diff.json").read_text())
    proc = invoke("show", tmp_path / "nope")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


# -- FSDP2's root module: unsharded after forward by design ---------------------------------------------------------

ROOT_NUMELS = [256 * 64, 64, 256 * 64]  # a causal LM's embedding, final norm and output projection


def _unsharded_at_forward_end(held: int, source: str) -> S.Attribution:
    end = S.AliveAtEnd(by_category_bytes={"fsdp-unsharded-parameter": held})
    return S.Attribution(source=source, phases={"forward": S.AttributionPhase(by_category_bytes={}, at_end=end)})


@pytest.mark.parametrize(
    "source, root_bytes",
    [
        ("cpu-profiler", 2 * sum(ROOT_NUMELS)),  # the profiler's events: the storages' bytes
        ("cuda-snapshot", 32768 + 512 + 32768),  # the allocator's blocks: each rounded up to 512 bytes
    ],
)
def test_the_fsdp_roots_own_parameters_are_unsharded_by_design_and_never_the_verdict(source, root_bytes):
    from memprobe.analysis.evidence import Evidence
    from memprobe.analysis.findings import find, fsdp_root_unsharded_bytes
    from memprobe.analysis.verdict import run_verdict
    from memprobe.config import ProbeConfig

    model = S.ModelShape(other_parameters=sum(ROOT_NUMELS), other_parameter_numels=ROOT_NUMELS)
    attribution = _unsharded_at_forward_end(root_bytes, source)
    assert fsdp_root_unsharded_bytes(model, attribution) == root_bytes
    totals = S.SavedTotals(graph_bytes=0)
    (root,) = find(Evidence([], totals, ProbeConfig(), attribution=attribution, model=model))
    assert root.by_design and root.kind == "unsharded-after-forward" and "by design" in root.summary
    more_held = _unsharded_at_forward_end(root_bytes + 512, source)
    (more,) = find(Evidence([], totals, ProbeConfig(), attribution=more_held, model=model))
    assert not more.by_design and "find what holds it" in more.fix  # more than the root holds: a finding to act on
    report = S.Report(
        status="complete",
        config=S.Config(),
        device=S.Device(type="cpu"),
        versions=S.Versions(),
        graphs=[],
        invocations=[],
        saved_tensors=[],
        saved_totals=totals,
        findings=[root],
    )
    assert run_verdict(report).finding is None  # the library's design is no verdict


@pytest.mark.e2e
def test_the_outputs_of_one_split_are_named_by_their_position(runs):
    """A fused q/k/v projection split in three (a small GPT's ``c_attn``), without checkpointing: q, k and v are each
    saved for backward, one row each, named by their position in the split (three rows printed the same text)."""
    run = runs("--model", Path(__file__).parent / "models" / "fused_qkv.py:build", "--recipe", "bf16", "--ac", "none")
    rows = json.loads((run.path / "report.json").read_text())["saved_tensors"]
    labels = sorted(r["user"]["label"] for r in rows if r["op"] == "transpose")
    assert labels == sorted(f"transpose(view(split(layers.{i}.c_attn)[{k}]))" for i in range(2) for k in range(3))
