"""The README's set-up commands are the ones CI and users run: one test entry (`make check`), and what it
installs is the extras users install."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def _make_variables() -> dict[str, str]:
    text = (ROOT / "Makefile").read_text()
    return dict(re.findall(r"^([A-Z_]+) \?= ?(.*)$", text, re.M))


def _make_target(name: str) -> tuple[list[str], list[str]]:
    """A target's prerequisites (its rule line, not its target-specific variables) and its recipe lines."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"^{name}:(?!\s*export)(.*)$", line)
        if m:
            recipe = []
            for follow in lines[i + 1 :]:
                if not follow.startswith("\t"):
                    break
                recipe.append(follow.strip())
            return m.group(1).split(), recipe
    raise AssertionError(f"the Makefile has no target {name}")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one():
    commands = _readme_commands()
    assert len(commands) == 2
    install_run, tests = commands
    assert "memprobe run" in install_run and "constraints-cpu.txt" in install_run
    assert re.search(r"(^|&& )make check$", tests), tests  # the one test entry, last
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert tests in ci


def test_make_check_installs_the_users_extras_lints_runs_both_lanes_the_fuzz_and_the_gate():
    prerequisites, _ = _make_target("check")
    assert prerequisites == ["install", "lint", "test", "fuzz", "gate"]
    assert _make_target("test")[1] == ["$(PYTEST)"]  # both lanes, one session (one fork server, one set of runs)
    variables = _make_variables()
    # every extra a user can install is installed and so tested; none is installed by hand beside it
    assert set(variables["EXTRAS"].split(",")) == set(_pyproject()["project"]["optional-dependencies"])
    _, install = _make_target("install")
    assert install[0] == '$(PYTHON) -m pip install -c constraints-cpu.txt -e ".[$(EXTRAS)]"'
    assert not [line for line in install[1:] if "pip" in line]  # the rest installs nothing (it byte-compiles)
    for where in ("Makefile", ".ci/run"):
        assert "--no-deps" not in (ROOT / where).read_text(), where
    assert variables["FUZZ_EXAMPLES"] == "10000"
    assert _make_target("fast")[1] == ['$(PYTEST) -m "not e2e"'] and _make_target("e2e")[1] == ["$(PYTEST) -m e2e"]
    assert "e2e:" in " ".join(_pyproject()["tool"]["pytest"]["ini_options"]["markers"])


def test_the_torchtitan_extra_brings_what_its_llama3_imports():
    extras = _pyproject()["project"]["optional-dependencies"]
    names = {re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0] for req in extras["torchtitan"]}
    assert names == {"torchtitan", "triton"}  # torchtitan's own dependencies come from torchtitan
    pins = (ROOT / "constraints-cpu.txt").read_text().split()
    assert {"torchtitan==0.3.0", "triton==3.9.0"} <= set(pins)


def test_constraints_pin_the_cpu_torch_and_the_package_admits_the_gpu_torch():
    pins = (ROOT / "constraints-cpu.txt").read_text()
    assert "torch==2.13.0" in pins
    pyproject = (ROOT / "pyproject.toml").read_text()
    spec = re.search(r'"torch(>=[^"]+)"', pyproject).group(1)
    lo = re.search(r">=([\d.]+)", spec).group(1)
    hi = re.search(r"<([\d.]+)", spec).group(1)
    as_tuple = lambda v: tuple(int(x) for x in v.split("."))  # noqa: E731
    assert as_tuple(lo) <= (2, 11) and as_tuple(hi) > (2, 13)
