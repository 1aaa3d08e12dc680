"""What the kernel says of this user's processes (Linux's /proc), read without signalling any: the processes that hold
one end of a pipe, a process's state and its command line. Elsewhere (no /proc) each says nothing."""

from __future__ import annotations

import os


def pipe_holders(fd: int) -> list[str]:
    """The processes other than this one that hold the pipe ``fd`` is an end of, each as ``pid N (its command)``
    (those of another user, whose descriptors cannot be read, are not seen)."""
    try:
        target = f"pipe:[{os.fstat(fd).st_ino}]"
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except (OSError, ValueError):
        return []
    return [f"pid {pid} ({command_of(pid)})" for pid in sorted(pids) if _holds(pid, target)]


def _holds(pid: int, target: str) -> bool:
    folder = f"/proc/{pid}/fd"
    try:
        return any(os.readlink(f"{folder}/{fd}") == target for fd in os.listdir(folder))
    except OSError:  # another user's, or gone meanwhile
        return False


def command_of(pid: int, limit: int = 80) -> str:
    """A process's command line, bounded (``?`` when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read(4096).split(b"\0")
    except OSError:
        return "?"
    text = " ".join(w.decode("utf-8", "replace") for w in words if w) or "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def state_of(pid: int) -> str | None:
    """A process's state letter as the kernel gives it (``R``, ``S``, ``T`` stopped, ``t`` stopped by a tracer, ``Z``,
    ...), or None when it cannot be read (gone, not Linux)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read(4096)
    except OSError:
        return None
    _, _, rest = stat.rpartition(b") ")  # the command name in parentheses may hold anything, ") " too
    return rest[:1].decode("ascii", "replace") or None
