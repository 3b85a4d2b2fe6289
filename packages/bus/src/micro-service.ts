import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { MsgHdrs, NatsConnection } from "@nats-io/nats-core";
import { ServiceError, Svcm } from "@nats-io/services";
import type { Service, ServiceMsg } from "@nats-io/services";
import type { Logger } from "@switchyard/telemetry";

/**
 * Request/reply between services as NATS micro services (`@nats-io/services`): each
 * process is one service with its endpoints, so `$SRV.PING`, `$SRV.INFO` and
 * `$SRV.STATS` (`nats micro ls`, `nats micro stats`) see the fleet. A refused request
 * is answered with the micro error headers: a ServiceError whose `code` is HTTP-like
 * (400, 404, 409, 500), 503 when nobody answered.
 */
export { ServiceError };
export type { Service };

/** A request/reply endpoint of a service: its name in `$SRV.INFO`, the subject it serves, and how it answers. */
export interface Endpoint {
  name: string;
  subject: string;
  /** Answers the request's bytes; a ServiceError keeps its code, anything else is a 500. */
  answer(data: Uint8Array, requestHeaders: MsgHdrs | undefined): Promise<Uint8Array>;
}

/**
 * An endpoint that takes and answers proto messages; bytes that are no `input` are a 400.
 * `encode` writes the answer when `output`'s own encoding is not the one wanted (a
 * wire-identical view of it, say).
 */
export function protoEndpoint<I extends DescMessage, O extends DescMessage>(
  name: string,
  subject: string,
  input: I,
  output: O,
  handle: (request: MessageShape<I>, requestHeaders: MsgHdrs | undefined) => MessageShape<O> | Promise<MessageShape<O>>,
  encode: (answer: MessageShape<O>) => Uint8Array = (answer) => toBinary(output, answer),
): Endpoint {
  return {
    name,
    subject,
    async answer(data, requestHeaders) {
      let request: MessageShape<I>;
      try {
        request = fromBinary(input, data);
      } catch {
        throw new ServiceError(400, `undecodable ${input.name}`);
      }
      return encode(await handle(request, requestHeaders));
    },
  };
}

export interface ServiceIdentity {
  /** The service's name (`$SRV.*.<name>`), e.g. "embedding-router"; also the queue group its replicas share. */
  name: string;
  version: string;
  description: string;
  metadata?: Record<string, string>;
}

/**
 * What `$SRV.STATS` shows of an endpoint in its `data`: the library times and counts only
 * the synchronous part of a handler, and these endpoints answer asynchronously.
 */
export interface AnswerStats {
  /** Requests answered with an error (refused or failed). */
  failed: number;
  /** Time spent answering, decode to reply, summed over every request. */
  answeringMs: number;
}

/** Adds this process's micro service with these endpoints; replicas of a service share each request (one queue group). */
export async function addMicroService(
  nc: NatsConnection,
  identity: ServiceIdentity,
  endpoints: readonly Endpoint[],
  logger: Pick<Logger, "error">,
): Promise<Service> {
  const stats = new Map<string, AnswerStats>(endpoints.map((endpoint) => [endpoint.subject, { failed: 0, answeringMs: 0 }]));
  const service = await new Svcm(nc).add({
    ...identity,
    queue: identity.name,
    statsHandler: (endpoint) => Promise.resolve(stats.get(endpoint.subject) ?? null),
  });
  for (const endpoint of endpoints) {
    service.addEndpoint(endpoint.name, {
      subject: endpoint.subject,
      handler: (error, msg) => {
        if (error) return logger.error({ err: error, subject: endpoint.subject }, "endpoint failed");
        void answer(endpoint, msg, stats.get(endpoint.subject)!, logger);
      },
    });
  }
  return service;
}

async function answer(endpoint: Endpoint, msg: ServiceMsg, stats: AnswerStats, logger: Pick<Logger, "error">): Promise<void> {
  const start = performance.now();
  try {
    msg.respond(await endpoint.answer(msg.data, msg.headers));
  } catch (failure) {
    stats.failed++;
    if (failure instanceof ServiceError) {
      msg.respondError(failure.code, failure.message);
    } else {
      logger.error({ err: failure, subject: endpoint.subject }, "request failed");
      msg.respondError(500, String(failure));
    }
  } finally {
    stats.answeringMs += performance.now() - start;
  }
}

/** Sends a request and returns the reply's body; throws a ServiceError when nobody answers or the service refused. */
export async function requestReply(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array,
  timeoutMs: number,
  requestHeaders?: MsgHdrs,
): Promise<Uint8Array> {
  let reply;
  try {
    reply = await nc.request(subject, data, { timeout: timeoutMs, ...(requestHeaders && { headers: requestHeaders }) });
  } catch (error) {
    throw new ServiceError(503, `no answer on ${subject}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const refused = ServiceError.toServiceError(reply);
  if (refused) throw refused;
  return reply.data;
}
