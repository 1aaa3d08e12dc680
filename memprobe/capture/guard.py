"""While a probe runs in this process: signals are interruptions, and the user's code cannot end the process.

Two things a probe cannot rely on the libraries it runs for:

- a signal's exception reaching the run. SIGTERM raises :class:`~memprobe.errors.Interrupted` and
  Ctrl-C ``KeyboardInterrupt``, but Dynamo wraps an exception raised inside a compiler backend into
  ``BackendCompilerFailed``, and an exception raised inside a finalizer or a callback is printed
  ("Exception ignored in ...") and dropped. :class:`RunGuard` records the signal before it raises, so
  the run is marked interrupted whatever became of the exception, and :meth:`RunGuard.check` (called
  after each step) stops a run whose interruption was swallowed;
- the process still being there. ``os._exit()`` in a model's factory or ``forward()`` would end it at
  once, with the run directory still "running" and the exit code the model chose; while the guard is
  active it raises :class:`ModelExit` instead (in this process only: a forked helper still exits).
  ``sys.exit()`` and any other ``BaseException`` of the user's are caught by the runner.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..errors import Interrupted


@contextmanager
def on_signals(handler: Callable, *signals: int) -> Iterator[None]:
    """While the block runs, ``handler`` handles ``signals`` (Python can set handlers in the main thread only: in
    another one this does nothing); the previous handlers are restored after. Every handler memprobe sets is set
    here: a probe's (:class:`RunGuard`) and an orchestrating verb's."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in signals}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


class ModelExit(SystemExit):
    """``os._exit(code)`` called by the user's code while a probe ran."""

    call = "os._exit"


def describe_exit(e: BaseException) -> str:
    """How the user's code left: ``called os._exit(0)``, ``called sys.exit(1)`` or ``raised X: msg``."""
    if isinstance(e, SystemExit):
        return f"called {getattr(e, 'call', 'sys.exit')}({e.code!r})"
    text = " ".join(str(e).split())[:200]
    return f"raised {type(e).__name__}" + (f": {text}" if text else "")


class RunGuard:
    """Context manager: SIGTERM/SIGINT recorded and raised, ``os._exit`` turned into :class:`ModelExit`."""

    def __init__(self):
        self.signum: int | None = None
        self._signals = on_signals(self._on_signal, signal.SIGTERM, signal.SIGINT)
        self._exit = None
        self._pid = os.getpid()

    def __enter__(self) -> RunGuard:
        self._signals.__enter__()
        self._exit = os._exit
        real, pid = os._exit, self._pid

        def guarded_exit(code: int = 0):
            if os.getpid() != pid:  # a child forked by a library: let it go
                real(code)
            raise ModelExit(code)

        os._exit = guarded_exit
        return self

    def __exit__(self, *exc) -> None:
        if self._exit is not None:
            os._exit = self._exit
        self._signals.__exit__(None, None, None)

    def _on_signal(self, signum, frame):
        self.signum = self.signum or signum
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Interrupted("terminated", exit_code=128 + signum)

    def interruption(self, e: BaseException | None = None) -> Interrupted | None:
        """The run's interruption, if a signal arrived (whatever became of its exception) or ``e`` is one."""
        if self.signum is None and isinstance(e, KeyboardInterrupt):
            self.signum = signal.SIGINT
        if self.signum is None and isinstance(e, Interrupted):
            self.signum = e.exit_code - 128
        if self.signum is None:
            return None
        how = "terminated (SIGTERM)" if self.signum == signal.SIGTERM else "interrupted (Ctrl-C)"
        return Interrupted(how, exit_code=128 + self.signum)

    def check(self) -> None:
        """Between steps: a signal whose exception a library swallowed stops the run here."""
        stop = self.interruption()
        if stop is not None:
            raise stop
