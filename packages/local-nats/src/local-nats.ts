import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
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
  /** Resolves once its JetStream is usable (a cluster member: once the cluster has a meta leader). */
  jetStreamReady(): Promise<void>;
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
  /** A member of a JetStream cluster on loopback (startLocalNatsCluster sets it). */
  cluster?: ClusterMembership;
}

export interface ClusterMembership {
  /** The cluster's name, the same for every member. */
  name: string;
  /** This server's name, unique in the cluster; JetStream reports stream and consumer leaders by it. */
  serverName: string;
  /** The port this server takes routes on. */
  port: number;
  /** The route ports of every member, this one included (a server ignores the route to itself). */
  routes: number[];
}

/** True when a nats-server binary can be run. */
export function natsServerAvailable(binary = "nats-server"): boolean {
  return natsServerVersion(binary) !== undefined;
}

/** The nats-server binary's version as [major, minor, patch] ("nats-server: v2.9.10"), or undefined when it cannot be run. */
export function natsServerVersion(binary = "nats-server"): [number, number, number] | undefined {
  const run = spawnSync(binary, ["--version"], { encoding: "utf8" });
  const match = /v(\d+)\.(\d+)\.(\d+)/.exec(run.stdout ?? "");
  return run.status === 0 && match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function writeConfig(dir: string, port: number, cluster: ClusterMembership | undefined): string {
  const path = join(dir, "nats.conf");
  // port -1 lets the server pick a free port and write it to ports_file_dir,
  // the way nats.js's own test launcher avoids port clashes.
  const lines = [
    `host: 127.0.0.1`,
    `port: ${port}`,
    `ports_file_dir: ${JSON.stringify(dir)}`,
    `jetstream { store_dir: ${JSON.stringify(join(dir, "js"))} }`,
  ];
  if (cluster) {
    const routes = cluster.routes.map((route) => `nats-route://127.0.0.1:${route}`);
    lines.push(
      // The monitoring port answers /healthz, which turns 200 once JetStream is usable (a meta leader is elected).
      `http: "127.0.0.1:-1"`,
      `server_name: ${JSON.stringify(cluster.serverName)}`,
      `cluster { name: ${JSON.stringify(cluster.name)}, listen: "127.0.0.1:${cluster.port}", routes: ${JSON.stringify(routes)} }`,
    );
  }
  writeFileSync(path, lines.join("\n"));
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

interface ListenPorts {
  /** The client port. */
  port: number;
  /** The monitoring endpoint, when the server has one. */
  monitorUrl: string | undefined;
}

async function waitForPort(dir: string, child: ChildProcess, timeoutMs: number): Promise<ListenPorts> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode}`);
    const file = readdirSync(dir).find((name) => name === `nats-server_${child.pid}.ports`);
    // The server may be writing the file still: an empty or partial one is read again.
    const text = file ? readFileSync(join(dir, file), "utf8") : "";
    if (text.endsWith("}")) {
      const ports = JSON.parse(text) as { nats: string[]; monitoring?: string[] };
      return { port: Number(new URL(ports.nats[0]!).port), monitorUrl: ports.monitoring?.[0] };
    }
    await sleep(25);
  }
  throw new Error(`nats-server did not listen within ${timeoutMs} ms`);
}

/** Waits until the server's /healthz says JetStream is usable: in a cluster, once a meta leader is elected. */
async function waitForJetStream(monitorUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const healthy = await fetch(`${monitorUrl}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    await sleep(100);
  }
  throw new Error(`nats-server's JetStream was not ready within ${timeoutMs} ms`);
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
  let monitorUrl: string | undefined;
  let child: ChildProcess;

  const launch = async () => {
    for (const name of readdirSync(dir)) if (name.endsWith(".ports")) rmSync(join(dir, name));
    child = spawn(binary, ["-c", writeConfig(dir, port, options.cluster)], { stdio: "ignore", detached: options.detached ?? false });
    child.on("error", () => {});
    ({ port, monitorUrl } = await waitForPort(dir, child, timeoutMs));
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
    async jetStreamReady() {
      // A single server's JetStream is up once it listens; a cluster member reports on /healthz.
      if (monitorUrl) await waitForJetStream(monitorUrl, timeoutMs);
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

export interface LocalNatsCluster {
  /** The members, by server name ("n1", "n2", …). */
  servers: Map<string, LocalNats>;
  /** Every member's client URL, comma-separated, as NATS_URL takes them. */
  url: string;
  /** Stops every member and removes their folders. */
  stop(): Promise<void>;
}

/** A free TCP port on loopback (a cluster's route ports must stay the same across restarts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A JetStream cluster of `size` nats-servers on loopback, each with its own store, as
 * production runs it (three servers, streams with three replicas); its members can be
 * killed and restarted one at a time.
 */
export async function startLocalNatsCluster(size = 3, options: LocalNatsOptions = {}): Promise<LocalNatsCluster> {
  const routes = await Promise.all(Array.from({ length: size }, freePort));
  const servers = new Map<string, LocalNats>();
  try {
    await Promise.all(
      routes.map(async (port, i) => {
        const serverName = `n${i + 1}`;
        servers.set(serverName, await startLocalNats({ ...options, cluster: { name: "switchyard", serverName, port, routes } }));
      }),
    );
    await Promise.all([...servers.values()].map((server) => server.jetStreamReady()));
  } catch (error) {
    await Promise.all([...servers.values()].map((server) => server.stop()));
    throw error;
  }
  return {
    servers,
    url: [...servers.values()].map((server) => server.url).join(","),
    async stop() {
      await Promise.all([...servers.values()].map((server) => server.stop()));
    },
  };
}
