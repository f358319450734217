/**
 * The playground's editor, bundled for the page (scripts/copy-playground.mjs; the playground's
 * server builds it on demand when run from the sources): CodeMirror with YAML highlighting, line
 * numbers, the validator's findings underlined in place with their rule and fix, and completion
 * and hover from the language server's logic (./assist.ts). The page (app.js) drives it through
 * the object `createPlaybookEditor` returns.
 */
import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { EditorSelection, EditorState, type Text } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { Assist } from "./assist.js";
import { inlineNodes } from "./markdown.js";

/** A finding as the playground's API sends it (the validator's Diagnostic). */
export interface Finding {
  rule: string;
  severity: "error" | "warning";
  message: string;
  hint?: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface PlaybookEditor {
  readonly view: EditorView;
  text(): string;
  /** Replaces the whole text (a playbook opened): a new history, findings cleared. */
  setText(text: string): void;
  /** Underlines the findings of `text` (ignored when the editor's text has changed since). */
  showFindings(findings: readonly Finding[], text: string): void;
  /** Selects a line and brings it into view. */
  selectLine(line: number): void;
  /**
   * The playbooks a `playbook:` target may name, and what every step of each kind outputs (the
   * server's registry), for completion.
   */
  setPlaybooks(
    playbooks: readonly {
      id?: string;
      name?: string;
      file: string;
      inputs?: readonly string[];
      outputs?: readonly string[];
    }[],
    kindOutputs?: Record<string, readonly string[]>,
  ): void;
}

/** An offset of a 1-based line and column, kept inside the document. */
function offsetOf(doc: Text, line: number, column: number): number {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines));
  return Math.min(l.from + Math.max(0, column - 1), l.to);
}

/** A finding as CodeMirror underlines it: its range (a whole line when it has none), rule and fix. */
export function toCmDiagnostic(doc: Text, f: Finding): CmDiagnostic {
  let from = offsetOf(doc, f.line, f.column);
  let to = offsetOf(doc, f.endLine, f.endColumn);
  if (to <= from) {
    const line = doc.lineAt(from);
    [from, to] = line.to > line.from ? [line.from, line.to] : [from, from];
  }
  return {
    from,
    to,
    severity: f.severity,
    message: `${f.rule}: ${f.message}${f.hint ? ` — fix: ${f.hint}` : ""}`,
    renderMessage: () => {
      const box = document.createElement("div");
      box.className = "pb-finding";
      const rule = document.createElement("code");
      rule.className = "pb-rule";
      rule.textContent = f.rule;
      const message = document.createElement("span");
      message.append(...inlineNodes(f.message));
      box.append(rule, " ", message);
      if (f.hint) {
        const fix = document.createElement("div");
        fix.className = "pb-fix";
        fix.append("Fix: ", ...inlineNodes(f.hint));
        box.append(fix);
      }
      return box;
    },
  };
}

const theme = EditorView.theme({
  "&": { fontSize: "12.5px", border: "1px solid #d0d7de", borderRadius: "6px" },
  "&.cm-focused": { outline: "2px solid #0969da", outlineOffset: "-1px" },
  ".cm-scroller": {
    fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, monospace',
    lineHeight: "1.45",
  },
  ".cm-gutters": { backgroundColor: "#f6f8fa", borderRight: "1px solid #d0d7de" },
  ".cm-tooltip": { maxWidth: "min(480px, 90vw)" },
});

export function createPlaybookEditor(
  parent: HTMLElement,
  onChange: (text: string) => void,
): PlaybookEditor {
  const assist = new Assist();
  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    foldGutter(),
    lintGutter(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    yaml(),
    indentUnit.of("  "),
    EditorState.tabSize.of(2),
    autocompletion({ override: [(c) => assist.complete(c)], icons: true }),
    assist.hoverExtension(),
    keymap.of([
      ...closeBracketsKeymap,
      ...defaultKeymap,
      ...historyKeymap,
      ...completionKeymap,
      indentWithTab,
    ]),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ "aria-label": "playbook YAML", spellcheck: "false" }),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) onChange(u.state.doc.toString());
    }),
    theme,
  ];
  // What the page showed before the editor came (a line saying what goes here) gives way.
  parent.replaceChildren();
  const view = new EditorView({ parent, state: EditorState.create({ doc: "", extensions }) });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.setState(EditorState.create({ doc: text, extensions }));
    },
    showFindings(findings, text) {
      const doc = view.state.doc;
      if (doc.toString() !== text) return;
      view.dispatch(
        setDiagnostics(
          view.state,
          findings.map((f) => toCmDiagnostic(doc, f)),
        ),
      );
    },
    selectLine(line) {
      const l = view.state.doc.line(Math.min(Math.max(1, line), view.state.doc.lines));
      view.dispatch({
        selection: EditorSelection.range(l.from, l.to),
        effects: EditorView.scrollIntoView(l.from, { y: "center" }),
      });
      view.focus();
    },
    setPlaybooks(playbooks, kindOutputs) {
      if (kindOutputs) assist.kindOutputs = kindOutputs;
      assist.playbooks = playbooks.flatMap((p) =>
        p.id === undefined
          ? []
          : [
              {
                id: p.id,
                file: p.file,
                inputs: [...(p.inputs ?? [])],
                outputs: [...(p.outputs ?? [])],
                ...(p.name ? { name: p.name } : {}),
              },
            ],
      );
    },
  };
}
