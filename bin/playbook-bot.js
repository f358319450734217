#!/usr/bin/env node
// The package's one binary: the CLI (its bundle, dist/cli/), which also starts the playground
// and the language server (each loaded only when its command is run).
import module from "node:module";

// Node 22.1 and later keep compiled code between runs (in the OS's temporary folder); on older
// Node there is no such cache and this does nothing.
module.enableCompileCache?.();

const { main } = await import("../dist/cli/main.js");
process.exitCode = await main(process.argv.slice(2), undefined, {
  playground: async () => (await import("../dist/entries/playground/start.js")).startPlayground,
  lsp: async () => (await import("../dist/entries/lsp/main.js")).serveStdio,
});
