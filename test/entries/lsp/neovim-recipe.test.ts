import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The Neovim recipe of docs/editors.md, as written there, in the Neovim the machine has (Debian's 0.7.2 in
// CI): the only change is the server's command, the built CLI instead of `npx` (no network).
const root = join(import.meta.dirname, "..", "..", "..");
const BIN = join(root, "bin", "playbook-bot.js");

function editorsPageRecipe(): string {
  const page = readFileSync(join(root, "docs", "editors.md"), "utf8");
  const from = page.indexOf("**Neovim** 0.7 and later");
  const block = /```lua\n([\s\S]*?)```/.exec(page.slice(from));
  if (from < 0 || !block?.[1]) throw new Error("docs/editors.md has no Neovim 0.7 recipe");
  return block[1];
}

const CHECK = `vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, (d.lnum + 1) .. ":" .. (d.col + 1) .. " " .. d.message)
end
vim.fn.writefile(out, vim.env.DIAGNOSTICS)
vim.cmd("qa!")
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-nvim-"));
  mkdirSync(join(dir, ".git"));
  mkdirSync(join(dir, ".github", "playbooks"), { recursive: true });
  writeFileSync(
    join(dir, ".github", "playbooks", "one.yaml"),
    "apiVersion: playbook-bot/v1\nid: one\nname: One\non:\n  label: one\nsteps:\n  - id: done\n    type: end\n    status: success\n",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the Neovim recipe in docs/editors.md", () => {
  it("is the one for 0.7 and later, and uses nothing newer", () => {
    const recipe = editorsPageRecipe();
    expect(recipe).toContain('cmd = { "npx", "playbook-bot", "lsp", "--stdio" }');
    // vim.lsp.start (0.8), vim.fs (0.8) and vim.lsp.config/enable (0.11) are not in Debian's 0.7.
    expect(recipe).not.toMatch(/vim\.lsp\.start\(|vim\.fs\.|vim\.lsp\.config|vim\.lsp\.enable/);
  });

  it("shows a playbook's mistake at its line and column in Debian's Neovim", () => {
    const version = spawnSync("nvim", ["--version"], { encoding: "utf8" });
    expect(version.status, "nvim is installed (apt-get install neovim)").toBe(0);
    const recipe = editorsPageRecipe().replace(
      '{ "npx", "playbook-bot", "lsp", "--stdio" }',
      `{ ${JSON.stringify(process.execPath)}, ${JSON.stringify(BIN)}, "lsp", "--stdio" }`,
    );
    writeFileSync(join(dir, "init.lua"), recipe);
    writeFileSync(join(dir, "check.lua"), CHECK);
    const diagnostics = join(dir, "diagnostics.txt");
    const r = spawnSync(
      "nvim",
      ["--headless", "-u", "init.lua", "-c", "luafile check.lua", ".github/playbooks/one.yaml"],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, DIAGNOSTICS: diagnostics },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(diagnostics, "utf8")).toContain(
      "5:3 on.label: unknown field 'label' for on — did you mean 'labels'?",
    );
  });
});
