import { fromBinary, toBinary, create } from "@bufbuild/protobuf";
import type { NatsConnection } from "@nats-io/nats-core";
import { requestReply, ServiceError, toolApprovalSubject } from "@switchyard/bus";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { GatewayError } from "../shared/deps.js";

/**
 * Asks the executors that run the tool's MCP server (catalog names are "<server>.<tool>")
 * to pin the tool's current definition and lift its quarantine; answers the catalog entry
 * as written. No such tool: GatewayError "not_found"; no executor answers: "unavailable".
 */
export async function requestToolApproval(nc: NatsConnection, name: string, timeoutMs: number): Promise<ToolDefinition> {
  const server = name.slice(0, Math.max(0, name.indexOf(".")));
  let subject: string;
  try {
    subject = toolApprovalSubject(server);
  } catch {
    throw new GatewayError("not_found", `no MCP tool ${name}: catalog names of MCP tools are "<server>.<tool>"`);
  }
  try {
    const request = toBinary(ToolDefinitionSchema, create(ToolDefinitionSchema, { name }));
    return fromBinary(ToolDefinitionSchema, await requestReply(nc, subject, request, timeoutMs));
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.code === 404) throw new GatewayError("not_found", error.message);
    throw new GatewayError("unavailable", `no executor serving MCP server ${server} answered: ${error.message}`);
  }
}
