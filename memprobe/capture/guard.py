"""While a probe runs in this process: signals are interruptions, and the user's code cannot end the process.

Two things a probe cannot rely on the libraries it runs for:

- a signal's exception reaching the run. SIGTERM raises :class:`~memprobe.errors.Interrupted` and
  Ctrl-C ``KeyboardInterrupt``, but Dynamo wraps an exception raised inside a compiler backend into
  ``BackendCompilerFailed``, and an exception raised inside a finalizer or a callback is printed
  ("Exception ignored in ...") and dropped. :class:`RunGuard` records the signal before it raises, so
  the run is marked interrupted whatever became of the exception, and :meth:`RunGuard.check` (called
  after each step) stops a run whose interruption was swallowed;
- the process still being there, and still memprobe's. ``os._exit()`` in a model's factory or ``forward()`` would
  end it at once, with the run directory still "running" and the exit code the model chose, and ``os.execv()``
  (any of the ``os.exec*`` functions) would replace it with another program; while the guard is active each raises
  :class:`ModelExit` instead (in this process only: a forked helper still exits or execs). ``os._exit()`` in a
  thread of the model's ends that thread only, and is the run's failure at the end of the step (:meth:`RunGuard.check`).
  ``sys.exit()`` and any other ``BaseException`` of the user's are caught by the runner;
- its own signal handlers. A model that sets SIGINT or SIGTERM to ``SIG_IGN`` (or its own handler) at import, in its
  factory or in a step would make Ctrl-C and SIGTERM do nothing: :meth:`RunGuard.reclaim` sets memprobe's handlers
  again after the model's import and factory, and before each step.
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
    """``os._exit(code)`` (or ``os.execv(path, ...)``: ``call``) called by the user's code while a probe ran; ``thread``:
    the name of the thread that called it, when it was not the main thread, and ``phase`` the phase it was in."""

    call = "os._exit"
    thread: str | None = None
    phase: str | None = None


def describe_exit(e: BaseException) -> str:
    """How the user's code left: ``called os._exit(0)``, ``called sys.exit(1)`` or ``raised X: msg``."""
    if isinstance(e, SystemExit):
        code = e.code if not isinstance(e.code, str) else " ".join(e.code.split())[:200]
        thread = getattr(e, "thread", None)
        return f"called {getattr(e, 'call', 'sys.exit')}({code!r})" + (f" in its thread {thread!r}" if thread else "")
    text = " ".join(str(e).split())[:200]
    return f"raised {type(e).__name__}" + (f": {text}" if text else "")


# the functions that replace the process with another program (os.execl, execle, execlp, execlpe, execvp and execvpe
# call these two)
_EXEC = ("execv", "execve")


class RunGuard:
    """Context manager: SIGTERM/SIGINT recorded and raised, ``os._exit`` and ``os.exec*`` turned into :class:`ModelExit`.
    ``phase()``: the phase the probe is in (named in a thread's exit)."""

    def __init__(self, phase: Callable[[], str | None] = lambda: None):
        self.signum: int | None = None
        self.phase = phase
        self.thread_exit: ModelExit | None = None  # os._exit called in a thread of the model's
        self._signals = on_signals(self._on_signal, signal.SIGTERM, signal.SIGINT)
        self._saved: dict[str, Callable] = {}
        self._excepthook = None
        self._pid = os.getpid()

    def __enter__(self) -> RunGuard:
        self._signals.__enter__()
        self._saved = {name: getattr(os, name) for name in ("_exit", *_EXEC)}
        real_exit, pid, guard = os._exit, self._pid, self

        def guarded_exit(code: int = 0):
            if os.getpid() != pid:  # a child forked by a library: let it go
                real_exit(code)
            e = ModelExit(code)
            if threading.current_thread() is not threading.main_thread():
                e.thread, e.phase = threading.current_thread().name, guard.phase()
                guard.thread_exit = guard.thread_exit or e
            raise e

        def guarded(name: str):
            real = self._saved[name]

            def guarded_exec(path, *args, **kwargs):
                if os.getpid() != pid:  # a forked child that execs a helper: its own business
                    return real(path, *args, **kwargs)
                e = ModelExit(os.fsdecode(path) if isinstance(path, (str, bytes)) else repr(path))
                e.call = f"os.{name}"
                raise e

            return guarded_exec

        os._exit = guarded_exit
        for name in _EXEC:
            setattr(os, name, guarded(name))
        self._excepthook = threading.excepthook
        previous_hook = self._excepthook

        def quiet_model_exit(args):  # the thread's os._exit is the run's failure, said once: no traceback
            if not isinstance(args.exc_value, ModelExit):
                previous_hook(args)

        threading.excepthook = quiet_model_exit
        return self

    def __exit__(self, *exc) -> None:
        for name, real in self._saved.items():
            setattr(os, name, real)
        self._saved = {}
        if self._excepthook is not None:
            threading.excepthook = self._excepthook
            self._excepthook = None
        self._signals.__exit__(None, None, None)

    def reclaim(self) -> None:
        """memprobe's handlers for SIGTERM and SIGINT again, whatever the user's code set meanwhile (``SIG_IGN`` at
        import would make Ctrl-C do nothing); in the main thread only, as Python allows."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGTERM, signal.SIGINT):
            if signal.getsignal(signum) != self._on_signal:
                signal.signal(signum, self._on_signal)

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
        """Between steps: a signal whose exception a library swallowed stops the run here, and an ``os._exit`` a thread
        of the model's called fails it."""
        stop = self.interruption()
        if stop is not None:
            raise stop
        if self.thread_exit is not None:
            raise self.thread_exit
