import { enableCompileCache } from "./compile-cache.js";

// The runner starts this file. The compile cache must be on before the bundle's modules load,
// so they are imported once it is.
enableCompileCache();
await import("./start.js");
