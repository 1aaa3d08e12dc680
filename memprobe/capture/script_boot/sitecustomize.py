"""Put first on a user's script's path by memprobe (memprobe/orchestrate/script.py): memprobe's hooks go in before
the script's first import (memprobe/capture/script.py); then the sitecustomize the environment had, if any, runs as
it would have. This directory holds nothing else: it is no package memprobe imports."""

import importlib.machinery
import importlib.util
import os
import sys


def _environments_own() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


try:
    from memprobe.capture.script import boot

    boot()
except Exception as e:  # memprobe's own failure: the script must not run unmeasured
    sys.stderr.write(f"memprobe: internal error: memprobe's hooks did not go into the script: {type(e).__name__}: {e}\n")
    sys.stderr.flush()
    os._exit(70)
_environments_own()
