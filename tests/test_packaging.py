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


def test_make_check_installs_the_users_extras_lints_runs_both_lanes_with_the_fuzz_and_the_gate():
    prerequisites, _ = _make_target("check")
    assert prerequisites == ["install", "lint", "test", "gate"]
    # the fuzz at FUZZ_EXAMPLES per kind in the suite's own session
    assert "check: export MEMPROBE_FUZZ_EXAMPLES = $(FUZZ_EXAMPLES)" in (ROOT / "Makefile").read_text().splitlines()
    assert _make_target("test")[1] == ["$(PYTEST)"]  # both lanes, one session (one fork server, one set of runs)
    variables = _make_variables()
    # every extra a user can install is installed and so tested; none is installed by hand beside it
    assert set(variables["EXTRAS"].split(",")) == set(_pyproject()["project"]["optional-dependencies"])
    _, install = _make_target("install")
    assert install[0] == '$(PYTHON) -m pip install --no-compile -c constraints-cpu.txt -e ".[$(EXTRAS)]"'
    assert install[1] == '$(PYTHON) scripts/compile_installed.py "memprobe[$(EXTRAS)]"'  # what pip would compile
    assert not [line for line in install[1:] if "pip" in line]  # the rest installs nothing (it byte-compiles)
    for where in ("Makefile", ".ci/run"):
        assert "--no-deps" not in (ROOT / where).read_text(), where
    assert variables["FUZZ_EXAMPLES"] == "2000"
    assert _make_target("fast")[1] == ['$(PYTEST) -m "not e2e"'] and _make_target("e2e")[1] == ["$(PYTEST) -m e2e"]
    assert "e2e:" in " ".join(_pyproject()["tool"]["pytest"]["ini_options"]["markers"])


def test_the_torchtitan_extra_brings_what_its_llama3_imports():
    extras = _pyproject()["project"]["optional-dependencies"]
    names = {re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0] for req in extras["torchtitan"]}
    assert names == {"torchtitan", "triton"}  # torchtitan's own dependencies come from torchtitan
    pins = (ROOT / "constraints-cpu.txt").read_text().split()
    assert {"torchtitan==0.3.0", "triton==3.9.0"} <= set(pins)


def test_every_library_of_the_extras_ci_installs_is_pinned():
    """A new release of an optional library cannot turn CI red: each one the extras CI installs (and kernels, which
    transformers requires) is pinned in the constraints; the newest are tried by scripts/compat_matrix.py --newest."""
    extras = _pyproject()["project"]["optional-dependencies"]

    def name(req: str) -> str:
        return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].lower().replace("_", "-")

    installed = {name(req) for extra in _make_variables()["EXTRAS"].split(",") for req in extras[extra]}
    lines = [line.split("#")[0].strip() for line in (ROOT / "constraints-cpu.txt").read_text().splitlines()]
    pinned = {name(line) for line in lines if "==" in line}
    assert installed | {"kernels"} <= pinned, sorted((installed | {"kernels"}) - pinned)


def test_constraints_pin_the_cpu_torch_and_the_package_admits_the_gpu_torch():
    pins = (ROOT / "constraints-cpu.txt").read_text()
    assert "torch==2.13.0" in pins
    pyproject = (ROOT / "pyproject.toml").read_text()
    spec = re.search(r'"torch(>=[^"]+)"', pyproject).group(1)
    lo = re.search(r">=([\d.]+)", spec).group(1)
    hi = re.search(r"<([\d.]+)", spec).group(1)
    as_tuple = lambda v: tuple(int(x) for x in v.split("."))  # noqa: E731
    assert as_tuple(lo) <= (2, 11) and as_tuple(hi) > (2, 13)


# -- make browser: what it installs, and what it refuses to touch (apt faked: nothing is installed here) -----------------

