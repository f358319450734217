/**
 * Small edits to a playbook's YAML text that keep everything else as the author wrote it —
 * comments, blank lines, quoting, flow or block style — located by the source positions the
 * project's parser records (`SourceDocument`). Every edit is a replacement of a range of the text;
 * new values are written from data (scalars through js-yaml's dumper), never pasted from people's
 * text. An edit that cannot be made safely says so (returns false), and the caller checks that the
 * edited text reads back as the value it meant before using it.
 */
import type { NodeLocation, PathSegment, Range, SourceDocument } from "../format/source.js";
import { pointerOf } from "../format/source.js";
import { yamlLibrary } from "../format/yaml-library.js";

interface TextEdit {
  start: number;
  end: number;
  text: string;
  /** How deep the edited value sits: of two insertions at one place, the deeper goes first. */
  depth: number;
  seq: number;
}

type Data = unknown;

const isCollection = (v: Data): v is Record<string, unknown> | unknown[] =>
  typeof v === "object" && v !== null;

/** A scalar as YAML on one line: plain where that reads back the same, quoted otherwise. */
export function scalarText(v: Data): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  const y = yamlLibrary();
  const dumped = y
    .dump(String(v), { schema: y.CORE_SCHEMA, flowLevel: 0, lineWidth: -1, quoteStyle: "double" })
    .replace(/\n$/, "");
  return dumped.includes("\n") ? JSON.stringify(String(v)) : dumped;
}

/** A value in flow style, spaced as the bundled playbooks write it: `{ a: 1 }`, `[a, b]`. */
export function flowText(v: Data): string {
  if (Array.isArray(v)) return `[${v.map(flowText).join(", ")}]`;
  if (isCollection(v)) {
    const entries = Object.entries(v);
    return entries.length === 0
      ? "{}"
      : `{ ${entries.map(([k, x]) => `${scalarText(k)}: ${flowText(x)}`).join(", ")} }`;
  }
  return scalarText(v);
}

const flat = (v: Data): boolean =>
  !isCollection(v) || Object.values(v).every((x) => !isCollection(x));

/**
 * A value as block YAML lines (no indentation of its own): mappings and sequences as blocks down
 * to `flowFrom` levels, anything below (and any collection holding no collection) in flow style.
 */
