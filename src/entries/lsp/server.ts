import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CompletionItemKind,
  CompletionTriggerKind,
  DidChangeWatchedFilesNotification,
  MarkupKind,
  MessageType,
  ShowMessageNotification,
  TextDocuments,
  TextDocumentSyncKind,
  type CompletionItem,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type Location,
} from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { PLAYBOOK_SCHEMA } from "../../core/format/schema.js";
import type { SourceDocument } from "../../core/format/source.js";
import { loadPlaybookSource } from "../../core/rules/validate.js";
import { stepKind } from "../../core/steps/registry.js";
import {
  completionsAt,
  type CandidateKind,
  type PlaybookSummary,
} from "../../core/editor/completion.js";
import { outlineAt } from "../../core/editor/cursor.js";
import { definitionAt } from "./definition.js";
import { hoverAt } from "../../core/editor/hover.js";
import { loaderOffset, offsetsToRange, spanToRange, toLspDiagnostic } from "./positions.js";
import type { Diagnostic } from "../../core/format/diagnostics.js";
import type { SchemaNode } from "../../core/editor/schema-docs.js";
import {
  libraryPlaybooks,
  servesFeatures,
  Workspace,
  type PlaybookSet,
  type SetResult,
} from "./workspace.js";

/** How long typing pauses before a set is validated again (`initializationOptions.debounceMs`). */
export const DEFAULT_DEBOUNCE_MS = 250;

const SCHEMA = PLAYBOOK_SCHEMA as unknown as SchemaNode;

const KINDS: Record<CandidateKind, CompletionItemKind> = {
  step: CompletionItemKind.Reference,
  playbook: CompletionItemKind.Module,
  value: CompletionItemKind.EnumMember,
  field: CompletionItemKind.Property,
  variable: CompletionItemKind.Variable,
};

