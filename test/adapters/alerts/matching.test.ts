import { describe, expect, it } from "vitest";
import { verifyRequest } from "../../../src/adapters/alerts/auth.js";
import type { SourceAuth } from "../../../src/adapters/alerts/config.js";
import {
  matches,
  parseMatcher,
  parseMatchers,
  type LabelMatcher,
} from "../../../src/core/alerts/matchers.js";
import { DEFAULT_TRIAGE_PLAYBOOK, selectPlaybook } from "../../../src/core/alerts/select.js";
import type { NormalizedAlert } from "../../../src/core/alerts/types.js";
import { bundle, hmacHex, libraryBundles } from "../../helpers/alerts.js";

const body = Buffer.from('{"alerts":[]}');
const NOW = Date.parse("2026-03-01T09:00:00Z");

describe("verifyRequest", () => {
  const bearer: SourceAuth = {
    kind: "bearer",
    secrets: ["current-token", "previous-token"],
    signatureHeader: "authorization",
  };
  const hmac: SourceAuth = { kind: "hmac", secrets: ["s1", "s0"], signatureHeader: "x-sig" };
  const stamped: SourceAuth = { ...hmac, timestampHeader: "x-ts" };

  it("bearer: current and previous tokens pass; others, a missing header, other schemes fail", () => {
    expect(verifyRequest(bearer, { authorization: "Bearer current-token" }, body)).toBe(true);
    expect(verifyRequest(bearer, { authorization: "bearer  previous-token " }, body)).toBe(true);
    expect(verifyRequest(bearer, { authorization: ["Bearer current-token"] }, body)).toBe(true);
    expect(verifyRequest(bearer, { authorization: "Bearer current-tokenX" }, body)).toBe(false);
    expect(verifyRequest(bearer, { authorization: "Bearer curren" }, body)).toBe(false);
    expect(verifyRequest(bearer, { authorization: "Basic Y3VycmVudC10b2tlbg==" }, body)).toBe(
      false,
    );
    expect(verifyRequest(bearer, {}, body)).toBe(false);
  });

  it("HMAC: bare hex or sha256=, any case; both rotation secrets; the exact bytes", () => {
    expect(verifyRequest(hmac, { "x-sig": hmacHex("s1", body) }, body)).toBe(true);
    expect(verifyRequest(hmac, { "x-sig": `sha256=${hmacHex("s0", body)}` }, body)).toBe(true);
    expect(verifyRequest(hmac, { "x-sig": hmacHex("s1", body).toUpperCase() }, body)).toBe(true);
    expect(verifyRequest(hmac, { "x-sig": hmacHex("other", body) }, body)).toBe(false);
    expect(
      verifyRequest(hmac, { "x-sig": hmacHex("s1", body) }, Buffer.from('{"alerts": []}')),
    ).toBe(false);
    expect(verifyRequest(hmac, { "x-sig": "sha256=zz" }, body)).toBe(false);
    expect(verifyRequest(hmac, { "x-sig": hmacHex("s1", body).slice(0, 62) }, body)).toBe(false);
    expect(verifyRequest(hmac, {}, body)).toBe(false);
  });

  it("Grafana with a timestamp: signs `ts:body`, rejects more than 5 minutes of skew", () => {
    const ts = String(NOW / 1000);
    const sig = hmacHex("s1", `${ts}:${body.toString()}`);
    expect(verifyRequest(stamped, { "x-sig": sig, "x-ts": ts }, body, NOW)).toBe(true);
    expect(verifyRequest(stamped, { "x-sig": sig, "x-ts": ts }, body, NOW + 299_000)).toBe(true);
    expect(verifyRequest(stamped, { "x-sig": sig, "x-ts": ts }, body, NOW + 301_000)).toBe(false);
    expect(verifyRequest(stamped, { "x-sig": sig, "x-ts": ts }, body, NOW - 301_000)).toBe(false);
    // The body alone is not what is signed when a timestamp header is configured.
    expect(verifyRequest(stamped, { "x-sig": hmacHex("s1", body), "x-ts": ts }, body, NOW)).toBe(
      false,
    );
    expect(verifyRequest(stamped, { "x-sig": sig }, body, NOW)).toBe(false);
    expect(verifyRequest(stamped, { "x-sig": sig, "x-ts": "12abc" }, body, NOW)).toBe(false);
    // Another timestamp with the old signature: refused.
    expect(
      verifyRequest(stamped, { "x-sig": sig, "x-ts": String(NOW / 1000 + 1) }, body, NOW),
    ).toBe(false);
  });
});

