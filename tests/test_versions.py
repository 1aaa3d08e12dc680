"""Versions: what a probe needs of its interpreter, checked there before any probe runs; probes that run
this memprobe's code in an interpreter that has torch (and torchao) and nothing else of memprobe's; the
adapters that choose an API by what the installed library has; per-side versions in a diff."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, distribution, requires
from pathlib import Path

import pytest
from conftest import MEMPROBE, TINY, invoke, once_per_session, python_over_this_environment, run_cli

from memprobe.compat import installed_versions
from memprobe.config import ProbeConfig
from memprobe.errors import ConfigError
from memprobe.vocab import EnvNeed

TINY_SIDE = [a for a in TINY if a not in ("--layers", "1")] + ["--layers", "1"]


def _requirement_names(package: str) -> list[str]:
    """The distributions ``package`` requires unconditionally (no extras), as installed names."""
    out = []
    for req in requires(package) or []:
        name, _, marker = req.partition(";")
        if "extra" in marker:
            continue
        name = name.strip().split("[")[0]
        for sep in "<>=!~ (":
            name = name.split(sep)[0]
        out.append(name)
    return out


def _closure(roots: list[str]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name.lower() in seen:
            continue
        try:
            requires(name)
        except PackageNotFoundError:
            continue  # an optional platform dependency this machine does not have (CUDA libraries)
        seen.add(name.lower())
        stack.extend(_requirement_names(name))
    return seen


# the lean interpreter's one import hook (its site-packages' lean.pth imports it): a package of the allowed ones is
# found where this environment has it, so that its paths (torch's headers and libraries, which Inductor's C++ command
# lines and so its kernel and header caches are keyed by) are this environment's own; nothing else of it is found
LEAN_FINDER = """import importlib.machinery, sys

ALLOWED = {allowed!r}


class LeanFinder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if path is None and name in ALLOWED:
            return importlib.machinery.PathFinder.find_spec(name, ALLOWED[name])
        return None


sys.meta_path.insert(0, LeanFinder)
"""


def lean_python(root: Path, packages: tuple[str, ...]) -> Path:
    """A virtualenv whose only packages are ``packages`` and what they require, found where this environment has
    them (their metadata linked, their modules by an import hook of its own: :data:`LEAN_FINDER`): no click, rich,
    pandas or memprobe."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root], check=True)
    site = root / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    lib = root / "linked"
    lib.mkdir()
    allowed: dict[str, list[str]] = {}
    for name in _closure(list(packages)):
        dist = distribution(name)
        for top in {str(f).split("/")[0] for f in dist.files or []}:
            if top.endswith(".pth") or top == ".." or top.startswith("__"):
                continue
            src = Path(dist.locate_file(top))
            if top.endswith((".dist-info", ".egg-info")):
                if src.exists() and not (lib / top).exists():
                    (lib / top).symlink_to(src)  # importlib.metadata's versions
            elif src.exists():
                allowed[top.removesuffix(".py")] = [str(src.parent)]
    (site / "_lean_finder.py").write_text(LEAN_FINDER.format(allowed=allowed))
    (site / "lean.pth").write_text(f"{lib}\nimport _lean_finder\n")
    return root / "bin" / "python"


