"""CUDA snapshots: safe loading, and attribution at the peak, replayed on real H200 data."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from memprobe.analysis.output_code import simulate_run
from memprobe.analysis.saved import graph_pairs
from memprobe.analysis.snapshot import SnapshotError, attribute_peak, load_snapshot, replay
from memprobe.rundir import schema as S
from memprobe.rundir.load import dump, load_report

CUDA = Path(__file__).parent / "data" / "cuda"
BF16 = CUDA / "bf16-legacy"


def _attribution(name: str) -> tuple[dict, dict]:
    run_dir = CUDA / name
    report = load_report(run_dir)
    # recompute everything the attribution needs from the files, not from the stored results
    report.graph_memory = simulate_run(run_dir, report, graph_pairs(run_dir, report))
    report.attribution = None
    return dump(report), dump(attribute_peak(load_snapshot(run_dir / "snapshot.pickle"), report))


@pytest.mark.parametrize("name", ["bf16-legacy", "rowwise-legacy"])
def test_named_categories_cover_the_peak(name):
    _, att = _attribution(name)
    assert att["named_fraction"] >= 0.95
    assert set(att["phases"]) == {"forward", "backward", "optimizer"}
    for phase in att["phases"].values():
        assert phase["named_fraction"] >= 0.95
        assert sum(phase["by_category_bytes"].values()) == phase["alive_bytes"]


@pytest.mark.parametrize("name", ["bf16-legacy", "rowwise-legacy"])
def test_replayed_peaks_match_the_allocator(name):
    """Derived (trace replay, each request counted as the allocator's block) against measured (allocator statistics
    reset per phase): equal to the byte."""
    report, att = _attribution(name)
    measured = report["memory"]["phases"]
    assert att["peak_bytes"] == max(p["peak_bytes"] for p in measured.values())
    for phase, figures in att["phases"].items():
        assert figures["peak_bytes"] == measured[phase]["peak_bytes"], phase


def test_abs_items_are_saved_for_backward_at_the_forward_peak():
    _, att = _attribution("rowwise-legacy")
    saved = [it["item"] for it in att["phases"]["forward"]["saved_for_backward"]]
    abs_items = [s for s in saved if s.startswith("abs(permute(layers.")]
    assert {s.split(".")[-2] for s in abs_items} == {"w1", "w2", "w3"}
    assert {s.split(".")[1] for s in abs_items} == {"0", "1"}
    _, bf16 = _attribution("bf16-legacy")
    assert not [it for it in bf16["phases"]["forward"]["saved_for_backward"] if it["item"].startswith("abs(")]
    assert bf16["phases"]["forward"]["saved_for_backward"], "bf16 saves activations too"


def test_optimizer_state_and_parameters_come_from_the_registry():
    _, att = _attribution("rowwise-legacy")
    cats = att["by_category_bytes"]
    assert cats["optimizer-state"] == 2 * cats["sharded-parameter"]  # AdamW: exp_avg + exp_avg_sq, fp32 like the params


def test_malicious_pickle_runs_no_code(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            import os

            return (os.system, (f"touch {marker}",))

    path = tmp_path / "snapshot.pickle"
    path.write_bytes(pickle.dumps({"segments": [], "device_traces": [], "x": Evil()}))
    with pytest.raises(
        SnapshotError, match="refusing to load posix.system|refusing to load os.system|refusing to load nt.system"
    ):
        load_snapshot(path)
    assert not marker.exists()


def test_bad_snapshot_files(tmp_path):
    with pytest.raises(SnapshotError, match="cannot read"):
        load_snapshot(tmp_path / "missing.pickle")
    empty = tmp_path / "empty.pickle"
    empty.write_bytes(b"")
    with pytest.raises(SnapshotError, match="empty"):
        load_snapshot(empty)
    good = (CUDA / "bf16-legacy" / "snapshot.pickle").read_bytes()
    cut = tmp_path / "cut.pickle"
    cut.write_bytes(good[: len(good) // 2])
    with pytest.raises(SnapshotError, match="truncated"):
        load_snapshot(cut)
    other = tmp_path / "other.pickle"
    other.write_bytes(pickle.dumps({"hello": 1}))
    with pytest.raises(SnapshotError, match="not a CUDA memory snapshot"):
        load_snapshot(other)
    text = tmp_path / "text.pickle"
    text.write_text(json.dumps({"segments": []}))
    with pytest.raises(SnapshotError):
        load_snapshot(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_loader_never_crashes_on_arbitrary_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "s.pickle"
    path.write_bytes(data)
    try:
        snap = load_snapshot(path)
    except SnapshotError:
        return
    replay(snap)  # a structurally valid snapshot must replay


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**6))
def test_corrupted_real_snapshot_never_crashes(tmp_path_factory, seed):
    import random

    good = bytearray((CUDA / "bf16-legacy" / "snapshot.pickle").read_bytes())
    rng = random.Random(seed)
    for _ in range(rng.randint(1, 8)):
        good[rng.randrange(len(good))] = rng.randrange(256)
    path = tmp_path_factory.mktemp("fuzz") / "s.pickle"
    path.write_bytes(bytes(good))
    try:
        load_snapshot(path)
    except SnapshotError:
        pass


_event = st.fixed_dictionaries(
    {
        "action": st.sampled_from(["alloc", "free_requested", "free_completed", "segment_alloc", "oom", 3]),
        "addr": st.one_of(st.integers(0, 8), st.none()),
        "size": st.one_of(st.integers(0, 4096), st.text(max_size=2)),
    },
    optional={
        "frames": st.lists(
            st.fixed_dictionaries({"filename": st.text(max_size=5), "line": st.integers(), "name": st.text(max_size=5)}),
            max_size=2,
        )
    },
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_event, max_size=30),
    st.lists(st.dictionaries(st.sampled_from(["address", "size", "state"]), st.integers(0, 8)), max_size=3),
)
def test_replay_and_attribution_never_crash_on_odd_traces(events, blocks):
    snap = {"segments": [{"device": 0, "blocks": blocks}], "device_traces": [events]}
    rep = replay(snap)
    assert rep["events"] <= len(events)
    att = attribute_peak(snap, S.Report.model_construct(graphs=[], invocations=[]))
    assert att.alive_bytes >= 0


# -- fields of the wrong type ------------------------------------------------------------------------------------------


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _invoke(*args) -> tuple[int, str, str]:
    """A verb in this process, through the CLI's one door: exit code, stdout, stderr."""
    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s["device_traces"][0][0].update(time_us="soon"),
        lambda s: s["device_traces"][0][0].update(time_us=[1]),
        lambda s: s["device_traces"][0][0].update(time_us=10**400),
        lambda s: s["segments"][0].update(blocks=7),
        lambda s: s["device_traces"][0][1].update(size=2**70),
    ],
)
def test_snapshot_fields_of_the_wrong_type_are_ignored_not_a_crash(tmp_path, edit):
    from memprobe.analysis.snapshot import load_snapshot

    run = _copy(BF16, tmp_path / "X")
    snap = dict(load_snapshot(run / "snapshot.pickle"))
    edit(snap)
    import pickle

    (run / "snapshot.pickle").write_bytes(pickle.dumps(snap))
    code, out, err = _invoke("report", run, "-o", tmp_path / "x.html", "--trace", tmp_path / "t.json")
    assert code == 0, err
    json.loads((tmp_path / "t.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the trace"))


