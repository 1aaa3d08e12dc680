"""Multi-process probes through torchrun (torch.distributed.run), and the merge of their run dirs.

``memprobe run --nproc N`` starts ``python -m torch.distributed.run --nproc-per-node N
-m memprobe.capture.rank_main ...``. Each rank runs the probe in its own process
(FSDP shards over all ranks) and writes a complete run directory ``rank<R>/``; the
parent then writes the top-level report.json: rank 0's graphs and table, the memory
figures as the max over the ranks of this node, and a per-rank table with the skew.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..analysis.ranks import merge_rank_dirs
from ..config import ProbeConfig
from ..errors import ConfigError, Interrupted, OutOfMemory, RunFailed
from .rundir import RunDir


def launched_by_torchrun() -> bool:
    """True in a worker that torchrun (torch.distributed.run) started (no torch needed to tell)."""
    return "TORCHELASTIC_RUN_ID" in os.environ and "RANK" in os.environ and "WORLD_SIZE" in os.environ


def torchrun_command(
    cfg: ProbeConfig,
    out: Path,
    *,
    nnodes: str | None = None,
    rdzv_endpoint: str | None = None,
    analysis_only: bool = False,
    verbose: bool = False,
    quiet: bool = False,
) -> list[str]:
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={cfg.nproc}"]
    if rdzv_endpoint:
        cmd += [f"--nnodes={nnodes or 1}", "--rdzv-backend=c10d", f"--rdzv-endpoint={rdzv_endpoint}"]
    elif nnodes not in (None, "1", "1:1"):
        raise ConfigError("--nnodes needs --rdzv-endpoint HOST:PORT (the node all ranks meet at)")
    else:
        cmd.append("--standalone")
    cmd += ["-m", "memprobe.capture.rank_main", "--out", str(out), "--config", json.dumps(cfg.to_dict())]
    if analysis_only:
        cmd.append("--analysis-only")
    if verbose:
        cmd.append("--verbose")
    if quiet:
        cmd.append("--quiet")
    return cmd


_ERROR = "memprobe: error:"  # how a memprobe process states its one-line error on stderr


def _error_message(line: str) -> str:
    return line.split(_ERROR, 1)[1].strip()


def run_distributed(
    cfg: ProbeConfig,
    out: Path,
    *,
    progress=None,
    verbose: bool = False,
    analysis_only: bool = False,
    nnodes: str | None = None,
    rdzv_endpoint: str | None = None,
) -> dict:
    """Launch the ranks, wait, merge. Errors: the first rank's, as one line."""
    quiet = progress is None or not getattr(progress, "enabled", True)  # --quiet / --json: the ranks print nothing
    cmd = torchrun_command(
        cfg, out, nnodes=nnodes, rdzv_endpoint=rdzv_endpoint, analysis_only=analysis_only, verbose=verbose, quiet=quiet
    )
    progress = progress or (lambda msg: None)
    progress(f"launching {cfg.nproc} ranks through torchrun")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if not verbose:
        env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // cfg.nproc)))
    errors: list[str] = []
    try:
        # rank 0's progress lines go through as they come; torchrun's own chatter only with --verbose
        # (and nothing on our stdout, which may be carrying --json)
        with subprocess.Popen(
            cmd, env=env, stdout=sys.stderr if verbose else subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1
        ) as proc:
            for line in proc.stderr:
                if _ERROR in line:
                    errors.append(_error_message(line))
                if verbose or "[rank 0]" in line:
                    sys.stderr.write(line)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; what the ranks recorded is in {out}") from None
    report = merge_rank_dirs(out, cfg.nproc)
    RunDir(out).write_report(report)
    if proc.returncode != 0 or report["status"] != "complete":
        worst = (errors[0] if errors else None) or report.get("error") or f"torchrun exited with {proc.returncode}"
        if report["status"] == "oom":
            raise OutOfMemory(f"out of memory on a rank: {worst}; partial report in {out}")
        raise RunFailed(f"a rank failed: {worst}; per-rank run dirs in {out}")
    return report
