"""Hugging Face transformers causal LMs probed from their config.json alone, end to end on the CPU.

Seven architectures at tiny dims (tests/models/hf/), two blocks each, one recipe each: Llama rowwise with the
2025-01 save list (its config has four layers: --layers 2 keeps the first two), Qwen2 rowwise, GPT-2 bf16, Mixtral
rowwise (a mixture of experts: its experts are 3-D weights run by aten._grouped_mm), Gemma2 bf16 (it refuses SDPA:
eager attention) and Gemma3 bf16 (its attention mask is a broadcast view). The
probes are --analysis-only (the graphs traced and partitioned as for Inductor, run without generated kernels: what
is saved is the full run's). Each run's saved bytes, graph-derived and at run time, are held to a ground truth this file
computes without memprobe: the same blocks (float8 -> SAC -> torch.compile), compiled through torch's own
``compile_fx`` with an inner compiler that keeps the partitioned graphs (graph-derived: the forward's outputs the
backward reads; a graph input given to several blocks counted once), and run under
``torch.autograd.graph.saved_tensors_hooks`` (run time: the distinct storages the compiled blocks save).
Parameters are left out of both, as memprobe counts them apart.

The probes run as few processes as the assertions allow (five probes, each made once per session through
conftest's ``made``, whichever pytest-xdist worker asks first): an A/A diff of Llama, rowwise with the 2025-01 list (two probes); Qwen2 rowwise, its
config as published (KV cache on); GPT-2 bf16; and a stock GPT-2 a --model factory builds (KV cache on), rowwise.
CI installs transformers (``memprobe[hf]``); elsewhere these tests skip unless MEMPROBE_REQUIRE_HF=1.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import invoke

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "tests" / "models" / "hf"
NAMES = ("llama", "qwen2", "gpt2", "mixtral", "gemma2", "gemma3")
LLAMA, QWEN2, GPT2, MIXTRAL, GEMMA2, GEMMA3 = (str(CONFIGS / f"{name}.json") for name in NAMES)
STOCK = str(ROOT / "tests" / "models" / "hf_stock.py") + ":build"
LAYERS, BATCH, SEQ = 2, 2, 32
SMALL = ("--layers", str(LAYERS), "--batch", str(BATCH), "--seq", str(SEQ), "--device", "cpu", "--analysis-only")

# the SAC save lists the test holds memprobe to (torchtitan's, as its sources give them), with the CPU's attention
# op standing for the GPU's fused attention ops the lists name
_ATTENTION = ("_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention")
SAVE_LISTS = {
    "torchtitan": ("mm", *_ATTENTION, "_scaled_dot_product_cudnn_attention", "max"),
    "torchtitan-2025-01": ("mm", *_ATTENTION, "abs", "max"),
}


@pytest.fixture(scope="module")
def transformers_installed():
    try:
        import transformers  # noqa: F401
    except ImportError as e:
        if os.environ.get("MEMPROBE_REQUIRE_HF") == "1":
            pytest.fail(f"transformers is required here (MEMPROBE_REQUIRE_HF=1): {e}")
        pytest.skip(f"transformers is not installed ({e}): pip install 'memprobe[hf]'")


@pytest.fixture(scope="module")
def probes(transformers_installed, made):
    """Every run these tests read, {name: (report, stdout)}: each made when a test first asks for it, once per session
    (conftest's ``made``: whichever pytest-xdist worker asks first, so that two workers make two different ones)."""
    legacy = ("--ac-policy", "torchtitan-2025-01")

    def read(path: Path, stdout: str = "") -> tuple[dict, str]:
        return json.loads((path / "report.json").read_text()), stdout

    def aa():
        return made("diff", "rowwise", "rowwise", "--hf-config", LLAMA, *legacy, *SMALL, "--json")

    def run(*flags):
        extra = SMALL if "--hf-config" in flags else ()
        done = made("run", *flags, *extra)
        return read(done.path, done.proc.stdout)

    making = {
        "llama-rowwise-2025": lambda: read(aa().path / "a"),
        "llama-rowwise-2025-again": lambda: read(aa().path / "b"),
        "diff-aa": lambda: (json.loads(aa().proc.stdout), ""),
        "qwen2-rowwise": lambda: run("--hf-config", QWEN2, "--recipe", "rowwise"),
        "gpt2-bf16": lambda: run("--hf-config", GPT2, "--recipe", "bf16"),
        "mixtral-rowwise": lambda: run("--hf-config", MIXTRAL, "--recipe", "rowwise"),
        "gemma2-bf16": lambda: run("--hf-config", GEMMA2, "--recipe", "bf16"),
        "gemma3-bf16": lambda: run("--hf-config", GEMMA3, "--recipe", "bf16"),
        "stock-gpt2-rowwise": lambda: run("--model", STOCK, "--recipe", "rowwise", "--device", "cpu", "--analysis-only"),
        # whole-block checkpointing: the HOP Dynamo refuses a side effect in by default (transformers' kernels layer)
        "llama-rowwise-full": lambda: run("--hf-config", LLAMA, "--recipe", "rowwise", "--ac", "full"),
        "mixtral-bf16-full": lambda: run("--hf-config", MIXTRAL, "--recipe", "bf16", "--ac", "full"),
    }

    class Probes(dict):
        def __missing__(self, name):
            self[name] = making[name]()
            return self[name]

    return Probes()


# -- the ground truth, without memprobe ----------------------------------------------------------------------------


def _torchtitan_style_context(save: set):
    """A ``context_fn``: the ops of ``save`` MUST_SAVE, every second mm recomputed (torchtitan's rule), the rest
    PREFER_RECOMPUTE."""
    import torch
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts

    mm = torch.ops.aten.mm.default

    def context_fn():
        count = defaultdict(int)

        def decide(ctx, func, *args, **kwargs):
            mode = "recompute" if ctx.is_recompute else "forward"
            if func == mm:
                count[mode] += 1
                if count[mode] % 2 == 0:
                    return CheckpointPolicy.PREFER_RECOMPUTE
            return CheckpointPolicy.MUST_SAVE if func in save else CheckpointPolicy.PREFER_RECOMPUTE

        return create_selective_checkpoint_contexts(decide)

    return context_fn


def ground_truth(config_path: str, recipe: str, policy: str | None, attention: str = "sdpa") -> dict:
    """Saved-for-backward bytes of the config's first LAYERS blocks, graph-derived and at run time (``policy`` None:
    each block checkpointed whole). A side effect transformers' hub-kernel layer sets inside the checkpoint is let
    through as memprobe lets it (Dynamo's own switch: torch, not memprobe)."""
    import torch
    from torch._functorch.aot_autograd import make_boxed_func
    from torch._inductor.compile_fx import compile_fx
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM

    torch._dynamo.reset()  # no shapes remembered from another model's compile (they would make sizes dynamic)
    doc = json.loads(Path(config_path).read_text())
    config = CONFIG_MAPPING[doc["model_type"]].from_json_file(config_path)
    config.num_hidden_layers, config.use_cache = LAYERS, False
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32, attn_implementation=attention)
    model.train()
    if recipe != "bf16":
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training

        convert_to_float8_training(
            model,
            config=Float8LinearConfig.from_recipe_name(recipe),
            module_filter_fn=lambda m, fqn: m.in_features % 16 == 0 and m.out_features % 16 == 0,
        )
    for p in model.parameters():  # what FSDP2's mixed precision hands the blocks: bf16 parameters
        p.data = p.data.to(torch.bfloat16)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}

    context_fn = None
    if policy is not None:
        ops = SAVE_LISTS[policy]
        save = {getattr(torch.ops.aten, op).default for op in ops} | {
            torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default
        }
        context_fn = _torchtitan_style_context(save)

    calls, packed = [], []

    def backend(gm, example_inputs):
        graphs = {}

        def inner(aot_gm, aot_inputs, **kwargs):
            graphs["backward" if kwargs.get("is_backward") else "forward"] = aot_gm
            return make_boxed_func(aot_gm.forward)

        compiled = compile_fx(gm, example_inputs, inner_compile=inner)

        def run(*args):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
                out = compiled(*args)
            calls.append((graphs, args))
            return out

        return run

    blocks = model.transformer.h if doc["model_type"] == "gpt2" else model.model.layers
    for name, block in list(blocks.named_children()):
        wrapped = checkpoint_wrapper(block, preserve_rng_state=False, **({"context_fn": context_fn} if context_fn else {}))
        blocks.register_module(name, torch.compile(wrapped, backend=backend, fullgraph=True))
    tokens = torch.randint(0, config.vocab_size, (BATCH, SEQ))
    with torch._dynamo.config.patch(skip_fwd_side_effects_in_bwd_under_checkpoint=True):
        loss = model(tokens).logits.float().pow(2).mean()
        runtime_storages = {}
        for t in packed:
            st = t.untyped_storage()
            if st.data_ptr() not in params and st.nbytes():
                runtime_storages[st.data_ptr()] = st.nbytes()
        loss.backward()  # compiles the backward graphs: they say how many forward outputs are saved

    graph_bytes, inputs_seen = 0, set()
    for graphs, args in calls:
        fw, bw = graphs["forward"], graphs["backward"]
        outputs = next(n for n in fw.graph.nodes if n.op == "output").args[0]
        n_saved = sum(1 for n in bw.graph.nodes if n.op == "placeholder" and not n.name.startswith(("tangents", "bwd_rng_state")))
        primals = [n for n in fw.graph.nodes if n.op == "placeholder" and n.name.startswith("primals")]
        arg_of = dict(zip(primals, args))
        for node in outputs[len(outputs) - n_saved :]:
            val = node.meta["val"]
            if node in arg_of:  # a graph input: skip parameters, count a tensor given to several blocks once
                ptr = arg_of[node].untyped_storage().data_ptr()
                if ptr in params or ptr in inputs_seen:
                    continue
                inputs_seen.add(ptr)
            # a broadcast view (an expanded mask) holds its base's storage only: torch's own figure for it
            graph_bytes += min(val.numel() * val.element_size(), val.untyped_storage().nbytes())
    return {"graph": graph_bytes, "runtime": sum(runtime_storages.values())}


