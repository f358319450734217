import { parsePointer, type PathSegment, type SourceDocument } from "../format/source.js";
import { valueAt } from "./references.js";

/** A key or a scalar value of a parsed document under the cursor, with its range (loader offsets). */
export interface NodeAtCursor {
  path: PathSegment[];
  on: "key" | "value";
  start: number;
  end: number;
}

/**
 * The deepest key or scalar value at an offset of a parsed document: what hover and go to
 * definition are about. An empty value (`goto:` with nothing after it) is found on the rest of
 * its key's line.
 */
export function nodeAt(doc: SourceDocument, offset: number): NodeAtCursor | undefined {
  let best: NodeAtCursor | undefined;
  const consider = (c: NodeAtCursor): void => {
    if (
      !best ||
      c.path.length > best.path.length ||
      (c.path.length === best.path.length && c.on === "value")
    )
      best = c;
  };
  const line = doc.position(offset).line;
  for (const [pointer, loc] of doc.locationsUnder([])) {
    if (loc.in && loc.in !== doc) continue;
    const path = parsePointer(pointer);
    if (loc.key && loc.key.start <= offset && offset <= loc.key.end)
      consider({ path, on: "key", start: loc.key.start, end: loc.key.end });
    // An empty value has no text: the loader places it where its key ends.
    const empty = loc.value.start < 0 || (loc.key !== undefined && loc.value.end === loc.key.end);
    if (!empty) {
      const value = valueAt(doc.value, path);
      const scalar = value === null || typeof value !== "object";
      if (scalar && loc.value.start <= offset && offset <= loc.value.end)
        consider({ path, on: "value", start: loc.value.start, end: loc.value.end });
    } else if (loc.key && offset > loc.key.end && doc.position(loc.key.start).line === line) {
      consider({ path, on: "value", start: offset, end: offset });
    }
  }
  return best;
}

/** What is being written at the cursor, read from the text alone (it may not parse yet). */
export interface Outline {
  /** The place: the key's path for a value, the mapping's path for a key being typed. */
  path: PathSegment[];
  /**
   * `value`: a value after `key:` or in a flow list; `key`: a key being typed in a mapping;
   * `item`: a block list item (`- …`), which may be a value or the first key of a mapping.
   */
  mode: "key" | "value" | "item";
  /** What is typed of the token so far, and the column where it starts. */
  partial: string;
  partialStart: number;
  /** Inside `{{ … }}`: the reference typed so far (`steps.pr.out`) and where it starts. */
  template?: { ref: string; start: number };
}

interface BlockNode {
  kind: "item" | "key";
  column: number;
  name?: string;
  /** A key whose value follows on later lines (nothing after the colon, or a block scalar). */
  open?: boolean;
  /** A key introducing a block scalar (`|`, `>`): the lines below are text. */
  scalar?: boolean;
}

