"""Region rematerialization with torch_remat on real compiled CPU runs: ``--ac remat`` (memprobe's regions, by
``--save-region`` pattern) and a model's own ``remat.checkpoint`` / ``remat.region`` under ``--ac none``. Each value a
region keeps names the region and its choice, read from what the compiled graph's nodes carry; a diff that flips one
region's pattern names it; explain ranks recomputing each region that kept something, and its next command runs.

torch_remat is the ``remat`` extra: CI installs it; elsewhere these tests skip unless MEMPROBE_REQUIRE_REMAT=1."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

pytestmark = pytest.mark.e2e

try:
    import torch_remat  # noqa: F401
except ImportError as e:  # pragma: no cover - the extra is installed where it is required
    if os.environ.get("MEMPROBE_REQUIRE_REMAT") == "1":
        pytest.fail(f"torch_remat is required here (MEMPROBE_REQUIRE_REMAT=1): {e}", pytrace=False)
    pytest.skip(f"torch_remat is not installed ({e}): pip install 'memprobe[remat]'", allow_module_level=True)

COMMON = ("--recipe", "bf16", "--no-fsdp", "--device", "cpu")
PLAIN = ("--model", "tests/models/remat_blocks.py:build_plain", *COMMON)
OWN = ("--model", "tests/models/remat_blocks.py:build", *COMMON)
REGIONS = ("--ac", "remat", "--save-region", "ffn.up")
SAVE_UP = (*PLAIN, *REGIONS)
# a diff's sides: the recipe is each side's argument
DIFF = ("diff", "bf16", "bf16", "--model", "tests/models/remat_blocks.py:build_plain", "--no-fsdp", "--device", "cpu", *REGIONS)


# torch_remat's own report of the test model, in a process of its own (no memprobe)
TRUTH = Path(__file__).parent / "scripts" / "remat_saved_report.py"


def _graph_nodes(run, graph: str) -> dict:
    return {n["name"]: n for n in json.loads((run.path / "graphs" / f"{graph}.json").read_text())["nodes"]}


def _kept(report) -> list[dict]:
    return [r for r in report["saved_tensors"] if r["cause"]["kind"] == "region-tag"]


def test_ac_remat_names_each_kept_value_by_its_region_its_choice_and_its_checkpoint(runs):
    """Under --ac remat --save-region ffn.up each block is a remat.checkpoint named by the block and its up-projection
    a recompute=False region: the up-projection's output is kept in each block, its cause naming region ffn.up, its
    choice and the block's checkpoint, as torch_remat tagged its node (MUST_SAVE, inside torch_remat's wrapper op)."""
    run = runs(*SAVE_UP)
    report = run.report
    assert report["config"]["ac"] == "remat" and report["config"]["save_regions"] == ["ffn.up"]
    kept = _kept(report)
    assert sorted(r["block"] for r in kept) == ["blocks.0", "blocks.1"], [(r["expr"], r["cause"]) for r in kept]
    for r in kept:
        cause = r["cause"]
        assert cause["region"] == "ffn.up" and cause["region_recompute"] is False
        assert cause["region_checkpoint"] == r["block"] and cause["checkpointed"] is True
        assert f"torch_remat region 'ffn.up' of checkpoint '{r['block']}' is recompute=False" in cause["text"]
        assert "SAC policy" not in cause["text"]
        assert "dynamo_bypassing_wrapper" not in r["user"]["label"], r["user"]["label"]
        assert r["user"]["module"] == f"{r['block']}.ffn.up"
        node = _graph_nodes(run, r["graph"])[r["name"]]
        assert node["recompute"] == "MUST_SAVE" and "tag_activation_checkpoint" in node["hops"]
        assert "dynamo_bypassing_wrapper" in [*node["hops"], node.get("source_fn")], node
        assert node["remat_region"] == "ffn.up" and node["remat_recompute"] is False
    # nothing else is decided inside the regions: the checkpoint recomputes the rest, it saves its inputs
    others = [r for r in report["saved_tensors"] if r["cause"]["kind"] not in ("region-tag", "input")]
    assert not others, [(r["expr"], r["cause"]["text"]) for r in others]
    assert not [f for f in report["findings"] if f["kind"] == "checkpoint-saves-more"]


def test_a_models_own_torch_remat_regions_are_named_under_ac_none(runs):
    """The model checkpoints its blocks itself (remat.checkpoint(region_name="blockN"), its up-projection in
    remat.region(..., "ffn.up", recompute=False)): memprobe names the region and the model's checkpoint, and the
    region's own choice is no checkpoint-saves-more finding."""
    report = runs(*OWN, "--ac", "none").report
    kept = _kept(report)
    assert sorted(r["cause"]["region_checkpoint"] for r in kept) == ["block0", "block1"]
    assert all(r["cause"]["region"] == "ffn.up" and r["cause"]["region_recompute"] is False for r in kept)
    assert all(r["user"]["source"].startswith("tests/models/remat_blocks.py:") for r in kept)
    # torch_remat's wrapper op swallows the call's name: the value is named inside its region instead
    assert all(r["user"]["label"].endswith("· inside torch_remat region ffn.up") for r in kept), [r["user"] for r in kept]
    assert not [f for f in report["findings"] if f["kind"] == "checkpoint-saves-more"]


