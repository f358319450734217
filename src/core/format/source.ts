import {
  EVENT_ID,
  type AliasEvent,
  type Event,
  type MappingEvent,
  type ScalarEvent,
  type SequenceEvent,
} from "js-yaml";
import { yamlLibrary } from "./yaml-library.js";
import type { Span } from "./diagnostics.js";

/** Bounds on what one playbook file may cost to read. A real playbook is a few kilobytes. */
export interface SourceLimits {
  maxBytes: number;
  maxDepth: number;
  /** Nodes after alias expansion: what a consumer walking the value would visit. */
  maxNodes: number;
  maxAliases: number;
}

export const DEFAULT_LIMITS: SourceLimits = {
  maxBytes: 1024 * 1024,
  maxDepth: 64,
  maxNodes: 100_000,
  maxAliases: 1_000,
};

export type PathSegment = string | number;

export interface Range {
  start: number;
  end: number;
}

export interface NodeLocation {
  key?: Range;
  value: Range;
  /** The document the ranges are in, when not the one holding the location (a sidecar file). */
  in?: SourceDocument;
}

/** Where each value of a document is written, by JSON pointer (a Map serves too). */
export interface LocationTable {
  get(pointer: string): NodeLocation | undefined;
  has(pointer: string): boolean;
  entries(): IterableIterator<[string, NodeLocation]>;
}

/**
 * The locations a YAML walk records, packed: four numbers per value (its range, and its key's or
 * -1) in one array, so that a document's map costs one entry per value rather than three objects
 * (validating many files at once keeps every document).
 */
export class PackedLocations implements LocationTable {
  private readonly index = new Map<string, number>();
  private readonly ranges: number[] = [];

  /** Records a value; a pointer recorded again points at its new ranges (the last one wins). */
  set(pointer: string, value: Range, key?: Range): void {
    this.index.set(pointer, this.ranges.length);
    this.ranges.push(value.start, value.end, key ? key.start : -1, key ? key.end : -1);
  }

  /** A value's range, once its end is known (a collection ends after its children). */
  setValue(pointer: string, value: Range): void {
    const i = this.index.get(pointer);
    if (i === undefined) return;
    this.ranges[i] = value.start;
    this.ranges[i + 1] = value.end;
  }

  private at(i: number): NodeLocation {
    const r = this.ranges;
    const loc: NodeLocation = { value: { start: r[i] as number, end: r[i + 1] as number } };
    if ((r[i + 2] as number) >= 0) loc.key = { start: r[i + 2] as number, end: r[i + 3] as number };
    return loc;
  }

  get(pointer: string): NodeLocation | undefined {
    const i = this.index.get(pointer);
    return i === undefined ? undefined : this.at(i);
  }

  has(pointer: string): boolean {
    return this.index.has(pointer);
  }

  *entries(): IterableIterator<[string, NodeLocation]> {
    for (const [pointer, i] of this.index) yield [pointer, this.at(i)];
  }
}

/**
 * Locations built on first use: a valid playbook is never asked where its values are, so the
 * walk that reads a file records nothing, and only a file that gets a finding is walked again,
 * in full (validating many files at once then keeps no map for the clean ones).
 */
class LocationsOnDemand implements LocationTable {
  private built: LocationTable | undefined;

  constructor(private readonly build: () => LocationTable) {}

  private table(): LocationTable {
    this.built ??= this.build();
    return this.built;
  }

  get(pointer: string): NodeLocation | undefined {
    return this.table().get(pointer);
  }

  has(pointer: string): boolean {
    return this.table().has(pointer);
  }

  entries(): IterableIterator<[string, NodeLocation]> {
    return this.table().entries();
  }
}

export type SourceProblemKind = "syntax" | "duplicate-key" | "limit" | "encoding" | "refused";

/**
 * A file the reader would not open as data (a link, a device or pipe, a file out of the folder,
 * one over the size cap): what a validator reports in place of its text.
 */
export interface RefusedSource {
  refused: { message: string; hint: string };
}

export function isRefusedSource(source: unknown): source is RefusedSource {
  return typeof source === "object" && source !== null && "refused" in source;
}

