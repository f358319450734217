#!/usr/bin/env node
// The package's one binary: the CLI, which also starts the playground and the language server
// (each loaded only when its command is run).
import { main } from "../dist/entries/cli/main.js";

process.exitCode = await main(process.argv.slice(2), undefined, {
  playground: async () => (await import("../dist/entries/playground/start.js")).startPlayground,
  lsp: async () => (await import("../dist/entries/lsp/main.js")).serveStdio,
});
