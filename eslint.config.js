import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The layers, innermost first: core (pure, runs in a browser) ← runtime (interpreter, ports) ←
// adapters (GitHub, local, memory, stores) ← entries (app, server, Action, CLI). An import may only
// point inwards; these patterns name what each layer must not reach.
const OUTER_LAYERS = {
  core: ["runtime", "adapters", "entries"],
  runtime: ["adapters", "entries"],
  adapters: ["entries"],
};
const HOST_PACKAGES = [
  "probot",
  "@octokit/*",
  "@actions/*",
  "ioredis",
  "commander",
  "tinyglobby",
  "esbuild",
];

function layerRule(layer) {
  const patterns = [
    {
      group: OUTER_LAYERS[layer].flatMap((outer) => [`**/${outer}/*`, `**/${outer}/**`]),
      message: `src/${layer} may not import from an outer layer (${OUTER_LAYERS[layer].join(", ")}).`,
    },
  ];
  if (layer === "core") {
    patterns.push({
      group: ["node:*", ...HOST_PACKAGES],
      message: "src/core is pure and runs in a browser: no node: built-ins and no host packages.",
    });
  }
  if (layer === "runtime") {
    patterns.push({
      group: HOST_PACKAGES.filter((p) => p !== "ioredis"),
      message: "src/runtime talks to the world through ports only; host packages live in adapters.",
    });
  }
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: { "no-restricted-imports": ["error", { patterns }] },
  };
}

export default tseslint.config(
  { ignores: ["dist/", "coverage/", "reports/", "node_modules/", "src/core/format/generated/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", URL: "readonly" },
    },
    rules: {
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  // Functions in core and runtime stay short enough to read at once.
  {
    files: ["src/core/**/*.ts", "src/runtime/**/*.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  layerRule("core"),
  layerRule("runtime"),
  layerRule("adapters"),
  {
    // The playground's page runs in a browser.
    files: ["src/entries/playground/page/**/*.js"],
    languageOptions: {
      globals: Object.fromEntries(
        ["window", "document", "fetch", "Node", "setTimeout", "clearTimeout", "setInterval"].map(
          (name) => [name, "readonly"],
        ),
      ),
    },
  },
);
