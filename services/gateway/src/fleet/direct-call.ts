/**
 * A call the caller chose (seed 001: route, the agent's own model picks, Switchyard reviews
 * and runs): `POST /v1/calls`, MCP's `tools/call`. It becomes a packet that starts at the
 * review stage with the call already selected, so it meets the same argument checks,
 * side-effect policy, approvals, executor, audit trail and traces as any packet; intent,
 * route and select are skipped because the caller did their work.
 */
import { create } from "@bufbuild/protobuf";
import {
  addReflection,
  intentOf,
  newPacket,
  Packet_State,
  RoutingCandidate_Source,
  RoutingCandidateSchema,
  routingOf,
  SelectedToolSchema,
  ToolRoutingState_ExecutionStatus,
  toolReference,
  toolVisibleTo,
} from "@switchyard/packet";
import type { Packet, SubmitCallRequest, ToolDefinition } from "@switchyard/packet";
import { GatewayError } from "../shared/deps.js";

/**
 * The tool `name` means among the tools `tenant` may see: its catalog name, else the one tool
 * whose name on its server is `name` ("write_file" for "filesystem.write_file"). Another
 * tenant's tool and a quarantined one are unknown; a bare name two servers share is refused
 * with both full names.
 */
export function resolveTool(name: string, tools: Iterable<ToolDefinition>, tenant: string): ToolDefinition {
  const visible = [...tools].filter((t) => toolVisibleTo(t, tenant) && !t.quarantined);
  const exact = visible.find((t) => t.name === name);
  if (exact) return exact;
  const bare = visible.filter((t) => t.serverToolName === name);
  if (bare.length === 1) return bare[0]!;
  if (bare.length > 1) {
    throw new GatewayError("invalid", `tool ${name} is ambiguous: ${bare.map((t) => t.name).sort().join(", ")}; name one of them`, "tool");
  }
  throw new GatewayError("not_found", `no tool named ${name}`);
}

/** The packet of a caller's call: one step, the call selected, waiting for review. */
export function callPacket(request: SubmitCallRequest, tool: ToolDefinition, maxReinjections: number): Packet {
  // No words are made up for a call that came without the user's: the router learns a tool's
  // examples from a packet's words, and "call filesystem.write_file {…}" is no request.
  const message = request.message.trim();
  const packet = newPacket({ message, sessionId: request.sessionId, scope: { tools: [tool.name] }, maxReinjections });
  const intent = intentOf(packet);
  intent.query = message;
  intent.steps = [message];
  intent.stepIndex = 0;
  const routing = routingOf(packet);
  routing.needsTool = true;
  routing.candidates = [create(RoutingCandidateSchema, { tool: toolReference(tool), score: 1, source: RoutingCandidate_Source.PINNED })];
  routing.selectedTool = create(SelectedToolSchema, {
    toolName: tool.name,
    params: request.arguments ?? {},
    // The caller chose: the review's checks and policy still apply, its confidence is the caller's.
    selectionConfidence: 1,
    selectionReasoning: "Chosen by the caller (a direct call).",
  });
  routing.executionStatus = ToolRoutingState_ExecutionStatus.AWAITING_CONFIDENCE;
  addReflection(packet, { step: "select", summary: `The caller chose ${tool.name}; intent, routing and selection were skipped.`, confidence: 1 });
  packet.state = Packet_State.REVIEWING;
  return packet;
}
