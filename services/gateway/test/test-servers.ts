import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { grpcServiceDefinition } from "@switchyard/grpc";
import { Router } from "@switchyard/packet";
import type { GatewayApp } from "../src/app.js";

/**
 * Serves `server` for the suite this is called in: bound on a free loopback port before its
 * tests, shut down after them. The address and a generic Router client (each test types its
 * methods) are filled in before the first test.
 */
export function serveGrpcInSuite<Client extends grpc.Client>(server: grpc.Server): { address: string; client: Client } {
  const served = { address: "", client: undefined as unknown as Client };
  let close = () => undefined as void;
  before(async () => {
    const bound = await serveGrpc(server);
    served.address = bound.address;
    served.client = bound.client as Client;
    close = bound.close;
  });
  after(() => close());
  return served;
}

async function serveGrpc(server: grpc.Server): Promise<{ address: string; client: grpc.Client; close(): void }> {
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  const address = `127.0.0.1:${port}`;
  const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(Router), "Router");
  const client = new Client(address, grpc.credentials.createInsecure());
  return {
    address,
    client,
    close() {
      client.close();
      server.forceShutdown();
    },
  };
}

/** Listens on a free loopback port; an `openai` client for the app's OpenAI-compatible doors with `key`. */
export async function serveOpenAi(app: GatewayApp, key: string): Promise<OpenAI> {
  return new OpenAI({ apiKey: key, baseURL: `${await listenOnLoopback(app)}/v1`, maxRetries: 0 });
}

/**
 * Listens on a free loopback port; an `@anthropic-ai/sdk` client for the app's Messages door
 * with `key` as its bearer token, and `ownKey` as the caller's own Anthropic key (x-api-key),
 * which the gateway must not forward.
 */
export async function serveAnthropic(app: GatewayApp, key: string, ownKey = "sk-ant-the-callers-own-key"): Promise<Anthropic> {
  return new Anthropic({ authToken: key, defaultHeaders: { "x-api-key": ownKey }, baseURL: await listenOnLoopback(app), maxRetries: 0 });
}

async function listenOnLoopback(app: GatewayApp): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}
