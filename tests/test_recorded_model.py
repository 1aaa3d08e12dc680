"""Opening someone else's run directory runs none of the code its configuration names: `explain RUN_DIR` runs a
recorded `config.model` or `config.hf_config` only when the user names the same model (on the command line, or in an
MCP call's `config`), and `bisect` and `gate --from` never run one."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import invoke, mcp_session, run_cli

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


def _mcp(calls):
    """``calls(session)`` in an MCP SDK client session with `memprobe mcp` over stdio; what it returns."""
    pytest.importorskip("mcp", reason="the MCP SDK is the optional extra memprobe[mcp]")
    return mcp_session(calls)


def _tool_error(result) -> str:
    """A tool's error, as its one line."""
    assert result.is_error, result.content
    text = result.content[0].text
    assert len(text.splitlines()) == 1 and "pydantic" not in text and "Traceback" not in text, text
    return text


EVIL = """
import os
open(os.environ.get("MEMPROBE_TEST_EVIL", "EVIL_RAN"), "w").write("ran")
def build(device):
    raise SystemExit("never")
"""


def _evil_run(tmp_path: Path, field: str, value: str) -> Path:
    """tmp_path/cases/x/run: a copied run directory whose configuration names ``value`` (beside it cases/x/evil.py, a
    package cases.x, and a config.json)."""
    x = tmp_path / "cases" / "x"
    x.mkdir(parents=True)
    for d in (tmp_path / "cases", x):
        (d / "__init__.py").write_text("")
    (x / "evil.py").write_text(EVIL)
    (x / "config.json").write_text(json.dumps({"model_type": "llama", "num_hidden_layers": 1}))
    run = _copy(BF16, x / "run")
    _edit(run / "report.json", lambda r: r["config"].update({field: value}))
    return run


# (field, the recorded value, the directory the verb runs in, relative to tmp_path): a file path, a relative path
# (from the directory beside it, and from above), a module spec, a Hugging Face config
SPELLINGS = [
    ("model", "{tmp}/cases/x/evil.py:build", "."),
    ("model", "evil.py:build", "cases/x"),
    ("model", "cases/x/evil.py:build", "."),
    ("model", "cases.x.evil:build", "."),
    ("hf_config", "cases/x/config.json", "."),
]


@pytest.mark.parametrize("field, value, cwd", SPELLINGS, ids=["file", "relative", "relative-above", "module", "hf-config"])
def test_explain_of_a_run_directory_never_runs_the_code_it_names(tmp_path, monkeypatch, field, value, cwd):
    value = value.format(tmp=tmp_path)
    run = _evil_run(tmp_path, field, value)
    evil = tmp_path / "EVIL_RAN"
    monkeypatch.setenv("MEMPROBE_TEST_EVIL", str(evil))
    where = tmp_path / cwd
    err = _one_line(invoke("explain", os.path.relpath(run, where), "--out", tmp_path / "e", "-q", cwd=where))
    flag = "--" + field.replace("_", "-")
    assert f"config.{field} names" in err and f"pass {flag} {value}" in err, err
    assert not evil.exists() and not (tmp_path / "e").exists()  # nothing ran, --out untouched
    # another model named on the command line is no permission either
    err = _one_line(invoke("explain", run, "--out", tmp_path / "e", flag, "other.py:build", "-q", cwd=where))
    assert "you named 'other.py:build'" in err and not evil.exists()


def test_naming_the_recorded_model_lets_explain_run_it(tmp_path):
    from memprobe.config import recorded_to_run
    from memprobe.rundir.load import load_report

    run = _evil_run(tmp_path, "model", "cases/x/evil.py:build")
    recorded = load_report(run).config.probe()
    where = str(run / "report.json")
    with pytest.MonkeyPatch.context() as m:
        m.chdir(tmp_path)
        for named in ("cases/x/evil.py:build", "./cases/x/evil.py:build", f"{tmp_path}/cases/x/evil.py:build"):
            assert recorded_to_run(recorded, {"model": named}, where) is recorded  # the same file and factory
        for named in ("cases/x/evil.py:other", "cases.x.evil:build", None):
            with pytest.raises(Exception, match="names code to run"):
                recorded_to_run(recorded, {"model": named}, where)


@pytest.mark.e2e
def test_explain_runs_the_recorded_model_when_the_user_names_it(tmp_path):
    run = _evil_run(tmp_path, "model", "cases/x/evil.py:build")
    _edit(run / "report.json", lambda r: r["config"].update(device="cpu"))
    evil = tmp_path / "EVIL_RAN"
    env = {"MEMPROBE_TEST_EVIL": str(evil)}
    args = ("explain", run, "--model", "./cases/x/evil.py:build", "--out", tmp_path / "e", "-q")
    err = _one_line(run_cli(*args, cwd=tmp_path, env=env))  # named: its probes import it (and its factory exits)
    assert "cases/x/evil.py:build" in err and "the factory called sys.exit('never')" in err, err
    assert evil.read_text() == "ran"


def test_bisect_and_gate_never_run_a_recorded_model(tmp_path, monkeypatch):
    run = _evil_run(tmp_path, "model", "cases/x/evil.py:build")
    evil = tmp_path / "EVIL_RAN"
    monkeypatch.setenv("MEMPROBE_TEST_EVIL", str(evil))
    err = _one_line(invoke("bisect", run, "bf16", "--out", tmp_path / "b", cwd=tmp_path))
    assert "not run directories" in err
    budget = tmp_path / "memprobe.toml"
    budget.write_text('[probes.p]\nrecipe = "bf16"\ndevice = "cpu"\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n')
    for entry in (str(run), f"p={run}"):  # matched by configuration, or named: the run's model is no probe's
        err = _one_line(invoke("gate", "--budget", budget, "--from", entry, "--out", tmp_path / "g", cwd=tmp_path))
        assert "matches no probe's configuration" in err or "differs from that of probe 'p' in" in err, err
    assert not evil.exists() and not (tmp_path / "b").exists() and not (tmp_path / "g").exists()


def test_mcp_explain_of_a_run_directory_never_runs_the_code_it_names(tmp_path, monkeypatch):
    run = _evil_run(tmp_path, "model", f"{tmp_path}/cases/x/evil.py:build")
    evil = tmp_path / "EVIL_RAN"
    monkeypatch.setenv("MEMPROBE_TEST_EVIL", str(evil))

    async def calls(session):
        return await session.call_tool("explain", {"run_dir": str(run), "out": str(tmp_path / "e")})

    err = _tool_error(_mcp(calls))
    assert "exit 2" in err and f'pass config {{"model": "{tmp_path}/cases/x/evil.py:build"}}' in err, err
    assert not evil.exists() and not (tmp_path / "e").exists()
