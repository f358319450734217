import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/entries/cli/main.js";
import { cleanup, makeDir } from "../helpers/git-repo.js";

/**
 * Files replaced while they are being read (between the look and the open): another process
 * swaps a playbook, or the folder above it, for a link out of the checkout as fast as it can,
 * while `validate` reads it again and again. Whatever it catches, nothing from outside is read.
 */

afterEach(cleanup);

const SECRET = "s3cret-outside-the-checkout";
const PLAYBOOK = `apiVersion: playbook-bot/v1
id: fine
description: A playbook committed as a file.
steps:
  - id: done
    type: end
    description: Nothing to do.
`;

/** A child process that swaps `target` between `a` and `b` (renames: each swap is atomic). */
function swapper(target: string, a: string, b: string): ChildProcess {
  const code = `
    const fs = require("node:fs");
    const [target, a, b] = process.argv.slice(1);
    const stage = (from, to) => { fs.rmSync(to, { recursive: true, force: true }); fs.cpSync(from, to, { verbatimSymlinks: true, recursive: true }); };
    const end = Date.now() + 15000;
    let n = 0;
    while (Date.now() < end) {
      const from = n++ % 2 ? a : b;
      stage(from, target + ".next");
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(target + ".next", target);
    }`;
  return spawn(process.execPath, ["-e", code, target, a, b], { stdio: "ignore" });
}

async function validateMany(repo: string, times: number): Promise<string> {
  let all = "";
  for (let i = 0; i < times; i++) {
    await main(["validate", "--no-library"], {
      out: (t) => void (all += t),
      err: (t) => void (all += t),
      cwd: repo,
    });
  }
  return all;
}

function layout(): { base: string; repo: string } {
  const base = makeDir("pb-race-");
  const repo = join(base, "repo");
  mkdirSync(join(repo, ".github", "playbooks"), { recursive: true });
  mkdirSync(join(base, "outside", "playbooks"), { recursive: true });
  // A playbook the validator would quote the secret line of, if it ever read it.
  const quoted = `${PLAYBOOK}    nope: ${SECRET}\n`;
  writeFileSync(join(base, "outside", "playbooks", "fine.yaml"), quoted);
  writeFileSync(join(base, "outside", "secret.yaml"), quoted);
  return { base, repo };
}

describe("a file swapped for a link while validate reads it", () => {
  it("never yields a byte from outside: the file, or the folder above it", async () => {
    const { base, repo } = layout();
    const stash = join(base, "stash");
    mkdirSync(join(stash, "file"), { recursive: true });
    mkdirSync(join(stash, "link"), { recursive: true });
    writeFileSync(join(stash, "file", "x"), PLAYBOOK);
    symlinkSync(join(base, "outside", "secret.yaml"), join(stash, "link", "x"));
    const target = join(repo, ".github", "playbooks", "fine.yaml");
    const fileSwap = swapper(target, join(stash, "file", "x"), join(stash, "link", "x"));
    // The folder above: a real folder with the playbook, or a link to the outside folder.
    mkdirSync(join(stash, "dir", "real"), { recursive: true });
    writeFileSync(join(stash, "dir", "real", "other.yaml"), PLAYBOOK.replace("fine", "other"));
    symlinkSync(join(base, "outside", "playbooks"), join(stash, "dir", "link"));
    const dir = join(repo, "playbooks");
    const dirSwap = swapper(dir, join(stash, "dir", "real"), join(stash, "dir", "link"));
    try {
      const out = await validateMany(repo, 150);
      expect(out).not.toContain(SECRET);
      // The swaps were seen: some reads found a refused or missing file, some the playbook.
      expect(out).toMatch(/valid/);
    } finally {
      fileSwap.kill();
      dirSwap.kill();
    }
  }, 60_000);
});
