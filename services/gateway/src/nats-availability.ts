import type { NatsConnection } from "@nats-io/nats-core";
import { isNatsFailure } from "@switchyard/bus";
import { GatewayError } from "./deps.js";

/** Whether NATS can be reached now, kept up to date from the connection's status events. */
export interface NatsAvailability {
  connected(): boolean;
}

/**
 * Follows the connection: a dropped connection keeps reconnecting for ever
 * (runtime's maxReconnectAttempts -1), and meanwhile requests are refused at
 * once instead of waiting on a publish that cannot be acknowledged.
 */
export function watchNatsAvailability(nc: NatsConnection): NatsAvailability {
  let connected = !nc.isClosed();
  void (async () => {
    // The status iterator ends when the connection closes.
    for await (const event of nc.status()) {
      if (event.type === "disconnect" || event.type === "close") connected = false;
      else if (event.type === "reconnect") connected = true;
    }
  })();
  return { connected: () => connected && !nc.isClosed() };
}

export const NATS_UNAVAILABLE = "NATS is unreachable; the request was not accepted, try again shortly";

/**
 * Runs `work` only while NATS is connected, and turns a failure of the NATS client
 * into 503/UNAVAILABLE, so a client learns quickly that nothing was accepted.
 */
export async function whileNatsAvailable<T>(availability: NatsAvailability, work: () => Promise<T>): Promise<T> {
  if (!availability.connected()) throw new GatewayError("unavailable", NATS_UNAVAILABLE);
  try {
    return await work();
  } catch (error) {
    if (isNatsFailure(error)) throw new GatewayError("unavailable", NATS_UNAVAILABLE, undefined, { cause: error });
    throw error;
  }
}
