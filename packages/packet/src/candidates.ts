import { create } from "@bufbuild/protobuf";
import { RoutingCandidateSchema, ToolDefinitionSchema } from "./gen/switchyard/v1/packet_pb.js";
import type { Packet, RoutingCandidate, ToolDefinition } from "./gen/switchyard/v1/packet_pb.js";

/**
 * A candidate's tool as a packet carries it from stage to stage: which tool (name, server,
 * pin hash) and what policy needs of it (side effect, core, pool), not its description,
 * input schema and examples. Those are half of a routed packet's bytes, and every stage
 * that reads them has the catalog in memory (`resolveCandidates`).
 */
export function toolReference(tool: ToolDefinition): ToolDefinition {
  const { name, server, serverToolName, sideEffect, pinHash, core, pool } = tool;
  return create(ToolDefinitionSchema, { name, server, serverToolName, sideEffect, pinHash, core, pool });
}

/** The candidate with its tool by reference (toolReference). */
export function candidateByReference(candidate: RoutingCandidate): RoutingCandidate {
  return create(RoutingCandidateSchema, { ...candidate, ...(candidate.tool ? { tool: toolReference(candidate.tool) } : {}) });
}

/** Puts the packet's candidates back to references before it moves on. */
export function referenceCandidates(packet: Packet): void {
  const routing = packet.toolRouting;
  if (routing) routing.candidates = routing.candidates.map(candidateByReference);
}

/**
 * Each candidate's whole definition as the catalog holds it now (`lookup`, a stage's
 * mirror of the catalog bucket); a tool the catalog lacks keeps its reference.
 */
export function resolveCandidates(packet: Packet, lookup: (name: string) => ToolDefinition | undefined): void {
  for (const candidate of packet.toolRouting?.candidates ?? []) {
    const tool = candidate.tool && lookup(candidate.tool.name);
    if (tool) candidate.tool = tool;
  }
}
