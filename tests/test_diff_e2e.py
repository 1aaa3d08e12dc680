"""End-to-end: `memprobe diff` on the CPU."""

from __future__ import annotations

import json

import pytest
from conftest import (
    FFN_WEIGHT_ABS,
    LEGACY_BF16,
    LEGACY_ROWWISE,
    TINY,
    TINY_BF16_JSON,
    invoke,
    python_over_this_environment,
    run_cli,
)

from memprobe.analysis.diff import diff_reports
from memprobe.analysis.verdict import diff_verdict
from memprobe.rundir.load import dump, load_report
from memprobe.units import fmt_delta

# one op added to B's policy, on the tiny probe (analysis-only: its saved table is what is read)
PER_SIDE = ("rowwise", "rowwise", *TINY, "--analysis-only", "--b", "--save-op aten.abs")


@pytest.fixture(scope="module")
def legacy_diff(runs, made):
    """The default dims, bf16 against fp8 with the 2025-01 list: the diff of the session's two runs of them
    (conftest's ``runs``, which other tests read too), made once per session; ``(run A, run B, the diff's directory,
    its JSON)``. A diff that runs its sides itself is test_per_side_flags's, and
    test_diffing_the_run_directories_gives_the_same_result's."""
    a, b = runs(*LEGACY_BF16).path, runs(*LEGACY_ROWWISE).path
    diff = made("diff", a, b, "--json")
    return a, b, diff.path, json.loads(diff.proc.stdout)


@pytest.fixture(scope="module")
def aa_diff(made):
    """A/A: the tiny probe, rowwise on both sides, each side run by the diff in its own process."""
    return made("diff", "rowwise", "rowwise", *TINY)


@pytest.fixture(scope="module")
def per_side_diff(made):
    """The tiny probe, analysis-only, rowwise on both sides with aten.abs added to B's save list: sides run by the diff
    itself, one after the other; ``(its directory, its JSON)``."""
    diff = made("diff", *PER_SIDE, "--json")
    return diff.path, json.loads(diff.proc.stdout)


@pytest.mark.e2e
def test_fp8_saves_abs_of_the_ffn_weights_that_bf16_does_not(legacy_diff):
    _, _, out, d = legacy_diff
    only_b = [it for it in d["items"] if it["status"] == "only_b"]
    assert only_b
    weight = [it for it in only_b if it["kind"] == "weight-derived"]
    # the top items only in B are the weight-derived abs() of the FFN weights, largest first
    assert only_b[: len(weight)] == weight
    assert weight and all(FFN_WEIGHT_ABS.fullmatch(it["expr"]) for it in weight), [it["expr"] for it in weight]
    assert len({it["expr"] for it in weight}) == len(weight)  # one item per weight
    for it in weight:
        assert it["bytes_a"] == 0 and it["bytes_b"] == it["delta_bytes"] == it["count"] * 512 * 2048 * 2
        assert it["policy_op"] == "aten.abs.default" and "(--recompute-op aten.abs)" in it["hint"]  # the op as the flag takes it
    # the headline saved-bytes delta is the sum of the listed items
    t = d["totals"]
    assert t["saved_bytes"]["delta"] == sum(it["delta_bytes"] for it in d["items"]) == t["items_delta_bytes"] > 0
    assert t["saved_bytes"]["delta"] == t["saved_bytes"]["b"] - t["saved_bytes"]["a"]
    assert json.loads((out / "diff.json").read_text())["items"] == d["items"]
    assert d["phases"]["comparable"] and d["phases"]["phases"]["forward"]["end_bytes"]["delta"] >= sum(
        it["delta_bytes"] for it in weight
    )


