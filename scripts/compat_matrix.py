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
- ``torchtitan`` (rows with torchtitan): torchtitan's own Llama 3 under its own SAC policy;
- ``hf llama full`` / ``hf llama op`` / ``hf mixtral full`` (rows with transformers): ``memprobe run --hf-config``
  of the suite's tiny Llama and Mixtral configs, analysis-only; a pass is exit 0 with status complete, and the
  cell says when memprobe set Dynamo's ``skip_fwd_side_effects_in_bwd_under_checkpoint`` for the run.

``--newest`` adds the row of the newest releases: one virtualenv (DIR/newest, made afresh) where ``pip install -e
'.[hf,torchtitan]'`` resolves every library unpinned, as a new user's install does (CI pins what it imports in
constraints-cpu.txt; this is where new releases are tried). It asks the index for the newest release of each
library it records; where this machine's pip configuration caps one of them (a ``constraint`` file), it records
what pip resolves under the cap and lifts only those lines; where the plain install leaves torch, torchao,
torchtitan or transformers behind the index's newest (another library's range held it back), it asks for that
release by name and records what pip moved for it. So the newest is what runs.

The results are kept in docs/compat-matrix.json (rows not run again keep theirs) and the table written from them
(docs/compat-matrix.md by default): what passed, and the one-line reason for what did not. CUDA builds of torch
import and run on a CPU machine.

    python scripts/compat_matrix.py --venvs /work/venvs/matrix
    python scripts/compat_matrix.py --venvs /work/venvs/matrix --row torch2.15.0-ao0.18.0   # one row
    python scripts/compat_matrix.py --venvs /work/venvs/matrix --newest                     # the newest releases
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
# the Hugging Face family at tiny dims on the CPU: (config under tests/models/hf, --ac)
HF_STEPS = {
    "hf llama full": ("llama.json", "full"),
    "hf llama op": ("llama.json", "op"),
    "hf mixtral full": ("mixtral.json", "full"),
}
HF_TINY = ["--layers", "2", "--batch", "2", "--seq", "32", "--device", "cpu", "--analysis-only"]
# what the newest row records (and asks the index about); memprobe with the extras a new user installs
NEWEST = ("torch", "torchao", "torchtitan", "transformers", "kernels", "triton")
NEWEST_INSTALL = f"{REPO}[hf,torchtitan]"
# the libraries the newest row runs at the index's newest release, asked for by name where a plain install resolves
# an older one (kernels and triton: what transformers and torch bring)
TRIED = ("torch", "torchao", "torchtitan", "transformers")


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
        f"print(json.dumps({{'python': platform.python_version(), **{{p: g(p) for p in {(*NEWEST, 'pip')!r}}}}}))"
    )
    out = subprocess.run([py, "-c", code], capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else {}


def build_newest(venv: Path) -> dict:
    """The virtualenv a new user gets today, made afresh: this memprobe with its [hf,torchtitan] extras, every library
    as pip resolves it from the index, none pinned. Where that leaves torch, torchao, torchtitan or transformers
    behind the index's newest release (another library's range held it back), it asks for that release, so that the
    newest is what runs, and records what pip moved for it. Returns how the row was resolved: the index's newest of
    each library, the lines of this machine's pip constraint files that cap one of them and what pip resolves under
    them (the caps are lifted for the install), the plain resolution, the releases asked for; ``build_error``."""
    py = venv / "bin" / "python"
    shutil.rmtree(venv, ignore_errors=True)
    ok, why, _ = sh([sys.executable, "-m", "venv", "--upgrade-deps", venv], timeout=900)
    if not ok:
        return {"build_error": f"venv: {why}"}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    rec: dict = {"index": {p: index_newest(py, p, env) for p in NEWEST}}
    print(f"  index: {_versions(rec['index'])}", flush=True)
    files, caps = pip_caps(py, env)
    if caps:
        rec["caps"] = caps
        rec["capped"] = resolve(py, venv.parent / "newest-capped.json", env)
        print(f"  capped by {caps}: pip resolves {_versions(rec['capped'])}", flush=True)
        # the machine's constraints but the lines that cap what is tried here (the variable replaces the files)
        lifted = venv.parent / "newest-constraints.txt"
        capping = {line for lines in caps.values() for line in lines}
        kept = [ln for f in files for ln in Path(f).read_text().splitlines() if ln.split("#")[0].strip() not in capping]
        lifted.write_text("\n".join(kept) + "\n")
        env["PIP_CONSTRAINT"] = str(lifted)
        rec["lifted"] = f"PIP_CONSTRAINT={lifted}"
    ok, why, secs = sh([py, "-m", "pip", "install", "-q", "-e", NEWEST_INSTALL], env=env, timeout=7200)
    rec["install_seconds"] = round(secs)
    if not ok:
        return {**rec, "build_error": f"pip install -e .[hf,torchtitan]: {why}"}
    rec["plain"] = installed(py)
    print(f"  plain install: {_versions(rec['plain'])} (pip {rec['plain'].get('pip')})", flush=True)
    index = rec["index"]
    behind = [p for p in TRIED if index.get(p) and rec["plain"].get(p) != index[p]]
    if behind:
        rec["asked"] = [f"{p}=={index[p]}" for p in behind]
        before = _pip_list(py)
        ok, why, _ = sh([py, "-m", "pip", "install", "-q", "-e", NEWEST_INSTALL, *rec["asked"]], env=env, timeout=7200)
        if ok:
            after = _pip_list(py)
            rec["moved"] = {n: [before.get(n), after.get(n)] for n in sorted(before | after) if before.get(n) != after.get(n)}
        else:
            rec["asked_error"] = why
        print(f"  asked for {' '.join(rec['asked'])}: {'moved ' + str(rec.get('moved')) if ok else 'FAIL ' + why}", flush=True)
    return rec


def _pip_list(py: Path) -> dict[str, str]:
    out = subprocess.run([py, "-m", "pip", "list", "--format", "json"], capture_output=True, text=True)
    return {_name(d["name"]): d["version"] for d in json.loads(out.stdout or "[]")}


def index_newest(py: Path, package: str, env: dict) -> str | None:
    """The newest release of ``package`` on the indexes pip is configured with (constraints do not apply)."""
    out = subprocess.run([py, "-m", "pip", "index", "versions", package], capture_output=True, text=True, env=env)
    m = re.match(rf"{re.escape(package)} \(([^)]+)\)", out.stdout.strip(), re.IGNORECASE)
    return m.group(1) if m else None


def pip_caps(py: Path, env: dict) -> tuple[list[str], dict[str, list[str]]]:
    """The constraint files pip's configuration applies here (``pip config list``: its files and PIP_CONSTRAINT),
    and, by file, their lines that constrain a library the newest row tries."""
    out = subprocess.run([py, "-m", "pip", "config", "list"], capture_output=True, text=True, env=env).stdout
    files: list[str] = []
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key.rsplit(".", 1)[-1] == "constraint":
            files += [f for f in value.strip().strip("'\"").split() if f not in files]
    caps: dict[str, list[str]] = {}
    for f in files:
        for line in Path(f).read_text().splitlines() if Path(f).is_file() else []:
            req = line.split("#")[0].strip()
            if _name(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]) in NEWEST:
                caps.setdefault(f, []).append(req)
    return files, caps


