"""The measured step's CPU profile (capture/memory.py): counted in its file's bytes before it is read, so that a step
of millions of allocations is refused in one line instead of being read until the out-of-memory killer ends the run."""

import json

import pytest

from memprobe.capture import fits, memory
from memprobe.errors import RunFailed


def _trace(path, allocations: int, ops: int) -> None:
    """A chrome trace as torch's profiler writes it: memory events and cpu ops (the fields memprobe reads)."""
    events = [
        {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "ts": i, "args": {"Bytes": 64, "Total Allocated": 64}}
        for i in range(allocations)
    ]
    events += [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": i, "dur": 1} for i in range(ops)]
    path.write_text(json.dumps({"traceEvents": events}, indent=1))


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 24])
def test_a_needle_across_two_chunks_is_counted_once(tmp_path, chunk):
    path = tmp_path / "t.json"
    _trace(path, 37, 11)
    text = path.read_bytes()
    got = memory._occurrences(str(path), (b'"[memory]"', b'"ph"'), chunk=chunk)
    assert got == [text.count(b'"[memory]"'), text.count(b'"ph"')] == [37, 48]


def test_a_trace_of_more_allocations_than_the_bound_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    _trace(path, 30, 5)
    monkeypatch.setenv("MEMPROBE_MAX_EVENTS", "30")
    memory._check_trace(str(path))  # at the bound: read
    monkeypatch.setenv("MEMPROBE_MAX_EVENTS", "29")
    with pytest.raises(RunFailed) as e:
        memory._check_trace(str(path))
    assert str(e.value).startswith("the measured step made 30 allocations and frees on the CPU (35 profiler events)")
    assert "(at most 29; MEMPROBE_MAX_EVENTS raises it): measure a step of fewer ops" in str(e.value)
    assert e.value.exit_code == 3


def test_a_trace_whose_reading_needs_more_memory_than_is_available_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    _trace(path, 10, 10)
    size = path.stat().st_size
    enough = int(memory.TRACE_LOAD_FACTOR * size / memory.TRACE_LOAD_SHARE) + 1
    monkeypatch.setattr(fits, "host_available_bytes", lambda: enough)
    memory._check_trace(str(path))
    monkeypatch.setattr(fits, "host_available_bytes", lambda: enough - 2)
    with pytest.raises(RunFailed, match=r"reading the measured step's CPU profile \(20 events, .* of trace\) needs about"):
        memory._check_trace(str(path))
    monkeypatch.setattr(fits, "host_available_bytes", lambda: None)  # a system that does not say: read
    memory._check_trace(str(path))


_HIDDEN = r"""
import os, sys
from memprobe.capture.memory import _silenced_stderr
from memprobe.capture.protocol import PROGRESS, say

with _silenced_stderr(True):
    os.write(2, b"[W CPUAllocator.cpp:245] Memory block of unknown size was allocated before the profiling started\n")
    print("the model's own warning", file=sys.stderr)
    say(PROGRESS + "step 2/2 (measured)")
    sys.stdin.readline()  # the step goes on until the parent has heard the line
say(PROGRESS + "after")
"""


def test_memprobes_lines_pass_while_the_profilers_chatter_is_hidden():
    """During a measured CPU step fd 2 is hidden (the profiler's warnings); memprobe's protocol lines still reach the
    parent as they are said (a script's "(measured)" progress arrived once its 200 s step had ended), and what else
    the step wrote follows once the profiler stops, its noise dropped. The child waits for the parent to hear the
    line: held back, this would hang until the harness's timeout."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _HIDDEN], stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr.readline() == "memprobe: progress: step 2/2 (measured)\n"
    proc.stdin.write("go\n")
    proc.stdin.close()
    rest = proc.stderr.read().splitlines()
    assert proc.wait() == 0 and rest == ["the model's own warning", "memprobe: progress: after"], rest
