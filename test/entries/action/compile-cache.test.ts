import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { enableCompileCache } from "../../../src/entries/action/compile-cache.js";

describe("the Action's compile cache", () => {
  it("does nothing where Node has none (Node 20)", () => {
    expect(enableCompileCache({}, undefined)).toBe(false);
  });

  it("is kept in NODE_COMPILE_CACHE when set, else in the temporary directory", () => {
    const enable = vi.fn(() => ({ status: 1 }));
    expect(enableCompileCache({ NODE_COMPILE_CACHE: "/var/cache/node" }, enable)).toBe(true);
    expect(enable).toHaveBeenLastCalledWith("/var/cache/node");
    expect(enableCompileCache({ NODE_COMPILE_CACHE: "" }, enable)).toBe(true);
    expect(enable).toHaveBeenLastCalledWith(join(tmpdir(), "playbook-bot-compile-cache"));
  });

  it("is on when Node says it is or already was; off when it failed or is disabled", () => {
    const statuses = [0, 1, 2, 3].map((status) => enableCompileCache({}, () => ({ status })));
    expect(statuses).toEqual([false, true, true, false]);
  });

  it("never fails the start: a directory Node cannot use leaves it off", () => {
    const refuse = () => {
      throw new Error("EACCES: permission denied, mkdir '/nope'");
    };
    expect(enableCompileCache({ NODE_COMPILE_CACHE: "/nope" }, refuse)).toBe(false);
  });
});
