"""Whether a fork of a process that imported torch, Dynamo and Inductor can use CUDA, and what the parent's state
looked like: its threads named ``cuda...``, and the driver's own answer to ``cuCtxGetCurrent`` (3,
CUDA_ERROR_NOT_INITIALIZED, until ``cuInit`` ran; asking initialises nothing). Run once as it is and once with
``PYTORCH_NVML_BASED_CUDA_CHECK=1``: torch's availability check through NVML, documented not to poison forks.

    python scripts/fork_after_import_check.py
"""

from __future__ import annotations

import ctypes
import os
import sys

from driver_start_stack import driver_threads  # scripts/, beside this file


def cu_ctx_get_current() -> int | None:
    """The driver's return code for cuCtxGetCurrent, from the libcuda this process already mapped (None if none)."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libcuda.so" in line}
    if not paths:
        return None
    lib = ctypes.CDLL(sorted(paths)[0])
    ctx = ctypes.c_void_p()
    return lib.cuCtxGetCurrent(ctypes.byref(ctx))


def main() -> int:
    import torch
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401

    print(
        f"parent: NVML check {os.environ.get('PYTORCH_NVML_BASED_CUDA_CHECK')!r}; driver threads {driver_threads()}; "
        f"cuCtxGetCurrent -> {cu_ctx_get_current()} (3: not initialised); torch CUDA initialised "
        f"{torch.cuda.is_initialized()}",
        flush=True,
    )
    pid = os.fork()
    if pid == 0:
        try:
            x = torch.ones(1024, device="cuda")
            print(f"child: CUDA works in the fork ({float(x.sum()):.0f})", flush=True)
            os._exit(0)
        except Exception as e:  # what a forked probe would hit
            print(f"child: CUDA fails in the fork: {type(e).__name__}: {str(e).splitlines()[0]}", flush=True)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
