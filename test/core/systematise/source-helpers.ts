import { loadSourceText } from "../../../src/core/format/source.js";
import { SourceEditor } from "../../../src/core/systematise/text-edit.js";

/** An editor over YAML text (which must load). */
export function editor(text: string): SourceEditor {
  const r = loadSourceText("t.yaml", text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return new SourceEditor(r.document);
}

/** The value YAML text loads as. */
export function value(text: string): unknown {
  const r = loadSourceText("t.yaml", text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.document.value;
}
