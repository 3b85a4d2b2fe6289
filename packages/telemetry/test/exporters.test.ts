import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Server, ServerCredentials } from "@grpc/grpc-js";

const EMIT = fileURLToPath(new URL("fixtures/emit-span.ts", import.meta.url));

/** Runs the span-emitting child with `env` on top of a clean OTEL environment (async: this process serves the receivers). */
async function emit(env: Record<string, string>): Promise<{ exporting: boolean; recording: boolean }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("OTEL_")));
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", EMIT], { env: { ...clean, ...env }, encoding: "utf8", timeout: 20_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { exporting: boolean; recording: boolean };
}

describe("tracing exporters, configured only by OTEL_* variables", () => {
  const received: { path: string; contentType: string; body: Buffer }[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/json" }).end(req.headers["content-type"]?.includes("json") ? "{}" : "");
    });
  });
  // OTLP/gRPC: the collector's Export method, bodies kept as bytes (an empty reply is a valid ExportTraceServiceResponse).
  const grpcBodies: Buffer[] = [];
  const grpc = new Server();
  grpc.addService(
    {
      export: {
        path: "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    { export: (call: { request: Buffer }, callback: (error: null, reply: Buffer) => void) => (grpcBodies.push(call.request), callback(null, Buffer.alloc(0))) },
  );
  let httpUrl = "";
  let grpcUrl = "";

  before(async () => {
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const port = await new Promise<number>((resolve, reject) =>
      grpc.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))),
    );
    grpcUrl = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    grpc.forceShutdown();
  });

  it("exporters - http/json posts JSON spans with the service name to /v1/traces", async () => {
    received.length = 0;
    assert.deepEqual(await emit({ OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "probe-json" }), { exporting: true, recording: true });
    assert.equal(received.length, 1);
    assert.equal(received[0]!.path, "/v1/traces");
    assert.match(received[0]!.contentType, /application\/json/);
    const body = received[0]!.body.toString("utf8");
    assert.match(body, /"probe span"/);
    assert.match(body, /"probe-json"/, "OTEL_SERVICE_NAME names the service");
  });

  it("exporters - http/protobuf posts protobuf spans to /v1/traces; the service is switchyard-<name> by default", async () => {
    received.length = 0;
    assert.equal((await emit({ OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" })).exporting, true);
    assert.equal(received.length, 1);
    assert.match(received[0]!.contentType, /application\/x-protobuf/);
    assert.ok(received[0]!.body.includes("probe span"));
    assert.ok(received[0]!.body.includes("switchyard-probe"));
  });

  it("exporters - grpc calls the collector's TraceService/Export", async () => {
    grpcBodies.length = 0;
    assert.equal((await emit({ OTEL_EXPORTER_OTLP_ENDPOINT: grpcUrl, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).exporting, true);
    assert.equal(grpcBodies.length, 1);
    assert.ok(grpcBodies[0]!.includes("probe span"));
  });

  it("exporters - no endpoint: nothing is recorded or exported", async () => {
    received.length = 0;
    assert.deepEqual(await emit({}), { exporting: false, recording: false });
    assert.equal((await emit({ OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl, OTEL_SDK_DISABLED: "true" })).recording, false);
    assert.equal(received.length, 0);
  });
});
