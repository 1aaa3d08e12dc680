"""Bad input: one line on stderr, exit 2, no traceback, nothing run."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TINY, invoke

BF16 = Path(__file__).parent / "data" / "cuda" / "bf16-legacy"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["run", "--recipe", "fp4"], "'fp4' is not one of"),
        (["run", "--ac-policy", "nope"], "'nope' is not one of"),
        (["run", "--save-op", "aten.no_such_op"], "unknown op 'aten.no_such_op'"),
        (["run", "--recompute-op", "not an op!"], "invalid op name"),
        (["run", "--dim", "500"], "multiples of 16"),
        (["run", "--recipe", "tensorwise", "--batch", "1", "--seq", "15"], "multiples of 16"),
        (["run", "--layers", "0"], "--layers must be at least 1"),
        (["run", "--steps", "1"], "--steps must be at least 2"),
        (["run", "--save-op", "aten.abs", "--recompute-op", "aten.abs"], "both saved and recomputed"),
        (["run", "--no-such-flag"], "No such option"),
        (["run", "--fake-world", "1"], "--fake-world must be 0 (off) or at least 2 ranks (got 1)"),
        (["run", "--fake-world", "4", "--nproc", "2"], "--fake-world 4 runs rank 0 of 4 in one process; --nproc 2 runs real"),
        (["run", "--fake-world", "4", "--no-fsdp"], "--fake-world 4 shards through FSDP2 over the fake ranks; --no-fsdp"),
        (["diff", "bf16", "rowwise", "--fake-world", "8", "--b", "--no-fsdp"], "--no-fsdp shards nothing"),
        (["run", "--fake-world", "4", "--", "python", "train.py"], "--fake-world: configures the stack memprobe builds"),
        (["run", "--vocab", "512"], "--vocab applies to --repro transformer"),
        (["run", "--repro", "transformer", "--vocab", "0"], "--vocab must be at least 1 (got 0)"),
    ],
)
def test_bad_values_exit_2_with_one_line(args, needle, tmp_path):
    proc = invoke(*args, "--out", tmp_path / "never")
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("memprobe: error: ")
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize(
    "args, needle",
    [
        (["diff"], "memprobe diff compares two sides; A and B missing"),
        (["diff", "bf16"], "memprobe diff compares two sides; B missing"),
        (["bisect"], "memprobe bisect compares two sides; A and B missing"),
        (["bisect", "bf16"], "memprobe bisect compares two sides; B missing"),
    ],
)
def test_a_two_sided_verb_given_one_side_or_none_refuses_in_one_line(args, needle, tmp_path):
    proc = invoke(*args, "--out", tmp_path / "never")
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and needle in proc.stderr, proc.stderr
    assert not (tmp_path / "never").exists()


def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    proc = invoke("run", "--device", "cuda", "--out", tmp_path / "c")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no CUDA device" in proc.stderr


def test_help_documents_every_flag():
    proc = invoke("run", "--help")
    assert proc.returncode == 0
    for flag in (
        "--recipe",
        "--dim",
        "--hidden",
        "--layers",
        "--batch",
        "--seq",
        "--seed",
        "--ac ",
        "--ac-policy",
        "--save-op",
        "--recompute-op",
        "--compile / --no-compile",
        "--fsdp / --no-fsdp",
        "--reshard-after-forward / --no-reshard-after-forward",
        "--device",
        "--steps",
        "--out",
        "--force",
        "--json",
        "--quiet",
        "--verbose",
        "--debug",
    ):
        assert flag in proc.stdout, flag


def test_policies_lists_every_policy_with_its_ops():
    proc = invoke("policies", "--json")
    assert proc.returncode == 0
    import json

    pol = json.loads(proc.stdout)
    assert set(pol) == {"torchtitan", "torchtitan-2025-01", "torchtitan-installed", "save-all", "recompute-all"}
    assert "aten.abs.default" in pol["torchtitan-2025-01"]["save_ops"]
    assert "aten.abs.default" not in pol["torchtitan"]["save_ops"]
    assert "aten.max.default" in pol["torchtitan"]["save_ops"]
    text = invoke("policies").stdout
    assert "torchtitan-2025-01" in text and "aten.abs.default" in text
    # every op a user copies into --save-op is printed whole, however narrow the terminal (a table cut them)
    narrow = invoke("policies", env={"COLUMNS": "60"}).stdout
    ops = {op for p in pol.values() for op in p["save_ops"] or []}
    assert all(f" {op}\n" in narrow for op in ops) and "…" not in narrow


def _invoke(*args) -> tuple[int, str]:
    """A verb in this process, through the CLI's one door: exit code and stderr."""
    from click.testing import CliRunner

    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stderr


