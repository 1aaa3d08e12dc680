"""``memprobe run [options] -- COMMAND ...``: the user's own training script, unmodified (``python train.py ...``,
``python -m pkg ...``, ``torchrun ... train.py``), run in a process memprobe starts with its hooks installed before
the script's first import (memprobe/capture/script.py). memprobe builds nothing: the script's own model, data,
optimizer, wrapping order and compile options are what is measured; the stack flags (``--recipe``, ``--ac``,
``--compile``, ``--fsdp``, ...) do not apply."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..fields import Kind, option, shown
from .base import BuiltModel, Target, file_word

# the interpreters a command may name first; memprobe runs the command with a side's own (--a-python/--b-python)
PYTHONS = ("python", "python3")
LAUNCHERS = ("torchrun",)


@dataclass(frozen=True)
class Script(Target):
    """A training script of the user's, run as it is: its optimizer's steps delimit the step memprobe measures (the
    last of ``--steps``; the script is then stopped), its ``torch.compile`` calls give the graphs."""

    name = "script"
    about = "your own training script, after --"
    selector = "command"
    # the script builds its own model and stack: its command and the optimizer steps memprobe lets it take apply
    applies = ("command", "steps")

    command: tuple[str, ...] = option(
        (),
        "Your training script, unmodified, after `--`: `memprobe run -- python train.py --lr 3e-4` (also "
        "`python -m pkg`, `torchrun ... train.py`). The stack flags do not apply; --steps counts its optimizer steps.",
        kind=Kind.WORDS,
        after_dashes=True,
        metavar="COMMAND",
    )

    def check(self) -> None:
        if not self.command or not self.command[0].strip():
            raise ConfigError("the command after -- is empty: give the script to run, e.g. -- python train.py", field="command")

    def check_files(self) -> None:
        """``python train.py``: the script file is there (a typo is said now, not after torch imports)."""
        if Path(self.command[0]).name in PYTHONS and len(self.command) > 1 and self.command[1].endswith(".py"):
            if not Path(self.command[1]).is_file():
                raise ConfigError(f"the command after --: no such file {self.command[1]}", field="command")

    def users_code(self) -> str | None:
        return f"a command to run, {shown(shlex.join(self.command), 200)}"

    def summary(self) -> str:
        text = shlex.join(self.command)
        return f"script: {text if len(text) <= 100 else text[:99] + '…'}"

    def short_name(self) -> str:
        script = next((w for w in self.command[1:] if w.endswith(".py")), None)
        if script is not None:
            return Path(script).stem
        if "-m" in self.command[:-1]:
            return self.command[self.command.index("-m") + 1].rsplit(".", 1)[-1]
        return Path(self.command[0]).name

    def run_dir_name(self, recipe: str) -> str:
        return self.short_name()

    def budget_probe_name(self, recipe: str) -> str:
        return file_word(self.short_name())

    @property
    def takes_stack(self) -> bool:
        return False

    @property
    def states_recipe(self) -> bool:
        return False

    @property
    def takes_sac_policy(self) -> bool:
        return False

    @property
    def fixed_by_flags(self) -> bool:
        return False

    @property
    def code_owner(self) -> str:
        return "your script"

    @property
    def starts_own_interpreter(self) -> bool:
        return True

    @property
    def makes_own_process_group(self) -> bool:
        return True

    @property
    def reproduces_itself(self) -> bool:
        return True

    def launcher(self) -> str | None:
        """``torchrun`` when the command launches ranks (each rank records a run directory of its own)."""
        first = Path(self.command[0]).name
        if first in LAUNCHERS or (first in PYTHONS and self.command[1:3] == ("-m", "torch.distributed.run")):
            return "torchrun"
        return None

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        raise ConfigError("a script builds its own model: memprobe runs it (memprobe/capture/script.py), it builds nothing")