# -- the tests --------------------------------------------------------------------------------------------------------

TRUTHS = (
    ("llama-rowwise-2025", LLAMA, "rowwise", "torchtitan-2025-01", "sdpa"),
    ("qwen2-rowwise", QWEN2, "rowwise", "torchtitan", "sdpa"),
    ("gpt2-bf16", GPT2, "bf16", "torchtitan", "sdpa"),
    # a mixture of experts: its experts run by aten._grouped_mm (3-D weights), its router by F.linear on a raw weight
    ("mixtral-rowwise", MIXTRAL, "rowwise", "torchtitan", "sdpa"),
    # a model that refuses SDPA: eager attention
    ("gemma2-bf16", GEMMA2, "bf16", "torchtitan", "eager"),
    # a sliding and a full attention layer; its attention mask and repeated key/value heads are broadcast views
    ("gemma3-bf16", GEMMA3, "bf16", "torchtitan", "sdpa"),
    # each block checkpointed whole (--ac full): a dense and a mixture-of-experts model
    ("llama-rowwise-full", LLAMA, "rowwise", None, "sdpa"),
    ("mixtral-bf16-full", MIXTRAL, "bf16", None, "sdpa"),
)


@pytest.mark.e2e
@pytest.mark.parametrize("name,config,recipe,policy,attention", TRUTHS, ids=[t[0] for t in TRUTHS])
@pytest.mark.slow
def test_saved_bytes_equal_the_ground_truth_both_ways(probes, name, config, recipe, policy, attention):
    report, _ = probes[name]
    assert report["status"] == "complete" and report["config"]["recipe"] == recipe
    truth = ground_truth(config, recipe, policy, attention)
    totals = report["saved_totals"]
    assert truth["graph"] > 0
    assert (totals["graph_bytes"], totals["runtime_bytes"]) == (truth["graph"], truth["runtime"])
    assert totals["agree"] and not [f for f in report["findings"] if f["kind"] == "accounting-mismatch"]