export function blockLines(v: Data, flowFrom: number, depth = 0): string[] {
  if (!isCollection(v) || depth >= flowFrom || (depth > 0 && flat(v))) return [flowText(v)];
  if (Array.isArray(v)) {
    if (v.length === 0) return ["[]"];
    return v.flatMap((item) => {
      const lines = blockLines(item, flowFrom, depth + 1);
      return [`- ${lines[0]}`, ...lines.slice(1).map((l) => `  ${l}`)];
    });
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return ["{}"];
  return entries.flatMap(([k, x]) => {
    const lines = blockLines(x, flowFrom, depth + 1);
    if (lines.length === 1 && !(isCollection(x) && depth + 1 < flowFrom && !flat(x)))
      return [`${scalarText(k)}: ${lines[0]}`];
    return [`${scalarText(k)}:`, ...lines.map((l) => `  ${l}`)];
  });
}

export class SourceEditor {
  readonly text: string;
  private readonly locs = new Map<string, NodeLocation>();
  private readonly children = new Map<string, string[]>();
  private readonly edits: TextEdit[] = [];
  private seq = 0;

  constructor(private readonly doc: SourceDocument) {
    this.text = doc.text;
    for (const [pointer, loc] of doc.locationsUnder([])) {
      if (loc.in && loc.in !== doc) continue;
      this.locs.set(pointer, loc);
      if (pointer !== "") {
        const parent = pointer.slice(0, pointer.lastIndexOf("/"));
        const list = this.children.get(parent) ?? [];
        list.push(pointer);
        this.children.set(parent, list);
      }
    }
  }

  /** The value written at a path. */
  valueAt(path: readonly PathSegment[]): Data {
    let v: Data = this.doc.value;
    for (const seg of path) {
      if (!isCollection(v)) return undefined;
      v = (v as Record<string, unknown>)[seg as string];
    }
    return v;
  }

  private lineStart(offset: number): number {
    return this.text.lastIndexOf("\n", offset - 1) + 1;
  }

  /** The offset just after the line holding `offset` (its line break included). */
  private lineAfter(offset: number): number {
    const nl = this.text.indexOf("\n", offset);
    return nl === -1 ? this.text.length : nl + 1;
  }

  private isFlow(loc: NodeLocation): boolean {
    const c = this.text[loc.value.start];
    return c === "[" || c === "{";
  }

  /** A scalar's range with its quotes. */
  private quoted(range: Range): Range {
    const q = this.text[range.start - 1];
    if ((q === '"' || q === "'") && this.text[range.end] === q)
      return { start: range.start - 1, end: range.end + 1 };
    return range;
  }

  /** Whether a scalar is written as a block scalar (`|` or `>`). */
  private isBlockScalar(loc: NodeLocation): boolean {
    let p = loc.value.start - 1;
    while (p >= 0 && /[ \t\r\n]/.test(this.text[p] as string)) p--;
    while (p >= 0 && /[0-9+-]/.test(this.text[p] as string)) p--;
    return this.text[p] === "|" || this.text[p] === ">";
  }

  /** Just after the bracket that closes the flow collection opening at `start`. */
  private flowEnd(start: number): number | undefined {
    let depth = 0;
    const t = this.text;
    for (let i = start; i < t.length; i++) {
      const c = t[i];
      if (c === "'" || c === '"') {
        for (i++; i < t.length; i++) {
          if (c === "'" && t[i] === "'") {
            if (t[i + 1] === "'") i++;
            else break;
          } else if (c === '"' && t[i] === "\\") i++;
          else if (c === '"' && t[i] === '"') break;
        }
      } else if (c === "#" && (i === 0 || /\s/.test(t[i - 1] as string))) {
        const nl = t.indexOf("\n", i);
        i = nl === -1 ? t.length : nl;
      } else if (c === "[" || c === "{") depth++;
      else if (c === "]" || c === "}") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return undefined;
  }

  /** Where the value at a pointer ends as written: closing quote or bracket, or its last child. */
  private contentEnd(pointer: string): number | undefined {
    const loc = this.locs.get(pointer);
    if (!loc) return undefined;
    if (this.isFlow(loc)) return this.flowEnd(loc.value.start);
    const kids = this.children.get(pointer);
    if (kids && kids.length > 0) return this.contentEnd(kids[kids.length - 1] as string);
    if (this.isBlockScalar(loc)) {
      let e = loc.value.end;
      while (e > loc.value.start && /[ \t\r\n]/.test(this.text[e - 1] as string)) e--;
      return e;
    }
    return this.quoted(loc.value).end;
  }

  /**
   * The lines a block sequence item or block mapping entry takes: from the start of the line of
   * its `-` or key to the end of the line where its value ends. Undefined when it shares a line
   * with anything else or is not written in block style.
   */
  private entryLines(
    path: readonly PathSegment[],
    underDash = false,
  ): { start: number; end: number; indent: number } | undefined {
    const pointer = pointerOf(path);
    const loc = this.locs.get(pointer);
    const end = this.contentEnd(pointer);
    if (!loc || end === undefined) return undefined;
    let head: number;
    if (typeof path[path.length - 1] === "number") {
      let p = this.quoted(loc.value).start - 1;
      while (p >= 0 && /[ \t\r\n]/.test(this.text[p] as string)) p--;
      if (this.text[p] !== "-") return undefined;
      head = p;
    } else {
      if (!loc.key) return undefined;
      head = this.quoted(loc.key).start;
    }
    const start = this.lineStart(head);
    // The first key of a mapping that is a sequence item shares its line with the `-`: its
    // column still gives the mapping's indentation, but the line is not the entry's alone.
    const before = this.text.slice(start, head);
    if (before.trim() !== "" && !(underDash && /^[ \t]*(- +)+$/.test(before))) return undefined;
    return { start, end: this.lineAfter(end), indent: head - start };
  }

  private add(start: number, end: number, text: string, depth = 0): true {
    this.edits.push({ start, end, text, depth, seq: this.seq++ });
    return true;
  }

  private indented(lines: string[], indent: number, first = ""): string {
    const pad = " ".repeat(indent);
    return lines
      .map((l, i) => (i === 0 ? `${pad}${first}${l}` : `${pad}${first ? "  " : ""}${l}`))
      .join("\n");
  }

  /** Replace the value at a path with `value`: in place for scalars and flow collections. */
  setValue(path: readonly PathSegment[], value: Data): boolean {
    const pointer = pointerOf(path);
    const loc = this.locs.get(pointer);
    if (!loc || pointer === "") return false;
    if (this.isFlow(loc)) {
      const end = this.flowEnd(loc.value.start);
      return end !== undefined && this.add(loc.value.start, end, flowText(value));
    }
    const kids = this.children.get(pointer);
    if (!kids?.length && !this.isBlockScalar(loc)) {
      const r = this.quoted(loc.value);
      if (this.text.slice(r.start, r.end).includes("\n")) return false;
      return this.add(r.start, r.end, isCollection(value) ? flowText(value) : scalarText(value));
    }
    // A block collection or block scalar: written again after its key, in flow style.
    const lines = this.entryLines(path);
    const end = this.contentEnd(pointer);
    if (!lines || end === undefined || !loc.key) return false;
    const colon = this.text.indexOf(":", this.quoted(loc.key).end);
    if (colon === -1 || colon > loc.value.start) return false;
    const lineEnd = this.lineAfter(end) - (this.text[this.lineAfter(end) - 1] === "\n" ? 1 : 0);
    return this.add(colon + 1, lineEnd, ` ${flowText(value)}`);
  }

  /** Delete a sequence item or mapping entry; its parent's other entries stay as written. */
  remove(path: readonly PathSegment[]): boolean {
    const parentPath = path.slice(0, -1);
    const parent = this.locs.get(pointerOf(parentPath));
    if (!parent) return false;
    const siblings = this.children.get(pointerOf(parentPath)) ?? [];
    if (this.isFlow(parent) || siblings.length <= 1) {
      const current = this.valueAt(parentPath);
      if (!isCollection(current)) return false;
      const last = path[path.length - 1] as PathSegment;
      const next = Array.isArray(current)
        ? current.filter((_, i) => i !== last)
        : Object.fromEntries(Object.entries(current).filter(([k]) => k !== last));
      return this.setValue(parentPath, next);
    }
    const lines = this.entryLines(path);
    if (!lines) return false;
    // Comment lines right above the entry, at its indentation, describe it and go with it.
    let start = lines.start;
    for (;;) {
      const above = this.lineStart(start - 1);
      if (start === 0 || above >= start) break;
      const line = this.text.slice(above, start - 1);
      const indent = line.length - line.trimStart().length;
      if (!line.trimStart().startsWith("#") || indent !== lines.indent) break;
      start = above;
    }
    return this.add(start, lines.end, "");
  }

  /**
   * Insert `value` into the block sequence at `seqPath`: after item `after`, or first when -1.
   * Written in block style down to `flowFrom` levels, indented like its neighbours.
   */
  insertItem(seqPath: readonly PathSegment[], after: number, value: Data, flowFrom = 2): boolean {
    const seq = this.locs.get(pointerOf(seqPath));
    const items = this.children.get(pointerOf(seqPath)) ?? [];
    if (!seq || this.isFlow(seq) || items.length === 0) {
      const current = this.valueAt(seqPath);
      if (!Array.isArray(current)) return false;
      const next = [...current];
      next.splice(after + 1, 0, value);
      return this.setValue(seqPath, next);
    }
    const anchor = this.entryLines([...seqPath, Math.max(after, 0)]);
    const neighbour = this.locs.get(pointerOf([...seqPath, Math.max(after, 0)]));
    if (!anchor || !neighbour) return false;
    // Next to items written in flow style, the new item is written the same way.
    const lines = this.isFlow(neighbour) ? [flowText(value)] : blockLines(value, flowFrom);
    const text = this.indented(lines, anchor.indent, "- ");
    if (after < 0) return this.add(anchor.start, anchor.start, `${text}\n`, seqPath.length);
    const gap = this.text[anchor.end - 1] === "\n" ? "" : "\n";
    return this.add(anchor.end, anchor.end, `${gap}${text}\n`, seqPath.length);
  }

  /**
   * Add `key: value` to the block mapping at `mapPath`, after its entry `after` (default: its
   * last), indented like its other keys. A flow mapping is written again with the entry.
   */
  insertEntry(
    mapPath: readonly PathSegment[],
    key: string,
    value: Data,
    after?: string,
    flowFrom = 2,
  ): boolean {
    const map = this.locs.get(pointerOf(mapPath));
    const entries = this.children.get(pointerOf(mapPath)) ?? [];
    const current = this.valueAt(mapPath);
    if (!map || !isCollection(current) || Array.isArray(current)) return false;
    if (this.isFlow(map) || entries.length === 0) {
      const next: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(current)) {
        next[k] = v;
        if (k === after) next[key] = value;
      }
      if (!(key in next)) next[key] = value;
      return this.setValue(mapPath, next);
    }
    const keys = Object.keys(current);
    const anchorKey = after !== undefined && keys.includes(after) ? after : keys[keys.length - 1];
    if (anchorKey === undefined) return false;
    const anchor = this.entryLines([...mapPath, anchorKey], true);
    const first = this.entryLines([...mapPath, keys[0] as string], true);
    if (!anchor || !first) return false;
    const lines = blockLines({ [key]: value }, flowFrom + 1, 0);
    const gap = this.text[anchor.end - 1] === "\n" ? "" : "\n";
    return this.add(
      anchor.end,
      anchor.end,
      `${gap}${this.indented(lines, first.indent)}\n`,
      mapPath.length,
    );
  }

  /** The edited text, or undefined when two edits overlap. */
  result(): string | undefined {
    const edits = [...this.edits].sort(
      (a, b) => a.start - b.start || b.depth - a.depth || a.seq - b.seq,
    );
    for (let i = 1; i < edits.length; i++) {
      const prev = edits[i - 1] as TextEdit;
      const cur = edits[i] as TextEdit;
      if (cur.start < prev.end) return undefined;
    }
    let out = "";
    let at = 0;
    for (const e of edits) {
      out += this.text.slice(at, e.start) + e.text;
      at = e.end;
    }
    return out + this.text.slice(at);
  }
}
