"""The versions of torch, torchao and torchtitan memprobe runs with, in one place.

A probe uses a handful of APIs of each library. Where an API moved between releases, the module
for that library holds one adapter per API generation, chosen by what the installed library has
(never by its version number); where a feature cannot work with what is installed, its
``why_unavailable`` says so in one line that names the feature, the version and what to do.

- :mod:`memprobe.compat.torch`: FSDP2, per-op SAC contexts, the compile hooks memprobe reads;
- :mod:`memprobe.compat.torchao`: float8 training by recipe name;
- :mod:`memprobe.integrations.torchtitan`: torchtitan's SAC and Llama 3, per torchtitan generation;
- :mod:`memprobe.compat.envcheck`: run in a side's interpreter before any probe runs, it reports
  that interpreter's versions and what it lacks for the probes it is given.

Everything here imports only the standard library at module level (torch where a check needs it),
so that it runs in an interpreter that has torch and nothing else of memprobe's dependencies.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path

from ..vocab import EnvNeed

PACKAGES = ("torch", "torchao", "torchtitan", "triton", "transformers")


@dataclass(frozen=True)
class Library:
    """Another project's code a probe may need: the module that is absent where it is not installed, and the
    integration (``memprobe.integrations.<integration>``) whose ``why_unavailable(*part)`` says in one line why it
    cannot serve here, with what to install (importing the project only where it is installed)."""

    module: str
    integration: str
    part: tuple[str, ...] = ()

    def why_unavailable(self) -> str | None:
        from importlib import import_module

        return import_module(f"memprobe.integrations.{self.integration}").why_unavailable(*self.part)


# each need a model family or an AC mode declares on another project's code (its ``needs``), as data
LIBRARIES = {
    EnvNeed.TORCHTITAN_SAC: Library("torchtitan", "torchtitan", ("sac",)),
    EnvNeed.TORCHTITAN_LLAMA3: Library("torchtitan", "torchtitan", ("llama3",)),
    EnvNeed.TRANSFORMERS: Library("transformers", "huggingface"),
    EnvNeed.TORCH_REMAT: Library("torch_remat", "remat"),
}


def installed_versions() -> dict[str, str | None]:
    """The versions of the libraries a probe may use, from their metadata (nothing imported: a bf16 probe
    does not import torchao, seconds saved per process)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for package in PACKAGES:
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = None
    return out


def versions(device) -> dict:
    """What a report's ``versions`` says: Python, torch as imported, torchao/torchtitan, the device and its stack."""
    import torch

    from .. import __version__

    installed = installed_versions()
    v = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "memprobe": __version__,
        "torchao": installed["torchao"],
        "torchtitan": installed["torchtitan"],
        "transformers": installed["transformers"],
    }
    if device.type == "cuda":
        v["cuda"] = torch.version.cuda
        v["device_name"] = torch.cuda.get_device_name(device)
        v["device_capability"] = ".".join(map(str, torch.cuda.get_device_capability(device)))
        v["triton"] = installed["triton"]
    else:
        v["device_name"] = platform.processor() or platform.machine() or "cpu"
    return v


def not_installed(wanted) -> dict[str, str]:
    """``{need: why}`` for each of ``wanted`` (EnvNeeds) whose library is not installed in *this* interpreter, found
    without importing anything (seconds saved in the orchestrating process; the probe checks the APIs itself)."""
    import importlib.util

    def absent(module: str) -> bool:
        return importlib.util.find_spec(module) is None

    out: dict[str, str] = {}
    if absent("torch"):
        return {EnvNeed.TORCH: "torch is not installed: install torch>=2.6 there"}
    if EnvNeed.FLOAT8 in wanted:
        spec = importlib.util.find_spec("torchao")
        if spec is None or spec.origin is None or not (Path(spec.origin).parent / "float8").is_dir():
            out[EnvNeed.FLOAT8] = "a float8 recipe needs torchao>=0.9 with torchao.float8, which is not installed: " + (
                "pip install 'torchao>=0.9' or use --recipe bf16"
            )
    for need, library in LIBRARIES.items():
        if need in wanted and absent(library.module):  # its integration says so (importing it fails at once)
            out[need] = library.why_unavailable()
    return out
