import { createHmac, timingSafeEqual } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import {
  MAX_ORIGIN_KEY,
  MAX_RUN_ID,
  RUN_ID_PATTERN,
  STATE_VERSION,
  type RunState,
} from "../core/engine/state.js";

/**
 * The run state's shape, checked whenever state is read back (a file someone edited, a comment
 * block): nothing proceeds on a state that does not fit.
 */
const scalar = { type: ["string", "number", "boolean", "null"] };
const value = { anyOf: [scalar, { type: "array", items: scalar }] };
const error = {
  type: "object",
  required: ["code", "message", "guidance"],
  properties: {
    code: { type: "string" },
    message: { type: "string" },
    guidance: { type: "string" },
    cause: { type: "string" },
  },
};
/** An approval as a fact (see `ApprovalFact`): its approver, comment and prompt comment ids. */
const commentId = { type: "string", pattern: "^[0-9]{1,20}$" };
const approvalFacts = {
  type: "array",
  maxItems: 100,
  items: {
    type: "object",
    required: ["user", "comment"],
    additionalProperties: false,
    properties: { user: { type: "string" }, comment: commentId, prompt: commentId },
  },
};
/** Lines that run side by side (see `Lane` and `Fork` in the run state), each bounded. */
const MAX_LANES = 200;
const lane = {
  type: "object",
  required: ["fork", "name", "current", "phase", "since", "attempt"],
  properties: {
    fork: { type: "string" },
    name: { type: "string" },
    current: { type: ["string", "null"] },
    folded: { type: "string", maxLength: 100_000, pattern: "^[-csfi]*$" },
    phase: { enum: ["pending", "approval", "effect", "waiting"] },
    since: { type: "string" },
    attempt: { type: "integer", minimum: 1 },
    index: { type: "integer", minimum: 0 },
    item: scalar,
    votes: { type: "array" },
    effectKey: { type: "string" },
  },
};
const fork = {
  type: "object",
  required: ["kind", "host", "step", "ended"],
  properties: {
    kind: { enum: ["parallel", "for_each", "needs"] },
    host: { type: "string" },
    step: { type: "string" },
    ended: {
      type: "object",
      additionalProperties: { enum: ["completed", "failed", "cancelled"] },
    },
    items: { type: "array", maxItems: 100, items: scalar },
    next: { type: "integer", minimum: 0 },
  },
};
const frame = {
  type: "object",
  required: [
    "playbook",
    "hash",
    "inputs",
    "current",
    "phase",
    "since",
    "attempt",
    "attempts",
    "results",
    "findings",
    "votes",
  ],
  properties: {
    playbook: { type: "string" },
    hash: { type: "string" },
    commit: { type: "string", pattern: "^[0-9a-f]{40}$" },
    inputs: { type: "object", additionalProperties: scalar },
    current: { type: ["string", "null"] },
    phase: { enum: ["pending", "approval", "effect", "waiting"] },
    since: { type: "string" },
    attempt: { type: "integer", minimum: 1 },
    attempts: { type: "object", additionalProperties: { type: "integer" } },
    notBefore: { type: "string" },
    results: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["status", "attempt", "at"],
        properties: {
          status: { enum: ["running", "completed", "skipped", "failed", "ignored"] },
          attempt: { type: "integer" },
          at: { type: "string" },
          outputs: { type: "object", additionalProperties: value },
          error,
          approvals: approvalFacts,
        },
      },
    },
    findings: { type: "object", additionalProperties: scalar },
    votes: {
      type: "array",
      items: {
        type: "object",
        required: ["user", "decision", "at"],
        properties: {
          user: { type: "string" },
          decision: { enum: ["approve", "reject"] },
          at: { type: "string" },
          commentId: { type: "string" },
          values: { type: "object", additionalProperties: scalar },
          note: { type: "string" },
        },
      },
    },
    approved: { type: "array", items: { type: "string" } },
    approvedBy: {
      type: "object",
      additionalProperties: { type: "array", items: { type: "string" } },
    },
    // Optional: states written before approvals were kept as facts load as they are.
    approvalFacts: { type: "object", additionalProperties: approvalFacts },
    reminded: { type: "boolean" },
    effectKey: { type: "string" },
    awaiting: { type: "object" },
    returnTo: { type: "string" },
    prompt: {
      type: "object",
      required: ["comment", "since"],
      properties: {
        comment: { type: "string", pattern: "^[0-9]{1,20}$" },
        since: { type: "string" },
      },
    },
    lanes: { type: "object", maxProperties: MAX_LANES, additionalProperties: lane },
    forks: { type: "object", maxProperties: MAX_LANES, additionalProperties: fork },
  },
};

export const RUN_STATE_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: [
    "v",
    "id",
    "status",
    "initiator",
    "startedAt",
    "updatedAt",
    "seq",
    "steps",
    "stack",
    "context",
    "recentEvents",
    "trace",
    "traceDropped",
  ],
  properties: {
    v: { const: STATE_VERSION },
    id: { type: "string", maxLength: MAX_RUN_ID, pattern: RUN_ID_PATTERN },
    status: { enum: ["running", "waiting", "completed", "failed", "cancelled"] },
    initiator: { type: "string" },
    initiatorPermission: { type: "string" },
    startedAt: { type: "string" },
    updatedAt: { type: "string" },
    seq: { type: "integer", minimum: 1 },
    steps: { type: "integer", minimum: 0 },
    toolCalls: { type: "integer", minimum: 0 },
    toolCallsReserved: {
      type: "object",
      maxProperties: 1000,
      additionalProperties: { type: "integer", minimum: 0 },
    },
    stack: { type: "array", minItems: 1, items: frame },
    context: { type: "object" },
    error,
    end: { type: "object" },
    outputs: { type: "object", additionalProperties: value },
    selfApproved: { type: "array", items: { type: "string" } },
    // Optional: states written before runs had an origin load as they are.
    origin: {
      type: "object",
      required: ["run", "root", "key"],
      additionalProperties: false,
      properties: {
        run: { type: "string", maxLength: MAX_RUN_ID, pattern: RUN_ID_PATTERN },
        root: { type: "string", maxLength: MAX_RUN_ID, pattern: RUN_ID_PATTERN },
        key: { type: "string", maxLength: MAX_ORIGIN_KEY },
      },
    },
    recentEvents: { type: "array", items: { type: "string" } },
    trace: { type: "array", items: { type: "object" } },
    traceDropped: { type: "integer", minimum: 0 },
  },
};

