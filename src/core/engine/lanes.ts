import { listItems } from "./inputs.js";
import { renderTemplate } from "./render.js";
import {
  LINE_FIELDS,
  MAX_ITEM_LENGTH,
  type Fork,
  type Frame,
  type Lane,
  type Scalar,
  type Value,
} from "./state.js";
import { indexed, type Resolver } from "../format/expression.js";
import type { PlaybookGraph } from "../format/graph.js";
import { FOR_EACH_LIMITS } from "../format/schema.js";
import { parseTemplate } from "../format/template.js";
import type { PlaybookDocument } from "../format/types.js";

/**
 * Lines of a frame: its own (`ROOT_LINE`) and its lanes, which run beside one another. The engine
 * works on one line at a time through a view: a frame whose position fields are the lane's and
 * whose inputs, results and findings are the frame's own.
 */
export const ROOT_LINE = "";

/** Forks of a `needs:` list are keyed `needs:<list key>`. */
export const NEEDS_FORK = "needs:";

export function needsForkKey(list: string): string {
  return `${NEEDS_FORK}${list}`;
}

/** The frame as a lane sees it; `storeView` writes the lane's position back. */
export function laneView(frame: Frame, lane: Lane): Frame {
  const view: Frame = {
    playbook: frame.playbook,
    hash: frame.hash,
    inputs: frame.inputs,
    current: lane.current,
    phase: lane.phase,
    since: lane.since,
    attempt: lane.attempt,
    attempts: frame.attempts,
    results: frame.results,
    findings: frame.findings,
    votes: lane.votes ?? [],
  };
  for (const field of LINE_FIELDS) {
    const value = lane[field as keyof Lane];
    if (value !== undefined && !(field in view))
      (view as unknown as Record<string, unknown>)[field] = value;
  }
  if (lane.index !== undefined) {
    // An item's result and attempts are its own until the for_each ends.
    const step = lane.current ?? "";
    view.results = { ...frame.results };
    if (lane.result) view.results[step] = lane.result;
    else delete view.results[step];
    view.attempts = { ...frame.attempts };
    if (lane.item !== undefined) view.item = lane.item;
    view.itemIndex = lane.index;
  }
  return view;
}

/** Write a lane's view back: where it stands, and an item's result. */
export function storeView(view: Frame, lane: Lane): void {
  const target = lane as unknown as Record<string, unknown>;
  const source = view as unknown as Record<string, unknown>;
  for (const field of LINE_FIELDS) {
    const value = source[field];
    if (value === undefined || (field === "votes" && (value as unknown[]).length === 0))
      Reflect.deleteProperty(target, field);
    else target[field] = value;
  }
  if (lane.index !== undefined) {
    const result = view.results[lane.current ?? ""];
    if (result) lane.result = result;
  }
}

/** The fork a line waits for, if it is a host. */
export function hostedFork(frame: Frame, line: string): string | undefined {
  for (const [key, fork] of Object.entries(frame.forks ?? {})) if (fork.host === line) return key;
  return undefined;
}

/** The lanes of a fork. */
export function lanesOf(frame: Frame, forkKey: string): [string, Lane][] {
  return Object.entries(frame.lanes ?? {}).filter(([, lane]) => lane.fork === forkKey);
}

/**
 * The lines that can act, in the playbook's order (then by item): the frame's own unless it waits
 * for a fork, and every lane that does not.
 */
export function activeLines(frame: Frame, graph: PlaybookGraph): string[] {
  const lines: { key: string; order: number; index: number }[] = [];
  const hosts = new Set(Object.values(frame.forks ?? {}).map((f) => f.host));
  if (!hosts.has(ROOT_LINE)) lines.push({ key: ROOT_LINE, order: -1, index: 0 });
  for (const [key, lane] of Object.entries(frame.lanes ?? {})) {
    if (hosts.has(key)) continue;
    lines.push({
      key,
      order: graph.byId.get(lane.current ?? "")?.index ?? Number.MAX_SAFE_INTEGER,
      index: lane.index ?? 0,
    });
  }
  return lines
    .sort((a, b) => a.order - b.order || a.index - b.index || a.key.localeCompare(b.key))
    .map((l) => l.key);
}

/**
 * Where each line that can take a command stands: the frame's own (unless it waits for lanes) and
 * every lane that does not wait for lanes of its own. Adapters look here for what waits.
 */
export function commandLines(frame: Frame): CommandLine[] {
  const hosts = new Set(Object.values(frame.forks ?? {}).map((f) => f.host));
  const out: CommandLine[] = [];
  const add = (l: Frame | Lane): void => {
    const line: CommandLine = { current: l.current, phase: l.phase, votes: l.votes ?? [] };
    if (l.awaiting) line.awaiting = l.awaiting;
    out.push(line);
  };
  if (!hosts.has(ROOT_LINE)) add(frame);
  for (const [key, lane] of Object.entries(frame.lanes ?? {})) if (!hosts.has(key)) add(lane);
  return out;
}

