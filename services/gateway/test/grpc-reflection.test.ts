import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { apiKeyAuthenticator } from "../src/shared/auth.js";
import { buildGrpcServer } from "../src/doors/grpc/grpc-server.js";
import { CATALOG, InMemoryGatewayDeps } from "./in-memory-deps.js";
import { serveGrpcInSuite } from "./test-servers.js";

const KEY = "key-a-0123456789abcdef";
const LIMITS = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth: apiKeyAuthenticator(new Map([[KEY, "tenant-a"]])) };

type Unary = (request: object, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response: { tools: { name: string }[] }) => void) => void;

describe("gateway grpc reflection", () => {
  const { server } = buildGrpcServer(new InMemoryGatewayDeps(), LIMITS);
  const served = serveGrpcInSuite(server);

  it("gateway grpc - a reflection client lists switchyard.v1.Router and calls it from the served descriptors alone, with a key", async () => {
    const reflection = new GrpcReflection(served.address, grpc.credentials.createInsecure());
    const services = await reflection.listServices();
    assert.ok(services.includes("switchyard.v1.Router"), services.join(", "));

    // No .proto file on this side: the package comes from the server's descriptors.
    const descriptor = await reflection.getDescriptorBySymbol("switchyard.v1.Router");
    const pkg = descriptor.getPackageObject({ keepCase: false, defaults: true, oneofs: true });
    const Router = (pkg["switchyard"] as grpc.GrpcObject)["v1"] as grpc.GrpcObject;
    const client = new (Router["Router"] as grpc.ServiceClientConstructor)(served.address, grpc.credentials.createInsecure());
    const listTools = client["ListTools"] as Unary;
    const call = (metadata: grpc.Metadata) =>
      new Promise<{ tools: { name: string }[] }>((resolve, reject) => listTools.call(client, {}, metadata, (error, response) => (error ? reject(error) : resolve(response))));

    const keyed = new grpc.Metadata();
    keyed.set("authorization", `Bearer ${KEY}`);
    const { tools } = await call(keyed);
    assert.ok(tools.some((tool) => tool.name === CATALOG[0]!.name), tools.map((t) => t.name).join(", "));
    await assert.rejects(call(new grpc.Metadata()), (error: grpc.ServiceError) => error.code === grpc.status.UNAUTHENTICATED);
    client.close();
  });
});