/** The finding for a refused file, on its first line. */
export function refusedFile(source: RefusedSource): {
  ok: false;
  problems: SourceProblem[];
  text: string;
} {
  return {
    ok: false,
    text: "",
    problems: [{ kind: "refused", span: WHOLE_FILE, ...source.refused }],
  };
}

export interface SourceProblem {
  kind: SourceProblemKind;
  message: string;
  span: Span;
  hint: string;
}

/** JSON pointer for a path, the key ajv reports errors under. */
export function pointerOf(path: readonly PathSegment[]): string {
  let out = "";
  for (const seg of path) out += pointerSegment(seg);
  return out;
}

/** One segment of a JSON pointer, with its `/`: most keys need no escaping. */
function pointerSegment(seg: PathSegment): string {
  if (typeof seg === "number") return `/${seg}`;
  return seg.includes("~") || seg.includes("/")
    ? `/${seg.replace(/~/g, "~0").replace(/\//g, "~1")}`
    : `/${seg}`;
}

export function parsePointer(pointer: string): PathSegment[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => {
      const seg = s.replace(/~1/g, "/").replace(/~0/g, "~");
      return /^(0|[1-9][0-9]*)$/.test(seg) ? Number(seg) : seg;
    });
}

/** `steps[2].next[0].goto`: how a path reads in a message. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out === "" ? "(document)" : out;
}

/**
 * A loaded YAML document: its text, its value, and where every value came from, so that any
 * later error, however deep, can point at a line and column.
 */
export class SourceDocument {
  private starts: number[] | undefined;

  constructor(
    readonly file: string,
    readonly text: string,
    readonly value: unknown,
    private readonly locations: LocationTable,
  ) {}

  /** Offsets where each line begins, found when a position is first asked for. */
  get lineStarts(): number[] {
    this.starts ??= lineStartsOf(this.text);
    return this.starts;
  }

  /** 1-based line and column of an offset. */
  position(offset: number): { line: number; column: number } {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
  }

