import { describe, expect, it, vi } from "vitest";
import { enableCompileCache } from "../../../src/entries/action/compile-cache.js";

describe("the Action's compile cache", () => {
  it("does nothing where Node has none (Node 20)", () => {
    expect(enableCompileCache("/action/.compile-cache", {}, null)).toBe(false);
  });

  it("is kept in NODE_COMPILE_CACHE when set, else in the directory given (beside the bundle)", () => {
    const enable = vi.fn(() => ({ status: 1 }));
    const at = "/action/.compile-cache";
    expect(enableCompileCache(at, { NODE_COMPILE_CACHE: "/var/cache/node" }, enable)).toBe(true);
    expect(enable).toHaveBeenLastCalledWith("/var/cache/node");
    expect(enableCompileCache(at, { NODE_COMPILE_CACHE: "" }, enable)).toBe(true);
    expect(enable).toHaveBeenLastCalledWith(at);
  });

  it("is on when Node says it is or already was; off when it failed or is disabled", () => {
    const statuses = [0, 1, 2, 3].map((status) =>
      enableCompileCache("/action/.compile-cache", {}, () => ({ status })),
    );
    expect(statuses).toEqual([false, true, true, false]);
  });

  it("never fails the start: a directory Node cannot use leaves it off", () => {
    const refuse = () => {
      throw new Error("EACCES: permission denied, mkdir '/nope'");
    };
    expect(enableCompileCache("/nope", {}, refuse)).toBe(false);
  });
});
