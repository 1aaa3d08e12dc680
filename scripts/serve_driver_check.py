"""Which of a resident fork server's imports loads the CUDA driver (libcuda), and how long each takes: the steps of
memprobe.capture.forkserver.preload_probes(torchao=True), one after the other in this process, each followed by a
look at /proc/self/maps. A server whose imports load the driver cannot fork CUDA probes.

    python scripts/serve_driver_check.py
"""

from __future__ import annotations

import time


def driver_loaded() -> bool:
    with open("/proc/self/maps") as f:
        return any("libcuda.so" in line for line in f)


def step(name, fn) -> None:
    start = time.perf_counter()
    fn()
    print(f"{name:<40} {time.perf_counter() - start:7.2f} s  libcuda loaded: {driver_loaded()}", flush=True)


def main() -> None:
    from memprobe.capture import child

    step("import torch", lambda: __import__("torch"))
    step("import torch._dynamo", lambda: __import__("torch._dynamo"))
    step("import torch._inductor.compile_fx", lambda: __import__("torch._inductor.compile_fx"))
    step("import what probes use (the rest)", child.import_what_probes_use)
    step("ask the CPU toolchain", child.ask_the_cpu_toolchain)
    step("ask the source hashes", child.ask_the_source_hashes)
    step("import torchao.float8", lambda: __import__("torchao.float8"))

    def key():
        from memprobe.capture.function_keys import torchao_key

        torchao_key()

    step("torchao's function key", key)


if __name__ == "__main__":
    main()
