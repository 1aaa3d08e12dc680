"""Progress while a probe works: a spinner with stage durations on a terminal, plain lines elsewhere."""

from __future__ import annotations

import io
import re

from rich.console import Console

from memprobe.progress import progress_printer


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
