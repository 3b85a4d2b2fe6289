import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { MsgHdrs, NatsConnection, Subscription } from "@nats-io/nats-core";
import { serveRpc } from "@switchyard/bus";
import type { Logger } from "@switchyard/telemetry";

export interface RpcEndpointDeps {
  nc: NatsConnection;
  logger: Logger;
}

/** The queue group: each request is answered by one router replica. */
const RPC_QUEUE = "embedding-router";

/** A request/reply endpoint of the router replicas (see `serveRpc`). */
export function serveRequests<I extends DescMessage, O extends DescMessage>(
  deps: RpcEndpointDeps,
  subject: string,
  input: I,
  output: O,
  handle: (request: MessageShape<I>, requestHeaders: MsgHdrs | undefined) => Promise<MessageShape<O>>,
): Subscription {
  return serveRpc(deps, { subject, queue: RPC_QUEUE }, input, output, handle);
}
