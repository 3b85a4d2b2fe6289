import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The services in the order a packet meets them. */
export const SERVICES = ["gateway", "intent", "embedding-router", "selector", "reviewer", "executor"] as const;
export type ServiceName = (typeof SERVICES)[number];

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * V8 options every service runs with, here and in deploy/Dockerfile's CMD (a test keeps
 * the two alike). A packet leaves garbage that outlives a scavenge or two and dies in
 * the old generation; by default V8 lets that grow to about four times the live heap
 * before a full collection, so a service's RSS rose by 100–200 MB and fell back every few
 * minutes under load. Collecting at 1.5 times the live heap keeps it flat within a few
 * per cent (docs/performance.md, "soak"), at no cost in throughput (its packet-e2e section,
 * "The old generation").
 */
export const SERVICE_NODE_OPTIONS = ["--heap-growing-percent=50"] as const;

/**
 * The environment of a fleet started on this machine for a test or a benchmark:
 * free ports on loopback, info logs (the services' "ready" line is one), and the
 * repository's switchyard.yaml serving `workspace`, with the MCP servers' and the
 * router's data under `dataDir`.
 */
export function localFleetEnv(workspace: string, dataDir: string): Record<string, string> {
  return {
    HTTP_PORT: "0",
    GRPC_PORT: "0",
    HEALTH_PORT: "0",
    HTTP_HOST: "127.0.0.1",
    HEALTH_HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    SWITCHYARD_CONFIG: `${REPO_ROOT}switchyard.yaml`,
    SWITCHYARD_WORKSPACE: workspace,
    SWITCHYARD_DATA_DIR: dataDir,
    ROUTER_DATA_DIR: `${dataDir}/router`,
  };
}

/** A JSON log line of a service (pino), or the raw text when it is not JSON. */
export type LogRecord = Record<string, unknown> & { msg?: string };

export interface FleetOptions {
  natsUrl: string;
  /** Environment for every service, on top of this process's. */
  env?: Record<string, string>;
  /** Environment per service. */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Node options after SERVICE_NODE_OPTIONS (a later option wins), e.g. `--cpu-prof` for a profile of each process. @default none */
  nodeArgs?: readonly string[];
  /** Which services to start. @default SERVICES */
  services?: readonly ServiceName[];
  /** Called with every log line of every service. */
  onLog?: (service: ServiceName, record: LogRecord, line: string) => void;
  /** How long a service may take to log "ready". @default 30000 */
  readyTimeoutMs?: number;
  /** Processes per service at start. @default 1 each */
  replicas?: Partial<Record<ServiceName, number>>;
  /**
   * A folder holding a service's production bundle (scripts/bundle-service.mjs):
   * the service runs from there, with only the bundle's node_modules, instead of
   * from services/<name> in the workspace.
   */
  bundles?: Partial<Record<ServiceName, string>>;
  /**
   * Each service in its own process group, so that a terminal's Ctrl-C reaches only
   * the caller, which then stops the services itself before NATS. @default false
   */
  detached?: boolean;
  /** Aborted while the fleet starts (Ctrl-C, say): the processes started so far are stopped and startFleet rejects. */
  signal?: AbortSignal;
}

export interface ServiceProcess {
  name: ServiceName;
  child: ChildProcess;
  /** The fields of its "ready" log line (the gateway's ports, for one). */
  ready: LogRecord;
}

export interface Fleet {
  /** The newest process of each service. */
  processes: Map<ServiceName, ServiceProcess>;
  /** Every running process of a service, oldest first (more than one with `replicas`). */
  replicasOf(name: ServiceName): ServiceProcess[];
  /** The gateway's base URL, once it is ready. */
  gatewayUrl(): string;
  /** Kills every process of a service at once (SIGKILL), as a crash would. */
  kill(name: ServiceName): Promise<void>;
  /** Kills one process (SIGKILL). */
  killProcess(process: ServiceProcess): Promise<void>;
  /** Starts a process of the service (again, or one more replica) and waits until it is ready. */
  start(name: ServiceName): Promise<ServiceProcess>;
  /** SIGTERM to every service; waits for all of them to exit. */
  stop(): Promise<void>;
}

