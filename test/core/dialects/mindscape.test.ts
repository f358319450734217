import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { siblingsOnDisk } from "../../../src/adapters/local/siblings.js";
import { isPlaybookFile } from "../../../src/core/dialects/files.js";
import type { Siblings } from "../../../src/core/dialects/index.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { Driver } from "../engine/helpers.js";

const ROOT = join(import.meta.dirname, "../../..");
const BACKEND = join(ROOT, "test/fixtures/dialects/mindscape/backend");
const SPECS = join(BACKEND, "playbooks/specs");
const rel = (path: string) => relative(ROOT, path);
const read = (path: string) => readFileSync(path, "utf8");

function load(path: string, text = read(path), changed: Record<string, string | undefined> = {}) {
  const disk = siblingsOnDisk(path, BACKEND);
  const siblings: Siblings = {
    read: (r) => (Object.hasOwn(changed, r) ? changed[r] : disk.read(r)),
  };
  return validateSource(rel(path), text, { siblings });
}
const errors = (r: ReturnType<typeof validateSource>) =>
  r.diagnostics.filter((d) => d.severity === "error");
const spec = (code: string) => join(SPECS, `${code}.json`);

describe("Mindscape playbooks load as written", () => {
  const files = [
    ...readdirSync(SPECS).map((f) => join(SPECS, f)),
    join(BACKEND, "playbooks/pdf_ocr_processing.yaml"),
    join(BACKEND, "playbooks/system_mindscape_state_sync.yaml"),
  ];

  it("every real spec (with its SOP) and front-matter playbook validates with no error", () => {
    expect(files).toHaveLength(8);
    for (const file of files) {
      const r = load(file);
      expect(r.dialect, file).toBe("mindscape");
      expect(errors(r), `${file}: ${JSON.stringify(errors(r), null, 1)}`).toEqual([]);
    }
  });

  it("an SOP beside its spec is part of it, never a playbook of its own", () => {
    const sop = join(BACKEND, "i18n/playbooks/en/pdf_ocr_and_index.md");
    expect(isPlaybookFile(rel(sop), () => read(sop), siblingsOnDisk(sop, BACKEND))).toBe(false);
    expect(isPlaybookFile(rel(spec("file_write")), () => read(spec("file_write")))).toBe(true);
  });

  it("takes who it is and how it talks from the SOP, located in the SOP", () => {
    const r = load(spec("pdf_ocr_and_index"));
    expect(r.playbook).toMatchObject({
      id: "pdf_ocr_and_index",
      name: "PDF OCR and Index",
      kind: "system_tool",
      interaction_mode: ["silent"],
      requires: {
        tools: ["core_files/ocr_pdf", "vector_store/embed_text", "vector_store/create_index"],
      },
    });
    const sop = read(join(BACKEND, "i18n/playbooks/en/pdf_ocr_and_index.md")).split("\n");
    const visible = r.diagnostics.find((d) => d.message.startsWith("'visible_in'"));
    expect(visible).toMatchObject({
      rule: "dialect-drift",
      file: "test/fixtures/dialects/mindscape/backend/i18n/playbooks/en/pdf_ocr_and_index.md",
      line: sop.findIndex((l) => l.startsWith("visible_in:")) + 1,
    });
  });

  it("rewrites their templates into the v1 subset: fallbacks, choices, items and blocks", () => {
    const steps = load(spec("ig_post_generation")).playbook?.steps ?? [];
    const args = (id: string) => {
      const s = steps.find((x) => x.id === id);
      return (s?.type === "investigate" ? s.suggested_calls?.[0]?.args : undefined) ?? {};
    };
    expect(args("generate_image")).toMatchObject({
      query: "{{ inputs.image_query or steps.extract_topics.outputs.topics[0] }}",
      orientation:
        "{{ steps.analyze_style.outputs.suggested_format if steps.analyze_style.outputs.results else 'square' }}",
      per_page: 10,
    });
    expect(String(args("generate_posts").text)).toMatch(
      /^\{% if steps\.merge_context\.outputs\.results %\}\{\{ steps\.merge_context\.outputs\.merged_prompt \}\}\{% elif steps\.build_prompt\.outputs\.results %\}/,
    );
    const merge = steps.find((s) => s.id === "merge_context");
    expect(merge?.if).toBe(
      "steps.load_file_context.outputs.results or steps.vector_search_context.outputs.results",
    );
  });

  it("keeps Mindscape's run order: passes over the list, each ready step in file order", () => {
    const ids = load(spec("ig_post_generation")).playbook?.steps?.map((s) => s.id);
    expect(ids).toEqual([
      "extract_topics",
      "analyze_style",
      "load_file_context",
      "vector_search_context",
      "generate_image",
      "merge_context",
      "build_prompt",
      "generate_posts",
      "write_to_vault",
    ]);
  });

  it("reports what it cannot map, loops in depends_on, and a bad input type, where they stand", () => {
    const text = read(spec("file_write"))
      .replace('"id": "write_file",', '"id": "write_file",\n      "retry": 3,')
      .replace(
        '"type": "string",\n      "required": true,\n      "description": "File content',
        '"type": "tensor",\n      "required": true,\n      "description": "File content',
      );
    const r = load(spec("file_write"), text);
    const lines = text.split("\n");
    expect(errors(r).map((d) => [d.rule, d.line, d.message])).toEqual(
      expect.arrayContaining([
        [
          "dialect-unmapped",
          lines.findIndex((l) => l.includes('"retry"')) + 1,
          "'retry' is not a step field here",
        ],
        [
          "dialect-unmapped",
          lines.findIndex((l) => l.includes('"tensor"')) + 1,
          "input type 'tensor' has no equivalent here (string, integer, boolean, array, list[…], object)",
        ],
      ]),
    );
    const loop = read(spec("pdf_ocr_and_index")).replace(
      '"id": "ocr",',
      '"id": "ocr",\n      "depends_on": ["index"],',
    );
    expect(errors(load(spec("pdf_ocr_and_index"), loop)).map((d) => d.message)).toContain(
      "Circular dependency or missing dependencies detected: some steps can never be ready",
    );
  });

  it("runs a converted spec: each call's outputs feed the next, the run's outputs are collected", () => {
    const r = load(spec("pdf_ocr_and_index"));
    const d = new Driver({ playbook: r.playbook as NonNullable<typeof r.playbook>, hash: "h" });
    d.start({ pdf_files: "docs/a.pdf, docs/b.pdf" });
    d.drive();
    expect(d.effect().params).toMatchObject({
      calls: [{ tool: "core_files/ocr_pdf", args: { file_path: "docs/a.pdf", dpi: 300 } }],
    });
    d.answer({ called: 1, failed: [], results: "", "output.ocr_text": "Invoice 42" });
    d.drive();
    expect(d.effect().params).toMatchObject({ calls: [{ args: { text: "Invoice 42" } }] });
    d.answer({ called: 1, failed: [], results: "", "output.vector_ids": ["v-1", "v-2"] });
    d.drive();
    // `{{step.embed.vector_ids}}` alone passes the list itself, as Mindscape's engine does.
    expect(d.effect().params).toMatchObject({ calls: [{ args: { vector_ids: ["v-1", "v-2"] } }] });
    d.answer({ called: 1, failed: [], results: "", "output.index_id": "idx-7" });
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.outputs).toEqual({
      ocr_text: "Invoice 42",
      vector_ids: "v-1, v-2",
      index_id: "idx-7",
    });
    // Silent: nothing told to people but the run's state.
    expect(d.all.flatMap((x) => x.messages)).toEqual([]);
  });

  it("reads a front-matter playbook (Markdown under a .yaml name) as one ai step with its inputs", () => {
    const r = load(join(BACKEND, "playbooks/pdf_ocr_processing.yaml"));
    expect(r.playbook?.steps?.map((s) => s.type)).toEqual(["ai"]);
    expect(r.playbook?.inputs?.dpi).toMatchObject({ type: "number", default: 300 });
    expect(r.playbook?.inputs?.output_format).toMatchObject({
      type: "enum",
      values: ["text", "structured"],
    });
  });

  it("refuses a hostile file cleanly", () => {
    const deep = `{"playbook_code": "x", "steps": ${"[".repeat(300)}${"]".repeat(300)}}`;
    expect(errors(load(join(SPECS, "x.json"), deep)).length).toBeGreaterThan(0);
    const wrong = load(
      join(SPECS, "x.json"),
      '{"playbook_code": "x", "kind": "nope", "steps": {}}',
    );
    expect(errors(wrong).map((d) => d.message)).toEqual(
      expect.arrayContaining(["kind is user_workflow or system_tool", "the spec has no steps"]),
    );
  });
});

