"""`memprobe mcp` through the MCP SDK's own client over stdio: the tools are listed, `run` on a tiny
configuration and `diff` on two run directories return the JSON the CLI's --json gives, progress
arrives as notifications, and an agent's paths are refused as the CLI refuses them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import ADDRESS_FIELDS, TINY, invoke, mcp_session

mcp = pytest.importorskip("mcp", reason="the MCP SDK is the optional extra memprobe[mcp]")

DATA = Path(__file__).parent / "data" / "cuda"
TOOLS = {"run", "diff", "explain", "show", "gate", "policies"}
# what two runs of one configuration must agree on (times, processes, addresses and paths differ)
SAME = ("status", "config", "policy", "saved_totals", "findings", "checks", "verdict")


def _json(result) -> dict:
    """A tool's result as the JSON it carries (the structured content, checked against its text)."""
    assert not result.is_error, result.content
    text = json.loads(result.content[0].text)
    assert result.structured_content == text or result.structured_content == {"result": text}
    return text


@pytest.mark.e2e
def test_an_agent_runs_and_diffs_and_gets_the_clis_json(tmp_path, runs):
    cli_run = runs(*TINY)  # the CLI's run of the same configuration
    fixture_diff = json.loads(invoke("diff", DATA / "bf16-legacy", DATA / "rowwise-legacy", "--json", "-q").stdout)
    progress: list[str] = []

    async def calls(session):
        tools = {t.name for t in (await session.list_tools()).tools}

        async def on_progress(value, total, message):
            progress.append(message)

        run = await session.call_tool(
            "run",
            {"config": {"dim": 64, "hidden": 128, "seq": 32, "layers": 1, "device": "cpu"}, "out": str(tmp_path / "r")},
            progress_callback=on_progress,
        )
        diff = await session.call_tool("diff", {"a": str(DATA / "bf16-legacy"), "b": str(DATA / "rowwise-legacy")})
        refused = await session.call_tool("run", {"config": {"dim": 64}, "out": str(tmp_path / "r")})
        bad = await session.call_tool("show", {"path": str(tmp_path / "nowhere")})
        return tools, run, diff, refused, bad

    tools, run, diff, refused, bad = mcp_session(calls)
    assert TOOLS <= tools
    report = _json(run)
    # the run directory it wrote is what `memprobe show --json` prints for it ...
    assert report == json.loads(invoke("show", tmp_path / "r", "--json").stdout)
    # ... and the CLI's own run of the configuration gives the same table, findings and verdict
    for key in SAME:
        assert report[key] == cli_run.report[key], key
    drop = ADDRESS_FIELDS
    assert [{k: v for k, v in r.items() if k not in drop} for r in report["saved_tensors"]] == [
        {k: v for k, v in r.items() if k not in drop} for r in cli_run.report["saved_tensors"]
    ]
    assert report["verdict"]["text"] and report["saved_tensors"]
    assert progress and any("step" in m for m in progress)
    # a diff of two run directories: exactly the CLI's --json
    assert _json(diff) == fixture_diff and fixture_diff["verdict"]["text"].startswith("B saves")
    # untrusted paths: a non-empty --out is refused without force, a missing directory is one line
    assert refused.is_error and "--force" in refused.content[0].text and (tmp_path / "r" / "report.json").is_file()
    assert bad.is_error and "exit 2" in bad.content[0].text and len(bad.content[0].text.splitlines()) == 1


def test_policies_and_show_over_mcp():
    async def calls(session):
        return (
            await session.call_tool("policies", {}),
            await session.call_tool("show", {"path": str(DATA / "rowwise-legacy")}),
            await session.call_tool("show", {"path": str(DATA / "rowwise-legacy" / "snapshot.pickle")}),
        )

    policies, shown, snapshot = mcp_session(calls)
    assert _json(policies) == json.loads(invoke("policies", "--json").stdout)
    assert _json(shown) == json.loads(invoke("show", DATA / "rowwise-legacy", "--json").stdout)
    # a snapshot file (taken elsewhere): what `memprobe show SNAPSHOT.pickle --json` prints
    assert _json(snapshot) == json.loads(invoke("show", DATA / "rowwise-legacy" / "snapshot.pickle", "--json").stdout)


def test_a_missing_sdk_is_one_line_saying_how_to_install_it(tmp_path):
    # a directory that shadows the SDK with a package that fails to import, as an uninstalled one would
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n")
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "memprobe", "mcp"], capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "pip install 'memprobe[mcp]'" in proc.stderr


# -- an agent's bad arguments ------------------------------------------------------------------------------------------


def _tool_error(result) -> str:
    """A tool's error, as its one line."""
    assert result.is_error, result.content
    text = result.content[0].text
    assert len(text.splitlines()) == 1 and "pydantic" not in text and "Traceback" not in text, text
    return text


