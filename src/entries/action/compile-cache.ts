import * as nodeModule from "node:module";

// `module.constants.compileCacheStatus` (Node 22.1+): FAILED 0, ENABLED 1, ALREADY_ENABLED 2, DISABLED 3.
const ENABLED = 1;
const ALREADY_ENABLED = 2;

/** What Node 22.1+ offers (`module.enableCompileCache`); absent on Node 20. */
type EnableCompileCache = (directory?: string) => { status: number; message?: string };

/**
 * Turns on Node's compile cache for the modules loaded after this call (the Action's bundle): V8's
 * code for them is kept on disk and the next start on the same machine skips compiling it. The
 * directory is NODE_COMPILE_CACHE when set, else `directory`: beside the bundle, where only the
 * runner's own user writes (a shared temporary directory would let another user of a self-hosted
 * runner plant code); NODE_DISABLE_COMPILE_CACHE=1 turns it off. On Node 20, or when the directory
 * cannot be used, nothing changes: it only makes a start faster, never makes one fail. Returns
 * whether it is on.
 */
export function enableCompileCache(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
  enable: EnableCompileCache | null = (nodeModule as { enableCompileCache?: EnableCompileCache })
    .enableCompileCache ?? null,
): boolean {
  if (enable === null) return false;
  try {
    const { status } = enable(env.NODE_COMPILE_CACHE || directory);
    return status === ENABLED || status === ALREADY_ENABLED;
  } catch {
    return false;
  }
}
