import {
  SourceDocument,
  pointerOf,
  type LoadResult,
  type NodeLocation,
  type PathSegment,
  type Range,
  type SourceLimits,
} from "../../format/source.js";

/**
 * Cortex's Markdown definition files, read the way its persona parser reads them: `# title`,
 * `## Section` headings (names compared in lower case), `- **key**: value` fields, `- name: text`
 * or `- item` list entries, and numbered steps (`1. id — title`) whose indented `- **key**: value`
 * lines belong to the step. The result is a plain value with every key and value located in the
 * text, so conversions can point at the author's line and column.
 *
 * The value: `{ title?, sections: { <name>: { body, fields, items, steps } } }`, where a step is
 * `{ id, title?, fields: { <key>: value }, branches: [{ condition, goto }] }`.
 */

export interface MarkdownStep {
  id: string;
  title?: string;
  fields: Record<string, string>;
  branches: { condition: string; goto: string }[];
}

export interface MarkdownSection {
  body: string;
  fields: Record<string, string>;
  items: string[];
  steps: MarkdownStep[];
}

export interface MarkdownModel {
  title?: string;
  sections: Record<string, MarkdownSection>;
}

/** Something the parser refused in a line, at its place (the conversion reports it). */
export interface MarkdownIssue {
  path: PathSegment[];
  message: string;
  hint: string;
}

export interface ParsedMarkdown {
  document: SourceDocument;
  model: MarkdownModel;
  issues: MarkdownIssue[];
}

/** The most lines a definition file may have: a bound far above any real procedure. */
const MAX_LINES = 5000;
const FIELD = /^-\s+\*\*([^*]+)\*\*:\s*(.+)$/;
const ITEM = /^-\s+(.+)$/;
const STEP = /^(\d+)\.\s+(.+)$/;
/** `<condition> -> <step>` (or `→`): the last arrow splits the prose from the target. */
const BRANCH = /^(.*\S)\s*(?:->|→)\s*(\S+)$/;

export function parseCortexMarkdown(
  file: string,
  input: string,
  limits: SourceLimits,
):
  | { ok: true; parsed: ParsedMarkdown }
  | { ok: false; failure: Extract<LoadResult, { ok: false }> } {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const lines = text.split("\n");
  if (text.length > limits.maxBytes || lines.length > MAX_LINES) {
    const whole = { line: 1, column: 1, endLine: 1, endColumn: 1 };
    return {
      ok: false,
      failure: {
        ok: false,
        text,
        problems: [
          {
            kind: "limit",
            span: whole,
            message: `file is larger than a definition file may be (${limits.maxBytes} bytes, ${MAX_LINES} lines)`,
            hint: "split the procedure into several playbooks",
          },
        ],
      },
    };
  }
  const reader = new MarkdownReader(text.length);
  let offset = 0;
  for (const raw of lines) {
    reader.read(lineAt(raw, offset));
    offset += raw.length + 1;
  }
  const { model, issues, locations } = reader;
  const document = new SourceDocument(file, text, model, locations);
  // A value the lines above gave no place (an empty section's lists) is shown at its section.
  return { ok: true, parsed: { document, model, issues } };
}

/** One line of the file, with the ranges of its parts in the whole text. */
interface MarkdownLine {
  line: string;
  trimmed: string;
  /** How far the line is indented. */
  lead: number;
  /** The line's text without its indentation. */
  whole: Range;
  range(from: number, length: number): Range;
}

function lineAt(raw: string, start: number): MarkdownLine {
  const line = raw.replace(/\r$/, "");
  const trimmed = line.trim();
  const lead = line.length - line.trimStart().length;
  const range = (from: number, length: number): Range => ({
    start: start + from,
    end: start + from + length,
  });
  return { line, trimmed, lead, whole: range(lead, trimmed.length), range };
}

interface OpenSection {
  name: string;
  data: MarkdownSection;
  bodyLines: string[];
}

interface OpenStep {
  data: MarkdownStep;
  path: PathSegment[];
}

/** Reads the file line by line: each line extends the section or step it falls in. */
class MarkdownReader {
  readonly locations = new Map<string, NodeLocation>();
  readonly issues: MarkdownIssue[] = [];
  readonly model: MarkdownModel = { sections: {} };
  private section: OpenSection | undefined;
  private step: OpenStep | undefined;
  private inFence = false;

  constructor(textLength: number) {
    this.at([], { start: 0, end: Math.max(0, textLength) });
    this.at(["sections"], { start: 0, end: Math.max(0, textLength) });
  }

  private at(path: PathSegment[], value: Range, key?: Range): void {
    this.locations.set(pointerOf(path), key ? { key, value } : { value });
  }

