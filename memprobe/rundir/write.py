"""The run directory: the unit of record every analysing command reads.

Layout::

    report.json            schema_version, status, config, versions, saved_tensors, findings, memory, ...
    graphs/g0.forward.txt  the partitioned graph, readable
    graphs/g0.forward.json its nodes (target op, shape, dtype, bytes, SAC tag, stack)
    output_code/g0.forward.py   Inductor's output code for it

Every file is written atomically (temp file + rename), so a run that dies leaves
complete files or none; report.json carries ``status`` (running, complete, failed).

``.memprobe``, the marker, says memprobe made the directory and lists every file memprobe wrote
in it (the manifest): ``--force`` removes exactly those, and refuses a directory holding anything
else. A process writing a run directory holds a lock on its marker (``flock``), so a second
memprobe writing there at the same time is refused. A marker without a manifest (a directory
written by an earlier memprobe) admits only the names memprobe writes (report.json,
graphs/g0.forward.json, ...).

Run directories go under ``memprobe-runs/`` unless ``--out`` says where; memprobe gives that directory a
``.gitignore`` of its own holding ``*``, so that a verb run in a git checkout (a CI job's) leaves nothing untracked
there. A file memprobe writes outside a run directory, where no manifest lists it (the gate's JUnit XML), is known
by how it begins (:func:`memprobe_wrote`): memprobe replaces such a file without ``--force``, never another.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import re
import stat
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from ..errors import InternalError, RunDirError
from . import records as R

MARKER = ".memprobe"  # in every directory memprobe creates, so --force knows it may replace it
RUNS_HOME = Path("memprobe-runs")  # where run directories go by default (relative: the working directory's)
RUNS_HOME_IGNORE = "# written by memprobe: the run directories here stay out of git\n*\n"
# how a file memprobe writes outside a run directory begins: the gate's JUnit XML (memprobe.report.junit's gate_junit)
OWN_FILE_STARTS = (b'<testsuites name="memprobe gate"',)


def default_run_dir(label: str) -> Path:
    """``memprobe-runs/<UTC time>-<label>``, its ``memprobe-runs/`` made (with its .gitignore) if need be."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    runs_home()
    return RUNS_HOME / f"{stamp}-{label}"


def runs_home(home: Path = RUNS_HOME) -> Path:
    """The directory of the default run directories, with a ``.gitignore`` holding ``*``: made when missing, never
    written over (a link or a file of that name is left as it is, and so is a directory the user made a file of)."""
    make_dir(home)
    ignore = home / ".gitignore"
    if home.is_symlink() or ignore.is_symlink() or ignore.exists():
        return home
    try:
        fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except FileExistsError:  # another memprobe made it meanwhile
        return home
    with os.fdopen(fd, "w") as f:
        f.write(RUNS_HOME_IGNORE)
    return home


def memprobe_wrote(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) that begins as a file memprobe writes outside a run directory
    does (:data:`OWN_FILE_STARTS`): one memprobe may write over without ``--force``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, max(len(s) for s in OWN_FILE_STARTS))
    except OSError:
        return False
    finally:
        os.close(fd)
    return any(head.startswith(start) for start in OWN_FILE_STARTS)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a temporary file renamed over it); inside a run directory the
    file is first recorded in its manifest, so that `--force` may remove it later."""
    path = Path(path)
    make_dir(path.parent)
    _record_write(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise RunDirError(f"cannot write {path} ({e.strerror or e})") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; the file should read like any other
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def make_dir(path: Path) -> None:
    """Directory ``path`` (and those above it) made where missing; RunDirError (exit 2, one line) when the system
    makes none there (``--out /proc/self/x``, a file in the way, a directory the user may not write)."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunDirError(f"cannot make the directory {path} ({e.strerror or e})") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_json(path: Path, obj) -> None:
    """Strict JSON: a NaN or an infinity is a ValueError (memprobe's bug), never a file others cannot parse."""
    atomic_write_text(path, json.dumps(obj, indent=1, sort_keys=False, allow_nan=False) + "\n")


