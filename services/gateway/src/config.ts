/**
 * The gateway's settings, one environment variable each. `readConfig` from
 * `@switchyard/config` applies the defaults and coercion and names a bad variable.
 */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    HTTP_PORT: { type: "integer", minimum: 0, maximum: 65535, default: 8080, description: "Port of the HTTP API" },
    HTTP_HOST: { type: "string", minLength: 1, default: "0.0.0.0", description: "Address the HTTP API listens on" },
    GRPC_PORT: { type: "integer", minimum: 0, maximum: 65535, default: 50051, description: "Port of the gRPC API" },
    BODY_LIMIT_BYTES: {
      type: "integer",
      minimum: 1024,
      default: 1048576,
      description: "Largest request accepted, in bytes: HTTP body and gRPC message alike",
    },
    MAX_MESSAGE_CHARS: { type: "integer", minimum: 1, default: 32768, description: "Longest user message accepted" },
    MAX_HISTORY_TURNS: { type: "integer", minimum: 0, default: 50, description: "Most earlier turns a request may carry" },
    WAIT_TIMEOUT_MS: {
      type: "integer",
      minimum: 0,
      default: 30000,
      description: "How long a waiting request waits for its packet before answering 202 / finished=false",
    },
    ROUTE_TIMEOUT_MS: {
      type: "integer",
      minimum: 1,
      default: 5000,
      description: "How long a route-only request waits for an embedding-router before answering 503",
    },
    MAX_REINJECTIONS: { type: "integer", minimum: 0, default: 3, description: "Reinjection rounds a packet may take" },
    PACKET_DEADLINE_MS: {
      type: "integer",
      minimum: 0,
      default: 120000,
      description: "Time a packet has to finish from submission (or approval); past it a stage ends it FAILED. 0: no deadline",
    },
  },
} as const;

export interface Config {
  /** @default 8080 */
  HTTP_PORT: number;
  /** @default "0.0.0.0" */
  HTTP_HOST: string;
  /** @default 50051 */
  GRPC_PORT: number;
  /** @default 1048576 */
  BODY_LIMIT_BYTES: number;
  /** @default 32768 */
  MAX_MESSAGE_CHARS: number;
  /** @default 50 */
  MAX_HISTORY_TURNS: number;
  /** @default 30000 */
  WAIT_TIMEOUT_MS: number;
  /** @default 5000 */
  ROUTE_TIMEOUT_MS: number;
  /** @default 3 */
  MAX_REINJECTIONS: number;
  /** @default 120000 */
  PACKET_DEADLINE_MS: number;
}
