"""The front ends: the command line, the MCP server, and the renderers they share. Each parses, makes one call to the facade, renders."""