@pytest.mark.e2e
def test_rows_are_named_by_the_models_modules_and_its_modeling_lines(probes):
    report, _ = probes["llama-rowwise-2025"]
    assert report["model"]["blocks_attr"] == "model.layers" and report["model"]["blocks"] == LAYERS
    weight = [r for r in report["saved_tensors"] if r["kind"] == "weight-derived"]
    modules = {r["user"]["module"] for r in weight}
    projections = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj")
    projections += ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
    assert modules <= {f"model.layers.{i}.{p}" for i in range(LAYERS) for p in projections}
    # whether abs(down_proj.weight) is saved is the installed torch's partitioner's choice (torch 2.15 saves none,
    # as it saves no abs(w2) in the repro); the attention projections' and gate/up's are saved on every torch
    assert {f"model.layers.{i}.{p}" for i in range(LAYERS) for p in projections[:-1]} <= modules
    for r in weight:  # abs() of each weight, at the model's own line, with torchao's frame as the library detail
        assert r["op"] == "abs" and r["user"]["label"] == f"abs(t({r['user']['module']}.weight))"
        assert r["user"]["source"].startswith("transformers/models/llama/modeling_llama.py:"), r["user"]
        assert r["user"]["library"].startswith("torchao/float8/"), r["user"]
    # GPT-2's blocks come from the model too
    assert probes["gpt2-bf16"][0]["model"]["blocks_attr"] == "transformer.h"


