import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { intentOf, newPacket, Packet_State, routingOf, SelectedToolSchema, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet, RoutingCandidate } from "@switchyard/packet";

/** A packet as the selector hands it to review. */
export function selected(message: string, cands: RoutingCandidate[], toolName: string, params: JsonObject, confidence = 0.9): Packet {
  const packet = newPacket({ message });
  intentOf(packet).query = message;
  const routing = routingOf(packet);
  routing.candidates = cands;
  routing.needsTool = true;
  routing.selectedTool = create(SelectedToolSchema, { toolName, params, selectionConfidence: confidence, selectionReasoning: "test selection" });
  routing.executionStatus = ToolRoutingState_ExecutionStatus.AWAITING_CONFIDENCE;
  packet.state = Packet_State.REVIEWING;
  return packet;
}
