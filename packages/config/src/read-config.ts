import { Ajv } from "ajv";
import type { ErrorObject } from "ajv";
import type { Static, TObject } from "typebox";
import { Value } from "typebox/value";

/**
 * A service's settings are one TypeBox schema over environment variable names, written once:
 * `Type.Object({ HTTP_PORT: Type.Integer({ default: 8080, description: "…" }) }, { additionalProperties: false })`;
 * its type is `Static<typeof schema>`, its defaults `defaultsOf(schema)`, and the settings
 * tables of the READMEs are checked against it.
 */
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
export function readConfig<S extends TObject>(schema: S, env: Record<string, string | undefined>): Static<S> {
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
  return values as Static<S>;
}

/** The settings with every default applied and nothing else set: what an empty environment gives. */
export function defaultsOf<S extends TObject>(schema: S): Static<S> {
  return Value.Default(schema, {}) as Static<S>;
}

/** Splits a comma-separated setting ("a, b,c") into its items. */
export function parseList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
