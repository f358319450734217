import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Playground } from "../../../src/entries/playground/server.js";
import { launchBrowser } from "../../helpers/browser.js";

// The README's picture of a status comment, taken from the playground's page: a bundled playbook
// run to its checkpoint, and the run's status comment as the page renders it. With
// UPDATE_SCREENSHOTS=1 the picture is taken again (install an emoji font first, e.g. Debian's
// fonts-noto-color-emoji, or the status icon is drawn as a box); otherwise the committed one is
// checked.
const PICTURE = join(import.meta.dirname, "..", "..", "..", "docs", "images", "status-comment.png");
const UPDATE = process.env.UPDATE_SCREENSHOTS === "1";

let pg: Playground;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  pg = await Playground.start({ port: 0, wakeUpPollMs: false });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  await page.goto(`${pg.url}/`);
  await page.waitForSelector("body[data-ready=true]");
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await pg?.close();
});

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const png = readFileSync(file);
  expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
  expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe("the README's picture of a status comment", { timeout: 60_000 }, () => {
  it("is taken of a hello-world run's status comment, waiting at its checkpoint", async () => {
    await page.selectOption("#actor", "carol");
    await page.fill("#new-issue-title", "Say hello to the team");
    await page.click("#new-issue button[type=submit]");
    await page.waitForSelector("#issue-head h3");
    await page.fill("#label-name", "hello");
    await page.click("#label-add");
    const status = page.locator("#thread [data-status-comment]");
    await expect
      .poll(() => status.locator(".markdown").textContent(), { timeout: 15_000 })
      .toContain("Approve the greeting");
    expect(await status.count()).toBe(1);
    // Its flowchart, collapsed as on GitHub, opened for the picture.
    await status
      .locator("details", { has: page.locator(".diagram") })
      .evaluate((d) => d.setAttribute("open", ""));
    await status.locator(".diagram svg").first().waitFor();
    const box = await status.boundingBox();
    expect(box?.width).toBeGreaterThan(300);
    if (UPDATE) await status.screenshot({ path: PICTURE });
    expect(existsSync(PICTURE), `${PICTURE}: run with UPDATE_SCREENSHOTS=1 to take it`).toBe(true);
    const { width, height } = pngSize(PICTURE);
    // A whole comment at the page's width: wide enough to read, taller than a line or two.
    expect(width).toBeGreaterThan(300);
    expect(width).toBeLessThan(1600);
    expect(height).toBeGreaterThan(200);
    expect(height).toBeLessThan(3000);
  });
});
