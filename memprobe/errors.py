"""Errors that reach the user as one line and an exit code.

Every error carries its exit code from construction (a class default, or ``exit_code=``
for the few that take another one, such as a probe process's own code); the CLI catches
them in one place (:func:`memprobe.cli.main.outcome`). ``--debug`` prints the traceback too and
exits with the same code. docs/errors.md has the table with the messages; the codes:

====  ==========================================================================
0     success (gate: every limit passes)
1     gate: a limit is breached (or cannot be checked: its figure is missing)
2     bad input: flags, configuration, run directory, budget or any file read, a
      directory another memprobe is writing, a file the system does not let memprobe read
3     the probe itself failed (partial results were written), the user's code included
      (an exception, ``sys.exit``, ``os._exit``)
4     out of memory (partial report and, on CUDA, the snapshot up to the failure)
70    an internal error of memprobe (a bug: please report it)
130   interrupted (Ctrl-C); 143 on SIGTERM
====  ==========================================================================
"""

from __future__ import annotations

import errno
import os


class _Debug:
    """Whether the user asked for ``--debug`` (on the group or after a verb): a traceback with the one line, this
    process's and its probes' (each probe process is told in its job and sends its own). Set by the CLI's one door."""

    on = False


DEBUG = _Debug()


class MemprobeError(Exception):
    """An error the user can act on. ``exit_code`` is what the CLI exits with."""

    exit_code = 1

    def __init__(self, message: str = "", *, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class ConfigError(MemprobeError):
    """A bad flag value or an impossible configuration (exit 2, like a usage error). ``field`` names the
    configuration field it is about, when it is about one (a budget file points at its line)."""

    exit_code = 2

    def __init__(self, message: str = "", *, exit_code: int | None = None, field: str | None = None):
        super().__init__(message, exit_code=exit_code)
        self.field = field


class RunDirError(MemprobeError):
    """A run directory or another file memprobe reads that is missing, invalid, or would be overwritten (exit 2)."""

    exit_code = 2


class RunFailed(MemprobeError):
    """The probe itself failed while running; partial results were written."""

    exit_code = 3


class OutOfMemory(MemprobeError):
    """The device ran out of memory during the run; a partial report (and snapshot) was written."""

    exit_code = 4


def oom_headline(message: str) -> str:
    """What an out-of-memory error asked for, without the advice after it: the first line of its message, cut to its
    first two sentences ("CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of ..." ->
    "CUDA out of memory. Tried to allocate 8.00 GiB"); a message without sentences is its first line."""
    first = message.splitlines()[0] if message else ""
    return ". ".join(first.split(". ")[:2]).rstrip(".")


class Interrupted(MemprobeError):
    """Ctrl-C (130) or SIGTERM (143); the run directory was left consistent and marked interrupted."""

    exit_code = 130


class InternalError(MemprobeError):
    """A bug in memprobe (exit 70), e.g. reported by a probe process; the message says where."""

    exit_code = 70


# the file system's refusals of a path the user named, theirs to fix (2): not allowed, a name too long, a link loop,
# a read-only or full file system
USER_FILE_ERRNOS = frozenset(
    {errno.EACCES, errno.EPERM, errno.ENAMETOOLONG, errno.ELOOP, errno.EROFS, errno.ENOSPC, errno.EDQUOT}
)

# the exit codes a memprobe process uses, by the error class that owns each
EXIT_CODES = {2: ConfigError, 3: RunFailed, 4: OutOfMemory, 70: InternalError, 130: Interrupted, 143: Interrupted}


def exit_of(exc: BaseException) -> tuple[int, str]:
    """The exit code of an exception that ended a verb, and what it says (the door that shows it, the CLI's or an MCP
    tool's, makes it one bounded line): a MemprobeError's own; the file system's refusal, which is the user's to fix
    (2); anything else memprobe's bug (70), said by its type and its first line."""
    if isinstance(exc, MemprobeError):
        return exc.exit_code, str(exc)
    if isinstance(exc, OSError) and exc.errno in USER_FILE_ERRNOS:
        name = str(exc.filename or "a file")
        name = name if len(name) <= 80 else f"{name[:36]}...{name[-36:]} ({len(name)} characters)"
        return 2, f"cannot access {name}: {os.strerror(exc.errno).lower()}"
    first = (str(exc).splitlines() or [""])[0]
    return 70, f"{type(exc).__name__}: {first[:500]}"