@pytest.mark.parametrize("mode", ["memory-budget", "budget"])
def test_the_partitioners_memory_budget_is_memory_budget_and_budget_its_earlier_name(mode, tmp_path):
    from memprobe.budget import load_budget
    from memprobe.config import ProbeConfig, config_from_values
    from memprobe.rundir.schema import Config

    code, err = _invoke("run", "--ac", mode, "--no-compile", "--out", tmp_path / "never")
    assert code == 2 and err == "memprobe: error: --ac memory-budget is the compiler partitioner's: it needs --compile\n"
    assert not (tmp_path / "never").exists()
    cfg = config_from_values({"ac": mode, "memory_budget": 0.25})
    assert cfg.ac == "memory-budget" and "ac=memory-budget/0.25" in cfg.summary()
    assert ProbeConfig.from_dict({"ac": mode}).ac == "memory-budget"  # a run recorded with either name
    assert Config.model_validate({"ac": mode}).ac == "memory-budget"
    budget_file = tmp_path / "memprobe.toml"
    budget_file.write_text(f'[probes.p]\nrecipe = "bf16"\nac = "{mode}"\n\n[probes.p.limits]\nsaved_bytes = "1 MiB"\n')
    assert load_budget(budget_file).probes["p"].config.ac == "memory-budget"


@pytest.mark.parametrize("flag", ["--memory-budgets", "--budgets"])
def test_a_sweep_takes_memory_budgets_between_0_and_1(flag, tmp_path):
    code, err = _invoke("sweep", flag, "0,2", "--out", tmp_path / "never")
    assert code == 2 and "expected numbers between 0 and 1" in err and not (tmp_path / "never").exists()


def test_the_budget_file_and_the_memory_budget_are_told_apart_in_the_help():
    from memprobe.cli.main import cli

    def option(verb: str, flag: str):
        return next(p for p in cli.get_command(None, verb).params if flag in p.opts)

    for verb in ("gate", "budget"):
        assert "budget file" in option(verb, "--budget").help and "memory" not in option(verb, "--budget").help
        assert "budget file" in cli.get_command(None, verb).short_help + cli.get_command(None, verb).help
    ac = option("run", "--ac")
    assert "memory-budget" in ac.type.choices and "memory budget" in ac.help
    assert "memory budget" in option("sweep", "--memory-budgets").help
    assert "memory-budget" in option("run", "--memory-budget").help


# -- one line, whatever the input; --debug adds the traceback and keeps the exit code ----------------------------------


