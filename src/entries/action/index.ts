import { fileURLToPath } from "node:url";
import { enableCompileCache } from "./compile-cache.js";

// The runner starts this file. The compile cache must be on before the bundle's modules load,
// so they are imported once it is; it is kept beside the bundle.
enableCompileCache(fileURLToPath(new URL(".compile-cache", import.meta.url)));
await import("./start.js");
