// Bundles the CLI: dist/cli/main.js, which bin/playbook-bot.js starts, and a chunk per command it
// loads when that command runs. Start-up is most of a command's time: one minified file and a few
// chunks load in a fraction of the time of the 290 modules the validation path is built from.
// The packages of the app, AI, tools, Redis and metrics stay outside the bundle, loaded from
// node_modules by the commands that run playbooks; the language server and the playground are
// started from dist/entries/ by bin/playbook-bot.js.
import { rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { fdirBundledPicomatch } from "./bundle-plugins.mjs";

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

/**
 * js-yaml once: the core imports its ES build (what a browser gets), the CLI parses with its
 * CommonJS build (src/adapters/local/yaml-library.ts: faster under Node). In the bundle both
 * imports are the CommonJS build, so the validation path holds one parser instead of two.
 */
const oneYamlParser = {
  name: "one-yaml-parser",
  setup(b) {
    b.onResolve({ filter: /^js-yaml$/ }, (args) =>
      args.kind === "require-call"
        ? undefined
        : b.resolve(args.path, { kind: "require-call", resolveDir: args.resolveDir }),
    );
  },
};

/** How the CLI is bundled (test/entries/cli/lean-loading.test.ts reads what a command loads). */
export const CLI_BUILD_OPTIONS = {
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
  // No keepNames: it wraps every function the bundle creates in a call that renames it, which
  // costs the validation of 1,000 playbooks about a tenth of its time (closures made per value).
  sourcemap: false,
  external: EXTERNAL,
  plugins: [oneYamlParser, fdirBundledPicomatch],
  logLevel: "warning",
  // Bundled CommonJS modules call require(); in an ES module it has to be made.
  banner: {
    js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // Chunks are named by their content: last build's must not linger beside this one's.
  rmSync("dist/cli", { recursive: true, force: true });
  await build(CLI_BUILD_OPTIONS);
}