let validator: ValidateFunction | undefined;

/** Problems with a value read back as run state; empty when it is a run state of this version. */
export function runStateProblems(value: unknown): string[] {
  if (
    value &&
    typeof value === "object" &&
    "v" in value &&
    (value as { v: unknown }).v !== STATE_VERSION
  ) {
    return [
      `state version ${JSON.stringify((value as { v: unknown }).v)} is not supported (this version reads ${STATE_VERSION})`,
    ];
  }
  validator ??= new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true }).compile(
    RUN_STATE_SCHEMA,
  );
  if (validator(value)) return [];
  return (validator.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "(state)"} ${e.message ?? "is invalid"}`);
}

export type DecodeFailure = {
  ok: false;
  reason: "corrupt" | "tampered" | "version";
  detail: string;
};

/** Compressed: a run's JSON repeats its keys and timestamps, and a comment has a size limit. */
function pack(text: string): string {
  return deflateRawSync(Buffer.from(text, "utf8")).toString("base64url");
}

function unpack(payload: string): string {
  // A payload may not inflate past 1 MiB, verified or not.
  return inflateRawSync(Buffer.from(payload, "base64url"), {
    maxOutputLength: 1024 * 1024,
  }).toString("utf8");
}

/**
 * Where a signed state block may live: the repository (through its per-repository key), the issue
 * and the comment the app created for the run. A block copied anywhere else does not verify.
 */
export interface StateSeal {
  /** The repository's own key (`repositoryStateKey`): one repository's blocks mean nothing in another. */
  key: Buffer;
  issue: number;
  comment: string;
}

/**
 * A key per repository, derived from the app's state secret and bound to the installation and the
 * repository's id (which survives renames and transfers).
 */
export function repositoryStateKey(
  secret: string,
  installation: number,
  repository: number,
): Buffer {
  return createHmac("sha256", secret)
    .update(`playbook-bot state key v2\0${installation}\0${repository}`)
    .digest();
}

const RUN_ID = new RegExp(RUN_ID_PATTERN);

function sign(runId: string, payload: string, seal: StateSeal): string {
  return createHmac("sha256", seal.key)
    .update(`${seal.issue}\0${seal.comment}\0${runId}\0${payload}`)
    .digest("base64url");
}

/**
 * `<run id> <base64url of deflated JSON>.<HMAC-SHA256>`: opaque to people, safe inside an HTML
 * comment, and valid only in the comment, issue and repository it was sealed for.
 */
export function encodeSigned(run: RunState, seal: StateSeal): string {
  const payload = pack(JSON.stringify(run));
  return `${run.id} ${payload}.${sign(run.id, payload, seal)}`;
}

/** Verify then decode; a bad signature is reported as tampering (or a foreign block), never read. */
export function decodeSigned(
  text: string,
  seal: StateSeal,
): { ok: true; run: RunState } | DecodeFailure {
  return decodeBlock(text, seal);
}

/**
 * Decode without verifying the seal: for reading a thread's runs where the repository's key is not
 * at hand (`playbook-bot trace owner/repo#n` without STATE_SECRET). Never for acting on a run.
 */
export function decodeUnverified(text: string): { ok: true; run: RunState } | DecodeFailure {
  return decodeBlock(text, undefined);
}

function decodeBlock(
  text: string,
  seal: StateSeal | undefined,
): { ok: true; run: RunState } | DecodeFailure {
  const m = /^(\S+) ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(text.trim());
  if (!m || (m[1] as string).length > MAX_RUN_ID || !RUN_ID.test(m[1] as string))
    return { ok: false, reason: "corrupt", detail: "the state block is not in the expected form" };
  const [, runId, payload, mac] = m as unknown as [string, string, string, string];
  if (seal) {
    const expected = Buffer.from(sign(runId, payload, seal));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return {
        ok: false,
        reason: "tampered",
        detail:
          "the state block's signature does not match: it was edited, copied from another comment, issue or repository, or written by someone else",
      };
    }
  }
  let json: string;
  try {
    json = unpack(payload);
  } catch (err) {
    return {
      ok: false,
      reason: "corrupt",
      detail: `the state block does not decompress: ${(err as Error).message}`,
    };
  }
  const parsed = parseRunState(json);
  if (parsed.ok && parsed.run.id !== runId)
    return { ok: false, reason: "corrupt", detail: "the state block names another run" };
  return parsed;
}

/** Parse and check a state document (JSON text). */
export function parseRunState(json: string): { ok: true; run: RunState } | DecodeFailure {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return { ok: false, reason: "corrupt", detail: `not valid JSON: ${(err as Error).message}` };
  }
  const problems = runStateProblems(value);
  if (problems.length > 0) {
    const version = problems.some((p) => p.startsWith("state version"));
    return { ok: false, reason: version ? "version" : "corrupt", detail: problems.join("; ") };
  }
  return { ok: true, run: value as RunState };
}
