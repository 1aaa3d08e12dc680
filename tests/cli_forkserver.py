"""The test suite's fork server, of probes and of ``memprobe`` commands: ``python tests/cli_forkserver.py SOCKET``.

The suite runs about ninety ``memprobe`` commands in processes of their own (:func:`conftest.run_cli`), and their
probes, and each would import torch, Dynamo and Inductor on its own: 3 to 5 CPU-seconds apiece, a quarter of the
suite's CPU time on 2 cores. This server is memprobe's own fork server (:func:`memprobe.capture.forkserver.serve`)
with two programs: memprobe's probe (what a verb's probes ask for through MEMPROBE_FORKSERVER) and the ``memprobe``
command (what :func:`conftest.start_cli` asks for). One runs per session, started by the pytest-xdist controller
(:func:`conftest.pytest_configure`) and shared by its workers: it imports what commands and probes use once and forks
each from that process, before anything is compiled, allocated or seeded; a forked command runs exactly what the
``memprobe`` console script runs (its process, its exit without the interpreter's teardown). The server refuses a
process whose environment differs in what torch reads at import, and a test that needs a fresh interpreter asks for
one (``run_cli(..., fresh=True)``, e.g. the A/A test of a forked probe against a fresh one): those start ``memprobe``
as a user does.
"""

from __future__ import annotations

import sys
from pathlib import Path

COMMAND_PROGRAM = "memprobe"  # what a request names to run a memprobe command (probes: memprobe's PROBE_PROGRAM)


def preload() -> None:
    """What every command imports before it parses its arguments, what a probe imports, and transformers' models:
    neither sets an environment variable nor starts a thread (a command that uses none of it is as a fresh one)."""
    from memprobe.capture.forkserver import preload_probes

    preload_probes()
    import memprobe.cli.main  # noqa: F401
    import memprobe.orchestrate.process  # noqa: F401
    import memprobe.verbs  # noqa: F401

    try:  # the Hugging Face models the suite builds (2 CPU-seconds a command); nothing of them runs here
        import transformers.models.auto.modeling_auto  # noqa: F401
        import transformers.models.gpt2.modeling_gpt2  # noqa: F401
        import transformers.models.llama.modeling_llama  # noqa: F401
        import transformers.models.qwen2.modeling_qwen2  # noqa: F401
    except ImportError:  # no [hf] extra: those tests skip
        pass


def main(argv: list[str]) -> int:
    """The ``memprobe`` console script with ``argv``, as a fresh one would start (its path first on sys.path)."""
    from memprobe.cli.main import main as memprobe

    script = Path(sys.executable).parent / "memprobe"
    sys.argv = [str(script), *argv]
    sys.path[0] = str(script.parent)
    try:
        memprobe()  # a command that ran a model leaves from inside (os._exit), as the console script does
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    from memprobe.capture import child
    from memprobe.capture.forkserver import PROBE_PROGRAM, serve

    sys.exit(serve(sys.argv[1], preload=preload, programs={PROBE_PROGRAM: child, COMMAND_PROGRAM: sys.modules[__name__]}))
