"""``memprobe mcp``: the verbs served to coding agents over the Model Context Protocol (stdio).

Thin: each tool calls what its CLI verb calls (:mod:`memprobe.verbs`, :mod:`memprobe.orchestrate`) and
returns the same JSON as that verb's ``--json`` (a record's: :func:`memprobe.rundir.load.dump`). Every
probe runs in a process of its own (a run as well: the server never imports torch to run one), and the
probe processes' progress lines reach the client as MCP progress notifications. Paths an agent passes are untrusted input as on the command
line: run directories are checked as they are read, an existing ``out`` is refused unless ``force``
(and then only one memprobe wrote), and nothing is deleted otherwise. What a call may run is what the call itself
names: a ``config.model`` is the agent's own code to run (as ``--model`` is the user's), and a recorded run's model
is run again only when the call names the same one (docs/mcp.md, docs/security.md). An argument of the wrong type
is one line naming the type the tool expects.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field, Strict, StrictStr, ValidationError

from .. import __version__
from ..config import NAMES_CODE
from ..errors import ConfigError, exit_of
from ..fields import shown
from ..text import plain
from .arguments import RunConfig, SideConfig, config_key_error, config_values

# what each tool may do to what it is given (MCP tool annotations): `show` and `policies` read only; the others write
# run directories (new ones: additive) and, with `force`, replace one memprobe wrote earlier (destructive, of its own
# files only); each call runs probes afresh (not idempotent). Nothing reaches beyond this machine.
READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES_RUNS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)

# the tools' arguments, each with what it means (the JSON Schema's description)
ConfigArgument = Annotated[
    RunConfig | None,
    Field(description="The probe configuration: report.json `config` fields; a field not given takes its default."),
]
SideConfigArgument = Annotated[SideConfig | None, Field(description="Configuration values (as `config`, without `recipe`).")]
SideArgument = Annotated[
    StrictStr,
    Field(description="A run directory (read, not re-run) or a recipe: bf16, tensorwise, rowwise, rowwise_with_gw_hp, fp8."),
]
OutArgument = Annotated[
    StrictStr | None,
    Field(
        description="The directory to write (default memprobe-runs/<UTC time>-<what>, under a memprobe-runs/ that git "
        "ignores); refused if it exists and is not empty, unless force."
    ),
]
# strict types: a flag is true or false, never "yes" or 1 (pydantic's lax mode read "yes" as true and replaced a run), a
# path a string
StrictFlag = Annotated[bool, Strict()]
ForceArgument = Annotated[
    StrictFlag,
    Field(description="Replace an existing out directory memprobe wrote: only the files it recorded writing are removed."),
]
AnalysisOnlyArgument = Annotated[StrictFlag, Field(description="Partition without generating kernels: faster, no measured step.")]
RunDirArgument = Annotated[
    StrictStr | None, Field(description="A finished run directory to start from (otherwise `config` says what to run).")
]

INSTRUCTIONS = (
    "memprobe finds out why a PyTorch training step uses more memory than it should: which values the compiled "
    "forward saves for backward, traced to the user's module, op and source line and to the SAC decision that kept "
    "them. Each tool returns the JSON of the matching `memprobe VERB --json`; its `verdict.text` is the answer in "
    "one or two sentences, `verdict.flag` the fix to try. Configurations are report.json's `config` fields, e.g. "
    '{"recipe": "rowwise", "ac_policy": "torchtitan-2025-01", "dim": 512}.'
)


class _Progress:
    """A probe process's progress lines (from its reader threads) as MCP progress notifications."""

    def __init__(self, ctx: Context | None, loop: asyncio.AbstractEventLoop):
        self.ctx, self.loop, self.n = ctx, loop, 0
        self.lock = threading.Lock()

    def __call__(self, message: str) -> None:
        if self.ctx is None:
            return
        with self.lock:
            self.n += 1
            n = self.n
        future = asyncio.run_coroutine_threadsafe(self.ctx.report_progress(n, None, message), self.loop)
        try:
            future.result(timeout=30)
        except Exception:  # a client gone away must not stop the probe
            pass


async def _call(ctx: Context | None, work) -> Any:
    """Run ``work(progress)`` (blocking: probes, file reads) off the event loop; its result as JSON (a record's
    :func:`~memprobe.rundir.load.dump`, as ``--json`` prints it); errors as one-line tool errors."""
    from ..rundir.load import dump

    progress = _Progress(ctx, asyncio.get_running_loop())
    try:
        result = await asyncio.to_thread(work, progress)
    except Exception as e:  # noqa: BLE001 - every error is one line, with its exit code (70: memprobe's own bug)
        code, message = exit_of(e)
        kind = "internal error" if code == 70 else "error"
        raise ToolError(f"memprobe: {kind} (exit {code}): {plain(' '.join(message.split()))}") from None
    return dump(result)


def _path(value: str | None, argument: str) -> Path | None:
    """A path an agent passed (untrusted, as on the command line), or None: no file system names one holding a NUL."""
    if not value:
        return None
    if "\0" in value:
        raise ConfigError(f"{argument}: a path cannot hold a NUL byte, got {value[:40]!r}")
    return Path(value)


