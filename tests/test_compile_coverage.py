"""What did not compile, and fixes checked where a run ran (memprobe/capture/coverage.py, memprobe/analysis/coverage.py).

A plain script (tests/scripts/eager_checkpoint.py) compiles its checkpointed blocks without fullgraph; with
--side-effect one block's checkpointed body mutates an object outside it, which Dynamo refuses inside a checkpoint:
the run names the block, Dynamo's reason and the line, its figures still add up to what the script counts itself, and
a diff against the script without the side effect names the coverage change as the cause of the bytes that moved out
of the compiled graphs. Eager runs are counted (their bytes are outside any compiled graph). A model that checkpoints
its own blocks is judged as --ac full is. A run recorded with another interpreter has its edits checked there.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from conftest import run_cli, script_truth
from test_versions import lean_python

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "scripts" / "eager_checkpoint.py"
COMMAND = ("python", str(SCRIPT), "--steps", "4")
# the line Dynamo names for the break: the checkpoint call in Block.forward
CHECKPOINT_LINE = next(i for i, line in enumerate(SCRIPT.read_text().splitlines(), 1) if "checkpoint(self.body" in line)
DATA = ROOT / "tests" / "data" / "cpu"
USER_CHECKPOINT = DATA / "quantlinear-checkpointed-torch2.11"
TINY = ("--dim", "64", "--hidden", "128", "--seq", "32", "--layers", "1", "--device", "cpu")


def _truth(tmp_path: Path, *args: str) -> int:
    return script_truth(SCRIPT, tmp_path, *args)


def _report(run) -> dict:
    return json.loads((run.path / "report.json").read_text())


@pytest.mark.e2e
def test_a_checkpointed_block_dynamo_refuses_is_named_with_its_reason_and_line(made, tmp_path):
    run = made("run", "--steps", "2", "--", *COMMAND, "--side-effect")
    report = _report(run)
    assert report["status"] == "complete"
    coverage = report["compile_coverage"]
    (brk,) = coverage["graph_breaks"]
    assert brk["module"] == "blocks.1" and brk["checkpointed"] is True and brk["reason"]
    assert brk["file"] == str(SCRIPT) and brk["line"] == CHECKPOINT_LINE
    assert brk["higher_order_op"] == "torch.utils.checkpoint.checkpoint" and "count" in brk["explanation"]
    assert coverage["side_effects_skipped_in_recompute"] is False  # a user's script is never changed
    # the block's frame compiled what precedes the checkpoint, then a resume function after it
    assert sum(f["graphs"] for f in coverage["frames"]) == 3
    # what the eager region saves is counted, by the block; the figures add up to the script's own count
    outside = {m["module"]: m["bytes"] for m in report["saved_outside"]["modules"]}
    assert outside["blocks.1"] == 8 * 32 * 64 * 4  # the norm's output, the eager checkpoint's input (fp32)
    assert report["saved_totals"]["runtime_bytes"] + report["saved_outside"]["total_bytes"] == _truth(tmp_path, "--side-effect")
    finding = next(f for f in report["findings"] if f["kind"] == "checkpoint-ran-eagerly")
    assert finding["bytes"] == outside["blocks.1"] and f"eager_checkpoint.py:{CHECKPOINT_LINE}" in finding["summary"]
    # its fix, printed once: the renderers say "fix:" (--wide printed "fix: fix:")
    assert finding["hint"] == finding["fix"] and not finding["hint"].startswith("fix:")
    wide = run_cli("show", run.path, "--wide").stdout
    assert "fix: fix:" not in wide and f"fix: {finding['fix'].split()[0]}" in wide
    assert not [f for f in report["findings"] if f["kind"] == "uneven-blocks"]  # the broken block is not compared
    line = next(x for x in run.proc.stdout.splitlines() if x.startswith("did not compile"))
    assert "1 checkpointed region ran eagerly" in line and "blocks.1" in line
    outside_line = next(x for x in run.proc.stdout.splitlines() if x.startswith("saved outside the compiled graphs"))
    assert "blocks.1 64.00 KiB (ran eagerly: Dynamo refused" in outside_line  # the bytes point to their reason


@pytest.mark.e2e
def test_a_script_that_compiles_everything_says_nothing_did_not(made, tmp_path):
    run = made("run", "--steps", "2", "--", *COMMAND)
    report = _report(run)
    assert report["compile_coverage"]["graph_breaks"] == [] and "did not compile" not in run.proc.stdout
    assert report["saved_totals"]["runtime_bytes"] + report["saved_outside"]["total_bytes"] == _truth(tmp_path)


@pytest.mark.e2e
def test_a_diff_names_the_coverage_change_as_the_cause_and_its_aa_is_zero(made, tmp_path):
    a = made("run", "--steps", "2", "--", *COMMAND)
    b = made("run", "--steps", "2", "--", *COMMAND, "--side-effect")
    proc = run_cli("diff", a.path, b.path, "--out", tmp_path / "d", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    (brk,) = d["compile_coverage"]["only_b"]
    assert brk["module"] == "blocks.1" and d["compile_coverage"]["only_a"] == []
    # the bytes moved out of B's compiled graphs into what autograd saves outside them: the step saves the same
    step = d["totals"]["step_saved_bytes"]
    assert step["a"] == step["b"] == _truth(tmp_path) and d["saved_outside"]["modules"]["blocks.1"]["delta"] > 0
    text = d["verdict"]["text"]
    assert "B's torch.compile ran blocks.1's checkpointed region eagerly" in text
    assert f"eager_checkpoint.py:{CHECKPOINT_LINE}" in text
    # the values moved, and the verdict says so: not "only in A", nor a fix
    assert "A saves in its compiled graphs, B saves outside compiled graphs" in text and "the step saves the same bytes" in text
    aa = run_cli("diff", b.path, b.path, "--out", tmp_path / "aa", "--json", "-q")
    assert aa.returncode == 0, aa.stderr[-3000:]
    same = json.loads(aa.stdout)
    assert same["differences"] == 0 and same["compile_coverage"] is None
    assert same["totals"]["step_saved_bytes"]["delta"] == 0 and same["saved_outside"]["total"]["delta"] == 0
    assert same["verdict"]["text"].startswith("No difference")


@pytest.mark.e2e
def test_an_eager_diff_reports_the_real_difference_and_its_aa_is_zero(tmp_path):
    proc = run_cli("diff", "bf16", "bf16", *TINY, "--no-compile", "--b", "--layers 2", "--out", tmp_path / "d", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    step, outside = d["totals"]["step_saved_bytes"], d["saved_outside"]["total"]
    assert d["totals"]["saved_bytes"]["b"] == 0 and outside["delta"] > 0 and step["delta"] == outside["delta"]
    text = d["verdict"]["text"]
    assert text.startswith("B saves ") and "all of it outside the compiled graphs" in text and "No difference" not in text
    aa = run_cli("diff", "bf16", "bf16", *TINY, "--no-compile", "--out", tmp_path / "aa", "--json", "-q")
    same = json.loads(aa.stdout)
    assert same["saved_outside"]["total"]["delta"] == 0 and same["totals"]["step_saved_bytes"]["delta"] == 0
    assert same["verdict"]["bytes"] == 0 and same["verdict"]["text"].startswith("No difference")
    assert same["totals"]["step_saved_bytes"]["b"] == same["saved_outside"]["total"]["b"] > 0


def test_the_models_own_checkpointing_saving_beyond_its_inputs_is_checkpoint_saves_more():
    """The committed run (torch 2.11, tests/data/README.md): the quantlinear blocks checkpointed by the model's own
    CheckpointLayer, --ac none. torch 2.11 leaves the ops inside its autograd.Function untagged, and the partitioner
    saves their matmul inside the model's own checkpointed regions."""
    from memprobe.analysis.run import analyse
    from memprobe.rundir.load import load_report

    report = analyse(load_report(USER_CHECKPOINT), USER_CHECKPOINT)
    assert report.config.ac == "none" and report.versions.torch.startswith("2.11")
    finding = next(f for f in report.findings if f.kind == "checkpoint-saves-more")
    assert finding.bytes == 2 * 2 * 32 * 256 * 2  # two blocks' up-projection output: batch 2 x seq 32 x 4*64, bf16
    assert "regions your code checkpoints" in finding.summary and "QuantLinearFunction" in finding.summary
    assert finding.flag == "--ac op --ac-policy recompute-all"
    assert report.verdict.finding == "checkpoint-saves-more"


