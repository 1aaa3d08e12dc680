"""What a verb offers: only the configuration flags it uses, help that wraps at the terminal's width, and a --json
whose help names the document it prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import invoke

from memprobe.cli.main import cli

DATA = Path(__file__).parent / "data"
BF16, ROWWISE = DATA / "cuda" / "bf16-legacy", DATA / "cuda" / "rowwise-legacy"


def _flags(verb: str) -> set[str]:
    """The flags a verb offers (those its help lists)."""
    return {
        opt for p in cli.get_command(None, verb).params if not getattr(p, "hidden", False) for opt in (*p.opts, *p.secondary_opts)
    }


def _one_line(proc, needle: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr)
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert needle in proc.stderr, proc.stderr


def test_a_flag_a_verb_would_ignore_is_not_offered(tmp_path):
    # a diff's and a bisect's sides name their recipes; a sweep sets --ac and the memory budget itself
    assert "--recipe" not in _flags("diff") | _flags("bisect") and "--layers" in _flags("diff") & _flags("bisect")
    assert not {"--ac", "--memory-budget"} & _flags("sweep") and "--ac-policy" in _flags("sweep")
    assert {"--recipe", "--ac", "--memory-budget"} <= _flags("run") & _flags("explain") & _flags("budget")
    # given anyway, such a flag is refused saying why (it used to be accepted and ignored)
    recipe = "--recipe: each side's recipe is its own argument, A or B"
    _one_line(invoke("diff", "bf16", "fp8", "--recipe", "tensorwise", "--out", tmp_path / "d"), recipe)
    _one_line(invoke("bisect", "bf16", "fp8", "--recipe", "tensorwise", "--out", tmp_path / "d"), recipe)
    _one_line(invoke("sweep", "--ac", "full", "--out", tmp_path / "s"), "--ac: the sweep probes --ac memory-budget at each")
    # nor through a side's own flags
    _one_line(invoke("diff", "bf16", "fp8", "--b", "--recipe=bf16", "--out", tmp_path / "d"), f"--b '--recipe=bf16': {recipe}")
    assert not (tmp_path / "d").exists() and not (tmp_path / "s").exists()


def test_configuration_flags_nothing_would_run_with_are_refused(tmp_path):
    # two run directories: nothing runs, so --layers would configure nothing
    _one_line(
        invoke("diff", BF16, ROWWISE, "--layers", "4", "--out", tmp_path / "d"), "--layers: they configure a side that runs"
    )
    # explain of a finished run takes its configuration as recorded; --model names the run's model to run again
    proc = invoke("explain", ROWWISE, "--ac-policy", "torchtitan", "--dim", "128", "--out", tmp_path / "e")
    _one_line(proc, f"--dim, --ac-policy: explain takes the configuration of RUN_DIR {ROWWISE} as recorded")
    assert not (tmp_path / "d").exists() and not (tmp_path / "e").exists()
    # torchrun's flags without several ranks (no torchrun runs)
    _one_line(invoke("run", "--nnodes", "2", "--out", tmp_path / "r"), "--nnodes and --rdzv-endpoint apply with --nproc N")
    assert not (tmp_path / "r").exists()
    # a flag given is refused even at its default value (it would still be ignored); without one the diff works
    _one_line(invoke("explain", ROWWISE, "--ac-policy", "torchtitan-2025-01"), "--ac-policy: explain takes the configuration")
    assert invoke("diff", BF16, ROWWISE, "--json").returncode == 0


@pytest.mark.parametrize("verb", ["", *cli.list_commands(None)])
def test_every_help_line_fits_an_80_column_terminal(verb):
    proc = invoke(*([verb] if verb else []), "--help", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    long = [line for line in proc.stdout.splitlines() if len(line) > 80]
    assert not long, "\n".join(long)


def _json_help(verb: str) -> str:
    return next(p.help for p in cli.get_command(None, verb).params if p.name == "as_json")


def test_json_says_which_document_it_prints(tmp_path):
    for verb, document in (("run", "report.json"), ("diff", "diff.json"), ("explain", "explain.json"), ("bisect", "bisect.json")):
        assert f"Print {document} " in _json_help(verb), (verb, _json_help(verb))
    assert "sweep.json" in _json_help("sweep") and "verdicts" in _json_help("gate")
    # and it does: what a diff prints is the diff.json it writes
    proc = invoke("diff", BF16, ROWWISE, "--out", tmp_path / "d", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads((tmp_path / "d" / "diff.json").read_text())