def _shown(path: Path):
    """What `memprobe show PATH --json` prints: a snapshot file's summary, or the record a directory holds."""
    from ..analysis.recorded import load_recorded
    from ..analysis.user_snapshot import snapshot_summary
    from ..rundir.read import is_snapshot_file

    return snapshot_summary(path) if is_snapshot_file(path) else load_recorded(path)[1]


# JSON Schema types as an error names them
_TYPES = {"boolean": "true or false", "string": "a string", "object": "an object", "array": "a list", "integer": "an integer"}
_TYPES |= {"number": "a number", "null": "null"}


def _expected(schema: dict) -> str:
    """What an argument's JSON Schema admits, in words (``an object or null``)."""

    def form(f: dict) -> str:
        if f.get("type") == "array" and f.get("items", {}).get("type") == "string":
            return "a list of strings"
        if "$ref" in f:  # a configuration: its own object schema
            return "an object"
        return _TYPES.get(f.get("type"), f.get("type") or "a value")

    return " or ".join(form(f) for f in schema.get("anyOf") or [schema])


def argument_error(tool: str, schema: dict, error: ValidationError) -> str:
    """A tool call's arguments that do not fit its schema, as one line naming the argument and the type it takes
    (the SDK's own text is several lines and a pydantic URL)."""
    first = error.errors(include_url=False)[0]
    name = str(first["loc"][0]) if first["loc"] else "(arguments)"
    if len(first["loc"]) == 2 and name.endswith("config"):  # a key of a configuration: what that field takes
        return f"memprobe: error (exit 2): {tool}: {config_key_error(name, str(first['loc'][1]), first)}"
    if first["type"] == "missing":
        return f"memprobe: error (exit 2): {tool}: argument {name!r} is required"
    got = shown(first.get("input"), 40)
    expected = _expected(schema.get("properties", {}).get(name, {}))
    return f"memprobe: error (exit 2): {tool}: argument {name!r} takes {expected}, got {got}"


class _Server(MCPServer):
    """The SDK's server, its argument errors said in one line (:func:`argument_error`), and no argument a tool does
    not take (the SDK would drop one silently: a misspelt ``forse`` is refused, as an unknown flag is)."""

    def close_arguments(self) -> None:
        """Every tool's published arguments: these and no others (``additionalProperties: false``)."""
        for tool in self._tool_manager.list_tools():
            tool.parameters["additionalProperties"] = False

    async def call_tool(self, name: str, arguments: dict[str, Any] | None, context: Context | None = None):
        if arguments is None:  # a call that gives none: as {} (the SDK failed on it with no message)
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolError(f"memprobe: error (exit 2): {name}: its arguments are an object, got {shown(arguments, 40)}")
        tool = self._tool_manager.get_tool(name)
        unknown = sorted(set(arguments or {}) - set(tool.parameters.get("properties", {}))) if tool else []
        if unknown:
            takes = ", ".join(tool.parameters.get("properties", {})) or "none"
            raise ToolError(f"memprobe: error (exit 2): {name}: no argument {unknown[0]!r} (it takes: {takes})")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            tool = self._tool_manager.get_tool(name)
            if not isinstance(e.__cause__, ValidationError) or tool is None:
                raise
            raise ToolError(argument_error(name, tool.parameters, e.__cause__)) from e.__cause__


