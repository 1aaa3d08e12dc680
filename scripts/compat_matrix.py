"""The compatibility matrix: memprobe against a spread of torch / torchao / torchtitan releases.

For each row it builds (or reuses) a virtualenv under the directory given, installs that row's torch,
torchao (and torchtitan), installs this memprobe there as a user would (``pip install -e``, without
letting pip touch torch), and runs a smoke with that interpreter, at tiny dimensions on the CPU:

- ``install``: ``pip check``: do memprobe's declared ranges admit these versions?
- ``run bf16`` / ``run rowwise``: ``memprobe run`` (compiled, FSDP2, per-op SAC, measured);
- ``diff``: ``memprobe diff`` of those two run directories;
- ``cross-env diff``: this interpreter's memprobe diffs ``rowwise`` against the row's interpreter
  (``--b-python``): both sides run, each in its own environment;
- ``gate``: ``memprobe gate`` on the rowwise run against a budget that forbids weight-derived values;
- ``torchtitan`` (rows with torchtitan): torchtitan's own Llama 3 under its own SAC policy.

It writes DIR/matrix.json and the table (docs/compat-matrix.md by default): what passed, and the
one-line reason for what did not. CUDA builds of torch import and run on a CPU machine.

    python scripts/compat_matrix.py --venvs /work/venvs/matrix
    python scripts/compat_matrix.py --venvs /work/venvs/matrix --row torch2.15.0-ao0.18.0   # one row
    python scripts/compat_matrix.py --venvs /work/venvs/matrix --table-only                  # re-render
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TINY = ["--dim", "64", "--hidden", "128", "--seq", "32", "--layers", "1", "--device", "cpu"]
# torchtitan's lightest import sets (installed --no-deps: its trainer's other dependencies are not needed)
TORCHTITAN_DEPS = {
    "0.3.0": [
        "tyro",
        "docstring-parser",
        "typeguard",
        "spmd_types==0.2.3",
        "torch_checkpointing",
        "einops",
        "safetensors",
        "triton",
    ],
    # 0.2's Llama 3 package imports its trainer's dataloader, tokenizer and metrics
    "0.2.2": ["tyro", "docstring-parser", "typeguard", "tomli", "torchdata==0.11.0", "datasets", "tokenizers", "tensorboard"],
}
CLI_DEPS = ["click>=8.1", "rich>=13", "pandas>=2", "jinja2>=3.1"]
STEPS = ("install", "run bf16", "run rowwise", "diff", "cross-env diff", "gate", "torchtitan")


@dataclass(frozen=True)
class Row:
    torch: str
    torchao: str
    torchtitan: str | None = None

    @property
    def name(self) -> str:
        return f"torch{self.torch}-ao{self.torchao}" + (f"-tt{self.torchtitan}" if self.torchtitan else "")


# a spread: the first torch with every API memprobe uses, releases in between, the CI's pin, the newest;
# torchao the release made for each torch (and the previous one beside the pin); torchtitan's two generations
ROWS = (
    Row("2.5.1", "0.8.0"),
    Row("2.6.0", "0.9.0"),
    Row("2.7.1", "0.11.0"),
    Row("2.8.0", "0.12.0"),
    Row("2.9.1", "0.14.1"),
    Row("2.12.1", "0.17.0"),
    Row("2.13.0", "0.17.0"),
    Row("2.13.0", "0.18.0", "0.3.0"),
    Row("2.13.0", "0.18.0", "0.2.2"),
    Row("2.14.1", "0.18.0"),
    Row("2.15.0", "0.18.0"),
)


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip() and not ln.startswith("WARNING: Location")]
    return lines[-1][:600] if lines else "no output"


def sh(cmd: list, *, timeout: float = 1800, cwd: Path | None = None, env: dict | None = None) -> tuple[bool, str, float]:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout:.0f} s", time.perf_counter() - t0
    ok = proc.returncode == 0
    return ok, ("" if ok else f"exit {proc.returncode}: {last_line(proc.stderr or proc.stdout)}"), time.perf_counter() - t0


def build(row: Row, venv: Path) -> tuple[bool, str]:
    """The row's virtualenv with its torch, torchao (torchtitan) and this memprobe; reused when its versions match."""
    py = venv / "bin" / "python"
    if not py.is_file():
        ok, why, _ = sh([sys.executable, "-m", "venv", venv])
        if not ok:
            return False, f"venv: {why}"
    pins = [f"torch=={row.torch}", f"torchao=={row.torchao}"]
    ok, why, _ = sh([py, "-m", "pip", "install", "-q", *pins], timeout=3600)
    if not ok:
        return False, f"pip install {' '.join(pins)}: {why}"
    if row.torchtitan:
        ok, why, _ = sh([py, "-m", "pip", "install", "-q", *TORCHTITAN_DEPS[row.torchtitan], *pins], timeout=3600)
        ok2, why2, _ = (
            sh([py, "-m", "pip", "install", "-q", "--no-deps", f"torchtitan=={row.torchtitan}"]) if ok else (ok, why, 0)
        )
        if not (ok and ok2):
            return False, f"torchtitan {row.torchtitan}: {why or why2}"
    # memprobe as a user installs it, without letting pip replace the row's torch: `pip check` says whether
    # memprobe's declared ranges admit it
    if _has_this_memprobe(py):  # installed before (and maybe in use): left as it is
        return True, ""
    ok, why, _ = sh([py, "-m", "pip", "install", "-q", *CLI_DEPS, *pins])
    ok2, why2, _ = sh([py, "-m", "pip", "install", "-q", "--no-deps", "-e", REPO]) if ok else (ok, why, 0)
    return (ok and ok2), (why or why2)


