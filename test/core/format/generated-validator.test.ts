import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import precompiled from "../../../src/core/format/generated/playbook-validator.js";
import {
  compilePlaybookValidator,
  generateValidatorSource,
} from "../../../src/core/format/validator-source.js";

const file = new URL("../../../src/core/format/generated/playbook-validator.ts", import.meta.url);

describe("the precompiled playbook validator", () => {
  it("is exactly what the schema compiles to (run `npm run schema:write` after changing the schema)", () => {
    expect(readFileSync(file, "utf8")).toBe(generateValidatorSource());
  });

  it("reports the same errors as a validator compiled at run time", () => {
    const runtime = compilePlaybookValidator();
    const docs: unknown[] = [
      {
        apiVersion: "playbook-bot/v1",
        id: "ok",
        steps: [{ id: "a", type: "comment", body: "hi" }],
      },
      {
        apiVersion: "playbook-bot/v2",
        id: "bad id",
        steps: [
          { id: "a", type: "comit" },
          { id: "b", type: "comment", bdy: 1 },
        ],
      },
      {
        apiVersion: "playbook-bot/v1",
        id: "x",
        inputs: { "bad key": { type: "enum" } },
        nodes: {},
      },
    ];
    for (const doc of docs) {
      const a = (precompiled as unknown as typeof runtime)(doc);
      const b = runtime(doc);
      expect(a).toBe(b);
      const strip = (errors: typeof runtime.errors) =>
        (errors ?? []).map((e) => [e.keyword, e.instancePath, e.schemaPath, e.params]);
      expect(strip((precompiled as unknown as typeof runtime).errors)).toEqual(
        strip(runtime.errors),
      );
    }
  });
});
