// Wiring only: tracing → settings → NATS → HTTP and gRPC front doors → drain on SIGTERM.
// Tracing starts before the front doors are imported: the gRPC instrumentation patches
// @grpc/grpc-js as it loads, and ESM imports reach it only through OpenTelemetry's loader
// hook. Fastify's instrumentation hooks every instance as it is created.
import { register } from "node:module";
import { FastifyOtelInstrumentation } from "@fastify/otel";
import { GrpcInstrumentation } from "@opentelemetry/instrumentation-grpc";
import { drainOnSignals, startService } from "@switchyard/runtime";

register("@opentelemetry/instrumentation/hook.mjs", import.meta.url);

const UNTRACED = new Set(["/healthz", "/readyz", "/metrics"]);
const service = await startService({
  name: "gateway",
  env: process.env,
  instrumentations: [
    new FastifyOtelInstrumentation({ registerOnInitialization: true, ignorePaths: ({ url }) => UNTRACED.has(url) }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ["Check", "Watch"] }),
  ],
});
const { serveFrontDoors } = await import("./front-doors.js");
await serveFrontDoors(service);
drainOnSignals(service);
