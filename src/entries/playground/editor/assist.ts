/**
 * Completion and hover in the page's editor: the language server's own logic (src/core/editor),
 * run here on the editor's text, so the playground offers what an editor with the language server
 * offers, without a request.
 */
import type { Completion, CompletionContext, CompletionResult } from "@codemirror/autocomplete";
import type { EditorState } from "@codemirror/state";
import { hoverTooltip, type Tooltip } from "@codemirror/view";
import {
  completionsAt,
  type CandidateKind,
  type PlaybookSummary,
} from "../../../core/editor/completion.js";
import { outlineAt } from "../../../core/editor/cursor.js";
import { hoverAt } from "../../../core/editor/hover.js";
import type { SchemaNode } from "../../../core/editor/schema-docs.js";
import { PLAYBOOK_SCHEMA } from "../../../core/format/schema.js";
import { loadSourceText, type SourceDocument } from "../../../core/format/source.js";
import { markdownNodes } from "./markdown.js";

const SCHEMA = PLAYBOOK_SCHEMA as unknown as SchemaNode;

/** CodeMirror's completion icons for each kind of candidate. */
const TYPES: Record<CandidateKind, string> = {
  step: "variable",
  playbook: "namespace",
  value: "enum",
  field: "property",
  variable: "variable",
};

/** The editor's text parsed, the last one that parsed, and the playbooks a target may name. */
export class Assist {
  private parsedText: string | undefined;
  private parsed: SourceDocument | undefined;
  private lastGood: unknown;
  playbooks: PlaybookSummary[] = [];
  kindOutputs: Record<string, readonly string[]> = {};

  /** The document as the loader reads it now, when it parses. */
  document(text: string): SourceDocument | undefined {
    if (text !== this.parsedText) {
      this.parsedText = text;
      const loaded = loadSourceText("playbook.yml", text);
      this.parsed = loaded.ok ? loaded.document : undefined;
      if (this.parsed) this.lastGood = this.parsed.value;
    }
    return this.parsed;
  }

  complete(context: CompletionContext): CompletionResult | null {
    const { state, pos } = context;
    const line = state.doc.lineAt(pos);
    const text = state.doc.toString();
    const lines = text.split("\n");
    const outline = outlineAt(lines, line.number - 1, pos - line.from);
    if (!outline) return null;
    // Names of fields are offered when asked for (Ctrl-Space) or once a letter is typed.
    if (!context.explicit && outline.mode === "key" && !outline.template && outline.partial === "")
      return null;
    const document = this.document(text)?.value ?? this.lastGood;
    const { candidates, from } = completionsAt({
      outline,
      document,
      playbooks: this.playbooks,
      schema: SCHEMA,
      kindOutputs: (kind) => (Object.hasOwn(this.kindOutputs, kind) ? this.kindOutputs[kind] : []),
    });
    if (candidates.length === 0) return null;
    const options = candidates.map((c): Completion => {
      const option: Completion = { label: c.label, type: TYPES[c.kind] };
      if (c.detail) option.detail = c.detail;
      if (c.documentation) {
        const doc = c.documentation;
        option.info = () => markdownNodes(doc);
      }
      return option;
    });
    return { from: line.from + from, options, validFor: /^[\w.:-]*$/ };
  }

  hover(state: EditorState, pos: number): Tooltip | null {
    const text = state.doc.toString();
    const doc = this.document(text);
    if (!doc) return null;
    // The loader drops a byte-order mark that the editor keeps.
    const shift = text.startsWith("\uFEFF") ? 1 : 0;
    const found = hoverAt(doc, Math.max(0, pos - shift), SCHEMA);
    if (!found) return null;
    return {
      pos: found.start + shift,
      end: Math.max(found.end, found.start) + shift,
      above: true,
      create: () => {
        const dom = markdownNodes(found.markdown);
        dom.classList.add("pb-hover");
        return { dom };
      },
    };
  }

  /** The hover extension: what the schema says about the key or value under the pointer. */
  hoverExtension() {
    return hoverTooltip((view, pos) => this.hover(view.state, pos), { hoverTime: 300 });
  }
}
