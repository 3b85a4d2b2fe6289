import { create, toBinary } from "@bufbuild/protobuf";
import type { DescFile, DescService } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type * as grpc from "@grpc/grpc-js";
import { loadFileDescriptorSetFromBuffer } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";

/**
 * Adds gRPC server reflection (`grpc.reflection.v1` and `v1alpha`, @grpc/reflection) for
 * `services`, so that grpcurl, Postman and reflection clients list and call them without
 * the .proto files. The descriptors are the generated ones (protobuf-es), each service's
 * file with every file it imports, handed over as a FileDescriptorSet.
 */
export function addReflection(server: grpc.Server, services: readonly DescService[]): void {
  const files = new Map<string, DescFile>();
  const add = (file: DescFile): void => {
    if (files.has(file.proto.name)) return;
    for (const dependency of file.dependencies) add(dependency);
    files.set(file.proto.name, file);
  };
  for (const service of services) add(service.file);
  const set = create(FileDescriptorSetSchema, { file: [...files.values()].map((file) => file.proto) });
  new ReflectionService(loadFileDescriptorSetFromBuffer(Buffer.from(toBinary(FileDescriptorSetSchema, set)))).addToServer(server);
}
