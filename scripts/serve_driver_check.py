"""Which of a resident fork server's imports loads the CUDA driver (libcuda) or starts it (its threads, named
``cuda...``: ``cuInit`` ran), and how long each takes: the steps of
memprobe.capture.forkserver.preload_probes(torchao=True), one after the other in this process, each followed by
:func:`memprobe.capture.forkserver.cuda_state`. A server whose imports start the driver cannot fork CUDA probes.

    python scripts/serve_driver_check.py
    PYTORCH_NVML_BASED_CUDA_CHECK=1 python scripts/serve_driver_check.py   # as the server imports on a GPU machine
"""

from __future__ import annotations

import glob
import os
import time
from pathlib import Path


def step(name, fn) -> None:
    from memprobe.capture.forkserver import cuda_state

    start = time.perf_counter()
    fn()
    state = cuda_state()
    print(
        f"{name:<40} {time.perf_counter() - start:7.2f} s  libcuda loaded: {state['cuda_driver_loaded']}, "
        f"driver started: {state['cuda_driver_started']}, torch's CUDA initialised: {state['cuda_initialized']}",
        flush=True,
    )


def main() -> None:
    from memprobe.capture import child

    step("import torch", lambda: __import__("torch"))
    step("import torch._dynamo", lambda: __import__("torch._dynamo"))
    step("import torch._inductor.compile_fx", lambda: __import__("torch._inductor.compile_fx"))
    step("import what probes use (the rest)", child.import_what_probes_use)
    if not glob.glob("/dev/nvidia[0-9]*"):  # as the server: a GPU machine's probes ask it themselves
        step("ask the CPU toolchain", child.ask_the_cpu_toolchain)
    step("ask the source hashes", child.ask_the_source_hashes)
    step("import torchao.float8", lambda: __import__("torchao.float8"))

    def key():
        from memprobe.capture.function_keys import torchao_key

        torchao_key()

    step("torchao's function key", key)
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            names.append(Path(f"/proc/self/task/{task}/comm").read_text().strip())
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    print("this process's threads:", ", ".join(sorted(names)))


if __name__ == "__main__":
    main()
