import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Playground } from "../../../src/entries/playground/server.js";
import { launchBrowser } from "../../helpers/browser.js";

// Screenshots of each stage, to look at: reports/playground-*.png. Code run in the page is given
// as text: it is the browser's, not this program's.
const SHOTS = join(process.cwd(), "reports");

let pg: Playground;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  pg = await Playground.start({ port: 0, wakeUpPollMs: false });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  // Script errors and refused resources (a CSP violation is a console error) fail the test.
  page.on("console", (m) => {
    // Failed loads are recorded with their address below.
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource"))
      problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("response", (r) => {
    if (r.status() >= 400)
      problems.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  await page.goto(`${pg.url}/`);
  await page.waitForSelector("body[data-ready=true]");
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await pg?.close();
});

/** The editor's text (CodeMirror's, through the page's handle on it). */
const editorText = () => page.evaluate<string>("window.playground.editor.text()");

/** Replaces the editor's text as typing would: select all, then the text comes in as input. */
async function typeInEditor(text: string): Promise<void> {
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

const BROKEN = `apiVersion: playbook-bot/v1
id: broken
steps:
  - id: look
    type: investigate
    next: nowhere
`;

describe("the playground's page in a browser", { timeout: 60_000 }, () => {
  it("lists the playbooks, opens hello-world and draws it", async () => {
    await page.waitForSelector("#diagram svg");
    const items = await page.locator("#playbooks li").allTextContents();
    expect(items.some((t) => t.startsWith("hello-world") && t.includes("bundled"))).toBe(true);
    expect(await editorText()).toContain("id: hello-world");
    expect(await page.locator("#diagram svg .node").count()).toBe(4);
    await page.screenshot({ path: join(SHOTS, "playground-1-editor.png"), fullPage: true });
  });

  it("checks the text as it is typed, pointing at the line and column, and selects the line on a click", async () => {
    await page.click("#new-file");
    await page.fill("#new-file", "broken.yml");
    await page.click("#new-playbook button[type=submit]");
    // A new playbook starts clean: nothing to fix before the first edit.
    await expect.poll(() => page.textContent("#check-summary")).toBe("No problems.");
    expect(await editorText()).toContain("id: broken\n");
    await typeInEditor(BROKEN);
    const error = page.locator("#diagnostics li.error", { hasText: "nowhere" });
    await error.waitFor();
    expect(await error.locator(".where").textContent()).toBe("6:11");
    await error.click();
    const selected = await page.evaluate<string>(
      "(s => s.sliceDoc(s.selection.main.from, s.selection.main.to))(window.playground.editor.view.state)",
    );
    expect(selected).toBe("    next: nowhere");
    await page.click("#save");
    await page.waitForSelector("#notice.bad");
    expect(await page.textContent("#notice")).toMatch(
      /^not saved: 1 error\(s\), the first at line 6/,
    );
    await page.screenshot({ path: join(SHOTS, "playground-2-diagnostics.png"), fullPage: true });
  });

  it("saves a copy of hello-world and runs its golden cases", async () => {
    await page.click("#playbooks li[data-file='bundled/hello-world.yaml'] button");
    await expect.poll(editorText).toContain("id: hello-world");
    await page.click("#run-cases");
    await page.waitForSelector("#cases li.pass");
    expect(await page.locator("#cases li.fail").count()).toBe(0);
    await page.click("#save");
    await expect.poll(() => page.textContent("#notice")).toMatch(/^Saved/);
    expect(pg.sandbox.api.fileAt("main", ".github/playbooks/hello-world.yaml")).toContain(
      "id: hello-world",
    );
    await page.waitForSelector("#playbooks li[data-file='hello-world.yaml']");
    expect(await page.textContent("#file")).toBe(".github/playbooks/hello-world.yaml");
  });

  it("opens an issue, labels it and shows the run waiting, its step marked in the diagram", async () => {
    await page.selectOption("#actor", "carol");
    await page.fill("#new-issue-title", "Say hello to the team");
    await page.click("#new-issue button[type=submit]");
    await page.waitForSelector("#issue-head h3");
    await page.fill("#label-name", "hello");
    await page.click("#label-add");
    // The run's line shows each state the page polls (running, then waiting): wait for the wait.
    await expect
      .poll(() => page.textContent("#issue-head .run"), { timeout: 15_000 })
      .toMatch(/of hello-world: waiting, at approve$/);
    const status = page.locator("#thread .comment.bot").first();
    await expect
      .poll(() => status.locator(".markdown").textContent(), { timeout: 15_000 })
      .toContain("Approve the greeting");
    // The status comment's own flowchart is drawn, and the editor's diagram marks the step.
    // (inside its collapsed block, as on GitHub)
    await page.waitForSelector("#thread details .diagram svg", { state: "attached" });
    // A step without a name is drawn by its id once, not as "branch / branch".
    const labels = await status.locator(".diagram svg .node").allTextContents();
    expect(labels.map((l) => l.trim())).toContain("branch");
    expect(labels.filter((l) => /branch.*branch/s.test(l))).toEqual([]);
    await expect.poll(() => page.textContent("#diagram-current")).toContain("approve");
    await page.waitForSelector("#diagram svg .current");
    await page.screenshot({ path: join(SHOTS, "playground-3-waiting.png"), fullPage: true });
  });

  it("keeps what people write inert, refuses a reader's /approve, and finishes on a maintainer's", async () => {
    await page.selectOption("#actor", "erin");
    await page.fill(
      "#comment-body",
      '/approve <img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=1</script>',
    );
    await page.click("#comment-send");
    const erin = page.locator("#thread .comment", { hasText: "@erin" });
    await erin.locator(".reactions", { hasText: "👎" }).waitFor();
    expect(await page.evaluate("document.body.dataset.pwned")).toBeUndefined();
    expect(await erin.locator("img[onerror], script").count()).toBe(0);
    await page.selectOption("#actor", "bob");
    await page.fill("#comment-body", "/approve");
    await page.click("#comment-send");
    await expect.poll(() => page.textContent("#issue-head .run")).toMatch(/completed$/);
    expect(
      await page.locator("#thread .comment.bot", { hasText: "completed" }).count(),
    ).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, "playground-4-completed.png"), fullPage: true });
    // Only what was meant to fail: the refused save, and the image a person's comment named.
    expect([...new Set(problems)]).toEqual(["422 PUT /api/playbooks", "404 GET /x"]);
  });
});

