/** Small readers of JSON-schema fragments, shared by the argument fillers. */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

/** A schema's type: the string, or the first non-null one of a list (["string", "null"]); undefined when it gives none. */
export function typeOf(schema: JsonObject): string | undefined {
  const type = schema["type"];
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === "string" && t !== "null");
  return undefined;
}

/** The value as an object, if it is one (not an array, not null). */
export function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}

/** The value as an array, if it is one. */
export function asArray(value: JsonValue | undefined): JsonValue[] | undefined {
  return Array.isArray(value) ? value : undefined;
}
