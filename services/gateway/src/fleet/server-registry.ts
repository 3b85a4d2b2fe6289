/**
 * MCP servers registered at run time (POST /v1/servers), kept in the switchyard-servers
 * bucket by name; every executor follows the bucket and runs them beside the servers of
 * its switchyard.yaml (services/executor/src/registered-servers.ts).
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import { NOT_SERVED } from "@switchyard/bus";
import { RegisteredServerSchema } from "@switchyard/packet";
import type { RegisteredServer, ToolDefinition } from "@switchyard/packet";
import { GatewayError } from "../shared/deps.js";
import type { GatewayDeps } from "../shared/deps.js";

/** How often a registration looks at the catalog for the server's tools while it waits. */
const POLL_MS = 100;
/** Looks without a new tool after the first arrived before the list counts as complete: an executor writes them one by one. */
const SETTLED_POLLS = 3;

export interface ServerRegistryOptions {
  /** The switchyard-servers bucket. */
  bucket: KV;
  /** The catalog as the gateway follows it, every tool. */
  catalog: () => Iterable<ToolDefinition>;
  /** How long a registration waits for the executors to list the server's tools. */
  waitMs: number;
}

export function serverRegistry(options: ServerRegistryOptions): Pick<GatewayDeps, "registerServer" | "listServers" | "removeServer"> {
  const { bucket } = options;
  /** The server's tools its executors serve now (retired ones left out). */
  const servedTools = (name: string) => [...options.catalog()].filter((tool) => tool.server === name && !tool.flags.includes(NOT_SERVED));
  const stored = async (name: string) => {
    const entry = await bucket.get(name);
    return entry?.operation === "PUT" ? fromBinary(RegisteredServerSchema, entry.value) : undefined;
  };

  return {
    async registerServer(server) {
      const existing = await stored(server.name);
      if (existing) throw new GatewayError("conflict", `MCP server ${server.name} is registered already; DELETE /v1/servers/${server.name} first`, "name");
      // Tools of a server no registration holds come from an executor's switchyard.yaml, which wins the name.
      if (servedTools(server.name).length > 0) {
        throw new GatewayError("conflict", `MCP server ${server.name} is configured in switchyard.yaml; choose another name`, "name");
      }
      try {
        await bucket.create(server.name, toBinary(RegisteredServerSchema, server));
      } catch (error) {
        // Another registration of the name got there first.
        if (await stored(server.name)) throw new GatewayError("conflict", `MCP server ${server.name} is registered already`, "name");
        throw error;
      }
      return { server, tools: await listedTools(server.name) };
    },

    async listServers() {
      const servers: RegisteredServer[] = [];
      for await (const key of await bucket.keys()) {
        const server = await stored(key);
        if (server) servers.push(server);
      }
      return servers.sort((a, b) => a.name.localeCompare(b.name));
    },

    async removeServer(name) {
      if (!(await stored(name))) throw new GatewayError("not_found", `no MCP server ${name} is registered (servers of switchyard.yaml are changed there)`);
      await bucket.delete(name);
    },
  };

  /** The server's tools once an executor has listed them (served, not retired), or [] when none did within the wait. */
  async function listedTools(name: string): Promise<ToolDefinition[]> {
    const until = Date.now() + options.waitMs;
    let seen = 0;
    let quiet = 0;
    for (;;) {
      const listed = servedTools(name);
      quiet = listed.length > 0 && listed.length === seen ? quiet + 1 : 0;
      seen = listed.length;
      if (quiet >= SETTLED_POLLS || Date.now() >= until) return listed.sort((a, b) => a.name.localeCompare(b.name));
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
