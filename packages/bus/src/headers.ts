/**
 * Header names on every packet message. nats.js looks headers up
 * case-sensitively, so the W3C names stay lowercase as the spec writes them.
 */
export const Headers = {
  /** JetStream de-duplication: `<packet id>:<hop>`, and `:r<resumes>` once resumed (hopMessageId). */
  MsgId: "Nats-Msg-Id",
  PacketId: "Switchyard-Packet-Id",
  Hop: "Switchyard-Hop",
  /**
   * The tenant: on a packet message, so that one whose body cannot be decoded still ends as
   * its tenant's FAILED packet; on a route-only request, the caller's (from its API key).
   */
  Tenant: "Switchyard-Tenant",
  TraceParent: "traceparent",
  TraceState: "tracestate",
} as const;

/**
 * The message id of a packet's hop; a redelivered stage republishes the same id, which JetStream
 * drops. A packet the reconciler resumed carries its resume count in every later id: those hops
 * may have been published before it was lost, and must not be dropped as their duplicates.
 */
export function hopMessageId(packetId: string, hop: number, resumes = 0): string {
  return resumes === 0 ? `${packetId}:${hop}` : `${packetId}:${hop}:r${resumes}`;
}
