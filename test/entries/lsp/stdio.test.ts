import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionItem,
  type Hover,
  type InitializeResult,
  type Location,
} from "vscode-languageserver/node";
import type { Diagnostic } from "../../../src/core/format/diagnostics.js";
import { PLAYBOOK_SCHEMA } from "../../../src/core/format/schema.js";
import { BIN, cleanup } from "../../helpers/git-repo.js";
import { MAIN, repository } from "./fixtures.js";
import { expectedLsp, TestClient } from "./lsp-client.js";

// Runs the built CLI (`npx tsc -p tsconfig.build.json` first), as an editor would start it.

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill();
  child = undefined;
  cleanup();
});

const uriOf = (file: string): string => pathToFileURL(file).href;

function position(text: string, needle: string, offset = 0) {
  const before = text.slice(0, text.indexOf(needle) + offset).split("\n");
  return { line: before.length - 1, character: (before[before.length - 1] as string).length };
}

describe("playbook-bot lsp --stdio", () => {
  it("serves an editor over standard input and output, then exits cleanly", async () => {
    const dir = repository();
    const proc = spawn(process.execPath, [BIN, "lsp", "--stdio"], {
      cwd: dir,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child = proc;
    let stderr = "";
    proc.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on("exit", resolve));
    const client = new TestClient(
      new StreamMessageReader(proc.stdout!),
      new StreamMessageWriter(proc.stdin!),
    );
    const rpc = client.connection;

    const init = await rpc.sendRequest<InitializeResult>("initialize", {
      processId: process.pid,
      rootUri: uriOf(dir),
      capabilities: {},
      initializationOptions: { debounceMs: 20 },
    });
    expect(init.serverInfo?.name).toBe("playbook-bot");
    await rpc.sendNotification("initialized", {});

    // Diagnostics: exactly what the CLI reports for the file, as 0-based ranges.
    const mainFile = join(dir, ".github/playbooks/main.yaml");
    const main = uriOf(mainFile);
    const text = MAIN.replace("    mode: delegate\n", "    mode: delegate\n    next: finish\n");
    writeFileSync(mainFile, text);
    client.open(main, text);
    const published = await client.diagnosticsFor(main);
    const cli = spawnSync(process.execPath, [BIN, "validate", "-f", "json"], {
      cwd: dir,
      encoding: "utf8",
    });
    const report = (
      JSON.parse(cli.stdout) as { files: { file: string; diagnostics: Diagnostic[] }[] }
    ).files.find((f) => f.file === ".github/playbooks/main.yaml");
    expect(report?.diagnostics.length).toBe(3);
    expect(published).toEqual(report?.diagnostics.map(expectedLsp));
    // The template error sits after an emoji: its end counts the emoji as two UTF-16 units.
    const line = text.split("\n")[published[0]!.range.start.line] as string;
    expect(line.slice(published[0]!.range.start.character, published[0]!.range.end.character)).toBe(
      "😀 {{ inputs.pakage }}",
    );

    // Completion at a goto target: the other steps.
    const completion = (await rpc.sendRequest("textDocument/completion", {
      textDocument: { uri: main },
      position: position(text, "next: ", 6),
    })) as CompletionItem[];
    expect(completion.map((c) => c.label)).toEqual(["greet", "finish"]);

    // Hover on a property: the schema's own description of it.
    const hover = (await rpc.sendRequest("textDocument/hover", {
      textDocument: { uri: main },
      position: position(text, "inputs:", 2),
    })) as Hover;
    // Editors render Markdown: the schema's Markdown description is the one shown.
    const inputs = PLAYBOOK_SCHEMA.properties.inputs as unknown as {
      description: string;
      markdownDescription?: string;
    };
    const description = inputs.markdownDescription ?? inputs.description;
    expect((hover.contents as { value: string }).value).toContain(description);

    // Definitions: a goto target in the file, a delegate target in another file.
    const here = (await rpc.sendRequest("textDocument/definition", {
      textDocument: { uri: main },
      position: position(text, "steps.delegate", 8),
    })) as Location;
    expect(here).toEqual({
      uri: main,
      range: { start: position(text, "id: delegate", 4), end: position(text, "id: delegate", 12) },
    });
    const there = (await rpc.sendRequest("textDocument/definition", {
      textDocument: { uri: main },
      position: position(text, "playbook: child", 12),
    })) as Location;
    expect(there.uri).toBe(uriOf(join(dir, ".github/playbooks/child.yaml")));
    expect(there.range.start).toEqual({ line: 1, character: 4 });

    // A change: the typo fixed, the diagnostics follow.
    client.replace(main, text.replace("inputs.pakage", "inputs.package"), 2);
    const updated = await client.diagnosticsFor(main, (d) => d.length !== 3);
    expect(updated.map((d) => d.code)).toEqual(["step-no-description"]);

    await rpc.sendRequest("shutdown");
    await rpc.sendNotification("exit");
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
    rpc.dispose();
  });
});
