"""Hostile snapshots: what memprobe's bounded loading costs, measured (the tests only check the behaviour).

1. A 9-byte pickle whose LONG_BINPUT asks for a memo of 2**28 entries: the peak memory a fresh process gains
   while ``load_snapshot`` refuses it (an unbounded load took 2.1 GB; the bound in the tests was 300 MiB).
2. A run directory whose snapshot.pickle holds shared nested lists (a few bytes pickled, 2**40 items as text):
   the wall time and peak memory of ``memprobe report`` on it (the tests' bound was 60 s).

    python bench/hostile_snapshots.py            # prints one JSON object
"""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(Path(__file__).parent)]

from _proc import measure  # noqa: E402
from test_untrusted import ROWWISE, _nested_frame_snapshot, memo_bomb  # noqa: E402

_GROWTH = r"""
import resource, sys
from memprobe.analysis.snapshot import SnapshotError, load_snapshot
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    load_snapshot(sys.argv[1])
    refused = False
except SnapshotError:
    refused = True
print(refused, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        out = subprocess.run(
            [sys.executable, "-c", _GROWTH, str(memo_bomb(tmp / "memo.pickle"))], capture_output=True, text=True, cwd=ROOT
        )
        if out.returncode != 0:
            raise SystemExit(out.stderr[-2000:])
        refused, grown = out.stdout.split()
        run = tmp / "run"
        shutil.copytree(ROWWISE, run)
        (run / "snapshot.pickle").write_bytes(pickle.dumps(_nested_frame_snapshot()))
        report = measure([sys.executable, "-m", "memprobe", "report", str(run), "-o", str(tmp / "x.html")], cwd=str(ROOT))
    print(
        json.dumps(
            {
                "memo_bomb": {"refused": refused == "True", "peak_rss_growth_bytes": int(grown)},
                "nested_lists_report": report,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
