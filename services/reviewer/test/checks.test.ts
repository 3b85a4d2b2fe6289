import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { schemaOf } from "@switchyard/test-fixtures";
import { checkArguments } from "../src/check-args.js";

describe("reviewer - checkArguments", () => {
  const rows: { name: string; schema: JsonObject; params: JsonObject; problems: string[] }[] = [
    { name: "complete", schema: schemaOf("filesystem", "read_text_file"), params: { path: "a.md" }, problems: [] },
    { name: "missing required", schema: schemaOf("filesystem", "write_file"), params: { path: "a.md" }, problems: ["content is required"] },
    { name: "null is missing", schema: schemaOf("filesystem", "read_text_file"), params: { path: null }, problems: ["path is required", "path must be string"] },
    { name: "wrong type", schema: schemaOf("filesystem", "read_text_file"), params: { path: "a", head: "3" }, problems: ["head must be number"] },
    { name: "integer-ness is not required of number", schema: schemaOf("filesystem", "read_text_file"), params: { path: "a", head: 2.5 }, problems: [] },
    { name: "enum", schema: schemaOf("filesystem", "list_directory_with_sizes"), params: { path: "a", sortBy: "date" }, problems: ['sortBy must be one of "name", "size"'] },
    { name: "bounds", schema: schemaOf("everything", "get-resource-links"), params: { count: 0 }, problems: ["count must be >= 1"] },
    { name: "minItems", schema: schemaOf("filesystem", "read_multiple_files"), params: { paths: [] }, problems: ["paths must have at least 1 items"] },
    { name: "no schema properties", schema: {}, params: { anything: 1 }, problems: [] },
    { name: "nested arguments", schema: schemaOf("memory", "create_entities"), params: { entities: [{ name: "Alice" }] }, problems: ["entities.0.entityType is required", "entities.0.observations is required"] },
    { name: "a type list", schema: { type: "object", properties: { n: { type: ["integer", "null"] } } }, params: { n: "x" }, problems: ["n must be integer or null"] },
    { name: "an unusable schema", schema: { type: "object", properties: { x: { $ref: "https://example.invalid/x.json" } } }, params: {}, problems: ["(arguments) the tool's inputSchema cannot be used: can't resolve reference https://example.invalid/x.json from id #"] },
  ];
  for (const row of rows) {
    it(`reviewer - checks arguments: ${row.name}`, () => {
      assert.deepEqual(checkArguments(row.schema, row.params).map((p) => `${p.field} ${p.message}`), row.problems);
    });
  }
});
