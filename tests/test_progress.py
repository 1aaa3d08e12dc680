"""Progress while a probe works: a spinner with stage durations on a terminal, plain lines elsewhere."""

from __future__ import annotations

import io
import re

from rich.console import Console

from memprobe.progress import progress_printer, waiting


def test_terminal_progress_reports_each_finished_stage_with_its_duration():
    p = progress_printer(enabled=True)
    buf = io.StringIO()
    p.console = Console(file=buf, force_terminal=True, width=100, highlight=False)
    p.live = True
    p("building the model")
    p("step 1/3 (compiling)")
    p.close()
    out = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buf.getvalue())
    assert "✓ building the model" in out and "✓ step 1/3 (compiling)" in out
    assert out.index("✓ building the model") < out.index("✓ step 1/3 (compiling)") and "s)" in out


def test_plain_lines_when_not_a_terminal_and_nothing_when_quiet(capsys):
    p = progress_printer(enabled=True)
    p.live = False
    p("building the model")
    p.close()
    err = capsys.readouterr().err
    assert err.strip().endswith("s building the model") and "\x1b[" not in err
    q = progress_printer(enabled=False)
    q("anything")
    q.close()
    assert capsys.readouterr().err == ""


# -- the heartbeat: a long silent wait says what it waits on, on a clock the test moves -----------------------------


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _plain(clock: _Clock) -> progress_printer:
    p = progress_printer(enabled=True, clock=clock, heartbeat=False)
    p.live = False
    return p


def test_a_long_silent_stage_is_said_every_heartbeat(capsys):
    from memprobe.progress import HEARTBEAT_S

    clock = _Clock()
    p = _plain(clock)
    p("[a] step 1/2 (compiling)")
    clock.now += HEARTBEAT_S - 0.5
    p.beat()
    assert capsys.readouterr().err.count("\n") == 1  # the stage's own line only
    for waited in (HEARTBEAT_S, 2 * HEARTBEAT_S):
        clock.now = 100.0 + waited
        p.beat()
        p.beat()  # a second look within the same beat says nothing more
        assert capsys.readouterr().err == f"{waited:6.1f}s still waiting on [a] step 1/2 (compiling): {waited:.0f}s\n"
    p("[a] step 2/2 (measured)")  # something new: the count starts again
    clock.now += HEARTBEAT_S / 2
    p.beat()
    p.close()
    assert "still waiting" not in capsys.readouterr().err


def test_a_wait_is_said_only_when_it_takes_long(capsys):
    from memprobe.progress import HEARTBEAT_S, waiting

    clock = _Clock()
    p = _plain(clock)
    waiting(p, "[a] the probe process to start")
    clock.now += 2
    p.beat()
    p("[a] building the model")  # it started quickly: the wait was never printed
    err = capsys.readouterr().err
    assert "probe process to start" not in err and err.endswith("s [a] building the model\n")
    waiting(p, "each side's interpreter, asked what it can run")
    clock.now += HEARTBEAT_S
    p.beat()
    assert capsys.readouterr().err.endswith("s still waiting on each side's interpreter, asked what it can run: 10s\n")
    waiting(print, "a callable that only takes lines is told nothing")  # (MCP's progress, bisect's filter)
    assert capsys.readouterr().out == ""


def test_a_scripts_last_printed_line_is_said_with_what_is_waited_on(capsys):
    """A script that prints its steps: the last line it printed rides on the still-waiting line (and the spinner's),
    never a line of its own; markup in it is shown, not rendered."""
    from memprobe.progress import HEARTBEAT_S, tail

    clock = _Clock()
    p = _plain(clock)
    waiting(p, "[script] running python train.py")
    tail(p, "step 3 loss 2.1")
    tail(p, "step 4 loss 1.9 [/]")
    assert capsys.readouterr().err == ""  # a printed line alone prints nothing
    clock.now += HEARTBEAT_S
    p.beat()
    err = capsys.readouterr().err
    assert err.endswith("still waiting on [script] running python train.py: 10s; the script printed: step 4 loss 1.9 [/]\n")
    terminal = progress_printer(enabled=True, clock=clock, heartbeat=False)
    terminal.console = Console(file=io.StringIO(), force_terminal=True, width=200, highlight=False)
    terminal.live = True
    terminal("[script] step 1/2 (compiling)")
    tail(terminal, "epoch 0 batch 7")
    assert terminal._status.renderable.text.plain == "[script] step 1/2 (compiling); the script printed: epoch 0 batch 7"
    terminal.close()


def test_on_a_terminal_the_spinners_line_counts_the_seconds():
    clock = _Clock()
    p = progress_printer(enabled=True, clock=clock, heartbeat=False)
    p.console = Console(file=io.StringIO(), force_terminal=True, width=100, highlight=False)
    p.live = True
    p("[a] step 1/2 (compiling)")
    clock.now += 23
    p.beat()
    assert p._status.renderable.text.plain == "[a] step 1/2 (compiling) (23s)"
    p.close()


def test_the_heartbeat_stops_with_the_printer():
    import threading

    with progress_printer(enabled=True) as p:
        assert any(t.name == "memprobe-heartbeat" for t in threading.enumerate())
    assert not p._beater.is_alive()
    assert progress_printer(enabled=False)._beater is None  # --quiet, --json: no thread at all


def test_probes_say_what_their_start_waits_on(tmp_path, monkeypatch):
    """run_jobs names each probe's start as what is waited on, before the probe says anything itself."""
    from memprobe.config import ProbeConfig
    from memprobe.orchestrate import process

    heard: list[tuple[str, str]] = []

    class Progress:
        def __call__(self, msg: str) -> None:
            heard.append(("said", msg))

        def waiting(self, what: str) -> None:
            heard.append(("waiting", what))

    class FakeProbe:  # a probe process that speaks one line and ends
        def __init__(self, job, *, progress, hold, gpu=None, **_kw):
            self.job, self.progress, self.gpu, self.hold = job, progress, gpu, hold

        def release(self) -> None:
            pass

        def wait(self):
            self.progress(f"[{self.job.label}] building")
            return f"report of {self.job.label}"

        def stop(self) -> None:
            pass

    monkeypatch.setattr(process, "ChildProbe", FakeProbe)
    jobs = [process.ProbeJob(label, ProbeConfig(device="cpu"), tmp_path / label) for label in ("a", "b")]
    assert process.run_jobs(jobs, progress=Progress()) == {"a": "report of a", "b": "report of b"}
    for label in ("a", "b"):
        assert heard.index(("waiting", f"[{label}] the probe process to start")) < heard.index(("said", f"[{label}] building"))
