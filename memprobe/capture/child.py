"""One probe in a process of its own: what the orchestrating verbs start for each side, trial or probe.

Started by :mod:`memprobe.orchestrate.process` as ``python -m memprobe.capture.child --job JSON``, or
(a CPU probe) forked from a fork server that already imported torch (:mod:`.forkserver`), which then runs
:func:`main` as this module would; not meant to be run by hand. It speaks to its parent in the lines of
:mod:`.protocol`; with ``"hold": true`` in the job it waits, once ready, for a line on stdin before it builds anything
(the parent lets the next probe import while the current one runs, and starts it only when that
one is finished: probes never overlap). The run directory in the job is recorded as by
``memprobe run``; the parent analyses it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ..vocab import Recipe
from .protocol import ERROR, EXIT, INTERNAL, PROGRESS, READY, say, say_traceback


def import_what_probes_use() -> None:
    """What every probe imports before it builds (a fork server, :mod:`.forkserver`, imports it once for all the
    probes it forks). Not torchao: a bf16 probe never imports it."""
    import torch  # noqa: F401
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401
    from torch.distributed.fsdp import fully_shard  # noqa: F401

    from ..rundir.write import prepare_checks
    from . import runner  # noqa: F401

    prepare_checks()  # the validators of report.json and the graph files, where pydantic is installed


def ask_the_cpu_toolchain() -> None:
    """Which vector instructions Inductor's C++ kernels may use on this CPU: Inductor asks once per process, on its
    first CPU kernel (a cached one too), by building a test library and loading it in a fresh interpreter per
    instruction set (1.3 CPU-seconds on the 2-core CPU). A fork server asks once for all its probes: the answer
    depends on the CPU, the compiler and the environment, never on a probe; nothing of a probe's is compiled and
    nothing is allocated."""
    try:
        from torch._inductor.cpu_vec_isa import valid_vec_isa_list
    except ImportError:  # a torch without it: each probe asks
        return
    valid_vec_isa_list()


def ask_the_source_hashes() -> None:
    """The hashes of torch's and Triton's installed sources that every key of Inductor's caches includes: Inductor
    computes each once per process, at its first cache lookup, by reading those packages' files (0.7 CPU-seconds on
    the 2-core CPU with Triton installed). A fork server computes them once for all its probes: they depend on the
    installed packages only, never on a probe; nothing is compiled, nothing allocated, no device asked (not
    ``CacheBase.get_system``, which asks CUDA for its device)."""
    try:
        from torch._inductor import codecache
    except ImportError:  # a torch without it: each probe computes them
        return
    for name in ("torch_key", "triton_key"):
        key = getattr(codecache, name, None)
        try:
            if callable(key):
                key()
        except Exception:  # a broken Triton, say: the probe meets it at its own lookup and says so in its own words
            pass


def _prewarm(recipe: str, warm_compile: bool) -> None:
    """Import what a probe needs, so that a held child is ready to run at once."""
    import_what_probes_use()
    if warm_compile:
        _warm_compile()

    if recipe != Recipe.BF16:
        try:
            import torchao.float8  # noqa: F401
        except ImportError:  # the run says so in its own words
            pass


def _warm_compile() -> None:
    """The first compile in a process pays for lazy initialisation (codegen modules, the C++ toolchain
    probe, Inductor's caches); a held child pays it with a throwaway compile on the CPU while the
    previous probe still runs. It allocates a few KiB on the CPU, frees them, and resets Dynamo; the
    probe's own compile and its measured step come later (the device is not touched)."""
    import torch

    def f(x, w):
        return torch.nn.functional.silu(x @ w).float().pow(2).mean()

    g = torch.compile(f, fullgraph=True)
    x = torch.randn(16, 16, dtype=torch.bfloat16)
    w = torch.randn(16, 16, dtype=torch.bfloat16, requires_grad=True)
    g(x, w).backward()
    torch._dynamo.reset()


def main(argv: list[str] | None = None) -> int:
    """The probe, then its exit code said (:data:`.protocol.EXIT`): what it wrote is complete, and its parent goes on
    while this process ends (its CUDA context's teardown included)."""
    job, refused = _job(sys.argv[1:] if argv is None else argv)
    code = refused if refused is not None else _probe(job)
    sys.stdout.flush()
    token = job.get("token") if isinstance(job, dict) else None
    if isinstance(token, str) and token.isalnum():  # with the token its parent gave: nothing the model prints can say it
        say(f"{EXIT}{token} {code}")
    return code


def _job(argv: list[str]) -> tuple[object, int | None]:
    """The job its parent gave (``--job JSON``, parsed once, whatever it holds: :func:`_probe` checks it), or the exit
    code of a command line that gives none."""
    if len(argv) != 2 or argv[0] != "--job":
        print("usage: python -m memprobe.capture.child --job JSON (started by memprobe, not by hand)", file=sys.stderr)
        return None, 2
    try:
        return json.loads(argv[1]), None
    except ValueError as e:
        say(INTERNAL + f"a bad job for a probe process: {type(e).__name__}: {e}")
        return None, 70


def _probe(job) -> int:
    from ..errors import MemprobeError

    try:
        from ..config import ProbeConfig

        cfg = ProbeConfig.from_dict(job["config"])
        out = Path(job["out"])
    except MemprobeError as e:
        say(ERROR + str(e))
        return e.exit_code
    except (ValueError, KeyError, TypeError) as e:
        say(INTERNAL + f"a bad job for a probe process: {type(e).__name__}: {e}")
        return 70
    try:
        from ..compat.quiet import quiet_logs
        from .caches import use_compile_cache
        from .process_info import apply_compile_threads, note_wait

        use_compile_cache()  # before torch is imported: Inductor's compile workers inherit it
        quiet_logs(bool(job.get("verbose")))
        try:
            apply_compile_threads()  # before the warm-up compile starts the workers
            _prewarm(cfg.recipe, warm_compile=bool(job.get("hold")))
        except ImportError as e:
            say(ERROR + f"this Python ({sys.executable}) cannot import what a probe needs: {e}")
            return 2
        say(READY)
        if job.get("hold"):
            t0 = time.perf_counter()
            if not sys.stdin.readline():
                return 130  # the parent went away before this probe's turn
            note_wait(time.perf_counter() - t0)
        from ..rundir.write import prepare_run_dir
        from .runner import Recording, run_probe

        prepare_run_dir(out, force=False)
        run_probe(
            cfg,
            out,
            progress=lambda msg: say(PROGRESS + msg),
            verbose=bool(job.get("verbose")),
            recording=Recording(analysis_only=bool(job.get("analysis_only")), measure=job.get("measure")),
        )
    except KeyboardInterrupt:
        say(ERROR + f"interrupted; what was recorded is in {out}")
        return 130
    except Exception as e:
        return _failed(e, job)
    return 0


def _failed(e: Exception, job: dict) -> int:
    """The error that ended the probe, said to the parent (with its traceback where the user asked for ``--debug``:
    the model's own frames are its cause's): its exit code. Not a MemprobeError: a bug of memprobe's, exit 70."""
    from ..errors import MemprobeError

    if job.get("debug") or (job.get("verbose") and not isinstance(e, MemprobeError)):
        say_traceback(e)
    if isinstance(e, MemprobeError):
        say(ERROR + str(e))
        return e.exit_code
    first = (str(e).splitlines() or [""])[0]
    say(INTERNAL + f"{type(e).__name__}: {first}")
    return 70


def _exit(code: int) -> None:
    """Leave without the interpreter's teardown (~0.9 s with torch loaded, on the critical path of every
    probe): the run directory is written and closed; Inductor's compile workers notice their parent is
    gone and end themselves."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit(main())
