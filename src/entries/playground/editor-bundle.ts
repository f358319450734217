/**
 * The page's editor (./editor/, CodeMirror and the language server's completion and hover) as
 * one browser module, `editor.js`. The package's build writes it beside the page
 * (scripts/copy-playground.mjs); a playground run from the sources builds it when the page first
 * asks for it. Either way it is served by the playground itself: nothing comes from elsewhere.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The editor's entry module in the sources, when they are there (a checkout, not the package). */
export function editorEntry(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = join(here, "..", "..", "..");
  const entry = join(root, "src", "entries", "playground", "editor", "main.ts");
  return existsSync(entry) ? entry : undefined;
}

/** The editor bundled: minified ES module for current browsers, with the packages' licences. */
export async function bundleEditor(entry: string): Promise<{ code: string; packages: string[] }> {
  // esbuild is a development tool: only a run from the sources and the build load it.
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: ["es2022", "chrome111", "firefox115", "safari16.4"],
    minify: true,
    legalComments: "none",
    metafile: true,
    logLevel: "silent",
  });
  // Without `write`, esbuild hands back the one output file it made.
  const code = result.outputFiles[0]!.text;
  const packages = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) packages.add(m[1]!);
  }
  return { code, packages: [...packages].sort() };
}