@pytest.mark.e2e
def test_the_rotary_inputs_every_block_shares_are_one_value_named_as_inputs(probes):
    report, stdout = probes["qwen2-rowwise"]
    rows = [r for r in report["saved_tensors"] if ".input.position_embeddings[" in r["expr"]]
    assert {r["expr"].split(".input.")[1] for r in rows} == {"position_embeddings[0]", "position_embeddings[1]"}
    by_value = defaultdict(set)
    for r in rows:
        by_value[r["expr"].split(".input.")[1]].add(r["input_id"])
    assert all(len(ids) == 1 for ids in by_value.values())  # one tensor per name, given to both blocks
    from memprobe.analysis.saved import group_rows
    from memprobe.rundir import schema as S

    for g in group_rows([S.SavedRow.model_validate(r) for r in rows]):
        assert g.count == LAYERS and g.shared and g.bytes == g.bytes_each


@pytest.mark.e2e
def test_no_group_holds_two_modules_values(probes):
    from memprobe.analysis.saved import group_rows, layer_pattern
    from memprobe.rundir import schema as S

    for name in ("llama-rowwise-2025", "qwen2-rowwise", "gpt2-bf16", "stock-gpt2-rowwise"):
        rows = probes[name][0]["saved_tensors"]
        groups = group_rows([S.SavedRow.model_validate(r) for r in rows])
        for g in groups:
            members = [r for r in rows if (r["value_id"], r["kind"], r["bytes"]) == (g.value_id, g.kind, g.bytes_each)]
            assert len({layer_pattern(r["user"].get("module") or "") for r in members}) == 1, g.expr
            assert len({tuple(layer_pattern(x) for x in r["roots"]) for r in members}) == 1, g.expr
        if name == "llama-rowwise-2025":  # q_proj's and o_proj's weights have equal shapes ([64, 64]): two abs() groups
            abs_64 = [g for g in groups if g.kind == "weight-derived" and g.shape == [64, 64]]
            assert sorted(g.user.module for g in abs_64) == [
                "model.layers.*.self_attn.o_proj",
                "model.layers.*.self_attn.q_proj",
            ]


@pytest.mark.e2e
def test_float8_coverage_is_recorded_and_printed(probes):
    full, _ = probes["llama-rowwise-2025"]
    assert full["float8"]["block_converted_parameters"] == full["float8"]["block_linear_parameters"] > 0
    assert not [f for f in full["findings"] if f["kind"] == "float8-coverage"]
    assert probes["gpt2-bf16"][0].get("float8") is None

    # Qwen2 at intermediate_size 88: its MLP linears cannot run in float8
    qwen, stdout = probes["qwen2-rowwise"]
    skipped = {(x["fqn"], x["skipped"]) for x in qwen["float8"]["linears"] if not x["converted"]}
    assert skipped == {
        (f"model.layers.{i}.mlp.{p}", "dims") for i in range(LAYERS) for p in ("gate_proj", "up_proj", "down_proj")
    }
    assert "converted 8 of 14 linears in the blocks (42% of their parameters)" in stdout
    finding = next(f for f in qwen["findings"] if f["kind"] == "float8-coverage")
    assert "42%" in finding["message"] and "model.layers.*.mlp.down_proj x2" in finding["message"]

    # GPT-2's projections are Conv1D: none converted, and the table is bf16's
    gpt2, stdout = probes["stock-gpt2-rowwise"]
    assert gpt2["float8"]["block_converted_parameters"] == 0
    assert {x["skipped"] for x in gpt2["float8"]["linears"] if x["in_blocks"]} == {"not-linear"}
    assert "converted 0 of 8 linears in the blocks (0% of their parameters)" in stdout and "Conv1D: not an nn.Linear" in stdout
    assert any(
        f["kind"] == "float8-coverage" and f["message"].startswith("float8 recipe rowwise converted 0%") for f in gpt2["findings"]
    )


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["llama-rowwise-2025", "llama-rowwise-full"])
def test_a_side_effect_dynamo_refuses_in_a_checkpoint_is_let_through_and_said(probes, name):
    """transformers 5.25's hub-kernel layer (the kernels package it requires) sets an attribute of an object outside
    the checkpointed block while Dynamo traces it, which Dynamo refuses by default ("HOP: Unsafe side effect"):
    memprobe, building the stack, lets the region keep it and says what, where and what it set."""
    import importlib.util

    report, stdout = probes[name]
    assert report["status"] == "complete"
    coverage = report["compile_coverage"]
    assert coverage["side_effects_skipped_in_recompute"] is True and coverage["graph_breaks"] == []
    if importlib.util.find_spec("kernels") is None:  # a transformers without the hub-kernel layer sets nothing
        assert coverage["side_effects"] == [] and not any("skip_fwd_side_effects" in n for n in report["notes"])
        return
    first = coverage["side_effects"][0]
    assert first["mutated"].startswith("CompileableContextVar.") and first["file"].endswith("kernels/_internals/layer/layer.py")
    note = next(n for n in report["notes"] if "skip_fwd_side_effects_in_bwd_under_checkpoint" in n)
    assert f"sets {first['mutated']} (kernels/_internals/layer/layer.py:{first['line']}" in note
    if name == "llama-rowwise-full":  # a run's own output (the other is a side of a diff)
        assert "note: inside the checkpointed blocks" in stdout


