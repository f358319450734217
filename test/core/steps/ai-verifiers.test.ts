import { describe, expect, it } from "vitest";
import {
  registerVerifier,
  verifierNamed,
  verifierNames,
} from "../../../src/core/steps/ai/verifiers.js";

describe("the checks an ai step names with verify:", () => {
  const check = (name: string, outputs: Record<string, unknown>, expected: string[] = []) =>
    verifierNamed(name)?.check(outputs as never, expected);

  it("non-empty: an answer with text passes, an empty or missing one does not", () => {
    expect(check("non-empty", { text: "yes" })).toBeUndefined();
    expect(check("non-empty", { text: "  \n" })).toBe("the answer is empty");
    expect(check("non-empty", {})).toBe("the answer is empty");
  });

  it("json: one JSON value passes, prose or no text does not", () => {
    expect(check("json", { text: '{"ok": true}' })).toBeUndefined();
    expect(check("json", { text: "It is fine." })).toBe("the answer is not JSON");
    expect(check("json", {})).toBe("the answer is not JSON");
  });

  it("findings-complete: names the expected findings that were not reported", () => {
    expect(check("findings-complete", { "finding.a": 1 }, ["a"])).toBeUndefined();
    expect(check("findings-complete", { "finding.a": 1 }, ["a", "b", "c"])).toBe(
      "findings not reported: b, c",
    );
  });

  it("takes a new check under a new name only", () => {
    registerVerifier("test-short", { summary: "short", check: () => undefined });
    expect(verifierNames()).toContain("test-short");
    expect(() => registerVerifier("json", { summary: "x", check: () => undefined })).toThrow(
      /already registered/,
    );
  });
});
