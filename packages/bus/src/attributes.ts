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
