import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface LocalNats {
  url: string;
  port: number;
  /** JetStream's store; kept across restart() so streams survive like on a real server. */
  dir: string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same store. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

export interface LocalNatsOptions {
  /** The nats-server binary. @default "nats-server" from PATH */
  binary?: string;
  /** How long to wait for it to listen. @default 10000 */
  startTimeoutMs?: number;
}

/** True when a nats-server binary can be run. */
export function natsServerAvailable(binary = "nats-server"): boolean {
  return spawnSync(binary, ["--version"], { stdio: "ignore" }).status === 0;
}

function writeConfig(dir: string, port: number): string {
  const path = join(dir, "nats.conf");
  // port -1 lets the server pick a free port and write it to ports_file_dir,
  // the way nats.js's own test launcher avoids port clashes.
  writeFileSync(
    path,
    [
      `host: 127.0.0.1`,
      `port: ${port}`,
      `ports_file_dir: ${JSON.stringify(dir)}`,
      `jetstream { store_dir: ${JSON.stringify(join(dir, "js"))} }`,
    ].join("\n"),
  );
  return path;
}

async function waitForPort(dir: string, child: ChildProcess, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode}`);
    const file = readdirSync(dir).find((name) => name === `nats-server_${child.pid}.ports`);
    if (file) {
      const ports = JSON.parse(readFileSync(join(dir, file), "utf8")) as { nats: string[] };
      const url = new URL(ports.nats[0]!);
      return Number(url.port);
    }
    await sleep(25);
  }
  throw new Error(`nats-server did not listen within ${timeoutMs} ms`);
}

async function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => child.once("exit", resolve));
}

/** Starts a nats-server with JetStream on a free loopback port, its data in a fresh temp dir. */
export async function startLocalNats(options: LocalNatsOptions = {}): Promise<LocalNats> {
  const binary = options.binary ?? "nats-server";
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const dir = mkdtempSync(join(tmpdir(), "switchyard-nats-"));
  let port = -1;
  let child: ChildProcess;

  const launch = async () => {
    for (const name of readdirSync(dir)) if (name.endsWith(".ports")) rmSync(join(dir, name));
    child = spawn(binary, ["-c", writeConfig(dir, port)], { stdio: "ignore" });
    child.on("error", () => {});
    port = await waitForPort(dir, child, timeoutMs);
  };
  await launch();

  const handle: LocalNats = {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    async kill() {
      child.kill("SIGKILL");
      await waitForExit(child);
    },
    async restart() {
      await launch();
    },
    async stop() {
      child.kill("SIGTERM");
      await waitForExit(child);
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}