def test_the_next_command_of_a_run_recorded_with_another_interpreter_checks_the_fix_there():
    """The committed run was recorded with another interpreter than the memprobe that started it (--b-python): its
    next command runs the fix there, and its view says which interpreter that is."""
    from memprobe.analysis.run import analyse
    from memprobe.rundir.load import load_report

    report = analyse(load_report(USER_CHECKPOINT), USER_CHECKPOINT)
    recorded = report.process.python
    words = shlex.split(report.verdict.next_command.partition("   #")[0])
    assert words[:2] == ["memprobe", "run"] and words[words.index("--python") + 1] == recorded
    assert words[words.index("--ac-policy") + 1] == "recompute-all" and "--model" in words
    shown = run_cli("show", USER_CHECKPOINT)
    assert f"interpreter: {recorded}" in shown.stdout


def _recorded_with_a_gone_interpreter(tmp_path: Path) -> Path:
    """A copy of the committed run, as if the virtualenv it was recorded with had been removed."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(USER_CHECKPOINT, run)
    report = json.loads((run / "report.json").read_text())
    report["process"]["python"] = str(tmp_path / "removed-venv" / "bin" / "python")
    (run / "report.json").write_text(json.dumps(report))
    return run


def test_explain_of_a_run_recorded_with_an_interpreter_that_is_gone_says_so_and_runs_nothing(tmp_path):
    run = _recorded_with_a_gone_interpreter(tmp_path)
    gone = str(tmp_path / "removed-venv" / "bin" / "python")
    proc = run_cli("explain", run, "--model", "tests/models/quantlinear.py:build_checkpointed", "--out", tmp_path / "e", cwd=ROOT)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert f"was recorded with {gone} (torch 2.11.0" in line and "that interpreter is gone" in line
    assert f"--python {sys.executable}" in line
    assert not (tmp_path / "e").exists()


@pytest.mark.e2e
@pytest.mark.slow
def test_explain_and_next_of_a_run_recorded_with_another_interpreter_run_there(tmp_path):
    """A run made with --python OTHER (a virtualenv of torch and torchao alone: memprobe cannot be imported there)
    records it; explain then checks every edit with it once the user names it; the run's next command names it and
    runs as printed."""
    other = str(lean_python(tmp_path / "other", ("torch", "torchao")))
    flags = ("--recipe", "rowwise", *TINY, "--ac", "none", "--no-fsdp")
    run = run_cli("run", *flags, "--python", other, "--out", tmp_path / "r", "--json", "-q")
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout)["process"]["python"] == other
    refused = run_cli("explain", tmp_path / "r", "--out", tmp_path / "e0")
    assert refused.returncode == 2 and f"pass --python {other}" in refused.stderr
    proc = run_cli("explain", tmp_path / "r", "--python", other, "--out", tmp_path / "e", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    edits = [d for d in (tmp_path / "e").iterdir() if (d / "report.json").is_file()]
    assert len(edits) == len(json.loads(proc.stdout)["edits"]) >= 2
    for d in edits:
        assert json.loads((d / "report.json").read_text())["process"]["python"] == other, d
        shown = run_cli("show", d)
        assert f"interpreter: {other}" in shown.stdout, shown.stdout
    next_command = json.loads((tmp_path / "r" / "report.json").read_text())["verdict"]["next_command"]
    words = shlex.split(next_command.partition("   #")[0])
    assert words[words.index("--python") + 1] == other
    again = run_cli(*words[1:], "--out", tmp_path / "next", "--json", "-q")
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads(again.stdout)["process"]["python"] == other