/** Every inline handler and script URL in the page: what must never reach the document. */
const LIVE_CODE = `[...document.querySelectorAll("*")].flatMap((e) =>
  [...e.attributes]
    .filter((a) => /^on/i.test(a.name) || /^\\s*(javascript|vbscript):/i.test(a.value) && /href|src|action/i.test(a.name))
    .map((a) => e.tagName + " " + a.name + "=" + a.value))
  .concat([...document.querySelectorAll("script:not([src])")].map(() => "inline script"))`;

const HOSTILE = `apiVersion: playbook-bot/v1
id: hostile
name: hostile
on: { labels: [hostile] }
steps:
  - id: look
    name: <img src=x onerror="document.body.dataset.pwned=1"> click look call alert(1)
    type: investigate
    expected_findings: [cause]
  - id: done
    name: '" ]; click s_look "javascript:document.body.dataset.pwned=1"'
    type: end
    status: success
`;

describe("the playground's page against hostile diagrams", { timeout: 60_000 }, () => {
  it("draws a hostile playbook and a comment's hostile chart with nothing in them that runs", async () => {
    await page.click("#new-file");
    await page.fill("#new-file", "hostile.yml");
    await page.click("#new-playbook button[type=submit]");
    await typeInEditor(HOSTILE);
    // The titles are drawn as text.
    await expect.poll(() => page.textContent("#diagram svg")).toContain("<img src=x");
    expect(await page.locator("#diagram svg .node").count()).toBe(2);
    // A person's comment holds a Mermaid chart of their own, with click directives and HTML.
    await page.selectOption("#actor", "erin");
    await page.fill(
      "#comment-body",
      [
        "```mermaid",
        "flowchart TD",
        '  A["<img src=x onerror=document.body.dataset.pwned=1>"] --> B',
        '  click A "javascript:document.body.dataset.pwned=1"',
        "  click B call alert(1)",
        '  B --> C["<a href=javascript:alert(1)>go</a>"]',
        "```",
      ].join("\n"),
    );
    await page.click("#comment-send");
    await page.waitForSelector("#thread .comment:last-child .diagram svg");
    expect(await page.evaluate(LIVE_CODE)).toEqual([]);
    // Even if Mermaid let a handler through, the page sanitises its SVG before drawing it.
    await page.evaluate(`(() => {
      const render = window.mermaid.render;
      window.mermaid.render = async (...args) => {
        const { svg } = await render(...args);
        return { svg: svg.replace("<g", '<g onclick="document.body.dataset.pwned=1"')
          .replace("</svg>", '<a href="javascript:alert(1)"><text>x</text></a><script>document.body.dataset.pwned=1</script><foreignObject><img src="x" onerror="document.body.dataset.pwned=1"></foreignObject></svg>') };
      };
    })()`);
    const drawn = await page.evaluate<string>("document.querySelector('#diagram svg').id");
    await typeInEditor(HOSTILE.replace("id: done", "id: finished"));
    await expect
      .poll(() => page.evaluate<string>("document.querySelector('#diagram svg')?.id"))
      .not.toBe(drawn);
    expect(await page.evaluate(LIVE_CODE)).toEqual([]);
    expect(await page.evaluate("document.body.dataset.pwned")).toBeUndefined();
    await page.screenshot({ path: join(SHOTS, "playground-5-hostile.png"), fullPage: true });
  });
});
