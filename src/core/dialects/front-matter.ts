import { loadSourceText, type SourceDocument, type SourceLimits } from "../format/source.js";

type Failure = Extract<ReturnType<typeof loadSourceText>, { ok: false }>;

/**
 * A Markdown file's YAML front matter (`---` … `---`) as a document over the file's own lines, so
 * its positions are the author's, and the body after it. Without front matter: no document, the
 * whole text as the body.
 */
export function frontMatter(
  file: string,
  text: string,
  limits: SourceLimits,
): { doc?: SourceDocument; failure?: Failure; body: string } {
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  if (!m) return { body: text };
  // The opening `---` starts the YAML document; the closing one and the body are left out.
  const loaded = loadSourceText(file, text.slice(0, m[0].length - (m[2] ?? "").length - 3), limits);
  const body = text.slice(m[0].length);
  return loaded.ok ? { doc: loaded.document, body } : { failure: loaded, body };
}
