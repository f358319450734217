// Bundles the CLI: dist/cli/main.js, which bin/playbook-bot.js starts, and a chunk per command it
// loads when that command runs. Start-up is most of a command's time: one minified file and a few
// chunks load in a fraction of the time of the 290 modules the validation path is built from.
// The packages of the app, AI, tools, Redis and metrics stay outside the bundle, loaded from
// node_modules by the commands that run playbooks; the language server and the playground are
// started from dist/entries/ by bin/playbook-bot.js.
import { rmSync } from "node:fs";
import { build } from "esbuild";

const EXTERNAL = [
  "probot",
  "@octokit/*",
  "openai",
  "ioredis",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/sdk/*",
  "vscode-languageserver",
  "vscode-languageserver/*",
  "vscode-languageserver-textdocument",
  "prom-client",
  "bottleneck",
];

// Chunks are named by their content: last build's must not linger beside this one's.
rmSync("dist/cli", { recursive: true, force: true });

await build({
  entryPoints: { main: "src/entries/cli/main.ts" },
  outdir: "dist/cli",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  legalComments: "none",
  minify: true,
  keepNames: true,
  sourcemap: false,
  external: EXTERNAL,
  logLevel: "warning",
  // Bundled CommonJS modules call require(); in an ES module it has to be made.
  banner: {
    js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  },
});