def _what_imports(python: Path, imported: tuple[str, ...], absent: tuple[str, ...]) -> dict[str, bool]:
    """In one process of ``python``: whether each of ``imported`` imports, and whether each of ``absent`` could be
    found at all (without importing it)."""
    code = (
        "import importlib, importlib.util, json, sys\n"
        "def imports(m):\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "        return True\n"
        "    except ImportError:\n"
        "        return False\n"
        "n = int(sys.argv[1])\n"
        "print(json.dumps({m: imports(m) if i < n else importlib.util.find_spec(m) is not None"
        " for i, m in enumerate(sys.argv[2:])}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # from a directory of its own: `-c` puts the working directory (maybe this checkout) first on the path
    proc = subprocess.run(
        [python, "-c", code, str(len(imported)), *imported, *absent], capture_output=True, text=True, env=env, cwd=python.parent
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_needs_follow_the_configuration():
    assert ProbeConfig(recipe="bf16").needs() == {EnvNeed.TORCH}
    assert ProbeConfig(recipe="fp8").needs() == {EnvNeed.TORCH, EnvNeed.FLOAT8}
    assert ProbeConfig(recipe="bf16", repro="torchtitan").needs() == {EnvNeed.TORCH, EnvNeed.TORCHTITAN_LLAMA3}
    assert ProbeConfig(recipe="bf16", hf_config="x.json").needs() == {EnvNeed.TORCH, EnvNeed.TRANSFORMERS}
    assert EnvNeed.TORCHTITAN_SAC in ProbeConfig(recipe="bf16", ac="op", ac_policy="torchtitan-installed").needs()
    assert EnvNeed.TORCHTITAN_SAC not in ProbeConfig(recipe="bf16", ac="full", ac_policy="torchtitan-installed").needs()


def test_this_torch_and_torchao_have_what_a_probe_uses():
    import torch

    from memprobe.compat import torch as torch_compat
    from memprobe.compat import torchao

    assert torch_compat.why_unavailable() is None
    for recipe in ("tensorwise", "rowwise", "rowwise_with_gw_hp"):
        assert torchao.why_unavailable(recipe) is None
    # the distribution's version; the module's may add the build's local label (2.15.0 -> 2.15.0+cu132)
    assert installed_versions()["torch"] == torch.__version__ or torch.__version__.startswith(installed_versions()["torch"] + "+")


def test_what_is_not_installed_here_is_found_without_importing_it(monkeypatch):
    import importlib.util

    from memprobe.compat import not_installed

    assert not_installed([EnvNeed.TORCH, EnvNeed.FLOAT8]) == {}  # this environment has torch and torchao
    real = importlib.util.find_spec
    absent = ("torchao", "torchtitan", "torch_remat", "transformers")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in absent else real(name, *a))
    monkeypatch.setattr("memprobe.integrations.torchtitan.torchtitan_version", lambda: None)
    monkeypatch.setattr("memprobe.integrations.huggingface.transformers_version", lambda: None)
    wanted = [EnvNeed.TORCH, EnvNeed.FLOAT8, EnvNeed.TORCHTITAN_SAC, EnvNeed.TORCH_REMAT, EnvNeed.TRANSFORMERS]
    missing = not_installed(wanted)
    assert set(missing) == set(wanted) - {EnvNeed.TORCH}
    assert "needs torchao>=0.9 with torchao.float8, which is not installed" in missing[EnvNeed.FLOAT8]
    assert missing[EnvNeed.TORCHTITAN_SAC].startswith("--ac-policy torchtitan-installed needs torchtitan, which is not installed")
    # each library a family or a mode declares is one row of a table (compat.LIBRARIES), said the same way
    assert missing[EnvNeed.TORCH_REMAT].startswith("--ac remat needs torch_remat, which is not installed")
    assert missing[EnvNeed.TRANSFORMERS].startswith("--hf-config needs Hugging Face transformers, which is not installed")


def test_a_torch_without_an_api_is_named_by_feature(monkeypatch):
    import torch.utils.checkpoint

    from memprobe.compat import torch as torch_compat

    monkeypatch.delattr(torch.utils.checkpoint, "create_selective_checkpoint_contexts")
    why = torch_compat.why_unavailable()
    assert why.startswith(f"torch {torch.__version__} has no per-op SAC (torch.utils.checkpoint.create_selective_checkpoint")
    assert why.endswith(f"install torch>={torch_compat.FIRST_SUPPORTED} in that environment") and "\n" not in why


def test_cpu_kernels_are_asked_not_assumed(monkeypatch):
    """float8 and FSDP2 on the CPU: what this torch's CPU kernels can do is asked of them (torch 2.9.1's
    _scaled_mm refuses row-wise scales; torch 2.6's CPU stream has no record_event)."""
    import torch

    from memprobe.compat import torch as torch_compat

    for recipe in ("bf16", "tensorwise", "rowwise", "rowwise_with_gw_hp"):
        assert torch_compat.why_no_cpu_float8(recipe) is None
    assert torch_compat.why_no_cpu_fsdp() is None
    real = torch._scaled_mm

    def per_tensor_only(a, b, scale_a, scale_b, **kw):
        if scale_a.numel() != 1:
            raise RuntimeError("Now _scaled_mm only supports per-tensor scaling for CPU backend.")
        return real(a, b, scale_a=scale_a, scale_b=scale_b, **kw)

    monkeypatch.setattr(torch, "_scaled_mm", per_tensor_only)
    assert torch_compat.why_no_cpu_float8("tensorwise") is None
    why = torch_compat.why_no_cpu_float8("rowwise")
    assert why.startswith(f"float8 recipe 'rowwise' on the CPU: torch {torch.__version__}'s CPU _scaled_mm has no row-wise")
    assert why.endswith("or --recipe tensorwise")
    monkeypatch.delattr(torch.cpu.Stream, "record_event")
    assert torch_compat.why_no_cpu_fsdp().startswith(
        f"FSDP2 on the CPU: torch {torch.__version__}'s CPU stream has no record_event"
    )


def test_a_torchao_without_the_recipe_lookup_or_the_recipe_is_named(monkeypatch):
    import torchao.float8

    from memprobe.compat import torchao as torchao_compat

    class Older:  # a Float8LinearConfig of before the lookup by name
        pass

    monkeypatch.setattr(torchao.float8, "Float8LinearConfig", Older)
    why = torchao_compat.why_unavailable("rowwise")
    assert "has no float8 recipe lookup (Float8LinearConfig.from_recipe_name)" in why and "--recipe bf16" in why
    monkeypatch.undo()
    why = torchao_compat.why_unavailable("rowwise_v9")
    assert why.startswith("float8 recipe 'rowwise_v9': torchao") and "does not know this recipe" in why


@pytest.mark.e2e  # starts interpreters of its own that import torch
def test_another_interpreter_runs_this_memprobe_whatever_its_working_directory_holds(tmp_path):
    """A decoy memprobe in the working directory (where `python -m` would look first) is never imported by another
    interpreter's probe process, and the source lines it records name this checkout's real files."""
    from memprobe.orchestrate.process import probe_code_path, probe_process

    root = Path(__file__).resolve().parent.parent
    assert Path(probe_code_path()) == root  # a source checkout is put on the path as it is
    other = tmp_path / "venv"
    python_over_this_environment(other)
    decoy = tmp_path / "memprobe"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise SystemExit('the decoy memprobe was imported')\n")
    spec = json.dumps({"needs": ["torch"]})
    cmd, env = probe_process(str(other / "bin" / "python"), "memprobe.compat.envcheck", [spec], dict(os.environ))
    assert cmd[1] == "-P" and env["PYTHONPATH"].split(os.pathsep)[0] == str(root)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    answer = json.loads(proc.stdout.splitlines()[-1])
    # the venv sees this environment's packages (a virtualenv's or a system-wide install's)
    assert answer["unavailable"] == {} and answer["versions"]["torch"]
    assert answer["executable"] == str(other / "bin" / "python")


def test_a_side_of_this_interpreter_that_sets_thread_counts_is_asked_without_a_process(monkeypatch):
    """OMP_NUM_THREADS or the allocator's configuration cannot change what this interpreter imports: such a side is
    answered here, as this interpreter is; a side that sets what imports read (PYTHONPATH) is still asked in a
    process of its own."""
    from memprobe.orchestrate import process

    started = []

    def run(cmd, **kw):
        started.append(kw["env"])
        return subprocess.CompletedProcess(cmd, 0, json.dumps({"unavailable": {}, "versions": {}, "python": "3"}), "")

    monkeypatch.setattr(process.subprocess, "run", run)
    spec = json.dumps({"needs": ["torch"]})
    neutral = (("OMP_NUM_THREADS", "1"), ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"))
    assert process._ask_environment((sys.executable, neutral), spec)["python"] is None and started == []
    process._ask_environment((sys.executable, (("OMP_NUM_THREADS", "1"), ("PYTHONPATH", "/elsewhere"))), spec)
    assert [env["PYTHONPATH"].split(os.pathsep)[-1] for env in started] == ["/elsewhere"]


def test_an_installed_memprobe_is_given_through_links_to_its_two_packages(tmp_path):
    from memprobe.orchestrate.process import linked_packages

    root = Path(__file__).resolve().parent.parent
    targets = {"memprobe": root / "memprobe", "repros": root / "repros"}
    where = linked_packages(targets, tmp_path / "cache")
    assert sorted(p.name for p in where.iterdir()) == ["memprobe", "repros"]
    assert {p.name: p.resolve() for p in where.iterdir()} == targets
    assert linked_packages(targets, tmp_path / "cache") == where  # found again, not made twice
    assert len(list((tmp_path / "cache" / "probe-code").iterdir())) == 1


@pytest.fixture(scope="session")
def lean(shared_dir):
    """Interpreters with torch (and torchao) only, memprobe's own dependencies absent: made once per session (the
    first pytest-xdist worker to ask makes them, the others wait for them)."""
    root = shared_dir / "lean"
    # name: (its packages, what must import there, what must not be found there)
    kinds = {
        "torch+torchao": (("torch", "torchao"), ("torch", "torchao.float8"), ("click", "memprobe")),
        "torch": (("torch",), ("torch",), ("click", "memprobe", "torchao")),
    }
    pythons = {name: root / name.replace("+", "-") for name in kinds}
    done = shared_dir / "lean.checked"

    def make() -> None:
        shutil.rmtree(root, ignore_errors=True)
        for name, (packages, imported, absent) in kinds.items():
            python = lean_python(pythons[name], packages)
            found = _what_imports(python, imported, absent)
            assert found == {**dict.fromkeys(imported, True), **dict.fromkeys(absent, False)}, (name, found)
        done.touch()

    once_per_session(done, make)
    return {name: path / "bin" / "python" for name, path in pythons.items()}


@pytest.mark.e2e
@pytest.mark.slow
def test_a_side_runs_in_an_interpreter_without_memprobe(tmp_path, lean):
    python = lean["torch+torchao"]
    proc = run_cli(
        "diff", "bf16", "rowwise", *TINY_SIDE, "--analysis-only", "--b-python", python, "--out", tmp_path / "d", "--json", "-q"
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    assert d["b"]["process"]["python"] == str(python) and d["b"]["status"] == "complete"
    assert d["b"]["versions"]["torch"] == d["a"]["versions"]["torch"] and d["b"]["versions"]["torchao"]
    # the same torch and torchao, linked; torchtitan (where this environment has it) only on A's side
    titan = d["a"]["versions"].get("torchtitan")
    assert d["versions_differ"] == ({"torchtitan": {"a": titan, "b": None}} if titan else {})
    assert d["differences"] > 0 and d["items"]  # bf16 against rowwise: real differences, from both sides' graphs


def test_a_side_that_cannot_run_fails_in_one_line_before_any_side_runs(tmp_path, lean):
    out = tmp_path / "never"
    # -q: a check that takes long says so while it runs (memprobe.progress.HEARTBEAT_S); the error is one line
    proc = invoke("diff", "bf16", "rowwise", *TINY_SIDE, "--b-python", lean["torch"], "--out", out, "-q")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    line = proc.stderr
    assert f"[b] {lean['torch']}: float8 recipe 'rowwise' needs torchao>=" in line and "(nothing was run)" in line
    assert "[a]" not in line  # this interpreter can run side A: only B is named
    assert not out.exists()


def test_versions_differ_names_each_library_that_changed():
    from memprobe.analysis.diff import version_changes
    from memprobe.report.words import versions_line
    from memprobe.rundir import schema as S

    a = {"torch": "2.13.0+cpu", "torchao": "0.18.0", "python": "3.11.7", "memprobe": "0.1.0"}
    assert version_changes(S.Versions(**a), S.Versions(**a)) == {}  # A/A: nothing
    b = {**a, "torch": "2.15.0", "torchao": None}
    pairs = version_changes(S.Versions(**a), S.Versions(**b))
    changes = {k: v.model_dump() for k, v in pairs.items()}
    assert changes == {"torch": {"a": "2.13.0+cpu", "b": "2.15.0"}, "torchao": {"a": "0.18.0", "b": None}}
    line = versions_line(S.DiffResult.model_construct(versions_differ=pairs))
    assert line == "versions differ: torch 2.13.0+cpu -> 2.15.0; torchao 0.18.0 -> none"
    assert versions_line(S.DiffResult.model_construct(versions_differ={})) is None


# -- float8's needs: the GPU, torchao ----------------------------------------------------------------------------------


def test_float8_on_an_old_gpu_is_refused(monkeypatch):
    import torch

    from memprobe.capture import build

    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (8, 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA A100-SXM4-80GB")
    with pytest.raises(
        ConfigError, match=r"compute capability 8.9 or newer; NVIDIA A100-SXM4-80GB is 8.0: use --recipe bf16 or --device cpu"
    ):
        build.check_float8_support("rowwise", torch.device("cuda", 0))
    build.check_float8_support("bf16", torch.device("cuda", 0))  # bf16 runs anywhere


@pytest.mark.parametrize(
    "recipe, capability, runs", [("blockwise", (9, 0), True), ("blockwise", (8, 9), False), ("mxfp8", (9, 0), False)]
)
def test_each_recipe_names_the_gpu_it_needs(monkeypatch, recipe, capability, runs):
    """The blockwise recipe's kernels need compute capability 9.0 (an H100 or H200), MX's 10.0 (a B200): refused in
    one line that names the need and the GPU, before anything is built; neither runs on the CPU."""
    import torch

    from memprobe.capture import build

    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: capability)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA H200")
    if runs:
        build.check_float8_support(recipe, torch.device("cuda", 0))
    else:
        with pytest.raises(ConfigError, match=rf"'{recipe}' needs a CUDA GPU of compute capability .* NVIDIA H200 is"):
            build.check_float8_support(recipe, torch.device("cuda", 0))
    with pytest.raises(ConfigError, match=rf"'{recipe}' needs a CUDA GPU .* run it on such a GPU \(--device cuda\)"):
        build.check_float8_support(recipe, torch.device("cpu"))


@pytest.mark.e2e  # starts interpreters of its own that import torch
@pytest.mark.parametrize(
    "files, needle",
    [
        ({"torchao/__init__.py": "raise ImportError('simulated: no torchao here')\n"}, "needs torchao>=0.9 with torchao.float8"),
        (
            {
                "torchao/__init__.py": "__version__ = '0.5.0'\n",
                "torchao/float8/__init__.py": "Float8LinearConfig = convert_to_float8_training = None\n",
            },
            "torchao 0.5.0 has no float8 recipe lookup",
        ),
    ],
    ids=["missing", "too-old"],
)
def test_torchao_missing_or_too_old(tmp_path, files, needle):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        MEMPROBE.split() + ["run", "--recipe", "rowwise", "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and "Traceback" not in proc.stderr
