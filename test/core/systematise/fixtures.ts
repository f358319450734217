import type { IssueEvidence } from "../../../src/core/systematise/evidence.js";

/**
 * A realistic incident worked by hand: checkout returns 502s, the on-call engineer records what
 * the dashboards and the database show, chooses to roll back rather than scale, two maintainers
 * approve the rollback, and a pull request that pins the pool size is merged.
 */
export function incidentEvidence(): IssueEvidence {
  return {
    repo: { owner: "acme", name: "shop" },
    issue: {
      number: 12,
      title: "Checkout returns 502 after the 4.2 deploy",
      labels: ["bug", "checkout", "database", "severity:high"],
    },
    adhoc: [
      {
        kind: "note",
        text: "Looking at the gateway dashboard first.",
        actor: "ana",
        at: "2026-03-02T10:00:00Z",
      },
      { kind: "record", key: "error_rate", value: "12%", actor: "ana", at: "2026-03-02T10:03:00Z" },
      {
        kind: "record",
        key: "failing_route",
        value: "/checkout",
        actor: "ana",
        at: "2026-03-02T10:04:00Z",
      },
      {
        kind: "note",
        text: "The database pool looks exhausted; checking connections.",
        actor: "ana",
        at: "2026-03-02T10:10:00Z",
      },
      {
        kind: "record",
        key: "db_connections",
        value: 500,
        actor: "ben",
        at: "2026-03-02T10:12:00Z",
      },
      {
        kind: "record",
        key: "pool_exhausted",
        value: true,
        actor: "ben",
        at: "2026-03-02T10:13:00Z",
      },
      {
        kind: "choice",
        label: "rollback",
        condition: "the deploy changed the pool size",
        actor: "ana",
        at: "2026-03-02T10:20:00Z",
      },
      {
        kind: "note",
        text: "Rolling back 4.2 needs a maintainer's approval.",
        actor: "ana",
        at: "2026-03-02T10:21:00Z",
      },
      {
        kind: "approval",
        by: "carol",
        decision: "approve",
        permission: "maintain",
        at: "2026-03-02T10:25:00Z",
      },
      {
        kind: "approval",
        by: "dave",
        decision: "approve",
        permission: "admin",
        at: "2026-03-02T10:26:00Z",
      },
      {
        kind: "record",
        key: "error_rate_after",
        value: "0.1%",
        actor: "ana",
        at: "2026-03-02T10:50:00Z",
      },
      {
        kind: "note",
        text: "Error rate is back to normal.",
        actor: "ana",
        at: "2026-03-02T11:30:00Z",
      },
    ],
    runs: [],
    pullRequests: [
      {
        number: 345,
        title: "Pin the database pool size to 50",
        branch: "fix/pool-size",
        base: "main",
        merged: true,
        files: ["config/db.yaml"],
        approvedBy: ["carol"],
        at: "2026-03-02T11:00:00Z",
      },
    ],
  };
}
