"""The README's set-up commands are the ones CI and users run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one():
    commands = _readme_commands()
    assert len(commands) == 2
    install_run, tests = commands
    assert "memprobe run" in install_run and "constraints-cpu.txt" in install_run
    assert "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert tests in ci


def test_constraints_pin_the_cpu_torch_and_the_package_admits_the_gpu_torch():
    pins = (ROOT / "constraints-cpu.txt").read_text()
    assert "torch==2.13.0" in pins
    pyproject = (ROOT / "pyproject.toml").read_text()
    spec = re.search(r'"torch(>=[^"]+)"', pyproject).group(1)
    lo = re.search(r">=([\d.]+)", spec).group(1)
    hi = re.search(r"<([\d.]+)", spec).group(1)
    as_tuple = lambda v: tuple(int(x) for x in v.split("."))  # noqa: E731
    assert as_tuple(lo) <= (2, 11) and as_tuple(hi) > (2, 13)
