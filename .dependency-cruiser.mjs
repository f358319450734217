// The import rules of src/ (ARCHITECTURE.md explains them): the layers point inwards, core is pure,
// entries stand alone, and nothing imports itself back. test/layers.test.ts runs them; so does
// `npx depcruise src`.
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
      name: "engine-through-the-run-service",
      comment:
        "outside core, only the interpreter and the run driver call the engine (start, advance): every host goes through src/runtime/run-service",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: [
          "^src/core/",
          "^src/runtime/interpreter[.]ts$",
          "^src/runtime/run-service/driver[.]ts$",
        ],
      },
      to: { path: "^src/core/engine/engine[.]ts$", dependencyTypesNot: ["type-only"] },
    },
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
      from: { path: "^src/entries/([^/]+)/" },
      to: { path: "^src/entries/", pathNot: "^src/entries/$1/" },
    },
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
