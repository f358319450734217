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
  const locations = new Map<string, NodeLocation>();
  const issues: MarkdownIssue[] = [];
  const model: MarkdownModel = { sections: {} };
  const at = (path: PathSegment[], value: Range, key?: Range) =>
    locations.set(pointerOf(path), key ? { key, value } : { value });
  at([], { start: 0, end: Math.max(0, text.length) });
  at(["sections"], { start: 0, end: Math.max(0, text.length) });

  let section: { name: string; data: MarkdownSection; bodyLines: string[] } | undefined;
  let step: { data: MarkdownStep; path: PathSegment[] } | undefined;
  let offset = 0;
  let inFence = false;
  for (const raw of lines) {
    const start = offset;
    offset += raw.length + 1;
    const line = raw.replace(/\r$/, "");
    const trimmed = line.trim();
    const lead = line.length - line.trimStart().length;
    const range = (from: number, length: number): Range => ({
      start: start + from,
      end: start + from + length,
    });
    const whole = range(lead, trimmed.length);
    if (/^(```|~~~)/.test(trimmed)) inFence = !inFence;
    if (!inFence && /^#\s+\S/.test(line) && model.title === undefined && !section) {
      model.title = trimmed.slice(1).trim();
      at(["title"], range(line.indexOf(model.title), model.title.length), whole);
      continue;
    }
    if (!inFence && /^##\s+\S/.test(line)) {
      const heading = trimmed.slice(2).trim();
      const name = heading.toLowerCase();
      step = undefined;
      const path = ["sections", name];
      if (model.sections[name]) {
        issues.push({
          path,
          message: `the section '## ${heading}' appears twice`,
          hint: "merge the two sections into one",
        });
        section = { name, data: { body: "", fields: {}, items: [], steps: [] }, bodyLines: [] };
        continue;
      }
      section = { name, data: { body: "", fields: {}, items: [], steps: [] }, bodyLines: [] };
      model.sections[name] = section.data;
      at(path, whole, whole);
      continue;
    }
    if (!section) continue;
    if (trimmed) section.bodyLines.push(line);
    section.data.body = section.bodyLines.join("\n").trim();
    const base: PathSegment[] = ["sections", section.name];
    if (locations.has(pointerOf(base)) && trimmed) {
      // The section's value spans from its heading to its last line.
      const loc = locations.get(pointerOf(base)) as NodeLocation;
      locations.set(pointerOf(base), { ...loc, value: { start: loc.value.start, end: whole.end } });
      at([...base, "body"], {
        start: locations.get(pointerOf([...base, "body"]))?.value.start ?? whole.start,
        end: whole.end,
      });
    }
    if (inFence || !trimmed) continue;
    const numbered = lead === 0 ? STEP.exec(trimmed) : null;
    if (numbered) {
      const rest = numbered[2] as string;
      const split = /^\**([^\s*—]+)\**(?:\s+[—–-]\s+(.+))?$/.exec(rest);
      const index = section.data.steps.length;
      const path = [...base, "steps", index];
      const id = split ? (split[1] as string) : rest;
      const data: MarkdownStep = { id, fields: {}, branches: [] };
      if (split?.[2]) data.title = split[2];
      section.data.steps.push(data);
      step = { data, path };
      const idAt = range(lead + trimmed.indexOf(id), id.length);
      at(path, whole, idAt);
      at([...path, "id"], idAt);
      if (data.title)
        at([...path, "title"], range(lead + trimmed.lastIndexOf(data.title), data.title.length));
      at([...path, "fields"], whole);
      at([...path, "branches"], whole);
      continue;
    }
    const field = FIELD.exec(trimmed);
    const target = step && lead > 0 ? step : undefined;
    if (lead === 0) step = undefined;
    if (field) {
      const key = (field[1] as string).trim().toLowerCase();
      const value = (field[2] as string).trim();
      const keyAt = range(lead + trimmed.indexOf("**"), key.length + 4);
      const valueAt = range(lead + trimmed.lastIndexOf(value), value.length);
      if (target && key === "branch") {
        const b = BRANCH.exec(value);
        const path = [...target.path, "branches", target.data.branches.length];
        if (!b) {
          issues.push({
            path: [...target.path, "fields"],
            message: `step '${target.data.id}': the branch '${value}' names no step to go to`,
            hint: "write `- **branch**: <when this applies> -> <step id>`",
          });
          continue;
        }
        const condition = b[1] as string;
        const goto = b[2] as string;
        target.data.branches.push({ condition, goto });
        at(path, valueAt, keyAt);
        at([...path, "condition"], range(lead + trimmed.lastIndexOf(value), condition.length));
        at([...path, "goto"], range(lead + trimmed.length - goto.length, goto.length));
        continue;
      }
      const fields = target ? target.data.fields : section.data.fields;
      const path = [...(target ? [...target.path, "fields"] : [...base, "fields"]), key];
      if (key in fields) {
        issues.push({
          path,
          message: `the field '${key}' is given twice`,
          hint: "keep one of the two lines",
        });
        continue;
      }
      fields[key] = value;
      if (!target) at([...base, "fields"], whole);
      at(path, valueAt, keyAt);
      continue;
    }
    const item = ITEM.exec(trimmed);
    if (item && !target) {
      const path = [...base, "items", section.data.items.length];
      section.data.items.push((item[1] as string).trim());
      at([...base, "items"], whole);
      at(path, range(lead + 2, trimmed.length - 2), whole);
    } else if (target) {
      issues.push({
        path: [...target.path, "fields"],
        message: `step '${target.data.id}': the line '${trimmed}' is not a \`- **key**: value\` field`,
        hint: "write each of a step's settings as `- **key**: value` under it",
      });
    }
  }
  const document = new SourceDocument(file, text, model, locations);
  // A value the lines above gave no place (an empty section's lists) is shown at its section.
  return { ok: true, parsed: { document, model, issues } };
}
