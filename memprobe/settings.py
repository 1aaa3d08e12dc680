"""memprobe's environment variables, declared once: each one's name, who sets it and what it does.

The user's settings change how memprobe runs where no flag can say it (a test harness's fork server, a cache
directory, the bounds on what one file may cost to read); memprobe's own pass a probe's job to the process it starts
(they are read there, never given by hand). docs/cli.md lists the user's; a test holds that no other module names a
``MEMPROBE_`` variable of its own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """An environment variable memprobe reads: its name, whether the user sets it (else memprobe does, for a process
    it starts), and what it does."""

    name: str
    by_user: bool
    meaning: str


CACHE_DIR = Setting(
    "MEMPROBE_CACHE_DIR",
    True,
    "memprobe's cache directory (the compile caches, memprobe's records of compiled graphs, `memprobe serve`'s socket); "
    "default: $XDG_CACHE_HOME/memprobe, else ~/.cache/memprobe",
)
FORKSERVER = Setting(
    "MEMPROBE_FORKSERVER",
    True,
    "`off`: every probe a fresh interpreter (no fork server, not even a running `memprobe serve`, and none started); "
    "`serve`: a command starts `memprobe serve` when none runs, as one typed in a terminal does, also where its output "
    "is no terminal; a socket path: the fork server CPU probes are forked from (a test harness's)",
)
MAX_EVENTS = Setting(
    "MEMPROBE_MAX_EVENTS",
    True,
    "the most allocator or profiler events memprobe works through for one file (default 2,000,000)",
)
MAX_FRAMES = Setting(
    "MEMPROBE_MAX_FRAMES",
    True,
    "the most stack frames of a snapshot memprobe works through, counted at each use (default 100,000,000)",
)
MAX_WORK = Setting("MEMPROBE_MAX_WORK", True, "the most values of one JSON file memprobe reads (default 10,000,000)")
SCRIPT = Setting(
    "MEMPROBE_SCRIPT", False, "the job of a user's script run (`memprobe run -- COMMAND`), read by its process's hooks"
)
SIDE_ENV = Setting("MEMPROBE_SIDE_ENV", False, "which of a probe's variables were given for it (--a-env/--b-env), recorded")
COMMAND = Setting("MEMPROBE_COMMAND", False, "the command the user typed, recorded by a probe's process")
GPU_PROBES = Setting("MEMPROBE_GPU_PROBES", False, "how many probes the GPU a probe was given holds at once, recorded")
COMPILE_THREADS = Setting(
    "MEMPROBE_COMPILE_THREADS",
    False,
    "how many compile workers a probe's Inductor may start when probes compile at once (set after its imports: "
    "TORCHINDUCTOR_COMPILE_THREADS is read at import)",
)
SNAPSHOT_STACKS = Setting(
    "MEMPROBE_SNAPSHOT_STACKS",
    True,
    "`all`: a CUDA probe's snapshot records C++ stacks beside the Python ones (names a library's workspace by its C++ "
    "frame; slow to dump, and torch's C++ unwinder has crashed on compiler-generated frames); default `python`",
)

SETTINGS: tuple[Setting, ...] = (
    CACHE_DIR,
    FORKSERVER,
    MAX_EVENTS,
    MAX_FRAMES,
    MAX_WORK,
    SCRIPT,
    SIDE_ENV,
    COMMAND,
    GPU_PROBES,
    COMPILE_THREADS,
    SNAPSHOT_STACKS,
)
