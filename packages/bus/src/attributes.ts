import { latestToolOutput, Packet_State, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { recordableText } from "@switchyard/telemetry";

/** Span attribute names: OpenTelemetry messaging conventions, and ours under `switchyard.`. */
export const Attr = {
  MessagingSystem: "messaging.system",
  MessagingDestination: "messaging.destination.name",
  MessagingOperationType: "messaging.operation.type",
  MessagingConsumerGroup: "messaging.consumer.group.name",
  MessagingMessageId: "messaging.message.id",
  PacketId: "switchyard.packet.id",
  Hop: "switchyard.hop",
  ReinjectionRound: "switchyard.reinjection.round",
  Stage: "switchyard.stage",
  Tool: "switchyard.tool.name",
  Confidence: "switchyard.confidence",
  ExecutionStatus: "switchyard.execution.status",
  PacketState: "switchyard.packet.state",
  // Content: recorded only with TRACE_CONTENT on, masked and truncated.
  RequestText: "switchyard.request.text",
  ToolArguments: "switchyard.tool.arguments",
  ToolOutput: "switchyard.tool.output",
} as const;

/** Recording of request text, tool arguments and tool output on spans: off unless asked for. */
export interface ContentRecording {
  /** Longest text recorded; longer is cut, secrets are masked first. */
  maxChars: number;
}

/**
 * What the stage decided, on its CONSUMER span: the chosen tool, the confidence (the
 * review's once there is one, else the selection's), the execution status and the
 * packet's state; with content recording on, also the request, the arguments and the
 * output, masked and cut.
 */
export function stageOutcomeAttributes(packet: Packet, content?: ContentRecording): Record<string, string | number> {
  const routing = packet.toolRouting;
  const selected = routing?.selectedTool;
  const attributes: Record<string, string | number> = {
    [Attr.ExecutionStatus]: ToolRoutingState_ExecutionStatus[routing?.executionStatus ?? 0] ?? "",
    [Attr.PacketState]: Packet_State[packet.state] ?? "",
  };
  if (selected?.toolName) {
    attributes[Attr.Tool] = selected.toolName;
    attributes[Attr.Confidence] = routing!.reviewConfidence || selected.selectionConfidence;
  }
  if (content) {
    attributes[Attr.RequestText] = recordableText(packet.content?.originalPrompt ?? "", content.maxChars);
    if (selected?.toolName) attributes[Attr.ToolArguments] = recordableText(JSON.stringify(selected.params ?? {}), content.maxChars);
    const output = routing?.executionResult ? latestToolOutput(packet) : undefined;
    if (output !== undefined) attributes[Attr.ToolOutput] = recordableText(JSON.stringify(output), content.maxChars);
  }
  return attributes;
}

/**
 * The attributes every packet message span carries, producer and consumer
 * alike: the messaging conventions plus the packet's id, hop and round.
 */
export function packetMessageAttributes(
  operation: "send" | "process",
  subject: string,
  messageId: string,
  packet: { header?: { packetId: string }; toolRouting?: { reinjectionCount: number } },
  hop: number,
): Record<string, string | number> {
  return {
    [Attr.MessagingSystem]: "nats",
    [Attr.MessagingDestination]: subject,
    [Attr.MessagingOperationType]: operation,
    [Attr.MessagingMessageId]: messageId,
    [Attr.PacketId]: packet.header?.packetId ?? "",
    [Attr.Hop]: hop,
    [Attr.ReinjectionRound]: packet.toolRouting?.reinjectionCount ?? 0,
  };
}