/** A line as adapters see it: its step, phase, votes and what outside event it awaits. */
export type CommandLine = Pick<Frame, "current" | "phase" | "votes" | "awaiting">;

/**
 * The line a person answers first, as a frame: the first in the playbook's order that waits for
 * people (the frame itself when it has no lanes, or when none waits).
 */
export function answerableLine(frame: Frame, graph: PlaybookGraph): Frame {
  if (!frame.lanes) return frame;
  for (const key of activeLines(frame, graph)) {
    const lane = key === ROOT_LINE ? undefined : frame.lanes[key];
    const phase = lane ? lane.phase : frame.phase;
    if (phase === "waiting" || phase === "approval") return lane ? laneView(frame, lane) : frame;
  }
  return frame;
}

/** Where a line stands: the frame's own fields, or its lane's. */
export function lineOf(frame: Frame, line: string): Pick<Frame, "phase" | "notBefore"> | undefined {
  return line === ROOT_LINE ? frame : frame.lanes?.[line];
}

/** The limits a for_each runs under, with the defaults and hard caps. */
export function forEachLimits(playbook: PlaybookDocument): { parallel: number; items: number } {
  const { max_parallel, max_items } = FOR_EACH_LIMITS;
  return {
    parallel: Math.min(playbook.limits?.max_parallel ?? max_parallel.default, max_parallel.cap),
    items: Math.min(playbook.limits?.max_items ?? max_items.default, max_items.cap),
  };
}

/** Largest JSON text read as a list of items, and largest object item kept. */
const MAX_JSON_LIST = 256 * 1024;
const MAX_OBJECT_ITEM_LENGTH = 4_000;

/**
 * The items a `for_each` template names: a list value as it is, a text value split on commas and
 * line breaks. A template with text around its names is rendered, then split.
 */
export function forEachItems(
  template: string,
  resolve: Resolver,
): { ok: true; items: Scalar[] } | { ok: false; message: string } {
  const { parts, problems } = parseTemplate(template);
  if (problems[0]) return { ok: false, message: problems[0].message };
  const only = parts.filter((p) => p.kind !== "text" || p.text.trim() !== "");
  const ref = only.length === 1 && only[0]?.kind === "ref" ? only[0] : undefined;
  if (ref) {
    const value = indexed(resolve(ref.path), ref.index, resolve) as Value | undefined;
    if (value === undefined) return { ok: false, message: `'${ref.raw}' has no value in this run` };
    if (Array.isArray(value)) return { ok: true, items: value.map(capItem) };
    if (typeof value === "string") {
      const json = jsonList(value);
      if (typeof json === "string") return { ok: false, message: `'${ref.raw}': ${json}` };
      return { ok: true, items: json ?? listItems(value).map(capItem) };
    }
    return { ok: false, message: `'${ref.raw}' is ${JSON.stringify(value)}, not a list` };
  }
  const rendered = renderTemplate(template, resolve, "value");
  if (!rendered.ok) return { ok: false, message: rendered.error.message };
  const text = rendered.value;
  return { ok: true, items: listItems(text).map(capItem) };
}

/**
 * A list kept as JSON text (an AI's answer, a tool's result, a field of either): its items, an
 * object item as JSON text again, whose fields `{{ item.x }}` reads.
 */
function jsonList(text: string): Scalar[] | string | undefined {
  if (!/^\s*\[/.test(text) || text.length > MAX_JSON_LIST) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v)) return undefined;
  const items: Scalar[] = [];
  for (const [i, item] of v.entries()) {
    if (item === null || typeof item !== "object") {
      items.push(capItem(item as Scalar));
      continue;
    }
    // An object cut short would be no object: one too long is refused instead.
    const json = JSON.stringify(item);
    if (json.length > MAX_OBJECT_ITEM_LENGTH)
      return `item ${i} is ${json.length} characters of JSON; an object item has at most ${MAX_OBJECT_ITEM_LENGTH}`;
    items.push(json);
  }
  return items;
}

function capItem(v: Scalar): Scalar {
  return typeof v === "string" && v.length > MAX_ITEM_LENGTH
    ? `${v.slice(0, MAX_ITEM_LENGTH - 1)}…`
    : v;
}

/** The outputs of a for_each: each output as a list, one entry per item (null where it has none). */
export function forEachOutputs(fork: Fork, names: readonly string[] | null): Record<string, Value> {
  const count = fork.items?.length ?? 0;
  const keys = new Set(names ?? []);
  for (const outputs of Object.values(fork.outputs ?? {}))
    for (const k of Object.keys(outputs)) keys.add(k);
  const out: Record<string, Value> = {};
  for (const k of keys) {
    const list: Scalar[] = [];
    for (let i = 0; i < count; i++) {
      const v = fork.outputs?.[String(i)]?.[k];
      list.push(v === undefined ? null : capItem(Array.isArray(v) ? v.join(", ") : v));
    }
    out[k] = list;
  }
  return out;
}
