/**
 * The playground's editor in a headless Chromium: CodeMirror, the validator's findings underlined
 * in place with their rule and fix, the language server's completion and hover run in the page,
 * a layout that fits a phone, and no request that leaves the machine. Screenshots to look at:
 * reports/playground-editor-*.png (desktop 1280×800, phone 390×844).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Playground } from "../../../src/entries/playground/server.js";
import { launchBrowser } from "../../helpers/browser.js";

const SHOTS = join(process.cwd(), "reports");

let pg: Playground;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every request the pages made, and the ones that went anywhere but the playground. */
const requests: string[] = [];
const problems: string[] = [];

async function openPage(width: number, height: number): Promise<Page> {
  const p = await context.newPage();
  await p.setViewportSize({ width, height });
  p.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  p.on("pageerror", (e) => problems.push(String(e)));
  await p.goto(`${pg.url}/`);
  await p.waitForSelector("body[data-ready=true]");
  return p;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  pg = await Playground.start({ port: 0, wakeUpPollMs: false });
  browser = await launchBrowser();
  context = await browser.newContext();
  // Anything not addressed to the playground is refused before it leaves, and recorded.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requests.push(url);
    return url.startsWith(`${pg.url}/`) || url.startsWith("data:")
      ? route.fallback()
      : route.abort();
  });
  page = await openPage(1280, 800);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await pg?.close();
});

const editorText = (p = page) => p.evaluate<string>("window.playground.editor.text()");

/** Puts the cursor at an offset of the editor's text and gives the editor focus. */
async function cursorAt(offset: number): Promise<void> {
  await page.evaluate(
    `(() => { const v = window.playground.editor.view; v.dispatch({ selection: { anchor: ${offset} } }); v.focus(); })()`,
  );
}

/** The screen position of an offset of the editor's text. */
async function coordsAt(offset: number): Promise<{ left: number; top: number; bottom: number }> {
  return page.evaluate(`window.playground.editor.view.coordsAtPos(${offset})`);
}

