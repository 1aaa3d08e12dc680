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

Everything else on stderr (library warnings, the model's own output) is the parent's to show or drop.
Spoken by :mod:`.child` (a verb's probe) and :mod:`.rank_main` (a rank under torchrun); heard by
:mod:`memprobe.orchestrate.process` and :mod:`.launch`.
"""

from __future__ import annotations

import sys

READY = "memprobe: ready"
PROGRESS = "memprobe: progress: "
ERROR = "memprobe: error: "
INTERNAL = "memprobe: internal error: "
END = "memprobe: end: "
TRACEBACK = "memprobe: traceback: "
EXIT = "memprobe: exit: "


def say(line: str) -> None:
    """One protocol line on stderr (newlines inside a message would split it)."""
    sys.stderr.write(" ".join(line.split("\n")) + "\n")
    sys.stderr.flush()


def say_traceback(exc: BaseException) -> None:
    """The traceback of ``exc`` (its causes first, as Python prints them), a protocol line for each of its lines."""
    import traceback

    for chunk in traceback.format_exception(exc):
        for line in chunk.rstrip("\n").split("\n"):
            say(TRACEBACK + line)
