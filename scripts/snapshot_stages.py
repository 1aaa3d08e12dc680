"""When each stage of `memprobe show|report SNAPSHOT` begins and ends, in which process: the command in one process,
its functions wrapped to print a line on stderr (seconds since this script started, the process id, the stage).

    python scripts/snapshot_stages.py show long.pickle --json > /dev/null
    python scripts/snapshot_stages.py report long.pickle -o long.html --force

The verb reads the snapshot in a forked process (memprobe/forked.py), which checks its trace and follows its
timeline in parts, each forked again; each line says whose it is. The record's and the page's modules are imported
before the command begins (their functions wrapped): the stages time the reading, not the verb's own imports. Used
for docs/benchmarks.md's stages of a real snapshot.
"""

from __future__ import annotations

import os
import sys
import time

T0 = time.perf_counter()


def say(what: str) -> None:
    print(f"[stages] {time.perf_counter() - T0:6.3f} s  pid {os.getpid()}  {what}", file=sys.stderr, flush=True)


def wrap(module, name: str, label: str | None = None) -> None:
    inner = getattr(module, name, None)
    if inner is None:  # an older checkout's stages: those it has
        return

    def timed(*args, **kwargs):
        say(f"{label or name} begins")
        try:
            return inner(*args, **kwargs)
        finally:
            say(f"{label or name} ends")

    setattr(module, name, timed)


def main() -> None:
    import memprobe.analysis.snapshot_read as read
    import memprobe.forked as forked

    wrap(read, "load_snapshot", "load")
    wrap(read, "trace_events", "trace checks and block sizes")
    wrap(read, "blocks_before", "blocks alive before the recording")
    wrap(read, "timeline_series", "timeline")
    wrap(read, "_replay", "replay")
    wrap(read, "_alive_after", "alive at the peak")
    wrap(read, "_alive_at", "blocks alive where each part starts")
    wrap(read, "_part", "a part of the timeline")
    import memprobe.analysis.user_snapshot as record
    import memprobe.report.pages as pages

    wrap(record, "analysed", "the record made")
    wrap(pages, "write_snapshot_pages", "the page written")
    result = forked.Forked.result

    def waited(self):
        say("waiting for a forked process")
        try:
            return result(self)
        finally:
            say("its result is here")

    forked.Forked.result = waited
    say("memprobe imported for timing; the command begins")
    from memprobe.cli.main import main as memprobe

    sys.argv = ["memprobe", *sys.argv[1:]]
    try:
        memprobe()
    finally:
        say("the command ends")


if __name__ == "__main__":
    main()
