"""Progress on stderr while probes work: below every layer that reports progress (the verbs, the probe process of
one rank, the orchestration), so none of them reaches up into report/ for it."""

from __future__ import annotations

import sys
import time

from rich.console import Console

from .text import markup, plain


class progress_printer:
    """Progress on stderr while a probe compiles and steps.

    On a terminal: a spinner with the current stage and its running time, and a line with the
    duration of each finished stage. Elsewhere (logs, CI): one plain line per stage with the
    elapsed time. ``enabled=False`` (--quiet, --json) prints nothing. Use it as a context manager: the
    spinner stops however the work ends.
    """

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.console = Console(stderr=True, highlight=False, soft_wrap=False)
        self.live = enabled and self.console.is_terminal
        self._stage: tuple[str, float] | None = None
        self._status = None

    def _finish_stage(self) -> None:
        if self._stage is not None:
            msg, started = self._stage
            self.console.print(f"[green]✓[/] {markup(msg)} [dim]({time.perf_counter() - started:.1f}s)[/]")
            self._stage = None

    def __call__(self, msg: str) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.live:
            print(f"{now - self.t0:6.1f}s {plain(msg)}", file=sys.stderr, flush=True)
            return
        self._finish_stage()
        self._stage = (msg, now)
        if self._status is None:
            self._status = self.console.status(markup(msg), spinner="dots")
            self._status.start()
        else:
            self._status.update(markup(msg))

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self.live:
            self._finish_stage()

    def __enter__(self) -> progress_printer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
