import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

// The supported Node versions are the lowest release of each line `engines` admits (the Actions
// runtime's Node 24 among them): every package `npm ci` installs must accept each, or `npm ci`
// warns EBADENGINE and a dependency may use what that Node lacks.
const root = join(import.meta.dirname, "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

const supported = manifest.engines.node
  .split("||")
  .map((line) => semver.minVersion(line)?.version ?? line);

function nodeRange(entry: { engines?: { node?: string } | string[] }): string | undefined {
  return Array.isArray(entry.engines) ? undefined : entry.engines?.node;
}

describe("the engines the package declares", () => {
  it("name the lowest release of Node 20, 22 and 24 the package supports", () => {
    expect(supported).toEqual(["20.19.0", "22.13.0", "24.0.0"]);
  });

  it("are accepted by every package in the lock file", () => {
    const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = nodeRange(entry);
      if (!path || range === undefined) return [];
      return supported
        .filter((version) => !semver.satisfies(version, range, { includePrerelease: true }))
        .map(
          (version) =>
            `${path.replace(/^.*node_modules\//, "")} needs node ${range} (not ${version})`,
        );
    });
    expect(refused).toEqual([]);
  });
});