@pytest.mark.e2e
def test_the_kv_cache_is_turned_off_and_said_so(probes):
    for name in ("stock-gpt2-rowwise", "qwen2-rowwise"):
        report, stdout = probes[name]
        assert report["status"] == "complete" and report["saved_totals"]["graph_bytes"] > 0
        assert any(n.startswith("KV cache turned off") for n in report["notes"]), report["notes"]
        assert "note: KV cache turned off" in stdout
    assert probes["stock-gpt2-rowwise"][0]["model"]["blocks_attr"] == "transformer.h"  # from the model's declaration


@pytest.mark.e2e
def test_an_aa_diff_of_a_hf_config_is_exactly_zero(probes):
    aa = probes["diff-aa"][0]
    assert aa["differences"] == 0 and aa["items"] == [] and aa["unchanged_items"] > 0
    assert aa["totals"]["saved_bytes"]["delta"] == 0
    a, b = probes["llama-rowwise-2025"][0], probes["llama-rowwise-2025-again"][0]
    assert a["saved_totals"] == b["saved_totals"]
    assert [(r["value_id"], r["bytes"]) for r in a["saved_tensors"]] == [(r["value_id"], r["bytes"]) for r in b["saved_tensors"]]


@pytest.mark.e2e
def test_cpu_attention_is_saved_as_the_gpus_and_the_header_says_so(probes):
    report, stdout = probes["qwen2-rowwise"]
    assert "aten._scaled_dot_product_flash_attention_for_cpu.default" in report["policy"]["save_ops"]
    attention = [r for r in report["saved_tensors"] if r["op"] == "_scaled_dot_product_flash_attention_for_cpu"]
    assert attention and all(r["reason_kind"] == "policy" for r in attention)
    assert stdout.count("CPU probe: attention ran as aten._scaled_dot_product_flash_attention_for_cpu") == 1


def test_what_a_stock_model_raises_under_sac_and_compile_is_named_by_its_innermost_cause(transformers_installed):
    """What a stock transformers model raises under SAC + torch.compile where memprobe would not build it so, as memprobe
    says it: one line naming the library's own line. With transformers' hub-kernel layer (transformers 5.25 requires
    kernels) Dynamo refuses the attribute it sets inside the checkpoint; before it, the KV cache's objects failed."""
    import importlib.util

    import torch
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
    from transformers import LlamaConfig, LlamaForCausalLM

    from memprobe.capture.model import innermost_cause
    from memprobe.policies import effective_policy, make_context_fn

    config = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, vocab_size=64)
    model = LlamaForCausalLM(config)
    layer = model.model.layers[0]
    context_fn = make_context_fn(effective_policy("torchtitan"))
    model.model.layers[0] = torch.compile(
        checkpoint_wrapper(layer, context_fn=context_fn, preserve_rng_state=False), backend="aot_eager", fullgraph=True
    )
    with pytest.raises(Exception) as info:
        model(torch.randint(0, 64, (1, 8)))
    line = innermost_cause(info.value)
    assert "\n" not in line
    if importlib.util.find_spec("kernels") is not None:
        assert line.startswith("Unsupported: HOP: Unsafe side effect (kernels/_internals/layer/layer.py:"), line
    else:
        assert "AttributeError: 'DynamicLayer' object has no attribute 'device' (transformers/cache_utils.py:" in line
        assert "use_cache=False" in line


