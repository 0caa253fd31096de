"""`refind mcp`: the MCP server and its stdio transport."""
