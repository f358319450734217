import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    reporters: ["default", ["json", { outputFile: "reports/vitest.json" }]],
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts"],
      // Process entry points: run as processes by the tests (the Action bundle) or by `npm start`.
      // Generated code (the precompiled schema) is checked against its source by a test instead.
      // The playground's editor runs in a browser: its tests drive it in Chromium
      // (test/entries/playground/editor.test.ts), where this coverage does not reach.
      exclude: [
        "src/entries/action/index.ts",
        "src/entries/action/start.ts",
        "src/entries/server.ts",
        "src/core/format/generated/**",
        "src/entries/playground/editor/**",
      ],
      reporter: ["text-summary", "json-summary"],
      reportsDirectory: "coverage",
      thresholds: { lines: 90, branches: 90 },
    },
  },
});
