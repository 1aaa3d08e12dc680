"""Read a file someone else may have written: bounded, never blocking, never outside its directory.

No pydantic and no torch here: a probe's process (which may run in a lean environment) reads with it too
(a Hugging Face config.json, its compile records). :mod:`.load` checks what is read against its record type.

- :func:`read_bytes` / :func:`read_text`: a regular file only (a FIFO or a device is refused, never waited
  on), not through a symbolic link unless the user named the path, at most ``FILE_LIMITS[kind]`` bytes;
  :func:`open_bounded`: the same file as a stream, read in its reader's chunks (a snapshot's unpickler), no copy;
- :func:`parse_json`: JSON with bounds (nesting depth, integers within +-2**63, no NaN or infinities);
- :func:`inside`: a path recorded in a file, resolved, refused unless it stays inside the directory holding it;
- :func:`kind_of` / :func:`check_directory`: what is at a path, without following its last link;
- :func:`is_snapshot_file`: whether a path the user named is a CUDA memory snapshot (a pickle), read no further;
- :func:`check_work`: the per-file budget of work (:data:`WORK_LIMITS`): a file whose data would take more events,
  stack frames or steps than that is refused, naming the bound and how to raise it.

Every refusal is one line, :class:`~memprobe.errors.RunDirError` (exit 2), naming the file.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from pathlib import Path

from .. import settings
from ..errors import RunDirError

MAX_INT = 2**63  # bytes, counts and addresses fit in 64 bits
MAX_STR = 10_000_000


def _show(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return f"an integer of {digits(value)} digits"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    text = json.dumps(value, ensure_ascii=True, default=str) if not isinstance(value, str) else repr(value[:40])
    return text if len(text) <= 40 else text[:37] + "..."


def digits(n: int) -> int:
    """How many decimal digits ``n`` has: counted where Python prints it (at most 4,300), else from its bits (within
    one: str() of a longer integer is refused)."""
    if abs(n).bit_length() <= 14_000:
        return len(str(abs(n)))
    return int(abs(n).bit_length() * 0.30103) + 1


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number memprobe accepts")


def parse_json(text: str, where: str):
    """JSON with bounds: no NaN/Infinity, integers of at most 4300 digits (Python's limit), nesting within
    Python's recursion limit (a deeper file is refused, not a crash); then every number in range
    (:func:`check_numbers`), naming the first that is not, and at most the work bound's values in all."""
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError; so is an integer too long
        why = "nested too deep" if isinstance(e, RecursionError) else " ".join(str(e).split())[:200]
        raise RunDirError(f"{where} is not valid JSON ({why})") from None
    check_numbers(doc, where)
    return doc


def check_numbers(doc, where: str) -> None:
    """Every number in ``doc`` is one memprobe can compute with: an integer within +-2**63, a finite float
    (``1e309`` parses as infinity), and ``doc`` holds at most the work bound's values (:data:`WORK_LIMITS`).
    RunDirError naming the first field that is not."""
    values, bad = _scan(doc)
    check_work(where, "work", values, "JSON values")
    if bad:
        bad = out_of_range(doc)
        raise RunDirError(f"{where}: {bad[0] or '(top level)'}: {bad[1]}")


def _scan(doc) -> tuple[int, bool]:
    """(how many values ``doc`` holds, whether a number of them is out of range): one pass without the fields' paths,
    which only the refusal needs (:func:`out_of_range`). Iterative; exact types, as JSON parses them."""
    stack, values, bad = [[doc]], 0, False  # the document itself as the one item of a list
    while stack:
        value = stack.pop()
        items = value.values() if type(value) is dict else value
        values += len(value)
        for v in items:
            t = type(v)
            if t is list or t is dict:
                stack.append(v)
            elif t is float:
                bad = bad or not math.isfinite(v)
            elif t is int:
                bad = bad or not -MAX_INT <= v <= MAX_INT
    return values, bad


def out_of_range(doc, *, floats: bool = True) -> tuple[str, str] | None:
    """``(field path, why)`` of the first number in ``doc`` out of range (an integer beyond +-2**63; with
    ``floats``, a float that is not finite), or None. Iterative: a deeply nested document is no crash."""
    stack = [(doc, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
        elif floats and isinstance(value, float) and not math.isfinite(value):
            return path, f"a number out of range ({value})"
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            return path, f"an integer out of range ({digits(value)} digits; at most 2**63)"
    return None


# The most memprobe reads of each kind of file: a larger one is refused before it is read (the largest
# seen: a report.json of ~40 MB with the CPU profiler's events, a snapshot of ~0.7 GB).
MiB = 2**20
FILE_LIMITS = {
    "report": 512 * MiB,
    "graph": 256 * MiB,
    "output code": 64 * MiB,
    "result": 256 * MiB,  # diff.json, explain.json, bisect.json, sweep.json
    "baseline": 256 * MiB,
    "budget": 1 * MiB,
    "compile record": 256 * MiB,  # a compile's graphs and output code, in the Inductor cache
    "peaks": 16 * MiB,  # the GPU peaks of every configuration run here
    "snapshot": 4096 * MiB,
}


# The most work memprobe does for one file (its per-file budget), whoever wrote it: a file that needs more is refused
# before the work is done, in one line naming the bound and the variable that raises it. A real run stays within each
# (memprobe's own snapshot keeps at most 200,000 events; the largest report.json seen was ~40 MB, and one of 24 MB
# with 500,000 events holds 2.5 million values). Counted as the analysis walks the data: a shared list at each use.
WORK_LIMITS = {
    # allocator events and segment blocks of a snapshot; the profiler's memory events, regions and ops of report.json,
    # and the events its graph calls span (an event counted for each call that spans it)
    "events": (2_000_000, settings.MAX_EVENTS.name),
    # the stack frames of a snapshot's events and blocks, a shared list counted at each use
    "frames": (100_000_000, settings.MAX_FRAMES.name),
    # the values of a JSON file
    "work": (10_000_000, settings.MAX_WORK.name),
}


def work_limit(name: str) -> int:
    """The bound ``name`` of :data:`WORK_LIMITS`, or the one its variable sets (a positive integer)."""
    default, var = WORK_LIMITS[name]
    text = os.environ.get(var)
    if text is None:
        return default
    value = int(text) if text.isascii() and text.strip().isdigit() and len(text.strip()) <= 19 else 0  # ASCII, bounded
    if not 0 < value <= MAX_INT:
        raise RunDirError(f"{var}={text[:40]!r}: a bound of memprobe's work is a positive integer (default {default})")
    return value


def check_work(where: str, name: str, count: int, what: str) -> None:
    """RunDirError unless ``count`` (of ``what``) is within the bound ``name`` of :data:`WORK_LIMITS`."""
    limit = work_limit(name)
    if count > limit:
        var = WORK_LIMITS[name][1]
        raise RunDirError(
            f"{where}: {count} {what}, more than memprobe works through for one file (at most {limit}; "
            f"set {var}={min(MAX_INT, 2 * count)} to raise the bound)"
        )


def _open_regular(path: Path, where: str, kind: str, follow: bool) -> tuple[int, int]:
    """``(fd, size)`` of a regular file of at most ``FILE_LIMITS[kind]`` bytes, opened without blocking (a FIFO or a
    device is refused, never waited on) and, unless ``follow``, not through a symbolic link; RunDirError otherwise."""
    limit = FILE_LIMITS[kind]
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP and not follow:
            raise RunDirError(f"{where} is a symbolic link; memprobe reads only the files themselves") from None
        raise RunDirError(f"{where}: cannot read it ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, socket or device)"
            raise RunDirError(f"{where} is {what}; memprobe reads only regular files")
        if st.st_size > limit:
            raise RunDirError(f"{where} is {st.st_size} bytes; memprobe reads at most {limit} for a {kind} file")
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def _grew(where: str, limit: int, kind: str) -> RunDirError:
    return RunDirError(f"{where} grew past {limit} bytes while being read; memprobe reads at most that for a {kind} file")


def read_bytes(path: Path, where: str | None = None, *, kind: str, follow: bool = False) -> bytes:
    """The bytes of a regular file, at most ``FILE_LIMITS[kind]`` of them, or RunDirError in one line. The
    file is opened without blocking (a FIFO or a device is refused, never waited on) and, unless
    ``follow`` (a path the user named), not through a symbolic link."""
    where = where or str(path)
    limit = FILE_LIMITS[kind]
    fd, _size = _open_regular(path, where, kind, follow)
    try:
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 24, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise _grew(where, limit, kind)
        return b"".join(chunks)
    except OSError as e:
        raise RunDirError(f"{where}: cannot read it ({e.strerror or e})") from None
    finally:
        os.close(fd)


class BoundedFile:
    """A regular file opened by :func:`open_bounded`, read in its reader's own chunks (``read``, ``readinto``,
    ``readline``, ``peek``: what the C unpickler asks of a file) rather than whole into memory: RunDirError in one line
    once more than ``FILE_LIMITS[kind]`` bytes have been read (a file that grows while it is read) or a read fails."""

    def __init__(self, fd: int, size: int, where: str, kind: str):
        import io

        self.size, self.where, self.kind = size, where, kind
        self._limit, self._read = FILE_LIMITS[kind], 0
        self._file = io.BufferedReader(io.FileIO(fd, "rb", closefd=True), buffer_size=1 << 20)

    def _count(self, n: int) -> None:
        self._read += n
        if self._read > self._limit:
            raise _grew(self.where, self._limit, self.kind)

    def _io(self, call, *args):
        try:
            return call(*args)
        except OSError as e:
            raise RunDirError(f"{self.where}: cannot read it ({e.strerror or e})") from None

    def read(self, n: int | None = -1) -> bytes:
        if n is None or n < 0:  # the rest: no more than what would pass the limit
            n = self._limit + 1 - self._read
        data = self._io(self._file.read, n)
        self._count(len(data))
        return data

    def readinto(self, buffer) -> int:
        n = self._io(self._file.readinto, buffer) or 0
        self._count(n)
        return n

    def readline(self, size: int = -1) -> bytes:
        data = self._io(self._file.readline, size)
        self._count(len(data))
        return data

    def peek(self, n: int = 0) -> bytes:
        return self._io(self._file.peek, n)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> BoundedFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_bounded(path: Path, where: str | None = None, *, kind: str, follow: bool = False) -> BoundedFile:
    """A regular file of at most ``FILE_LIMITS[kind]`` bytes, opened as :func:`read_bytes` opens it (without blocking,
    not through a symbolic link unless ``follow``), to be read as a stream: a reader that needs it once, in order (a
    snapshot's unpickler), holds no copy of it. RunDirError in one line."""
    where = where or str(path)
    fd, size = _open_regular(path, where, kind, follow)
    return BoundedFile(fd, size, where, kind)


def kind_of(path: Path) -> str:
    """What is at ``path``, without following a last symbolic link and without raising: "missing", "file",
    "dir", "link", "other" (a FIFO, socket or device), or "unreadable" (a directory above it denies access)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except NotADirectoryError:
        return "missing"
    except OSError:
        return "unreadable"
    if stat.S_ISLNK(mode):
        return "link"
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def check_directory(path: Path, what: str = "run directory") -> Path:
    """``path`` if it is a directory memprobe may list; RunDirError saying what it is instead. The path the
    user named may be a symbolic link to a directory."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise RunDirError(f"{what} {path} does not exist") from None
    except OSError as e:
        raise RunDirError(f"{what} {path}: cannot read it ({e.strerror or e})") from None
    if not stat.S_ISDIR(mode):
        raise RunDirError(f"{path} is not a directory" + (f" (a {what} is)" if what != "directory" else ""))
    if not os.access(path, os.R_OK | os.X_OK):
        raise RunDirError(f"{what} {path}: cannot read it (Permission denied)")
    return path


def read_text(path: Path, where: str | None = None, *, kind: str = "result", follow: bool = False) -> str:
    """A UTF-8 text file read by :func:`read_bytes`."""
    where = where or str(path)
    data = read_bytes(path, where, kind=kind, follow=follow)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RunDirError(f"{where} is not UTF-8 text (byte {e.start})") from None


def inside(root: Path, rel, where: str) -> Path:
    """``root / rel`` if it stays inside ``root`` (symbolic links resolved); RunDirError otherwise."""
    if not isinstance(rel, str) or not rel or "\0" in rel:
        raise RunDirError(f"{where}: not a file name: {_show(rel)}")
    try:
        base = root.resolve()
        path = (root / rel).resolve()
    except (RuntimeError, OSError) as e:  # a symbolic link loop (``ln -s graphs graphs``), a name too long
        why = "a loop of symbolic links" if isinstance(e, RuntimeError) else (e.strerror or str(e))
        raise RunDirError(
            f"{where}: {rel!r} cannot be resolved ({why}); memprobe reads only files inside the run directory"
        ) from None
    if Path(rel).is_absolute() or (path != base and base not in path.parents):
        raise RunDirError(f"{where}: {rel!r} is outside the run directory; memprobe reads only files inside it")
    return path


PICKLE_PROTOCOL_2 = b"\x80"  # how a pickle of protocol 2 or later begins (torch's _dump_snapshot writes 4 or 5)


def is_snapshot_file(value) -> bool:
    """Whether a path a verb was given names a snapshot file: a regular file (a symbolic link the user named is
    followed) that begins as a pickle of protocol 2 or later. Anything else is read as a run or result directory and
    refused as one, saying what it is; never raises, never waits (opened without blocking)."""
    try:
        path = Path(value)
        if not path.is_file():
            return False
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            return os.read(fd, 1) == PICKLE_PROTOCOL_2
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return False
