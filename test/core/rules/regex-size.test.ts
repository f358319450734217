import { describe, expect, it } from "vitest";
import { parseMatcher } from "../../../src/core/alerts/matchers.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import {
  compileLinear,
  expandedSize,
  linearRegExpForAjv,
  MAX_PROGRAM_SIZE,
} from "../../../src/core/util/regex.js";

/**
 * RE2 is linear in the input, but its cost is input length × program size. A pattern's program
 * size is capped (like RE2's `max_mem`), so an 11 KB playbook whose input pattern is 30 groups of
 * `[a-z]{1000}` and whose default is 10,000 characters cannot keep `validate` busy for seconds.
 */
const HUGE = "(?:x|[a-z]{1000})".repeat(30);

const playbook = (pattern: string, value: string) => `apiVersion: playbook-bot/v1
id: re
name: re
description: re
on:
  alerts:
    match:
      service: '=~${pattern}'
inputs:
  v:
    type: string
    pattern: '${pattern}'
    default: '${value}'
steps:
  - id: e
    name: e
    type: end
`;

describe("the size of a pattern's program", () => {
  it("validates an 11 KB playbook with a huge pattern in well under 2 s, and says why", () => {
    const text = playbook(HUGE, "a".repeat(10_000));
    const started = Date.now();
    const report = validateSource("re.yaml", text);
    expect(Date.now() - started).toBeLessThan(2_000);
    const found = report.diagnostics.filter((d) => d.rule === "regex-invalid");
    expect(found.map((d) => d.line)).toEqual([8, 12]);
    for (const d of found) {
      expect(d.message).toContain(`more than the limit of ${MAX_PROGRAM_SIZE}`);
      expect(d.hint).toMatch(/smaller repetition counts/);
    }
  }, 60_000);

  it("refuses it wherever a pattern is compiled", () => {
    expect(compileLinear(HUGE)).toMatchObject({ ok: false, tooLarge: true });
    expect(compileLinear(HUGE, { ignoreCase: true })).toMatchObject({ ok: false });
    expect(parseMatcher("service", `=~${HUGE}`)).toMatchObject({ error: /too large/ });
    expect(() => linearRegExpForAjv(HUGE, "")).toThrow(/too large/);
  });

  it("keeps patterns people write", () => {
    for (const p of [
      "^[a-z0-9-]{1,63}$",
      ".{0,1000}",
      "^v\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$",
      "[[:alpha:]]{1,100}",
    ])
      expect(compileLinear(p).ok, p).toBe(true);
    const report = validateSource("re.yaml", playbook("^[a-z]{1,63}$", "api"));
    expect(report.diagnostics.filter((d) => d.rule === "regex-invalid")).toEqual([]);
  });

  it("estimates the size with counted repetitions multiplied out, before compiling", () => {
    expect(expandedSize("abc")).toBe(3);
    expect(expandedSize("a{10}")).toBe(10);
    expect(expandedSize(".{0,1000}")).toBe(2000);
    expect(expandedSize("(?:[a-z]{100}){10}")).toBeGreaterThan(1000);
    expect(expandedSize("[{]{}]x")).toBe(5);
    expect(expandedSize(HUGE)).toBeGreaterThan(30_000);
  });
});
