"""A file that is not what memprobe wrote (corrupt or empty, a number out of range, a field its renderers read
missing, a configuration `memprobe run` would refuse, a file where a directory should be, a directory memprobe may not
read): exit 2 and one line naming the file and the field, never an internal error (exit 70)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import invoke
from test_untrusted import EXPLAIN_SAMPLE

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"


HUGE = "9" * 400


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


def test_corrupt_and_empty_run_dirs(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "report.json").write_text('{"schema_version": 1, "config": ')
    proc = invoke("diff", bad, bad)
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr and proc.stderr.count("\n") == 1
    missing = tmp_path / "missing"
    proc = invoke("gate", "--budget", tmp_path / "none.toml", "--from", missing)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "kind, field",
    [
        ("report", "saved_tensors[0].bytes"),
        ("report", "config.lr"),
        ("report", "timings_s.total"),
        ("report", "memory.phases.forward.peak_bytes"),
        ("report", "extra_unread_field"),
        ("diff", "totals.saved_bytes.delta"),
        ("explain", "edits[0].bytes_saved_per_flop"),
        ("bisect", "threshold_bytes"),
    ],
)
def test_an_integer_beyond_float_range_names_its_field(tmp_path, kind, field):
    d = _copy(BF16, tmp_path / "X") if kind == "report" else tmp_path / "X"
    name = "report.json" if kind == "report" else f"{kind}.json"
    if kind != "report":
        d.mkdir()
        (d / name).write_text(json.dumps(_SAMPLES[kind]))
    doc = json.loads((d / name).read_text())
    _put(doc, field, "@@HUGE@@")
    (d / name).write_text(json.dumps(doc).replace('"@@HUGE@@"', HUGE))
    err = _error_line(*_invoke("show", d))
    assert f"{field}: " in err and ("out of range" in err or "400 digits" in err), err


def test_an_infinity_literal_never_reaches_json_output(tmp_path):
    run = _copy(BF16, tmp_path / "X")
    (run / "report.json").write_text((run / "report.json").read_text()[:-1].rstrip().rstrip("}") + ', "x": 1e309}')
    code, out, err = _invoke("show", run, "--json")
    assert "x: a number out of range (inf)" in _error_line(code, out, err) and "Infinity" not in out


@pytest.mark.parametrize(
    "text, needle",
    [
        (f"saved_bytes = {HUGE}\n", "probes.p.limits.saved_bytes: an integer out of range"),
        (f'saved_bytes = "{HUGE} MiB"\n', "a size of at most 2**63 bytes"),
        ('saved_bytes = "1 MiB"\n\n[probes.p.limits.baseline]\nsaved_bytes = "+' + HUGE + '%"\n', "at most +100000%"),
        ("saved_bytes = " + "[" * 900 + "]" * 900 + "\n", "nested too deep"),
    ],
)
def test_budget_numbers_and_nesting_out_of_range_exit_2(tmp_path, text, needle):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(f'[probes.p]\nrecipe = "bf16"\n\n[probes.p.limits]\n{text}')
    err = _error_line(*_invoke("gate", "--budget", budget, "--from", f"p={BF16}"))
    assert needle in err and str(budget) in err, err


def test_an_out_of_range_integer_in_a_budget_configuration_names_its_line(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(f'[probes.p]\nrecipe = "bf16"\nlr = {HUGE}\n\n[probes.p.limits]\nsaved_bytes = 1\n')
    err = _error_line(*_invoke("gate", "--budget", budget))
    assert f"{budget}:3: probes.p.lr: an integer out of range" in err


@pytest.mark.parametrize(
    "edit, verb, needle",
    [
        (lambda d: d["a"].pop("summary"), ["show"], "a.summary: missing"),
        (lambda d: d["phases"].pop("phases"), ["show"], "phases.phases: missing"),
        (lambda d: d["phases"].pop("phases"), ["show", "--csv", "{tmp}/t.csv"], "phases.phases: missing"),
    ],
)
def test_a_diff_without_what_its_renderers_read_exit_2(tmp_path, edit, verb, needle):
    d = tmp_path / "d"
    assert invoke("diff", BF16, ROWWISE, "--out", d, "-q").returncode == 0
    _edit(d / "diff.json", edit)
    err = _error_line(*_invoke(*[v.format(tmp=tmp_path) for v in verb], d))
    assert needle in err and not (tmp_path / "t.csv").exists()


@pytest.mark.parametrize("key, value", [("recipe", 5), ("nproc", "x"), ("lr", [1])])
def test_an_explain_result_with_a_bad_configuration_names_the_file(tmp_path, key, value):
    d = tmp_path / "e"
    d.mkdir()
    doc = json.loads(json.dumps(_SAMPLES["explain"]))
    doc["base"]["config"][key] = value
    (d / "explain.json").write_text(json.dumps(doc))
    err = _error_line(*_invoke("show", d))
    # the field's path (a value of the wrong type is the schema's to name, as in every other record)
    assert f"{d / 'explain.json'}: base.config.{key}: " in err


def test_a_directory_memprobe_may_not_read_is_exit_2(tmp_path, monkeypatch):
    # as root no permission bit stops a read, so the refusal the system would give is simulated
    from memprobe.rundir import read

    run = _copy(BF16, tmp_path / "X")
    real = read.os.stat

    def denied(path, *a, **k):
        if Path(path) == run:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(read.os, "stat", denied)
    err = _error_line(*_invoke("show", run))
    assert f"directory {run}: cannot read it (Permission denied)" in err
    from memprobe.cli.main import outcome

    assert outcome(PermissionError(13, "Permission denied", "/x")) == (2, "memprobe: error: cannot access /x: permission denied")


@pytest.mark.parametrize("verb", ["report", "run"])
def test_a_path_too_long_for_the_file_system_is_a_usage_error(tmp_path, verb):
    long_name = tmp_path / ("x" * 300)  # over NAME_MAX (255): the system's refusal, the user's to fix (2), not a bug
    args = [verb, long_name] if verb == "report" else [verb, "--device", "cpu", "--analysis-only", "--out", long_name]
    err = _error_line(*_invoke(*args))
    assert f"xxx ({len(str(long_name))} characters): file name too long" in err and len(err) < 200, err


@pytest.mark.parametrize("what", ["file", "devnull"])
def test_a_file_given_as_a_run_directory_is_called_what_it_is(tmp_path, what):
    path = Path("/dev/null") if what == "devnull" else tmp_path / "a.txt"
    if what == "file":
        path.write_text("x")
    err = _error_line(*_invoke("show", path))
    assert f"{path} is not a directory" in err and "does not exist" not in err


# -- samples of the result files ---------------------------------------------------------------------------------------


_SAMPLES = {
    "explain": EXPLAIN_SAMPLE,
    "bisect": {
        "trials": [{"removed": "x", "delta_bytes": 1, "exceeds": True, "held_a": 1, "held_b": 2, "modes": ["full"]}],
        "conclusion": "c",
        "threshold_bytes": 1,
        "minimal": {"a": "a", "b": "b"},
    },
    "diff": {
        "a": {"config": {}, "summary": "a"},
        "b": {"config": {}, "summary": "b"},
        "items": [],
        "totals": {"saved_bytes": {"a": 1, "b": 2, "delta": 1}},
        "differences": 0,
        "unchanged_items": 0,
    },
}


def _put(doc, field: str, value) -> None:
    """Set ``doc`` at a dotted path with [i] indices (created when it is the last key)."""
    parts = [p for p in re.split(r"\.|\[(\d+)\]", field) if p]
    for p in parts[:-1]:
        doc = doc[int(p)] if p.isdigit() else doc[p]
    last = parts[-1]
    doc[int(last) if last.isdigit() else last] = value
