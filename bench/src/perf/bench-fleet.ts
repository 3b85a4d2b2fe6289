/**
 * The services as separate processes on a private nats-server, for the HTTP benches:
 * the fleet tests' setup (test/harness.ts) without the test parts, with the catalog
 * optionally filled before the router starts, so that "ready" means indexed.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "@nats-io/transport-node";
import { CATALOG_BUCKET, openBucket, putTool } from "@switchyard/bus";
import { localFleetEnv, startFleet } from "@switchyard/fleet";
import type { Fleet, ServiceName } from "@switchyard/fleet";
import { runningNatsPid, startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import type { ToolDefinition } from "@switchyard/packet";
import { descendants } from "./process-usage.js";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Catalog writes in flight at once while filling it. */
const PUT_BATCH = 256;

export interface BenchFleet {
  nats: LocalNats;
  fleet: Fleet;
  url: string;
  /** The copy of examples/workspace the filesystem MCP server serves. */
  workspace: string;
  close(): Promise<void>;
}

export interface BenchFleetOptions {
  services?: readonly ServiceName[];
  /** Tools written to the catalog bucket before the services start. */
  catalog?: readonly ToolDefinition[];
  env?: Record<string, string>;
  /** Node options for every service (FleetOptions.nodeArgs). */
  nodeArgs?: readonly string[];
}

export async function startBenchFleet(options: BenchFleetOptions = {}): Promise<BenchFleet> {
  const nats = await startLocalNats();
  const workspace = mkdtempSync(join(tmpdir(), "switchyard-bench-ws-"));
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-bench-data-"));
  const cleanUp = async () => {
    await nats.stop();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
  const logs: string[] = [];
  try {
    cpSync(join(REPO_ROOT, "examples/workspace"), workspace, { recursive: true });
    if (options.catalog) await fillCatalog(nats.url, options.catalog);
    const fleet = await startFleet({
      natsUrl: nats.url,
      services: options.services,
      ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
      readyTimeoutMs: 300_000,
      env: { ...localFleetEnv(workspace, dataDir), ...options.env },
      onLog: (service, _record, line) => {
        logs.push(`${service} | ${line}`);
        if (logs.length > 200) logs.shift();
      },
    });
    return {
      nats,
      fleet,
      url: fleet.gatewayUrl(),
      workspace,
      async close() {
        await fleet.stop();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw new Error(`the fleet did not start: ${String(error)}\n${logs.slice(-30).join("\n")}`, { cause: error });
  }
}

/**
 * Every process a packet passes through, by name: each service, what it started (the
 * executor's MCP servers, "executor > @modelcontextprotocol/server-filesystem"), and
 * nats-server.
 */
export function fleetProcesses(bench: BenchFleet): Map<string, number> {
  const processes = new Map<string, number>();
  for (const [name, service] of bench.fleet.processes) {
    processes.set(name, service.child.pid!);
    for (const [pid, label] of descendants(service.child.pid!)) {
      const key = `${name} > ${label}`;
      processes.set(processes.has(key) ? `${key} ${pid}` : key, pid);
    }
  }
  const nats = runningNatsPid(bench.nats.dir);
  if (nats === undefined) throw new Error(`no nats-server runs on ${bench.nats.dir}`);
  processes.set("nats-server", nats);
  return processes;
}

async function fillCatalog(natsUrl: string, tools: readonly ToolDefinition[]): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const catalog = await openBucket(nc, CATALOG_BUCKET);
    for (let i = 0; i < tools.length; i += PUT_BATCH) await Promise.all(tools.slice(i, i + PUT_BATCH).map((tool) => putTool(catalog, tool)));
  } finally {
    await nc.drain();
  }
}