const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{}[\],:][^#:]*?|)\s*:(?=\s|$)/;

/** The block structure a line opens with: its `- ` items, then a `key:` if any. */
function blockNodes(line: string): { nodes: BlockNode[]; restAt: number } {
  const nodes: BlockNode[] = [];
  let i = line.length - line.trimStart().length;
  for (;;) {
    if (line[i] === "-" && (i + 1 === line.length || line[i + 1] === " ")) {
      nodes.push({ kind: "item", column: i });
      i++;
      while (line[i] === " ") i++;
      continue;
    }
    break;
  }
  const m = KEY.exec(line.slice(i));
  if (m && m[1] !== "") {
    const raw = m[1] as string;
    const name = /^["']/.test(raw) ? raw.slice(1, -1) : raw.trim();
    const after = line
      .slice(i + m[0].length)
      .replace(/\s+#.*$/, "")
      .trim();
    const scalar = /^[|>][-+0-9]*$/.test(after);
    const open = after === "" || scalar || /^[&!][^\s]*$/.test(after);
    nodes.push({ kind: "key", column: i, name, open, scalar });
    return { nodes, restAt: i + m[0].length };
  }
  return { nodes, restAt: i };
}

const isBlank = (line: string): boolean => /^\s*(#.*)?$/.test(line);

/** Items of the block list whose item at (`line`, `column`) is: how many come before it. */
function itemIndex(lines: readonly string[], line: number, column: number): number {
  let count = 0;
  for (let j = line - 1; j >= 0; j--) {
    const text = lines[j] ?? "";
    if (isBlank(text)) continue;
    const { nodes } = blockNodes(text);
    const first = nodes[0]?.column ?? text.length - text.trimStart().length;
    if (nodes.some((n) => n.kind === "item" && n.column === column)) count++;
    else if (first <= column) break;
  }
  return count;
}

interface FlowFrame {
  kind: "map" | "seq";
  key?: string;
  index: number;
}

/**
 * The flow collections (`{ … }`, `[ … ]`) open at the end of a line's prefix, from `restAt`, and
 * where the token being typed starts; `comment` when a comment starts before the prefix ends.
 */
function flowAt(
  prefix: string,
  restAt: number,
): { frames: FlowFrame[]; tokenStart: number; inQuote: boolean; comment: boolean } {
  const frames: FlowFrame[] = [];
  let tokenStart = restAt;
  let inQuote = false;
  for (let i = restAt; i < prefix.length; i++) {
    const c = prefix[i] as string;
    if (c === '"' || c === "'") {
      const close = prefix.indexOf(c, i + 1);
      if (close === -1) {
        inQuote = true;
        tokenStart = i + 1;
        break;
      }
      i = close;
      continue;
    }
    if (c === "#" && (i === 0 || prefix[i - 1] === " "))
      return { frames, tokenStart, inQuote, comment: true };
    const top = frames[frames.length - 1];
    if (c === "{" || c === "[") {
      if (c === "{" && prefix[i + 1] === "{") break; // a template written unquoted
      frames.push({ kind: c === "{" ? "map" : "seq", index: 0 });
      tokenStart = i + 1;
    } else if (c === "}" || c === "]") {
      frames.pop();
      tokenStart = i + 1;
    } else if (c === "," && top) {
      top.index++;
      delete top.key;
      tokenStart = i + 1;
    } else if (c === ":" && top?.kind === "map" && /[\s,}]/.test(prefix[i + 1] ?? " ")) {
      top.key = prefix
        .slice(tokenStart, i)
        .trim()
        .replace(/^["']|["']$/g, "");
      tokenStart = i + 1;
    }
  }
  return { frames, tokenStart, inQuote, comment: false };
}

/** The keys and items on the lines above `line` that contain a node starting at `column`. */
function ancestorsAbove(
  lines: readonly string[],
  line: number,
  column: number,
  isItem: boolean,
): { node: BlockNode; line: number }[] {
  const ancestors: { node: BlockNode; line: number }[] = [];
  let threshold = column;
  let childIsItem = isItem;
  for (let j = line - 1; j >= 0; j--) {
    const text = lines[j] ?? "";
    if (isBlank(text)) continue;
    const found = blockNodes(text).nodes;
    for (let k = found.length - 1; k >= 0; k--) {
      const n = found[k] as BlockNode;
      const compactList = n.kind === "key" && n.column === threshold && childIsItem && n.open;
      if (n.column < threshold || compactList) {
        if (n.kind === "key" && !n.open) continue;
        ancestors.unshift({ node: n, line: j });
        threshold = n.column;
        childIsItem = n.kind === "item";
      }
    }
  }
  return ancestors;
}

/**
 * Where the cursor is in the YAML outline, from indentation and the current line: enough for
 * completion while the file is being typed and may not parse. Block style is read across
 * lines; flow style (`{ goto: x }`, `[a, b]`) only within the current line.
 */
export function outlineAt(
  lines: readonly string[],
  line: number,
  character: number,
): Outline | undefined {
  const current = lines[line] ?? "";
  const prefix = current.slice(0, character);
  const open = prefix.lastIndexOf("{{");
  let template: Outline["template"];
  if (open >= 0 && !prefix.slice(open).includes("}}")) {
    const ref = (/[A-Za-z0-9_.-]*$/.exec(prefix) as RegExpExecArray)[0];
    template = { ref, start: character - ref.length };
  }

  // This line's own structure, then what the flow part after it says.
  const { nodes, restAt } = blockNodes(prefix);
  const own: PathSegment[] = [];
  let firstColumn = nodes[0]?.column ?? prefix.length - prefix.trimStart().length;
  if (prefix.trim() === "") firstColumn = character;
  for (const n of nodes) own.push(n.kind === "item" ? 0 : (n.name as string));
  const lastNode = nodes[nodes.length - 1];
  let mode: Outline["mode"] =
    lastNode?.kind === "key" ? "value" : lastNode?.kind === "item" ? "item" : "key";

  const { frames, tokenStart, inQuote, comment } = flowAt(prefix, restAt);
  if (comment && !template) return undefined;
  for (const f of frames) {
    if (f.kind === "seq") {
      own.push(f.index);
      mode = "value";
    } else if (f.key !== undefined) {
      own.push(f.key);
      mode = "value";
    } else mode = "key";
  }
  const partialRaw = prefix.slice(tokenStart);
  const partial = inQuote ? partialRaw : partialRaw.trimStart();
  const partialStart = character - partial.length;

  // The lines above: every less indented key or item that contains this line.
  const ancestors = ancestorsAbove(lines, line, firstColumn, nodes[0]?.kind === "item");
  const path: PathSegment[] = [];
  for (const a of ancestors) {
    if (a.node.kind === "key") {
      path.push(a.node.name as string);
      if (a.node.scalar) {
        // Inside a block scalar: the lines are its text, whatever they look like.
        return { path, mode: "value", partial, partialStart, ...(template ? { template } : {}) };
      }
    } else path.push(itemIndex(lines, a.line, a.node.column));
  }
  // This line's first item counts the items above it in the same list.
  if (nodes[0]?.kind === "item") own[0] = itemIndex(lines, line, nodes[0].column);
  const full = [...path, ...own];
  return { path: full, mode, partial, partialStart, ...(template ? { template } : {}) };
}
