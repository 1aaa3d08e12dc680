"""Causes from recorded runs: each saved value's cause read from what the partitioner recorded, the decisions of
both sides of a version diff, the verdict that names the version change, and values matched across torch releases
by the place of their symbolic sizes, not their names.

The committed pair tests/data/cpu/quantlinear-torch2.11 / quantlinear-torch2.13 is one configuration (the blocks of
tests/models/quantlinear.py under --ac full) recorded by memprobe on torch 2.11.0 and 2.13.0 (tests/data/README.md):
torch 2.11 leaves the ops inside the autograd.Function untagged, and its partitioner saves the Function's matmul.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from memprobe.analysis.diff import canonical_shape, diff_reports
from memprobe.analysis.run import analyse
from memprobe.analysis.verdict import diff_verdict
from memprobe.rundir import schema as S
from memprobe.rundir.load import load_report

DATA = Path(__file__).parent / "data" / "cpu"
OLD, NEW = DATA / "quantlinear-torch2.11", DATA / "quantlinear-torch2.13"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """Both recorded runs, analysed again by this memprobe (from copies: analysis writes nothing, but a test might)."""
    out = {}
    for name, src in (("old", OLD), ("new", NEW)):
        run = tmp_path_factory.mktemp(name) / "run"
        shutil.copytree(src, run)
        out[name] = analyse(load_report(run), run)
    return out


def test_the_recorded_partition_gives_every_saved_value_its_cause(analysed):
    old = analysed["old"]
    assert old.versions.torch.startswith("2.11.") and old.config.ac == "full"
    by_kind = {}
    for r in old.saved_tensors:
        by_kind.setdefault(r.cause.kind, []).append(r)
    assert set(by_kind) == {"input", "not-recomputable"}, {k: len(v) for k, v in by_kind.items()}
    for r in by_kind["not-recomputable"]:
        c = r.cause
        assert r.op == "mm" and c.function == "QuantLinearFunction"
        assert c.tag is None and c.checkpointed is True and c.rule == "not in recomputable allowlist"
        # the recorded stack names the file where it was recorded: a source under the working directory reads relative
        assert r.user.module.endswith(".up") and "tests/models/quantlinear.py:" in r.user.source
    # the rule is the partitioner's own, recorded on the graph's node
    from memprobe.analysis.saved import graph_pairs

    pairs = graph_pairs(OLD, old)
    row = by_kind["not-recomputable"][0]
    node = next(n for p in pairs.values() for n in p.forward.nodes if n.name == row.name and p.forward.graph_id == row.graph)
    assert node.partition.banned and node.partition.rule == row.cause.rule
    assert node.hops == ["tag_activation_checkpoint", "autograd.function"]


def test_the_run_verdict_names_the_function_the_module_the_line_and_the_cause(analysed):
    v = analysed["old"].verdict
    assert v.finding == "checkpoint-saves-more"
    for words in (
        "autograd.Function QuantLinearFunction",
        "blocks.*.up",
        "tests/models/quantlinear.py:",
        "not in recomputable allowlist",
        "untagged inside a checkpointed region",
    ):
        assert words in v.text, (words, v.text)
    assert v.flag == "--ac op --ac-policy recompute-all"
    words = shlex.split(v.next_command.split("   #")[0])
    assert words[:2] == ["memprobe", "run"] and "--ac" not in words  # per-op SAC is the default
    assert words[words.index("--ac-policy") + 1] == "recompute-all"
    assert words[words.index("--model") + 1] == "tests/models/quantlinear.py:build"


def test_the_newer_torch_recomputes_what_the_older_saves(analysed):
    new = analysed["new"]
    assert new.versions.torch.startswith("2.13.") and {r.cause.kind for r in new.saved_tensors} == {"input"}
    mm = [v for v in new.recomputed if v.op == "mm" and v.function == "QuantLinearFunction"]
    assert mm and all(v.tag == "PREFER_RECOMPUTE" and v.checkpointed and v.copied for v in mm)
    assert not [f for f in new.findings if f.kind == "checkpoint-saves-more"]


def test_a_version_diff_gives_both_sides_decisions_and_names_the_version_as_the_cause(analysed):
    d = diff_reports(analysed["new"], analysed["old"])  # A: torch 2.13, B: torch 2.11
    d.a.source, d.b.source = str(NEW), str(OLD)
    assert d.change.kind == "versions" and d.change.flags is None
    grown = [it for it in d.items if it.status == "only_b"]
    assert [it.user.op for it in grown] == ["mm"] and grown[0].delta_bytes == d.totals.saved_bytes.delta > 0
    a, b = grown[0].a_decision, grown[0].b_decision
    assert a.fate == "recomputed" and a.tag == "PREFER_RECOMPUTE" and a.function == "QuantLinearFunction"
    assert b.fate == "saved" and b.cause.kind == "not-recomputable" and b.tag is None and b.checkpointed
    v = diff_verdict(d)
    assert "the version change is the cause" in v.text and "torch 2.13.0+cpu -> 2.11.0" in v.text
    assert "A recomputes it in backward (tagged PREFER_RECOMPUTE" in v.text
    assert "B saves it: untagged inside a checkpointed region" in v.text
    assert "side A's versions (torch 2.13.0+cpu" in v.fix and v.flag == "--ac op --ac-policy recompute-all"
    words = shlex.split(v.next_command)
    # B runs per-op SAC (the default --ac) with the policy that recomputes every op; A keeps its --ac full
    assert words[:4] == ["memprobe", "diff", "bf16", "bf16"] and words[words.index("--b") + 1] == "--ac-policy recompute-all"
    assert words[words.index("--a") + 1] == "--ac full" and "--ac" not in words[4 : words.index("--a")]


def test_the_same_run_against_itself_shows_nothing_changed(analysed):
    d = diff_reports(analysed["old"], analysed["old"])
    assert d.differences == 0 and d.change.kind == "none" and diff_verdict(d).bytes == 0


def _row(shape, name="getitem_1") -> S.SavedRow:
    return S.SavedRow(
        graph="g0.forward",
        block="layers.0",
        name=name,
        shape=shape,
        dtype="uint8",
        bytes=16,
        expr="getitem(run_and_save_rng_state(…))",
        op="getitem",
        roots=[],
        kind="other",
        reason_kind="partitioner",
        reason="an RNG state",
        policy_op=None,
        runtime_storage_bytes=16,
        runtime_storage_id=1,
    )


def test_symbolic_sizes_match_by_their_place_not_their_name():
    assert canonical_shape(["s9", 64, "2*s9"]) == canonical_shape(["s57", 64, "2*s57"]) == ("s#0", 64, "2*s#0")
    assert canonical_shape(["s9", "s3"]) != canonical_shape(["s3", "s3"])
    base = {"config": S.Config(), "device": S.Device(type="cpu"), "versions": S.Versions(torch="2.13.0"), "status": "complete"}
    a = S.BaselineReport(**base, saved_tensors=[_row(["s9"])])
    b = S.BaselineReport(**{**base, "versions": S.Versions(torch="2.15.0")}, saved_tensors=[_row(["s57"])])
    d = diff_reports(a, b)
    assert d.differences == 0 and d.unchanged_items == 1 and d.change.kind == "versions"


def test_explain_offers_an_edit_for_every_checkpointing_mode(analysed):
    """Per-op SAC: each save-list op recomputed; no checkpointing: the ways to checkpoint; --ac full: a per-op policy
    that tags every op (what restores the old recompute on torch 2.11); a memory budget: one line naming sweep."""
    from dataclasses import replace

    from memprobe.errors import ConfigError
    from memprobe.orchestrate.explain import candidate_edits, check_explainable

    old = analysed["old"]
    cfg = old.config.probe()
    assert [e.flag for e in candidate_edits(old, cfg)] == ["--ac op --ac-policy recompute-all"]
    edit = candidate_edits(old, cfg)[0].config
    assert (edit.ac, edit.ac_policy, edit.model) == ("op", "recompute-all", cfg.model)
    none = candidate_edits(old, replace(cfg, ac="none"))
    assert [e.config.ac for e in none] == ["full", "op", "memory-budget"]
    with pytest.raises(ConfigError, match="memprobe sweep"):
        check_explainable(replace(cfg, ac="memory-budget"))


def test_a_diff_whose_items_changed_no_bytes_has_a_verdict(analysed):
    """A diff.json that counts differences but lists no item that grew or shrank (a file someone edited, or values
    that differ in shape only) still reads as a sentence."""
    d = diff_reports(analysed["new"], analysed["old"])
    d.items = []
    assert diff_verdict(d).text.endswith("nothing B saves is new or larger.")


@pytest.mark.parametrize("kind", ["versions", "configuration", "versions+configuration"])
def test_a_diff_whose_change_says_nothing_has_a_verdict(analysed, kind):
    """A diff.json whose change has empty words (found by the fuzz: exit 70): the verdict leaves them out, and says
    the version change is the cause when the versions are what differ."""
    d = diff_reports(analysed["old"], analysed["new"])
    d.change = S.Change(kind=kind, text="")
    text = diff_verdict(d).text
    assert ": ." not in text and ". ." not in text and not text.endswith(" .")
    assert ("The version change is the cause." in text) == (kind == "versions")


def test_a_diffs_fix_for_an_op_b_added_drops_it_and_its_next_command_runs_that():
    """B saves aten.abs because its own --save-op added it: the fix drops the flag (adding --recompute-op beside it
    would be refused: an op both saved and recomputed), and the next command runs B without it."""
    cuda = Path(__file__).parent / "data" / "cuda"
    a, b = load_report(cuda / "bf16-legacy"), load_report(cuda / "rowwise-legacy")
    cfg = b.config.probe()
    b.config = S.Config.model_validate({**cfg.to_dict(), "ac_policy": "torchtitan", "save_ops": ["aten.abs.default"]})
    d = diff_reports(a, b)
    d.a.source, d.b.source = "a-dir", "b-dir"
    v = diff_verdict(d, frozenset({"a"}))
    assert "in B, drop --save-op aten.abs" in v.fix
    words = shlex.split(v.next_command)
    assert words[:4] == ["memprobe", "diff", "a-dir", "rowwise"] and "--save-op" not in words and "--recompute-op" not in words
    assert "--ac-policy" not in words  # B's policy, torchtitan, is the default: B runs as it was, without the added op