NEW_ONLY = """\
Inst libopus0 (1.3.1-3 Debian:12.15/oldstable [amd64])
Inst chromium-common (156.0.8078.114-1~deb12u1 Debian-Security:12/oldstable-security [amd64])
Inst chromium (156.0.8078.114-1~deb12u1 Debian-Security:12/oldstable-security [amd64])
Conf chromium (156.0.8078.114-1~deb12u1 Debian-Security:12/oldstable-security [amd64])
"""
# what `apt-get install chromium` did on this machine: it upgraded perl (through a recommended package's needs)
WITH_UPGRADE = "Inst libperl5.36 [5.36.0-7+deb12u2] (5.36.0-7+deb12u4 Debian:12.15/oldstable [amd64])\n" + NEW_ONLY


def _browser(tmp_path, *, plan: str = NEW_ONLY, uid: int = 0, chromium: bool = False, known: bool = True, **env):
    """scripts/install_browser.sh with apt-get, apt-cache and id faked on a PATH of their own: its exit code, its
    output, and the apt-get commands it ran."""
    import shutil
    import subprocess

    bin_ = tmp_path / "bin"
    bin_.mkdir(parents=True)
    for tool in ("awk", "grep", "cat"):
        (bin_ / tool).symlink_to(shutil.which(tool))
    log = tmp_path / "apt.log"
    fakes = {
        "id": f"echo {uid}",
        "apt-cache": f"echo 'chromium:'; echo '  Candidate: {'156.0' if known else '(none)'}'",
        "apt-get": f'echo "$*" >> {log}; case " $* " in *" -s "*) cat {tmp_path / "plan"};; esac',
    }
    if chromium:
        fakes["chromium"] = "true"
    for name, body in fakes.items():
        (bin_ / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_ / name).chmod(0o755)
    (tmp_path / "plan").write_text(plan)
    proc = subprocess.run(
        [shutil.which("bash"), ROOT / "scripts" / "install_browser.sh"],
        env={"PATH": str(bin_), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    ran = log.read_text().splitlines() if log.exists() else []
    return proc.returncode, proc.stdout + proc.stderr, ran


def test_make_browser_installs_chromium_without_recommends_and_upgrades_nothing(tmp_path):
    assert _make_target("browser")[1] == ["bash scripts/install_browser.sh"] and "browser" in _make_target("install")[0]
    # a chromium on PATH: nothing at all
    code, said, ran = _browser(tmp_path / "has", chromium=True)
    assert code == 0 and ran == [] and "nothing to install" in said
    # missing: asked first, then chromium alone, no recommended package, nothing removed; no update where apt knows it
    code, said, ran = _browser(tmp_path / "new")
    install = "install -y -qq --no-install-recommends --no-remove chromium"
    assert code == 0 and ran == ["-s install --no-install-recommends --no-remove chromium", install], ran
    assert "installing libopus0 chromium-common chromium" in said
    # on a fresh machine whose lists do not know chromium, the lists are fetched first
    assert _browser(tmp_path / "fresh", known=False)[2][0] == "update -qq"
    # an install that would upgrade an installed package: refused, naming it, nothing installed ...
    code, said, ran = _browser(tmp_path / "upgrade", plan=WITH_UPGRADE)
    assert code == 2 and "would upgrade packages already installed: libperl5.36; nothing was installed" in said
    assert install not in ran
    # ... unless allowed (a throwaway CI machine: .ci/run allows it)
    code, said, ran = _browser(tmp_path / "allowed", plan=WITH_UPGRADE, MEMPROBE_BROWSER_UPGRADES="1")
    assert code == 0 and ran[-1] == install and "(upgrading libperl5.36)" in said
    assert "export MEMPROBE_BROWSER_UPGRADES=1" in (ROOT / ".ci" / "run").read_text().splitlines()
    # not root: says what to run, runs nothing
    code, said, ran = _browser(tmp_path / "user", uid=1000)
    assert code == 2 and ran == [] and "as root run: apt-get install --no-install-recommends chromium" in said