describe("label matchers", () => {
  const m = (label: string, spec: string): LabelMatcher => {
    const r = parseMatcher(label, spec);
    if ("error" in r) throw new Error(r.error);
    return r;
  };

  it("=, !=, =~ and !~, with a bare value meaning =", () => {
    expect(m("env", "prod")).toMatchObject({ op: "=", value: "prod" });
    expect(m("env", "=prod")).toMatchObject({ op: "=", value: "prod" });
    expect(matches(m("env", "prod"), { env: "prod" })).toBe(true);
    expect(matches(m("env", "prod"), { env: "production" })).toBe(false);
    expect(matches(m("env", "!=dev"), { env: "prod" })).toBe(true);
    expect(matches(m("env", "!=dev"), { env: "dev" })).toBe(false);
    // A missing label is the empty value.
    expect(matches(m("env", "!=dev"), {})).toBe(true);
    expect(matches(m("env", "="), {})).toBe(true);
    expect(matches(m("sev", "=~critical|warning"), { sev: "warning" })).toBe(true);
    expect(matches(m("sev", "!~critical|warning"), { sev: "warning" })).toBe(false);
    expect(matches(m("sev", "!~critical|warning"), { sev: "info" })).toBe(true);
  });

  it("regexes match the whole value, never a part", () => {
    expect(matches(m("service", "=~db"), { service: "db-main" })).toBe(false);
    expect(matches(m("service", "=~db.*"), { service: "db-main" })).toBe(true);
    expect(matches(m("service", "=~a|b"), { service: "ab" })).toBe(false);
    expect(matches(m("service", "!~db"), { service: "mydb" })).toBe(true);
  });

  it("an invalid regex is reported, never guessed", () => {
    const r = parseMatcher("service", "=~(open");
    expect("error" in r && r.error).toMatch(/^label 'service': /);
    const { matchers, errors } = parseMatchers({ a: "x", b: "!~[", c: "=~y" });
    expect(matchers.map((x) => x.label)).toEqual(["a", "c"]);
    expect(errors).toHaveLength(1);
    expect(parseMatchers(undefined)).toEqual({ matchers: [], errors: [] });
  });

  it("a pattern built to backtrack catastrophically runs in linear time (RE2)", () => {
    const value = "a".repeat(30_000) + "!";
    expect(matches(m("v", "=~(a+)+$"), { v: value })).toBe(false);
    expect(matches(m("v", "=~(a|aa)+"), { v: value })).toBe(false);
    expect(matches(m("v", "!~(a+)+"), { v: value })).toBe(true);
  });
});

function alert(over: Partial<NormalizedAlert> = {}): NormalizedAlert {
  return {
    source: "alertmanager",
    key: "alertmanager:0000",
    status: "firing",
    title: "HighErrorRate",
    summary: "",
    severity: "critical",
    labels: { alertname: "HighErrorRate", severity: "critical", env: "prod" },
    annotations: {},
    links: [],
    ...over,
  };
}

