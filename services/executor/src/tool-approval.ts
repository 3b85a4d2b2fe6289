import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import { RpcError, serveRpc, toolApprovalEndpoint } from "@switchyard/bus";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import type { Logger } from "@switchyard/telemetry";
import { updateTool } from "./catalog-sync.js";
import { approveTool } from "./tool-pin.js";

export interface ToolApprovalDeps {
  nc: NatsConnection;
  logger: Logger;
  catalog: KV;
  /** The tools this executor's servers serve now. */
  served: () => ToolDefinition[];
}

/** The approval endpoints of this executor's servers, following its config as servers come and go. */
export interface ToolApprovals {
  /** Serves the endpoints of exactly these servers: starts the new ones, drains those of servers no longer listed. */
  serve(servers: string[]): Promise<void>;
  /** Drains every endpoint (at shutdown). */
  drain(): Promise<void>;
}

/**
 * Serves `POST /v1/tools/{name}/approve` for the gateway: the tool's definition as its
 * server serves it now is pinned and the quarantine lifted. One endpoint per server of
 * this executor (the request names the tool; the reply is the catalog entry as written),
 * none until `serve(servers)`.
 */
export function toolApprovals(deps: ToolApprovalDeps): ToolApprovals {
  const endpoints = new Map<string, Subscription>();
  const approvals: ToolApprovals = {
    async serve(servers) {
      for (const server of servers) {
        if (!endpoints.has(server)) endpoints.set(server, serveToolApproval(deps, server));
      }
      const gone = [...endpoints].filter(([server]) => !servers.includes(server));
      for (const [server] of gone) endpoints.delete(server);
      await Promise.all(gone.map(([, endpoint]) => endpoint.drain()));
    },
    drain: () => approvals.serve([]),
  };
  return approvals;
}

function serveToolApproval(deps: ToolApprovalDeps, server: string): Subscription {
  return serveRpc(deps, toolApprovalEndpoint(server), ToolDefinitionSchema, ToolDefinitionSchema, async (request) => {
    const tool = deps.served().find((candidate) => candidate.name === request.name);
    if (!tool) throw new RpcError(404, `no tool ${request.name} on MCP server ${server}`);
    const approved = await updateTool(deps.catalog, tool.name, () => approveTool(tool));
    deps.logger.info({ tool: tool.name, pinHash: approved.pinHash }, "tool approved and pinned");
    return approved;
  });
}
