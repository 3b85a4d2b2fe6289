// Wiring only: settings → tracing → NATS → HTTP and gRPC front doors → drain on SIGTERM.
// Tracing starts before the front doors are imported: the gRPC instrumentation patches
// @grpc/grpc-js as it loads, and ESM imports reach it only through OpenTelemetry's loader
// hook. Fastify's instrumentation hooks every instance as it is created.
import { register } from "node:module";
import { FastifyOtelInstrumentation } from "@fastify/otel";
import { GrpcInstrumentation } from "@opentelemetry/instrumentation-grpc";
import { readConfig, serverUrlPolicy } from "@switchyard/config";
import { WaitingPackets } from "@switchyard/bus";
import { drainOnSignals, exitOnSettingsError, startService, watchFleetBacklog } from "@switchyard/runtime";
import { authenticatorFrom, localModeExposure } from "./shared/auth.js";
import { throttleAuthFailures } from "./shared/auth-throttle.js";
import { configSchema } from "./config.js";
import { reconcilerSettings, runReconciler } from "./fleet/packet-reconciler.js";

register("@opentelemetry/instrumentation/hook.mjs", import.meta.url);
exitOnSettingsError("gateway");

// Settings first: a bad one, no API keys outside local mode, or local mode open to the network
// (unless allowed) stops the gateway before it connects anywhere.
const config = readConfig(configSchema, process.env);
const auth = throttleAuthFailures(authenticatorFrom(config), { max: config.AUTH_FAILURE_LIMIT, windowMs: config.AUTH_FAILURE_WINDOW_MS });
const serverUrls = serverUrlPolicy(config.SERVER_URL_ALLOW);
const exposure = localModeExposure(config);
const reconciling = reconcilerSettings(config);

const UNTRACED = new Set(["/healthz", "/readyz", "/metrics"]);
const service = await startService({
  name: "gateway",
  description: "the front doors: HTTP, gRPC, MCP and the OpenAI-compatible proxy; hands packets to the stages",
  env: process.env,
  instrumentations: [
    // No spans for hooks: the gateway's (API key, rate limit) are in-memory checks whose outcome the request span's status shows.
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      instrumentHooks: false,
      ignorePaths: ({ url }) => UNTRACED.has(url),
    }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ["Check", "Watch"] }),
  ],
});
if (exposure) service.logger.warn(exposure);
if (reconciling) await runReconciler(service, reconciling);
// Operators' view on /metrics: every stage's backlog, running or not, and the packets waiting for a person.
const waiting = new WaitingPackets(service.config.PACKET_RETENTION_HOURS * 3_600_000);
service.onStop(await watchFleetBacklog(service, waiting));
const { serveFrontDoors } = await import("./front-doors.js");
await serveFrontDoors(service, config, { auth, serverUrls, waiting, ...(exposure ? { warning: exposure } : {}) });
drainOnSignals(service);