def test_a_stack_is_derived_once_per_distinct_frames_and_odd_frames_are_checked_one_by_one():
    """A real snapshot gives each event a list of its own: equal frames are derived once. A frame the fast check does
    not take (a bool line, a name over the bound) goes through the frame-by-frame check, which keeps or drops it."""
    from memprobe.analysis.snapshot import MAX_FRAME_TEXT, PerStack

    derived = []
    per = PerStack(lambda frames: derived.append([f["name"] for f in frames]) or len(derived))
    stack = lambda: [{"filename": "train.py", "line": 3, "name": "step"}, {"filename": "m.py", "line": 9, "name": "f"}]  # noqa: E731
    assert per({"frames": stack()}) == per({"frames": stack()}) == 1 and derived == [["step", "f"]]
    assert per({"frames": [{"filename": "a.py", "line": True, "name": "g"}]}) == 2 and derived[-1] == ["g"]
    long = {"filename": "a.py", "line": 1, "name": "x" * (MAX_FRAME_TEXT + 1)}
    assert per({"frames": [long, {"filename": "a.py", "line": 1, "name": "h"}]}) == 3 and derived[-1] == ["h"]
    assert per({"frames": [{"filename": "a.py", "name": "k"}]}) == 4 and derived[-1] == ["k"]  # no line: kept


def test_a_probes_snapshot_records_python_stacks_unless_told_all(monkeypatch):
    """torchtitan's reasons (PR #2991: the C++ unwinder crashing on compiler-generated frames; PR #3628: ~461 s to dump
    against ~4 s): Python stacks by default, C++ ones beside them only when MEMPROBE_SNAPSHOT_STACKS says all."""
    from memprobe.capture.memory import snapshot_stacks
    from memprobe.settings import SNAPSHOT_STACKS

    monkeypatch.delenv(SNAPSHOT_STACKS.name, raising=False)
    assert snapshot_stacks() == "python"
    monkeypatch.setenv(SNAPSHOT_STACKS.name, "all")
    assert snapshot_stacks() == "all"
    monkeypatch.setenv(SNAPSHOT_STACKS.name, "cpp")  # anything else: the default
    assert snapshot_stacks() == "python"