/** The gateway's auth settings: any one of them set means the caller chose; none set means local mode. */
const AUTH_SETTINGS = ["AUTH", "API_KEYS", "API_KEYS_FILE"];

/**
 * A fleet on this machine runs in local mode (`AUTH=none`, one tenant, no keys)
 * unless the environment says otherwise, e.g. a test that passes API_KEYS.
 */
function localModeByDefault(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return AUTH_SETTINGS.some((name) => env[name] !== undefined) ? env : { ...env, AUTH: "none" };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Starts each service as its own `node services/<name>/dist/main.js` process and waits until all are ready. */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const processes = new Map<ServiceName, ServiceProcess>();
  const running = new Set<ServiceProcess>();
  /** Processes started and not yet ready: stop() ends them too, so a failed start leaves none behind. */
  const starting = new Set<ChildProcess>();
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;

  const launch = (name: ServiceName): Promise<ServiceProcess> => {
    const bundle = options.bundles?.[name];
    const child = spawn(process.execPath, [...SERVICE_NODE_OPTIONS, ...(options.nodeArgs ?? []), bundle ? "dist/main.js" : `services/${name}/dist/main.js`], {
      cwd: bundle ?? REPO_ROOT,
      env: localModeByDefault({ ...process.env, NATS_URL: options.natsUrl, ...options.env, ...options.serviceEnv?.[name] }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.detached ?? false,
    });
    starting.add(child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // A process that never got ready is not in the fleet, so nothing else would stop it.
        child.kill("SIGKILL");
        reject(new Error(`${name} was not ready within ${readyTimeoutMs} ms`));
      }, readyTimeoutMs);
      const exitedEarly = (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        starting.delete(child);
        reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`));
      };
      child.once("exit", exitedEarly);
      for (const stream of [child.stdout!, child.stderr!]) {
        createInterface({ input: stream }).on("line", (line) => {
          let record: LogRecord;
          try {
            record = JSON.parse(line) as LogRecord;
          } catch {
            record = { msg: line };
          }
          options.onLog?.(name, record, line);
          if (record.msg === "ready") {
            clearTimeout(timer);
            // Only this listener: stop() may already be waiting on the same child's exit.
            child.off("exit", exitedEarly);
            starting.delete(child);
            const started = { name, child, ready: record };
            processes.set(name, started);
            running.add(started);
            resolve(started);
          }
        });
      }
    });
  };

  const fleet: Fleet = {
    processes,
    gatewayUrl() {
      const port = processes.get("gateway")?.ready["httpPort"];
      if (typeof port !== "number") throw new Error("the gateway is not ready");
      return `http://127.0.0.1:${port}`;
    },
    replicasOf(name) {
      return [...running].filter((p) => p.name === name);
    },
    async kill(name) {
      await Promise.all(fleet.replicasOf(name).map((p) => fleet.killProcess(p)));
    },
    async killProcess(target) {
      target.child.kill("SIGKILL");
      await exited(target.child);
      running.delete(target);
      if (processes.get(target.name) === target) processes.delete(target.name);
      const newest = fleet.replicasOf(target.name).at(-1);
      if (newest && !processes.has(target.name)) processes.set(target.name, newest);
    },
    start: launch,
    async stop() {
      const children = [...[...running].map((p) => p.child), ...starting];
      for (const child of children) child.kill("SIGTERM");
      await Promise.all(children.map(exited));
      processes.clear();
      running.clear();
      starting.clear();
    },
  };

  let onAbort = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new Error("the fleet's start was aborted"));
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const names = options.services ?? SERVICES;
    await Promise.race([aborted, Promise.all(names.flatMap((name) => Array.from({ length: options.replicas?.[name] ?? 1 }, () => launch(name))))]);
  } catch (error) {
    await fleet.stop();
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  return fleet;
}
