/**
 * Checks a tool call's arguments against the tool's own `inputSchema` with ajv.
 *
 * - Each schema is compiled once and cached by the hash of its canonical JSON, so the
 *   hundreds of tools of a catalog cost one compilation each, not one per packet (and by
 *   the schema object too, so a definition kept in memory is not hashed again).
 * - `strict: false`: tool schemas in the wild carry keywords ajv does not know ("title",
 *   vendor extensions); they are ignored, not fatal.
 * - Remote `$ref`s are never fetched: only the synchronous `compile` is used and no
 *   `loadSchema` is configured, so an unresolvable `$ref` fails compilation, which is
 *   reported as a validation error (the reviewer then refuses the call).
 * - `$schema` picks the dialect: draft 2020-12 and 2019-09 have their own ajv classes; anything
 *   else (draft-07, which MCP servers built on zod emit, or none) uses the draft-07 class.
 */
import { createHash } from "node:crypto";
import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { JsonObject } from "@bufbuild/protobuf";
import { canonicalJson } from "@switchyard/packet";

export interface ArgumentError {
  /** The argument at fault as a dotted path ("path", "edits.0.oldText"), or "(arguments)" for the whole object. */
  field: string;
  message: string;
}

/** An ArgumentError with what failed, for callers that word errors their own way. */
export interface ArgumentIssue extends ArgumentError {
  /** The JSON-schema keyword that failed ("required", "type", "enum", "minimum", …); "$schema" when the schema cannot be used. */
  keyword: string;
  /** The keyword's parameters as ajv reports them: { limit: 1 }, { allowedValues: ["name", "size"] }, { type: "string" }. */
  params: Record<string, unknown>;
}

export type ValidationResult = { ok: true } | { ok: false; errors: ArgumentError[] };

/** Cached compilations, by schema hash; a schema that failed to compile caches its error. */
const compiled = new Map<string, ValidateFunction | Error>();
/** Enough for a large catalog; beyond it the oldest entry is dropped so memory stays bounded. */
const CACHE_LIMIT = 2000;

const options = { strict: false, allErrors: true, validateSchema: false } as const;
const draft07 = new Ajv(options);
const draft2019 = new Ajv2019(options);
const draft2020 = new Ajv2020(options);
// "date", "email", "uri"… are checked as JSON Schema defines them, not ignored with a warning.
for (const ajv of [draft07, draft2019, draft2020]) addFormats.default(ajv);

// The 2020-12 and 2019-09 meta-schema URIs, as "$schema" names them.
const DRAFT_2020 = /draft\/2020-12\/schema/;
const DRAFT_2019 = /draft\/2019-09\/schema/;

/** Validates `args` against `schema`; see the module comment for the rules. */
export function validateArguments(schema: JsonObject, args: JsonObject): ValidationResult {
  const issues = argumentIssues(schema, args);
  if (issues.length === 0) return { ok: true };
  return { ok: false, errors: issues.map(({ field, message }) => ({ field, message })) };
}

/** Every way `args` fails `schema` (empty when valid), with the keyword and parameters of each. */
export function argumentIssues(schema: JsonObject, args: JsonObject): ArgumentIssue[] {
  const validate = compile(schema);
  if (validate instanceof Error) {
    return [{ field: "(arguments)", message: `the tool's inputSchema cannot be used: ${validate.message}`, keyword: "$schema", params: {} }];
  }
  const issues = validate(args) ? [] : (validate.errors ?? []).map(toArgumentIssue);
  return [...issues, ...unknownArguments(schema, args, issues)];
}

/**
 * Arguments the schema does not name, where it says nothing of others. JSON Schema lets
 * them through unless `additionalProperties` forbids them, but a tool call is made against
 * the parameters the tool lists: an invented one ("force": true) is a mistake to report,
 * not to pass on. Schemas that do speak of others (additionalProperties, patternProperties)
 * are left to ajv.
 */
function unknownArguments(schema: JsonObject, args: JsonObject, reported: ArgumentIssue[]): ArgumentIssue[] {
  const properties = schema["properties"];
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return [];
  if (schema["additionalProperties"] !== undefined || schema["patternProperties"] !== undefined) return [];
  const seen = new Set(reported.map((issue) => issue.field));
  return Object.keys(args)
    .filter((name) => !Object.hasOwn(properties, name) && !seen.has(name))
    .map((name) => ({ field: name, message: "is not a parameter of this tool", keyword: "additionalProperties", params: { additionalProperty: name } }));
}

/**
 * The same compilations by schema object: a stage's catalog copy hands the same definition
 * objects to every packet, and hashing a schema costs more than validating against it.
 */
const compiledByObject = new WeakMap<JsonObject, ValidateFunction | Error>();

function compile(schema: JsonObject): ValidateFunction | Error {
  const known = compiledByObject.get(schema);
  if (known) return known;
  const key = hashOf(schema);
  const cached = compiled.get(key);
  if (cached) {
    compiledByObject.set(schema, cached);
    return cached;
  }
  let result: ValidateFunction | Error;
  const { $schema, ...body } = schema;
  const dialect = typeof $schema === "string" ? $schema : "";
  const ajv = DRAFT_2020.test(dialect) ? draft2020 : DRAFT_2019.test(dialect) ? draft2019 : draft07;
  try {
    result = ajv.compile(body);
  } catch (error) {
    result = error instanceof Error ? error : new Error(String(error));
  }
  if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, result);
  compiledByObject.set(schema, result);
  return result;
}

/** sha256 of the schema's canonical JSON (keys sorted), so equal schemas share one compilation. */
function hashOf(schema: JsonObject): string {
  return createHash("sha256").update(canonicalJson(schema)).digest("hex");
}


function toArgumentIssue(error: ErrorObject): ArgumentIssue {
  // "/edits/0/oldText" → ["edits", "0", "oldText"]; JSON Pointer escapes "~1" and "~0" are undone.
  const parts = error.instancePath
    .split("/")
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")); // JSON Pointer unescaping (RFC 6901 §4).
  const missing = error.params["missingProperty"];
  if (error.keyword === "required" && typeof missing === "string") parts.push(missing);
  const extra = error.params["additionalProperty"];
  if (error.keyword === "additionalProperties" && typeof extra === "string") parts.push(extra);
  const field = parts.length > 0 ? parts.join(".") : "(arguments)";
  const message =
    error.keyword === "required" ? "is required"
    : error.keyword === "additionalProperties" ? "is not a parameter of this tool"
    : (error.message ?? "is invalid");
  return { field, message, keyword: error.keyword, params: error.params };
}

/** The names a schema lists as required, in its order (non-string entries ignored); [] when none. */
export function requiredProperties(schema: JsonObject): string[] {
  const required = schema["required"];
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : [];
}

/** How many distinct schemas are compiled and cached (for tests and metrics). */
export function cachedSchemaCount(): number {
  return compiled.size;
}

/** One line naming every error, for reasoning texts: "path: is required; head: must be number". */
export function describeErrors(errors: ArgumentError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join("; ");
}
