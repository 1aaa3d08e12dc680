"""Where the CUDA driver starts during an import: a thread polls this process's threads every millisecond and, the
first time one named ``cuda...`` (the driver's, started by ``cuInit``) appears, prints the main thread's Python stack
at that moment (the call that started it, or the code just after it).

    python scripts/driver_start_stack.py [MODULE ...]   (default: torch, torch._dynamo, torch._inductor.compile_fx)
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
import traceback


def driver_threads() -> list[str]:
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                names.append(f.read().strip())
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return [n for n in names if n.startswith("cuda")]


def watch(main_id: int, done: threading.Event) -> None:
    while not done.is_set():
        if driver_threads():
            frame = sys._current_frames().get(main_id)
            print("the CUDA driver started; the main thread was at:", flush=True)
            print("".join(traceback.format_stack(frame)), flush=True)
            return
        time.sleep(0.001)


def main() -> None:
    modules = sys.argv[1:] or ["torch", "torch._dynamo", "torch._inductor.compile_fx"]
    done = threading.Event()
    watcher = threading.Thread(target=watch, args=(threading.get_ident(), done), daemon=True)
    watcher.start()
    for name in modules:
        started = time.perf_counter()
        importlib.import_module(name)
        print(f"import {name}: {time.perf_counter() - started:.2f} s, driver threads: {driver_threads()}", flush=True)
    time.sleep(0.05)
    done.set()


if __name__ == "__main__":
    main()
