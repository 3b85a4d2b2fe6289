import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { Router } from "@switchyard/packet";
import type { Packet, SubmitPacketResponse } from "@switchyard/packet";
import { apiKeyAuthenticator } from "../src/shared/auth.js";
import { buildGrpcServer } from "../src/doors/grpc/grpc-server.js";
import { InMemoryGatewayDeps, PRIVATE_TENANT } from "./in-memory-deps.js";
import { serveGrpcInSuite } from "./test-servers.js";

const KEY_A = "key-a-0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef";
type UnaryMethod = (
  request: unknown,
  metadata: grpc.Metadata,
  callback: (error: grpc.ServiceError | null, response: unknown) => void,
) => void;

describe("gateway grpc auth", () => {
  const deps = new InMemoryGatewayDeps();
  const auth = apiKeyAuthenticator(new Map([[KEY_A, PRIVATE_TENANT], [KEY_B, "tenant-b"]]));
  const { server } = buildGrpcServer(deps, { bodyLimitBytes: 1048576, maxMessageChars: 100, maxHistoryTurns: 3, auth });
  let client: grpc.Client & Record<string, UnaryMethod>;

  function call<T>(method: keyof (typeof Router)["method"], init: object, key?: string): Promise<T> {
    const request = create(Router.method[method].input as DescMessage, init as never);
    const metadata = new grpc.Metadata();
    if (key !== undefined) metadata.set("authorization", `Bearer ${key}`);
    return new Promise((resolve, reject) => {
      client[method]!(request, metadata, (error, response) => (error ? reject(error) : resolve(response as T)));
    });
  }

  const rejectsWith = (promise: Promise<unknown>, code: grpc.status, details: RegExp) =>
    assert.rejects(promise, (error: grpc.ServiceError) => {
      assert.equal(error.code, code, `${grpc.status[code]} expected, got ${grpc.status[error.code]}: ${error.details}`);
      assert.match(error.details, details);
      return true;
    });

  const served = serveGrpcInSuite<typeof client>(server);
  before(() => (client = served.client));

  it("gateway grpc - ListTools and Route act for the key's tenant: another tenant's tool is not listed", async () => {
    const names = async (key: string) => (await call<{ tools: { name: string }[] }>("listTools", {}, key)).tools.map((t) => t.name);
    assert.ok((await names(KEY_A)).includes("ledger.post_entry"));
    assert.ok(!(await names(KEY_B)).includes("ledger.post_entry"));
    assert.ok((await names(KEY_B)).includes("filesystem.read_file"), "shared tools are listed for every tenant");
    await call("route", { message: "post an entry" }, KEY_B);
    assert.equal(deps.routedTenants.at(-1), "tenant-b");
  });

  it("gateway grpc - a call without a key or with a wrong one is UNAUTHENTICATED and reaches nothing", async () => {
    await rejectsWith(call("submitPacket", { message: "hi" }), grpc.status.UNAUTHENTICATED, /API key is required/);
    await rejectsWith(call("listTools", {}, `${KEY_A}x`), grpc.status.UNAUTHENTICATED, /not valid/);
    assert.equal(deps.submitted.length, 0);
  });

  it("gateway grpc - the key's tenant owns the packet; another tenant gets NOT_FOUND", async () => {
    const submitted = await call<SubmitPacketResponse>("submitPacket", { message: "hi" }, KEY_A);
    assert.equal(submitted.packet?.header?.tenant, PRIVATE_TENANT);
    const own = await call<Packet>("getPacket", { packetId: submitted.packetId }, KEY_A);
    assert.equal(own.header?.packetId, submitted.packetId);
    await rejectsWith(call("getPacket", { packetId: submitted.packetId }, KEY_B), grpc.status.NOT_FOUND, /not found/);
    await rejectsWith(call("denyPacket", { packetId: submitted.packetId }, KEY_B), grpc.status.NOT_FOUND, /no packet/);
  });
});
