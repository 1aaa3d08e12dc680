"""The options of a verb that runs probes, declared once: where the runs go (``--out``, ``--force``), how many at
once (``--jobs``, and the GPU slots they give), what the verb prints (``--json``, ``--markdown``) and says while it
works (``--quiet``, ``--verbose``, ``--debug``). The verb receives them as one :class:`ProbeOptions`, which also runs
its work inside the progress printer."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import click

from ..progress import progress_printer
from .options import log_options
from .output import emit


def json_help(document: str) -> str:
    """``--json``'s help: the file whose JSON the verb prints (report.json, diff.json, ...)."""
    return f"Print {document} to stdout instead of the summary."


def out_help(verb: str) -> str:
    """``--out``'s help for a verb whose probe runs go in one directory."""
    return f"Where the probe runs go (default memprobe-runs/<UTC time>-{verb})."


def force_help(also: str = "") -> str:
    """``--force``'s help for a verb with ``--out`` (``also``: what else it lets the verb overwrite)."""
    return f"Replace an existing --out directory (only one memprobe wrote){also}."


@dataclass(frozen=True)
class ProbeOptions:
    """What every probe-running verb was asked about its runs and its output."""

    out: Path | None
    force: bool
    jobs: int | None
    quiet: bool
    verbose: bool
    as_json: bool
    as_markdown: bool
    python: str | None = None  # --python: the interpreter the verb's probes run with (None: this one)

    @property
    def document(self) -> bool:
        """The output is a document (``--json``, ``--markdown``): nothing else goes to stdout."""
        return self.as_json or self.as_markdown

    def call(self, work, *args, **kw):
        """``work(*args, **kw)`` with the progress printer on stderr (none under --quiet or a document): the one
        place a verb's work runs inside it, however the work ends."""
        with progress_printer(enabled=not self.quiet and not self.document) as progress:
            return work(*args, progress=progress, verbose=self.verbose, **kw)

    def run_probes(self, work, *args, configs: list | None = None, **kw):
        """``work(*args, run=RunOptions, **kw)``, an orchestration that runs probes (under ``--out``), inside the
        progress printer as :meth:`call`; ``configs``: the configurations that will run, placed on the GPUs (or
        cores) that ``--jobs`` allows before anything starts."""
        from ..orchestrate.options import RunOptions

        slots, gpus = 1, None
        if configs is not None:
            from ..orchestrate.process import slots_for

            slots, gpus = slots_for(configs, self.jobs)
        gpus = tuple(gpus) if gpus is not None else None
        with progress_printer(enabled=not self.quiet and not self.document) as progress:
            opts = {"out": self.out, "force": self.force, "verbose": self.verbose, "python": self.python}
            return work(*args, run=RunOptions(progress=progress, slots=slots, gpus=gpus, **opts), **kw)

    def emit(self, result, *, markdown=None, console=None) -> None:
        """The verb's result: JSON, Markdown, or the console view."""
        emit(result, as_json=self.as_json, as_markdown=self.as_markdown, markdown=markdown, console=console)

    def say(self, line: str) -> None:
        """A line for the person (a file written), unless the output is a document."""
        if not self.document:
            click.echo(line)


PYTHON_HELP = (
    "Run the probes with this Python interpreter: its own torch, torchao and torchtitan (a virtualenv without memprobe "
    "will do: memprobe's code is put on its path). A probe records the interpreter it ran with; a `next:` line of a run "
    "recorded with another names it."
)


def probe_options(
    *, out: str | None, force: str, json: str | None, jobs: bool = True, markdown: str | None = None, python: bool = False
):
    """Declare the options and hand them to the verb as ``probes``: ``out``, ``force``, ``json`` and ``markdown`` are
    the help texts (None: the verb has no such flag); ``jobs``: whether it runs several probes at once; ``python``:
    whether its probes may run with another interpreter (``--python``)."""

    def decorate(f):
        @functools.wraps(f)
        def verb(*args, **kw):
            probes = ProbeOptions(
                out=kw.pop("out", None),
                force=kw.pop("force"),
                jobs=kw.pop("jobs", None),
                quiet=kw.pop("quiet"),
                verbose=kw.pop("verbose"),
                as_json=kw.pop("as_json", False),
                as_markdown=kw.pop("as_markdown", False),
                python=kw.pop("python", None),
            )
            return f(*args, probes=probes, **kw)

        options = []
        if jobs:
            options.append(
                click.option(
                    "--jobs",
                    type=int,
                    default=None,
                    help="Probes at once. Default: one per visible GPU on CUDA (each probe on a GPU of its own), "
                    "1 on the CPU (N > 1 there: one core each).",
                )
            )
        if out is not None:
            options.append(click.option("--out", type=click.Path(path_type=Path), default=None, help=out))
        options.append(click.option("--force", is_flag=True, help=force))
        if json is not None:
            options.append(click.option("--json", "as_json", is_flag=True, help=json))
        if markdown is not None:
            options.append(click.option("--markdown", "as_markdown", is_flag=True, help=markdown))
        if python:
            options.append(click.option("--python", "python", metavar="PATH", default=None, help=PYTHON_HELP))
        verb = log_options(verb)
        for opt in reversed(options):
            verb = opt(verb)
        return verb

    return decorate
