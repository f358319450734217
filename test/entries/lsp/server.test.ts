import { mkdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  createConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionItem,
  type Connection,
  type Hover,
  type InitializeParams,
  type InitializeResult,
  type Location,
} from "vscode-languageserver/node";
import type { Diagnostic } from "../../../src/core/format/diagnostics.js";
import { startServer } from "../../../src/entries/lsp/server.js";
import { runCli } from "../../helpers/cli.js";
import { cleanup, makeDir, ROOT, write } from "../../helpers/git-repo.js";
import { CHILD, MAIN, repository } from "./fixtures.js";
import { expectedLsp, TestClient, withoutHints } from "./lsp-client.js";

let live: { client: TestClient; server: Connection }[] = [];
afterEach(async () => {
  for (const { client, server } of live) {
    await client.connection.sendRequest("shutdown");
    client.connection.dispose();
    server.dispose();
  }
  live = [];
  cleanup();
});

/** A server and a client joined by in-memory streams, initialised for `root`. */
async function start(
  init: Partial<InitializeParams> = {},
): Promise<{ client: TestClient; server: Connection; init: InitializeResult }> {
  const up = new PassThrough();
  const down = new PassThrough();
  const server = createConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
  startServer(server);
  const client = new TestClient(new StreamMessageReader(down), new StreamMessageWriter(up));
  live.push({ client, server });
  const result = await client.connection.sendRequest<InitializeResult>("initialize", {
    processId: null,
    rootUri: null,
    capabilities: {},
    initializationOptions: { debounceMs: 10 },
    ...init,
  });
  await client.connection.sendNotification("initialized", {});
  return { client, server, init: result };
}

const uriOf = (file: string): string => pathToFileURL(file).href;

async function cliReport(dir: string, rel: string): Promise<Diagnostic[]> {
  const r = await runCli(["validate", "-f", "json"], dir);
  const files = (JSON.parse(r.out) as { files: { file: string; diagnostics: Diagnostic[] }[] })
    .files;
  return files.find((f) => f.file === rel)?.diagnostics ?? [];
}

const at = (text: string, needle: string, offset = 0) => {
  const i = text.indexOf(needle) + offset;
  const before = text.slice(0, i).split("\n");
  return { line: before.length - 1, character: (before[before.length - 1] as string).length };
};

