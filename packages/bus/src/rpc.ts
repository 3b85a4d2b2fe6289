import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { headers } from "@nats-io/nats-core";
import type { Msg, MsgHdrs, NatsConnection, Subscription } from "@nats-io/nats-core";
import type { Logger } from "@switchyard/telemetry";

/**
 * Request/reply between services (route-only, feedback, examples) with the
 * NATS micro-service error convention: a failed request is answered with an
 * empty body and these two headers.
 */
export const SERVICE_ERROR_HEADER = "Nats-Service-Error";
export const SERVICE_ERROR_CODE_HEADER = "Nats-Service-Error-Code";

/** A request the serving side refused or failed: `code` is HTTP-like (400, 404, 409, 500), 503 when nobody answered. */
export class RpcError extends Error {
  override readonly name = "RpcError";

  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Answers a request with an error in the micro-service headers. */
export function respondError(msg: Msg, code: number, description: string): void {
  const h = headers();
  h.set(SERVICE_ERROR_HEADER, description);
  h.set(SERVICE_ERROR_CODE_HEADER, String(code));
  msg.respond(new Uint8Array(), { headers: h });
}

/** Sends a request and returns the reply's body; throws an RpcError when nobody answers or the service reports an error. */
export async function requestReply(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array,
  timeoutMs: number,
  requestHeaders?: MsgHdrs,
): Promise<Uint8Array> {
  let reply: Msg;
  try {
    reply = await nc.request(subject, data, { timeout: timeoutMs, ...(requestHeaders && { headers: requestHeaders }) });
  } catch (error) {
    throw new RpcError(503, `no answer on ${subject}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const description = reply.headers?.get(SERVICE_ERROR_HEADER);
  if (description) throw new RpcError(Number(reply.headers?.get(SERVICE_ERROR_CODE_HEADER)) || 500, description);
  return reply.data;
}

export interface RpcEndpoint {
  subject: string;
  /** The queue group: each request is answered by one member. */
  queue: string;
}

/** A request/reply endpoint: decode, handle, answer; an RpcError keeps its code, anything else is a 500. */
export function serveRpc<I extends DescMessage, O extends DescMessage>(
  deps: { nc: NatsConnection; logger: Pick<Logger, "error"> },
  endpoint: RpcEndpoint,
  input: I,
  output: O,
  handle: (request: MessageShape<I>, requestHeaders: MsgHdrs | undefined) => Promise<MessageShape<O>>,
): Subscription {
  const { subject, queue } = endpoint;
  return deps.nc.subscribe(subject, {
    queue,
    callback: (error, msg) => {
      if (error) return deps.logger.error({ err: error, subject }, "endpoint failed");
      let request: MessageShape<I>;
      try {
        request = fromBinary(input, msg.data);
      } catch {
        return respondError(msg, 400, `undecodable ${input.name}`);
      }
      handle(request, msg.headers).then(
        (response) => msg.respond(toBinary(output, response)),
        (failure: unknown) => {
          if (failure instanceof RpcError) return respondError(msg, failure.code, failure.message);
          deps.logger.error({ err: failure, subject }, "request failed");
          respondError(msg, 500, String(failure));
        },
      );
    },
  });
}
