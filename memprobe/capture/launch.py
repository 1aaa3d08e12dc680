"""Multi-process probes through torchrun (torch.distributed.run), and the merge of their run dirs.

``memprobe run --nproc N`` starts ``python -m torch.distributed.run --nproc-per-node N
-m memprobe.capture.rank_main ...``. Each rank runs the probe in its own process
(FSDP shards over all ranks) and writes a complete run directory ``rank<R>/``; the
parent then writes the top-level report.json: rank 0's graphs and table, the memory
figures as the max over the ranks of this node, and a per-rank table with the skew.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

from ..config import ProbeConfig
from ..errors import ConfigError, Interrupted, OutOfMemory, RunDirError, RunFailed
from .rundir import RunDir


def torchrun_command(cfg: ProbeConfig, out: Path, *, nnodes: str | None = None, rdzv_endpoint: str | None = None,
                     analysis_only: bool = False, verbose: bool = False, quiet: bool = False) -> list[str]:
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


def run_distributed(cfg: ProbeConfig, out: Path, *, progress=None, verbose: bool = False, analysis_only: bool = False,
                    nnodes: str | None = None, rdzv_endpoint: str | None = None) -> dict:
    """Launch the ranks, wait, merge. Errors: the first rank's, as one line."""
    quiet = progress is None or not getattr(progress, "enabled", True)  # --quiet / --json: the ranks print nothing
    cmd = torchrun_command(cfg, out, nnodes=nnodes, rdzv_endpoint=rdzv_endpoint, analysis_only=analysis_only,
                           verbose=verbose, quiet=quiet)
    progress = progress or (lambda msg: None)
    progress(f"launching {cfg.nproc} ranks through torchrun")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if not verbose:
        env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // cfg.nproc)))
    errors: list[str] = []
    try:
        # rank 0's progress lines go through as they come; torchrun's own chatter only with --verbose
        # (and nothing on our stdout, which may be carrying --json)
        with subprocess.Popen(cmd, env=env, stdout=sys.stderr if verbose else subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, bufsize=1) as proc:
            for line in proc.stderr:
                if _ERROR in line:
                    errors.append(_error_message(line))
                if verbose or "[rank 0]" in line:
                    sys.stderr.write(line)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; what the ranks recorded is in {out}") from None
    report = merge_rank_dirs(out, cfg)
    RunDir(out).write_report(report)
    if proc.returncode != 0 or report["status"] != "complete":
        worst = (errors[0] if errors else None) or report.get("error") or f"torchrun exited with {proc.returncode}"
        if report["status"] == "oom":
            raise OutOfMemory(f"out of memory on a rank: {worst}; partial report in {out}")
        raise RunFailed(f"a rank failed: {worst}; per-rank run dirs in {out}")
    return report


_FIGURES = {
    "parameters_bytes": lambda r: ((r.get("memory") or {}).get("persistent") or {}).get("parameters_bytes"),
    "optimizer_state_bytes": lambda r: ((r.get("memory") or {}).get("persistent") or {}).get("optimizer_state_bytes"),
    "saved_graph_bytes": lambda r: (r.get("saved_totals") or {}).get("graph_bytes"),
    "saved_runtime_bytes": lambda r: (r.get("saved_totals") or {}).get("runtime_bytes"),
}


def _phase_figures(report: dict) -> dict[str, int]:
    phases = ((report.get("memory") or {}).get("phases")) or {}
    return {f"{name}_peak_bytes": p["peak_bytes"] for name, p in phases.items() if p.get("peak_bytes") is not None}


