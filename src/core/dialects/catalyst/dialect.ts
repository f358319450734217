import { loadSourceText, type SourceDocument, type SourceLimits } from "../../format/source.js";
import { frontMatter } from "../front-matter.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import type { Dialect, DialectResult, Siblings } from "../dialect.js";
import { CATALYST_HINTS, CatalystYamlConversion } from "./yaml.js";

/**
 * Catalyst's playbooks: YAML whose steps name their action by their first key ("action as
 * key": `git-branch: name`, `ai-prompt: text`), with `if`/`then`/`else`, `${{ get('x') }}`
 * conditions and bare-name `{{x}}` templates; and Markdown playbooks, whose whole text is the
 * prompt of one AI task. Each step becomes the v1 step that does what Catalyst's engine does.
 */

/** How far into a Markdown file its title is looked for (front matter and title come first). */
const TITLE_WITHIN = 8192;

/**
 * Whether a Markdown file is a Catalyst playbook, from its text alone (wherever it lies): its
 * first level-one heading, after an optional front matter, reads `# Playbook: <title>`.
 */
export function isCatalystMarkdown(text: string): boolean {
  let head = text.slice(0, TITLE_WITHIN).replace(/^\uFEFF/, "");
  const fm = /^---[ \t]*\r?\n[\s\S]*?^---[ \t]*$/m.exec(head);
  if (fm?.index === 0) head = head.slice(fm[0].length);
  const title = /^#[ \t]+(.*)$/m.exec(head);
  return title !== null && /^Playbook:\s*\S/.test(title[1] ?? "");
}

export const catalyst: Dialect = {
  id: "catalyst",
  title: "Catalyst",
  // Catalyst finds a child playbook when the step runs (PlaybookNotFound there), not at load;
  // and it runs its steps in order, so a step after one that stops the run is no load error.
  softRules: ["set-unresolved-playbook", "unreachable"],
  recognise: (file, text) => {
    if (/\.md$/i.test(file)) return isCatalystMarkdown(text);
    if (!/\.ya?ml$/i.test(file)) return false;
    // Triagent files have nodes/entrypoint; runbooks have match/tool steps.
    if (/^(nodes|entrypoint|match)\s*:/m.test(text)) return false;
    return /^(id|name)\s*:/m.test(text) && /^steps\s*:/m.test(text) && /^owner\s*:/m.test(text);
  },
  // Catalyst's engine finds a playbook by id as `<id>.yaml` (then `.yml`): a Markdown file of
  // the same name beside one is not what it runs, so it is read with the YAML, not on its own.
  isPart: (file, siblings) => yamlBeside(file, siblings) !== undefined,
  load: (file, text, siblings, limits) => loadCatalyst(file, text, siblings, limits),
};

/** The Catalyst YAML playbook of the same name beside a Markdown file, if there is one. */
function yamlBeside(file: string, siblings: Siblings): string | undefined {
  const stem = /([^/]+)\.md$/i.exec(file)?.[1];
  if (stem === undefined) return undefined;
  return [`${stem}.yaml`, `${stem}.yml`].find((name) => {
    const text = siblings.read(name);
    return text !== undefined && catalyst.recognise(name, text);
  });
}

function loadCatalyst(
  file: string,
  text: string,
  siblings: Siblings,
  limits: SourceLimits,
): DialectResult {
  if (/\.md$/i.test(file)) return loadMarkdown(file, text, limits);
  const loaded = loadSourceText(file, text, limits);
  if (!loaded.ok) return { ok: false, failure: loaded };
  const c = new CatalystYamlConversion(loaded.document);
  const document = c.convert();
  const stem = /([^/]+)\.ya?ml$/i.exec(file)?.[1] ?? "";
  const markdown = siblings.read(`${stem}.md`);
  if (markdown !== undefined && isCatalystMarkdown(markdown))
    c.problems.push({
      rule: "dialect-drift",
      path: "",
      span: loaded.document.span([]),
      message: `'${stem}.md' beside this file is the same playbook written for an AI assistant; Catalyst's engine runs this YAML (it looks for '<id>.yaml' first), and so does the bot: the Markdown is not loaded on its own`,
      hint: CATALYST_HINTS["dialect-drift"],
    });
  return { ok: true, document, problems: c.problems };
}

/** A Markdown playbook: front matter (owner, reviewers), and a body that is the prompt. */
function loadMarkdown(file: string, text: string, limits: SourceLimits): DialectResult {
  const front = frontMatter(file, text, limits);
  if (front.failure) return { ok: false, failure: front.failure };
  let doc = front.doc;
  if (!doc) {
    const empty = loadSourceText(file, "{}", limits);
    if (!empty.ok) return { ok: false, failure: empty };
    doc = empty.document;
  }
  const c = new MarkdownConversion(doc, file, front.body);
  return { ok: true, document: c.convert(), problems: c.problems };
}

class MarkdownConversion extends DialectConversion {
  constructor(
    doc: SourceDocument,
    private readonly file: string,
    private readonly body: string,
  ) {
    super(doc, CATALYST_HINTS);
  }

  convert(): SourceDocument {
    const meta = isObject(this.doc.value) ? this.doc.value : {};
    const stem = (this.file.split("/").pop() ?? "playbook").replace(/\.md$/i, "");
    const title = /^#\s+Playbook:\s*(.+)$/m.exec(this.body)?.[1]?.trim() ?? stem;
    const goal = /\*\*Goal\*\*:\s*(.+)$/m.exec(this.body)?.[1]?.trim();
    const out: Json = { apiVersion: "playbook-bot/v1", id: stem, name: title };
    if (goal) out.description = goal;
    this.copyOwnership(meta, out);
    out.steps = [
      {
        id: "run-playbook",
        type: "ai",
        description: "The playbook's whole text is the prompt (Catalyst's markdown task).",
        prompt: this.body,
      },
    ];
    return this.b.build(out);
  }

  private copyOwnership(src: Json, out: Json): void {
    this.copySame(src, out, "owner", (v) => typeof v === "string");
    this.copySame(src, out, "reviewers", isObject);
  }
}