describe("selectPlaybook", () => {
  it("the bundled library: a 5xx alert with a service goes to alert-high-error-rate, explained", async () => {
    const all = await libraryBundles();
    const s = selectPlaybook(
      alert({
        title: "HighErrorRate: 5xx above 5%",
        summary: "gateway errors on every route",
        labels: { alertname: "HighErrorRate", severity: "critical", env: "prod", service: "api" },
      }),
      all,
    );
    expect(s.fallback).toBe(false);
    expect(s.chosen?.playbook).toBe("alert-high-error-rate");
    // context +3, 5xx +2, gateway errors +2, priority 5 × 0.01
    expect(s.chosen?.score).toBe(7.05);
    expect(s.chosen?.reasons).toEqual([
      "context type `service` (+3)",
      "signal `5xx` (+2)",
      "signal `(gateway|upstream) (errors?|timeouts?)` (+2)",
    ]);
    // The default is a fallback only, never a candidate.
    expect(s.candidates.map((c) => c.playbook)).toEqual(["alert-high-error-rate"]);
  });

  it("a selector that fits with score 0 beats the default triage playbook", async () => {
    const all = [
      ...(await libraryBundles()),
      bundle({ id: "service-x", on: { alerts: { match: { service: "x" } } } }),
    ];
    const s = selectPlaybook(alert({ title: "disk", labels: { service: "x" } }), all);
    expect(s.chosen).toEqual({ playbook: "service-x", score: 0, priority: 0, reasons: [] });
    expect(s.fallback).toBe(false);
  });

  it("below min_score, a dev environment or an unlisted source: the default triage playbook", async () => {
    const all = await libraryBundles();
    const weak = selectPlaybook(alert({ title: "disk" }), all);
    expect(weak.chosen?.playbook).toBe(DEFAULT_TRIAGE_PLAYBOOK);
    expect(weak.candidates.map((c) => c.playbook)).not.toContain("alert-high-error-rate");
    const dev = selectPlaybook(
      alert({ title: "5xx", labels: { severity: "critical", env: "dev", service: "x" } }),
      all,
    );
    expect(dev.candidates.map((c) => c.playbook)).not.toContain("alert-high-error-rate");
    const github = selectPlaybook(
      alert({ source: "github", title: "5xx", labels: { severity: "critical", service: "x" } }),
      all,
    );
    expect(github.chosen?.playbook).toBe(DEFAULT_TRIAGE_PLAYBOOK);
  });

  it("negative signals lower the score; a test alert drops below min_score", async () => {
    const all = await libraryBundles();
    const s = selectPlaybook(
      alert({ title: "test alert: 5xx error rate", labels: { severity: "warning", service: "x" } }),
      all,
    );
    expect(s.candidates.find((c) => c.playbook === "alert-high-error-rate")?.score).toBe(
      // 3 + 2 + 1.5 - 3 + 0.05
      3.55,
    );
    const noContext = selectPlaybook(
      alert({ title: "test alert: 5xx", labels: { severity: "warning" } }),
      all,
    );
    expect(
      noContext.candidates.find((c) => c.playbook === "alert-high-error-rate"),
    ).toBeUndefined();
    expect(noContext.chosen?.reasons).toEqual(["no selector fits; the default triage playbook"]);
    expect(noContext.fallback).toBe(true);
  });

  it("ties go to the higher priority, then the smaller id", () => {
    const sel = (priority: number, min = 0) => ({
      alerts: {
        signals: { positive: [{ pattern: "disk", weight: 1 - priority * 0.01 }] },
        priority,
        min_score: min,
      },
    });
    const s = selectPlaybook(alert({ title: "disk full" }), [
      bundle({ id: "low", on: sel(0) }),
      bundle({ id: "high", on: sel(10) }),
    ]);
    // Both score 1: priority decides.
    expect(s.candidates.map((c) => [c.playbook, c.score])).toEqual([
      ["high", 1],
      ["low", 1],
    ]);
    const same = selectPlaybook(alert({ title: "disk" }), [
      bundle({ id: "zeta", on: sel(1) }),
      bundle({ id: "alpha", on: sel(1) }),
      bundle({ id: "mid", on: sel(1) }),
    ]);
    expect(same.candidates.map((c) => c.playbook)).toEqual(["alpha", "mid", "zeta"]);
    expect(same.chosen?.playbook).toBe("alpha");
  });

  it("skips playbooks without a selector or with a broken matcher; no fallback bundled → none", () => {
    const s = selectPlaybook(alert(), [
      bundle({ id: "plain" }),
      bundle({ id: "broken", on: { alerts: { match: { env: "=~(" } } } }),
      bundle({ id: "other-source", on: { alerts: { sources: ["grafana"] } } }),
    ]);
    expect(s).toEqual({ candidates: [], fallback: true });
  });

  it("a regex signal that does not compile never matches; plain signals ignore case", () => {
    const s = selectPlaybook(alert({ title: "Disk FULL on db" }), [
      bundle({
        id: "p",
        on: {
          alerts: {
            signals: {
              positive: [
                { pattern: "(", weight: 5, regex: true },
                { pattern: "disk full", weight: 1 },
              ],
            },
          },
        },
      }),
    ]);
    expect(s.chosen).toEqual({
      playbook: "p",
      score: 1,
      priority: 0,
      reasons: ["signal `disk full` (+1)"],
    });
  });

  it("a catastrophic regex signal on a 30,000-character label returns, with no match", () => {
    const value = "a".repeat(30_000) + "!";
    const s = selectPlaybook(alert({ title: "x", labels: { blob: value } }), [
      bundle({
        id: "evil",
        on: {
          alerts: {
            signals: {
              positive: [
                { pattern: "^(a+)+$", weight: 5, regex: true },
                { pattern: "(x+x+)+y", weight: 5, regex: true },
              ],
            },
            min_score: 1,
          },
        },
      }),
      bundle({ id: "evil2", on: { alerts: { match: { blob: "=~(a+)+" } } } }),
    ]);
    expect(s.candidates).toEqual([]);
    expect(s.chosen).toBeUndefined();
  });
});
