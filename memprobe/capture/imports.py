"""Run code once a module is imported: the hooks a probe puts in torch, Dynamo, Inductor and torch_remat as the
model's or script's code imports them. The standard library only."""

from __future__ import annotations

import sys


def when_imported(name: str, then) -> None:
    """Call ``then(module)`` once module ``name`` is imported (at once if it is already)."""
    if name in sys.modules:
        then(sys.modules[name])
        return
    import importlib.abc
    import importlib.util

    class After(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            if spec is None or spec.loader is None:
                return spec
            load = spec.loader.exec_module

            def exec_module(module):
                load(module)
                then(module)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, After())
