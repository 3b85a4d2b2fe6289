import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, DescService, MessageShape } from "@bufbuild/protobuf";
import type * as grpc from "@grpc/grpc-js";

export interface GrpcDecodeOptions {
  /**
   * Levels of nested messages a message is decoded to (a google.protobuf.Struct costs two per
   * level of JSON); a deeper one fails to decode. A server may decode deeper than it accepts,
   * to refuse what is too deep by its own rule, naming the field.
   * @default 100 (protobuf-es's)
   */
  recursionLimit?: number;
}

/**
 * A grpc-js service definition made from a protobuf-es service descriptor:
 * paths `/<package>.<Service>/<Method>`, messages in the binary wire format.
 * Keys are the methods' local names (`submitPacket`); clients built from it
 * with `makeGenericClientConstructor` have the same method names.
 */
export function grpcServiceDefinition(service: DescService, options: GrpcDecodeOptions = {}): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const read = options.recursionLimit === undefined ? {} : { recursionLimit: options.recursionLimit };
  for (const method of service.methods) {
    const codec = (desc: DescMessage) => ({
      serialize: (message: unknown) => Buffer.from(toBinary(desc, message as MessageShape<DescMessage>)),
      deserialize: (bytes: Buffer) => fromBinary(desc, bytes, read),
    });
    const input = codec(method.input);
    const output = codec(method.output);
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      requestSerialize: input.serialize,
      requestDeserialize: input.deserialize,
      responseSerialize: output.serialize,
      responseDeserialize: output.deserialize,
      originalName: method.name,
    };
  }
  return definition;
}
