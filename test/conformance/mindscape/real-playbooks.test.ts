/**
 * Mindscape's own playbooks (test/fixtures/seed-repos/mindscape, unedited) run to the end
 * Mindscape's engine reaches on the same tool answers. Where the two differ on the way there,
 * docs/dialects/conformance-mindscape.md says so.
 */
import { describe, expect, it } from "vitest";
import { loadSpec, real, runWith } from "./harness.js";

const SPECS = "backend/playbooks/specs";
const withSop = (code: string) =>
  loadSpec(
    real(`${SPECS}/${code}.json`),
    { [`../../i18n/playbooks/en/${code}.md`]: real(`backend/i18n/playbooks/en/${code}.md`) },
    `${SPECS}/${code}.json`,
  );

describe("Mindscape's own playbooks reach the end its engine reaches", () => {
  it("pdf_ocr_and_index: three calls in depends_on order, completed, its outputs collected", async () => {
    const bundle = withSop("pdf_ocr_and_index");
    expect(bundle.playbook.interaction_mode).toEqual(["silent"]);
    const { driver, calls } = await runWith(
      bundle,
      { pdf_files: "docs/invoice-42.pdf, docs/invoice-43.pdf" },
      {
        "core_files/ocr_pdf": () => ({ ocr_text: "Invoice 42", ocr_pages: 2 }),
        "vector_store/embed_text": () => ({ vector_ids: ["v-1", "v-2"], embedding_count: 2 }),
        "vector_store/create_index": () => ({ index_id: "idx-7" }),
      },
    );
    expect(driver.run.status).toBe("completed");
    expect(calls).toEqual([
      { tool: "core_files/ocr_pdf", args: { file_path: "docs/invoice-42.pdf", dpi: 300 } },
      {
        tool: "vector_store/embed_text",
        args: {
          text: "Invoice 42",
          metadata: { source: "docs/invoice-42.pdf", playbook: "pdf_ocr_and_index" },
        },
      },
      {
        tool: "vector_store/create_index",
        args: { vector_ids: ["v-1", "v-2"], index_name: "pdf_documents" },
      },
    ]);
    expect(driver.run.outputs).toEqual({
      ocr_text: "Invoice 42",
      vector_ids: "v-1, v-2",
      index_id: "idx-7",
    });
  });

  it("grant_scout, action match: the index and draft steps are skipped, the match completes", async () => {
    const bundle = withSop("grant_scout");
    const profile = { project_goal: "solar drones", industry: "energy" };
    const { driver, calls } = await runWith(
      bundle,
      { action: "match", user_input: "We build solar drones." },
      {
        "core_llm/structured_extract": () => ({ extracted_data: profile }),
        "grant_scout/recall_candidates": () => ({ candidates: [{ id: "g-1" }], total_count: 1 }),
        "grant_scout/match_grants": () => ({
          matched_grants: [{ id: "g-1", score: 0.9 }],
          total_candidates: 1,
          eligible_count: 1,
        }),
      },
    );
    expect(driver.run.status).toBe("completed");
    expect(calls.map((c) => c.tool)).toEqual([
      "core_llm/structured_extract",
      "grant_scout/recall_candidates",
      "grant_scout/match_grants",
    ]);
    expect(driver.frame.results.index_grants?.status).toBe("skipped");
    expect(driver.frame.results.generate_draft?.status).toBe("skipped");
    expect(calls[2]?.args).toMatchObject({ candidates: [{ id: "g-1" }], vault_path: "vault" });
    expect(driver.run.outputs?.matched_grants).toBe('[{"id":"g-1","score":0.9}]');
  });

  it("file_write: one call, completed, the written file's path, size and success as outputs", async () => {
    const bundle = withSop("file_write");
    const { driver, calls } = await runWith(
      bundle,
      { file_path: "notes/a.md", content: "# A" },
      {
        "mindscape/filesystem_write_file": () => ({
          file_path: "notes/a.md",
          size: 3,
          success: true,
        }),
      },
    );
    expect(driver.run.status).toBe("completed");
    expect(calls).toEqual([
      {
        tool: "mindscape/filesystem_write_file",
        args: { file_path: "notes/a.md", content: "# A", encoding: "utf-8" },
      },
    ]);
    expect(driver.run.outputs).toEqual({ file_path: "notes/a.md", size: "3", success: "true" });
  });
});
