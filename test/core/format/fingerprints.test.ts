import { describe, expect, it } from "vitest";
import {
  digest,
  lineHashes,
  withoutPositions,
} from "../../../src/core/format/report/fingerprints.js";

// The expected hashes are the test vectors of GitHub's upload-sarif action (its
// src/fingerprints.test.ts): the same values prove the same algorithm.
describe("lineHashes (primaryLocationLineHash)", () => {
  it("hashes an empty file's one line", () => {
    expect(lineHashes("")).toEqual(["c129715d7a2bc9a3:1"]);
  });

  it("ignores spaces and tabs", () => {
    expect(lineHashes(" a\nb\n  \t\tc\n d")).toEqual([
      "271789c17abda88f:1",
      "54703d4cd895b18:1",
      "180aee12dab6264:1",
      "a23a3dc5e078b07b:1",
    ]);
    expect(lineHashes(" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End")).toEqual([
      "8b7cf3e952e7aeb2:1",
      "b1ae1287ec4718d9:1",
      "bff680108adb0fcc:1",
      "c6805c5e1288b612:1",
      "b86d3392aea1be30:1",
      "e6ceba753e1a442:1",
    ]);
  });

  it("reads \\n, \\r and \\r\\n alike", () => {
    const expected = [
      "e9496ae3ebfced30:1",
      "fb7c023a8b9ccb3f:1",
      "ce8ba1a563dcdaca:1",
      "e20e36e16fcb0cc8:1",
      "b3edc88f2938467e:1",
      "c8e28b0b4002a3a0:1",
      "c129715d7a2bc9a3:1",
    ];
    for (const text of [
      " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n",
      " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
      " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n",
      " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n",
    ])
      expect(lineHashes(text)).toEqual(expected);
  });

  it("numbers lines whose hashes are equal", () => {
    expect(lineHashes("Lorem ipsum dolor sit amet.\n".repeat(10))).toEqual([
      "a7f2ff13bc495cf2:1",
      "a7f2ff13bc495cf2:2",
      "a7f2ff13bc495cf2:3",
      "a7f2ff13bc495cf2:4",
      "a7f2ff13bc495cf2:5",
      "a7f2ff13bc495cf2:6",
      "a7f2ff1481e87703:1",
      "a9cf91f7bbf1862b:1",
      "55ec222b86bcae53:1",
      "cc97dc7b1d7d8f7b:1",
      "c129715d7a2bc9a3:1",
    ]);
  });
});

describe("digest", () => {
  it("is stable, 16 hex digits, and keeps the parts apart", () => {
    expect(digest(["a", "b"])).toMatch(/^[0-9a-f]{16}$/);
    expect(digest(["a", "b"])).toBe(digest(["a", "b"]));
    expect(digest(["ab", ""])).not.toBe(digest(["a", "b"]));
    expect(digest([])).toBe("cbf29ce484222325");
  });
});

describe("withoutPositions", () => {
  it("drops the line and column numbers a message cites, and nothing else", () => {
    expect(withoutPositions("first at line 7, column 3")).toBe("first at line N, column N");
    expect(withoutPositions("already used at Line 12")).toBe("already used at Line N");
    expect(withoutPositions("max_steps 50 exceeded")).toBe("max_steps 50 exceeded");
  });
});
