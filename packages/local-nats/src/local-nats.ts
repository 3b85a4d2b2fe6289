import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface LocalNats {
  url: string;
  port: number;
  /** The server's folder, JetStream's store in it; kept across restart() so streams survive like on a real server. */
  dir: string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same store. */
  restart(): Promise<void>;
  /** Stops it, and removes its folder unless the caller gave it (`dataDir`). */
  stop(): Promise<void>;
}

export interface LocalNatsOptions {
  /** The nats-server binary. @default "nats-server" from PATH */
  binary?: string;
  /** How long to wait for it to listen. @default 10000 */
  startTimeoutMs?: number;
  /**
   * A folder that keeps the server's JetStream data from one run to the next; stop()
   * leaves it. @default a fresh temp folder, removed by stop()
   */
  dataDir?: string;
  /**
   * Run the server in its own process group, so that a terminal's Ctrl-C reaches only
   * the caller, which can then stop its NATS clients before the server. @default false
   */
  detached?: boolean;
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

/** The pid of a nats-server still running on `dir` (its ports file names it), or undefined. */
export function runningNatsPid(dir: string): number | undefined {
  if (!existsSync(dir)) return undefined;
  for (const name of readdirSync(dir)) {
    const pid = Number(/^nats-server_(\d+)\.ports$/.exec(name)?.[1]);
    if (pid > 0 && alive(pid)) return pid;
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
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

/** Starts a nats-server with JetStream on a free loopback port, its data in `dataDir` or a fresh temp dir. */
export async function startLocalNats(options: LocalNatsOptions = {}): Promise<LocalNats> {
  const binary = options.binary ?? "nats-server";
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), "switchyard-nats-"));
  mkdirSync(dir, { recursive: true });
  // Two servers on one JetStream store would corrupt it.
  const running = runningNatsPid(dir);
  if (running !== undefined) throw new Error(`a nats-server (pid ${running}) already keeps its data in ${dir}`);
  let port = -1;
  let child: ChildProcess;

  const launch = async () => {
    for (const name of readdirSync(dir)) if (name.endsWith(".ports")) rmSync(join(dir, name));
    child = spawn(binary, ["-c", writeConfig(dir, port)], { stdio: "ignore", detached: options.detached ?? false });
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
      if (options.dataDir === undefined) rmSync(dir, { recursive: true, force: true });
      else for (const name of readdirSync(dir)) if (name.endsWith(".ports")) rmSync(join(dir, name));
    },
  };
  return handle;
}
