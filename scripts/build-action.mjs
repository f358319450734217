// Bundles the Action: dist/action/index.js, which the runner starts with Node (it turns Node's
// compile cache on, then imports the rest), and the chunks it loads (the bot's code, Probot
// included, only in `mode: bot`).
// Start-up is most of the Action's time, so the bundle is minified (names kept, for readable
// stack traces) and leaves out @actions/http-client: @actions/core imports it for OIDC tokens
// only, which the Action never asks for, and with it comes undici, a third of the bundle.
import { rmSync } from "node:fs";
import { build } from "esbuild";
import { fdirBundledPicomatch } from "./bundle-plugins.mjs";

const httpClientStub = `
const refuse = () => { throw new Error("@actions/http-client is not bundled with the Action"); };
export class HttpClient { constructor() { refuse(); } }
export class BearerCredentialHandler { constructor() { refuse(); } }
`;

// Chunks are named by their content: last build's must not linger beside this one's.
rmSync("dist/action", { recursive: true, force: true });

await build({
  entryPoints: ["src/entries/action/index.ts"],
  outdir: "dist/action",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  legalComments: "none",
  minify: true,
  // No keepNames: its renaming call ran for every closure made while validating (a fifth of a
  // start on 50 playbooks), and nothing here reads a function's or a class's name.
  logLevel: "warning",
  // Bundled CommonJS modules call require(); in an ES module it has to be made.
  banner: {
    js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  },
  plugins: [
    fdirBundledPicomatch,
    {
      name: "without-http-client",
      setup(b) {
        b.onResolve({ filter: /^@actions\/http-client(\/|$)/ }, (args) => ({
          path: args.path,
          namespace: "without-http-client",
        }));
        b.onLoad({ filter: /.*/, namespace: "without-http-client" }, () => ({
          contents: httpClientStub,
          loader: "js",
        }));
      },
    },
  ],
});
