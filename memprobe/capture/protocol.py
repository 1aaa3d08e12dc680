"""How a probe's process speaks to the process that started it: one line each on stderr.

- ``memprobe: ready``: its imports are done (a held probe then waits for a line on stdin before it builds);
- ``memprobe: progress: MSG``: a stage of the run;
- ``memprobe: error: MSG`` and the error's exit code, or ``memprobe: internal error: ...`` and 70;
- ``memprobe: traceback: LINE``: a line of the traceback of that error, where the user asked for ``--debug`` (the
  parent prints it as it is, before its own);
- ``memprobe: end: TOKEN WHERE``: a user's script's measured step is recorded in its run directory (``WHERE``: its
  ``rank<R>`` folder under torchrun, else nothing), said with the token its parent gave memprobe's hooks alone: the
  script's own code, which can write report.json, cannot say it (:mod:`memprobe.orchestrate.script`);
- ``memprobe: exit: TOKEN CODE``: a verb's probe is done, its run directory written and closed, and its process
  leaves with ``CODE`` now: its parent need not wait for the process's own end (a CUDA context torn down at exit
  takes a quarter to half a second, on the critical path of every answer). Said with the token of the probe's job,
  so that no line the model prints is taken for it.

Everything else on stderr (library warnings, the model's own output) is the parent's to show or drop. While fd 2 is
hidden (the CPU profiler's chatter during a measured step: :func:`memprobe.capture.memory.CpuPhases.step`), the lines
go to the stderr it hid (:func:`speak_through`): a script's "(measured)" progress came only once its step had ended.
Spoken by :mod:`.child` (a verb's probe) and :mod:`.rank_main` (a rank under torchrun); heard by
:mod:`memprobe.orchestrate.process` and :mod:`.launch`.
"""

from __future__ import annotations

import os
import sys

READY = "memprobe: ready"
PROGRESS = "memprobe: progress: "
ERROR = "memprobe: error: "
INTERNAL = "memprobe: internal error: "
END = "memprobe: end: "
TRACEBACK = "memprobe: traceback: "
EXIT = "memprobe: exit: "


# the descriptor protocol lines go to while fd 2 is hidden (a duplicate of the stderr that was hidden), else None
_through: int | None = None


def speak_through(fd: int | None) -> None:
    """Say protocol lines through ``fd`` (the stderr fd 2 held before it was hidden) until called with None."""
    global _through
    _through = fd


def say(line: str) -> None:
    """One protocol line on stderr (newlines inside a message would split it)."""
    text = " ".join(line.split("\n")) + "\n"
    if _through is None:
        sys.stderr.write(text)
        sys.stderr.flush()
        return
    sys.stderr.flush()  # what the process wrote before stays before it
    data = text.encode(errors="replace")
    while data:
        data = data[os.write(_through, data) :]


def say_traceback(exc: BaseException) -> None:
    """The traceback of ``exc`` (its causes first, as Python prints them), a protocol line for each of its lines."""
    import traceback

    for chunk in traceback.format_exception(exc):
        for line in chunk.rstrip("\n").split("\n"):
            say(TRACEBACK + line)
