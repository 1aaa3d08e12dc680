"""Work done in a forked copy of this process, its result sent back through a pipe: reading a snapshot while the verb
imports what renders it, and a snapshot's timeline in parts on several cores.

A fork copies nothing up front: the child sees the parent's objects as they were at the fork (a loaded snapshot's
millions of events too) and sends back only what it computed, pickled. So a child is started only where the data it
reads is already in memory, or where it loads the data itself, and what it returns is small. The child leaves with
``os._exit`` once its result is written: no teardown of what it read, no output of the parent's flushed twice.

Where this process cannot fork (no ``os.fork``), the work runs here, when it is started: the same result, in turn.
"""

from __future__ import annotations

import atexit
import gc
import os
import pickle
import signal

CAN_FORK = hasattr(os, "fork")
MAX_PARTS = 8  # work split in parts: at most this many processes at once


def part_count(items: int, per_part: int) -> int:
    """How many parts to split work over ``items`` into: one per core this process may run on, each of at least
    ``per_part`` items, at most :data:`MAX_PARTS`; one where this process cannot fork."""
    if not CAN_FORK:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, MAX_PARTS, items // per_part))


class Forked:
    """``fn(*args, **kwargs)`` under way in a forked child; :meth:`result` waits for it and returns what it returned
    (or raises what it raised, with the child's traceback as a note when it is no error of memprobe's)."""

    def __init__(self, fn, *args, **kwargs):
        self.pid = None
        if not CAN_FORK:
            self._outcome = _run(fn, args, kwargs)
            return
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave (never returns into the parent's code)
            try:
                gc.disable()  # one piece of work, then gone: nothing for the cyclic collector to free
                os.close(read_end)
                _send(write_end, _run(fn, args, kwargs))
            finally:
                os._exit(0)
        os.close(write_end)
        self.pid, self._pipe = pid, os.fdopen(read_end, "rb")

    def result(self):
        """What the work returned; what it raised is raised here. The child is not waited for once its result is
        here: it may still be giving its memory back (a quarter of a second for a GB snapshot's objects); it is reaped
        when this process ends, or at once where it has already left."""
        if self.pid is not None:
            try:
                data = self._pipe.read()
            except BaseException:  # interrupted while waiting: the child is ended, not left to finish
                self.stop()
                raise
            self._pipe.close()
            if data:
                self._reap(wait=False)
                self._outcome = pickle.loads(data)
            else:
                self._outcome = ("error", self._ended(), "")
        kind, value, where = self._outcome
        if kind == "error":
            if where:
                value.add_note(where)
            raise value
        return value

    def stop(self) -> None:
        """End the child without waiting for its result (the parent is leaving: an error, an interrupt)."""
        if self.pid is not None:
            try:
                os.kill(self.pid, 9)
            except OSError:
                pass
            self._pipe.close()
            self._reap()

    def _ended(self) -> Exception:
        """Why the child sent no result: killed by a signal (SIGKILL: what the system's out-of-memory killer sends,
        exit 4), or ended otherwise (a bug of memprobe's: it always sends a result before it leaves)."""
        from .errors import MemprobeError, OutOfMemory

        pid, self.pid = self.pid, None
        status = os.waitpid(pid, 0)[1]
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            return OutOfMemory(
                f"the forked process (pid {pid}) was killed (SIGKILL) before it sent its result: the system's "
                "out-of-memory killer ends a process so; free memory and try again"
            )
        if os.WIFSIGNALED(status):
            return MemprobeError(
                f"the forked process (pid {pid}) ended by {signal.Signals(os.WTERMSIG(status)).name}", exit_code=3
            )
        return RuntimeError(
            f"the forked process (pid {pid}) ended (exit code {os.waitstatus_to_exitcode(status)}) without a result"
        )

    def _reap(self, wait: bool = True) -> None:
        pid, self.pid = self.pid, None
        try:
            if os.waitpid(pid, 0 if wait else os.WNOHANG)[0] == 0:  # still leaving: reaped when this process ends
                atexit.register(_reap, pid)
        except ChildProcessError:
            pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _run(fn, args, kwargs) -> tuple:
    """``("ok", result, "")``, or ``("error", exception, its traceback)`` (the traceback empty for memprobe's own
    errors, which say what to do in one line)."""
    from .errors import MemprobeError

    try:
        return "ok", fn(*args, **kwargs), ""
    except BaseException as e:  # carried to the parent, which raises it
        if isinstance(e, MemprobeError):
            return "error", e, ""
        import traceback

        return "error", e, "in the forked work: " + "".join(traceback.format_exception(e))


def _send(fd: int, outcome: tuple) -> None:
    try:
        data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # an exception that does not pickle: its text does
        data = pickle.dumps(("error", RuntimeError(f"{type(outcome[1]).__name__}: {outcome[1]}"), outcome[2] or str(e)))
    with os.fdopen(fd, "wb") as pipe:
        try:
            pipe.write(data)
        except BrokenPipeError:  # the parent stopped waiting
            pass


def forked_map(fn, calls: list[tuple]) -> list:
    """``[fn(*args) for args in calls]``, the first in this process and the others each in a forked child, all at
    once; in order. A child is forked before this process starts its own part."""
    others = [Forked(fn, *args) for args in calls[1:]]
    try:
        first = fn(*calls[0]) if calls else None
        return ([first] if calls else []) + [child.result() for child in others]
    except BaseException:
        for child in others:
            child.stop()
        raise
