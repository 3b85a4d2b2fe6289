/**
 * The reviewer's own look at the arguments, independent of the selector's: required properties
 * present, and each top-level argument of the declared type, in its enum and bounds. The
 * selector validates in full with ajv; this second look makes sure a call the selector let
 * through with missing or mistyped arguments is refused here, whatever selector produced it.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

export interface ArgumentProblem {
  field: string;
  message: string;
}

/** Problems with `params` against `schema`'s top level; empty when none are found. */
export function checkArguments(schema: JsonObject, params: JsonObject): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  const properties = asObject(schema["properties"]) ?? {};
  const required = Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : [];
  for (const name of required) {
    if (!(name in params) || params[name] === null) problems.push({ field: name, message: "is required" });
  }
  for (const [name, value] of Object.entries(params)) {
    const property = asObject(properties[name]);
    if (!property) {
      if (schema["additionalProperties"] === false) problems.push({ field: name, message: "is not a parameter of this tool" });
      continue;
    }
    const problem = checkValue(property, value);
    if (problem) problems.push({ field: name, message: problem });
  }
  return problems;
}

function checkValue(schema: JsonObject, value: JsonValue): string | undefined {
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((t) => hasType(value, t))) return `must be ${types.join(" or ")}`;
  const allowed = schema["enum"];
  if (Array.isArray(allowed) && !allowed.some((a) => JSON.stringify(a) === JSON.stringify(value))) {
    return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
  }
  if (typeof value === "number") {
    if (typeof schema["minimum"] === "number" && value < schema["minimum"]) return `must be >= ${schema["minimum"]}`;
    if (typeof schema["maximum"] === "number" && value > schema["maximum"]) return `must be <= ${schema["maximum"]}`;
  }
  if (typeof value === "string" && typeof schema["minLength"] === "number" && value.length < schema["minLength"]) {
    return `must have at least ${schema["minLength"]} characters`;
  }
  if (Array.isArray(value) && typeof schema["minItems"] === "number" && value.length < schema["minItems"]) {
    return `must have at least ${schema["minItems"]} items`;
  }
  return undefined;
}

function typesOf(schema: JsonObject): string[] {
  const type = schema["type"];
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

function hasType(value: JsonValue, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "null":
      return value === null;
    default:
      return true;
  }
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}