MARKER_TEXT = "written by memprobe; `--force` may replace this directory\n"
MANIFEST_HEADER = "# what memprobe wrote here, one a line; --force removes exactly these (NAME/: a run directory of its own)\n"
MARKER_LIMIT = 4 * 2**20  # a manifest of ~100,000 files

# what a directory written before the manifest (a marker of MARKER_TEXT alone) may hold: memprobe's own
# names only; anything else in it is someone else's
_LEGACY_FILES = frozenset(
    ("report.json", "diff.json", "explain.json", "bisect.json", "sweep.json", "snapshot.pickle", "report.html")
)
_LEGACY_SUBFILES = {
    "graphs": re.compile(r"g\d+\.(forward|backward|inference)\.(txt|json)"),
    "output_code": re.compile(r"g\d+\.(forward|backward|inference)\.py"),
}
# the temporary file of an atomic write (".NAME.RANDOM.tmp", or ".NAME.tmp" for the CUDA snapshot)
_TMP = re.compile(r"\.(?P<name>.+?)(\.[a-z0-9_]{8})?\.tmp")
_ENTRY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+=-]{0,254}")  # one component of a name memprobe writes (fullmatch)

# this process's locks: the real path of a directory it writes -> its marker's open, locked descriptor
_LOCKS: dict[str, int] = {}


class _Marker:
    """A directory's marker as read: ``legacy`` (no manifest), or the ``files`` and ``runs`` it lists."""

    def __init__(self, legacy: bool, files: frozenset[str] = frozenset(), runs: frozenset[str] = frozenset()):
        self.legacy, self.files, self.runs = legacy, files, runs


def _check_entry(rel: str) -> None:
    parts = rel.rstrip("/").split("/") if rel.endswith("/") else rel.split("/")
    if not 1 <= len(parts) <= 2 or not all(_ENTRY.fullmatch(p) for p in parts) or (rel.endswith("/") and len(parts) != 1):
        raise ValueError(f"memprobe does not record writing {rel!r} (a name of one or two plain components)")