function pathOf(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

function rootsOf(params: InitializeParams): string[] {
  const uris =
    params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
  const roots = uris.flatMap((u) => pathOf(u) ?? []);
  if (roots.length === 0 && params.rootPath) roots.push(params.rootPath);
  return roots;
}

/**
 * The language server: diagnostics from the validator (each set of playbooks validated as the
 * CLI does, on open and, after a pause, on change; every file of the set republished, so a
 * playbook that delegates to the one edited learns of it), completion, hover and go to definition.
 */
export function startServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  /** Open documents' URIs by file path: the client's spelling of a URI is the one to answer with. */
  const openByPath = new Map<string, string>();
  // Files by path, buffers without a file by their URI.
  const workspace = new Workspace([], (file) =>
    documents.get(openByPath.get(file) ?? file)?.getText(),
  );
  const sets = new Map<string, PlaybookSet>();
  const results = new Map<string, SetResult>();
  const timers = new Map<string, NodeJS.Timeout>();
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const published = new Map<string, string>();
  const publishedBy = new Map<string, Set<string>>();
  const seen = new Set<string>();
  const configErrors = new Set<string>();
  const lastGood = new Map<string, unknown>();
  const parsed = new Map<string, { version: number; doc?: SourceDocument }>();
  let debounceMs = DEFAULT_DEBOUNCE_MS;
  let relatedInformation = false;
  let watchFiles = false;
  let stopped = false;

  // A buffer with no file is named by its URI; a file by its path.
  const uriOf = (file: string): string =>
    openByPath.get(file) ?? (documents.get(file) ? file : pathToFileURL(file).href);

  function setOfUri(uri: string, text: string): PlaybookSet | undefined {
    const file = pathOf(uri);
    return file === undefined ? Workspace.alone(uri, text) : workspace.setOf(file);
  }

  function send(file: string, diagnostics: readonly Diagnostic[]): void {
    const uri = uriOf(file);
    const text = documents.get(uri)?.getText() ?? "";
    const lsp = diagnostics.map((d) =>
      toLspDiagnostic(d, text, relatedInformation ? uri : undefined),
    );
    const json = JSON.stringify(lsp);
    if (published.get(uri) === json) return;
    published.set(uri, json);
    void connection.sendDiagnostics({ uri, diagnostics: lsp });
  }

  function publish(result: SetResult): void {
    const files = new Set([...result.files, ...result.diagnostics.keys()]);
    for (const f of files) send(f, result.diagnostics.get(f) ?? []);
    for (const f of publishedBy.get(result.set.key) ?? []) if (!files.has(f)) send(f, []);
    publishedBy.set(result.set.key, files);
    if (result.configError && !configErrors.has(result.configError)) {
      configErrors.add(result.configError);
      void connection.sendNotification(ShowMessageNotification.type, {
        type: MessageType.Warning,
        message: `playbook-bot: the config file is not applied: ${result.configError}`,
      });
    }
  }

  async function run(set: PlaybookSet): Promise<void> {
    const pending = running.get(set.key);
    if (pending) {
      again.add(set.key);
      return pending;
    }
    const job = (async () => {
      try {
        const result = await workspace.validate(set);
        results.set(set.key, result);
        if (!stopped) publish(result);
      } catch (err) {
        if (!stopped)
          connection.console.error(
            `validating ${set.key} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          );
      }
    })();
    running.set(set.key, job);
    await job;
    running.delete(set.key);
    if (again.delete(set.key)) await run(set);
  }

  function schedule(set: PlaybookSet, delay: number): void {
    if (stopped) return;
    sets.set(set.key, set);
    clearTimeout(timers.get(set.key));
    timers.set(
      set.key,
      setTimeout(() => {
        timers.delete(set.key);
        void run(set);
      }, delay),
    );
  }

  /** The set's playbooks (validated now if it never was), then the library's. */
  async function playbooksFor(set: PlaybookSet | undefined): Promise<PlaybookSummary[]> {
    if (set && !results.has(set.key)) await run(set);
    const own = (set && results.get(set.key)?.playbooks) ?? [];
    return [...own, ...(await libraryPlaybooks())];
  }

  /** A v1 playbook open in the editor, parsed (once per version); undefined for anything else. */
  function parse(uri: string): { text: TextDocument; doc?: SourceDocument } | undefined {
    const text = documents.get(uri);
    if (!text) return undefined;
    const file = pathOf(uri);
    const set = setOfUri(uri, text.getText());
    // A buffer with no file is served when it is a v1 playbook, as it is validated.
    const serves =
      file === undefined
        ? set !== undefined
        : servesFeatures(file, text.getText(), set?.kind === "repository");
    if (!serves) return undefined;
    const cached = parsed.get(uri);
    if (cached?.version === text.version)
      return { text, ...(cached.doc ? { doc: cached.doc } : {}) };
    const loaded = loadPlaybookSource(file ?? uri, text.getText());
    const doc = loaded.ok && !loaded.dialect ? loaded.document : undefined;
    if (doc) lastGood.set(uri, doc.value);
    parsed.set(uri, { version: text.version, ...(doc ? { doc } : {}) });
    return { text, ...(doc ? { doc } : {}) };
  }

  connection.onInitialize((params): InitializeResult => {
    workspace.setRoots(rootsOf(params));
    const options = params.initializationOptions as { debounceMs?: unknown } | undefined;
    if (typeof options?.debounceMs === "number" && options.debounceMs >= 0)
      debounceMs = Math.min(options.debounceMs, 10_000);
    relatedInformation =
      params.capabilities.textDocument?.publishDiagnostics?.relatedInformation === true;
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: [".", " ", "-", "[", ",", "{"] },
        hoverProvider: true,
        definitionProvider: true,
      },
      serverInfo: { name: "playbook-bot" },
    };
  });

  connection.onInitialized(() => {
    if (watchFiles)
      void connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [{ globPattern: "**/*.{yaml,yml,json,md}" }],
      });
  });

  documents.onDidChangeContent(({ document }) => {
    const file = pathOf(document.uri);
    if (file !== undefined) openByPath.set(file, document.uri);
    const set = setOfUri(document.uri, document.getText());
    const first = !seen.has(document.uri);
    seen.add(document.uri);
    if (set) schedule(set, first ? 0 : debounceMs);
    // A file that stopped being a playbook leaves its set, which clears what it showed.
    else if (file !== undefined) revalidateAround(file, debounceMs);
  });

  /** Validate again the sets a file's change can concern. */
  function revalidateAround(file: string, delay: number): void {
    for (const set of sets.values()) if (workspace.affects(set, file)) schedule(set, delay);
  }

  documents.onDidClose(({ document }) => {
    const file = pathOf(document.uri);
    seen.delete(document.uri);
    parsed.delete(document.uri);
    lastGood.delete(document.uri);
    if (file === undefined) {
      // A buffer with no file: its diagnostics go with it.
      const key = `alone:${document.uri}`;
      clearTimeout(timers.get(key));
      sets.delete(key);
      results.delete(key);
      publishedBy.delete(key);
      published.delete(document.uri);
      void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
      return;
    }
    openByPath.delete(file);
    // What is on disk counts again (and a file deleted meanwhile leaves its set).
    const set = workspace.setOf(file);
    if (set) schedule(set, 0);
    else revalidateAround(file, 0);
  });

  connection.onDidChangeWatchedFiles(({ changes }) => {
    for (const change of changes) {
      const file = pathOf(change.uri);
      if (file === undefined || openByPath.has(file)) continue;
      revalidateAround(file, debounceMs);
      const own = workspace.setOf(file);
      if (own && !sets.has(own.key)) schedule(own, debounceMs);
    }
  });

  connection.onCompletion(async ({ textDocument, position, context }) => {
    const open = parse(textDocument.uri);
    if (!open) return null;
    const lines = open.text.getText().split(/\r\n|\r|\n/);
    const outline = outlineAt(lines, position.line, position.character);
    if (!outline) return null;
    // A space typed in indentation asks for nothing: field names are offered when asked for.
    const spaced =
      context?.triggerKind === CompletionTriggerKind.TriggerCharacter &&
      context.triggerCharacter === " ";
    if (spaced && outline.mode === "key" && !outline.template) return null;
    const playbooks = await playbooksFor(setOfUri(textDocument.uri, open.text.getText()));
    const document = open.doc?.value ?? lastGood.get(textDocument.uri);
    const { candidates, from } = completionsAt({
      outline,
      document,
      playbooks,
      schema: SCHEMA,
      kindOutputs: (kind) => stepKind(kind)?.outputs,
    });
    const range = { start: { line: position.line, character: from }, end: position };
    return candidates.map((c): CompletionItem => {
      const item: CompletionItem = {
        label: c.label,
        kind: KINDS[c.kind],
        textEdit: { range, newText: c.label },
      };
      if (c.detail) item.detail = c.detail;
      if (c.documentation)
        item.documentation = { kind: MarkupKind.Markdown, value: c.documentation };
      return item;
    });
  });

  connection.onHover(({ textDocument, position }) => {
    const open = parse(textDocument.uri);
    if (!open?.doc) return null;
    const text = open.text.getText();
    const hover = hoverAt(open.doc, loaderOffset(open.text.offsetAt(position), text), SCHEMA);
    if (!hover) return null;
    return {
      contents: { kind: MarkupKind.Markdown, value: hover.markdown },
      range: offsetsToRange(open.doc, hover.start, hover.end, text),
    };
  });

  connection.onDefinition(async ({ textDocument, position }): Promise<Location | null> => {
    const open = parse(textDocument.uri);
    if (!open?.doc) return null;
    const text = open.text.getText();
    const target = definitionAt(open.doc, loaderOffset(open.text.offsetAt(position), text));
    if (!target) return null;
    if (target.kind === "here")
      return { uri: textDocument.uri, range: spanToRange(target.span, text) };
    const playbooks = await playbooksFor(setOfUri(textDocument.uri, text));
    const found = playbooks.find((p) => p.id === target.id);
    if (!found) return null;
    const uri = uriOf(found.file);
    const range = found.idSpan
      ? spanToRange(found.idSpan, documents.get(uri)?.getText() ?? "")
      : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return { uri, range };
  });

  connection.onShutdown(() => {
    stopped = true;
    for (const t of timers.values()) clearTimeout(t);
    timers.clear();
  });

  documents.listen(connection);
  connection.listen();
}
