"""A fake world, end to end on the CPU: `--fake-world N` runs rank 0 of N ranks in one process, FSDP2 sharded over
PyTorch's fake process group. Held to ground truth computed from the model's dimensions, to an A/A diff, to a real
2-process gloo run, and to the estimate of a deeper run (issue 50)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import invoke, run_cli

# the transformer repro with its embedding, output layer and logits, at small dimensions: every dimension a multiple
# of 4, so FSDP2 shards every parameter into equal quarters without padding
DIM, HIDDEN, HEADS, KV_HEADS, VOCAB = 64, 128, 4, 2, 1024
SMALL = (
    *("--repro", "transformer", "--dim", DIM, "--hidden", HIDDEN, "--heads", HEADS, "--kv-heads", KV_HEADS),
    *("--vocab", VOCAB, "--seq", 32, "--device", "cpu"),
)
FAKED = "rank 0 of 4, collectives faked: NCCL buffers and overlap timing not measured"


def block_numel() -> int:
    """A block's parameters, from its definition (repros/transformer.py): wq, wo (dim x dim), wk, wv (dim x kv width),
    w1, w2, w3 (dim x hidden), two norms."""
    kv_width = DIM // HEADS * KV_HEADS
    return 2 * DIM * DIM + 2 * DIM * kv_width + 3 * DIM * HIDDEN + 2 * DIM


def whole_numel(layers: int) -> int:
    """The model's parameters: the blocks, the final norm, the token embedding and the output projection."""
    return layers * block_numel() + DIM + 2 * VOCAB * DIM


def tensors(layers: int) -> int:
    """The model's parameter tensors: 9 a block, the final norm, the embedding and the output projection."""
    return 9 * layers + 3


def allocations_in(report: dict, region: str, phase: str = "forward") -> list[int]:
    """The sizes the CPU profiler saw allocated inside the annotated ``region`` in ``phase`` of the measured step."""
    events = report["memory"]["events"]
    t0, t1 = events["phase_windows_us"][phase]
    windows = [(a, b) for name, a, b in events["annotations"] if name == region and t0 <= a <= t1]
    assert windows, region
    return [row[1] for row in events["rows"] if row[1] > 0 and any(a <= row[0] <= b for a, b in windows)]


@pytest.mark.e2e
def test_a_fake_world_of_4_holds_a_quarter_of_the_state_and_gathers_whole_blocks(runs):
    run = runs(*SMALL, "--layers", 2, "--fake-world", 4)
    rep = run.report
    assert rep["distributed"] == {"rank": 0, "world_size": 4, "backend": "fake", "faked": True, "headline": FAKED}
    whole = 4 * whole_numel(2)  # fp32 bytes of every parameter, unsharded
    mem = rep["memory"]
    # rank 0's shards: a quarter of the parameters, of their gradients and of AdamW's two moments (its step counters,
    # one fp32 scalar per parameter tensor, are not sharded)
    assert mem["persistent"]["parameters_bytes"] == whole // 4
    assert mem["gradients_bytes"] == whole // 4
    assert mem["persistent"]["optimizer_state_bytes"] == 2 * whole // 4 + 4 * tensors(2)
    # all-gathered for the block's forward: its whole parameters in bf16, from a quarter of them
    for block in ("layers.0", "layers.1"):
        gathered = allocations_in(rep, f"FSDP::all_gather ({block})")
        assert max(gathered) == 2 * block_numel() and 2 * block_numel() // 4 in gathered, (block, gathered)
    # the root's (embedding, final norm, output projection): whole too
    assert max(allocations_in(rep, "FSDP::all_gather")) == 2 * (DIM + 2 * VOCAB * DIM)
    # the output projection stays bf16, as torchtitan's float8 leaves it
    output = next(x for x in rep["float8"]["linears"] if x["fqn"] == "output")
    assert not output["converted"] and output["skipped"] == "filtered" and not output["in_blocks"]
    # the header says what was faked (and `show` reads it from the record)
    proc = invoke("show", run.path)
    assert proc.returncode == 0, proc.stderr
    head = proc.stdout.split("\n\n")[0]
    assert f"fake world: {FAKED}" in head and "rank 0 of 4 (fake world)" in head


@pytest.mark.e2e
def test_an_aa_diff_of_a_fake_world_is_exactly_zero(made):
    diff = made("diff", "rowwise", "rowwise", *SMALL, "--layers", 2, "--fake-world", 4)
    d = json.loads((diff.path / "diff.json").read_text())
    assert d["differences"] == 0 and d["items"] == [] and d["totals"]["saved_bytes"]["delta"] == 0
    phases = d["phases"]["phases"]
    assert set(phases) == {"forward", "backward", "optimizer"}
    assert all(fig["delta"] == 0 for p in phases.values() for fig in p.values())
    assert all(v["delta"] == 0 for p in d["alive_at_peak"]["phases"].values() for v in p.values())
    for side in "ab":  # each side a fake rank 0 of 4, and the diff's header says so
        assert json.loads((diff.path / side / "report.json").read_text())["distributed"]["faked"] is True
    assert diff.proc.stdout.count(f"fake world: {FAKED}") == 2


# what a rank of a real run and the fake rank 0 must agree on, to the byte (measured; the saved table is derived)
SAME = (
    ("memory", "persistent"),
    ("memory", "gradients_bytes"),
    ("memory", "autograd_saved_bytes"),
    ("saved_totals",),
    ("saved_outside", "total_bytes"),
)


