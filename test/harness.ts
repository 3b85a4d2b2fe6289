import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { natsServerAvailable, startLocalNats, startLocalNatsCluster } from "@switchyard/local-nats";
import type { LocalNats, LocalNatsCluster } from "@switchyard/local-nats";
import { localFleetEnv, startFleet } from "@switchyard/fleet";
import type { Fleet, FleetOptions, ServiceName } from "@switchyard/fleet";

const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** An HTTP answer of the gateway: status, headers, body as text and parsed (undefined when not JSON). */
export interface Reply {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

export interface TestFleet {
  /** The fleet's nats-server; in a cluster (`natsCluster`), its first member. */
  nats: LocalNats;
  /** The cluster, when the fleet runs on one. */
  cluster: LocalNatsCluster | undefined;
  /** What the services were given as NATS_URL: every member of a cluster. */
  natsUrl: string;
  fleet: Fleet;
  /** A copy of examples/workspace that the filesystem MCP server serves. */
  workspace: string;
  /** Where the memory MCP server keeps its file. */
  dataDir: string;
  url: string;
  logs: string[];
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  delete(path: string, headers?: Record<string, string>): Promise<Reply>;
  close(): Promise<void>;
}

/** Why a fleet test cannot run here, or undefined when it can. */
export function fleetSkipReason(): string | undefined {
  return natsServerAvailable() ? undefined : "no nats-server on PATH (apt-get install nats-server)";
}

export interface TestFleetOptions extends Partial<FleetOptions> {
  /**
   * The NATS URL the services get, given the test's nats-server: a fault proxy in
   * front of it, for one. Default: the server's own URL.
   */
  natsUrlForServices?: (nats: LocalNats) => string | Promise<string>;
  /** Members of a JetStream cluster on loopback to run on, instead of one server; its streams get as many replicas. */
  natsCluster?: number;
}

/**
 * Starts a private nats-server and the six services as processes, serving a
 * fresh copy of examples/workspace through the real MCP filesystem server.
 */
export async function startTestFleet(testOptions: TestFleetOptions = {}): Promise<TestFleet> {
  const { natsUrlForServices, natsCluster, ...options } = testOptions;
  const cluster = natsCluster ? await startLocalNatsCluster(natsCluster) : undefined;
  const nats = cluster ? cluster.servers.get("n1")! : await startLocalNats();
  const stopNats = () => (cluster ? cluster.stop() : nats.stop());
  const natsUrl = natsUrlForServices ? await natsUrlForServices(nats) : (cluster?.url ?? nats.url);
  const workspace = mkdtempSync(join(tmpdir(), "switchyard-ws-"));
  cpSync(join(REPO_ROOT, "examples/workspace"), workspace, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-data-"));
  const logs: string[] = [];
  let fleet: Fleet;
  try {
    fleet = await startFleet({
      natsUrl,
      ...options,
      env: { ...localFleetEnv(workspace, dataDir), ...(cluster ? { JETSTREAM_REPLICAS: String(natsCluster) } : {}), ...options.env },
      onLog: (service: ServiceName, _record, line) => {
        logs.push(`${service} | ${line}`);
      },
    });
  } catch (error) {
    await stopNats();
    throw new Error(`${String(error)}\n${logs.join("\n")}`, { cause: error });
  }
  const url = fleet.gatewayUrl();
  const call = async (path: string, init?: RequestInit): Promise<Reply> => {
    const response = await fetch(`${url}${path}`, init);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json, text };
  };
  return {
    nats,
    cluster,
    natsUrl,
    fleet,
    workspace,
    dataDir,
    url,
    logs,
    post: (path, body, headers = {}) =>
      call(path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    get: (path, headers = {}) => call(path, { headers }),
    delete: (path, headers = {}) => call(path, { method: "DELETE", headers }),
    async close() {
      await fleet.stop();
      await stopNats();
      rmSync(workspace, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