def _read_marker(path: Path) -> _Marker | None:
    """The marker of directory ``path``, or None when it has none memprobe could have written (absent, a
    link, not a regular file, too large, not a marker's text, or a manifest naming what memprobe never writes)."""
    try:
        fd = os.open(path / MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MARKER_LIMIT:
            return None
        data = os.read(fd, MARKER_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text == MARKER_TEXT:
        return _Marker(legacy=True)
    if not text.startswith(MARKER_TEXT + MANIFEST_HEADER) or not text.endswith("\n"):
        return None
    files, runs = set(), set()
    for line in text[len(MARKER_TEXT + MANIFEST_HEADER) :].splitlines():
        try:
            _check_entry(line)
        except ValueError:
            return None
        (runs if line.endswith("/") else files).add(line.rstrip("/"))
    return _Marker(False, frozenset(files), frozenset(runs))


def record(run_dir: Path, rel: str) -> None:
    """Add ``rel`` (a file, or ``NAME/`` for a run directory of its own) to the manifest of ``run_dir``:
    `--force` may remove it later. Nothing is recorded in a directory without a manifest."""
    _check_entry(rel)
    marker = _read_marker(run_dir)
    if marker is None or marker.legacy or rel.rstrip("/") in (marker.runs if rel.endswith("/") else marker.files):
        return
    fd = os.open(run_dir / MARKER, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.write(fd, (rel + "\n").encode())
    finally:
        os.close(fd)


def _record_write(path: Path) -> None:
    """Before memprobe writes ``path``: record it in the manifest of the run directory holding it (its
    directory, or the one above for graphs/ and output_code/), if there is one."""
    parent = path.parent
    # a name memprobe cannot record (an --html path of the user's own choosing) stays unrecorded: --force
    # then refuses the directory rather than guess
    with contextlib.suppress(ValueError, OSError):
        if (parent / MARKER).is_file():
            record(parent, path.name)
        elif (parent.parent / MARKER).is_file():
            record(parent.parent, f"{parent.name}/{path.name}")


class _Plan:
    """What `--force` removes from a directory: files, then directories (deepest first)."""

    def __init__(self):
        self.files: list[Path] = []
        self.dirs: list[Path] = []


def _foreign(path: Path, plan: _Plan, top: bool) -> str | None:
    """The first entry of ``path`` that memprobe did not record writing (the directory itself when it has
    no marker memprobe wrote), or None, adding what may be removed to ``plan``. A run directory of its own
    inside it (a side, trial, rank, gate probe) is checked by its own marker, and must not be in use."""
    if path.is_symlink() or not path.is_dir():
        return str(path)
    marker = _read_marker(path)
    if marker is None:
        return str(path)
    if not top and _in_use(path):
        raise _busy(path)
    for entry in _listed(path):
        odd = _foreign_entry(entry, marker, plan, top)
        if odd:
            return odd
    if not top:
        plan.dirs.append(path)
    return None


def _listed(folder: Path) -> list[os.DirEntry]:
    """The entries of ``folder`` by name; RunDirError when it cannot be listed."""
    try:
        return sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as e:
        raise RunDirError(f"{folder}: cannot list it ({e.strerror or e})") from None


def _foreign_entry(entry: os.DirEntry, marker: _Marker, plan: _Plan, top: bool) -> str | None:
    """One entry of a run directory: what of it memprobe did not record writing (its path, or one inside it), or
    None, adding what may be removed to ``plan`` (the marker of the top directory stays: it is written again)."""
    if entry.name == MARKER:
        if not top:
            plan.files.append(Path(entry.path))
        return None
    if entry.is_symlink():
        return entry.path
    if entry.is_dir(follow_symlinks=False):
        return _foreign_folder(entry, marker, plan)
    if not (entry.is_file(follow_symlinks=False) and _owned(entry.name, "", marker)):
        return entry.path
    plan.files.append(Path(entry.path))
    return None


def _foreign_folder(entry: os.DirEntry, marker: _Marker, plan: _Plan) -> str | None:
    """A folder of a run directory: a run directory of its own (checked by its own marker), or a folder of the run's
    files (graphs/, output_code/)."""
    folder = Path(entry.path)
    if entry.name in marker.runs or (marker.legacy and (folder / MARKER).is_file()):
        return _foreign(folder, plan, top=False) or None
    odd = _foreign_files(folder, entry.name, marker, plan)
    if odd:
        return odd
    plan.dirs.append(folder)
    return None


def _foreign_files(folder: Path, name: str, marker: _Marker, plan: _Plan) -> str | None:
    """A folder of a run (graphs/, output_code/): every entry a regular file memprobe recorded writing."""
    if not marker.legacy and not any(f.startswith(name + "/") for f in marker.files):
        return str(folder)
    if marker.legacy and name not in _LEGACY_SUBFILES:
        return str(folder)
    for entry in _listed(folder):
        if not (entry.is_file(follow_symlinks=False) and _owned(entry.name, name, marker)):
            return entry.path
        plan.files.append(Path(entry.path))
    return None


def _owned(name: str, folder: str, marker: _Marker) -> bool:
    """Whether file ``name`` (in ``folder``, "" at the top) is one memprobe recorded writing, or the
    temporary file of one."""
    tmp = _TMP.fullmatch(name)
    names = [name] + ([tmp.group("name")] if tmp else [])
    for n in names:
        if marker.legacy:
            if (folder and _LEGACY_SUBFILES[folder].fullmatch(n)) or (not folder and n in _LEGACY_FILES):
                return True
        elif (f"{folder}/{n}" if folder else n) in marker.files:
            return True
    return False


def _busy(path: Path) -> RunDirError:
    return RunDirError(f"{path} is being written by another memprobe process; wait for it to end or choose another --out")


def _in_use(path: Path) -> bool:
    """Whether another process holds the lock of run directory ``path``."""
    if str(path.resolve()) in _LOCKS:
        return False
    return locked(path / MARKER)


def locked(file: Path) -> bool:
    """Whether a process holds a lock (``flock``) on ``file``: asked by taking it for a moment, never waited on (a file
    that is not there, or a link, holds none)."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _being_created(path: Path) -> bool:
    """Whether another memprobe process is creating ``path``: it holds only an empty marker (created, not yet
    locked) that becomes locked within a second. An empty marker nobody locks is what a killed process left."""
    for _ in range(20):
        try:
            if os.listdir(path) != [MARKER] or os.lstat(path / MARKER).st_size != 0:
                return False
        except OSError:
            return False
        if _in_use(path):
            return True
        time.sleep(0.05)
    return False


def check_out_dir(path: Path, force: bool) -> _Plan:
    """Whether a run may be written to ``path``: refused (one line) unless it is absent or empty, or
    ``force`` and everything in it is what memprobe recorded writing. Returns what `--force` would remove;
    nothing is touched."""
    path = Path(path)
    plan = _Plan()
    if path.is_symlink():
        raise RunDirError(f"{path} is a symbolic link; memprobe writes only into a directory itself: give its real path")
    if path.exists() and not path.is_dir():
        raise RunDirError(f"{path} exists and is not a directory")
    if path.is_dir() and _entries(path):
        if _in_use(path) or _being_created(path):
            raise _busy(path)
        if not force:
            raise RunDirError(
                f"run directory {path} already exists and is not empty; pass --force to replace it or choose another --out"
            )
        foreign = _foreign(path, plan, top=True)
        if foreign == str(path):
            raise RunDirError(
                f"{path} is not a memprobe run directory (it has no memprobe marker); refusing to delete it even with --force"
            )
        if foreign:
            raise RunDirError(f"{path} holds {foreign}, which memprobe did not write; refusing to delete it even with --force")
    return plan


def _entries(path: Path) -> list[str]:
    try:
        return os.listdir(path)
    except OSError as e:
        raise RunDirError(f"{path}: cannot list it ({e.strerror or e})") from None


def _lock(path: Path, create: bool) -> int:
    """This process's lock on run directory ``path`` (its marker, opened and locked), or RunDirError when
    another process holds it."""
    key = str(path.resolve())
    if key in _LOCKS:
        return _LOCKS[key]
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path / MARKER, flags, 0o666)
    except OSError as e:
        raise RunDirError(f"{path / MARKER}: cannot open it ({e.strerror or e})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RunDirError(f"{path / MARKER} is not a regular file; {path} is not a memprobe run directory")
        for attempt in range(10):  # another memprobe asking whether it is in use holds it for a moment only
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == 9:
                    raise
                time.sleep(0.01)
    except BlockingIOError:
        os.close(fd)
        raise _busy(path) from None
    except BaseException:
        os.close(fd)
        raise
    _LOCKS[key] = fd
    return fd


def release_locks() -> None:
    """The verb is done: let other memprobe processes write the directories this one wrote."""
    while _LOCKS:
        os.close(_LOCKS.popitem()[1])


def _unlock_under(path: Path) -> None:
    """Forget this process's locks of run directories inside ``path`` (about to be removed)."""
    root = str(path.resolve()) + os.sep
    for key in [k for k in _LOCKS if k.startswith(root)]:
        os.close(_LOCKS.pop(key))


def prepare_run_dir(path: Path, force: bool) -> Path:
    """Create ``path`` for a new run, and hold its lock until the verb ends (:func:`release_locks`) or the
    process does: a second memprobe writing there at the same time is refused (one line). With ``force`` an earlier memprobe directory there is
    emptied first, of exactly the files memprobe recorded writing in it (see :func:`check_out_dir`); the
    marker starts a new manifest."""
    path = Path(path)
    existed = path.is_dir() and bool(_entries(path))
    check_out_dir(path, force)
    make_dir(path)
    fd = _lock(path, create=not existed)
    plan = check_out_dir(path, force) if existed else _Plan()  # again, now that no other memprobe can change it
    if not existed and _entries(path) != [MARKER]:
        raise RunDirError(f"{path} was filled by someone else while memprobe created it; choose another --out")
    _unlock_under(path)
    try:
        _remove(plan)
    except OSError as e:
        raise RunDirError(
            f"{path} changed while memprobe emptied it ({e.strerror or e}: {e.filename}); nothing else was removed"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, (MARKER_TEXT + MANIFEST_HEADER).encode(), 0)
    if _read_marker(path.parent) is not None and _ENTRY.fullmatch(path.name):
        record(path.parent, path.name + "/")
    return path


def discard_run_dir(path: Path) -> bool:
    """Remove run directory ``path``, made by this verb for a run that was refused as bad input (a model too large
    for the machine, a factory's bad arguments: nothing recorded is worth keeping): exactly the files memprobe recorded
    writing there, then the directory. False, nothing removed, where it holds anything else, another memprobe holds
    it, or it cannot be removed."""
    path = Path(path)
    if path.is_symlink() or not (path / MARKER).is_file():
        return False  # no run directory memprobe made
    try:
        plan = check_out_dir(path, force=True)
    except RunDirError:
        return False
    key = str(path.resolve())
    _unlock_under(path)
    if key in _LOCKS:
        os.close(_LOCKS.pop(key))
    try:
        _remove(plan)
        os.unlink(path / MARKER)
        os.rmdir(path)
    except OSError:
        return False
    return True


def _remove(plan: _Plan) -> None:
    """What ``plan`` lists: its files (one already gone is no error), then its directories, deepest first."""
    for f in plan.files:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f)
    for d in plan.dirs:
        os.rmdir(d)


@functools.cache
def _schema():
    """The pydantic schema, where it is installed (memprobe's own environment, always); None in a probe's process
    that runs in an environment without it (its reader validates what it wrote)."""
    try:
        from pydantic import ValidationError

        from . import schema
        from .load import describe_error
    except ImportError:
        return None
    return schema, ValidationError, describe_error


def prepare_checks() -> None:
    """Build the validators of the files a probe writes now (a fork server does, once for all its probes), not at
    a probe's first write."""
    found = _schema()
    if found is not None:
        for root in (found[0].Report, found[0].GraphFile, found[0].CompileRecord):
            root.model_rebuild(force=True)


def record_data(record: R.Record) -> dict:
    """A record a probe built (:mod:`.records`) as the JSON data it writes: where pydantic is installed, checked
    against the schema's record of the same name first, so that a writer that does not fit its own schema fails
    where it writes (memprobe's bug: InternalError, exit 70), not when the file is read back."""
    data = R.to_data(record)
    found = _schema()
    if found is None:
        return data
    schema, invalid, describe_error = found
    model = getattr(schema, type(record).__name__)
    try:
        model.model_validate(data)
    except invalid as e:
        raise InternalError(
            f"memprobe wrote a {type(record).__name__} that does not fit its schema: {describe_error(model, e)}"
        ) from None
    return data


class RunDir:
    """A run directory as its probe writes it: only the process that made this (the probe's) writes through it, so a
    process the user's code forks (a worker that raises instead of calling ``os._exit``) records nothing."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.writer = os.getpid()

    def ours(self) -> bool:
        """Whether this is the probe's process (not one the user's code forked from it)."""
        return os.getpid() == self.writer

    def _writing(self) -> None:
        if not self.ours():
            raise RunDirError(
                f"{self.path} is written by its probe's process {self.writer} alone, not by process {os.getpid()} forked from it"
            )

    def record(self, rel: str) -> None:
        """A file written by other code than :func:`atomic_write_text` (the CUDA snapshot): into the manifest first."""
        self._writing()
        record(self.path, rel)

    def write_report(self, report: R.Report) -> Path:
        """report.json as the probe recorded it so far, checked against its schema where pydantic is installed."""
        self._writing()
        p = self.path / "report.json"
        atomic_write_json(p, record_data(report))
        return p

    def write_graph(self, graph: R.GraphFile, readable: str, output_code: str | None) -> R.GraphFiles:
        """Write one partitioned graph's files: its nodes, its readable form and its output code; their paths,
        relative to the run directory."""
        self._writing()
        files = R.GraphFiles(graph_text=f"graphs/{graph.graph_id}.txt", graph_json=f"graphs/{graph.graph_id}.json")
        atomic_write_text(self.path / files.graph_text, readable)
        atomic_write_json(self.path / files.graph_json, record_data(graph))
        if output_code is not None:
            files.output_code = f"output_code/{graph.graph_id}.py"
            atomic_write_text(self.path / files.output_code, output_code)
        return files