@pytest.mark.e2e
def test_two_figures_that_differ_never_read_the_same(probes):
    from rich.console import Console

    from memprobe.report.console.run import print_run
    from memprobe.rundir import schema as S

    report = json.loads(json.dumps(probes["qwen2-rowwise"][0]))
    totals = report["saved_totals"]
    from memprobe.units import fmt_bytes

    totals["runtime_bytes"], totals["agree"] = totals["graph_bytes"] - 1, False
    assert fmt_bytes(totals["runtime_bytes"]) == fmt_bytes(totals["graph_bytes"])  # 1 B apart: the same at 2 decimals
    con = Console(width=200, record=True, file=open(os.devnull, "w"))
    print_run(S.Report.model_validate(report), Path("run"), console=con)
    line = next(x for x in con.export_text().splitlines() if x.startswith("saved for backward:"))
    assert f"{totals['graph_bytes']:,} B derived" in line and f"{totals['runtime_bytes']:,} B held" in line and "DISAGREE" in line


def _rows_of_a_recomputed_llama_layer(attention_dropout: float) -> list:
    """The saved table of a transformers Llama layer under the recompute-all policy, made by memprobe's capture in
    this process."""
    import torch
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
    from transformers import LlamaConfig, LlamaForCausalLM

    from memprobe.analysis.saved import GraphPair, build_saved_table
    from memprobe.capture.compile_hooks import GraphCapture
    from memprobe.policies import effective_policy, make_context_fn
    from memprobe.rundir import schema as S
    from memprobe.rundir.records import to_data

    config = LlamaConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        vocab_size=64,
        use_cache=False,
        attention_dropout=attention_dropout,
    )
    model = LlamaForCausalLM(config)
    capture = GraphCapture(codegen=False)
    wrapped = checkpoint_wrapper(
        model.model.layers[0], context_fn=make_context_fn(effective_policy("recompute-all")), preserve_rng_state=False
    )
    model.model.layers[0] = torch.compile(wrapped, backend=capture, fullgraph=True)
    capture.track_blocks({"model.layers.0": model.model.layers[0]})
    capture.recording = True
    torch._dynamo.reset()  # traced again, not taken from an earlier call's compiled code
    # as memprobe builds the stack: a side effect transformers' hub-kernel layer sets in the checkpoint is let through
    side_effects = torch._dynamo.config.patch(skip_fwd_side_effects_in_bwd_under_checkpoint=True)
    with torch._functorch.config.patch(enable_autograd_cache=False), side_effects:
        model(torch.randint(0, 64, (1, 8))).logits.float().pow(2).mean().backward()
    pairs = {}
    for dyn in capture.dynamo_graphs:
        docs = {g.kind: S.GraphFile(graph_id=g.graph_id, nodes=to_data(g.nodes)) for g in dyn.aot}
        inputs = [S.GraphInput.model_validate(to_data(i)) for i in dyn.inputs]
        pairs[dyn.index] = GraphPair(dyn.index, docs["forward"], docs.get("backward"), inputs)
    invocations = [
        S.Invocation(dynamo_graph=inv.dynamo_graph, block=inv.block, runtime_saved=None) for inv in capture.invocations
    ]
    return build_saved_table(pairs, invocations, None)


def test_an_rng_state_is_named_as_one_and_is_no_activation(transformers_installed):
    """A recomputed attention replays its RNG state (run_and_save_rng_state), random ops their seeds
    (inductor_seeds): each is named as what it is, never as an activation. Which one a layer saves depends on the
    torch (2.13 saves SDPA's RNG state without dropout and seeds with it; 2.15 SDPA's state with dropout only), so
    the layer runs both ways."""
    rng = [r for p in (0.0, 0.1) for r in _rows_of_a_recomputed_llama_layer(p) if r.user.op == "rng_state"]
    assert rng
    for r in rng:
        assert r.kind in ("other", "scalar") and r.user.label.startswith("RNG "), (r.expr, r.kind, r.user.label)
    sdpa = [r for r in rng if r.dtype == "uint8"]
    assert sdpa
    for r in sdpa:
        assert r.kind == "other"
        assert r.user.label.startswith("RNG state of scaled_dot_product_attention(model.layers.0.self_attn)")