  spanOfRange(range: Range): Span {
    const a = this.position(range.start);
    const b = this.position(Math.max(range.end, range.start + 1));
    return { line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
  }

  /** A location's span, in the document it belongs to (which names its file when not this one). */
  private spanIn(loc: NodeLocation, range: Range): Span {
    const doc = loc.in ?? this;
    const span = doc.spanOfRange(range);
    return doc === this ? span : { ...span, file: doc.file };
  }

  /**
   * The locations at `path` and below it, as paths relative to `path` (with the document they
   * are in): what a dialect loader carries over to the value it converts this one into.
   */
  locationsUnder(path: readonly PathSegment[]): [string, NodeLocation][] {
    const base = pointerOf(path);
    const out: [string, NodeLocation][] = [];
    for (const [pointer, loc] of this.locations.entries())
      if (pointer === base || pointer.startsWith(`${base}/`))
        out.push([pointer.slice(base.length), { ...loc, in: loc.in ?? this }]);
    return out;
  }

  /** Whether the document has a value at this path. */
  has(path: readonly PathSegment[]): boolean {
    return this.locations.has(pointerOf(path));
  }

  /**
   * The span of the value at `path`, or of its key when `key` is set (an unknown field is best
   * shown on its name). Falls back to the nearest ancestor that exists, so a missing field points
   * at the mapping that lacks it.
   */
  span(path: readonly PathSegment[], key = false): Span {
    for (let n = path.length; n >= 0; n--) {
      const loc = this.locations.get(pointerOf(path.slice(0, n)));
      if (loc) {
        if ((key || n < path.length) && loc.key) return this.spanIn(loc, loc.key);
        if (n < path.length)
          return loc.in && loc.in !== this
            ? { ...loc.in.firstLineOf(loc.value), file: loc.in.file }
            : this.firstLineOf(loc.value);
        return this.spanIn(loc, loc.value);
      }
    }
    return { line: 1, column: 1, endLine: 1, endColumn: 1 };
  }

  /** A value's first line only: where a missing field is reported, without underlining a block. */
  firstLineOf(range: Range): Span {
    const a = this.position(range.start);
    const lineEnd = this.lineText(a.line).length + 1;
    const endColumn = Math.max(
      a.column + 1,
      Math.min(
        lineEnd,
        this.position(range.end).line === a.line ? this.position(range.end).column : lineEnd,
      ),
    );
    return { line: a.line, column: a.column, endLine: a.line, endColumn };
  }

  /** The text of line `line` (1-based) without its line break. */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return "";
    const next = this.lineStarts[line];
    return this.text.slice(start, next === undefined ? undefined : next).replace(/\r?\n$/, "");
  }
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

export type LoadResult =
  | {
      ok: true;
      document: SourceDocument;
      /** With `duplicateKeys: "last"`: each key written again, where the value kept is. */
      duplicates?: SourceProblem[];
    }
  | { ok: false; problems: SourceProblem[]; text: string };

/**
 * How a duplicate key in a mapping is read: refused (YAML's rule, and this project's), or the
 * last value kept, as PyYAML-based loaders of other systems do.
 */
export interface LoadOptions {
  duplicateKeys?: "refuse" | "last";
}

/** Decode bytes as UTF-8, refusing binary data rather than guessing. */
export function decodeSource(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

const WHOLE_FILE: Span = { line: 1, column: 1, endLine: 1, endColumn: 1 };

/** Read a file's bytes into a document, or say precisely why not. */
export function loadSourceBytes(
  file: string,
  bytes: Uint8Array,
  limits: SourceLimits = DEFAULT_LIMITS,
): LoadResult {
  if (bytes.byteLength > limits.maxBytes) {
    return fail("", "limit", WHOLE_FILE, {
      message: `file is ${formatBytes(bytes.byteLength)}, more than the ${formatBytes(limits.maxBytes)} a playbook may be`,
      hint: "split the procedure into several playbooks joined by delegate or handoff, and keep large text in template files",
    });
  }
  const text = decodeSource(bytes);
  if (text === null) {
    return fail("", "encoding", WHOLE_FILE, {
      message: "file is not UTF-8 text (it contains a NUL byte or an invalid byte sequence)",
      hint: "save the playbook as UTF-8 YAML; binary files do not belong in a playbook folder",
    });
  }
  return loadSourceText(file, text, limits);
}

/** Parse YAML text into a document with positions, enforcing the limits while parsing. */
export function loadSourceText(
  file: string,
  input: string,
  limits: SourceLimits = DEFAULT_LIMITS,
  options: LoadOptions = {},
): LoadResult {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  if (text.length > limits.maxBytes) {
    return fail(text, "limit", WHOLE_FILE, {
      message: `file is more than the ${formatBytes(limits.maxBytes)} a playbook may be`,
      hint: "split the procedure into several playbooks joined by delegate or handoff",
    });
  }
  let events: Event[];
  try {
    events = yamlLibrary().parseEvents(text, { filename: file, maxDepth: limits.maxDepth });
  } catch (err) {
    return yamlFailure(text, err);
  }
  // The first walk only bounds the document; duplicate keys are left to construction, which
  // refuses them, and a second, full walk then says where each one is.
  if (!plainlyReadable(events, limits)) {
    const walked = walkEvents(text, events, limits, false);
    if ("problems" in walked) return { ok: false, problems: walked.problems, text };
  }
  if (options.duplicateKeys === "last") return keepingLast(file, text, events, limits);
  let value: unknown;
  try {
    value = construct(file, text, events, limits, false);
  } catch (err) {
    const full = walkEvents(text, events, limits, true);
    return "problems" in full
      ? { ok: false, problems: full.problems, text }
      : yamlFailure(text, err);
  }
  const locations = new LocationsOnDemand(() => {
    // The same text walked again: it cannot fail where the first check (the tight pass, or the
    // walk) passed, as both refuse the same files.
    const again = walkEvents(
      text,
      yamlLibrary().parseEvents(text, { filename: file, maxDepth: limits.maxDepth }),
      limits,
      true,
    );
    return "locations" in again ? again.locations : new Map<string, NodeLocation>();
  });
  return { ok: true, document: new SourceDocument(file, text, value, locations) };
}

/** A document read with each duplicate key's last value kept, and the duplicates said. */
function keepingLast(
  file: string,
  text: string,
  events: Event[],
  limits: SourceLimits,
): LoadResult {
  let value: unknown;
  try {
    value = construct(file, text, events, limits, true);
  } catch (err) {
    return yamlFailure(text, err);
  }
  const full = walkEvents(text, events, limits, true, true);
  if ("problems" in full) return { ok: false, problems: full.problems, text };
  return {
    ok: true,
    document: new SourceDocument(file, text, value, full.locations),
    duplicates: full.duplicates,
  };
}

/**
 * The document's value from its events (the first document, or null). `lastKeyWins`: js-yaml's
 * JSON compatibility, where a key written again overrides the earlier value; else it throws.
 */
function construct(
  file: string,
  text: string,
  events: Event[],
  limits: SourceLimits,
  lastKeyWins: boolean,
): unknown {
  const docs = yamlLibrary().constructFromEvents(events, {
    source: text,
    filename: file,
    schema: yamlLibrary().CORE_SCHEMA,
    maxAliases: limits.maxAliases,
    ...(lastKeyWins ? { json: true } : {}),
  });
  return docs[0] ?? null;
}

function yamlFailure(text: string, err: unknown): LoadResult {
  const doc = new SourceDocument("", text, null, new Map());
  if (err instanceof yamlLibrary().YAMLException) {
    const offset = Math.min(err.mark?.position ?? 0, text.length);
    const reason = err.reason || err.message;
    const depth = /depth/i.test(reason);
    return fail(
      text,
      depth ? "limit" : "syntax",
      doc.spanOfRange({ start: offset, end: offset + 1 }),
      {
        message: depth ? `nesting is too deep: ${reason}` : reason,
        hint: depth
          ? "a playbook needs only a few levels of nesting; flatten the structure"
          : "check indentation, quoting and the characters around this position",
      },
    );
  }
  return fail(text, "syntax", WHOLE_FILE, {
    message: err instanceof Error ? err.message : String(err),
    hint: "check the file is a YAML mapping",
  });
}

function fail(
  text: string,
  kind: SourceProblemKind,
  span: Span,
  detail: { message: string; hint: string },
): LoadResult {
  return { ok: false, text, problems: [{ kind, span, ...detail }] };
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

interface Frame {
  kind: "map" | "seq";
  /** Where the collection is, as a JSON pointer (built once per node, never from a whole path). */
  pointer: string;
  start: number;
  end: number;
  index: number;
  /** In a mapping: the key waiting for its value. */
  key?: { name: string; range: Range };
  keys?: Map<string, Range>;
  anchor?: string;
  size: number;
}

/**
 * One pass over the parser's events: counts nodes as if aliases were expanded, so an alias bomb
 * fails here, in time proportional to the file, before anything walks the expanded value; and,
 * when `full`, reports duplicate keys and records the source range of every value.
 */
function walkEvents(
  text: string,
  events: Event[],
  limits: SourceLimits,
  full: boolean,
  keepLast = false,
): { locations: PackedLocations; duplicates: SourceProblem[] } | { problems: SourceProblem[] } {
  const walker = new EventWalker(text, limits, full, keepLast);
  for (const ev of events) {
    const stop = walker.step(ev);
    if (stop) return stop;
  }
  return walker.result();
}

/**
 * The walk's checks in one tight pass, for the files most are: one document, no alias, no list or
 * mapping as a key, few enough nodes. False when the file is anything else, and the walk (which
 * says what is wrong, and where) decides.
 */
function plainlyReadable(events: Event[], limits: SourceLimits): boolean {
  let documents = 0;
  let nodes = 0;
  // Per open collection: a sequence, a mapping waiting for a key, or for the key's value.
  const open: Array<"seq" | "key" | "value"> = [];
  for (const ev of events) {
    const type = ev.type;
    if (type === EVENT_ID.POP) {
      open.pop();
      continue;
    }
    if (type === EVENT_ID.DOCUMENT) {
      if (++documents > 1) return false;
      continue;
    }
    if (type === EVENT_ID.ALIAS) return false;
    const top = open.length - 1;
    const at = open[top];
    if (at === "key") {
      if (type !== EVENT_ID.SCALAR) return false;
      open[top] = "value";
    } else if (at === "value") open[top] = "key";
    nodes++;
    if (type === EVENT_ID.MAPPING) open.push("key");
    else if (type === EVENT_ID.SEQUENCE) open.push("seq");
  }
  return nodes <= limits.maxNodes;
}

/** What ends the walk at once: the problem that makes the file unreadable. */
type Stop = { problems: SourceProblem[] } | null;

/** Where a node sits: its JSON pointer, and its key's range in a mapping. */
type Place = { pointer: string; key?: Range };

class EventWalker {
  private readonly locations = new PackedLocations();
  private readonly anchorSizes = new Map<string, number>();
  private readonly problems: SourceProblem[] = [];
  private readonly duplicates: SourceProblem[] = [];
  private readonly doc: SourceDocument;
  private readonly stack: Frame[] = [];
  private documents = 0;
  private expanded = 0;
  private aliases = 0;

  constructor(
    private readonly text: string,
    private readonly limits: SourceLimits,
    private readonly full: boolean,
    /** A duplicate key is noted, not refused (its last value is the one kept). */
    private readonly keepLast = false,
  ) {
    this.doc = new SourceDocument("", text, null, new Map());
  }

  result():
    { locations: PackedLocations; duplicates: SourceProblem[] } | { problems: SourceProblem[] } {
    if (this.problems.length > 0) return { problems: this.problems };
    return { locations: this.locations, duplicates: this.duplicates };
  }

  step(ev: Event): Stop {
    switch (ev.type) {
      case EVENT_ID.DOCUMENT:
        return this.document();
      case EVENT_ID.SCALAR:
        return this.scalar(ev);
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE:
        return this.collection(ev);
      case EVENT_ID.ALIAS:
        return this.alias(ev);
      case EVENT_ID.POP:
        this.pop();
        return null;
    }
    return null;
  }

  private top(): Frame | undefined {
    return this.stack[this.stack.length - 1];
  }

  /** The next node is a mapping's key (the mapping has no key waiting for its value). */
  private keyExpected(): boolean {
    const parent = this.top();
    return parent?.kind === "map" && !parent.key;
  }

  /** A syntax problem that ends the walk. */
  private syntax(message: string, range: Range, hint: string): Stop {
    this.problems.push({ kind: "syntax", message, span: this.doc.spanOfRange(range), hint });
    return { problems: this.problems };
  }

  private limitProblem(message: string, at: number, hint: string): Stop {
    const span = this.doc.spanOfRange({ start: at, end: at + 1 });
    return { problems: [{ kind: "limit", message, span, hint }] };
  }

  private document(): Stop {
    this.documents++;
    if (this.documents <= 1) return null;
    const text = this.text;
    const last = this.stack.length === 0 ? text.length : 0;
    return this.syntax(
      "file holds more than one YAML document",
      { start: Math.min(last, text.length - 1), end: text.length },
      "put one playbook in each file",
    );
  }

  private scalar(ev: ScalarEvent): Stop {
    const parent = this.top();
    // An empty value (`next:` and nothing, a bare `-`) has no place of its own: it sits
    // where its key ends, or after its item's dash.
    let from = ev.valueStart;
    if (from < 0) {
      const dash =
        parent?.kind === "seq"
          ? this.text.indexOf("-", parent.index === 0 ? parent.start : parent.end)
          : -1;
      from =
        parent?.kind === "map" && parent.key
          ? parent.key.range.end
          : dash >= 0
            ? dash + 1
            : (parent?.end ?? 0);
    }
    const valueRange = { start: from, end: Math.max(ev.valueEnd, from) };
    const keyText =
      this.keyExpected() && this.full ? yamlLibrary().getScalarValue(this.text, ev) : null;
    const at = this.place(valueRange, keyText);
    const over = this.count(1, ev.valueStart);
    if (over) return over;
    if (at) this.record(at, valueRange);
    if (ev.anchorStart >= 0) this.anchorSizes.set(this.text.slice(ev.anchorStart, ev.anchorEnd), 1);
    return null;
  }

  private collection(ev: MappingEvent | SequenceEvent): Stop {
    const range = { start: ev.start, end: ev.start + 1 };
    if (this.keyExpected())
      return this.syntax(
        "a mapping key must be a plain string, not a list or mapping",
        range,
        "write the key as text",
      );
    const at = this.place(range, null) as Place;
    const over = this.count(1, ev.start);
    if (over) return over;
    const frame: Frame = {
      kind: ev.type === EVENT_ID.MAPPING ? "map" : "seq",
      pointer: at.pointer,
      start: ev.start,
      end: ev.start + 1,
      index: 0,
      size: 1,
    };
    if (ev.type === EVENT_ID.MAPPING && this.full) frame.keys = new Map();
    if (ev.anchorStart >= 0) frame.anchor = this.text.slice(ev.anchorStart, ev.anchorEnd);
    this.record(at, range);
    this.stack.push(frame);
    return null;
  }

  private alias(ev: AliasEvent): Stop {
    this.aliases++;
    if (this.aliases > this.limits.maxAliases)
      return this.limitProblem(
        `document uses more than ${this.limits.maxAliases} aliases`,
        ev.anchorStart,
        "write the values out instead of repeating them with aliases",
      );
    const name = this.text.slice(ev.anchorStart, ev.anchorEnd);
    const range = { start: Math.max(0, ev.anchorStart - 1), end: ev.anchorEnd };
    if (this.keyExpected())
      return this.syntax(
        "an alias cannot be used as a mapping key",
        range,
        "write the key as text",
      );
    const at = this.place(range, null);
    const size = this.anchorSizes.get(name);
    if (size === undefined)
      return this.syntax(
        `alias *${name} refers to an anchor that is not defined before it`,
        range,
        `define &${name} earlier in the file, or remove the alias`,
      );
    const over = this.count(size, ev.anchorStart);
    if (over) return over;
    if (at) this.record(at, range);
    return null;
  }

  private pop(): void {
    const frame = this.stack.pop();
    if (!frame) return;
    if (this.full) this.locations.setValue(frame.pointer, { start: frame.start, end: frame.end });
    if (frame.anchor !== undefined) this.anchorSizes.set(frame.anchor, frame.size);
    const parent = this.top();
    if (parent) parent.end = Math.max(parent.end, frame.end);
  }

  /** Decides where a new node sits. Returns null when the node is a mapping key. */
  private place(range: Range, keyText: string | null): Place | null {
    const parent = this.top();
    if (!parent) return { pointer: "" };
    parent.end = Math.max(parent.end, range.end);
    const full = this.full;
    if (parent.kind === "seq")
      return { pointer: full ? parent.pointer + pointerSegment(parent.index++) : "" };
    if (!parent.key) {
      const name = full ? (keyText ?? "") : "";
      const seen = parent.keys?.get(name);
      if (seen) {
        const first = this.doc.position(seen.start);
        (this.keepLast ? this.duplicates : this.problems).push({
          kind: "duplicate-key",
          message: `key '${name}' appears twice in this mapping (first at line ${first.line}, column ${first.column})`,
          span: this.doc.spanOfRange(range),
          hint: "remove one of them or rename it; YAML keeps only one value per key",
        });
      } else parent.keys?.set(name, range);
      parent.key = { name, range };
      return null;
    }
    const key = parent.key;
    delete parent.key;
    return { pointer: full ? parent.pointer + pointerSegment(key.name) : "", key: key.range };
  }

  private record(at: Place, range: Range): void {
    if (this.full) this.locations.set(at.pointer, range, at.key);
  }

  /** Counts nodes as if aliases were expanded: an alias counts its anchor's whole size. */
  private count(n: number, at: number): Stop {
    this.expanded += n;
    for (const f of this.stack) f.size += n;
    if (this.expanded > this.limits.maxNodes)
      return this.limitProblem(
        `document expands to more than ${this.limits.maxNodes} nodes${this.aliases > 0 ? " once its aliases are expanded" : ""}`,
        at,
        "aliases that repeat large structures multiply the document; write the values out or split the playbook",
      );
    return null;
  }
}
