"""torch_remat (meta-pytorch/remat), region rematerialization: memprobe's ``--ac remat`` is built with it (the
``remat`` extra)."""

from __future__ import annotations

INSTALL_HINT = "pip install 'memprobe[remat]' (torch_remat>=0.2), or choose another --ac"


# what torch_remat 0.2 calls on torch to recompute a region eagerly (its placeholder tensors' storage guard); the CPU
# build of torch 2.13.0 declares it in torch/_C/__init__.pyi but does not have it: there a region's backward fails
EAGER_RECOMPUTE_API = "_set_storage_data_ptr_access_error_msg"


def why_no_eager_recompute() -> str | None:
    """Why torch_remat cannot recompute a region eagerly with this torch (None: it can)."""
    import torch

    if hasattr(torch._C, EAGER_RECOMPUTE_API):
        return None
    return (
        f"--ac remat without compile: torch_remat recomputes a region eagerly through torch._C.{EAGER_RECOMPUTE_API}, "
        f"which this torch ({torch.__version__}) lacks (its backward would fail); drop --no-compile (compiled regions "
        "are the partitioner's) or use a torch build that has it"
    )


def why_unavailable() -> str | None:
    """Why this interpreter cannot build torch_remat's regions (None: it can); where it is not installed, said
    without importing anything."""
    from importlib.util import find_spec

    if find_spec("torch_remat") is None:
        return f"--ac remat needs torch_remat, which is not installed: {INSTALL_HINT}"
    try:
        import torch_remat
    except ImportError as e:
        return f"--ac remat needs torch_remat ({e}): {INSTALL_HINT}"
    if not (callable(getattr(torch_remat, "checkpoint", None)) and callable(getattr(torch_remat, "region", None))):
        return f"--ac remat needs torch_remat's checkpoint and region, which torch_remat here lacks: {INSTALL_HINT}"
    return None
