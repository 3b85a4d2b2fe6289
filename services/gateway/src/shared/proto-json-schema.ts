import { ScalarType } from "@bufbuild/protobuf";
import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";

/**
 * JSON Schemas of protobuf messages in their proto3 JSON mapping, built from
 * the generated descriptors, so the OpenAPI document describes exactly what
 * `toJson` produces without a hand-written copy of any message.
 */

export type JsonSchemaObject = { [key: string]: unknown };

/** Well-known types have their own JSON mapping (https://protobuf.dev/programming-guides/json/). */
const WELL_KNOWN: Record<string, JsonSchemaObject> = {
  "google.protobuf.Timestamp": { type: "string", format: "date-time" },
  "google.protobuf.Duration": { type: "string", description: 'Seconds with an "s" suffix, e.g. "1.5s"' },
  "google.protobuf.Struct": { type: "object", additionalProperties: true },
  "google.protobuf.Value": { description: "Any JSON value" },
  "google.protobuf.ListValue": { type: "array", items: {} },
};

/** A reference to a message's schema, resolvable once {@link protoJsonSchemas} are registered. */
export function protoSchemaRef(desc: DescMessage): JsonSchemaObject {
  return WELL_KNOWN[desc.typeName] ?? { $ref: `${desc.typeName}#` };
}

/** Schemas for the given messages and every message they reach, each with `$id` = its full type name. */
export function protoJsonSchemas(roots: readonly DescMessage[]): JsonSchemaObject[] {
  const seen = new Map<string, JsonSchemaObject>();
  const pending = [...roots];
  for (let desc = pending.pop(); desc !== undefined; desc = pending.pop()) {
    if (seen.has(desc.typeName) || desc.typeName in WELL_KNOWN) continue;
    const properties: JsonSchemaObject = {};
    const required: string[] = [];
    for (const field of desc.fields) {
      properties[field.jsonName] = fieldSchema(field);
      if (emittedAlways(field)) required.push(field.jsonName);
      const reached = field.message;
      if (reached) pending.push(reached);
    }
    seen.set(desc.typeName, { $id: desc.typeName, title: desc.name, type: "object", properties, required });
  }
  return [...seen.values()];
}

/** What a request field adds to its proto type: JSON Schema keywords (limits, description, default), and for a list, its items'. */
export interface FieldRule {
  /** The field must be given (proto3 cannot say so). */
  required?: boolean;
  schema?: JsonSchemaObject;
  items?: JsonSchemaObject;
}

/** Rules by message (full type name), then by field (JSON name). */
export type RequestRules = Record<string, Record<string, FieldRule>>;

/**
 * The JSON Schema of a request body: its message's fields in the proto3 JSON mapping, each
 * with its rules, nested messages inline with theirs, and no other field. `omit`: the
 * message's fields that come from elsewhere (the URL path).
 */
export function requestBodySchema(desc: DescMessage, rules: RequestRules, omit: readonly string[] = []): JsonSchemaObject {
  const own = rules[desc.typeName] ?? {};
  const properties: JsonSchemaObject = {};
  const required: string[] = [];
  for (const field of desc.fields) {
    if (omit.includes(field.jsonName)) continue;
    const rule = own[field.jsonName] ?? {};
    const base = field.message && !(field.message.typeName in WELL_KNOWN) ? requestBodySchema(field.message, rules) : undefined;
    const schema = field.fieldKind === "list" ? { type: "array", items: { ...(base ?? elementSchema(field)), ...rule.items } } : (base ?? fieldSchema(field));
    properties[field.jsonName] = { ...schema, ...rule.schema };
    if (rule.required) required.push(field.jsonName);
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** Fields that `toJson(…, { alwaysEmitImplicit: true })` writes even when they hold their default. */
function emittedAlways(field: DescField): boolean {
  if (field.fieldKind === "list" || field.fieldKind === "map") return true;
  return field.fieldKind !== "message" && field.presence === FeatureSet_FieldPresence.IMPLICIT;
}

function fieldSchema(field: DescField): JsonSchemaObject {
  switch (field.fieldKind) {
    case "scalar":
      return scalarSchema(field.scalar);
    case "enum":
      return enumSchema(field.enum);
    case "message":
      return protoSchemaRef(field.message);
    case "list":
      return { type: "array", items: elementSchema(field) };
    case "map":
      return { type: "object", additionalProperties: elementSchema(field) };
  }
}

function elementSchema(field: DescField & { fieldKind: "list" | "map" }): JsonSchemaObject {
  if (field.message) return protoSchemaRef(field.message);
  if (field.enum) return enumSchema(field.enum);
  return scalarSchema(field.scalar);
}

function enumSchema(desc: DescEnum): JsonSchemaObject {
  return { type: "string", enum: desc.values.map((value) => value.name) };
}

function scalarSchema(scalar: ScalarType): JsonSchemaObject {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", format: "byte" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", format: "int32" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", minimum: 0 };
    default:
      // 64-bit integers are strings in proto3 JSON: a JSON number loses precision past 2^53.
      return { type: "string", format: "int64" };
  }
}