def test_a_library_workspace_is_named_without_its_cpp_frames():
    """With Python stacks (the default) cuBLAS's workspace has no C++ frame saying so: it is allocated at the
    output-code line that calls ``extern_kernels.mm`` and allocates no buffer of the graph, and named a library's
    workspace there too (it was an Inductor temporary: 66 MiB of one on an H100 run)."""
    from memprobe.analysis.snapshot import Snapshot

    run_dir = CUDA / "rowwise-legacy"
    report = load_report(run_dir)
    report.graph_memory = simulate_run(run_dir, report, graph_pairs(run_dir, report))
    report.attribution = None
    whole = load_snapshot(run_dir / "snapshot.pickle")
    segments = [{**s, "blocks": _python_frames(s.get("blocks", []))} for s in whole["segments"]]
    python_only = Snapshot({**whole, "segments": segments, "device_traces": [_python_frames(t) for t in whole["device_traces"]]})
    with_cpp, without = attribute_peak(whole, report), attribute_peak(python_only, report)
    assert with_cpp.by_category_bytes["library-workspace"] > 0
    for phase, figures in with_cpp.phases.items():
        assert without.phases[phase].by_category_bytes == figures.by_category_bytes, phase
    items = {it.item for p in without.phases.values() for it in p.top_items if it.category == "library-workspace"}
    assert items and all(i.startswith("workspace of extern_kernels.") for i in items), items


def _python_frames(events: list) -> list:
    """Trace events or a segment's blocks as ``stacks="python"`` records them: each one's Python frames alone."""
    return [{**e, "frames": [f for f in e.get("frames", []) if f["filename"].endswith(".py")]} for e in events]


@pytest.mark.parametrize("name", ["bf16-legacy", "rowwise-legacy"])
def test_the_backward_peak_on_cuda_names_the_backward_graphs_buffers_and_adds_up(name):
    """On CUDA the backward's peak is named from the allocator's history: the blocks a backward graph's statements
    allocated, alive at backward's replayed peak, each traced to its graph call, block, ops and the user's line;
    with the rest alive there they add up to the allocator's measured backward peak (the replay is exact here)."""
    from memprobe.analysis.backward_peak import backward_peak_on_device
    from memprobe.analysis.snapshot import attribute_snapshot

    run_dir = CUDA / name
    report = load_report(run_dir)
    pairs = graph_pairs(run_dir, report)
    report.graph_memory = simulate_run(run_dir, report, pairs)
    report.attribution, live = attribute_snapshot(load_snapshot(run_dir / "snapshot.pickle"), report)
    bp = backward_peak_on_device(report, pairs, live)
    assert bp.peak_bytes == report.memory.phases["backward"].peak_bytes and bp.tolerance_bytes == 0
    assert bp.transient_bytes + bp.gradient_bytes + bp.other_bytes == bp.peak_bytes
    backward = {f"g{k}.backward" for k, p in pairs.items() if p.backward is not None}
    for b in bp.buffers:
        assert b.graph in backward and b.storage.startswith("buf"), b
        assert b.block == report.invocations[b.call].block
    # the buffers' ops and the user's line (the repro's FFN), where the kernels writing them name their nodes
    assert any("repros/ffn.py:35" in line for b in bp.buffers for line in b.lines)
    inductor = report.attribution.phases["backward"].by_category_bytes
    assert bp.transient_bytes <= inductor["inductor-temporary"] and bp.gradient_bytes <= inductor["gradient"]


def test_the_two_pass_steps_backward_on_cuda_is_named_and_found_beside_cublas_workspace():
    """pytorch/pytorch#193193's pattern on an H100 (tests/data/cuda/twopass-h100, Python stacks): cuBLAS's two
    workspaces (64 MiB, one per thread's handle) are a library's, not Inductor temporaries; the compiled backward's
    buffers at backward's peak, with the rest alive there, add up to the allocator's measured peak; and they are most
    of what that peak holds above the step's start, so the finding is raised though the workspaces dwarf them."""
    from memprobe.analysis.backward_peak import backward_peak_on_device
    from memprobe.analysis.findings import backward_transient
    from memprobe.analysis.snapshot import attribute_snapshot

    run_dir = CUDA / "twopass-h100"
    report = load_report(run_dir)
    pairs = graph_pairs(run_dir, report)
    report.graph_memory = simulate_run(run_dir, report, pairs)
    report.attribution, live = attribute_snapshot(load_snapshot(run_dir / "snapshot.pickle"), report)
    at_peak = report.attribution.phases["backward"].by_category_bytes
    assert at_peak["library-workspace"] == 64 * 2**20 and at_peak["inductor-temporary"] < 2 * 2**20
    bp = backward_peak_on_device(report, pairs, live)
    assert bp.peak_bytes == report.memory.phases["backward"].peak_bytes and bp.tolerance_bytes == 0
    assert bp.transient_bytes + bp.gradient_bytes + bp.other_bytes == bp.peak_bytes
    assert 0 < bp.recomputed_bytes < bp.transient_bytes < bp.peak_bytes / 40
    recomputed = [b for b in bp.buffers if b.recomputed]
    assert recomputed and all(any(":25 " in line for line in b.lines) for b in recomputed)  # up and gate, line 25
    report.attribution.backward_peak = bp  # as the run's analysis records it
    (found,) = backward_transient(report.attribution, report.saved_totals)
    grown = bp.peak_bytes - report.attribution.start_bytes
    assert found.bytes == bp.transient_bytes > grown / 2 and "above the step's start" in found.message
