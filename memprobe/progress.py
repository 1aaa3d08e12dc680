"""Progress on stderr while probes work: below every layer that reports progress (the verbs, the probe process of
one rank, the orchestration), so none of them reaches up into report/ for it."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from rich.console import Console

from .text import markup, plain

# while nothing new is said for this long (a cold compile, a probe process importing torch, a side's environment
# check), a plain line says what is still being waited on and for how long; on a terminal the spinner's line counts
HEARTBEAT_S = 10.0
# how often the waiting is looked at (the spinner's count of seconds moves this often)
TICK_S = 1.0


class progress_printer:
    """Progress on stderr while a probe compiles and steps.

    On a terminal: a spinner with the current stage and how long it has run, and a line with the
    duration of each finished stage. Elsewhere (logs, CI): one plain line per stage with the
    elapsed time, and while a stage says nothing new, every HEARTBEAT_S seconds a line saying it
    is still being waited on. ``enabled=False`` (--quiet, --json) prints nothing. Use it as a
    context manager: the spinner and the heartbeat stop however the work ends. ``clock``: where the
    time comes from (tests pass their own, and call :meth:`beat` themselves with ``heartbeat=False``).
    """

    def __init__(self, enabled: bool = True, *, clock: Callable[[], float] = time.perf_counter, heartbeat: bool = True):
        self.enabled = enabled
        self.clock = clock
        self.t0 = clock()
        self.console = Console(stderr=True, highlight=False, soft_wrap=False)
        self.live = enabled and self.console.is_terminal
        self._stage: tuple[str, float] | None = None  # what is being waited on, since when
        self._tail: str | None = None  # the last line the user's script printed, said with what is waited on
        self._said = self.t0  # when a line was last printed (plain lines)
        self._status = None
        self._lock = threading.RLock()  # the probes' reader threads and the heartbeat print through one printer
        self._stop = threading.Event()
        self._beater: threading.Thread | None = None
        if enabled and heartbeat:
            self._beater = threading.Thread(target=self._beat_until_closed, name="memprobe-heartbeat", daemon=True)
            self._beater.start()

    def _finish_stage(self) -> None:
        if self._stage is not None:
            msg, started = self._stage
            self.console.print(f"[green]✓[/] {markup(msg)} [dim]({self.clock() - started:.1f}s)[/]")
            self._stage = None

    def __call__(self, msg: str) -> None:
        if not self.enabled:
            return
        with self._lock:
            now = self.clock()
            if not self.live:
                self._stage = (msg, now)
                self._print_plain(now, plain(msg))
                return
            self._start_stage(msg, now)

    def waiting(self, what: str) -> None:
        """What is waited on now, said only if it takes long: a plain line after HEARTBEAT_S seconds (a quick start,
        or a quick failure, prints nothing more), the spinner's line on a terminal."""
        if not self.enabled:
            return
        with self._lock:
            now = self.clock()
            if self.live:
                self._start_stage(what, now)
            else:
                self._stage = (what, now)

    def tail(self, line: str) -> None:
        """The last line the user's own script printed (its step, its loss): said with what is being waited on, on
        the spinner's line on a terminal, in the plain still-waiting line elsewhere; never a line of its own (a
        script that prints every batch would bury memprobe's own lines)."""
        if not self.enabled:
            return
        with self._lock:
            self._tail = line
            if self.live and self._status is not None and self._stage is not None:
                self._status.update(self._with_tail(markup(self._stage[0]), markup))

    def _with_tail(self, text: str, quote: Callable[[str], str]) -> str:
        return text if self._tail is None else f"{text}; the script printed: {quote(self._tail)}"

    def _start_stage(self, msg: str, now: float) -> None:
        """On a terminal: the previous stage's line with its duration, and the spinner on this one."""
        self._finish_stage()
        self._stage = (msg, now)
        if self._status is None:
            self._status = self.console.status(markup(msg), spinner="dots")
            self._status.start()
        else:
            self._status.update(markup(msg))

    def _print_plain(self, now: float, text: str) -> None:
        print(f"{now - self.t0:6.1f}s {text}", file=sys.stderr, flush=True)
        self._said = now

    def beat(self) -> None:
        """Say what is still being waited on: on a terminal the spinner's line with the seconds it has taken; elsewhere
        a plain line, once nothing has been said for HEARTBEAT_S seconds (then every HEARTBEAT_S seconds)."""
        with self._lock:
            if not self.enabled or self._stage is None:
                return
            msg, started = self._stage
            now = self.clock()
            waited = now - started
            if self.live:
                if self._status is not None and waited >= TICK_S:
                    self._status.update(self._with_tail(f"{markup(msg)} [dim]({waited:.0f}s)[/]", markup))
            elif now - self._said >= HEARTBEAT_S and waited >= HEARTBEAT_S:
                self._print_plain(now, self._with_tail(f"still waiting on {plain(msg)}: {waited:.0f}s", plain))

    def _beat_until_closed(self) -> None:
        while not self._stop.wait(TICK_S):
            self.beat()

    def close(self) -> None:
        self._stop.set()
        if self._beater is not None and self._beater is not threading.current_thread():
            self._beater.join()
        with self._lock:
            if self._status is not None:
                self._status.stop()
                self._status = None
            if self.live:
                self._finish_stage()
            self._stage = None

    def __enter__(self) -> progress_printer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def tail(progress, line: str) -> None:
    """Tell ``progress`` the last line the user's script printed (:meth:`progress_printer.tail`); nothing for a
    callable that only takes lines."""
    said = getattr(progress, "tail", None)
    if said is not None:
        said(line)


def waiting(progress, what: str) -> None:
    """Tell ``progress`` (a progress printer, or any callable that takes a line) what is waited on now: said only if
    it takes long (:meth:`progress_printer.waiting`); nothing for a callable that only takes lines."""
    wait = getattr(progress, "waiting", None)
    if wait is not None:
        wait(what)