def _invoke_with_output(*args) -> tuple[int, str, str]:
    """A verb in this process, through the CLI's one door: exit code, stdout, stderr."""
    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _error_line(code: int, out: str, err: str, want: int = 2) -> str:
    assert code == want, (code, out[-500:], err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


HUGE = "9" * 400


def test_min_delta_beyond_float_range_exit_2(tmp_path):
    err = _error_line(*_invoke_with_output("bisect", "bf16", "rowwise", "--min-delta", HUGE, "--out", tmp_path / "b"))
    assert "--min-delta" in err and not (tmp_path / "b").exists()


def test_an_interpreter_that_prints_binary_is_exit_2(tmp_path):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nprintf '\\377\\376\\200 not utf-8\\n' >&2\nprintf '\\377\\n'\nexit 1\n")
    python.chmod(0o755)
    err = _error_line(*_invoke_with_output("diff", "bf16", "bf16", "--a-python", python, *TINY, "--out", tmp_path / "d"))
    assert err.startswith("memprobe: error: [a]") and str(python) in err and "cannot run memprobe's environment check" in err
    assert "nothing was run" in err


@pytest.mark.parametrize("verb, code", [(["show", "MISSING"], 2), (["policies", "--json"], 0)])
def test_debug_keeps_the_exit_code_and_adds_the_traceback(tmp_path, verb, code):
    args = [str(tmp_path / "missing") if v == "MISSING" else v for v in verb]
    proc = invoke("--debug", *args)
    assert proc.returncode == code, proc.stderr
    if code:
        assert "Traceback" in proc.stderr and proc.stderr.rstrip().splitlines()[-1].startswith("memprobe: error: ")


def test_debug_keeps_exit_70_for_a_bug(monkeypatch):
    from memprobe.analysis import recorded

    def bug(*a, **k):
        raise KeyError("a simulated bug")

    monkeypatch.setattr(recorded, "load_recorded", bug)
    code, out, err = _invoke_with_output("--debug", "show", BF16)
    assert code == 70 and "Traceback" in err and "internal error: KeyError: 'a simulated bug'" in err, (code, err)


@pytest.mark.parametrize(
    "flag, value, needle",
    [
        ("--model", "/etc/passwd:build", "/etc/passwd is not a Python file"),
        ("--hf-config", "/etc/passwd", "--hf-config /etc/passwd is not valid JSON"),
    ],
)
def test_a_system_file_as_the_model_is_bad_input(tmp_path, flag, value, needle):
    err = _one_line(invoke("run", flag, value, "--recipe", "bf16", "--device", "cpu", "--out", tmp_path / "r", "-q"))
    assert needle in err, err


@pytest.mark.parametrize(
    "args, needle",
    [
        (["run", "--model", "typo.py:build"], "--model 'typo.py:build': no such file typo.py"),
        (["run", "--model", "nosuchpackage.models:build"], "no module named 'nosuchpackage'"),
        (["run", "--hf-config", "typo/config.json"], "--hf-config typo/config.json: no such file"),
        (["run", "--hf-config", "notes.txt"], "--hf-config notes.txt is not valid JSON"),
        (["run", "--", "python", "trian.py"], "the command after --: no such file trian.py"),
        (["diff", "bf16", "rowwise", "--b", "--model typo.py:build"], "no such file typo.py"),
    ],
)
def test_a_file_named_on_the_command_line_is_checked_before_torch_and_leaves_no_run_directory(args, needle, tmp_path):
    """A typo is said in one line before torch is imported (seconds, not the 9-33 s of an import and a build) and no
    run directory is made: memprobe-runs/ stays absent in the working directory."""
    import subprocess
    import sys

    (tmp_path / "notes.txt").write_text("not json\n")
    code = (
        "import sys\nfrom memprobe.cli.main import cli\n"
        "try:\n    cli.main(sys.argv[1:])\nexcept SystemExit as e:\n    open('seen', 'w').write(f\"{'torch' in sys.modules} {e.code}\")\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, capture_output=True, text=True)
    assert (tmp_path / "seen").read_text().split() == ["False", "2"], proc.stderr
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr, proc.stderr
    assert not (tmp_path / "memprobe-runs").exists()


def test_cuda_on_a_machine_without_a_gpu_is_refused_before_torch(tmp_path):
    import os
    import subprocess
    import sys

    from memprobe.config import GPU_DEVICE_NODES

    if any(os.path.exists(node) for node in GPU_DEVICE_NODES):
        pytest.skip("this machine has a GPU driver's device")
    code = "import sys\nfrom memprobe.cli.main import cli\ntry:\n    cli.main(sys.argv[1:])\nexcept SystemExit as e:\n    open('seen', 'w').write(f\"{'torch' in sys.modules} {e.code}\")\n"
    proc = subprocess.run([sys.executable, "-c", code, "run", "--device", "cuda"], cwd=tmp_path, capture_output=True, text=True)
    assert (tmp_path / "seen").read_text().split() == ["False", "2"], proc.stderr
    assert "no CUDA device" in proc.stderr and not (tmp_path / "memprobe-runs").exists()
