"""Other agents that speak MCP (Cursor, VS Code, Codex, Claude Desktop, Windsurf, Gemini
CLI): where each keeps its servers, and registering the same reviewed memory there."""
