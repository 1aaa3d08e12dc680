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


# -- a budget file found in an artifact: `gate --from` gates the runs it is given and runs nothing ---------------------

# the probe of the recorded rowwise run (matched by configuration), and two a downloaded artifact's budget adds
ARTIFACT_BUDGET = (
    '[probes.ffn-rowwise]\nrecipe = "rowwise"\ndim = 256\nhidden = 768\nseq = 128\nac_policy = "torchtitan-2025-01"\n'
    'device = "cuda"\nsteps = 3\n\n[probes.ffn-rowwise.limits]\nsaved_bytes = "1 GiB"\n\n'
    '[probes.extra]\ncommand = ["sh", "-c", "touch {marker}"]\n\n[probes.extra.limits]\nsaved_bytes = "1 GiB"\n\n'
    '[probes.evil]\nrecipe = "bf16"\nmodel = "evil.py:build"\ndevice = "cpu"\n\n[probes.evil.limits]\nsaved_bytes = "1 GiB"\n'
)


def _artifact(tmp_path: Path) -> Path:
    """tmp_path/artifact: an earlier gate's --out as a CI job uploads it (the run ffn-rowwise/), with a memprobe.toml
    whose extra probes run a command and import evil.py beside it, each writing tmp_path/PWNED."""
    artifact = tmp_path / "artifact"
    _copy(ROWWISE, artifact / "ffn-rowwise")
    (artifact / "memprobe.toml").write_text(ARTIFACT_BUDGET.format(marker=tmp_path / "PWNED"))
    (artifact / "evil.py").write_text(f"open({str(tmp_path / 'PWNED')!r}, 'w').write('ran')\ndef build(device):\n    pass\n")
    return artifact


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under ``folder`` with its size and modification time."""
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize(
    "cwd, args",
    [
        ("artifact", ("--from", ".")),
        ("artifact", ("--from", "ffn-rowwise")),
        (".", ("--budget", "artifact/memprobe.toml", "--from", "artifact")),
    ],
    ids=["from-dot", "from-its-run", "budget-inside-from"],
)
def test_a_budget_file_found_in_an_artifact_runs_nothing(tmp_path, cwd, args):
    """`gate --from` in a downloaded artifact whose memprobe.toml adds probes that run a command and import a model: the
    gate runs neither (each probe without a --from run gives no verdict, in one line, exit 2) and writes nothing inside
    the artifact (it used to run both, and make a memprobe-runs/ there)."""
    artifact = _artifact(tmp_path)
    before = _tree(artifact)
    err = _one_line(invoke("gate", *args, cwd=tmp_path / cwd))
    assert "gave no verdict: no --from run is of its configuration, and gate --from runs no probe" in err, err
    assert not (tmp_path / "PWNED").exists() and _tree(artifact) == before
    # the probe it has a run of is gated, and nothing else runs
    proc = invoke("gate", *args, "--probe", "ffn-rowwise", "--json", cwd=tmp_path / cwd)
    assert proc.returncode == 0 and json.loads(proc.stdout)["counts"]["PASS"] == 1, proc.stderr
    assert not (tmp_path / "PWNED").exists() and _tree(artifact) == before


def test_a_budget_memprobe_finds_by_itself_runs_no_code_it_names(tmp_path):
    """./memprobe.toml, not named: its probe that names a command, or a model, is refused before anything runs (one
    line saying to name the file with --budget); named with --budget, it is the user's own and runs (tests/test_scripts.py
    runs one)."""
    artifact = _artifact(tmp_path)
    for probe, what in (("extra", 'a command to run, "sh -c '), ("evil", "code to run, 'evil.py:build'")):
        err = _one_line(invoke("gate", "--probe", probe, "--out", tmp_path / "g", cwd=artifact))
        assert f"probe {probe!r} names {what}" in err and "pass --budget memprobe.toml if you trust it" in err, err
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "g").exists() and not (artifact / "memprobe-runs").exists()


def test_update_baseline_never_writes_into_a_from_directory(tmp_path):
    artifact = _artifact(tmp_path)
    before = _tree(artifact)
    err = _one_line(invoke("gate", "--from", ".", "--probe", "ffn-rowwise", "--update-baseline", cwd=artifact))
    assert "--update-baseline would write memprobe-baseline.json inside the --from directory ." in err, err
    assert _tree(artifact) == before


def test_mcp_gate_from_runs_runs_nothing_a_found_budget_names(tmp_path):
    artifact = _artifact(tmp_path)
    before = _tree(artifact)

    async def calls(session):
        args = {"budget": str(artifact / "memprobe.toml"), "from_runs": [str(artifact)]}
        return await session.call_tool("gate", args)

    err = _tool_error(_mcp(calls))
    assert "exit 2" in err and "probe 'extra' gave no verdict" in err, err
    assert not (tmp_path / "PWNED").exists() and _tree(artifact) == before