def _has_this_memprobe(py: Path) -> bool:
    """memprobe installed in that environment from this checkout (editable), with its CLI's dependencies and the
    requirements pyproject.toml declares now (pip check reads those recorded at install time)."""
    import tomllib

    code = (
        "import json, click, rich, pandas, jinja2; from importlib.metadata import distribution as d\n"
        "print(json.dumps([json.loads(d('memprobe').read_text('direct_url.json') or '{}').get('url', ''), "
        "d('memprobe').requires or []]))"
    )
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=py.parent)
    if out.returncode != 0:
        return False
    url, requires = json.loads(out.stdout.strip().splitlines()[-1])
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    return url == REPO.as_uri() and _requirements(requires) == _requirements(declared)


def _requirements(reqs: list[str]) -> set[tuple]:
    """``torch<2.16,>=2.7`` and ``torch>=2.7,<2.16`` alike: (name, sorted specifiers), extras' requirements apart."""
    out = set()
    for r in reqs:
        if "extra" in r:
            continue
        r = r.replace(" ", "")
        name = re.split(r"[<>=!~]", r, maxsplit=1)[0]
        out.add((name.lower(), tuple(sorted(r[len(name) :].split(",")))))
    return out


def installed(py: Path) -> dict:
    code = (
        "import json, platform; from importlib.metadata import version as v, PackageNotFoundError as E\n"
        "def g(p):\n    try: return v(p)\n    except E: return None\n"
        "print(json.dumps({'python': platform.python_version(), **{p: g(p) for p in ('torch', 'torchao', 'torchtitan')}}))"
    )
    out = subprocess.run([py, "-c", code], capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else {}


def smoke(row: Row, venv: Path, work: Path) -> dict:
    py = venv / "bin" / "python"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLUMNS", "LINES")}
    mp = [py, "-m", "memprobe"]
    res: dict[str, dict] = {}

    def step(name: str, cmd: list, **kw) -> bool:
        ok, why, secs = sh(cmd, cwd=work, env=kw.pop("env", env), **kw)
        res[name] = {"ok": ok, "why": why, "seconds": round(secs, 1)}
        print(f"  {name}: {'pass' if ok else 'FAIL ' + why} ({secs:.0f} s)", flush=True)
        return ok

    # pip check lists every broken requirement in the environment: memprobe's are the ones that matter here
    out = subprocess.run([py, "-m", "pip", "check"], capture_output=True, text=True).stdout
    mine = [ln for ln in out.splitlines() if ln.startswith("memprobe")]
    res["install"] = {"ok": not mine, "why": "; ".join(mine), "seconds": 0}
    print(f"  install: {'pass' if res['install']['ok'] else 'FAIL ' + res['install']['why']}", flush=True)
    bf16 = step("run bf16", [*mp, "run", "--recipe", "bf16", *TINY, "--out", work / "run-bf16", "-q"])
    rowwise = step("run rowwise", [*mp, "run", "--recipe", "rowwise", *TINY, "--out", work / "run-rowwise", "-q"])
    if bf16 and rowwise:
        step("diff", [*mp, "diff", work / "run-bf16", work / "run-rowwise", "--json", "-q"])
    # this interpreter's memprobe (from this checkout, not the row's install) runs side B in the row's interpreter
    here = {**env, "PYTHONPATH": str(REPO)}
    xdiff = [sys.executable, "-m", "memprobe", "diff", "rowwise", "rowwise", *TINY, "--analysis-only"]
    if step("cross-env diff", [*xdiff, "--b-python", py, "--out", work / "xdiff", "--json", "-q"], env=here):
        d = json.loads((work / "xdiff" / "diff.json").read_text())
        res["cross-env diff"]["detail"] = {
            "a": d["a"]["versions"],
            "b": d["b"]["versions"],
            "differences": d["differences"],
            "unchanged_items": d["unchanged_items"],
            "saved_bytes": d["totals"]["saved_bytes"],
        }
    if rowwise:
        budget = work / "memprobe.toml"
        budget.write_text(
            '[probes.ffn-rowwise]\nrecipe = "rowwise"\ndim = 64\nhidden = 128\nseq = 32\nlayers = 1\ndevice = "cpu"\n\n'
            '[probes.ffn-rowwise.limits]\nweight_derived_saved_bytes = 0\nsaved_bytes = "64 MiB"\n'
        )
        step("gate", [*mp, "gate", "--budget", budget, "--from", f"ffn-rowwise={work / 'run-rowwise'}", "-q"])
    if row.torchtitan:
        step(
            "torchtitan",
            [*mp, "run", "--repro", "torchtitan", "--flavor", "debugmodel", "--layers", "1", "--batch", "1", "--seq", "32",
             "--recipe", "rowwise", "--ac-policy", "torchtitan-installed", "--save-op", "aten.abs", "--device", "cpu",
             "--analysis-only", "--out", work / "torchtitan", "-q"],
        )  # fmt: skip
    return res


def cell(r: dict | None) -> str:
    if r is None:
        return "—"
    if r["ok"]:
        return f"pass ({r['seconds']:.0f} s)" if r.get("seconds") else "pass"
    why = r["why"].replace("memprobe: error: ", "").replace("|", "\\|")
    return f"**fail** {why}"


def render(results: dict, out: Path) -> None:
    lines = [
        "# Compatibility matrix",
        "",
        "Measured by `python scripts/compat_matrix.py --venvs DIR` on a CPU machine (CUDA builds of torch import and",
        "run there): one virtualenv per row with that torch, torchao (and torchtitan), this memprobe installed with",
        "`pip install -e` (pip not allowed to change torch), and a smoke at tiny dimensions (`--dim 64 --hidden 128",
        "--seq 32 --layers 1 --device cpu`). **install**: `pip check` for memprobe's declared ranges; **run**: a",
        "compiled, measured `memprobe run`; **diff**: of those two runs; **cross-env diff**: `memprobe diff rowwise",
        "rowwise --b-python ROW` from the CI's environment (torch 2.13.0+cpu, torchao 0.18.0), both sides analysed",
        "(`--analysis-only`); **gate**: the rowwise run against a budget forbidding weight-derived values;",
        "**torchtitan**: torchtitan's own Llama 3 (debugmodel, 1 layer) under its own SAC with `--save-op aten.abs`.",
        "",
        "| torch | torchao | torchtitan | Python | " + " | ".join(STEPS) + " | cross-env: matched (unchanged) / differences |",
        "|---" * (len(STEPS) + 5) + "|",
    ]
    for r in results.values():
        v, steps = r.get("versions") or {}, r.get("steps") or {}
        if r.get("build_error"):
            row = r["row"]
            lines.append(
                f"| {row['torch']} | {row['torchao']} | {row.get('torchtitan') or '—'} | — | **fail**: "
                + r["build_error"].replace("|", "\\|")
                + " |"
                + " — |" * (len(STEPS) - 1)
                + " — |"
            )
            continue
        detail = (steps.get("cross-env diff") or {}).get("detail")
        matched = f"{detail['unchanged_items']} / {detail['differences']}" if detail else "—"
        lines.append(
            f"| {v.get('torch')} | {v.get('torchao')} | {v.get('torchtitan') or '—'} | {v.get('python')} | "
            + " | ".join(cell(steps.get(s)) for s in STEPS)
            + f" | {matched} |"
        )
    when = {r.get("measured_utc", "")[:10] for r in results.values()} - {""}
    lines += ["", f"Measured {', '.join(sorted(when))} on {platform.machine()} (2 shared cores); seconds are wall time per step."]
    out.write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venvs", type=Path, required=True, help="directory of the rows' virtualenvs (made or reused)")
    ap.add_argument(
        "--row", action="append", default=[], help="only this row, in this order (repeatable; e.g. torch2.15.0-ao0.18.0)"
    )
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "compat-matrix.md")
    ap.add_argument("--table-only", action="store_true", help="re-render the table from DIR/matrix.json")
    args = ap.parse_args()
    args.venvs.mkdir(parents=True, exist_ok=True)
    store = args.venvs / "matrix.json"
    results = json.loads(store.read_text()) if store.is_file() else {}
    if not args.table_only:
        by_name = {r.name: r for r in ROWS}
        unknown = [n for n in args.row if n not in by_name]
        if unknown:
            ap.error(f"unknown row(s) {', '.join(unknown)}; the rows are {', '.join(by_name)}")
        rows = [by_name[n] for n in args.row] if args.row else list(ROWS)  # in the order asked
        for row in rows:
            print(f"== {row.name}", flush=True)
            venv = args.venvs / row.name
            ok, why = build(row, venv)
            entry: dict = {"row": row.__dict__, "measured_utc": datetime.now(UTC).isoformat(timespec="seconds")}
            if not ok:
                print(f"  build: FAIL {why}", flush=True)
                entry["build_error"] = why
            else:
                entry["versions"] = installed(venv / "bin" / "python")
                entry["steps"] = smoke(row, venv, args.venvs / "work" / row.name)
            results[row.name] = entry
            store.write_text(json.dumps(results, indent=1))
    order = [r.name for r in ROWS]
    results = dict(sorted(results.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    render(results, args.out)
    print(f"table: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
