/**
 * The reviewer's look at the arguments: the tool's inputSchema checked in full by
 * @switchyard/tool-schema (the same validator the selector uses), so a call that any selector
 * let through with missing, mistyped or out-of-range arguments is refused here. Problems are
 * worded for the review's reasoning and for the question put to the user ("Which path …?").
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { argumentIssues, requiredProperties } from "@switchyard/tool-schema";
import type { ArgumentIssue } from "@switchyard/tool-schema";

export interface ArgumentProblem {
  field: string;
  message: string;
}

/** Problems with `params` against `schema`; empty when none are found. */
export function checkArguments(schema: JsonObject, params: JsonObject): ArgumentProblem[] {
  // The reviewer's own rule: a required argument given as null was not given (JSON Schema counts it as present).
  const nulls = requiredProperties(schema).filter((name) => params[name] === null).map((field) => ({ field, message: "is required" }));
  return [...nulls, ...argumentIssues(schema, params).map((issue) => ({ field: issue.field, message: wording(issue) }))];
}

/** The review's words for an issue, where they differ from ajv's ("must be one of …" names the values). */
function wording({ keyword, params, message }: ArgumentIssue): string {
  switch (keyword) {
    case "type": {
      const types = Array.isArray(params["type"]) ? params["type"] : [params["type"]];
      return `must be ${types.join(" or ")}`;
    }
    case "enum": {
      const allowed = Array.isArray(params["allowedValues"]) ? (params["allowedValues"] as JsonValue[]) : [];
      return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
    }
    case "minLength":
      return `must have at least ${String(params["limit"])} characters`;
    case "minItems":
      return `must have at least ${String(params["limit"])} items`;
    default:
      return message;
  }
}
