"""torch_remat (meta-pytorch/remat), region rematerialization: memprobe's ``--ac remat`` is built with it (the
``remat`` extra)."""

from __future__ import annotations

INSTALL_HINT = "pip install 'memprobe[remat]' (torch_remat>=0.2), or choose another --ac"


def why_unavailable() -> str | None:
    """Why this interpreter cannot build torch_remat's regions (None: it can)."""
    try:
        import torch_remat
    except ImportError as e:
        return f"--ac remat needs torch_remat ({e}): {INSTALL_HINT}"
    if not (callable(getattr(torch_remat, "checkpoint", None)) and callable(getattr(torch_remat, "region", None))):
        return f"--ac remat needs torch_remat's checkpoint and region, which torch_remat here lacks: {INSTALL_HINT}"
    return None
