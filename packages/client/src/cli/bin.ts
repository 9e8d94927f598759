#!/usr/bin/env node
// `board-buy` (`npx @board/client <path>`): the buyer command where the package is installed;
// $DATA_DIR and the other relative paths are taken from the working directory.

import { runBuy } from "./buy.js";

await runBuy({ command: "npx @board/client", root: process.cwd(), argv: process.argv.slice(2) });
