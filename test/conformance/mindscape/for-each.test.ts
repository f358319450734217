/**
 * Mindscape's loop (backend/app/services/workflow_step_loop.py, with the orchestrator's output
 * mapping): a for_each step keeps `results`, one map of the step's outputs per item, and a later
 * for_each over them reads each item's fields.
 */
import { describe, expect, it } from "vitest";
import { loadSpec, real, runWith } from "./harness.js";

const UNSPLASH = "backend/playbooks/specs/unsplash_visual_lens_extraction.json";

describe("a for_each over the results of an earlier for_each", () => {
  it("the real unsplash_visual_lens_extraction: each image's temp_path reaches the feature extractor", async () => {
    const bundle = loadSpec(real(UNSPLASH), {}, UNSPLASH);
    const photos = [
      { id: "p1", urls: { regular: "https://images.test/p1" } },
      { id: "p2", urls: { regular: "https://images.test/p2" } },
    ];
    const { driver, calls } = await runWith(
      bundle,
      {
        theme_keywords: "yoga",
        style_preferences: "minimal",
        lens_name: "Calm",
        workspace_id: "w1",
      },
      {
        // The search query reads `core_themes` of the step, which maps only search_keywords.
        "core_llm/structured_extract": () => ({
          extracted_data: { core_themes: ["yoga"], styles: ["minimal"] },
          core_themes: ["yoga", "travel"],
          styles: ["minimal"],
        }),
        "unsplash/unsplash_search_photos": () => ({ results: photos }),
        "unsplash/download_temp_image": (args) => ({
          temp_path: `/tmp/${String(args.photo_id)}.jpg`,
        }),
        "mind_lens/mind_lens_extract_features": (args) => ({
          mood: `calm ${String(args.image_path)}`,
        }),
        "visual_lens/visual_lens_create": () => ({ lens_id: "lens-1" }),
      },
    );
    expect(driver.run.status).toBe("completed");
    const of = (tool: string) => calls.filter((c) => c.tool === tool).map((c) => c.args);
    expect(of("unsplash/download_temp_image")).toEqual([
      { image_url: "https://images.test/p1", photo_id: "p1", workspace_id: "w1" },
      { image_url: "https://images.test/p2", photo_id: "p2", workspace_id: "w1" },
    ]);
    expect(of("mind_lens/mind_lens_extract_features")).toEqual([
      { image_path: "/tmp/p1.jpg", include_mood: true },
      { image_path: "/tmp/p2.jpg", include_mood: true },
    ]);
    // The summary's prompt holds every item's features.
    const summary = String(of("core_llm/structured_extract")[1]?.text);
    expect(summary).toContain("calm /tmp/p1.jpg");
    expect(summary).toContain("calm /tmp/p2.jpg");
  });

  it("a step reading several fields of each item reads them from each item's result", async () => {
    const result = (name: string) => ({ local: { path: `/x/${name}` }, bytes: 7 });
    const bundle = loadSpec({
      version: "1.0",
      playbook_code: "case",
      kind: "user_workflow",
      description: "Two loops.",
      inputs: { files: { type: "list[string]", required: true } },
      steps: [
        {
          id: "fetch",
          tool: "demo.fetch",
          for_each: "input.files",
          inputs: { name: "{{item}}" },
          outputs: { path: "local.path", size: "bytes", raw: "" },
        },
        {
          id: "index",
          tool: "demo.index",
          for_each: "step.fetch.results",
          inputs: {
            path: "{{item.path}}",
            size: "{{item.size}}",
            note: "{{item.path}} ({{index}})",
            raw: "{{item.raw}}",
            all: "{{item}}",
          },
          outputs: { id: "id" },
          depends_on: ["fetch"],
        },
      ],
      outputs: {},
    });
    const { driver, calls } = await runWith(
      bundle,
      { files: "a, b" },
      {
        "demo/fetch": (args) => ({ local: { path: `/x/${String(args.name)}` }, bytes: 7 }),
        "demo/index": () => ({ id: "i" }),
      },
    );
    expect(driver.run.status).toBe("completed");
    expect(calls.filter((c) => c.tool === "demo/index").map((c) => c.args)).toEqual([
      { path: "/x/a", size: 7, note: "/x/a (0)", raw: result("a"), all: result("a") },
      { path: "/x/b", size: 7, note: "/x/b (1)", raw: result("b"), all: result("b") },
    ]);
  });

  it("`results` of a step without for_each is the output it maps by that name", async () => {
    const bundle = loadSpec({
      version: "1.0",
      playbook_code: "case",
      kind: "user_workflow",
      description: "One loop.",
      steps: [
        { id: "list", tool: "demo.list", inputs: {}, outputs: { results: "items" } },
        {
          id: "each",
          tool: "demo.each",
          for_each: "step.list.results",
          inputs: { name: "{{item.name}}" },
          outputs: {},
          depends_on: ["list"],
        },
      ],
      outputs: {},
    });
    const { calls } = await runWith(
      bundle,
      {},
      {
        "demo/list": () => ({ items: [{ name: "a" }, { name: "b" }] }),
        "demo/each": () => ({}),
      },
    );
    expect(calls.slice(1).map((c) => c.args)).toEqual([{ name: "a" }, { name: "b" }]);
  });
});