def merge_rank_dirs(out: Path, cfg: ProbeConfig) -> dict:
    """The top-level report of a multi-rank run from ``out/rank*/report.json``."""
    from ..analysis.rundir import load_report

    ranks: dict[int, dict] = {}
    for d in sorted(out.glob("rank*")):
        if d.is_dir() and d.name[4:].isdigit():
            try:
                ranks[int(d.name[4:])] = load_report(d)
            except RunDirError:
                continue
    if 0 not in ranks:
        raise RunFailed(f"rank 0 wrote no report in {out / 'rank0'}; run with --verbose to see the ranks' output")
    merged = copy.deepcopy(ranks[0])
    for g in merged.get("graphs") or []:
        g["files"] = {k: f"rank0/{v}" for k, v in g["files"].items()}
    snap = ((merged.get("memory") or {}).get("snapshot") or {})
    if snap.get("file"):
        snap["file"] = f"rank0/{snap['file']}"
    rows = []
    for rank, rep in sorted(ranks.items()):
        figures = {name: fn(rep) for name, fn in _FIGURES.items()}
        figures.update(_phase_figures(rep))
        rows.append({"rank": rank, "status": rep["status"], "run_dir": f"rank{rank}", **figures})
    keys = [k for k in rows[0] if k.endswith("_bytes")]
    maximum, skew = {}, {}
    for k in keys:
        values = [r[k] for r in rows if isinstance(r.get(k), int)]
        if values:
            maximum[k] = max(values)
            skew[k] = max(values) - min(values)
    # the headline: every phase figure is the max over the ranks
    for name, phase in ((merged.get("memory") or {}).get("phases") or {}).items():
        for fig in [k for k in phase if k.endswith("_bytes")]:
            values = [((rep.get("memory") or {}).get("phases") or {}).get(name, {}).get(fig) for rep in ranks.values()]
            values = [v for v in values if isinstance(v, int)]
            if values:
                phase[fig] = max(values)
    statuses = [rep["status"] for rep in ranks.values()]
    status = "complete" if all(s == "complete" for s in statuses) and len(ranks) == cfg.nproc else (
        "oom" if "oom" in statuses else "interrupted" if "interrupted" in statuses else "failed")
    merged["status"] = status
    if status != "complete":
        errors = [f"rank {r}: {rep.get('error')}" for r, rep in sorted(ranks.items()) if rep.get("error")]
        missing = sorted(set(range(cfg.nproc)) - set(ranks))
        if missing:
            errors.append(f"no report from rank(s) {', '.join(map(str, missing))}")
        merged["error"] = "; ".join(errors) or None
    world = (ranks[0].get("distributed") or {}).get("world_size")
    merged["distributed"] = {
        "world_size": world,
        "nproc_per_node": cfg.nproc,
        "backend": (ranks[0].get("distributed") or {}).get("backend"),
        "launcher": "torchrun (torch.distributed.run)",
        "ranks": rows,
        "max_bytes": maximum,
        "skew_bytes": skew,
        "headline": "memory phase figures are the max over this node's ranks; graphs, output code and the "
                    "saved table are rank 0's (per-rank run dirs under rank<R>/)",
    }
    return merged


class BackgroundRun:
    """A probe run in a separate ``memprobe run`` process, while this one runs another.

    ``memprobe diff --parallel`` runs its two sides side by side this way, one core each. On the
    2-core machine it was measured on it gained nothing (the bf16 side's GEMMs want both cores);
    with more cores than one run uses, it may.
    """

    def __init__(self, cfg: ProbeConfig, out: Path, *, verbose: bool = False, analysis_only: bool = False):
        self.out = Path(out)
        cmd = [sys.executable, "-m", "memprobe", "run", *cfg.to_flags(), "--out", str(out), "--force", "-q"]
        if verbose:
            cmd.append("--verbose")
        if analysis_only:
            cmd.append("--analysis-only")
        # one intra-op thread each: two processes with a full OpenMP team each would oversubscribe the cores
        # and no pool of compile workers: the two processes are the parallelism
        env = {**os.environ, "OMP_NUM_THREADS": "1", "TORCHINDUCTOR_COMPILE_THREADS": "1"}
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)

    def wait(self) -> dict:
        from ..analysis.rundir import load_report
        from ..errors import MemprobeError

        _, err = self.proc.communicate()
        if self.proc.returncode != 0:
            line = next((_error_message(ln) for ln in err.splitlines() if _ERROR in ln), f"exited with {self.proc.returncode}")
            e = MemprobeError(line)
            e.exit_code = self.proc.returncode if self.proc.returncode in (2, 3, 4) else 3
            raise e
        return load_report(self.out)

    def cancel(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
