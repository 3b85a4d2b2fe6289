import type { KV } from "@nats-io/kv";
import { protoEndpoint, ServiceError, toolApprovalSubject } from "@switchyard/bus";
import type { Endpoint } from "@switchyard/bus";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import type { Logger } from "@switchyard/telemetry";
import { updateTool } from "./catalog-sync.js";
import { approveTool } from "./tool-pin.js";

export interface ToolApprovalDeps {
  logger: Logger;
  catalog: KV;
  /** The tools this executor's servers serve now. */
  served: () => ToolDefinition[];
}

/**
 * The endpoints behind `POST /v1/tools/{name}/approve`, one per MCP server of this executor
 * (`approve-tool-<server>`): the tool's definition as its server serves it now is pinned
 * and the quarantine lifted. The request names the tool; the reply is the catalog entry as
 * written.
 */
export function toolApprovalEndpoints(deps: ToolApprovalDeps, servers: readonly string[]): Endpoint[] {
  return servers.map((server) =>
    protoEndpoint(`approve-tool-${server}`, toolApprovalSubject(server), ToolDefinitionSchema, ToolDefinitionSchema, async (request) => {
      const tool = deps.served().find((candidate) => candidate.name === request.name);
      if (!tool) throw new ServiceError(404, `no tool ${request.name} on MCP server ${server}`);
      const approved = await updateTool(deps.catalog, tool.name, () => approveTool(tool));
      deps.logger.info({ tool: tool.name, pinHash: approved.pinHash }, "tool approved and pinned");
      return approved;
    }),
  );
}