async function newPlaybook(file: string, text: string): Promise<void> {
  await page.fill("#new-file", file);
  await page.click("#new-playbook button[type=submit]");
  await expect.poll(() => page.textContent("#check-summary")).toBe("No problems.");
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

const DRAFT = `apiVersion: playbook-bot/v1
id: draft
name: Draft
on:
  labels: [draft]
steps:
  - id: look
    name: Look around
    type: investigate
    expected_findings: [cause]
    next: nowhere
  - id: done
    name: Done
    type: end
    status: success
`;

describe("the playground's editor", { timeout: 60_000 }, () => {
  it("is CodeMirror, with YAML highlighting and line numbers, and the first paint says where it is", async () => {
    expect(await page.locator("#editor .cm-editor").count()).toBe(1);
    expect(await page.locator("textarea#editor").count()).toBe(0);
    expect(await page.locator("#editor .cm-lineNumbers .cm-gutterElement").count()).toBeGreaterThan(
      5,
    );
    // Keys and values are told apart by colour.
    const colours = await page.evaluate<string[]>(
      `[...new Set([...document.querySelectorAll("#editor .cm-line span")].map((s) => getComputedStyle(s).color))]`,
    );
    expect(colours.length).toBeGreaterThan(1);
    await page.screenshot({ path: join(SHOTS, "playground-editor-desktop.png") });
    // The page as served, before any script: the repository's name, no "…" waiting for one.
    const html = await (await fetch(`${pg.url}/`)).text();
    expect(html).toContain('<span id="repository">playground/sandbox</span>');
    expect(html).not.toContain("…<");
  });

  it("paints content before any script runs: the repository's name and what the editor is for", async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    try {
      const first = await plain.newPage();
      await first.setViewportSize({ width: 390, height: 844 });
      await first.goto(`${pg.url}/`);
      expect(await first.textContent("#repository")).toBe("playground/sandbox");
      expect(await first.textContent("#editor")).toContain("Open a playbook from the list");
      expect(await first.textContent("body")).not.toContain("…");
      await first.screenshot({ path: join(SHOTS, "playground-editor-phone-first-paint.png") });
    } finally {
      await plain.close();
    }
  });

  it("underlines an error where it is, with its rule and its fix", async () => {
    await newPlaybook("draft.yml", DRAFT);
    const finding = page.locator("#diagnostics li.error", { hasText: "nowhere" });
    await finding.waitFor();
    const rule = (await finding.locator("code").textContent()) ?? "";
    expect(rule).toMatch(/^[a-z]+(?:-[a-z]+)+$/);
    const underline = page.locator("#editor .cm-lintRange-error");
    await underline.first().waitFor();
    expect(await underline.allTextContents()).toContain("nowhere");
    // Hovering the underline shows the finding: its rule, its message, its fix.
    const at = DRAFT.indexOf("nowhere") + 3;
    const { left, top, bottom } = await coordsAt(at);
    await page.mouse.move(left + 1, (top + bottom) / 2);
    const tooltip = page.locator(".cm-tooltip-hover .pb-finding");
    await tooltip.waitFor();
    expect(await tooltip.locator(".pb-rule").textContent()).toBe(rule);
    expect(await tooltip.textContent()).toContain("nowhere");
    expect(await tooltip.locator(".pb-fix").textContent()).toMatch(/^Fix: \S/);
    await page.screenshot({ path: join(SHOTS, "playground-editor-desktop-finding.png") });
    await page.mouse.move(1, 1);
  });

  it("describes the field under the pointer, as the language server's hover does", async () => {
    const text = await editorText();
    const at = text.indexOf("expected_findings") + 4;
    const { left, top, bottom } = await coordsAt(at);
    await page.mouse.move(left + 1, (top + bottom) / 2);
    const hover = page.locator(".cm-tooltip-hover .pb-hover");
    await hover.waitFor();
    const said = (await hover.textContent()) ?? "";
    expect(said).toContain("steps[0].expected_findings");
    expect(said).toContain("Finding keys the step waits for");
    // Written as text, never as HTML: the description's code is a <code> element.
    expect(await hover.locator("code").count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, "playground-editor-desktop-hover.png") });
    await page.mouse.move(1, 1);
  });

  it("offers the step kinds where a step's type goes", async () => {
    const line = "    type: investigate";
    const at = DRAFT.indexOf(line) + "    type: ".length;
    await page.evaluate(
      `(() => { const v = window.playground.editor.view; v.dispatch({ changes: { from: ${at}, to: ${at + "investigate".length} } }); })()`,
    );
    await cursorAt(at);
    await page.keyboard.press("Control+Space");
    const options = page.locator(".cm-tooltip-autocomplete li");
    await options.first().waitFor();
    const labels = await options.allTextContents();
    for (const kind of ["checkpoint", "investigate", "end"])
      expect(labels.some((l) => l.startsWith(kind))).toBe(true);
    // Typing narrows them; Enter takes the one chosen.
    await page.keyboard.type("chec");
    await expect.poll(() => options.first().textContent()).toMatch(/^checkpoint/);
    await page.screenshot({ path: join(SHOTS, "playground-editor-desktop-completion.png") });
    await page.keyboard.press("Enter");
    expect(await editorText()).toContain("    type: checkpoint\n");
  });

  it("completes what a called playbook declares: its outputs after steps.<id>.outputs., its inputs under with:", async () => {
    const caller = `apiVersion: playbook-bot/v1
id: caller
name: Caller
on:
  labels: [caller]
steps:
  - id: greet
    type: playbook
    playbook: hello-world
    with:
      na
  - id: tell
    type: comment
    body: "{{ steps.greet.outputs. }}"
  - id: done
    type: end
    status: success
`;
    await page.evaluate(
      `(() => { const v = window.playground.editor.view; v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: ${JSON.stringify(caller)} } }); })()`,
    );
    const options = page.locator(".cm-tooltip-autocomplete li");
    const offered = async (at: number): Promise<string[]> => {
      await cursorAt(at);
      await page.keyboard.press("Control+Space");
      await options.first().waitFor();
      const labels = await options.allTextContents();
      await page.keyboard.press("Escape");
      return labels;
    };
    // hello-world (bundled) declares the outputs branch and commit, and the input name.
    const outputs = await offered(caller.indexOf("outputs. }}") + "outputs.".length);
    for (const output of ["branch", "commit"])
      expect(outputs.some((l) => l.startsWith(output))).toBe(true);
    const inputs = await offered(caller.indexOf("      na") + "      na".length);
    expect(inputs.some((l) => l.startsWith("name"))).toBe(true);
  });

  it("fits a phone: 390 px wide, nothing wider than the screen, the panels one under another", async () => {
    const phone = await openPage(390, 844);
    await phone.waitForSelector("#editor .cm-editor");
    const width = await phone.evaluate<number>("document.documentElement.scrollWidth");
    expect(width).toBeLessThanOrEqual(390);
    const box = async (selector: string) => (await phone.locator(selector).boundingBox())!;
    const [catalogue, workbench, issues] = [
      await box("#catalogue"),
      await box("#workbench"),
      await box("#issue-pane"),
    ];
    expect(workbench.y).toBeGreaterThanOrEqual(catalogue.y + catalogue.height);
    expect(issues.y).toBeGreaterThanOrEqual(workbench.y + workbench.height);
    const editor = await box("#editor .cm-editor");
    expect(editor.x).toBeGreaterThanOrEqual(0);
    expect(editor.x + editor.width).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: join(SHOTS, "playground-editor-phone.png") });
    // A playbook chosen from the list is shown: the editor comes up from below the list.
    expect(workbench.y).toBeGreaterThan(844 / 2);
    await phone.locator("#catalogue button", { hasText: "hello-world" }).first().click();
    await expect.poll(async () => (await box("#workbench")).y).toBeLessThan(844 / 4);
    expect((await box("#editor .cm-editor")).y).toBeLessThan(844);
    await phone.screenshot({ path: join(SHOTS, "playground-editor-phone-editor.png") });
    // Side by side (a desktop), choosing a playbook moves nothing.
    const wide = await openPage(1280, 800);
    await wide.locator("#catalogue button", { hasText: "hello-world" }).first().click();
    await expect
      .poll(() => wide.evaluate<string>("window.playground.editor.text()"))
      .toContain("id: hello-world");
    expect(await wide.evaluate<number>("window.scrollY")).toBe(0);
    await wide.close();
    await phone.screenshot({
      path: join(SHOTS, "playground-editor-phone-full.png"),
      fullPage: true,
    });
    await phone.close();
  });

  it("shows a run's status comment whole, its links leading to the sandbox, not to github.com", async () => {
    const act = async (who: string, body: string) => {
      await page.selectOption("#actor", who);
      await page.fill("#comment-body", body);
      await page.click("#comment-send");
    };
    await page.selectOption("#actor", "carol");
    await page.fill("#new-issue-title", "Bump lodash");
    await page.click("#new-issue button[type=submit]");
    await page.waitForSelector("#issue-head h3");
    await act("carol", "/run bump package=lodash");
    await expect
      .poll(() => page.textContent("#issue-head .run"), { timeout: 15_000 })
      .toMatch(/waiting, at approve-plan$/);
    await act("bob", "/approve");
    const merge = page.locator("#pulls li button", { hasText: "Merge" });
    await merge.waitFor({ timeout: 15_000 });
    await merge.click();
    await expect
      .poll(() => page.textContent("#issue-head .run"), { timeout: 15_000 })
      .toMatch(/completed$/);
    const status = page.locator("#thread .comment.bot").first();
    await status.locator("details .diagram svg").waitFor({ state: "attached" });
    await status.evaluate((e) =>
      e.querySelectorAll("details").forEach((d: { open: boolean }) => {
        d.open = true;
      }),
    );
    expect(await status.locator("details[open]").count()).toBe(2);
    // The flowchart is shown whole: nothing cut off below it, no scrolling inside the comment.
    const chart = status.locator("details .diagram");
    const { scrollHeight, clientHeight } = await chart.evaluate((e) => ({
      scrollHeight: e.scrollHeight,
      clientHeight: e.clientHeight,
    }));
    expect(clientHeight).toBeGreaterThan(420);
    expect(scrollHeight).toBeLessThanOrEqual(clientHeight + 1);
    // "Merged in <the pull request's address>": a link to the pull request here.
    const links = await page
      .locator("#thread a")
      .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
    expect(links.some((h) => /^#pull-\d+$/.test(h))).toBe(true);
    expect(links.filter((h) => /github\.com|\u200b/.test(h))).toEqual([]);
    expect(await status.locator("a[href^='#pull-']").textContent()).not.toContain("\u200b");
    await status.screenshot({ path: join(SHOTS, "playground-editor-status-comment.png") });
    await status.locator("a[href^='#pull-']").click();
    await page.locator("#pulls li.flash").waitFor();
    // The thread redrawn (a new comment) keeps what was opened open.
    await act("carol", "Thanks!");
    await page.locator("#thread .comment", { hasText: "Thanks!" }).waitFor();
    expect(await status.locator("details[open]").count()).toBe(2);
  });

  it("sends no request anywhere but the playground, and nothing on the page was refused", async () => {
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((u) => !u.startsWith(`${pg.url}/`) && !u.startsWith("data:"))).toEqual(
      [],
    );
    expect(new URL(pg.url).hostname).toBe("127.0.0.1");
    expect(problems).toEqual([]);
  });
});
