import {
  createMessageConnection,
  type Diagnostic,
  type MessageConnection,
  type MessageReader,
  type MessageWriter,
  type PublishDiagnosticsParams,
} from "vscode-languageserver/node";
import type { Diagnostic as CliDiagnostic } from "../../../src/core/format/diagnostics.js";

/**
 * The client half of a test: a JSON-RPC connection that keeps every diagnostics notification and
 * waits for the one a test expects.
 */
export class TestClient {
  readonly connection: MessageConnection;
  readonly diagnostics = new Map<string, Diagnostic[]>();
  readonly messages: string[] = [];
  readonly logs: string[] = [];
  readonly registrations: unknown[] = [];
  private waiters: { uri: string; ok: (d: Diagnostic[]) => boolean; done: () => void }[] = [];

  constructor(reader: MessageReader, writer: MessageWriter) {
    this.connection = createMessageConnection(reader, writer);
    this.connection.onNotification(
      "textDocument/publishDiagnostics",
      (p: PublishDiagnosticsParams) => {
        this.diagnostics.set(p.uri, p.diagnostics);
        for (const w of [...this.waiters])
          if (w.uri === p.uri && w.ok(p.diagnostics)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.done();
          }
      },
    );
    this.connection.onNotification("window/showMessage", (p: { message: string }) => {
      this.messages.push(p.message);
    });
    this.connection.onNotification("window/logMessage", (p: { message: string }) => {
      this.logs.push(p.message);
    });
    this.connection.onRequest("client/registerCapability", (p: unknown) => {
      this.registrations.push(p);
      return null;
    });
    this.connection.listen();
  }

  /** The next diagnostics for `uri` that satisfy `ok` (or the current ones, if they do). */
  diagnosticsFor(
    uri: string,
    ok: (d: Diagnostic[]) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<Diagnostic[]> {
    const now = this.diagnostics.get(uri);
    if (now && ok(now)) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no matching diagnostics for ${uri}; last: ${JSON.stringify(this.diagnostics.get(uri))}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.push({
        uri,
        ok,
        done: () => {
          clearTimeout(timer);
          resolve(this.diagnostics.get(uri) ?? []);
        },
      });
    });
  }

  open(uri: string, text: string, version = 1): void {
    void this.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "yaml", version, text },
    });
  }

  replace(uri: string, text: string, version: number): void {
    void this.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
  }
}

/** The CLI's diagnostic as the server should publish it. */
export function expectedLsp(d: CliDiagnostic): Diagnostic {
  return {
    range: {
      start: { line: d.line - 1, character: d.column - 1 },
      end: { line: d.endLine - 1, character: d.endColumn - 1 },
    },
    severity: d.severity === "error" ? 1 : 2,
    code: d.rule,
    source: "playbook-bot",
    message: d.message,
  };
}

/** Diagnostics without the hints a client may have asked for. */
export function withoutHints(list: Diagnostic[]): Diagnostic[] {
  return list.map((d) => {
    const copy = { ...d };
    delete copy.relatedInformation;
    return copy;
  });
}
