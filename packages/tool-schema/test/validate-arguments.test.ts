import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { schemaOf } from "@switchyard/test-fixtures";
import { argumentIssues, cachedSchemaCount, describeErrors, requiredProperties, validateArguments } from "../src/validate-arguments.js";

interface Row {
  name: string;
  schema: JsonObject;
  args: JsonObject;
  /** Expected errors as "field: message"; empty when valid. */
  errors: string[];
}

const rows: Row[] = [
  { name: "a valid read", schema: schemaOf("filesystem", "read_text_file"), args: { path: "notes/todo.md" }, errors: [] },
  { name: "optional numbers", schema: schemaOf("filesystem", "read_text_file"), args: { path: "a.md", head: 10 }, errors: [] },
  { name: "a missing required path", schema: schemaOf("filesystem", "read_text_file"), args: {}, errors: ["path: is required"] },
  { name: "a path of the wrong type", schema: schemaOf("filesystem", "read_text_file"), args: { path: 5 }, errors: ["path: must be string"] },
  { name: "a number given as text", schema: schemaOf("filesystem", "read_text_file"), args: { path: "a.md", head: "10" }, errors: ["head: must be number"] },
  { name: "an empty paths array", schema: schemaOf("filesystem", "read_multiple_files"), args: { paths: [] }, errors: ["paths: must NOT have fewer than 1 items"] },
  { name: "a bad array item", schema: schemaOf("filesystem", "read_multiple_files"), args: { paths: ["a.md", 3] }, errors: ["paths.1: must be string"] },
  { name: "write without content", schema: schemaOf("filesystem", "write_file"), args: { path: "a.md" }, errors: ["content: is required"] },
  { name: "move with both paths", schema: schemaOf("filesystem", "move_file"), args: { source: "a", destination: "b" }, errors: [] },
  { name: "move with neither path, all errors listed", schema: schemaOf("filesystem", "move_file"), args: {}, errors: ["source: is required", "destination: is required"] },
  { name: "an enum value outside the list", schema: schemaOf("filesystem", "list_directory_with_sizes"), args: { path: "a", sortBy: "date" }, errors: ["sortBy: must be equal to one of the allowed values"] },
  { name: "a number above maximum", schema: schemaOf("everything", "get-resource-links"), args: { count: 50 }, errors: ["count: must be <= 10"] },
  { name: "a boolean given as text", schema: schemaOf("filesystem", "edit_file"), args: { path: "a", edits: [], dryRun: "yes" }, errors: ["dryRun: must be boolean"] },
  {
    name: "nested required properties",
    schema: schemaOf("memory", "create_entities"),
    args: { entities: [{ name: "Alice" }] },
    errors: ["entities.0.entityType: is required", "entities.0.observations: is required"],
  },
  { name: "valid nested entities", schema: schemaOf("memory", "create_entities"), args: { entities: [{ name: "Alice", entityType: "person", observations: ["works at Acme"] }] }, errors: [] },
  { name: "a tool with no parameters", schema: schemaOf("filesystem", "list_allowed_directories"), args: {}, errors: [] },
  {
    name: "an argument the tool does not take",
    schema: { type: "object", properties: { path: { type: "string" } }, additionalProperties: false },
    args: { path: "a", force: true },
    errors: ["force: is not a parameter of this tool"],
  },
  {
    name: "an argument a schema without additionalProperties does not name",
    schema: { type: "object", properties: { path: { type: "string" } } },
    args: { path: "a", force: true },
    errors: ["force: is not a parameter of this tool"],
  },
  {
    name: "other arguments a schema allows",
    schema: { type: "object", properties: { path: { type: "string" } }, additionalProperties: { type: "boolean" } },
    args: { path: "a", force: true },
    errors: [],
  },
  {
    name: "a draft 2020-12 schema",
    schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] } } },
    args: { pair: ["a", "b"] },
    errors: ["pair.1: must be integer"],
  },
  { name: "unknown keywords are ignored (strict off)", schema: { type: "object", "x-vendor": { ui: "wide" }, properties: { q: { type: "string", examples: ["x"] } } }, args: { q: "x" }, errors: [] },
  {
    name: "a remote $ref is not fetched",
    schema: { type: "object", properties: { cfg: { $ref: "https://example.invalid/schemas/cfg.json" } } },
    args: { cfg: {} },
    errors: ["(arguments): the tool's inputSchema cannot be used: can't resolve reference https://example.invalid/schemas/cfg.json from id #"],
  },
];

describe("tool-schema - validateArguments", () => {
  for (const row of rows) {
    it(`tool-schema - validates ${row.name}`, () => {
      const result = validateArguments(row.schema, row.args);
      if (row.errors.length === 0) {
        assert.deepEqual(result, { ok: true });
        return;
      }
      assert.equal(result.ok, false);
      assert.deepEqual(result.ok ? [] : result.errors.map((e) => `${e.field}: ${e.message}`), row.errors);
    });
  }

  it("tool-schema - compiles an equal schema once, whatever its key order", () => {
    const first = { type: "object", properties: { zz_cache_probe: { type: "string" } }, required: ["zz_cache_probe"] };
    const reordered = { required: ["zz_cache_probe"], properties: { zz_cache_probe: { type: "string" } }, type: "object" };
    validateArguments(first, { zz_cache_probe: "a" });
    const count = cachedSchemaCount();
    assert.deepEqual(validateArguments(reordered, {}), { ok: false, errors: [{ field: "zz_cache_probe", message: "is required" }] });
    assert.equal(cachedSchemaCount(), count);
  });

  it("tool-schema - describes errors in one line", () => {
    assert.equal(describeErrors([{ field: "path", message: "is required" }, { field: "head", message: "must be number" }]), "path: is required; head: must be number");
  });

  it("tool-schema - issues carry the failed keyword and its parameters", () => {
    const issues = argumentIssues(schemaOf("filesystem", "list_directory_with_sizes"), { sortBy: "date" });
    assert.deepEqual(
      issues.map(({ field, keyword, params }) => ({ field, keyword, params })),
      [
        { field: "path", keyword: "required", params: { missingProperty: "path" } },
        { field: "sortBy", keyword: "enum", params: { allowedValues: ["name", "size"] } },
      ],
    );
    assert.equal(argumentIssues({ type: "object", properties: { x: { $ref: "https://example.invalid/x.json" } } }, {})[0]?.keyword, "$schema");
  });

  it("tool-schema - required properties in schema order, strings only", () => {
    assert.deepEqual(requiredProperties(schemaOf("filesystem", "move_file")), ["source", "destination"]);
    assert.deepEqual(requiredProperties({ required: ["a", 3, "b"] }), ["a", "b"]);
    assert.deepEqual(requiredProperties({}), []);
  });
});
