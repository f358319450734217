// `npm pack` and `npm publish` (prepack): empties dist/ before `prepare` builds it again, so the
// package holds what the sources build now and nothing an older build left behind. The Action's
// bundle, dist/action/, is committed and stays.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
let entries = [];
try {
  entries = readdirSync(dist);
} catch {
  // No dist/ yet: nothing to clean.
}
for (const entry of entries) {
  if (entry !== "action") rmSync(join(dist, entry), { recursive: true, force: true });
}
