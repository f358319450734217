import { format } from "node:util";
import { createConnection } from "vscode-languageserver/node";
import { startServer } from "./server.js";

/**
 * `playbook-bot lsp --stdio`: the language server on standard input and output. Standard output
 * carries the protocol, so anything a module would print there goes to standard error instead.
 */
export function serveStdio(): void {
  const toStderr = (...args: unknown[]): void => void process.stderr.write(`${format(...args)}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.warn = toStderr;
  console.debug = toStderr;
  startServer(createConnection(process.stdin, process.stdout));
}
