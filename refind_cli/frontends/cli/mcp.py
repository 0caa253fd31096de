"""`refind mcp`: serve the archive to MCP clients over stdio. The SDK is an optional extra, imported only
here (and only when the command runs)."""

from __future__ import annotations

from typing import Annotated

import typer

from refind_cli.frontends.cli.common import TzOption, app, error_boundary, fail, open_home

INSTALL = "refind mcp needs the MCP SDK (2.x): pip install 'refind-cli[mcp]'"


@app.command("mcp")
def mcp_command(
    ctx: typer.Context,
    chat: Annotated[
        list[str] | None,
        typer.Option("--chat", help="Serve only these chats (name, id or number); repeatable."),
    ] = None,
    tz: TzOption = None,
) -> None:
    """Serve the chats to AI assistants over the Model Context Protocol (stdio), read-only: tools
    search_chat, get_context and list_chats, and the refind prompt. Configure it in an MCP client as the
    command `refind mcp`; logs go to stderr."""
    from refind_cli.dates.clock import zone

    try:
        from refind_cli.frontends.mcp import server as mcp_server
    except ModuleNotFoundError as exc:
        # Missing, or the 1.x series (which has no separate mcp_types package).
        if not (exc.name or "").startswith("mcp"):
            raise
        fail(INSTALL)
    with error_boundary(), open_home(ctx) as home:
        mcp_server.serve(home, tz=zone(tz), chats=chat)
