import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
/**
 * Random text full of Markdown, HTML and GitHub fragments, sent through every renderer of bot
 * comments; what comes out is parsed back as GitHub-flavoured Markdown and must hold no HTML but
 * the renderer's own, no image, links to http(s) only, no live mention or reference, tables with
 * their columns and balanced details.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AlertTriage,
  alertMarker,
  triageBody,
  triageTitle,
} from "../../../src/runtime/alert-triage.js";
import type { NormalizedAlert } from "../../../src/core/alerts/types.js";
import {
  hasStateBlock,
  readStatusComment,
  renderStatusComment,
  STATE_MARKER,
} from "../../../src/runtime/run-service/status-comment.js";
import type { RunEvent } from "../../../src/core/engine/events.js";
import type { Actor, RunState } from "../../../src/core/engine/state.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import {
  ccLine,
  frozenNotice,
  invalidInputsNotice,
  invalidPlaybookNotice,
  labelRefusedNotice,
  messageComment,
  refusalReply,
  runList,
  safeUrl,
  startingNotice,
  statusDeletedNotice,
  statusEditedNotice,
  unknownCommandReason,
} from "../../../src/core/markdown/index.js";
import type { CheckpointStep, DecideStep, Step } from "../../../src/core/format/types.js";
import * as codec from "../../../src/runtime/state-codec.js";
import { Driver, MAINTAINER, bundle, yaml } from "../engine/helpers.js";
import { MemoryAlertIssues } from "../../helpers/alerts.js";
import { audit, expectInert, LIVE_MENTION } from "./audit.js";

const FRAGMENTS = [
  "<!--",
  "-->",
  "--!>",
  "<!-- playbook-bot:state AAAA.BBBB -->",
  `<!-- playbook-bot:alert ${"a".repeat(64)} -->`,
  "<details>",
  "</details>",
  "<summary>",
  "</summary>",
  "<img src=x onerror=alert(1)>",
  "<script>alert(1)</script>",
  "<a href='javascript:x'>",
  "@user",
  "@org/team",
  "@",
  "a@b.com",
  "mailto:a@b.co",
  "acme/repo#12",
  "#12",
  "#",
  "GH-7",
  "![x](http://a/i.png)",
  "![y][r]",
  "[r]: http://ref",
  "[a](javascript:alert(1))",
  "[b](http://ok)",
  "<http://auto>",
  "http://x.y/z",
  "www.x.com",
  "[^1]",
  ")",
  "(",
  "]",
  "[",
  "|",
  "`",
  "```",
  "~~~",
  "\n",
  "\n\n",
  "\r\n",
  "*",
  "**",
  "_",
  "~~",
  "<",
  ">",
  "&",
  "&lt;",
  "&#64;",
  "\\",
  ":",
  "- ",
  "1. ",
  "# ",
  "> ",
  "    ",
  "\t",
  "---",
  "===",
  "- [x] ",
  "é",
  "🚀",
  "\u200b",
  "\u202e",
  " ",
];

const fuzz = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) },
      { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
    ),
    { maxLength: 10 },
  )
  .map((parts) => parts.join(""));

/** Text for a template: the values carry the fuzz, the template itself must parse. */
const plain = fuzz.map((s) => s.replace(/[{}]/g, ""));

const RUNS = { numRuns: 80 };

// The seal's shape is the codec's business; any value it accepts will do here.
const SEAL = (
  "repositoryStateKey" in codec
    ? {
        key: (
          codec as unknown as { repositoryStateKey(s: string, a: number, b: number): unknown }
        ).repositoryStateKey("s3cret", 1, 2),
        issue: 5,
        comment: "77",
      }
    : "s3cret"
) as Parameters<typeof renderStatusComment>[2];

const ROOT_YAML = yaml`
  apiVersion: playbook-bot/v1
  id: fuzz
  name: Fuzz
  description: Fuzz.
  inputs:
    x: { type: string, default: "x" }
  steps:
    - id: gate
      type: checkpoint
      name: Gate
      description: Gate it.
      message: "Go {{ inputs.x }}"
      approvers: { users: [bob] }
      reminder: 1h
      timeout: 1d
    - id: say
      type: comment
      name: Say
      body: "said {{ inputs.x }}"
    - id: sub
      type: playbook
      name: Sub
      playbook: child
      mode: delegate
    - id: look
      type: investigate
      name: Look
      description: "Look at {{ inputs.x }}"
      suggested_calls: [{ tool: k8s/get, args: { q: "{{ inputs.x }}" } }]
      expected_findings: [seen]
    - id: judge
      type: decide
      name: Judge
      confirmed_facts: [{ finding: seen, text: "saw {{ inputs.x }}" }]
      rules:
        - { id: r, all: [seen], conclusion: c, root_cause: rc, alternatives: [a], next_actions: [n] }
    - id: fin
      type: end
      advice: "done {{ inputs.x }}"
`;