describe("the language server", () => {
  it("publishes the CLI's diagnostics for an opened playbook and its set", async () => {
    const dir = repository();
    const { client, init } = await start({
      rootUri: uriOf(dir),
      capabilities: { textDocument: { publishDiagnostics: { relatedInformation: true } } },
    });
    expect(init.capabilities).toMatchObject({
      hoverProvider: true,
      definitionProvider: true,
      completionProvider: { triggerCharacters: expect.arrayContaining([".", " "]) },
    });
    const main = join(dir, ".github/playbooks/main.yaml");
    client.open(uriOf(main), MAIN);
    const published = await client.diagnosticsFor(uriOf(main));
    const expected = await cliReport(dir, ".github/playbooks/main.yaml");
    expect(expected.length).toBe(3);
    expect(withoutHints(published)).toEqual(expected.map(expectedLsp));
    expect(published[0]?.relatedInformation?.[0]?.message).toMatch(/^hint: /);
    // The rest of the set is published too, though not open.
    expect(await client.diagnosticsFor(uriOf(join(dir, ".github/playbooks/child.yaml")))).toEqual(
      [],
    );
  });

  it("completes, hovers and goes to definitions", async () => {
    const dir = repository();
    const { client } = await start({ workspaceFolders: [{ uri: uriOf(dir), name: "repo" }] });
    const main = uriOf(join(dir, ".github/playbooks/main.yaml"));
    const text = MAIN.replace("    mode: delegate\n", "    mode: delegate\n    next: \n");
    client.open(main, text);
    await client.diagnosticsFor(main);
    const complete = async (pos: { line: number; character: number }) => {
      const items = (await client.connection.sendRequest("textDocument/completion", {
        textDocument: { uri: main },
        position: pos,
      })) as CompletionItem[] | null;
      return items === null ? null : items.map((i) => i.label);
    };
    expect(await complete(at(text, "next: ", 6))).toEqual(["greet", "finish"]);
    expect(await complete(at(text, "type: end", 6))).toContain("checkpoint");
    expect(await complete(at(text, "playbook: child", 10))).toEqual(
      expect.arrayContaining(["child", "alert-triage"]),
    );
    expect(await complete(at(text, "inputs.pakage", 7))).toEqual(["package"]);
    expect(await complete(at(text, "outputs.result", 8))).toEqual(["result"]);
    // In a comment, nothing.
    const commented = text.replace("type: end", "type: end # note");
    client.replace(main, commented, 2);
    expect(await complete(at(commented, "# note", 3))).toBeNull();

    const hover = (await client.connection.sendRequest("textDocument/hover", {
      textDocument: { uri: main },
      position: at(commented, "mode: delegate", 1),
    })) as Hover;
    expect(hover.contents).toMatchObject({ kind: "markdown" });
    expect((hover.contents as { value: string }).value).toMatch(/^`steps\[1\]\.mode`/);
    expect(hover.range).toEqual({
      start: at(commented, "mode: delegate"),
      end: at(commented, "mode: delegate", 4),
    });
    expect(
      await client.connection.sendRequest("textDocument/hover", {
        textDocument: { uri: main },
        position: { line: 0, character: 0 },
      }),
    ).toMatchObject({ contents: { value: expect.stringContaining("apiVersion") } });

    const definition = (pos: { line: number; character: number }) =>
      client.connection.sendRequest("textDocument/definition", {
        textDocument: { uri: main },
        position: pos,
      }) as Promise<Location | null>;
    expect(await definition(at(commented, "steps.delegate", 8))).toEqual({
      uri: main,
      range: { start: at(commented, "id: delegate", 4), end: at(commented, "id: delegate", 12) },
    });
    expect(await definition(at(commented, "playbook: child", 11))).toEqual({
      uri: uriOf(join(dir, ".github/playbooks/child.yaml")),
      range: { start: { line: 1, character: 4 }, end: { line: 1, character: 9 } },
    });
    expect(await definition(at(commented, "description: Greets", 15))).toBeNull();
    // A library playbook's file is the package's own.
    const lib = commented.replace("playbook: child", "playbook: alert-triage");
    client.replace(main, lib, 3);
    const library = await definition(at(lib, "playbook: alert-triage", 12));
    expect(library?.uri).toBe(uriOf(join(ROOT, "playbooks/alert-triage.yaml")));
    const gone = lib.replace("playbook: alert-triage", "playbook: gone");
    client.replace(main, gone, 4);
    expect(await definition(at(gone, "playbook: gone", 11))).toBeNull();
  });

  it("republishes a playbook when one it delegates to changes, and follows edits", async () => {
    const dir = repository();
    const { client } = await start({ rootPath: dir });
    const main = uriOf(join(dir, ".github/playbooks/main.yaml"));
    const child = uriOf(join(dir, ".github/playbooks/child.yaml"));
    client.open(main, MAIN);
    await client.diagnosticsFor(main, (d) => d.length === 3);
    client.open(child, CHILD);
    client.replace(child, CHILD.replace("id: child", "id: kid"), 2);
    const broken = await client.diagnosticsFor(main, (d) =>
      d.some((x) => x.code === "set-unresolved-playbook"),
    );
    expect(broken.find((x) => x.code === "set-unresolved-playbook")?.range.start).toEqual(
      at(MAIN, "playbook: child", 10),
    );
    client.replace(main, MAIN.replace("inputs.pakage", "inputs.package"), 2);
    const fixed = await client.diagnosticsFor(
      main,
      (d) => !d.some((x) => x.code === "template-unresolved"),
    );
    expect(fixed.map((x) => x.code)).toEqual(["set-unresolved-playbook", "step-no-description"]);
    // Closing the child drops its unsaved rename: the file on disk counts again.
    void client.connection.sendNotification("textDocument/didClose", {
      textDocument: { uri: child },
    });
    expect((await client.diagnosticsFor(main, (d) => d.length === 1)).map((x) => x.code)).toEqual([
      "step-no-description",
    ]);
  });

  it("follows files changed on disk and registers to hear of them", async () => {
    const dir = repository();
    const { client } = await start({
      rootUri: uriOf(dir),
      capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
    });
    const main = uriOf(join(dir, ".github/playbooks/main.yaml"));
    client.open(main, MAIN);
    await client.diagnosticsFor(main);
    await expect.poll(() => client.registrations.length).toBe(1);
    const extra = write(dir, ".github/playbooks/extra.yaml", CHILD);
    const elsewhere = write(dir, "docs/flow.yaml", CHILD.replace("id: child", "id: flow"));
    write(dir, "notes.yaml", "just: yaml\n");
    void client.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [
        { uri: uriOf(extra), type: 1 },
        { uri: uriOf(elsewhere), type: 1 },
        { uri: uriOf(join(dir, "notes.yaml")), type: 1 },
        { uri: main, type: 2 },
        { uri: "untitled:x", type: 2 },
      ],
    });
    const dup = await client.diagnosticsFor(uriOf(extra), (d) => d.length > 0);
    expect(dup.map((d) => d.code)).toEqual(["set-duplicate-id"]);
    // A playbook outside the repository's folders is validated with its own folder.
    expect(await client.diagnosticsFor(uriOf(elsewhere))).toEqual([]);
    unlinkSync(extra);
    void client.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [{ uri: uriOf(extra), type: 3 }],
    });
    expect(await client.diagnosticsFor(uriOf(extra), (d) => d.length === 0)).toEqual([]);
  });

  it("warns once when the config file cannot be applied", async () => {
    const dir = repository();
    write(dir, ".playbook-bot.yml", "rules: [oops]\n");
    const { client } = await start({ rootUri: uriOf(dir) });
    const main = uriOf(join(dir, ".github/playbooks/main.yaml"));
    client.open(main, MAIN);
    await client.diagnosticsFor(main);
    client.replace(main, MAIN.replace("Greets.", "Greets!"), 2);
    await expect.poll(() => client.messages.length).toBe(1);
    expect(client.messages[0]).toMatch(/^playbook-bot: the config file is not applied: /);
  });

  it("validates an unsaved buffer alone and forgets it when closed", async () => {
    const { client } = await start();
    const uri = "untitled:Untitled-1";
    client.open(uri, CHILD.replace("    description: Answers.\n", ""));
    expect((await client.diagnosticsFor(uri)).map((d) => d.code)).toEqual(["step-no-description"]);
    const items = (await client.connection.sendRequest("textDocument/completion", {
      textDocument: { uri },
      position: { line: 5, character: 10 },
    })) as CompletionItem[];
    expect(items.map((i) => i.label)).toContain("end");
    void client.connection.sendNotification("textDocument/didClose", { textDocument: { uri } });
    expect(await client.diagnosticsFor(uri, (d) => d.length === 0)).toEqual([]);
  });

  it("validates once more when asked during a validation, and logs one that fails", async () => {
    const dir = repository();
    const { client } = await start({ rootUri: uriOf(dir) });
    const main = uriOf(join(dir, ".github/playbooks/main.yaml"));
    client.open(main, MAIN);
    // Asked before the first validation is done: the set is validated for the answer.
    const items = (await client.connection.sendRequest("textDocument/completion", {
      textDocument: { uri: main },
      position: at(MAIN, "playbook: child", 10),
    })) as CompletionItem[];
    expect(items.map((i) => i.label)).toContain("child");
    expect(await client.diagnosticsFor(main, (d) => d.length === 3)).toHaveLength(3);

    // A config path that cannot be read is no config error: the validation fails and says so.
    mkdirSync(join(dir, ".playbook-bot.yml"));
    client.replace(main, MAIN.replace("Greets.", "Greets!"), 2);
    await expect.poll(() => client.logs.length).toBeGreaterThan(0);
    expect(client.logs[0]).toMatch(
      /^validating repository:.* failed: .*config file .*\.playbook-bot\.yml: file is a folder, not a file \(not-regular\)/s,
    );
  });

  it("takes a file URI it cannot map to a path as a buffer", async () => {
    const { client } = await start();
    const uri = "file://remote-host/share/flow.yaml";
    client.open(uri, CHILD);
    expect(await client.diagnosticsFor(uri)).toEqual([]);
  });

  it("clears a file that stops being a playbook or is deleted", async () => {
    const dir = makeDir("pb-lsp-");
    const broken = MAIN.replace("playbook: child", "playbook: nobody");
    const flow = write(dir, "docs/flow.yaml", broken);
    const other = write(dir, "docs/other.yaml", broken.replace("id: main", "id: other"));
    const { client } = await start({ rootUri: uriOf(dir) });
    client.open(uriOf(flow), broken);
    expect((await client.diagnosticsFor(uriOf(flow))).length).toBeGreaterThan(0);
    expect((await client.diagnosticsFor(uriOf(other))).length).toBeGreaterThan(0);
    client.replace(uriOf(flow), broken.replace("apiVersion: playbook-bot/v1\n", ""), 2);
    expect(await client.diagnosticsFor(uriOf(flow), (d) => d.length === 0)).toEqual([]);
    client.open(uriOf(other), readFileSync(other, "utf8"));
    unlinkSync(other);
    void client.connection.sendNotification("textDocument/didClose", {
      textDocument: { uri: uriOf(other) },
    });
    expect(await client.diagnosticsFor(uriOf(other), (d) => d.length === 0)).toEqual([]);
  });

  it("offers field names when asked, not on every space of indentation or prose", async () => {
    const dir = repository();
    const { client } = await start({ rootUri: uriOf(dir) });
    const main = uriOf(join(dir, ".github/playbooks/main.yaml"));
    const text = MAIN.replace("    mode: delegate\n", "    mode: delegate\n    \n");
    client.open(main, text);
    const position = at(text, "mode: delegate\n", 19);
    const ask = (context: { triggerKind: number; triggerCharacter?: string }) =>
      client.connection.sendRequest("textDocument/completion", {
        textDocument: { uri: main },
        position,
        context,
      }) as Promise<CompletionItem[] | null>;
    expect(await ask({ triggerKind: 2, triggerCharacter: " " })).toBeNull();
    expect((await ask({ triggerKind: 1 }))?.map((i) => i.label)).toContain("with");
    const prose = text.replace("Runs the child.", "Runs the child and waits");
    client.replace(main, prose, 2);
    const items = (await client.connection.sendRequest("textDocument/completion", {
      textDocument: { uri: main },
      position: at(prose, "and waits", 9),
      context: { triggerKind: 2, triggerCharacter: " " },
    })) as CompletionItem[];
    expect(items).toEqual([]);
  });

  it("leaves files that are not playbooks alone", async () => {
    const dir = makeDir("pb-lsp-");
    const compose = write(dir, "compose.yaml", "services:\n  web:\n    image: nginx\n");
    const { client } = await start({ rootUri: uriOf(dir) });
    client.open(uriOf(compose), readFileSync(compose, "utf8"));
    const ask = (method: string) =>
      client.connection.sendRequest(method, {
        textDocument: { uri: uriOf(compose) },
        position: { line: 1, character: 4 },
      });
    expect(await ask("textDocument/completion")).toBeNull();
    expect(await ask("textDocument/hover")).toBeNull();
    expect(await ask("textDocument/definition")).toBeNull();
    expect(await ask("textDocument/hover").then(() => client.diagnostics.size)).toBe(0);
  });

  it("answers nothing where a playbook does not parse, and stops on shutdown", async () => {
    const dir = repository();
    const { client } = await start({ rootUri: uriOf(dir) });
    const main = uriOf(join(dir, ".github/playbooks/main.yaml"));
    const broken = MAIN.replace("mode: delegate", "mode: [delegate");
    client.open(main, broken);
    const syntax = await client.diagnosticsFor(main);
    expect(syntax.map((d) => d.code)).toEqual(["yaml-syntax"]);
    const position = at(broken, "mode:", 2);
    for (const method of ["textDocument/hover", "textDocument/definition"])
      expect(
        await client.connection.sendRequest(method, { textDocument: { uri: main }, position }),
      ).toBeNull();
    // Completion still reads the outline, and the value last parsed (none yet here).
    const items = (await client.connection.sendRequest("textDocument/completion", {
      textDocument: { uri: main },
      position: at(broken, "type: end", 6),
    })) as CompletionItem[];
    expect(items.map((i) => i.label)).toContain("end");
    await client.connection.sendRequest("shutdown");
    client.replace(main, MAIN, 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(client.diagnostics.get(main)).toEqual(syntax);
  });
});
