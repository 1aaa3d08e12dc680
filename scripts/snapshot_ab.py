"""`memprobe show` and `memprobe report` of one snapshot by two checkouts of memprobe, alternated on one machine, each
against `pickle.load` of the same file in the same round: each a fresh process, wall time, CPU time and peak RSS
(the process and the processes it waited for: bench/_proc.py).

    python scripts/snapshot_ab.py OLD_ROOT NEW_ROOT SNAPSHOT [--rounds 3]

A round runs `pickle.load`, then each checkout's `show` and `report`, the checkouts' order turned each round. Each
checkout's first `show` is run once, untimed, before the rounds (its bytecode compiled). The pages the two write are
compared byte for byte.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from _proc import measure  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    path = str(args.snapshot)
    roots = {"old": args.old.resolve(), "new": args.new.resolve()}

    def env(root: Path) -> dict:
        return {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}

    def verb(name: str, root: Path) -> dict:
        argv = ["show", path, "--json"] if name == "show" else ["report", path, "-o", f"{path}.{root.name}.html", "--force"]
        return measure([sys.executable, "-m", "memprobe", *argv], env=env(root), cwd=str(root))

    for root in roots.values():
        verb("show", root)
    seconds: dict[str, list[float]] = {}
    for r in range(args.rounds):
        base = measure([sys.executable, "-c", f"import pickle; pickle.load(open({path!r}, 'rb'))"])
        seconds.setdefault("pickle.load", []).append(base["seconds"])
        line = [f"round {r + 1}: pickle.load {base['seconds']:.2f} s"]
        for key in list(roots)[:: 1 if r % 2 == 0 else -1]:
            for name in ("show", "report"):
                m = verb(name, roots[key])
                seconds.setdefault(f"{name} {key}", []).append(m["seconds"])
                line.append(
                    f"{name} {key} {m['seconds']:.2f} s ({m['seconds'] / base['seconds']:.2f}x, {m['peak_rss_bytes'] / 2**20:.0f} MiB)"
                )
        print("; ".join(line), flush=True)
    load = statistics.median(seconds["pickle.load"])
    print(
        f"medians: pickle.load {load:.2f} s; "
        + "; ".join(
            f"{k} {statistics.median(v):.2f} s ({statistics.median(v) / load:.2f}x)"
            for k, v in seconds.items()
            if k != "pickle.load"
        )
    )
    pages = [f"{path}.{root.name}.html" for root in roots.values()]
    print("pages", "identical" if filecmp.cmp(*pages, shallow=False) else "DIFFER")


if __name__ == "__main__":
    main()