def _at(report: dict, path: tuple[str, ...]):
    for key in path:
        report = report[key]
    return report


def _levels(report: dict) -> dict:
    """Each phase's start, peak and end (not its count of events: gloo's collectives add theirs)."""
    return {name: (p["start_bytes"], p["peak_bytes"], p["end_bytes"]) for name, p in report["memory"]["phases"].items()}


@pytest.mark.e2e
@pytest.mark.slow
def test_a_fake_rank_0_of_2_allocates_what_rank_0_of_a_real_gloo_run_does(tmp_path):
    """The A/A of the fake world against a real one: `--fake-world 2` and `--nproc 2` (two processes, gloo), each
    process on one thread (torchrun gives each rank its share of the cores; the CPU kernels' workspaces depend on
    it). The state, the gradients, what is saved for backward and the forward's figures are equal on every rank; of
    the allocations, the real rank makes the fake one's and, besides them, only the copies gloo's own collectives
    make (NCCL makes none on a GPU; the fake group makes none). When a copy is freed depends on when gloo's thread
    finishes the collective: a figure of a real rank may hold some of them (measured: a reduce-scatter's 147,968 B past
    the end of backward on rank 0 of one run of two; on a loaded machine, a block's all-gather copy through the
    forward's peak and end, and 894,464 B of copies at the end of backward), which is the timing the fake world does
    not see: each figure is the fake rank's plus a sum of the copies the real rank made."""
    one_thread = {"OMP_NUM_THREADS": "1"}
    fake, real = tmp_path / "fake", tmp_path / "real"
    for out, world in ((fake, ("--fake-world", 2)), (real, ("--nproc", 2))):
        proc = run_cli("run", *SMALL, "--layers", 2, *world, "--out", out, "-q", env=one_thread)
        assert proc.returncode == 0, proc.stderr[-3000:]
    f = json.loads((fake / "report.json").read_text())
    ranks = [json.loads((real / f"rank{r}" / "report.json").read_text()) for r in (0, 1)]
    assert f["distributed"]["world_size"] == ranks[0]["distributed"]["world_size"] == 2
    assert (f["distributed"]["backend"], ranks[0]["distributed"]["backend"]) == ("fake", "gloo")
    for path in SAME:
        assert _at(f, path) == _at(ranks[0], path) == _at(ranks[1], path), path
    assert [r["expr"] for r in f["saved_tensors"]] == [r["expr"] for r in ranks[0]["saved_tensors"]]
    # gloo's own copies: of an all-gather's output (the root's and each block's, bf16), of a reduce-scatter's input
    # (each one's gradients, fp32), and the scalars of its all-reduce
    root = DIM + 2 * VOCAB * DIM
    gloo_own = {2 * root, 2 * block_numel(), 4 * root, 4 * block_numel(), 4, 8}
    fake = _levels(f)
    assert set(fake) == {"forward", "backward", "optimizer"}
    # allocation by allocation: the fake rank's are the real rank's; the real one's others are gloo's copies
    for rank in ranks:
        made = [Counter(row[1] for row in rep["memory"]["events"]["rows"] if row[1] > 0) for rep in (f, rank)]
        assert not made[0] - made[1]
        copies = made[1] - made[0]
        assert set(copies) <= gloo_own, copies
        # a phase's start and end are the fake rank's plus some of gloo's copies still held (freed when its thread is
        # done); its peak, whose moment those copies may move, lies between the fake rank's and that plus all of them
        held = {0}
        for size in copies.elements():
            held |= {h + size for h in held}
        real = _levels(rank)
        assert real["forward"][0] == fake["forward"][0] == 0
        for phase in fake:
            (start, peak, end), (fake_start, fake_peak, fake_end) = real[phase], fake[phase]
            assert start - fake_start in held and end - fake_end in held, (phase, real, fake)
            assert 0 <= peak - fake_peak <= max(held), (phase, real, fake)


@pytest.mark.e2e
def test_the_estimate_of_8_blocks_from_2_is_within_a_tenth_of_a_percent(runs):
    """`memprobe estimate` of a fake rank 0 of 4 with 2 blocks, against the same configuration with 8 measured: the
    step peaks in backward at the logits, which the estimate carries as measured while the blocks add their state and
    saved values."""
    probe, deep = runs(*SMALL, "--layers", 2, "--fake-world", 4), runs(*SMALL, "--layers", 8, "--fake-world", 4)
    proc = invoke("estimate", probe.path, "--layers", 8, "--json")
    assert proc.returncode == 0, proc.stderr
    est = json.loads(proc.stdout)
    assert est["target"]["world"] == est["probe"]["world"] == 4
    mem = deep.report["memory"]
    state = mem["persistent"]["parameters_bytes"] + mem["persistent"]["optimizer_state_bytes"]  # CPU: above the start
    measured = {
        "forward_end_bytes": mem["phases"]["forward"]["end_bytes"] + state,
        "peak_bytes": max(p["peak_bytes"] for p in mem["phases"].values()) + state,
    }
    target = est["totals"]["target_estimated"]
    for key, value in measured.items():
        assert abs(target[key] - value) <= 0.001 * value, (key, target[key], value)
    c = est["components"]["target"]
    assert c["sharded_parameters_bytes"] == mem["persistent"]["parameters_bytes"] == 4 * whole_numel(8) // 4
    by_kind = deep.report["saved_totals"]["by_kind_bytes"]
    assert c["saved_activation_bytes"] == by_kind.get("activation", 0)
    assert c["saved_weight_derived_bytes"] == by_kind.get("weight-derived", 0)
