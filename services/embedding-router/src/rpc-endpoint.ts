import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { respondError, RpcError } from "@switchyard/bus";
import type { Logger } from "@switchyard/telemetry";

export interface RpcEndpointDeps {
  nc: NatsConnection;
  logger: Logger;
}

/** The queue group: each request is answered by one router replica. */
const RPC_QUEUE = "embedding-router";

/** A request/reply endpoint: decode, handle, answer; an RpcError keeps its code, anything else is a 500. */
export function serveRequests<I extends DescMessage, O extends DescMessage>(
  deps: RpcEndpointDeps,
  subject: string,
  input: I,
  output: O,
  handle: (request: MessageShape<I>) => Promise<MessageShape<O>>,
): Subscription {
  return deps.nc.subscribe(subject, {
    queue: RPC_QUEUE,
    callback: (error, msg) => {
      if (error) return deps.logger.error({ err: error, subject }, "endpoint failed");
      let request: MessageShape<I>;
      try {
        request = fromBinary(input, msg.data);
      } catch {
        return respondError(msg, 400, `undecodable ${input.name}`);
      }
      handle(request).then(
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
