"""The method: sessions and turns, search over turns and sessions, the search tools the agent and MCP share, statistics, evaluation."""
