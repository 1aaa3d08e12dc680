"""One rank of ``memprobe run --nproc N`` (started by torchrun, not by hand)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from ..config import ProbeConfig
    from ..errors import MemprobeError
    from ..rundir.write import prepare_run_dir
    from .protocol import ERROR, PROGRESS, say
    from .runner import Probe, Recording, RunDir

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--analysis-only", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    rank = int(os.environ["RANK"])
    cfg = ProbeConfig.from_dict(json.loads(a.config))
    rank_dir = a.out / f"rank{rank}"
    # rank 0's stages, in the probe protocol: the launching process shows them as its own progress
    progress = (lambda m: say(PROGRESS + m)) if rank == 0 and not a.quiet else None
    try:
        prepare_run_dir(rank_dir, force=True)
        recording = Recording(analysis_only=a.analysis_only)
        Probe(cfg, RunDir(rank_dir), progress=progress, verbose=a.verbose, recording=recording).run()
    except MemprobeError as e:
        say(f"{ERROR}rank {rank}: {e}")
        return e.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
