import { Ajv } from "ajv";
import type { ErrorObject } from "ajv";

/**
 * A service's settings as a JSON schema over environment variable names:
 * `{ type: "object", additionalProperties: false, properties: { HTTP_PORT: { type: "integer", default: 8080 } } }`.
 */
export interface ConfigSchema {
  type: "object";
  additionalProperties?: boolean;
  properties: Record<string, Record<string, unknown>>;
  required?: readonly string[];
}

export class ConfigError extends Error {
  constructor(
    /** The environment variable at fault. */
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

// coerceTypes turns the strings of the environment into the schema's numbers
// and booleans; useDefaults fills what is unset (fastify's env handling does the same).
const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false });

/**
 * Reads the schema's variables from `env` (only those the schema names, so the
 * rest of the environment never counts as an unknown key), applies defaults and
 * types, and throws a ConfigError naming the first bad variable.
 */
export function readConfig<T>(schema: ConfigSchema, env: Record<string, string | undefined>): T {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties)) {
    const raw = env[name];
    if (raw !== undefined && raw !== "") values[name] = raw;
  }
  const validate = ajv.compile(schema);
  if (!validate(values)) {
    const error = (validate.errors ?? [])[0] as ErrorObject;
    const variable =
      error.instancePath.replace(/^\//, "").split("/")[0] || String(error.params["missingProperty"] ?? "config");
    throw new ConfigError(variable, `${error.message ?? "is invalid"} (got ${JSON.stringify(env[variable] ?? null)})`);
  }
  return values as T;
}

/** Splits a comma-separated setting ("a, b,c") into its items. */
export function parseList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
