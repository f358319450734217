/** Render a value found in a document briefly, for messages: strings quoted, long ones cut. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const cut = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return `'${cut}'`;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return String(value);
}
