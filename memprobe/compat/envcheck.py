"""What an interpreter can run, asked of it before any probe runs (one short process per interpreter).

Started by :func:`memprobe.orchestrate.process.check_environments` as
``python -P -m memprobe.compat.envcheck SPEC`` with memprobe's own code on ``PYTHONPATH`` (the
interpreter needs torch, and torchao/torchtitan where the probes use them; nothing of memprobe's
own dependencies). ``SPEC`` is JSON: ``{"needs": [EnvNeed, ...], "recipes": [float8 recipe, ...], "cpu_recipes": [...],
"auto_recipes": [...], "cpu_fsdp": bool, "cpu_fsdp_auto_only": bool}`` (the float8 recipes of its probes; of
those on ``--device cpu`` or ``auto``; on ``auto``; whether a probe runs FSDP2 off ``--device cuda``, only on ``auto``).
It prints one JSON line on stdout::

    {"python": "3.11.7", "executable": "...", "versions": {"torch": ..., "torchao": ..., "torchtitan": ...},
     "unavailable": {need: "one line: the feature, the version, what to do", ...}}

and exits 0 whatever it found (a non-zero exit is a broken interpreter, said as such by the caller).
"""

from __future__ import annotations

import json
import platform
import sys

from ..vocab import EnvNeed
from . import LIBRARIES, installed_versions


def _sees_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def unavailable(
    needs: list[str], recipes: list[str], cpu_recipes=(), auto_recipes=(), cpu_fsdp=False, cpu_fsdp_auto_only=False
) -> dict[str, str]:
    """``{need: why}`` for each need this interpreter cannot meet (an empty dict: it can run the probes).
    ``recipes``: the float8 recipes of its probes; ``cpu_recipes``: those of probes on ``--device cpu`` or
    ``auto`` (``auto_recipes``: those on ``auto``, on the CPU only if this interpreter sees no GPU); ``cpu_fsdp``:
    a probe runs FSDP2 on the CPU (``cpu_fsdp_auto_only``: only through ``--device auto``)."""
    from . import torch as torch_compat

    why = torch_compat.why_unavailable()
    if why:  # nothing else can be checked without a usable torch
        return {EnvNeed.TORCH: why}
    out: dict[str, str] = {}
    if cpu_fsdp and not (cpu_fsdp_auto_only and _sees_gpu()):
        why = torch_compat.why_no_cpu_fsdp()
        if why:
            out[EnvNeed.TORCH] = why
    if EnvNeed.FLOAT8 in needs:
        why = _float8_unavailable(recipes, cpu_recipes, auto_recipes)
        if why:
            out[EnvNeed.FLOAT8] = why
    out.update(_integrations_unavailable(needs))
    return out


def _float8_unavailable(recipes: list[str], cpu_recipes, auto_recipes) -> str | None:
    """Why the first float8 recipe that cannot run here cannot (torchao's recipe, or the CPU kernel's scaling for a
    recipe that runs on the CPU); None when every one can."""
    import torch

    from . import torch as torch_compat
    from . import torchao

    # a probe on --device auto runs on the CPU where this interpreter sees no GPU
    on_cpu = cpu_recipes if not torch.cuda.is_available() else [r for r in cpu_recipes if r not in auto_recipes]
    for recipe in recipes:
        why = torchao.why_unavailable(recipe) or (torch_compat.why_no_cpu_float8(recipe) if recipe in on_cpu else None)
        if why:
            return why
    return None


def _integrations_unavailable(needs: list[str]) -> dict[str, str]:
    """``{need: why}`` for the other projects' code the probes need that this interpreter lacks (torchtitan's SAC
    or Llama 3, transformers, torch_remat: :data:`memprobe.compat.LIBRARIES`)."""
    out: dict[str, str] = {}
    for need, library in LIBRARIES.items():
        why = library.why_unavailable() if need in needs else None
        if why:
            out[need] = why
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m memprobe.compat.envcheck SPEC (started by memprobe)", file=sys.stderr)
        return 2
    spec = json.loads(argv[0])
    needs = [EnvNeed(n) for n in spec.get("needs") or [EnvNeed.TORCH]]
    from .quiet import quiet_logs

    quiet_logs(False)
    result = {
        "python": platform.python_version(),
        "executable": sys.executable,
        "versions": installed_versions(),
        "unavailable": unavailable(
            needs,
            list(spec.get("recipes") or []),
            list(spec.get("cpu_recipes") or []),
            list(spec.get("auto_recipes") or []),
            bool(spec.get("cpu_fsdp")),
            bool(spec.get("cpu_fsdp_auto_only")),
        ),
    }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
