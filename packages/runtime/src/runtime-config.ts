import { Type } from "typebox";
import type { Static } from "typebox";

/** Settings every service process reads, beside its own. */
export const runtimeConfigSchema = Type.Object(
  {
    NATS_URL: Type.String({ default: "nats://127.0.0.1:4222", description: "NATS server(s), comma-separated" }),
    HEALTH_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: "port of /healthz, /readyz and /metrics; 0 picks a free one" })),
    HEALTH_HOST: Type.String({ default: "0.0.0.0", description: "address of the health endpoints" }),
    LOG_LEVEL: Type.Enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], { default: "info", description: "pino's level" }),
    JETSTREAM_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1, description: "replicas of the packet stream and buckets (3 in a production cluster)" }),
    STAGE_ACK_WAIT_MS: Type.Integer({ minimum: 1000, default: 30000, description: "how long a stage may hold a packet before it is redelivered" }),
    STAGE_MAX_DELIVER: Type.Integer({ minimum: 1, default: 5, description: "deliveries of one packet message before it is dead-lettered and ends FAILED" }),
    STAGE_BACKOFF_MS: Type.String({
      pattern: "^\\s*([1-9]\\d*\\s*(,\\s*[1-9]\\d*\\s*)*)?$",
      default: "",
      description: "ack waits of the 2nd, 3rd, … delivery in ms, comma-separated, the last repeating; empty: doubling from STAGE_ACK_WAIT_MS",
    }),
    STAGE_RETRY_DELAY_MS: Type.Integer({ minimum: 0, default: 1000, description: "least wait before a packet whose step failed in a retryable way is delivered again" }),
    STAGE_CONCURRENCY: Type.Integer({ minimum: 1, default: 64, description: "packets one process works on at once" }),
    PACKET_RETENTION_HOURS: Type.Integer({
      minimum: 1,
      default: 168,
      description: "how long a packet stays in the switchyard-packets bucket after its last change (GET /v1/packets/{id}, the audit trail); longer than APPROVAL_TTL_MS",
    }),
    TRACE_CONTENT: Type.Boolean({
      default: false,
      description: "record request text, tool arguments and tool output on spans, secrets masked and cut to TRACE_CONTENT_MAX_CHARS",
    }),
    TRACE_CONTENT_MAX_CHARS: Type.Integer({ minimum: 16, maximum: 65536, default: 256, description: "longest text recorded with TRACE_CONTENT on" }),
  },
  { additionalProperties: false },
);

export type RuntimeConfig = Static<typeof runtimeConfigSchema>;
