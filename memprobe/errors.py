"""Errors that reach the user as one line and an exit code."""

from __future__ import annotations


class MemprobeError(Exception):
    """An error the user can act on. ``exit_code`` is what the CLI exits with."""

    exit_code = 1


class ConfigError(MemprobeError):
    """A bad flag value or an impossible configuration (exit 2, like a usage error)."""

    exit_code = 2


class RunDirError(MemprobeError):
    """A run directory that is missing, corrupt, or would be overwritten."""

    exit_code = 2


class RunFailed(MemprobeError):
    """The probe itself failed while running; partial results were written."""

    exit_code = 3


class OutOfMemory(MemprobeError):
    """The device ran out of memory during the run; a partial report (and snapshot) was written."""

    exit_code = 4


class Interrupted(MemprobeError):
    """Ctrl-C or SIGTERM; the run directory was left consistent and marked interrupted."""

    exit_code = 130
