"""Multi-process probes through torchrun (torch.distributed.run): one run directory per rank.

``memprobe run --nproc N`` starts ``python -m torch.distributed.run --nproc-per-node N
-m memprobe.capture.rank_main ...``. Each rank runs the probe in its own process
(FSDP shards over all ranks) and records a run directory ``rank<R>/``; the reader then
analyses each and writes the top-level report.json (:mod:`memprobe.analysis.ranks`): rank 0's
graphs and table, the memory figures as the max over the ranks of this node, and a per-rank
table with the skew.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..config import ProbeConfig
from ..errors import ConfigError, Interrupted, OutOfMemory, RunDirError, RunFailed
from ..rundir.read import parse_json, read_text
from ..vocab import RunStatus
from .protocol import ERROR, PROGRESS


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


def run_distributed(
    cfg: ProbeConfig,
    out: Path,
    *,
    progress=None,
    verbose: bool = False,
    analysis_only: bool = False,
    nnodes: str | None = None,
    rdzv_endpoint: str | None = None,
) -> None:
    """Launch the ranks and wait: each records its own ``rank<R>/`` (their merge is the reader's,
    :func:`memprobe.orchestrate.finish.finish_run`). Errors: the first rank's, as one line."""
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
        # rank 0's stages are our progress as they come; torchrun's own chatter only with --verbose
        # (and nothing on our stdout, which may be carrying --json)
        with subprocess.Popen(
            cmd, env=env, stdout=sys.stderr if verbose else subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1
        ) as proc:
            for line in proc.stderr:
                if line.startswith(PROGRESS):
                    progress(f"[rank 0] {line[len(PROGRESS) :].rstrip()}")
                elif ERROR in line:
                    errors.append(line.split(ERROR, 1)[1].strip())
                if verbose and not line.startswith(PROGRESS):
                    sys.stderr.write(line)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; what the ranks recorded is in {out}") from None
    _raise_for_ranks(out, cfg.nproc, proc.returncode, errors)


def _raise_for_ranks(out: Path, nproc: int, returncode: int, errors: list[str]) -> None:
    """The error of a run whose ranks did not all complete (from what each rank's report says), or nothing."""
    ended = _rank_ends(out)
    if 0 not in ended:
        raise RunFailed(f"rank 0 wrote no report in {out / 'rank0'}; run with --verbose to see the ranks' output")
    statuses = [status for status, _ in ended.values()]
    if returncode == 0 and len(ended) == nproc and all(s == RunStatus.COMPLETE for s in statuses):
        return
    rank_errors = [f"rank {r}: {error}" for r, (_, error) in sorted(ended.items()) if error]
    missing = sorted(set(range(nproc)) - set(ended))
    if missing:
        rank_errors.append(f"no report from rank(s) {', '.join(map(str, missing))}")
    worst = (errors[0] if errors else None) or "; ".join(rank_errors) or f"torchrun exited with {returncode}"
    if RunStatus.OOM in statuses:
        raise OutOfMemory(f"out of memory on a rank: {worst}; partial report in {out}")
    raise RunFailed(f"a rank failed: {worst}; per-rank run dirs in {out}")


def _rank_ends(out: Path) -> dict[int, tuple[str, str | None]]:
    """How each rank's run ended, as its report.json says (read with bounds; a rank without a readable one is left
    out): ``{rank: (status, error)}``."""
    ended = {}
    for d in sorted(out.glob("rank*")):
        if not (d.is_dir() and d.name[4:].isdigit()):
            continue
        try:
            report = parse_json(read_text(d / "report.json", kind="report"), str(d / "report.json"))
        except RunDirError:
            continue
        if isinstance(report, dict) and isinstance(report.get("status"), str):
            error = report.get("error")
            ended[int(d.name[4:])] = (report["status"], error if isinstance(error, str) else None)
    return ended
