"""Where a served `memprobe diff` spends its time outside its two probes: the command run in this process (as the
console script runs it) with every function of orchestrate/ and of the analyses it calls timed, each call of 20 ms or
more printed on stderr with its thread, start and end (seconds after this process started), then the probes' own
timings. A measurement harness for docs/time-to-answer.md, run by scripts/device_people.sh (served).

    python scripts/served_phases.py diff bf16 fp8 --out DIR -q --json > /dev/null
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
import threading
import time

T0 = time.perf_counter()
CALLS: list[tuple[str, str, float, float]] = []
MODULES = (
    "memprobe.orchestrate.process",
    "memprobe.orchestrate.forkserver",
    "memprobe.orchestrate.resident",
    "memprobe.orchestrate.finish",
    "memprobe.orchestrate.diff",
    "memprobe.orchestrate.placement",
    "memprobe.analysis.diff",
    "memprobe.analysis.verdict",
    "memprobe.rundir.load",
)


def _timed(name: str, f):
    @functools.wraps(f)
    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            end = time.perf_counter()
            if end - t >= 0.02:
                CALLS.append((threading.current_thread().name, name, t - T0, end - T0))

    return timed


def _wrap_all() -> None:
    """Every function and method defined in MODULES, replaced by its timed self wherever it was imported."""
    replaced = {}
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for attr, value in list(vars(mod).items()):
            if inspect.isfunction(value) and value.__module__ == modname:
                replaced[value] = _timed(f"{modname.rsplit('.', 1)[1]}.{attr}", value)
                setattr(mod, attr, replaced[value])
            elif inspect.isclass(value) and value.__module__ == modname:
                for m, fn in list(vars(value).items()):
                    if inspect.isfunction(fn):
                        setattr(value, m, _timed(f"{modname.rsplit('.', 1)[1]}.{attr}.{m}", fn))
    for mod in list(sys.modules.values()):  # a name imported from another module is that module's function
        if getattr(mod, "__name__", "").startswith("memprobe"):
            for attr, value in list(vars(mod).items()):
                if inspect.isfunction(value) and value in replaced:
                    setattr(mod, attr, replaced[value])


def main() -> int:
    import memprobe.cli.main as cli_main

    imported = time.perf_counter() - T0
    _wrap_all()
    sys.argv = ["memprobe", *sys.argv[1:]]
    code = 0
    try:
        cli_main.cli.main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    end = time.perf_counter() - T0
    print(
        f"[phases] memprobe.cli.main imported at {imported:.2f} s; the command ended at {end:.2f} s, exit {code}", file=sys.stderr
    )
    for thread, name, start, stop in sorted(CALLS, key=lambda c: c[2]):
        print(f"[phases] {thread[:12]:12} {name:48} {start:6.2f} -> {stop:6.2f}  ({stop - start:.2f} s)", file=sys.stderr)
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    if out:
        for side in ("a", "b"):
            try:
                report = json.load(open(f"{out}/{side}/report.json"))
            except OSError:
                continue
            t = {k: round(v, 2) for k, v in (report.get("timings_s") or {}).items() if isinstance(v, (int, float))}
            print(f"[phases] side {side}: forked_from {report['process'].get('forked_from')}, timings_s {t}", file=sys.stderr)
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
