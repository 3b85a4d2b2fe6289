import type { Stage } from "@switchyard/packet";

// A subject token as nats.js validates names: letters, digits, "_" and "-".
const TOKEN = /^[-\w]+$/;

function token(value: string, what: string): string {
  if (!TOKEN.test(value)) throw new Error(`invalid ${what} for a NATS subject: ${JSON.stringify(value)}`);
  return value;
}

/** Every packet subject, for the stream's filter. */
export const PACKETS_WILDCARD = "switchyard.packets.>";

/** Where a stage's packets wait: `switchyard.packets.<stage>`. */
export function packetSubject(stage: Stage): string {
  return `switchyard.packets.${token(stage, "stage")}`;
}

/** Where a finished packet is announced to the gateway that waits for it. */
export function doneSubject(packetId: string): string {
  return `switchyard.done.${token(packetId, "packet id")}`;
}

/** Route-only requests (request/reply, served by the embedding-router replicas). */
export const ROUTE_SUBJECT = "switchyard.rpc.route";