def test_ac_remat_saves_what_the_models_own_regions_save(runs):
    """The same regions made by --ac remat and by the model itself keep the same values, of the same bytes."""
    ours = sorted((r["bytes"], r["cause"]["region"]) for r in _kept(runs(*SAVE_UP).report))
    own = sorted((r["bytes"], r["cause"]["region"]) for r in _kept(runs(*OWN, "--ac", "none").report))
    assert ours == own and ours


def test_a_diff_of_one_remat_configuration_with_itself_differs_in_nothing(made):
    d = json.loads(made(*DIFF, "--json").proc.stdout)
    assert d["change"]["kind"] == "none"
    assert not [it for it in d["items"] if it["status"]], [(it["status"], it["expr"]) for it in d["items"]]


def test_a_diff_that_flips_one_region_names_the_region_and_the_flag(made):
    """A keeps region ffn.up, B recomputes it (--recompute-region ffn.up after the same --save-region): the values
    only A saves are the region's, their hint naming it, and the flag that changed is said."""
    flip = (*DIFF, "--b", "--recompute-region ffn.up", "--json")
    d = json.loads(made(*flip).proc.stdout)
    assert d["change"]["kind"] == "configuration"
    assert any("--recompute-region" in f for f in d["change"]["flags"]), d["change"]["flags"]
    gone = [it for it in d["items"] if it["status"] == "only_a"]
    assert gone and all("torch_remat region 'ffn.up' is recompute=False" in it["hint"] for it in gone), gone
    assert all(it["a_decision"]["cause"]["region"] == "ffn.up" for it in gone)
    assert all(it["b_decision"]["fate"] == "recomputed" for it in gone), [it["b_decision"] for it in gone]


def test_explain_ranks_recomputing_each_kept_region_and_its_next_command_runs(tmp_path):
    proc = run_cli("explain", *SAVE_UP, "--out", tmp_path / "e", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout)
    assert [e["flag"] for e in r["edits"]] == ["--recompute-region ffn.up"]
    edit = r["edits"][0]
    assert edit["bytes_saved"] > 0, edit
    command = r["verdict"].get("next_command")
    assert command and "--recompute-region ffn.up" in command, r["verdict"]
    words = shlex.split(command.split("   #")[0])
    assert words[:2] == ["memprobe", "run"]
    again = run_cli(*words[1:], "--out", tmp_path / "next", "--json", "-q")
    assert again.returncode == 0, again.stderr[-3000:]
    assert not _kept(json.loads(again.stdout))


