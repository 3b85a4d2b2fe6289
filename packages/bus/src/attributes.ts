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
} as const;

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
