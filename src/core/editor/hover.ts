import { formatPath, type SourceDocument } from "../format/source.js";
import { nodeAt } from "./cursor.js";
import { valueAt } from "./references.js";
import {
  allowedValues,
  branchDescriptions,
  descriptionsOf,
  schemasAt,
  typesOf,
  type SchemaNode,
} from "./schema-docs.js";

/** Inline code that shows any text as it is: a fence longer than any run of backticks in it. */
export function inlineCode(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

export interface HoverText {
  markdown: string;
  /** The key or value hovered, in loader offsets. */
  start: number;
  end: number;
}

/**
 * What the schema says about the key or value under the cursor: its place, what it accepts and
 * its description. A value that selects a definition (a step's `type`) adds that definition's.
 */
export function hoverAt(
  doc: SourceDocument,
  offset: number,
  schema: SchemaNode,
): HoverText | undefined {
  const node = nodeAt(doc, offset);
  if (!node) return undefined;
  const schemas = schemasAt(schema, node.path, doc.value);
  const descriptions = descriptionsOf(schemas);
  const key = node.path[node.path.length - 1];
  if (node.on === "value" && typeof key === "string") {
    const parent = schemasAt(schema, node.path.slice(0, -1), undefined);
    for (const d of branchDescriptions(parent, key, valueAt(doc.value, node.path)))
      if (!descriptions.includes(d)) descriptions.push(d);
  }
  const values = allowedValues(schemas).filter(
    (v): v is string | number | boolean => typeof v !== "object" || v === null,
  );
  const types = typesOf(schemas);
  if (descriptions.length === 0 && values.length === 0 && types.length === 0) return undefined;
  const accepts =
    values.length > 0 && values.length <= 20
      ? values.map((v) => inlineCode(String(v))).join(" | ")
      : types.join(" | ");
  const title = `${inlineCode(formatPath(node.path))}${accepts ? ` — ${accepts}` : ""}`;
  return {
    markdown: [title, ...descriptions].join("\n\n"),
    start: node.start,
    end: node.end,
  };
}