async def run(
    config: ConfigArgument = None,
    out: OutArgument = None,
    force: ForceArgument = False,
    analysis_only: AnalysisOnlyArgument = False,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Run a repro (or the user's model, config "model": "FILE:FACTORY") in a probe process and return its
    report.json (as `memprobe run --json`): the saved-for-backward table, findings and the verdict.

    config: report.json `config` fields (its schema lists them, with their types, words and defaults); out: the
    run directory (refused if not empty unless force: then only one memprobe wrote is replaced); analysis_only:
    partition without generating kernels (faster, no measured step).
    """
    from ..config import config_from_values
    from ..verbs import run_probe_in_child

    def work(progress):
        cfg = config_from_values(config_values(config))
        return run_probe_in_child(cfg, _path(out, "out"), force=force, analysis_only=analysis_only, progress=progress)

    return await _call(ctx, work)


async def diff(
    a: SideArgument,
    b: SideArgument,
    config: SideConfigArgument = None,
    a_config: SideConfigArgument = None,
    b_config: SideConfigArgument = None,
    out: OutArgument = None,
    force: ForceArgument = False,
    analysis_only: AnalysisOnlyArgument = False,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Rank what B keeps alive for backward that A does not (as `memprobe diff A B --json`).

    a, b: each a run directory (read, not re-run) or a recipe (bf16, tensorwise, rowwise, rowwise_with_gw_hp,
    fp8) run with `config` and its own `a_config` / `b_config` values (no `recipe`: a side's recipe is `a` or `b`);
    out: where runs and diff.json go.
    """
    from ..orchestrate.diff import run_diff
    from ..orchestrate.options import RunOptions
    from ..orchestrate.process import SideEnv
    from ..verbs import diff_side

    def work(progress):
        shared = config_values(config)
        sides = {
            "a": diff_side("a", a, shared, config_values(a_config)),
            "b": diff_side("b", b, shared, config_values(b_config)),
        }
        if shared and all(isinstance(side, Path) for side in sides.values()):
            raise ConfigError("config: it configures a side that runs; a and b are run directories, read as recorded")
        label = f"diff-{a}-vs-{b}".replace("/", "_")
        run = RunOptions(progress=progress, out=_path(out, "out"), force=force)
        result, _out = run_diff(sides, {"a": SideEnv(), "b": SideEnv()}, run, label=label, analysis_only=analysis_only)
        return result

    return await _call(ctx, work)


async def explain(
    run_dir: RunDirArgument = None,
    config: ConfigArgument = None,
    out: OutArgument = None,
    force: ForceArgument = False,
    full: Annotated[StrictFlag, Field(description="Generate kernels for every run (default: analysis-only).")] = False,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Rank SAC policy edits (one save-list op recomputed each) by bytes freed per added FLOP (as `memprobe
    explain --json`). run_dir: a finished run as the base; otherwise `config` says what to run. A finished run
    of a user's model (its config `model` or `hf_config`) is run again only when `config` names the same one."""
    from ..orchestrate.explain import run_explain
    from ..orchestrate.options import RunOptions
    from ..verbs import explain_base

    def how(name: str, value: str) -> str:
        return f"config {json.dumps({name: value})}"

    def work(progress):
        values = config_values(config)
        keys = ", ".join(sorted(set(values) - set(NAMES_CODE)))
        given = f"config key(s) {keys}" if keys else ""
        base = _path(run_dir, "run_dir")
        cfg, named = explain_base(base, values, given, "run_dir")
        run = RunOptions(progress=progress, out=_path(out, "out"), force=force)
        result, _out = run_explain(cfg, base, run, full=full, named=named, how=how)
        return result

    return await _call(ctx, work)


async def show(
    path: Annotated[
        StrictStr,
        Field(
            description="A run directory, or a diff / explain / bisect directory or its JSON file; or a CUDA "
            "memory snapshot file taken elsewhere (torch.cuda.memory._dump_snapshot)."
        ),
    ],
    ctx: Context | None = None,
) -> dict[str, Any]:
    """A recorded run (report.json) or diff / explain / bisect result, checked as it is read, or what is alive at
    the peak of a CUDA memory snapshot (as `memprobe show PATH --json`)."""
    return await _call(ctx, lambda _progress: _shown(_path(path, "path") or Path(path)))


async def gate(
    budget: Annotated[
        StrictStr | None,
        Field(
            description="The budget file: probes and their limits (default memprobe.toml; a probe that names code, "
            "a command or a model, runs only from a budget file the call names)."
        ),
    ] = None,
    probes: Annotated[list[StrictStr] | None, Field(description="Check only these probes (default: every one).")] = None,
    from_runs: Annotated[
        list[StrictStr] | None, Field(description="Finished runs used instead of running their probes: [NAME=]RUN_DIR each.")
    ] = None,
    out: OutArgument = None,
    force: ForceArgument = False,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Check probes against the limits of a budget file (as `memprobe gate --json`): verdicts per limit, the
    breaches explained. budget: the budget file; from_runs: finished runs used instead of running ([NAME=]RUN_DIR)."""
    from ..orchestrate.options import RunOptions
    from ..verbs import gate as check_gate
    from ..verbs import plan_gate

    def work(progress):
        for entry in from_runs or ():
            _path(entry, "from_runs")
        budget_path = _path(budget, "budget") or Path("memprobe.toml")
        plan = plan_gate(budget_path, tuple(probes or ()), tuple(from_runs or ()), named=bool(budget))
        return check_gate(plan, RunOptions(progress=progress, out=_path(out, "out"), force=force))

    return await _call(ctx, work)


async def policies(ctx: Context | None = None) -> dict[str, Any]:
    """The per-op SAC policies `ac_policy` accepts, with their save lists (as `memprobe policies --json`)."""
    from ..verbs import policy_table

    return await _call(ctx, lambda _progress: policy_table())


# the tools, each a verb (the CLI's command of the same name calls what it calls) with what it may do
TOOLS = ((run, WRITES_RUNS), (diff, WRITES_RUNS), (explain, WRITES_RUNS), (show, READS), (gate, WRITES_RUNS), (policies, READS))


def build_server() -> MCPServer:
    server = _Server("memprobe", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    for tool, may in TOOLS:
        server.tool(annotations=may)(tool)
    server.close_arguments()
    return server


def serve() -> None:
    """Serve over stdio until the client closes the connection. Its probes fork from a running ``memprobe serve``, or
    from a server of its own that is resident as that one is (torchao imported, CUDA probes forked) for its lifetime."""
    from ..orchestrate.forkserver import keep_resident

    keep_resident()
    build_server().run("stdio")
