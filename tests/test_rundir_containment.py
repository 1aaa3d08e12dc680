"""Reading a run directory: nothing outside it is read. The files memprobe looks for are not read through a symbolic
link, a recorded diff's sides are read only inside its directory, a path holding a NUL byte or a loop of symbolic
links is bad input (exit 2), and a probe's name is never a path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TINY, invoke

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"


SENTINEL = "sentinel_outside_value_7f3a"  # a label that exists only in a run directory outside the one read


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


def _invoke(*args) -> tuple[int, str, str]:
    """A verb in this process, through the CLI's one door: exit code, stdout, stderr."""
    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _error_line(code: int, out: str, err: str, want: int = 2) -> str:
    assert code == want, (code, out[-500:], err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


def _sentinel_run(where: Path) -> Path:
    """A run directory outside the one under test, with a label nobody else has."""
    run = _copy(BF16, where)
    _edit(run / "report.json", lambda r: r["saved_tensors"][0].update(expr=SENTINEL))
    return run


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


@pytest.mark.parametrize("name", ["report.json", "diff.json"])
def test_a_top_level_file_linked_elsewhere_is_refused(tmp_path, name):
    elsewhere = _sentinel_run(tmp_path / "elsewhere")
    d = tmp_path / "X"
    d.mkdir()
    if name == "diff.json":
        assert invoke("diff", BF16, ROWWISE, "--out", tmp_path / "made", "-q").returncode == 0
        shutil.copy(tmp_path / "made" / "diff.json", elsewhere / "diff.json")
    (d / name).symlink_to(elsewhere / name)
    code, out, err = _invoke("show", d)
    err = _error_line(code, out, err)
    assert "symbolic link" in err and SENTINEL not in out
    (d / name).unlink()
    (d / name).symlink_to("/etc/passwd")
    code, out, err = _invoke("show", d, "--json")
    assert "symbolic link" in _error_line(code, out, err) and "root:" not in out + err


@pytest.mark.parametrize("how", ["absolute", "relative", "linked"])
def test_a_recorded_diff_never_reads_a_side_outside_its_directory(tmp_path, how, monkeypatch):
    _sentinel_run(tmp_path / "outside")
    assert invoke("diff", BF16, ROWWISE, "--out", tmp_path / "made", "-q").returncode == 0
    d = tmp_path / "d"
    d.mkdir()
    doc = json.loads((tmp_path / "made" / "diff.json").read_text())
    if how == "linked":
        (d / "a").symlink_to(tmp_path / "outside")
        doc["a"]["source"] = str(d / "a")
    else:
        doc["a"]["source"] = str(tmp_path / "outside") if how == "absolute" else "../outside"
    (d / "diff.json").write_text(json.dumps(doc))
    monkeypatch.chdir(d)  # a relative source is not resolved against the working directory either
    code, out, err = _invoke("report", d, "-o", tmp_path / "d.html")
    assert code == 0, err
    assert SENTINEL not in (tmp_path / "d.html").read_text()


def test_a_probe_name_is_never_a_path(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text('[probes."../esc"]\nrecipe = "bf16"\n\n[probes."../esc".limits]\nsaved_bytes = "1 GiB"\n')
    err = _error_line(*_invoke("gate", "--budget", budget, "--out", tmp_path / "G", "-q"))
    assert "'../esc'" in err and "one word" in err and f"{budget}:1" in err
    assert not (tmp_path / "esc").exists() and not (tmp_path / "G").exists()
    err = _error_line(*_invoke("budget", "--name", "../esc", "--budget", tmp_path / "b.toml", *TINY))
    assert "a probe name is one word" in err


def test_a_nul_byte_in_a_diffs_side_is_bad_input(tmp_path):
    d = tmp_path / "d"
    assert invoke("diff", BF16, ROWWISE, "--out", d, "-q").returncode == 0
    _edit(d / "diff.json", lambda doc: doc["a"].update(source="a\u0000b"))
    err = _one_line(invoke("report", d, "-o", tmp_path / "d.html"))
    assert "a.source: a path cannot hold a NUL byte" in err


@pytest.mark.parametrize("verb", [["explain", "{run}", "--out", "{tmp}/e"], ["report", "{run}", "-o", "{tmp}/x.html"]])
def test_a_symbolic_link_loop_in_a_run_directory_is_bad_input(tmp_path, verb):
    run = _copy(BF16, tmp_path / "X")
    shutil.rmtree(run / "graphs")
    (run / "graphs").symlink_to("graphs")  # ln -s graphs X/graphs
    (run / "memory").symlink_to("memory")
    _edit(run / "report.json", lambda r: r["memory"]["snapshot"].update(file="memory/snapshot.pickle"))
    proc = invoke(*[v.format(run=run, tmp=tmp_path) for v in verb])
    assert "a loop of symbolic links" in _one_line(proc), proc.stderr