def test_eager_regions_run_only_where_torch_remat_can_recompute_them(tmp_path):
    """torch_remat recomputes a region eagerly through a torch._C binding that CPU builds of torch 2.13 lack: there
    ``--ac remat --no-compile`` is refused in one line before the model is built (its backward failed with an
    AttributeError: exit 3); where the binding exists the eager run completes."""
    import torch

    from memprobe.integrations.remat import EAGER_RECOMPUTE_API

    proc = run_cli("run", *SAVE_UP, "--no-compile", "--out", tmp_path / "r", "-q")
    if hasattr(torch._C, EAGER_RECOMPUTE_API):
        assert proc.returncode == 0, proc.stderr[-3000:]
        return
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-3000:]
    assert f"torch._C.{EAGER_RECOMPUTE_API}" in proc.stderr and f"({torch.__version__}) lacks" in proc.stderr
    # compiled, the same regions run: the partitioner's, not torch_remat's eager recompute
    assert run_cli("run", *SAVE_UP, "--out", tmp_path / "c", "-q").returncode == 0


def _torch_remats_report(prefix: str) -> dict:
    proc = subprocess.run([sys.executable, TRUTH, "--prefix", prefix], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize(
    ("flags", "prefix"), [(SAVE_UP, "blocks."), ((*OWN, "--ac", "none"), "block")], ids=["ac-remat", "own-regions"]
)
def test_eager_saved_bytes_per_region_equal_torch_remats_own_report(runs, flags, prefix):
    """Eager (--no-compile), memprobe's pack hook counts what each torch_remat region keeps, by region: the same bytes,
    region by region and op by op, as torch_remat's own saved-tensors report of the same model, input and regions
    (format_saved_tensors_report(loss) before backward, in a process without memprobe), and the same outside the
    regions. What torch_remat leaves out is compared apart: the parameters a region's ops save (memprobe counts them
    apart too), and each checkpoint's own inputs (held by its checkpoint node, which torch_remat's graph walk does not
    open), which memprobe counts as the checkpoint's boundary (region None): each block's input."""
    import torch

    from memprobe.integrations.remat import EAGER_RECOMPUTE_API

    if not hasattr(torch._C, EAGER_RECOMPUTE_API):
        pytest.skip(
            f"torch {torch.__version__} lacks torch._C.{EAGER_RECOMPUTE_API}: torch_remat cannot recompute a region "
            "eagerly, so no eager run completes (memprobe's refusal: "
            "test_eager_regions_run_only_where_torch_remat_can_recompute_them)"
        )
    outside = runs(*flags, "--no-compile").report["saved_outside"]
    truth = _torch_remats_report(prefix)
    kept: dict[str, dict[str, int]] = {}
    boundary: dict[str, int] = {}
    for r in outside["regions"]:
        if r["region"] is None:
            boundary[r["checkpoint"]] = r["bytes"]
        else:
            assert r["recompute"] is False, r
            kept.setdefault(r["checkpoint"], {})[r["region"]] = r["bytes"]
    theirs = truth["regions"]
    print(f"torch {truth['torch']}, {' '.join(flags)} --no-compile; torch_remat's report:\n{truth['text']}")
    for name, region in theirs.items():
        print(f"{name}: memprobe {kept.get(name)} B, torch_remat {region['ops']} B; boundary {boundary.get(name)} B")
    assert len(theirs) == 2 and all(r["bytes"] for r in theirs.values()), truth["text"]
    assert kept == {name: r["ops"] for name, r in theirs.items()}
    assert {name: sum(ops.values()) for name, ops in kept.items()} == {name: r["bytes"] for name, r in theirs.items()}
    elsewhere = outside["total_bytes"] - sum(r["bytes"] for r in outside["regions"])
    print(
        f"outside the regions: memprobe {elsewhere} B, torch_remat {truth['outside_bytes']} B; parameters: memprobe "
        f"{outside['parameters_bytes']} B, torch_remat {truth['parameters_bytes']} B"
    )
    assert elsewhere == truth["outside_bytes"] > 0  # the stand-in loss's float copy of the output
    assert outside["parameters_bytes"] == truth["parameters_bytes"]
    block_input = 2 * 32 * 64 * torch.bfloat16.itemsize
    assert boundary == {name: block_input for name in theirs}
