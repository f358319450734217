import {
  loadSourceText,
  type LoadOptions,
  type SourceDocument,
  type SourceLimits,
  type SourceProblem,
} from "../format/source.js";

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
  options: LoadOptions = {},
): { doc?: SourceDocument; failure?: Failure; body: string; duplicates?: SourceProblem[] } {
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  if (!m) return { body: text };
  // The opening `---` starts the YAML document; the closing one and the body are left out.
  const loaded = loadSourceText(
    file,
    text.slice(0, m[0].length - (m[2] ?? "").length - 3),
    limits,
    options,
  );
  const body = text.slice(m[0].length);
  if (!loaded.ok) return { failure: loaded, body };
  return loaded.duplicates?.length
    ? { doc: loaded.document, body, duplicates: loaded.duplicates }
    : { doc: loaded.document, body };
}
