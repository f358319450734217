// The import rules of src/ (ARCHITECTURE.md explains them): the layers point inwards, core is pure,
// entries stand alone, and nothing imports itself back. test/layers.test.ts runs them; so does
// `npx depcruise src`.
//
/**
 * The imports an entry still has of another entry, named one by one: test/layers.test.ts fails
 * when one is gone (remove it here) and when a new one appears, so the list can only shrink.
 */
export const ENTRY_TO_ENTRY_ALLOWED = [
  // The CLI is the package's one binary: `playbook-bot playground` and `playbook-bot lsp` start them.
  { from: "src/entries/cli/main.ts", to: "src/entries/playground/start.ts" },
  { from: "src/entries/cli/main.ts", to: "src/entries/lsp/main.ts" },
  // The playground's sandbox runs the app itself over memory adapters; the Actions bot is the app
  // run by a workflow. Each goes when the app's wiring moves out of src/entries/app.
  { from: "src/entries/playground/sandbox.ts", to: "src/entries/app/app.ts" },
  { from: "src/entries/playground/sandbox.ts", to: "src/entries/app/config.ts" },
  { from: "src/entries/action/bot.ts", to: "src/entries/app/app.ts" },
  { from: "src/entries/action/bot.ts", to: "src/entries/app/config.ts" },
];

const exactly = (file) => `^${file.replace(/[.]/g, "\\.")}$`;
const entryOf = (file) => file.split("/").slice(0, 3).join("/");
const filesWithAllowedEdges = [...new Set(ENTRY_TO_ENTRY_ALLOWED.map((e) => e.from))];

/** The entry rule for one module that has allowed edges: every other entry is still forbidden. */
const entryRuleFor = (file) => ({
  name: "entry-imports-no-entry",
  comment: `${file} may import only the entries ENTRY_TO_ENTRY_ALLOWED names for it`,
  severity: "error",
  from: { path: exactly(file) },
  to: {
    path: "^src/entries/",
    pathNot: [
      `^${entryOf(file)}/`,
      ...ENTRY_TO_ENTRY_ALLOWED.filter((e) => e.from === file).map((e) => exactly(e.to)),
    ],
  },
});

const LAYER_ORDER = ["core", "runtime", "adapters", "entries"];

/** A layer may import its own layer and the ones inside it, never one outside it. */
const layerRules = LAYER_ORDER.slice(0, -1).map((layer, i) => ({
  name: `${layer}-imports-inwards`,
  comment: `src/${layer} may import only ${LAYER_ORDER.slice(0, i + 1).join(", ")}`,
  severity: "error",
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${LAYER_ORDER.slice(i + 1).join("|")})/` },
}));

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      comment: "a module may not reach itself through its imports (type-only imports count)",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "core-is-pure",
      comment: "src/core runs in a browser: no node: built-ins",
      severity: "error",
      from: { path: "^src/core/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "entry-imports-no-entry",
      comment: "an entry (app, action, cli, lsp, playground) may not import another entry",
      severity: "error",
      from: { path: "^src/entries/([^/]+)/", pathNot: filesWithAllowedEdges.map(exactly) },
      to: { path: "^src/entries/", pathNot: "^src/entries/$1/" },
    },
    ...filesWithAllowedEdges.map(entryRuleFor),
    {
      name: "server-is-an-entry",
      comment: "src/entries/server.ts starts the app; nothing imports it",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/entries/server\\.ts$" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/|^src/core/format/generated/" },
  },
};
