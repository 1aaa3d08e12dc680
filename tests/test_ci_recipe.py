"""The CI recipe works as written: the example workflow (docs/examples/memprobe-gate.yml) has no placeholder and one
line to change; its `run:` steps, run against a scratch git repository, keep the baseline where docs/gate.md says
(committed to main by its own step) and leave nothing untracked; the gate's default run directories stay out of git;
its --junit replaces a JUnit file memprobe wrote and no other file; a refresh that measured the same figures leaves
the baseline as it was."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import invoke

yaml = pytest.importorskip("yaml", reason="PyYAML reads the example workflow (the test extra has it)")

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "docs" / "examples" / "memprobe-gate.yml"
ROWWISE = ROOT / "tests" / "data" / "cuda" / "rowwise-legacy"
INSTALL = "Install memprobe"  # the one step the test does not run: memprobe is installed here already
CHANGE = "CHANGE THIS LINE"

# a budget for the committed CUDA run (read with --from: nothing runs)
RUN_BUDGET = """\
[probes.p]
recipe = "rowwise"
dim = 256
hidden = 768
seq = 128
ac_policy = "torchtitan-2025-01"
device = "cuda"
steps = 3

[probes.p.limits]
saved_bytes = "1 GiB"

[probes.p.limits.baseline]
saved_bytes = "+5%"
"""
# the tiny probe (conftest.TINY) as a budget of a repository of its own
TINY_BUDGET = """\
[probes.tiny]
recipe = "bf16"
dim = 64
hidden = 128
seq = 32
layers = 1
device = "cpu"

[probes.tiny.limits]
saved_bytes = "1 MiB"

[probes.tiny.limits.baseline]
saved_bytes = "+5%"
"""


def _steps() -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]["gate"]["steps"]


def test_the_workflow_has_no_placeholder_and_one_marked_line_to_change():
    text = WORKFLOW.read_text()
    assert not re.search(r"<[A-Za-z][\w-]*>", text), "a placeholder is left in the workflow"
    marked = [line for line in text.splitlines() if CHANGE in line]
    assert len(marked) == 2 and marked[1].strip().startswith("pip install"), marked  # named in the header, then the line
    install = next(s for s in _steps() if s.get("name") == INSTALL)
    assert marked[1].strip() in install["run"]
    # docs/gate.md says the same: where the baseline goes, what to change, what stays untracked
    gate_md = (ROOT / "docs" / "gate.md").read_text()
    for said in (CHANGE, "memprobe-baseline.json", "committed", ".gitignore", "memprobe-runs/", "--junit"):
        assert said in gate_md.split("## GitHub Actions", 1)[1], said


def _git(*args, cwd: Path) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout


def _runs(step: dict, ref: str) -> bool:
    """Whether a step runs on ``ref``: the workflow's `if:` conditions are of these forms only (success() implied)."""
    condition = step.get("if")
    if condition in (None, "always()"):
        return True
    m = re.fullmatch(r"github\.ref == '([^']+)'", condition)
    assert m, f"a condition this test cannot read: {condition}"
    return ref == m.group(1)


def _run_workflow(repo: Path, env: dict[str, str], ref: str) -> None:
    """Each `run:` step of the workflow, in order, as GitHub Actions runs it (bash -e -o pipefail), on ``ref``."""
    skipped = []
    for step in _steps():
        if "run" not in step:
            continue  # actions (checkout, setup-python, upload-artifact): GitHub's own
        if step.get("name") == INSTALL:
            skipped.append(step["name"])
            continue
        if not _runs(step, ref):
            continue
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=repo,
            env={**env, "GITHUB_REF": ref},
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, (step.get("name"), proc.stdout[-2000:], proc.stderr[-3000:])
    assert skipped == [INSTALL]


def _untracked(repo: Path) -> list[str]:
    return _git("status", "--porcelain", "--untracked-files=all", cwd=repo).splitlines()


