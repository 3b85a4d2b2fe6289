// `pnpm start`'s script run as a terminal runs it, for the tests that start the fleet the
// way a reader does (test/start.test.ts, test/readme.test.ts).
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** A base port with it and the five after it free on loopback, as `pnpm start` needs. */
export async function freePortRun(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const free = await Promise.all(
      Array.from({ length: 6 }, (_, i) => new Promise<boolean>((resolve) => {
        const server = createServer().once("error", () => resolve(false));
        server.listen(base + i, "127.0.0.1", () => server.close(() => resolve(true)));
      })),
    );
    if (free.every(Boolean)) return base;
  }
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `pnpm start`'s script in its own process group, as a terminal runs it; resolves once it printed `until` (its banner's last line). */
export async function start(env: Record<string, string>, until = "Ctrl-C stops it"): Promise<Started> {
  const child = spawn(process.execPath, ["scripts/start.mjs"], { cwd: REPO_ROOT, env: { ...process.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!text.includes(until)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`pnpm start did not come up:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => text, exited };
}

/** Ctrl-C in a terminal: SIGINT to the whole foreground process group. */
export function ctrlC(started: Started): Promise<number | null> {
  process.kill(-started.child.pid!, "SIGINT");
  return started.exited;
}

