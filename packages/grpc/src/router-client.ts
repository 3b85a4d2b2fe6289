import { create } from "@bufbuild/protobuf";
import type { DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { Router } from "@switchyard/packet";
import { grpcServiceDefinition } from "./service-definition.js";

type Methods = (typeof Router)["method"];

/** One promise-returning function per Router RPC, taking the request's fields. */
export type RouterClient = {
  [K in keyof Methods]: (
    request: MessageInitShape<Methods[K]["input"]>,
    options?: grpc.CallOptions,
  ) => Promise<MessageShape<Methods[K]["output"]>>;
} & { close(): void };

type UnaryMethod = (
  request: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response: unknown) => void,
) => void;

/** A typed client of the gateway's gRPC API, e.g. `await client.submitPacket({ message: "read notes/todo.md" })`. */
export function createRouterClient(
  address: string,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
): RouterClient {
  const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(Router), "Router");
  const client = new Client(address, credentials) as grpc.Client & Record<string, UnaryMethod>;
  const methods: Record<string, unknown> = { close: () => client.close() };
  for (const method of Router.methods) {
    methods[method.localName] = (init: object, options: grpc.CallOptions = {}) =>
      new Promise((resolve, reject) => {
        const request = create(method.input as DescMessage, init as never);
        client[method.localName]!(request, new grpc.Metadata(), options, (error, response) =>
          error ? reject(error) : resolve(response),
        );
      });
  }
  return methods as RouterClient;
}