def test_mcp_paths_and_argument_types_are_one_line_errors(tmp_path):
    async def calls(session):
        return [
            await session.call_tool("run", {"out": "a\u0000b", "config": {"device": "cpu"}}),
            await session.call_tool("show", {"path": "x\u0000y"}),
            await session.call_tool("run", {"force": "maybe"}),
            await session.call_tool("gate", {"probes": "p"}),
            await session.call_tool("show", {}),
            await session.call_tool("run", {"config": {"dim": "wide"}}),
        ]

    nul_out, nul_path, force, probes, missing, dim = (_tool_error(r) for r in mcp_session(calls))
    assert "exit 2" in nul_out and "out: a path cannot hold a NUL byte" in nul_out
    assert "path: a path cannot hold a NUL byte" in nul_path
    assert "argument 'force' takes true or false, got 'maybe'" in force, force
    assert "argument 'probes' takes a list of strings or null, got 'p'" in probes, probes
    assert "argument 'path' is required" in missing, missing
    assert "exit 2" in dim and "config key 'dim': expected an integer, got 'wide'" in dim, dim


def test_mcp_flags_are_true_or_false_and_errors_echo_a_bounded_prefix(tmp_path):
    """`force: "yes"` replaced a run (pydantic's lax mode read it as true); a flag takes true or false only. A 5 MB
    path came back whole in the error; `out: /proc/self/x` was an error with no message (exit 70)."""
    made = tmp_path / "r"
    made.mkdir()
    (made / "notes.txt").write_text("mine")

    async def calls(session):
        return [
            await session.call_tool("run", {"force": "yes", "out": str(made), "config": {"device": "cpu"}}),
            await session.call_tool("run", {"analysis_only": 1}),
            await session.call_tool("explain", {"full": "true"}),
            await session.call_tool("show", {"path": "x" * 5_000_000}),
            await session.call_tool("run", {"out": "/proc/self/x", "config": {"recipe": "bf16", "device": "cpu"}}),
        ]

    force, analysis_only, full, long_path, proc_out = (_tool_error(r) for r in mcp_session(calls))
    assert "argument 'force' takes true or false, got 'yes'" in force, force
    assert "argument 'analysis_only' takes true or false, got 1" in analysis_only, analysis_only
    assert "argument 'full' takes true or false, got 'true'" in full, full
    assert "exit 2" in long_path and "(truncated: " in long_path and len(long_path) < 2500, long_path[:300]
    assert "exit 2" in proc_out and "cannot make the directory /proc/self/x" in proc_out, proc_out
    assert (made / "notes.txt").read_text() == "mine"


# -- what an agent reads: each tool's arguments typed, and what it may do ------------------------------------------------

# a call each tool may be given (none runs here: validated against the published schema only)
GOOD_CALLS = {
    "run": {"config": {"recipe": "bf16", "dim": 64, "lr": 1, "save_ops": ["aten.abs"], "compile": False}, "force": True},
    "diff": {"a": "bf16", "b": "rowwise", "config": {"layers": 1}, "b_config": {"ac_policy": "torchtitan-2025-01"}},
    "explain": {"run_dir": "r", "config": {"model": "m.py:build"}, "full": True},
    "show": {"path": "r"},
    "gate": {"budget": "memprobe.toml", "probes": ["p"], "from_runs": ["p=r"]},
    "policies": {},
}
# a wrong type for each tool, and the words its refusal names
BAD_CALLS = {
    "run": ({"config": {"layers": "2"}}, "config key 'layers': expected an integer, got '2'"),
    "diff": ({"a": "bf16", "b": "rowwise", "a_config": {"recipe": "bf16"}}, "a_config key 'recipe': unknown configuration key"),
    "explain": ({"config": {"ac": "sometimes"}}, "config key 'ac': expected one of none, full, op, memory-budget, remat, budget"),
    "show": ({"path": 3}, "argument 'path' takes a string, got 3"),
    "gate": ({"probes": "p"}, "argument 'probes' takes a list of strings or null, got 'p'"),
    "policies": ({"verbose": True}, "policies: no argument 'verbose' (it takes: none)"),
}


def _config_schema(tool, argument: str = "config") -> dict:
    ref = next(f["$ref"] for f in tool.input_schema["properties"][argument]["anyOf"] if "$ref" in f)
    return tool.input_schema["$defs"][ref.rpartition("/")[2]]


