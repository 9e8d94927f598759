#!/usr/bin/env node
// `board-mcp` (`npx -p @board/client board-mcp <url>`): the paying MCP proxy where the package is
// installed; $DATA_DIR and the other relative paths are taken from the working directory.

import { runMcpProxy } from "./mcp-proxy.js";

await runMcpProxy({ command: "board-mcp", root: process.cwd(), argv: process.argv.slice(2) });
