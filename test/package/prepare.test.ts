import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { changedSince, reasonToBuild, STAMP } from "../../scripts/prepare.mjs";

const PREPARE = join(import.meta.dirname, "..", "..", "scripts", "prepare.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A package with sources, whose build counts its runs and ends by stamping, as ours does. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "pb-prepare-"));
  dirs.push(dir);
  mkdirSync(join(dir, "scripts"));
  mkdirSync(join(dir, "src", "core"), { recursive: true });
  mkdirSync(join(dir, "dist"));
  copyFileSync(PREPARE, join(dir, "scripts", "prepare.mjs"));
  writeFileSync(join(dir, "src", "core", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(dir, "src", "core", "b.ts"), "export const b = 2;\n");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "prepared",
      version: "1.0.0",
      scripts: {
        build: `node -e "require('fs').appendFileSync('builds.txt', 'built\\\\n')" && node scripts/prepare.mjs --stamp`,
        prepare: "node scripts/prepare.mjs",
      },
    }),
  );
  return dir;
}

/** Sets a path's times `secondsAgo` in the past (a checkout or an edit made before the build). */
function age(path: string, secondsAgo: number): void {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, t, t);
}

function prepare(dir: string): { out: string; builds: number } {
  const r = spawnSync(process.execPath, [join(dir, "scripts", "prepare.mjs")], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
  expect(r.status, r.stderr).toBe(0);
  let builds = 0;
  try {
    builds = readFileSync(join(dir, "builds.txt"), "utf8").split("\n").filter(Boolean).length;
  } catch {
    // not built yet
  }
  return { out: r.stdout, builds };
}

/** Every path of the project older than now, as files are some time after a checkout. */
function settle(dir: string): void {
  for (const p of [
    "src/core/a.ts",
    "src/core/b.ts",
    "src/core",
    "src",
    "scripts/prepare.mjs",
    "scripts",
    "package.json",
  ])
    age(join(dir, p), 60);
}

describe("npm's prepare (scripts/prepare.mjs)", () => {
  it("builds once, then not again until a source changes: npx's second install of a clone costs no build", () => {
    const dir = project();
    settle(dir);
    const first = prepare(dir);
    expect(first.out).toContain("building dist/: no build recorded");
    expect(first.builds).toBe(1);

    // What npx does on the first `npx playbook-bot` in a clone: prepare again, nothing changed.
    const second = prepare(dir);
    expect(second.out).toContain("not built again");
    expect(second.builds).toBe(1);

    // An edit after the build: built again, naming the file.
    writeFileSync(join(dir, "src", "core", "a.ts"), "export const a = 3;\n");
    const third = prepare(dir);
    expect(third.out).toContain(`building dist/: ${join("src", "core", "a.ts")} changed`);
    expect(third.builds).toBe(2);
  });

  it("a source removed or added counts as a change (its folder's list changed)", () => {
    const dir = project();
    settle(dir);
    writeFileSync(join(dir, STAMP), "built\n");
    expect(reasonToBuild(dir)).toBeUndefined();

    rmSync(join(dir, "src", "core", "b.ts"));
    expect(reasonToBuild(dir)).toBe(`${join("src", "core")} changed since the last build`);

    age(join(dir, "src", "core"), 60);
    expect(reasonToBuild(dir)).toBeUndefined();
    writeFileSync(join(dir, "src", "c.ts"), "export const c = 4;\n");
    expect(changedSince(dir, Date.now() - 30_000)).toBe("src");
  });

  it("an input the checkout does not have is no change; a missing stamp is a reason", () => {
    const dir = project();
    settle(dir);
    expect(reasonToBuild(dir)).toBe("no build recorded");
    expect(changedSince(dir, Date.now() - 30_000, ["tsconfig.editor.json", "src"])).toBeUndefined();
  });
});