def test_without_transformers_hf_config_is_one_line_that_says_how_to_install(monkeypatch):
    import builtins

    from memprobe.errors import ConfigError
    from memprobe.integrations.huggingface import make_config

    real_import = builtins.__import__

    def without_transformers(name, *args, **kwargs):
        if name.split(".")[0] == "transformers":
            raise ImportError("No module named 'transformers'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_transformers)
    with pytest.raises(ConfigError) as info:
        make_config({"model_type": "llama"}, LAYERS, SEQ, "config.json")
    assert "\n" not in str(info.value) and "pip install 'memprobe[hf]'" in str(info.value)


def test_a_bad_hf_config_is_one_line_and_exit_2(tmp_path):
    not_a_model = tmp_path / "config.json"
    not_a_model.write_text('{"hidden_size": 64}')
    proc = invoke("run", "--hf-config", tmp_path, "--device", "cpu", "--out", tmp_path / "run", "-q")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert f'--hf-config {not_a_model}: not a transformers model configuration (no "model_type")' in proc.stderr


@pytest.mark.e2e
def test_float8_coverage_counts_the_experts_of_a_mixture_of_experts(probes):
    """The experts' 3-D weights and the router's raw 2-D weight count in the coverage (the ground truth: the same model
    built by transformers here, without memprobe), the finding fires on the true share, and the run says why the
    experts stay bf16 on the CPU."""
    import torch.nn as nn
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM

    report, stdout = probes["mixtral-rowwise"]
    config = CONFIG_MAPPING["mixtral"].from_json_file(MIXTRAL)
    config.num_hidden_layers = LAYERS
    model = AutoModelForCausalLM.from_config(config)
    total = converted = 0
    for module in model.model.layers.modules():
        for pname, p in module.named_parameters(recurse=False):
            if p.dim() == 3 or (p.dim() == 2 and pname == "weight"):
                total += p.numel()
                linear = isinstance(module, nn.Linear) and module.in_features % 16 == 0 and module.out_features % 16 == 0
                converted += p.numel() if linear else 0
    f8 = report["float8"]
    assert (f8["block_linear_parameters"], f8["block_converted_parameters"]) == (total, converted)
    experts = [x for x in f8["linears"] if x["skipped"] == "grouped-experts"]
    assert {x["fqn"].rsplit(".", 1)[-1] for x in experts} == {"gate_up_proj", "down_proj"}
    assert all(len(x["weight_shape"]) == 3 and x["weight_shape"][0] == config.num_local_experts for x in experts)
    router = [x for x in f8["linears"] if x["fqn"].endswith("mlp.gate")]
    assert router and all(x["skipped"] == "not-linear" for x in router)
    finding = next(f for f in report["findings"] if f["kind"] == "float8-coverage")
    assert f"{100 * converted / total:.0f}%" in finding["message"] and finding["bytes"] == 2 * (total - converted)
    assert any(
        "the experts (model.layers.*.mlp.experts) stay bf16" in n and "compute capability 9.0" in n for n in report["notes"]
    )
    assert "grouped-experts" in stdout


@pytest.mark.e2e
def test_a_model_that_refuses_sdpa_is_built_with_eager_attention_and_says_so(probes):
    report, stdout = probes["gemma2-bf16"]
    assert report["status"] == "complete"
    note = next(n for n in report["notes"] if n.startswith("attention:"))
    assert "Gemma2ForCausalLM does not support SDPA" in note and 'attn_implementation="eager"' in note
    assert "--attn-implementation" in note and "note: attention: Gemma2ForCausalLM" in stdout


def test_an_attention_implementation_transformers_refuses_is_one_line(transformers_installed, tmp_path):
    proc = invoke(
        "run", "--hf-config", GEMMA2, "--attn-implementation", "bogus", "--recipe", "bf16", *SMALL, "--out", tmp_path / "r", "-q"
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "--attn-implementation bogus: transformers refuses it" in proc.stderr


@pytest.mark.e2e
def test_a_diff_says_when_a_sides_float8_recipe_converted_nothing(probes):
    """GPT-2's projections are Conv1D, which torchao's float8 conversion does not swap: a diff of bf16 against a
    rowwise side compares bf16 with bf16, and says so beside its (empty) difference."""
    from memprobe.analysis.diff import diff_reports
    from memprobe.analysis.verdict import diff_verdict
    from memprobe.rundir import schema as S

    a = S.Report.model_validate(probes["gpt2-bf16"][0])
    b = S.Report.model_validate(probes["stock-gpt2-rowwise"][0])
    d = diff_reports(a, b)
    assert d.float8.a is None and d.float8.b.recipe == "rowwise" and d.float8.b.converted_parameters == 0
    assert d.float8.b.block_parameters == b.float8.block_linear_parameters > 0
    (finding,) = d.findings
    assert finding.kind == "float8-coverage" and finding.message.startswith("side B: float8 recipe rowwise converted 0%")
    assert "But side B: float8 recipe rowwise converted 0% of the blocks' matmul weights" in diff_verdict(d).text
    same = diff_reports(b, b)  # A/A: the same side twice, the same coverage both ways
    assert same.float8.a == same.float8.b and same.totals.saved_bytes.delta == 0


def _autograd_saved_storages(loss, parameters) -> int:
    """The bytes of the distinct storages the autograd graph behind ``loss`` holds for backward, the ``parameters``'
    storages apart: read from the graph's nodes (their ``_saved_*`` tensors), a method of its own."""
    import torch

    seen = {p.untyped_storage().data_ptr() for p in parameters}
    total, todo, visited = 0, [loss.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in visited:
            continue
        visited.add(node)
        for attr in dir(node):
            t = getattr(node, attr, None) if attr.startswith("_saved_") else None
            if isinstance(t, torch.Tensor):
                st = t.untyped_storage()
                if st.nbytes() and st.data_ptr() not in seen:
                    seen.add(st.data_ptr())
                    total += st.nbytes()
        todo.extend(fn for fn, _ in node.next_functions)
    return total


@pytest.mark.e2e
def test_an_eager_run_counts_what_autograd_holds_by_module(transformers_installed, made):
    """--no-compile: every block runs eagerly, so what autograd saves is all outside the compiled graphs: counted at
    run time by module, equal to the ground truth this test reads off the autograd graph of the same model (bf16, as
    FSDP2's mixed precision runs it), built by transformers here."""
    import torch
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM

    run = made("run", "--hf-config", LLAMA, "--recipe", "bf16", "--no-compile", "--ac", "none", *SMALL[:-1], "-q")
    report = json.loads((run.path / "report.json").read_text())
    outside = report["saved_outside"]
    config = CONFIG_MAPPING["llama"].from_json_file(LLAMA)
    config.num_hidden_layers, config.use_cache = LAYERS, False
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16, attn_implementation="sdpa")
    model.train()
    tokens = torch.randint(0, config.vocab_size, (BATCH, SEQ))
    loss = model(tokens).logits.float().pow(2).mean()
    assert outside["total_bytes"] == _autograd_saved_storages(loss, model.parameters()) > 0 and not outside["partial"]
    modules = {m["module"] for m in outside["modules"]}
    assert {"model.layers.0.self_attn.q_proj", "model.layers.1.mlp.down_proj", "model.norm", "(loss)"} <= modules
    # memprobe's own walk of the autograd graph (parameters included) agrees
    assert report["memory"]["autograd_saved_bytes"] == outside["total_bytes"] + outside["parameters_bytes"]


@pytest.mark.e2e
def test_the_logits_and_the_token_ids_are_counted_and_named(probes):
    """Outside the compiled blocks: the embedding keeps its token ids (int64), the output projection its input, and the
    loss the logits in float32 (batch x seq x vocab x 4 bytes), each named by its module."""
    report, stdout = probes["qwen2-rowwise"]
    config = json.loads(Path(QWEN2).read_text())
    by_module = {m["module"]: m["bytes"] for m in report["saved_outside"]["modules"]}
    assert by_module["(loss)"] == BATCH * SEQ * config["vocab_size"] * 4
    assert by_module["model.embed_tokens"] == BATCH * SEQ * 8
    assert by_module["lm_head"] == BATCH * SEQ * config["hidden_size"] * 2
    assert not any(name.startswith("model.layers.") for name in by_module)  # the compiled blocks' values are the graphs'
    assert "saved outside the compiled graphs:" in stdout and "(loss)" in stdout
