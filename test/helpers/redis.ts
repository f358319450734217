/**
 * A real redis-server for tests: started on a free loopback port in a temporary directory, with
 * persistence off (or an append-only file, to stand in for a Redis that keeps its data across a
 * restart), and stopped afterwards. Without redis-server the tests fail (never skip) and say
 * how to install it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REDIS_INSTALL_HINT =
  "redis-server is not installed; the coordination tests need a real Redis. Install it with: " +
  "apt-get update && apt-get install -y --no-install-recommends redis-server (as root, on Debian or Ubuntu), " +
  "or run `node scripts/ensure-test-packages.mjs`.";

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /**
   * Stops the server (SIGTERM, or SIGKILL with `crash`) and starts it again on the same port and
   * directory: with persistence its data comes back, without it the new server is empty.
   */
  restart(options?: { crash?: boolean; downMs?: number }): Promise<void>;
  /** Stops the server without removing its directory (`resume()` starts it again). */
  pause(options?: { crash?: boolean }): Promise<void>;
  resume(): Promise<void>;
}

/** `none`: nothing kept (the default); `aof`: every write appended and fsynced at once. */
export type RedisPersistence = "none" | "aof";

/** Throws with the install command when redis-server cannot be run. */
export function assertRedisServerInstalled(): void {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) throw new Error(REDIS_INSTALL_HINT);
}

/** A port that was free a moment ago on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

/** Whether the server at the port answers PING with PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

function persistenceArgs(persistence: RedisPersistence): string[] {
  return persistence === "aof"
    ? ["--save", "", "--appendonly", "yes", "--appendfsync", "always"]
    : ["--save", "", "--appendonly", "no"];
}

async function startOn(
  port: number,
  dir: string,
  persistence: RedisPersistence,
): Promise<ChildProcess | undefined> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, ...persistenceArgs(persistence)],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const failed = new Promise<Error>((resolve) => child.once("error", (err) => resolve(err)));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      // Most often the port was taken between the probe and the start: another port is tried.
      if (/Address already in use/i.test(output)) return undefined;
      throw new Error(`redis-server exited with ${child.exitCode}: ${output.trim()}`);
    }
    const spawnError = await Promise.race([
      failed,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 50)),
    ]);
    if (spawnError) throw new Error(`${REDIS_INSTALL_HINT} (${spawnError.message})`);
    if (await pong(port)) return child;
  }
  child.kill("SIGKILL");
  await exited(child);
  throw new Error(`redis-server on port ${port} did not answer PING within 10 s: ${output.trim()}`);
}

/** A fresh redis-server on a free loopback port (or on `port`, to stand in for one stopped). */
export async function startRedis(
  options: { port?: number; persistence?: RedisPersistence } = {},
): Promise<RedisServer> {
  assertRedisServerInstalled();
  const persistence = options.persistence ?? "none";
  const dir = mkdtempSync(join(tmpdir(), "playbook-bot-redis-"));
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = options.port ?? (await freePort());
    const first = await startOn(port, dir, persistence);
    if (first) return managed(first, port, dir, persistence);
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error("redis-server found no free port in 5 attempts");
}

function managed(
  first: ChildProcess,
  port: number,
  dir: string,
  persistence: RedisPersistence,
): RedisServer {
  let child: ChildProcess | undefined = first;
  const halt = async (signal: NodeJS.Signals) => {
    if (!child) return;
    child.kill(signal);
    await exited(child);
    child = undefined;
  };
  const resume = async () => {
    if (child) return;
    // The port was ours a moment ago; a few attempts cover the kernel freeing it.
    for (let attempt = 0; attempt < 20 && !child; attempt++) {
      child = await startOn(port, dir, persistence);
      if (!child) await new Promise((r) => setTimeout(r, 100));
    }
    if (!child) throw new Error(`redis-server could not start again on port ${port}`);
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      await halt("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
    pause: async (o = {}) => halt(o.crash ? "SIGKILL" : "SIGTERM"),
    resume,
    restart: async (o = {}) => {
      await halt(o.crash ? "SIGKILL" : "SIGTERM");
      if (o.downMs) await new Promise((r) => setTimeout(r, o.downMs));
      await resume();
    },
  };
}