const CHILD_YAML = yaml`
  apiVersion: playbook-bot/v1
  id: child
  name: Child
  description: Delegated.
  steps:
    - id: kid
      type: end
      advice: child done
`;

interface Names {
  playbook: string;
  gate: string;
  gateDescription: string;
  look: string;
  lookDescription: string;
  conclusion: string;
  rootCause: string;
  alternative: string;
  action: string;
  child: string;
}

const names: fc.Arbitrary<Names> = fc.record({
  playbook: fuzz,
  gate: fuzz,
  gateDescription: fuzz,
  look: fuzz,
  lookDescription: plain,
  conclusion: fuzz,
  rootCause: fuzz,
  alternative: fuzz,
  action: fuzz,
  child: fuzz,
});

function bundles(n: Names): { root: PlaybookBundle; child: PlaybookBundle } {
  const root = bundle(ROOT_YAML);
  const child = bundle(CHILD_YAML);
  const doc = root.playbook;
  doc.name = n.playbook;
  const step = (id: string) => doc.steps?.find((s) => s.id === id) as Step;
  const gate = step("gate") as CheckpointStep;
  gate.name = n.gate;
  gate.description = n.gateDescription;
  step("look").name = n.look;
  step("look").description = n.lookDescription;
  const rule = (step("judge") as DecideStep).rules[0];
  if (rule) {
    rule.conclusion = n.conclusion;
    rule.root_cause = n.rootCause;
    rule.alternatives = [n.alternative];
    rule.next_actions = [n.action];
  }
  child.playbook.name = n.child;
  return { root, child };
}