@pytest.mark.e2e
def test_diffing_the_run_directories_gives_the_same_result(per_side_diff):
    out, d = per_side_diff
    proc = invoke("diff", out / "a", out / "b", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    again = json.loads(proc.stdout)
    for key in ("items", "totals", "differences", "unchanged_items", "phases", "graphs", "alive_at_peak"):
        assert again[key] == d[key], key
    # and without re-running: the run directories are unchanged
    assert not (out / "a" / "a").exists()


@pytest.mark.e2e
def test_markdown_for_a_pull_request(legacy_diff):
    a, b, _, d = legacy_diff
    proc = invoke("diff", a, b, "--markdown")
    assert proc.returncode == 0
    md = proc.stdout
    assert md.startswith("### memprobe diff")
    # each value by its one name, as the console and the HTML name it (the op chain is --wide's and the HTML's detail)
    rows = [line for line in md.splitlines() if line.startswith("| only in B | `abs(")]
    weights = sum(1 for it in d["items"] if it["status"] == "only_b" and it["kind"] == "weight-derived")
    assert weights and all("`abs(t(layers.*.ffn.w" in row and "permute" not in row for row in rows[:weights]), rows
    # the saved-bytes change as the diff computed it (+11.00 MiB at the default dims with torch 2.13: 10 MiB of
    # abs(weight), 1 MiB of abs(input))
    assert fmt_delta(d["totals"]["saved_bytes"]["delta"]) in md


@pytest.mark.e2e
def test_today_policy_lists_no_weight_derived_item(runs, made):
    # the tiny probe: at its dims the 2025-01 list does save abs() of the FFN weights (test_bisect_finds_what_the_
    # regression_needs), today's list saves none; the session's runs of bf16 and rowwise, diffed
    proc = made("diff", runs(*TINY_BF16_JSON).path, runs(*TINY).path, "--json").proc
    d = json.loads(proc.stdout)
    assert d["items"] and not [it for it in d["items"] if it["kind"] == "weight-derived"]


@pytest.mark.e2e
def test_identical_configurations_have_no_differences(aa_diff):
    """A/A: the same configuration on both sides, each measured in its own process, differs by exactly 0 B."""
    out, proc = aa_diff.path, aa_diff.proc
    assert "No difference" in proc.stdout
    d = json.loads((out / "diff.json").read_text())
    assert d["differences"] == 0 and d["items"] == [] and d["unchanged_items"] > 0
    assert d["totals"]["saved_bytes"]["delta"] == 0
    assert all(g["peak_bytes"]["delta"] == 0 and g["saved_bytes"]["delta"] in (0, None) for g in d["graphs"])
    # every measured figure and every category alive at every peak: zero
    phases = d["phases"]["phases"]
    assert set(phases) == {"forward", "backward", "optimizer"}
    assert all(fig["delta"] == 0 for p in phases.values() for fig in p.values())
    cats = d["alive_at_peak"]["phases"]
    assert cats and all(v["delta"] == 0 for p in cats.values() for v in p.values())
    # measured in two processes, each recorded in its report
    pa, pb = (json.loads((out / k / "report.json").read_text())["process"] for k in "ab")
    assert pa["pid"] != pb["pid"] and pa["host"] == pb["host"] and d["a"]["process"]["pid"] == pa["pid"]


TINY_BF16 = ("bf16", "bf16", "--dim", "128", "--hidden", "256", "--seq", "32", "--layers", "1", "--device", "cpu")


@pytest.mark.e2e
@pytest.mark.slow
def test_a_side_environment_reaches_its_probe_and_is_named(tmp_path):
    """--a-env/--b-env: each side's process runs with its own setting, and the diff says which. OMP_NUM_THREADS
    changes what Inductor compiles (parallel loops on two threads, plain loops on one), never what is saved for
    backward; whether it changes what is allocated depends on the CPU (measured: 0 B on an AVX2-only AMD EPYC,
    a lower forward peak on B on the CPU of earlier sessions), so the test holds only that a measured forward
    difference is named: as Inductor's temporaries, all of it."""
    proc = run_cli(
        "diff", *TINY_BF16, "--a-env", "OMP_NUM_THREADS=2", "--b-env", "OMP_NUM_THREADS=1", "--out", tmp_path / "d", "-q"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "OMP_NUM_THREADS=2" in proc.stdout and "OMP_NUM_THREADS=1" in proc.stdout
    d = json.loads((tmp_path / "d" / "diff.json").read_text())
    assert d["a"]["env"] == {"OMP_NUM_THREADS": "2"} and d["b"]["env"] == {"OMP_NUM_THREADS": "1"}
    assert d["a"]["versions"]["torch"] == d["b"]["versions"]["torch"]
    assert d["items"] == [] and d["totals"]["saved_bytes"]["delta"] == 0
    # the setting reached each side's compile: its kernels' OpenMP loops
    code = {side: (tmp_path / "d" / side / "output_code" / "g0.forward.py").read_text() for side in "ab"}
    assert "#pragma omp parallel" in code["a"] and "#pragma omp parallel" not in code["b"]
    fwd = d["phases"]["phases"]["forward"]["peak_bytes"]
    temp = d["alive_at_peak"]["phases"]["forward"]["inductor-temporary"]
    assert fwd["delta"] <= 0 and temp["delta"] == fwd["delta"], (fwd, temp)
    md = invoke("diff", tmp_path / "d" / "a", tmp_path / "d" / "b", "--markdown").stdout
    assert "OMP_NUM_THREADS=2" in md and "torch " in md


@pytest.mark.e2e
def test_a_side_runs_in_another_python(tmp_path):
    """--b-python: side B's probe runs in another environment (here a venv over this one's packages)."""
    python = python_over_this_environment(tmp_path / "venv")
    proc = run_cli("diff", *TINY_BF16, "--analysis-only", "--b-python", python, "--out", tmp_path / "d", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    d = json.loads(proc.stdout)
    assert d["b"]["process"]["python"] == str(python) and d["a"]["process"]["python"] != str(python)
    assert d["items"] == []


def test_a_side_whose_python_lacks_memprobe_or_whose_env_is_malformed_is_one_line(tmp_path):
    import subprocess
    import sys

    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", bare], check=True)
    for args, needle in (
        (("--b-python", bare / "bin" / "python"), "torch does not import"),
        (("--b-python", tmp_path / "nope"), "no such executable"),
        (("--a-env", "NOEQUALS"), "expected NAME=VALUE"),
        (("--b-env", "1BAD=x"), "expected NAME=VALUE"),
        (("--a", "--help"), "see `memprobe run --help`"),
        (("--a", "--layers '3"), "No closing quotation"),
    ):
        proc = invoke("diff", *TINY_BF16, *args, "--out", tmp_path / "never", cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and needle in proc.stderr, (args, proc.stderr)
        assert not (tmp_path / "never").exists()


@pytest.mark.e2e
def test_per_side_flags(per_side_diff):
    """One op added to B's policy: the only difference is what that op saves."""
    _, d = per_side_diff
    assert d["b"]["config"]["save_ops"] == ["aten.abs.default"] and d["a"]["config"]["save_ops"] == []
    assert d["items"] and all(it["policy_op"] == "aten.abs.default" for it in d["items"] if it["status"] == "only_b")


def test_bad_sides(tmp_path):
    proc = invoke("diff", "bf16", "nonsense", "--out", tmp_path / "x")
    assert proc.returncode == 2 and "neither a run directory nor a recipe" in proc.stderr
    assert proc.stderr.count("\n") == 1
    proc = invoke("diff", "bf16", "fp8", "--b", "--no-such-flag")
    assert proc.returncode == 2 and "--b" in proc.stderr and proc.stderr.count("\n") == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = invoke("diff", empty, empty)
    assert proc.returncode == 2 and "no report.json" in proc.stderr


@pytest.mark.e2e
def test_diff_is_pure_and_symmetric_in_its_totals(legacy_diff):
    a, b, _, d = legacy_diff
    back = dump(diff_reports(load_report(b), load_report(a)))
    assert back["totals"]["saved_bytes"]["delta"] == -d["totals"]["saved_bytes"]["delta"]
    assert {it["status"] for it in back["items"]} <= {"only_a", "shrunk", "only_b", "grown"}
    assert sum(it["delta_bytes"] for it in back["items"]) == back["totals"]["saved_bytes"]["delta"]


@pytest.mark.e2e
def test_parallel_sides_give_the_sequential_answer(per_side_diff, tmp_path):
    """--parallel runs side B in a second process; the ranked items are the same as run one after the other."""
    _, sequential = per_side_diff
    proc = run_cli("diff", *PER_SIDE, "--parallel", "--out", tmp_path / "p", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    parallel = json.loads(proc.stdout)
    assert (tmp_path / "p" / "b" / "report.json").is_file()
    assert parallel["items"] == sequential["items"]
    assert any(it["status"] == "only_b" and it["expr"].startswith("abs(") for it in sequential["items"])


@pytest.mark.e2e
def test_a_diff_of_one_layer_more_names_the_layer_the_deeper_side_has(runs):
    """The repro at 1 and 2 layers (one graph per block): B's second block's values, its graph input included, are the
    whole difference, named as the block A lacks, with no fix (it offered recomputing mm)."""
    one = runs("--recipe", "bf16", *TINY)
    deeper = [*TINY]
    deeper[deeper.index("--layers") + 1] = "2"
    two = runs("--recipe", "bf16", *deeper)
    d = diff_reports(load_report(one.path), load_report(two.path))
    assert d.items and all(it.status == "only_b" and it.added_blocks == ["layers.1"] for it in d.items)
    assert sum(it.delta_bytes for it in d.items) == d.totals.saved_bytes.delta > 0
    v = diff_verdict(d)
    assert "all of it saved by layers.1, the block B has and A does not" in v.text and v.fix is None
