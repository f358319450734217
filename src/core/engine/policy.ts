import type { PlaybookError } from "./errors.js";
import type { Actor, Vote } from "./state.js";
import { PERMISSIONS } from "../format/schema.js";
import type { Approvers, ErrorPolicy, Permission, StepBase } from "../format/types.js";

export function permissionRank(p: Permission | undefined): number {
  return p === undefined ? -1 : PERMISSIONS.indexOf(p);
}

export function atLeast(actor: Actor, least: Permission): boolean {
  return permissionRank(actor.permission) >= permissionRank(least);
}

/** Running a playbook that sets no `permissions.run` needs triage access or more. */
export const DEFAULT_RUN_PERMISSION: Permission = "triage";

/** The access running a playbook needs: its `permissions.run`, or the default. */
export function runPermissionOf(playbook: { permissions?: { run?: Permission } }): Permission {
  return playbook.permissions?.run ?? DEFAULT_RUN_PERMISSION;
}

/** The approval policy of an ask-first gate on a step that is not a checkpoint. */
export const ASK_FIRST_APPROVERS: Approvers = {
  permission: "maintain",
  count: 1,
  allow_initiator: false,
};

/** When neither users, teams nor a permission are named, approving needs write access. */
const DEFAULT_APPROVER_PERMISSION: Permission = "write";

function teamMatches(teams: readonly string[], wanted: string): boolean {
  const w = wanted.toLowerCase();
  return teams.some((t) => {
    const tl = t.toLowerCase();
    return tl === w || tl.endsWith(`/${w}`) || w.endsWith(`/${tl}`);
  });
}

/** Who may approve, in words: the second half of every refusal message. */
export function describeApprovers(a: Approvers = {}): string {
  const parts: string[] = [];
  if (a.users?.length) parts.push(a.users.map((u) => `@${u}`).join(", "));
  if (a.teams?.length) parts.push(`members of ${a.teams.join(", ")}`);
  if (a.permission || parts.length === 0)
    parts.push(`people with ${a.permission ?? DEFAULT_APPROVER_PERMISSION} access or more`);
  return parts.join(" or ");
}

/** Why `actor` may not approve under this policy, or undefined when they may. */
export function approvalRefusal(actor: Actor, a: Approvers, initiator: string): string | undefined {
  if (actor.bot) return "bots cannot approve";
  if (actor.login.toLowerCase() === initiator.toLowerCase() && !a.allow_initiator) {
    return `@${actor.login} started this run and cannot approve it; approval is for ${describeApprovers(a)}`;
  }
  const named = Boolean(a.users?.length || a.teams?.length);
  const byUser = a.users?.some((u) => u.toLowerCase() === actor.login.toLowerCase()) ?? false;
  const byTeam = a.teams?.some((t) => teamMatches(actor.teams ?? [], t)) ?? false;
  const byPermission = a.permission
    ? atLeast(actor, a.permission)
    : !named && atLeast(actor, DEFAULT_APPROVER_PERMISSION);
  if (byUser || byTeam || byPermission) return undefined;
  return `@${actor.login} may not approve this step; approval is for ${describeApprovers(a)}`;
}

export interface Tally {
  approvals: Vote[];
  rejection?: Vote;
}

/** Each person's last vote counts. */
export function tally(votes: readonly Vote[]): Tally {
  const last = new Map<string, Vote>();
  for (const v of votes) last.set(v.user.toLowerCase(), v);
  const approvals = [...last.values()].filter((v) => v.decision === "approve");
  const rejection = [...last.values()].find((v) => v.decision === "reject");
  return rejection ? { approvals, rejection } : { approvals };
}

export type ErrorAction =
  | { action: "fail" }
  | { action: "continue" }
  | { action: "ignore" }
  | { action: "retry"; max: number }
  /** Go on at another step: a recovery path (the failed step's result keeps its error). */
  | { action: "goto"; step: string };

/** The step's policy for an error, decided after the error by its code. */
export function errorAction(step: StepBase, error: PlaybookError): ErrorAction {
  const policy = step.on_error;
  let chosen: ErrorPolicy | undefined;
  if (typeof policy === "string") chosen = policy;
  else if (policy) chosen = policy[error.code] ?? policy.default;
  const p = chosen ?? "fail";
  if (p === "continue") return { action: "continue" };
  if (p === "ignore") return { action: "ignore" };
  const m = /^retry:([0-9]+)$/.exec(p);
  if (m) return { action: "retry", max: Number(m[1]) };
  if (p.startsWith("goto:")) return { action: "goto", step: p.slice(5) };
  return { action: "fail" };
}

/** Exponential backoff for retries: 2, 4, 8 … seconds, at most ten minutes. */
export function backoffMs(attempt: number): number {
  return Math.min(600_000, 1000 * 2 ** Math.max(1, attempt));
}

/** Durations such as 30s, 5m, 2h, 1d, 1h30m. */
export function durationMs(d: string): number {
  let total = 0;
  for (const m of d.matchAll(/([0-9]+)([smhd])/g)) {
    const n = Number(m[1]);
    total +=
      n *
      ({ s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const)[m[2] as "s" | "m" | "h" | "d"];
  }
  return total;
}