describe("every comment renderer keeps echoed text inert", () => {
  it("the status comment", () => {
    fc.assert(
      fc.property(
        names,
        fc.record({
          initiator: fuzz,
          message: fuzz,
          guidance: fuzz,
          advice: fuzz,
          status: fc.constantFrom("running", "waiting", "completed", "failed", "cancelled"),
          current: fc.constantFrom("gate", "look", "say"),
          trace: fc.array(
            fc.record({ event: fuzz, actor: fc.option(fuzz), step: fuzz, outcome: fuzz }),
            { maxLength: 10 },
          ),
        }),
        (n, v) => {
          const { root, child } = bundles(n);
          const d = new Driver(root, [child]);
          d.start({ x: "x" });
          const run: RunState = structuredClone(d.run);
          const frame = run.stack[0] as RunState["stack"][number];
          frame.current = v.current;
          frame.phase = "waiting";
          frame.results = { gate: { status: "completed", attempt: 1, at: "2026-03-01T10:00:00Z" } };
          run.status = v.status;
          run.initiator = v.initiator;
          run.error = { code: "PB-EFFECT-FAILED", message: v.message, guidance: v.guidance };
          run.end = { status: "success", advice: v.advice };
          run.trace = v.trace.map((t, i) => ({
            event: t.event,
            ...(t.actor !== null ? { actor: t.actor } : {}),
            step: t.step,
            outcome: t.outcome,
            start: `2026-03-01T10:${String(10 + i)}:00Z`,
            end: `2026-03-01T10:${String(10 + i)}:30Z`,
          }));
          const lookup = (id: string) =>
            id === "fuzz" ? root : id === "child" ? child : undefined;
          const body = renderStatusComment(run, lookup, SEAL);
          const a = expectInert(body, { details: run.trace.length ? 2 : 1, markers: 1 });
          if (run.trace.length)
            expect(a.tables).toEqual([
              { columns: 4, rows: Array(Math.min(8, run.trace.length) + 1).fill(4) },
            ]);
          // The state block is the last line, and the only one a search finds.
          expect(body.split(`<!-- ${STATE_MARKER} `)).toHaveLength(2);
          expect(body.split("\n").at(-1)).toMatch(new RegExp(`^<!-- ${STATE_MARKER} `));
          expect(hasStateBlock(body)).toBe(true);
          expect(readStatusComment(body, SEAL)).toEqual({ ok: true, run });
        },
      ),
      RUNS,
    );
  });

  const alertArb: fc.Arbitrary<NormalizedAlert> = fc.record({
    source: fc.constantFrom("alertmanager", "grafana", "generic", "github"),
    key: fuzz,
    status: fc.constant("firing" as const),
    title: fuzz,
    summary: fuzz,
    severity: fc.constantFrom("critical", "high", "unknown"),
    labels: fc.dictionary(fuzz, fuzz, { maxKeys: 4 }),
    annotations: fc.dictionary(
      fuzz,
      fc.oneof(
        fuzz,
        fuzz.map((s) => `https://r.example/${s}`),
      ),
      {
        maxKeys: 4,
      },
    ),
    links: fc.array(
      fc.record({
        text: fuzz,
        url: fc.oneof(
          fuzz,
          fuzz.map((s) => `https://grafana.example/d/${s}`),
        ),
      }),
      { maxLength: 4 },
    ),
    startsAt: fuzz,
  }) as fc.Arbitrary<NormalizedAlert>;

  it("the triage issue: title and body", () => {
    fc.assert(
      fc.property(alertArb, fuzz, fc.array(fuzz, { maxLength: 3 }), (alert, chosen, reasons) => {
        const title = triageTitle(alert);
        expect(title).not.toMatch(/[\r\n]/);
        expect(title).not.toContain("<!--");
        expect(LIVE_MENTION.test(title)).toBe(false);
        const body = triageBody(alert, {
          chosen: { playbook: chosen, score: 1, priority: 0, reasons },
          candidates: [{ playbook: reasons[0] ?? "other", score: 0, priority: 0, reasons: [] }],
          fallback: false,
        });
        const a = expectInert(body, { details: 1, markers: 1 });
        expect(body.endsWith(alertMarker(""))).toBe(true);
        const tables = [alert.labels, alert.annotations]
          .filter((t) => Object.keys(t).length > 0)
          .map((t) => ({ columns: 2, rows: Array(Object.keys(t).length + 1).fill(2) }));
        expect(a.tables).toEqual(tables);
        // Links are the alert's links and URL values, each as given (or percent-encoded).
        const wanted = [
          ...alert.links.map((l) => l.url),
          ...Object.values(alert.labels),
          ...Object.values(alert.annotations),
        ]
          .map(safeUrl)
          .filter((u) => u !== undefined);
        const norm = (u: string) => new URL(u).href;
        expect(new Set(a.links.map(norm))).toEqual(new Set(wanted.map(norm)));
      }),
      RUNS,
    );
  });

  it("an untrusted ')' in an alert link does not end the link", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9()=&?/_.-]{0,30}$/), fuzz, (path, text) => {
        const url = `https://grafana.example/d/${path})x`;
        const body = triageBody(
          {
            source: "grafana",
            key: "k",
            status: "firing",
            title: "t",
            summary: "",
            severity: "high",
            labels: {},
            annotations: {},
            links: [{ text, url }],
          },
          { candidates: [], fallback: true },
        );
        expect(expectInert(body, { details: 1, markers: 1 }).links).toEqual([url]);
      }),
      RUNS,
    );
  });

  it("alert issues, re-fire comments and the digest of an alert storm", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(alertArb, { minLength: 1, maxLength: 4 }), async (alerts) => {
        const clock = { now: Date.parse("2026-03-01T09:00:00Z") };
        const port = new MemoryAlertIssues("acme/ops", () => clock.now);
        const triage = new AlertTriage({
          coordination: new MemoryCoordination(),
          issues: () => port,
          playbooks: () => Promise.resolve([]),
          startRun: () => Promise.resolve(),
          now: () => clock.now,
          reopenWindowMs: 0,
          issuesPerMinute: () => 2,
        });
        for (const [i, a] of alerts.entries()) {
          await triage.handle({ ...a, key: `k${i}` }, "acme/ops");
          // The same alert again: a re-fire; closed and fired again: a new issue linking the old.
          await triage.handle({ ...a, key: `k${i}`, startsAt: "later" }, "acme/ops");
          clock.now += 1000;
        }
        const first = port.issue(1);
        port.closeAs(1, "completed");
        clock.now += 60_000;
        await triage.handle(
          { ...(alerts[0] as NormalizedAlert), key: "k0", startsAt: "again" },
          "acme/ops",
        );
        for (const issue of port.issues.values()) {
          const storm = issue.labels.includes("alert-storm");
          expectInert(issue.body, { details: storm ? 0 : 1, markers: 1 });
          for (const c of issue.comments) {
            const a = expectInert(c.body);
            for (const t of a.tables) expect(t.columns).toBe(3);
          }
        }
        expect(first.number).toBe(1);
      }),
      { numRuns: 30 },
    );
  });

  it("the engine's messages, and the replies and cc lines made of them", () => {
    fc.assert(
      fc.property(
        names,
        fc.record({
          input: fuzz,
          login: fuzz,
          line: plain,
          note: plain,
          error: fuzz,
          guidance: fuzz,
        }),
        (n, v) => {
          const { root, child } = bundles(n);
          const stranger: Actor = { login: v.login, permission: "admin" };
          const d = new Driver(root, [child]);
          d.start({ x: v.input });
          d.drive();
          d.tick(2 * 3_600_000);
          d.timeout();
          d.command("approve", stranger, v.line);
          d.command("approve", MAINTAINER, v.note);
          for (
            let guard = 0;
            guard < 40 && !["completed", "cancelled"].includes(d.run.status);
            guard++
          ) {
            const effect = d.last.effects[0];
            if (d.run.status === "failed") d.command("retry", stranger);
            else if (effect && effect.kind === "comment" && guard < 3) {
              const failed: RunEvent = {
                type: "effect_result",
                id: d.nextId("fx"),
                key: effect.key,
                ok: false,
                error: { code: "PB-EFFECT-FAILED", message: v.error, guidance: v.guidance },
              };
              d.send(failed);
            } else if (effect) d.answer({}, effect.key);
            else if (d.last.continue) d.cont();
            else if (d.frame.current === "look")
              d.command("record", { login: v.login, permission: "triage" }, "seen=yes");
            else {
              d.tick(3_600_000);
              d.cont();
            }
          }
          const cancelled = new Driver(root, [child]);
          cancelled.start({ x: v.input });
          cancelled.drive();
          cancelled.command("cancel", stranger, v.note);
          const results = [...d.all, ...cancelled.all];
          const messages = results.flatMap((r) => r.messages);
          expect(messages.length).toBeGreaterThan(3);
          for (const m of messages) {
            expectInert(m.text);
            expect(hasStateBlock(m.text)).toBe(false);
            expectInert(messageComment(m), { mentions: (m.to ?? []).map((u) => `@${u}`) });
          }
          for (const r of results)
            if (r.reply?.reason) expectInert(refusalReply(`/approve ${v.line}`, r.reply.reason));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("the controller's comments", () => {
    fc.assert(
      fc.property(
        fc.array(fuzz, { minLength: 8, maxLength: 8 }),
        fc.array(fuzz, { maxLength: 4 }),
        (f, logins) => {
          const [a = "", b = "", c = "", e = "", g = "", h = "", i = "", j = ""] = f;
          const all = [
            refusalReply(a, b),
            refusalReply(a, unknownCommandReason(b, c)),
            invalidInputsNotice(a, [b, c, e]),
            invalidPlaybookNotice(a, b, `${c}\n${e}`),
            labelRefusedNotice(a, b, c, "write"),
            startingNotice(a, b),
            statusDeletedNotice({ by: a, runId: b, playbook: c, at: e, restart: g }),
          ];
          for (const md of all) expectInert(md);
          for (const md of [
            frozenNotice(`${a.length}`, b),
            statusEditedNotice({
              editor: a,
              commentId: 7,
              runId: b,
              playbook: c,
              finished: e.length % 2 === 0,
              restart: g,
            }),
            runList([
              { runId: a, commentId: "1", playbook: b, status: c, at: e },
              { runId: g, commentId: h, playbook: i, status: j },
            ]),
          ])
            expectInert(md, { anchors: true });
          const valid = [
            ...logins.filter((l) => /^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(l)),
            ...[a].filter((t) =>
              /^@?[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9][A-Za-z0-9_-]*$/.test(t),
            ),
          ].map((l) => l.replace(/^@/, ""));
          const cc = ccLine([...logins, "bob"], [a]);
          expectInert(cc, { mentions: [...valid, "bob"].map((l) => `@${l}`) });
          expect(audit(cc).text.join("")).toContain("@bob");
        },
      ),
      RUNS,
    );
  });
});