@pytest.mark.e2e
@pytest.mark.slow
def test_the_workflow_commits_the_baseline_on_main_and_leaves_nothing_untracked(tmp_path):
    origin, repo, runner = tmp_path / "origin.git", tmp_path / "repo", tmp_path / "runner"
    for d in (repo, runner, tmp_path / "bin"):
        d.mkdir()
    _git("init", "--quiet", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    _git("init", "--quiet", "-b", "main", cwd=repo)
    (repo / "memprobe.toml").write_text(TINY_BUDGET)
    who = ("-c", "user.name=t", "-c", "user.email=t@example.com")
    _git("add", "memprobe.toml", cwd=repo)
    _git(*who, "commit", "--quiet", "-m", "a budget", cwd=repo)
    _git("remote", "add", "origin", str(origin), cwd=repo)
    _git("push", "--quiet", "origin", "main", cwd=repo)
    # `memprobe` on PATH is this checkout's, whatever is installed
    shim = tmp_path / "bin" / "memprobe"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m memprobe "$@"\n')
    shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        "RUNNER_TEMP": str(runner),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_SHA": _git("rev-parse", "HEAD", cwd=repo).strip(),
    }
    # a push to main: the gate passes (no baseline yet: its relative limit is skipped) and its figures are committed
    _run_workflow(repo, env, "refs/heads/main")
    log = _git("log", "--format=%s", "main", cwd=origin).splitlines()
    assert log == ["memprobe: refresh the baseline", "a budget"], log
    baseline = json.loads(_git("show", "main:memprobe-baseline.json", cwd=origin))
    assert set(baseline["probes"]) == {"tiny"} and baseline["probes"]["tiny"]["figures"]["saved_bytes"] > 0
    assert _untracked(repo) == [] and (repo / "memprobe-runs" / ".gitignore").is_file()
    assert (runner / "memprobe-gate.xml").is_file()
    # a pull request: checked against that baseline; its JUnit of the last run is replaced; nothing committed or left
    _run_workflow(repo, env, "refs/pull/1/merge")
    assert _git("log", "--format=%s", "main", cwd=origin).splitlines() == log
    assert _untracked(repo) == []
    summaries = (tmp_path / "summary.md").read_text()
    assert summaries.count("### memprobe gate: ✅ PASS") == 2 and "baseline +5%" in summaries.rpartition("###")[2]


def test_the_default_run_directories_stay_out_of_git(tmp_path, monkeypatch):
    from memprobe.rundir.write import RUNS_HOME, atomic_write_json, default_run_dir, prepare_run_dir

    _git("init", "--quiet", cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    run = prepare_run_dir(default_run_dir("gate"), force=False)
    atomic_write_json(run / "report.json", {})
    assert run.parent == RUNS_HOME and _untracked(tmp_path) == []
    # a .gitignore of the user's there is theirs: never written over
    (RUNS_HOME / ".gitignore").write_text("# mine\n")
    default_run_dir("run")
    assert (RUNS_HOME / ".gitignore").read_text() == "# mine\n"


def test_junit_replaces_a_file_memprobe_wrote_and_no_other(tmp_path):
    from memprobe.report.junit import gate_junit
    from memprobe.rundir import schema as S
    from memprobe.rundir.write import memprobe_wrote

    budget, junit = tmp_path / "memprobe.toml", tmp_path / "gate.xml"
    budget.write_text(RUN_BUDGET)
    gate = ("gate", "--budget", budget, "--from", f"p={ROWWISE}", "--junit", junit, "-q")
    first = invoke(*gate)
    assert first.returncode == 0 and memprobe_wrote(junit), first.stderr
    junit.write_text(junit.read_text().replace("memprobe.p", "memprobe.q"))  # an earlier run's: replaced without --force
    again = invoke(*gate)
    assert again.returncode == 0 and "memprobe.p" in junit.read_text(), again.stderr
    empty = S.GateResult(
        budget="b", baseline="c", verdicts=[], explanations={}, counts={}, runs={}, verdict=S.Verdict(text="PASS")
    )
    assert memprobe_wrote(tmp_path / "gate.xml") and gate_junit(empty).startswith('<testsuites name="memprobe gate"')
    # a file of the user's at that path is not memprobe's: refused (one line, exit 2), kept, replaced only with --force
    junit.write_text('<?xml version="1.0"?>\n<testsuites name="my suite"/>\n')
    refused = invoke(*gate)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert f"{junit} exists; pass --force to overwrite it (memprobe did not write it)" in refused.stderr
    assert "my suite" in junit.read_text()
    assert invoke(*gate, "--force").returncode == 0 and memprobe_wrote(junit)


def test_a_refresh_that_measured_the_same_leaves_the_baseline_as_it_was(tmp_path):
    budget, baseline = tmp_path / "memprobe.toml", tmp_path / "memprobe-baseline.json"
    budget.write_text(RUN_BUDGET)
    run = tmp_path / "run"
    shutil.copytree(ROWWISE, run)
    refresh = ("gate", "--budget", budget, "--from", f"p={run}", "--update-baseline", "-q")
    assert invoke(*refresh).returncode == 0
    stored = baseline.read_bytes()
    entry = json.loads(stored)["probes"]["p"]
    entry["created_utc"] = "2020-01-01T00:00:00+00:00"  # as if stored long ago
    baseline.write_text(json.dumps({"memprobe_baseline": 1, "probes": {"p": entry}}, indent=1) + "\n")
    kept = baseline.read_bytes()
    assert invoke(*refresh).returncode == 0 and baseline.read_bytes() == kept  # the same figures: nothing changed
    # other figures: the entry is the run's
    report = json.loads((run / "report.json").read_text())
    report["saved_totals"]["graph_bytes"] += 1024
    (run / "report.json").write_text(json.dumps(report))
    assert invoke(*refresh).returncode == 0
    entry = json.loads(baseline.read_text())["probes"]["p"]
    assert (
        entry["figures"]["saved_bytes"] == report["saved_totals"]["graph_bytes"]
        and entry["created_utc"] != "2020-01-01T00:00:00+00:00"
    )
