/**
 * MCP servers registered at run time (the gateway's POST /v1/servers), kept in the
 * switchyard-servers bucket: the executor runs them beside the servers of its
 * switchyard.yaml. The file wins a name both hold; the registration is then left out
 * with an error line, as the gateway refuses to register a name the catalog has from a file.
 */
import { fromBinary } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import { followBucket } from "@switchyard/bus";
import { RegisteredServer_Trust, RegisteredServerSchema } from "@switchyard/packet";
import type { RegisteredServer } from "@switchyard/packet";
import type { HttpServerConfig, ServerConfig } from "./servers-config.js";

/** A registration as the pool runs it: a streamable HTTP server with no per-tool settings. */
export function serverConfigOf(server: RegisteredServer): HttpServerConfig {
  return {
    transport: "http",
    name: server.name,
    url: server.url,
    headers: { ...server.headers },
    exclude: [],
    core: [...server.core],
    pool: server.pool || server.name,
    domains: [...server.domains],
    tools: {},
    tenants: [...server.tenants],
    trust: server.trust === RegisteredServer_Trust.REVIEW ? "review" : "first-use",
    registeredBy: server.registeredBy,
  };
}

/** The servers to run: the file's, then the registered ones whose names the file does not hold; `shadowed` names those. */
export function withRegistered(fromFile: readonly ServerConfig[], registered: readonly ServerConfig[]): { servers: ServerConfig[]; shadowed: string[] } {
  const inFile = new Set(fromFile.map((server) => server.name));
  return {
    servers: [...fromFile, ...registered.filter((server) => !inFile.has(server.name))],
    shadowed: registered.filter((server) => inFile.has(server.name)).map((server) => server.name),
  };
}

export interface RegisteredServers {
  /** The registrations as they are now, by name. */
  servers(): ServerConfig[];
  stop(): void;
}

/**
 * Loads the bucket's registrations, then follows it: `onChange` runs after every change
 * once the initial load is done (the caller applies the initial set itself).
 */
export async function followRegisteredServers(bucket: KV, onChange: () => void): Promise<RegisteredServers> {
  const byName = new Map<string, ServerConfig>();
  let loaded = false;
  const changed = () => {
    if (loaded) onChange();
  };
  const follow = await followBucket(bucket, (bytes) => serverConfigOf(fromBinary(RegisteredServerSchema, bytes)), {
    upsert: (server, key) => {
      byName.set(key, server);
      changed();
    },
    remove: (key) => {
      byName.delete(key);
      changed();
    },
  });
  loaded = true;
  return { servers: () => [...byName.values()], stop: follow.stop };
}