describe("Mindscape specs: each field as its engine reads it", () => {
  const base = {
    playbook_code: "t",
    kind: "user_workflow",
    inputs: { q: { type: "string" } },
    steps: [
      { id: "a", tool: "core.search", inputs: { q: "{{input.q}}" }, outputs: { hits: "results" } },
    ],
  };
  const convert = (changes: Record<string, unknown>) => {
    const text = JSON.stringify({ ...base, ...changes }, null, 2);
    return load(join(SPECS, "t.json"), text);
  };
  const messages = (r: ReturnType<typeof load>) =>
    r.diagnostics.map((d) => `${d.rule}: ${d.message}`);

  it.each([
    [{ kind: "both" }, "dialect-invalid: kind is user_workflow or system_tool"],
    [{ playbook_code: 3 }, "dialect-invalid: the spec has no playbook_code"],
    [{ inputs: [] }, "dialect-invalid: inputs map names to { type, required, default }"],
    [{ inputs: { q: { required: true } } }, "dialect-invalid: input 'q' has no type"],
    [{ outputs: [] }, "dialect-invalid: outputs map names to { type, source }"],
    [
      { outputs: { x: { source: "input.q" } } },
      "dialect-invalid: output 'x' needs source: step.<id>.<key>",
    ],
    [{ execution_profile: {} }, "dialect-unmapped: 'execution_profile' has no equivalent here"],
    [
      { steps: [{ id: "a" }] },
      "dialect-invalid: Either 'tool' (legacy) or 'tool_slot' (recommended) must be provided",
    ],
    [{ steps: [{ tool: "x.y" }] }, "dialect-invalid: a step has an id"],
    [
      { steps: [{ id: "a", tool: "x.y", tool_slot: "x.y" }] },
      "dialect-invalid: Cannot specify both 'tool' and 'tool_slot'.",
    ],
    [
      { steps: [{ id: "a", tool: "x.y", depends_on: ["zz"] }] },
      "dialect-invalid: Circular dependency or missing dependencies detected: some steps can never be ready",
    ],
    [
      { steps: [{ id: "a", tool: "x.y", for_each: "items" }] },
      "dialect-invalid: for_each must be input.<name> or step.<id>.<path>, not 'items'",
    ],
    [
      { steps: [{ id: "a", tool: "x.y", hooks: { pre_step: { tool_slot: "s" } } }] },
      "dialect-unmapped: step hooks (pre_step, post_step, on_error) call tool slots around a step; there is no equivalent here",
    ],
    [
      { steps: [{ id: "a", tool: "x.y", gate: { required: true, type: "modification" } }] },
      "dialect-drift: Mindscape's executor does not read a gate's type; here every gate is a review of the step's result",
    ],
    [
      { steps: [{ id: "a", tool: "x.y", gate: { required: true, type: "audit" } }] },
      "dialect-invalid: a gate's type is validation or modification",
    ],
    [
      { steps: [{ id: "a", tool_slot: "cms.apply" }] },
      "dialect-drift: a tool slot is resolved per workspace in Mindscape; here it names the tool itself",
    ],
    [
      {
        steps: [
          { id: "a", tool: "x.y", condition: "{{step.b}}" },
          { id: "b", tool: "x.z" },
        ],
      },
      "dialect-drift: 'step.b' alone is not understood by Mindscape's condition reader, which then runs the step anyway; here it is true when that step ran",
    ],
    [
      {
        steps: [
          { id: "a", tool: "x.y", inputs: { w: "{{workspace_id}}", c: "{{context.tenant}}" } },
        ],
      },
      "dialect-drift: '{{workspace_id}}' stays as written in Mindscape's engine; here it is the input 'workspace_id' (empty when not given)",
    ],
    [
      { outputs: { hits: { source: "step.a.results" } } },
      "dialect-drift: step a maps its output 'hits' from the result's 'results'; this source names the result's field, so it is read as the output 'hits'",
    ],
    [
      { inputs: { q: { type: "string", default: "x" } } },
      "dialect-drift: input 'q' has a default, and Mindscape still counts it required; here the default is used when it is not given",
    ],
  ])("%j", (changes, message) => {
    expect(messages(convert(changes))).toContain(message);
  });

  it("maps for_each, items, a playbook slot and a writing tool", () => {
    const r = convert({
      inputs: { files: { type: "array" }, cfg: { type: "object", required: false } },
      steps: [
        {
          id: "each",
          tool: "x.read",
          for_each: "input.files",
          inputs: { f: "{{item}}", i: "{{index}}" },
        },
        { id: "child", playbook_slot: "other", inputs: { f: "{{input.cfg}}", n: 2 } },
        { id: "write", tool: "x.write", tool_policy: { risk_level: "write" } },
      ],
    });
    const [each, child, write] = r.playbook?.steps ?? [];
    expect(each).toMatchObject({
      type: "investigate",
      for_each: "{{ inputs.files }}",
      suggested_calls: [{ args: { f: "{{ item }}", i: "{{ item_index }}" } }],
    });
    expect(child).toMatchObject({
      type: "playbook",
      mode: "delegate",
      playbook: "other",
      with: { n: 2 },
    });
    expect(write).toMatchObject({ authority: "ask-first" });
    expect(r.playbook?.inputs).toMatchObject({
      files: { type: "list", required: true },
      cfg: { type: "object" },
    });
  });

  it("reviews a gated step's result after it ran, as Mindscape does: a checkpoint follows it", () => {
    const r = convert({
      steps: [
        {
          id: "a",
          tool: "x.publish",
          condition: "{{input.q}}",
          gate: {
            required: true,
            operation: "publish",
            checkpoint_required: true,
            decision_payload_schema: { type: "object" },
          },
        },
        { id: "a_gate", tool: "x.y", depends_on: ["a"] },
        { id: "b", tool: "x.y", gate: { required: false } },
      ],
    });
    expect(r.playbook?.steps?.map((s) => [s.id, s.type])).toEqual([
      ["a", "investigate"],
      ["a_gate_2", "checkpoint"],
      ["b", "investigate"],
      ["a_gate", "investigate"],
    ]);
    const [a, gate] = r.playbook?.steps ?? [];
    expect(a).not.toHaveProperty("authority");
    expect(gate).toMatchObject({
      if: "inputs.q",
      message: "Review the result of a (publish): /approve to go on, /reject to stop the playbook.",
      response_schema: { type: "object" },
    });
    expect(gate).not.toHaveProperty("on_reject");
    const text = JSON.stringify(
      { ...base, steps: [{ id: "a", tool: "x.y", gate: { required: true } }] },
      null,
      2,
    );
    const located = load(join(SPECS, "t.json"), text);
    expect(errors(located)).toEqual([]);
    expect(r.diagnostics.map((d) => d.message)).toContain(
      "Mindscape's executor does not read a gate's checkpoint_required; here every gate is a review of the step's result",
    );
    const d = new Driver({
      playbook: located.playbook as NonNullable<typeof located.playbook>,
      hash: "h",
    });
    d.start({ q: "x" });
    d.drive();
    // The step runs first; the gate then waits for a decision on its result.
    expect(d.effect().params).toMatchObject({ calls: [{ tool: "x/y" }] });
    d.answer({ called: 1, failed: [], results: "" });
    d.drive();
    expect(d.frame.current).toBe("a_gate");
  });

  it("reads an SOP-only playbook's front matter: locale, tools, unknown fields", () => {
    const text = [
      "---",
      "playbook_code: notes.en",
      "name: Notes",
      "kind: user_workflow",
      "locale: fr",
      "interaction_mode: [needs_review]",
      "tool_dependencies:",
      "  - { type: mcp, name: notes.search, required: true }",
      "outputs:",
      "  - { name: summary, type: string }",
      "mood: calm",
      "---",
      "Summarise the notes.",
    ].join("\n");
    const r = validateSource("playbooks/notes.md", text);
    expect(r.playbook).toMatchObject({
      id: "notes",
      interaction_mode: ["needs_review"],
      requires: { tools: ["notes/search"] },
      outputs: { summary: "{{ steps.sop.outputs.text }}" },
      steps: [{ type: "ai", prompt: "Summarise the notes.", tools: ["notes/search"] }],
    });
    expect(r.diagnostics.map((d) => d.message)).toEqual(
      expect.arrayContaining([
        "Mindscape skips a file in locale 'fr'; it is read here",
        "'mood' has no equivalent here",
      ]),
    );
    const broken = validateSource("playbooks/b.md", "---\nplaybook_code: [\n---\nbody\n");
    expect(errors(broken).length).toBeGreaterThan(0);
  });
});