def resolve(py: Path, report: Path, env: dict) -> dict:
    """What ``pip install`` of memprobe with its extras resolves into an empty environment (a dry run)."""
    cmd = [py, "-m", "pip", "install", "-q", "--dry-run", "--ignore-installed", "--report", report, NEWEST_INSTALL]
    ok, why, _ = sh(cmd, env=env, timeout=3600)
    if not ok:
        return {"error": why}
    found = {_name(i["metadata"]["name"]): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    return {p: found.get(p) for p in NEWEST}


def _name(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _versions(v: dict) -> str:
    return ", ".join(f"{p} {v.get(p) or '—'}" for p in NEWEST)


def smoke(venv: Path, work: Path, versions: dict) -> dict:
    """The row's steps with its interpreter; torchtitan's and the Hugging Face family's where they are installed."""
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
    res["install"] = {"ok": not mine, "why": "; ".join(mine), "seconds": None}
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
    if versions.get("torchtitan"):
        step(
            "torchtitan",
            [*mp, "run", "--repro", "torchtitan", "--flavor", "debugmodel", "--layers", "1", "--batch", "1", "--seq", "32",
             "--recipe", "rowwise", "--ac-policy", "torchtitan-installed", "--save-op", "aten.abs", "--device", "cpu",
             "--analysis-only", "--out", work / "torchtitan", "-q"],
        )  # fmt: skip
    if versions.get("transformers"):
        for name, (config, ac) in HF_STEPS.items():
            out = work / name.replace(" ", "-")
            step(
                name,
                [*mp, "run", "--hf-config", REPO / "tests" / "models" / "hf" / config, "--ac", ac, *HF_TINY, "--out", out, "-q"],
            )
            res[name].update(_hf_detail(out / "report.json", res[name]))
    return res


def _hf_detail(report: Path, res: dict) -> dict:
    """A Hugging Face run passes when it exited 0 with status complete; and whether memprobe let its checkpointed
    blocks keep a side effect (Dynamo's ``skip_fwd_side_effects_in_bwd_under_checkpoint``, a note of the run)."""
    if not report.is_file():
        return {}
    r = json.loads(report.read_text())
    coverage = r.get("compile_coverage") or {}
    effects = coverage.get("side_effects") or []
    out = {
        "status": r.get("status"),
        "side_effects_skipped": bool(coverage.get("side_effects_skipped_in_recompute") and effects),
        "side_effects": sorted({e.get("mutated") or "?" for e in effects}),
        "graph_breaks": len(coverage.get("graph_breaks") or []),
    }
    if res["ok"] and r.get("status") != "complete":
        out.update(ok=False, why=f"status {r.get('status')}: {last_line(r.get('error') or '')}")
    return out


def cell(r: dict | None) -> str:
    if r is None:
        return "—"
    if r["ok"]:
        text = f"pass ({r['seconds']:.0f} s)" if r.get("seconds") is not None else "pass"
        if r.get("side_effects_skipped"):
            text += "; side effects kept: " + ", ".join(r["side_effects"])
        return text
    why = r["why"].replace("memprobe: error: ", "").replace("|", "\\|")
    return f"**fail** {why}"


def render(results: dict, out: Path) -> None:
    releases = {k: r for k, r in results.items() if not r.get("newest")}
    newest = {k: r for k, r in results.items() if r.get("newest")}
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
        "The results are kept in compat-matrix.json beside this page: a run of some rows (`--row NAME`) leaves the",
        "others as they were measured.",
        "",
        "| torch | torchao | torchtitan | Python | " + " | ".join(STEPS) + " | cross-env: matched (unchanged) / differences |",
        "|---" * (len(STEPS) + 5) + "|",
    ]
    for r in releases.values():
        v = r.get("versions") or {}
        if r.get("build_error"):
            v = {**r["row"], "python": "—"}
        lines.append(_line(r, [v.get("torch"), v.get("torchao"), v.get("torchtitan") or "—", v.get("python")], STEPS))
    lines += [
        "",
        "## Newest releases",
        "",
        "CI installs what it imports pinned (constraints-cpu.txt), so that a new release cannot turn it red; the newest",
        "releases are tried here instead:",
        "",
        "    python scripts/compat_matrix.py --venvs DIR --newest",
        "",
        "builds one virtualenv (DIR/newest, made afresh each time) where `pip install -e '.[hf,torchtitan]'` of this",
        "checkout resolves every library unpinned, as a new user's install does today, and runs the smoke above there,",
        "plus the Hugging Face family on the CPU: Llama under `--ac full` and `--ac op`, Mixtral under `--ac full`, each",
        f"`memprobe run --hf-config tests/models/hf/CONFIG --ac AC {' '.join(HF_TINY)}`.",
        "A pass is exit 0 with status complete; the cell names the attributes the checkpointed blocks set where",
        "memprobe let them keep those side effects (it set Dynamo's `skip_fwd_side_effects_in_bwd_under_checkpoint`,",
        "which the run's notes say). The script asks the index for each library's newest release; where this",
        "machine's pip configuration caps one (a `constraint` file), it records what pip resolves under the cap, then",
        "lifts only those lines; where the plain install leaves torch, torchao, torchtitan or transformers behind the",
        "index's newest (another library's range held it back), it asks for that release by name and records what pip",
        "moved for it (the notes below the table). So the newest is what runs. A release that breaks a family shows",
        "here as a **fail** with its one-line reason, not as a red CI; each set of versions is a row of its own.",
        "",
        "| measured | torch | torchao | torchtitan | transformers | kernels | triton | Python | "
        + " | ".join((*STEPS, *HF_STEPS))
        + " | cross-env: matched (unchanged) / differences |",
        "|---" * (len(STEPS) + len(HF_STEPS) + 9) + "|",
    ]
    for r in newest.values():
        v = r.get("versions") or r.get("index") or {}
        lines.append(
            _line(r, [r["measured_utc"][:10], *(v.get(p) or "—" for p in NEWEST), v.get("python") or "—"], (*STEPS, *HF_STEPS))
        )
    lines += [""] + [f"- {r['measured_utc'][:10]}: {_resolution(r)}" for r in newest.values()]
    when = {r.get("measured_utc", "")[:10] for r in results.values()} - {""}
    lines += ["", f"Measured {', '.join(sorted(when))} on {platform.machine()} (2 shared cores); seconds are wall time per step."]
    out.write_text("\n".join(lines) + "\n")


def _line(r: dict, first: list, steps: tuple) -> str:
    """One row of a table: its version cells, then each step's (or the build's failure), then the cross-env match."""
    head = "| " + " | ".join(str(c) for c in first) + " | "
    if r.get("build_error"):
        return head + "**fail**: " + r["build_error"].replace("|", "\\|") + " |" + " — |" * len(steps)
    s = r.get("steps") or {}
    detail = (s.get("cross-env diff") or {}).get("detail")
    matched = f"{detail['unchanged_items']} / {detail['differences']}" if detail else "—"
    return head + " | ".join(cell(s.get(x)) for x in steps) + f" | {matched} |"


def _resolution(r: dict) -> str:
    """How the newest row's libraries were resolved: the plain install, against the index's newest; the releases
    asked for by name and what pip moved for them; the machine's caps."""
    index, plain = r.get("index") or {}, r.get("plain") or {}

    def versions(d: dict, names: tuple | list = NEWEST) -> str:
        return ", ".join(f"{p} {d.get(p) or 'none'}" for p in names)

    if not plain:
        return f"the index's newest: {versions(index)}; the install failed (the row says why)."
    text = f"in a fresh virtualenv `pip install -e '.[hf,torchtitan]'` (pip {plain.get('pip')}) resolved {versions(plain)}"
    behind = [p for p in NEWEST if index.get(p) and plain.get(p) != index[p]]
    text += f"; the index has {versions(index, behind)}." if behind else " (each the index's newest)."
    if r.get("asked_error"):
        text += f" Asked for `{' '.join(r['asked'])}`, pip refused ({r['asked_error']}): the row ran the plain install."
    elif r.get("asked"):
        moved = [f"{n} {a or '(none)'} → {b or '(removed)'}" for n, (a, b) in (r.get("moved") or {}).items()]
        shown = ", ".join(moved[:12]) + (f" and {len(moved) - 12} more (compat-matrix.json)" if len(moved) > 12 else "")
        text += f" The row asked for `{' '.join(r['asked'])}` so that the newest was tried; pip moved {shown or 'nothing'}."
    for f, lines in (r.get("caps") or {}).items():
        capped = r.get("capped") or {}
        under = ", ".join(f"{p} {capped.get(p) or 'none'}" for p in NEWEST if capped.get(p) != plain.get(p))
        text += (
            f" This machine's pip configuration caps `{'`, `'.join(lines)}` ({f}), under which pip resolves "
            f"{capped.get('error') or under or 'the same'}; the run lifted those lines ({r.get('lifted')}) for its installs."
        )
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venvs", type=Path, required=True, help="directory of the rows' virtualenvs (made or reused)")
    ap.add_argument(
        "--row", action="append", default=[], help="only this row, in this order (repeatable; e.g. torch2.15.0-ao0.18.0)"
    )
    ap.add_argument(
        "--newest", action="store_true", help="the newest releases pip resolves, unpinned, in DIR/newest (only it, without --row)"
    )
    ap.add_argument(
        "--out", type=Path, default=REPO / "docs" / "compat-matrix.md", help="the table; its results beside it (.json)"
    )
    ap.add_argument("--table-only", action="store_true", help="re-render the table from the results kept beside it")
    args = ap.parse_args()
    args.venvs.mkdir(parents=True, exist_ok=True)
    store = args.out.with_suffix(".json")
    results = json.loads(store.read_text()) if store.is_file() else {}
    if not args.table_only:
        by_name = {r.name: r for r in ROWS}
        unknown = [n for n in args.row if n not in by_name]
        if unknown:
            ap.error(f"unknown row(s) {', '.join(unknown)}; the rows are {', '.join(by_name)}")
        rows = [by_name[n] for n in args.row] if args.row or args.newest else list(ROWS)  # in the order asked
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
                entry["steps"] = smoke(venv, args.venvs / "work" / row.name, entry["versions"])
            results[row.name] = entry
            store.write_text(json.dumps(results, indent=1) + "\n")
        if args.newest:
            results.update(newest(args.venvs))
            store.write_text(json.dumps(results, indent=1) + "\n")
    order = [r.name for r in ROWS]
    results = dict(sorted(results.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    render(results, args.out)
    print(f"table: {args.out}")
    return 0


def newest(venvs: Path) -> dict:
    """The newest row, by the versions it resolved (a later run with other releases adds a row)."""
    print("== newest", flush=True)
    venv = venvs / "newest"
    entry: dict = {"newest": True, "measured_utc": datetime.now(UTC).isoformat(timespec="seconds"), **build_newest(venv)}
    if entry.get("build_error"):
        print(f"  build: FAIL {entry['build_error']}", flush=True)
    else:
        entry["versions"] = installed(venv / "bin" / "python")
        print(f"  resolved: {_versions(entry['versions'])} (pip {entry['versions'].get('pip')})", flush=True)
        entry["steps"] = smoke(venv, venvs / "work" / "newest", entry["versions"])
    v = entry.get("versions") or entry.get("index") or {}
    return {"newest-" + "-".join(f"{p}{v.get(p) or '-'}" for p in NEWEST): entry}


if __name__ == "__main__":
    sys.exit(main())
