"""Writing a run directory: `--force` removes exactly what memprobe recorded writing (the marker's manifest, or
what an earlier memprobe wrote), a user's file inside a run directory is kept, a marker naming files elsewhere is no
marker, and of two writers of one directory one wins and the other is refused (exit 2)."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TINY, run_cli

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"


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


@pytest.mark.parametrize("where", ["graphs/thesis.tex", "output_code/notes.py", ".thesis.tex.tmp", "graphs/.draft.abcd1234.tmp"])
def test_force_keeps_a_users_file_inside_a_copied_run(tmp_path, where):
    run = _copy(ROWWISE, tmp_path / "X")  # an older run directory: its marker has no manifest
    (run / where).write_text("the user's")
    err = _error_line(*_invoke("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", run, "--force", "-q"))
    assert where.split("/")[-1] in err and "refusing to delete it" in err
    assert (run / where).read_text() == "the user's" and (run / "report.json").is_file()


@pytest.mark.e2e
def test_force_replaces_an_older_run_directory_of_memprobes_own(tmp_path):
    run = _copy(ROWWISE, tmp_path / "X")  # a marker without a manifest, and only the names memprobe writes
    (run / "graphs" / ".g0.forward.json.ab12cd34.tmp").write_text("a write that died")
    code, out, err = _invoke("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", run, "--force", "-q")
    assert code == 0, err
    assert not (run / "snapshot.pickle").exists() and not list(run.rglob("*.tmp"))
    listed = set((run / ".memprobe").read_text().splitlines()[2:])
    assert listed == {str(p.relative_to(run)) for p in run.rglob("*") if p.is_file() and p.name != ".memprobe"}


def test_force_removes_exactly_the_manifest(tmp_path):
    from memprobe.errors import RunDirError
    from memprobe.rundir.write import MARKER, atomic_write_json, atomic_write_text, prepare_run_dir

    out = tmp_path / "G"
    prepare_run_dir(out, force=False)
    atomic_write_json(out / "report.json", {"status": "complete"})
    atomic_write_text(out / "graphs" / "g0.forward.txt", "graph")
    prepare_run_dir(out / "probe", force=False)  # a probe's run directory of its own, as the gate makes
    atomic_write_json(out / "probe" / "report.json", {})
    manifest = (out / MARKER).read_text().splitlines()
    assert manifest[2:] == ["report.json", "graphs/g0.forward.txt", "probe/"]
    (out / "graphs" / "g1.forward.txt").write_text("named like memprobe's, but not written by it")
    with pytest.raises(RunDirError, match="g1.forward.txt, which memprobe did not write"):
        prepare_run_dir(out, force=True)
    assert sorted(p.name for p in out.rglob("*")) == [".memprobe", ".memprobe", "g0.forward.txt", "g1.forward.txt"] + [
        "graphs",
        "probe",
        "report.json",
        "report.json",
    ]
    (out / "graphs" / "g1.forward.txt").unlink()
    (out / "graphs" / ".g0.forward.txt.x1y2z3w4.tmp").write_text("a write that died")
    prepare_run_dir(out, force=True)
    assert [p.name for p in out.iterdir()] == [MARKER]  # all of it memprobe's: all of it removed, the marker reset
    assert (out / MARKER).read_text().splitlines()[2:] == []


def test_a_marker_naming_files_elsewhere_is_no_marker(tmp_path):
    from memprobe.rundir.write import MANIFEST_HEADER, MARKER, MARKER_TEXT

    victim = tmp_path / "home" / "thesis.tex"
    victim.parent.mkdir()
    victim.write_text("years of work")
    out = tmp_path / "X"
    out.mkdir()
    (out / MARKER).write_text(MARKER_TEXT + MANIFEST_HEADER + "../home/thesis.tex\n")
    (out / "report.json").write_text("{}")
    err = _error_line(*_invoke("run", "--analysis-only", *TINY, "--out", out, "--force", "-q"))
    assert "not a memprobe run directory" in err and victim.read_text() == "years of work"


@pytest.mark.parametrize("header", [False, True], ids=["marker-just-created", "marker-written"])
def test_a_directory_another_process_is_creating_is_in_use_not_foreign(tmp_path, header):
    import fcntl
    import os

    from memprobe.errors import RunDirError
    from memprobe.rundir.write import MANIFEST_HEADER, MARKER, MARKER_TEXT, check_out_dir

    out = tmp_path / "X"
    out.mkdir()
    (out / MARKER).write_text(MARKER_TEXT + MANIFEST_HEADER if header else "")
    fd = os.open(out / MARKER, os.O_RDWR)  # the other writer's lock: another open file description
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        for force in (False, True):
            with pytest.raises(RunDirError, match="being written by another memprobe process"):
                check_out_dir(out, force=force)
    finally:
        os.close(fd)
    if not header:  # an empty marker nobody locks is a killed creation's remnant: not memprobe's to delete
        with pytest.raises(RunDirError, match="not a memprobe run directory"):
            check_out_dir(out, force=True)


def test_a_lock_held_a_moment_by_another_process_asking_is_waited_for(tmp_path):
    """Asking whether a directory is in use takes its lock for a moment: the writer waits that moment out, and only
    a lock held longer (another writer's) refuses it."""
    import fcntl
    import os
    import threading

    from memprobe.errors import RunDirError
    from memprobe.rundir.write import MANIFEST_HEADER, MARKER, MARKER_TEXT, _lock, release_locks

    out = tmp_path / "X"
    out.mkdir()
    (out / MARKER).write_text(MARKER_TEXT + MANIFEST_HEADER)
    asking = os.open(out / MARKER, os.O_RDONLY)
    fcntl.flock(asking, fcntl.LOCK_EX | fcntl.LOCK_NB)
    threading.Timer(0.03, os.close, (asking,)).start()
    try:
        _lock(out, create=False)
    finally:
        release_locks()
    writing = os.open(out / MARKER, os.O_RDONLY)
    fcntl.flock(writing, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        with pytest.raises(RunDirError, match="being written by another memprobe process"):
            _lock(out, create=False)
    finally:
        os.close(writing)


@pytest.mark.e2e
def test_two_writers_of_one_directory_give_one_winner_and_one_exit_2(tmp_path):
    out = tmp_path / "X"
    args = ["run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", out, "--force", "-q"]
    with ThreadPoolExecutor(2) as pool:  # two memprobe processes at once
        results = [(p.returncode, p.stderr) for p in pool.map(lambda _: run_cli(*args), range(2))]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    loser = next(err for code, err in results if code == 2)
    assert loser.count("\n") == 1 and "being written by another memprobe process" in loser
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "complete"
    # the winner's run, whole: every file it names is there, and the manifest lists every file there is
    assert all((out / g["files"]["graph_json"]).is_file() for g in report["graphs"])
    listed = set((out / ".memprobe").read_text().splitlines()[2:])
    present = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.name != ".memprobe"}
    assert present == listed


def test_a_refused_runs_directory_is_removed_only_where_the_verb_made_it(tmp_path):
    """refusal_leaves_no_run_dir: a ConfigError (exit 2) removes what memprobe wrote in a directory the verb made,
    and keeps a directory that was there before, or one holding a file memprobe did not write."""
    from memprobe.errors import ConfigError, RunFailed
    from memprobe.rundir.write import atomic_write_json, prepare_run_dir
    from memprobe.verbs import refusal_leaves_no_run_dir

    def refused(out: Path, error=ConfigError, extra: str | None = None) -> None:
        with pytest.raises(error), refusal_leaves_no_run_dir(out):
            prepare_run_dir(out, force=True)
            atomic_write_json(out / "report.json", {"status": "failed"})
            prepare_run_dir(out / "rank0", force=False)
            atomic_write_json(out / "rank0" / "report.json", {})
            if extra:
                (out / extra).write_text("the user's")
            raise error("this probe cannot train on this cpu")

    refused(tmp_path / "new")
    assert not (tmp_path / "new").exists()
    refused(tmp_path / "failed", RunFailed)  # failed while it ran: its partial results stay
    assert (tmp_path / "failed" / "rank0" / "report.json").is_file()
    (tmp_path / "before").mkdir()
    refused(tmp_path / "before")
    assert (tmp_path / "before" / "report.json").is_file()
    refused(tmp_path / "users", extra="notes.txt")
    assert (tmp_path / "users" / "notes.txt").read_text() == "the user's" and (tmp_path / "users" / "report.json").is_file()
