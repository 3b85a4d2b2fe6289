import { errors as natsErrors } from "@nats-io/nats-core";
import { JetStreamApiError, JetStreamError } from "@nats-io/jetstream";

/** Failures of the connection or the server; a bad argument (an invalid key) is the caller's own bug, not NATS being away. */
const NATS_ERRORS: (abstract new (...args: never[]) => Error)[] = [
  natsErrors.ClosedConnectionError,
  natsErrors.ConnectionError,
  natsErrors.DrainingConnectionError,
  natsErrors.NoRespondersError,
  natsErrors.RequestError,
  natsErrors.TimeoutError,
  JetStreamError,
  JetStreamApiError,
];

/** True for a failure to reach NATS or JetStream (timeout, no responders, closed connection, a JetStream refusal). */
export function isNatsFailure(error: unknown): boolean {
  return NATS_ERRORS.some((type) => error instanceof type);
}
