"""``memprobe mcp``: serve the verbs to coding agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

import click

from ..errors import ConfigError
from .options import debug_option


@click.command(short_help="Serve run, diff, explain, show, gate and policies over MCP (stdio).")
@debug_option
def mcp() -> None:
    """Serve memprobe's verbs to a coding agent over the Model Context Protocol, on stdin/stdout.

    Tools: run, diff, explain, show, gate, policies; each returns the JSON of the verb's --json
    (with its verdict), and long runs send progress notifications. Needs the MCP SDK:
    pip install 'memprobe[mcp]'. docs/mcp.md shows how to register it with an agent.
    """
    try:
        from ..mcp.server import serve
    except ImportError as e:
        if (e.name or "").split(".")[0] != "mcp":
            raise
        raise ConfigError("memprobe mcp needs the MCP Python SDK: pip install 'memprobe[mcp]' (or pip install mcp)") from None
    serve()
