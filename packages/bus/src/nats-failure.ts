import { setTimeout as sleep } from "node:timers/promises";
import { errors as natsErrors } from "@nats-io/nats-core";
import { JetStreamApiCodes, JetStreamApiError, JetStreamError } from "@nats-io/jetstream";

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

/**
 * What `js.publish` (and a KV write) throws when no server answered on the stream's subject:
 * between the death of a stream's leader and the election of the next, or while a server
 * restarts. nats.js does not export the class, so it is known by its name.
 */
const NO_STREAM_LEADER = "JetStreamNotEnabled";

/** JetStream's API error for "JetStream system temporarily unavailable" (no meta leader, no quorum yet). */
const TEMPORARILY_UNAVAILABLE = 10008;

/** True for a failure to reach NATS or JetStream (timeout, no responders, closed connection, a JetStream refusal). */
export function isNatsFailure(error: unknown): boolean {
  return NATS_ERRORS.some((type) => error instanceof type) || (error instanceof Error && error.name === NO_STREAM_LEADER);
}

/**
 * True for a failure that passes by itself within seconds: no answer from a stream whose
 * leader is being elected, a timeout, the connection reconnecting. A closed connection,
 * or JetStream refusing the request for what it is, does not pass by waiting.
 */
export function isTransientNatsFailure(error: unknown): boolean {
  if (error instanceof Error && error.name === NO_STREAM_LEADER) return true;
  if (error instanceof JetStreamApiError) return error.code === TEMPORARILY_UNAVAILABLE;
  return [natsErrors.NoRespondersError, natsErrors.TimeoutError, natsErrors.ConnectionError, natsErrors.RequestError].some(
    (type) => error instanceof type,
  );
}

/** A KV `update` (or `create`) that lost the race: someone else wrote the entry since it was read. */
export function isWriteConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** Longest wait between two tries: an election takes seconds, a try every second is soon enough after it. */
const MAX_BACKOFF_MS = 1_000;

/**
 * Runs `attempt`, and again after a growing wait (50 ms, doubling, at most 1 s) while it
 * fails in a way that passes (isTransientNatsFailure), for as long as `budgetMs` allows;
 * then throws the last error. Publishes carry a message id (Nats-Msg-Id), so one that was
 * stored although its ack was lost is stored once however often it is tried.
 * `mayRetry`, asked before each retry, can stop early: the gateway gives up once its
 * connection has been lost for longer than it waits for one, rather than retrying into a
 * dead connection until the whole budget is spent.
 */
export async function retryWhileTransient<T>(attempt: () => Promise<T>, budgetMs: number, mayRetry?: () => Promise<boolean>): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const wait = Math.min(50 * 2 ** tries, MAX_BACKOFF_MS);
      if (!isTransientNatsFailure(error) || Date.now() + wait >= deadline) throw error;
      if (mayRetry && !(await mayRetry())) throw error;
      await sleep(wait);
    }
  }
}
