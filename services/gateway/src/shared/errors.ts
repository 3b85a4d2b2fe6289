import { STATUS_CODES } from "node:http";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { Type } from "@fastify/type-provider-typebox";
import type { Static } from "@fastify/type-provider-typebox";
import { GatewayError } from "./deps.js";
import type { GatewayErrorCode } from "./deps.js";
import { describeValidation } from "./requests.js";
import type { ValidationFailure } from "./requests.js";

/** How each expected failure is answered on each front door. */
export const ERROR_STATUS: Record<GatewayErrorCode, { http: number; grpc: GrpcStatus }> = {
  not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  conflict: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION },
  unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  invalid: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  upstream: { http: 502, grpc: GrpcStatus.UNAVAILABLE },
  forbidden: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
};

/** Seconds a client is asked to wait after a 503 (NATS away) or a concurrency 429 before trying again. */
export const RETRY_AFTER_SECONDS = 2;

/** A refusal worth trying again soon: a limit reached (429), or the fleet away (503). */
export function asksToRetry(status: number): boolean {
  return status === 429 || status === 503;
}

/** The one error shape of the HTTP API. */
export const ErrorBodySchema = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String({ description: "The HTTP reason phrase" }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'The request field at fault, e.g. "message" or "history/3/role"' })),
  },
  { description: "An error: the HTTP status, its reason phrase and what went wrong" },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;

export function errorBody(statusCode: number, message: string, field?: string): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? "Error", message, ...(field ? { field } : {}) };
}

interface FastifyLikeError {
  statusCode?: unknown;
  message?: unknown;
  validation?: unknown;
  validationContext?: unknown;
}

/**
 * The HTTP answer to an error thrown while handling a request. Client mistakes
 * keep their 4xx status and message; anything else is a 500 that says nothing
 * about the server's insides.
 */
export function httpErrorOf(error: unknown): ErrorBody {
  if (error instanceof GatewayError) return errorBody(ERROR_STATUS[error.code].http, error.message, error.field);
  const e = (typeof error === "object" && error !== null ? error : {}) as FastifyLikeError;
  if (Array.isArray(e.validation)) {
    const failure: ValidationFailure = describeValidation(e.validation, String(e.validationContext ?? "body"));
    return errorBody(400, failure.message, failure.field);
  }
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return errorBody(e.statusCode, typeof e.message === "string" ? e.message : "bad request");
  }
  return errorBody(500, "internal error");
}

/** The gRPC answer to the same errors; the message names the field for INVALID_ARGUMENT. */
export function grpcErrorOf(error: unknown): { code: GrpcStatus; details: string } {
  if (error instanceof GatewayError) {
    const details = error.field && !error.message.includes(error.field) ? `${error.field}: ${error.message}` : error.message;
    return { code: ERROR_STATUS[error.code].grpc, details };
  }
  return { code: GrpcStatus.INTERNAL, details: "internal error" };
}