def test_each_tool_publishes_typed_arguments_and_what_it_may_do():
    jsonschema = pytest.importorskip("jsonschema")
    from memprobe.config import ProbeConfig
    from memprobe.fields import declared, default_of

    async def calls(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        return tools, {name: await session.call_tool(name, args) for name, (args, _) in BAD_CALLS.items()}

    tools, refused = mcp_session(calls)
    assert set(tools) == TOOLS
    # the configuration: one property per declared field, its type, words, default and help; nothing else
    config = _config_schema(tools["run"])
    assert config["additionalProperties"] is False
    assert list(config["properties"]) == [f.name for f, _ in declared(ProbeConfig)]
    for f, o in declared(ProbeConfig):
        prop = config["properties"][f.name]
        forms = prop.get("anyOf", [prop])
        assert prop["description"].startswith(" ".join(o.help.split())), f.name
        if o.words():
            assert next(x["enum"] for x in forms if "enum" in x) == list(o.words()), f.name
        kinds = {"flag": "boolean", "whole": "integer", "number": "number", "text": "string", "ops": "array", "words": "array"}
        assert kinds[o.kind] in {x.get("type") for x in forms}, f.name
        listed = o.kind in ("ops", "words")
        assert prop["default"] == (None if o.preset else list(default_of(f)) if listed else default_of(f)), f.name
    assert set(_config_schema(tools["diff"], "b_config")["properties"]) == set(config["properties"]) - {"recipe"}
    # what each may do: show and policies read; the others write run directories (force: memprobe's own replaced)
    for name, tool in tools.items():
        reads = name in ("show", "policies")
        assert tool.annotations.read_only_hint is reads and tool.annotations.open_world_hint is False, name
        assert reads or (tool.annotations.destructive_hint is True and tool.annotations.idempotent_hint is False), name
    # a good call fits its tool's published schema; a wrong type does not, and the server refuses it naming the type
    for name, tool in tools.items():
        jsonschema.validate(GOOD_CALLS[name], tool.input_schema)
        bad, says = BAD_CALLS[name]
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, tool.input_schema)
        text = _tool_error(refused[name])
        assert "exit 2" in text and says in text, (name, text)


def test_a_tool_refuses_configuration_it_would_not_use():
    async def calls(session):
        return [
            await session.call_tool("explain", {"run_dir": str(DATA / "rowwise-legacy"), "config": {"layers": 3}}),
            await session.call_tool(
                "diff", {"a": str(DATA / "bf16-legacy"), "b": str(DATA / "rowwise-legacy"), "config": {"layers": 3}}
            ),
        ]

    explain, diff = (_tool_error(r) for r in mcp_session(calls))
    assert "config key(s) layers: explain takes the configuration of run_dir as recorded" in explain
    assert "config: it configures a side that runs; a and b are run directories" in diff


GATE_BUDGET = """\
[probes.p]
recipe = "rowwise"
dim = 64
hidden = 128
seq = 32
layers = 1
device = "cpu"

[probes.p.limits]
saved_bytes = "24 MiB"
weight_derived_saved_bytes = 0
"""
TINY_RUN = DATA.parent / "cpu" / "tiny-rowwise"
EXPLAIN = ("--recipe", "bf16", *TINY, "--ac", "none")


def _without(doc, drop: tuple[str, ...]):
    """``doc`` without the keys ``drop`` names, at any depth: what differs between two runs of one configuration."""
    if isinstance(doc, dict):
        return {k: _without(v, drop) for k, v in doc.items() if k not in drop}
    if isinstance(doc, list):
        return [_without(v, drop) for v in doc]
    return doc


# each verb: the CLI's arguments, the tool's, and what differs between two runs of it (paths, times, addresses)
VERBS = {
    "policies": (("policies",), {}, ()),
    "show": (("show", DATA / "rowwise-legacy"), {"path": str(DATA / "rowwise-legacy")}, ()),
    "diff": (
        ("diff", DATA / "bf16-legacy", DATA / "rowwise-legacy"),
        {"a": str(DATA / "bf16-legacy"), "b": str(DATA / "rowwise-legacy")},
        (),
    ),
    "gate": (
        ("gate", "--budget", "{budget}", "--from", f"p={TINY_RUN}"),
        {"budget": "{budget}", "from_runs": [f"p={TINY_RUN}"]},
        (),
    ),
    "explain": (
        ("explain", *EXPLAIN, "--out", "{out}"),
        {
            "config": {"recipe": "bf16", "dim": 64, "hidden": 128, "seq": 32, "layers": 1, "device": "cpu", "ac": "none"},
            "out": "{out}",
        },
        ("run", *ADDRESS_FIELDS),  # each edit's run directory and the base's
    ),
}


def _filled(value, names: dict):
    if isinstance(value, dict):
        return {k: _filled(v, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_filled(v, names) for v in value)
    return value.format(**names) if isinstance(value, str) else value


@pytest.mark.parametrize(
    "verb", [pytest.param(v, marks=[pytest.mark.e2e, pytest.mark.slow]) if v == "explain" else v for v in VERBS]
)
def test_the_tool_and_the_command_of_each_verb_give_the_same_result(verb, tmp_path):
    """Each tool calls what the verb's command calls (memprobe.verbs): the same input gives the same JSON, but for
    what differs between two runs of one configuration (`run`: test_an_agent_runs_and_diffs_and_gets_the_clis_json)."""
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_BUDGET)
    cli_args, tool_args, drop = VERBS[verb]
    cli = invoke(*_filled(cli_args, {"budget": budget, "out": tmp_path / "cli"}), "--json")
    assert cli.returncode == 0, cli.stderr
    tool_args = _filled(tool_args, {"budget": str(budget), "out": str(tmp_path / "tool")})

    async def calls(session):
        return await session.call_tool(verb, tool_args)

    assert _without(_json(mcp_session(calls)), drop) == _without(json.loads(cli.stdout), drop)