  read(l: MarkdownLine): void {
    const { line, trimmed, lead } = l;
    if (/^(```|~~~)/.test(trimmed)) this.inFence = !this.inFence;
    if (!this.inFence && /^#\s+\S/.test(line) && this.model.title === undefined && !this.section) {
      this.model.title = trimmed.slice(1).trim();
      this.at(["title"], l.range(line.indexOf(this.model.title), this.model.title.length), l.whole);
      return;
    }
    if (!this.inFence && /^##\s+\S/.test(line)) return this.heading(l);
    const section = this.section;
    if (!section) return;
    this.extendSection(section, l);
    if (this.inFence || !trimmed) return;
    const numbered = lead === 0 ? STEP.exec(trimmed) : null;
    if (numbered) return this.numberedStep(section, l, numbered[2] as string);
    const field = FIELD.exec(trimmed);
    const target = this.step && lead > 0 ? this.step : undefined;
    if (lead === 0) this.step = undefined;
    if (field) return this.field(section, target, l, field);
    const item = ITEM.exec(trimmed);
    if (item && !target) {
      const base: PathSegment[] = ["sections", section.name];
      const path = [...base, "items", section.data.items.length];
      section.data.items.push((item[1] as string).trim());
      this.at([...base, "items"], l.whole);
      this.at(path, l.range(lead + 2, trimmed.length - 2), l.whole);
    } else if (target) {
      this.issues.push({
        path: [...target.path, "fields"],
        message: `step '${target.data.id}': the line '${trimmed}' is not a \`- **key**: value\` field`,
        hint: "write each of a step's settings as `- **key**: value` under it",
      });
    }
  }

  /** `## Section`: opens a section (a second one of the same name is read but not kept). */
  private heading(l: MarkdownLine): void {
    const heading = l.trimmed.slice(2).trim();
    const name = heading.toLowerCase();
    this.step = undefined;
    const path = ["sections", name];
    this.section = { name, data: { body: "", fields: {}, items: [], steps: [] }, bodyLines: [] };
    if (this.model.sections[name]) {
      this.issues.push({
        path,
        message: `the section '## ${heading}' appears twice`,
        hint: "merge the two sections into one",
      });
      return;
    }
    this.model.sections[name] = this.section.data;
    this.at(path, l.whole, l.whole);
  }

  private extendSection(section: OpenSection, l: MarkdownLine): void {
    if (l.trimmed) section.bodyLines.push(l.line);
    section.data.body = section.bodyLines.join("\n").trim();
    const base: PathSegment[] = ["sections", section.name];
    if (this.locations.has(pointerOf(base)) && l.trimmed) {
      // The section's value spans from its heading to its last line.
      const loc = this.locations.get(pointerOf(base)) as NodeLocation;
      this.locations.set(pointerOf(base), {
        ...loc,
        value: { start: loc.value.start, end: l.whole.end },
      });
      this.at([...base, "body"], {
        start: this.locations.get(pointerOf([...base, "body"]))?.value.start ?? l.whole.start,
        end: l.whole.end,
      });
    }
  }

  /** `1. id — title`: opens a step of the section. */
  private numberedStep(section: OpenSection, l: MarkdownLine, rest: string): void {
    const split = /^\**([^\s*—]+)\**(?:\s+[—–-]\s+(.+))?$/.exec(rest);
    const index = section.data.steps.length;
    const path = ["sections", section.name, "steps", index];
    const id = split ? (split[1] as string) : rest;
    const data: MarkdownStep = { id, fields: {}, branches: [] };
    if (split?.[2]) data.title = split[2];
    section.data.steps.push(data);
    this.step = { data, path };
    const idAt = l.range(l.lead + l.trimmed.indexOf(id), id.length);
    this.at(path, l.whole, idAt);
    this.at([...path, "id"], idAt);
    if (data.title)
      this.at(
        [...path, "title"],
        l.range(l.lead + l.trimmed.lastIndexOf(data.title), data.title.length),
      );
    this.at([...path, "fields"], l.whole);
    this.at([...path, "branches"], l.whole);
  }

  /** `- **key**: value`: a field of the step it is indented under, else of the section. */
  private field(
    section: OpenSection,
    target: OpenStep | undefined,
    l: MarkdownLine,
    field: RegExpExecArray,
  ): void {
    const key = (field[1] as string).trim().toLowerCase();
    const value = (field[2] as string).trim();
    const keyAt = l.range(l.lead + l.trimmed.indexOf("**"), key.length + 4);
    const valueAt = l.range(l.lead + l.trimmed.lastIndexOf(value), value.length);
    if (target && key === "branch") return this.branch(target, l, value, keyAt, valueAt);
    const base: PathSegment[] = ["sections", section.name];
    const fields = target ? target.data.fields : section.data.fields;
    const path = [...(target ? [...target.path, "fields"] : [...base, "fields"]), key];
    if (key in fields) {
      this.issues.push({
        path,
        message: `the field '${key}' is given twice`,
        hint: "keep one of the two lines",
      });
      return;
    }
    fields[key] = value;
    if (!target) this.at([...base, "fields"], l.whole);
    this.at(path, valueAt, keyAt);
  }

  /** `- **branch**: <condition> -> <step>` under a step. */
  private branch(
    target: OpenStep,
    l: MarkdownLine,
    value: string,
    keyAt: Range,
    valueAt: Range,
  ): void {
    const b = BRANCH.exec(value);
    const path = [...target.path, "branches", target.data.branches.length];
    if (!b) {
      this.issues.push({
        path: [...target.path, "fields"],
        message: `step '${target.data.id}': the branch '${value}' names no step to go to`,
        hint: "write `- **branch**: <when this applies> -> <step id>`",
      });
      return;
    }
    const condition = b[1] as string;
    const goto = b[2] as string;
    target.data.branches.push({ condition, goto });
    this.at(path, valueAt, keyAt);
    this.at(
      [...path, "condition"],
      l.range(l.lead + l.trimmed.lastIndexOf(value), condition.length),
    );
    this.at([...path, "goto"], l.range(l.lead + l.trimmed.length - goto.length, goto.length));
  }
}
